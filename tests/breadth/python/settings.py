import os

# revu-breadth: defect B105
DATABASE_PASSWORD = "s3cr3t-Pa55word!"
# revu-breadth: trap B105
DATABASE_PASSWORD_ENV = os.environ.get("DATABASE_PASSWORD")
# revu-breadth: defect B201
DEBUG = True
