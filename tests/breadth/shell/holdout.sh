#!/bin/bash
# revu-eval: defect pipe-to-shell
wget -qO- https://get.example.com/setup | bash
# revu-eval: defect world-writable
chmod a+w /var/lib/app/state
# revu-eval: defect insecure-transport
curl --insecure -o pkg.tgz https://mirror.example.com/pkg.tgz
# revu-eval: defect SC2115
rm -rf $CACHE_DIR/cache
# revu-eval: trap SC2115
rm -rf "${CACHE_DIR:?}/cache"
