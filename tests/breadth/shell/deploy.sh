#!/bin/sh
set -eu

# revu-breadth: defect pipe-to-shell
curl -fsSL https://get.example.com/install.sh | sh
# revu-breadth: trap pipe-to-shell
curl -fsSL -o install.sh https://get.example.com/install.sh
# revu-breadth: defect world-writable
chmod 777 /srv/app
# revu-breadth: trap world-writable
chmod 750 /srv/app
# revu-breadth: defect insecure-transport
curl -k https://internal.example.com/health
# revu-breadth: defect insecure-transport
wget --no-check-certificate https://internal.example.com/pkg.tgz
# revu-breadth: defect eval-of-input
eval "$1"
# revu-breadth: defect SC2115
rm -rf "$TARGET_DIR/"*
