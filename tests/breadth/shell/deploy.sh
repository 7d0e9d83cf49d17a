#!/bin/sh
set -eu

# revu-eval: defect pipe-to-shell
curl -fsSL https://get.example.com/install.sh | sh
# revu-eval: trap pipe-to-shell
curl -fsSL -o install.sh https://get.example.com/install.sh
# revu-eval: defect world-writable
chmod 777 /srv/app
# revu-eval: trap world-writable
chmod 750 /srv/app
# revu-eval: defect insecure-transport
curl -k https://internal.example.com/health
# revu-eval: defect insecure-transport
wget --no-check-certificate https://internal.example.com/pkg.tgz
# revu-eval: defect eval-of-input
eval "$1"
# revu-eval: defect SC2115
rm -rf "$TARGET_DIR/"*
