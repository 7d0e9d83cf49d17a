import hashlib
import pickle
import subprocess
import xml.etree.ElementTree as ET

import jinja2
import paramiko
import requests


def unpack(name):
    # revu-eval: defect B602
    subprocess.Popen(f"tar xf {name}", shell=True)
    # revu-eval: trap B602
    subprocess.run(["tar", "xf", name], check=True)


def restore(blob):
    # revu-eval: defect B301
    return pickle.loads(blob)


def fingerprint(data):
    # revu-eval: defect B324
    return hashlib.new("sha1", data).hexdigest()


def push(url, body):
    # revu-eval: defect B501
    return requests.post(url, data=body, verify=False, timeout=3)


def parse(data):
    # revu-eval: defect B314
    return ET.fromstring(data)


def templates():
    # revu-eval: defect B701
    return jinja2.Environment(autoescape=False)


def connect(client):
    # revu-eval: defect B507
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
