resource "aws_s3_bucket_acl" "share" {
  bucket = aws_s3_bucket.share.id
  # revu-eval: defect CKV_AWS_20
  acl = "public-read-write"
}

resource "aws_s3_bucket_public_access_block" "share" {
  bucket = aws_s3_bucket.share.id
  # revu-eval: defect CKV_AWS_53
  block_public_acls = false
}

resource "aws_security_group" "web" {
  ingress {
    from_port = 443
    to_port   = 443
    protocol  = "tcp"
    # revu-eval: defect CKV_AWS_260
    ipv6_cidr_blocks = ["::/0"]
  }
  egress {
    from_port = 0
    to_port   = 0
    protocol  = "-1"
    # revu-eval: trap CKV_AWS_24
    cidr_blocks = ["0.0.0.0/0"]
  }
}

data "aws_iam_policy_document" "admin" {
  statement {
    # revu-eval: defect CKV_AWS_111
    actions   = ["*"]
    resources = ["*"]
  }
}
