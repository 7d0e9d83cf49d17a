import os

# revu-eval: defect B105
DATABASE_PASSWORD = "s3cr3t-Pa55word!"
# revu-eval: trap B105
DATABASE_PASSWORD_ENV = os.environ.get("DATABASE_PASSWORD")
# revu-eval: defect B201
DEBUG = True
