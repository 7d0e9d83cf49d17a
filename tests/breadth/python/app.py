import hashlib
import os
import random
import subprocess
import tempfile

import requests
import yaml


def run(cmd, user_input):
    # revu-eval: defect B602
    subprocess.call("ls " + user_input, shell=True)
    # revu-eval: trap B602
    subprocess.call(["ls", user_input])
    # revu-eval: defect B605
    os.system("rm -rf " + user_input)


def digest(data):
    # revu-eval: defect B324
    return hashlib.md5(data).hexdigest()


def safe_digest(data):
    # revu-eval: trap B324
    return hashlib.sha256(data).hexdigest()


def load(text):
    # revu-eval: defect B506
    return yaml.load(text)


def safe_load(text):
    # revu-eval: trap B506
    return yaml.safe_load(text)


def fetch(url):
    # revu-eval: defect B501
    return requests.get(url, verify=False, timeout=5)


def fetch_slow(url):
    # revu-eval: defect B113
    return requests.get(url)


def fetch_bounded(url):
    # revu-eval: trap B113
    return requests.get(url, timeout=10)


def token():
    # revu-eval: defect B311
    reset_token = str(random.randint(100000, 999999))
    return reset_token


def scratch():
    # revu-eval: defect B306
    return tempfile.mktemp()


def share(path):
    # revu-eval: defect B103
    os.chmod(path, 0o777)


def query(cursor, name):
    # revu-eval: defect B608
    cursor.execute("SELECT * FROM users WHERE name = '%s'" % name)
    # revu-eval: trap B608
    cursor.execute("SELECT id, name FROM users WHERE name = %s", (name,))


def evaluate(expr):
    # revu-eval: defect B307
    return eval(expr)


def serve(app):
    # revu-eval: defect B104
    app.run(host="0.0.0.0", port=8080)
