#!/usr/bin/env bash
# Whole-process comparison of `revu facts` with `git apply --numstat` on the
# same patch, in the same run, runs interleaved so both see the same machine.
#
# Usage: bench-vs-git.sh [PATCH] [RUNS]
#   PATCH  default: the largest patch under generated/cases (build-corpus.sh)
#   RUNS   default: 9
# Env: REVU (default: target/release/revu of this workspace).
#
# Reports medians of wall time and CPU time (user + system), the time
# ratio revu/git, and peak RSS (GNU time's %M, the largest over the runs)
# against the patch size. Writes the same lines to generated/results/bench.txt.
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "$0")" && pwd)
workspace=$(cd "$here/../.." && pwd)
revu=${REVU:-$workspace/target/release/revu}
patch=${1:-$(find "$here/generated/cases" -name '*.patch' -printf '%s %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)}
runs=${2:-9}
[ -x "$revu" ] || { echo "no revu binary at $revu (cargo build --release -p revu-cli)" >&2; exit 2; }
[ -f "$patch" ] || { echo "no patch at '$patch' (run build-corpus.sh)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time is needed (apt-get install time)" >&2; exit 2; }
patch=$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")

# git apply inside a repository only reads the patch for paths under the
# current directory: run both tools from an empty directory outside any.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"

# measure NAME CMD...: one run; appends "wall cpu rss_kb" to $scratch/NAME.
measure() {
    local name=$1
    shift
    /usr/bin/time -o "$scratch/one" -f '%e %U %S %M' "$@" >/dev/null
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$scratch/one" >>"$scratch/$name"
}

# Warm the page cache so neither tool pays for the disk.
cat "$patch" >/dev/null
measure revu "$revu" facts --diff "$patch"
git apply --numstat "$patch" >/dev/null
: >"$scratch/revu"
for _ in $(seq "$runs"); do
    measure revu "$revu" facts --diff "$patch"
    measure git git apply --numstat "$patch"
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
col() { awk -v c="$2" '{ print $c }' "$scratch/$1"; }

size=$(stat -c %s "$patch")
files=$(grep -c '^diff --git ' "$patch" || true)
rw=$(col revu 1 | median) gw=$(col git 1 | median)
rc=$(col revu 2 | median) gc=$(col git 2 | median)
rr=$(col revu 3 | sort -n | tail -n 1) gr=$(col git 3 | sort -n | tail -n 1)
report=$(
    awk -v p="$(basename "$patch")" -v size="$size" -v files="$files" -v runs="$runs" \
        -v rw="$rw" -v gw="$gw" -v rc="$rc" -v gc="$gc" -v rr="$rr" -v gr="$gr" 'BEGIN {
        mb = size / 1e6
        printf "patch: %s, %.1f MB, %d files, %d runs each, medians\n", p, mb, files, runs
        printf "revu facts:          wall %.2f s  cpu %.2f s  peak rss %.1f MB (%.2fx patch)\n", rw, rc, rr * 1024 / 1e6, rr * 1024 / size
        printf "git apply --numstat: wall %.2f s  cpu %.2f s  peak rss %.1f MB (%.2fx patch)\n", gw, gc, gr * 1024 / 1e6, gr * 1024 / size
        printf "ratio revu/git:      wall %.2f  cpu %.2f\n", (gw > 0 ? rw / gw : 0), (gc > 0 ? rc / gc : 0)
    }'
)
echo "$report"
mkdir -p "$here/generated/results"
echo "$report" >"$here/generated/results/bench.txt"
