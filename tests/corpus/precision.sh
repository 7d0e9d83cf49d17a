#!/usr/bin/env bash
# Precision of the built-in rules on clean release-to-release diffs.
#
# A release that its maintainers shipped is, as far as a reviewer can tell,
# clean: every BLOCKER revu raises on one is either a real problem a senior
# reviewer would also block on, or a false positive to fix. This runs
# `revu review --format json` on the `default` patch of each corpus pair
# (build-corpus.sh) and prints one row per release: files changed, the
# BLOCKER and IMPORTANT counts, and the rule codes of the BLOCKERs.
#
# Usage: precision.sh [-v] [CASE...]   (default: every built pair)
#   -v   also list every BLOCKER (file:line, rule, summary) under the table
# Env: REVU (default: target/debug/revu of this workspace),
#      CORPUS_DIR (default: generated/ next to this script).
# Exits 2 when the binary or a patch is missing, or a review fails.
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "$0")" && pwd)
workspace=$(cd "$here/../.." && pwd)
revu=${REVU:-$workspace/target/debug/revu}
gen=${CORPUS_DIR:-$here/generated}
verbose=0
if [ "${1:-}" = -v ]; then
    verbose=1
    shift
fi
[ -x "$revu" ] || { echo "no revu binary at $revu (cargo build -p revu-cli)" >&2; exit 2; }
command -v jq >/dev/null || { echo "jq is needed" >&2; exit 2; }

cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
    while IFS= read -r p; do
        cases+=("$(basename "$p" --default.patch)")
    done < <(find "$gen/cases" -maxdepth 1 -name '*--default.patch' ! -name 'mega--*' | sort)
fi
[ ${#cases[@]} -gt 0 ] || { echo "no patches under $gen/cases (run build-corpus.sh)" >&2; exit 2; }

# Review from an empty directory with an empty --repo, so that no
# REVIEW.md or revu.toml (this workspace's, say) tunes the result.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/repo"

printf '%-14s %6s %8s %10s  %s\n' release files BLOCKER IMPORTANT 'BLOCKER rules'
for case in "${cases[@]}"; do
    patch="$gen/cases/$case--default.patch"
    [ -f "$patch" ] || { echo "no patch $patch (run build-corpus.sh $case)" >&2; exit 2; }
    report="$scratch/$case.json"
    rc=0
    (cd "$scratch" && "$revu" review --format json --fail-on never --repo "$scratch/repo" \
        --diff "$patch") >"$report" || rc=$?
    [ "$rc" -eq 0 ] || { echo "revu review failed on $case (exit $rc)" >&2; exit 2; }
    jq -r --arg case "$case" '
        [.findings[] | select(.severity == "BLOCKER") | .rule] as $b
        | [.findings[] | select(.severity == "IMPORTANT")] as $i
        | ($b | group_by(.) | map("\(.[0])×\(length)") | join(" ")) as $codes
        | "\($case)\t\(.facts.files_changed)\t\($b | length)\t\($i | length)\t\(if $codes == "" then "-" else $codes end)"
    ' "$report" | awk -F'\t' '{ printf "%-14s %6s %8s %10s  %s\n", $1, $2, $3, $4, $5 }'
done

if [ "$verbose" -eq 1 ]; then
    for case in "${cases[@]}"; do
        jq -r --arg case "$case" '
            .findings[] | select(.severity == "BLOCKER")
            | "\($case)  \(.file):\(.line)  \(.rule)  \(.summary)"
        ' "$scratch/$case.json"
    done
fi
