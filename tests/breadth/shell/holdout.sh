#!/bin/bash
# revu-breadth: defect pipe-to-shell
wget -qO- https://get.example.com/setup | bash
# revu-breadth: defect world-writable
chmod a+w /var/lib/app/state
# revu-breadth: defect insecure-transport
curl --insecure -o pkg.tgz https://mirror.example.com/pkg.tgz
# revu-breadth: defect SC2115
rm -rf $CACHE_DIR/cache
# revu-breadth: trap SC2115
rm -rf "${CACHE_DIR:?}/cache"
