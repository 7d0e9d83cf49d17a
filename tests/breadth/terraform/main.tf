resource "aws_s3_bucket_acl" "logs" {
  bucket = aws_s3_bucket.logs.id
  # revu-eval: defect CKV_AWS_20
  acl = "public-read"
}

resource "aws_s3_bucket_acl" "private" {
  bucket = aws_s3_bucket.private.id
  # revu-eval: trap CKV_AWS_20
  acl = "private"
}

resource "aws_security_group_rule" "ssh" {
  type        = "ingress"
  from_port   = 22
  to_port     = 22
  protocol    = "tcp"
  # revu-eval: defect CKV_AWS_24
  cidr_blocks = ["0.0.0.0/0"]
}

resource "aws_security_group_rule" "office" {
  type        = "ingress"
  from_port   = 22
  to_port     = 22
  protocol    = "tcp"
  # revu-eval: trap CKV_AWS_24
  cidr_blocks = ["10.20.0.0/16"]
}

resource "aws_db_instance" "main" {
  engine = "postgres"
  # revu-eval: defect CKV_AWS_17
  publicly_accessible = true
  # revu-eval: defect CKV_AWS_16
  storage_encrypted = false
  # revu-eval: defect CKV_AWS_41
  password = "hunter2-Pr0duction!"
}

resource "aws_ebs_volume" "data" {
  size = 100
  # revu-eval: defect CKV_AWS_3
  encrypted = false
}

resource "aws_ebs_volume" "safe" {
  size = 100
  # revu-eval: trap CKV_AWS_3
  encrypted = true
}

resource "aws_iam_policy" "admin" {
  policy = jsonencode({
    Statement = [{
      Effect = "Allow"
      # revu-eval: defect CKV_AWS_62
      Action = "*"
      Resource = "*"
    }]
  })
}
