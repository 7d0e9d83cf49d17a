#!/usr/bin/env python3
"""Compares `revu facts` with git's own oracle on every corpus patch.

For each cases/<case>--<variant>.patch written by build-corpus.sh this runs
`revu facts --diff <patch>` and checks, file by file and in git's order,
the status letter, path, old path (renames and copies), the binary flag and
the added/removed counts against `git diff --name-status -z` and
`git diff --numstat -z` of the same commits. It also checks that each
file's hunks list exactly as many added-line numbers as it has added lines,
each inside its hunk's new-side range.

Usage: check-corpus.py [--revu BIN] [--dir GENERATED] [CASE-GLOB...]
Prints one line per patch and a summary; writes results/summary.json and
results/mismatches.txt. Exits 1 when anything disagrees.
"""

import argparse
import fnmatch
import json
import os
import subprocess
import sys
import tempfile
import time

STATUS_LETTER = {
    "added": "A",
    "modified": "M",
    "deleted": "D",
    "renamed": "R",
    "copied": "C",
    "type_changed": "T",
}


def text(raw):
    """Paths as revu prints them: UTF-8, invalid bytes replaced."""
    return raw.decode("utf-8", "replace")


def tokens(path):
    with open(path, "rb") as f:
        parts = f.read().split(b"\0")
    if parts and parts[-1] == b"":
        parts.pop()
    return parts


def oracle(stem):
    """One dict per file, from git's -z name-status and numstat output.

    Where build-corpus.sh wrote `git apply --numstat -z` of the patch
    (the --text variant, see there), the counts come from that instead.
    """
    status = iter(tokens(stem + ".name-status"))
    counts = stem + ".apply-numstat"
    if not os.path.exists(counts):
        counts = stem + ".numstat"
    numstat = iter(tokens(counts))
    out = []
    for code in status:
        letter = code[:1].decode()
        if letter in "RC":
            old, new = next(status), next(status)
        elif letter == "A":
            old, new = None, next(status)
        elif letter == "D":
            old, new = next(status), None
        else:
            old = new = next(status)
        added, removed, path = next(numstat).split(b"\t", 2)
        if path == b"":
            # git diff -z writes both names of a rename; git apply one.
            next(numstat)
            if not counts.endswith(".apply-numstat"):
                next(numstat)
        binary = added == b"-"
        out.append(
            {
                "status": letter,
                "path": text(new if new is not None else old),
                "old_path": text(old) if letter in "RC" else None,
                "binary": binary,
                "added": 0 if binary else int(added),
                "removed": 0 if binary else int(removed),
            }
        )
    left = next(numstat, None)
    if left is not None:
        raise ValueError(f"{stem}: numstat has more entries than name-status: {left[:80]!r}")
    return out


def actual(f):
    return {
        "status": STATUS_LETTER.get(f["status"], "?"),
        "path": f["path"],
        "old_path": f.get("old_path"),
        "binary": f["binary"],
        "added": f["added"],
        "removed": f["removed"],
    }


def hunk_problem(f):
    """Why the file's hunks disagree with its counts, or None."""
    listed = 0
    for h in f["hunks"]:
        lo, hi = h["new_start"], h["new_start"] + h["new_lines"]
        if any(not lo <= n < hi for n in h["added_lines"]):
            return "added line outside its hunk"
        listed += len(h["added_lines"])
    if listed != f["added"]:
        return f"{listed} added-line numbers for {f['added']} added lines"
    return None


def run_revu(revu, patch):
    with tempfile.TemporaryFile() as out:
        started = time.monotonic()
        proc = subprocess.run(
            [revu, "facts", "--diff", patch], stdout=out, stderr=subprocess.PIPE
        )
        took = time.monotonic() - started
        if proc.returncode != 0:
            return None, proc.stderr.decode("utf-8", "replace").strip(), took
        out.seek(0)
        return json.load(out), None, took


def check(revu, stem, report):
    """Returns (files compared, matches, mismatches) for one patch."""
    want = oracle(stem)
    facts, error, took = run_revu(revu, stem + ".patch")
    name = os.path.basename(stem)
    if facts is None:
        report.append(f"{name}: revu failed: {error}")
        return len(want), 0, max(len(want), 1), took
    got = facts["files"]
    matches = mismatches = 0
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else None
        g = got[i] if i < len(got) else None
        problem = None
        if w is None or g is None:
            problem = f"only in {'revu' if w is None else 'git'}: {w or actual(g)}"
        elif actual(g) != w:
            problem = f"git {w}\n    revu {actual(g)}"
        elif not g["binary"]:
            problem = hunk_problem(g)
        if problem is None:
            matches += 1
        else:
            mismatches += 1
            if mismatches <= 20:
                report.append(f"{name} file {i}: {problem}")
    return max(len(want), len(got)), matches, mismatches, took


def main():
    root = os.path.dirname(os.path.abspath(__file__))
    workspace = os.path.dirname(os.path.dirname(root))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--revu", default=os.path.join(workspace, "target/release/revu"))
    ap.add_argument("--dir", default=os.path.join(root, "generated"))
    ap.add_argument("cases", nargs="*", help="globs over <case>--<variant>")
    args = ap.parse_args()
    case_dir = os.path.join(args.dir, "cases")
    stems = sorted(
        os.path.join(case_dir, f[: -len(".patch")])
        for f in os.listdir(case_dir)
        if f.endswith(".patch")
    )
    if args.cases:
        stems = [
            s
            for s in stems
            if any(fnmatch.fnmatch(os.path.basename(s), g) for g in args.cases)
        ]
    report = []
    totals = {"cases": 0, "files": 0, "matches": 0, "mismatches": 0, "patch_bytes": 0}
    for stem in stems:
        files, ok, bad, took = check(args.revu, stem, report)
        size = os.path.getsize(stem + ".patch")
        totals["cases"] += 1
        totals["files"] += files
        totals["matches"] += ok
        totals["mismatches"] += bad
        totals["patch_bytes"] += size
        print(
            f"{os.path.basename(stem):40} {files:7} files {bad:5} mismatches "
            f"{size / 1e6:9.2f} MB {took:7.2f} s"
        )
    results = os.path.join(args.dir, "results")
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, "summary.json"), "w") as f:
        json.dump(totals, f, indent=2)
    with open(os.path.join(results, "mismatches.txt"), "w") as f:
        f.write("\n".join(report) + ("\n" if report else ""))
    print(
        f"corpus: {totals['cases']} cases, {totals['files']} files compared, "
        f"{totals['matches']} match, {totals['mismatches']} mismatch, "
        f"{totals['patch_bytes'] / 1e6:.1f} MB of patch text"
    )
    for line in report[:40]:
        print(line, file=sys.stderr)
    return 1 if totals["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
