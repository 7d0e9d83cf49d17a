#!/usr/bin/env python3
"""A misbehaving review engine for the fault suite (revu's exec protocol).

Reads the lane as JSON on stdin and, by MODE:
  clean [SECONDS]    sleeps SECONDS (default 0), then writes a clean report
  jitter MAX_SECONDS sleeps a random time up to MAX_SECONDS, then reports
  fail               always fails with a transient error (exit 1)
  refuse             fails permanently (exit 65)
  malformed          writes a report missing mandatory sections
  garbage            writes text that is not JSON
  huge BYTES         writes a clean report with a summary of BYTES bytes
  env                writes a clean report whose checks are the names of
                     the variables in its environment
  leak               reports a finding that quotes a credential
  fail-leak          fails permanently, its stderr quoting a credential
  adjudicate-drop-first
                     as an adjudication lane: drops the first candidate
                     with a reason and confirms the rest
  group-merge        as a grouping lane: every file in one slice, `all`
  group-invent       as a grouping lane: the proposal plus a file that is
                     not in the change
  synthesize-finding as a synthesis lane: a walkthrough, and a finding,
                     which a synthesis lane may not raise
"""
import json
import os
import random
import sys
import time


def clean_report(lane):
    files = lane.get("files", [])
    return {
        "reviewed": files,
        "checks": ["fault-engine"],
        "findings": [],
        "summary": f"fault engine looked at {len(files)} file(s)",
    }


def main(argv):
    mode = argv[1] if len(argv) > 1 else "clean"
    lane = json.load(sys.stdin)
    if mode == "clean":
        time.sleep(float(argv[2]) if len(argv) > 2 else 0.0)
        json.dump(clean_report(lane), sys.stdout)
        return 0
    if mode == "jitter":
        time.sleep(random.uniform(0.0, float(argv[2]) if len(argv) > 2 else 0.2))
        json.dump(clean_report(lane), sys.stdout)
        return 0
    if mode == "fail":
        # Worded to mislead anything that classifies failures by their text:
        # the failure is an engine error (exit 1), whatever it says.
        print("simulated outage: upstream timed out, request cancelled", file=sys.stderr)
        return 1
    if mode == "refuse":
        print("simulated refusal: lane not reviewable", file=sys.stderr)
        return 65
    if mode == "malformed":
        json.dump({"reviewed": lane.get("files", []), "findings": "none"}, sys.stdout)
        return 0
    if mode == "adjudicate-drop-first":
        report = clean_report(lane)
        # A drop cites the line it is about, which the review holds.
        report["decisions"] = [
            {
                "index": 0,
                "action": "drop",
                "reason": "simulated adjudicator: not reachable",
                "evidence": "%s:%d" % (c["file"], c["line"]),
            }
            if i == 0
            else {"index": i, "action": "confirm", "reason": ""}
            for i, c in enumerate(lane.get("candidates", []))
        ]
        json.dump(report, sys.stdout)
        return 0
    if mode in ("group-merge", "group-invent"):
        report = clean_report(lane)
        if mode == "group-merge":
            report["slices"] = [{"name": "all", "files": lane.get("files", [])}]
        else:
            report["slices"] = lane.get("proposal", []) + [
                {"name": "ghost", "files": ["src/ghost.rs"]}
            ]
        json.dump(report, sys.stdout)
        return 0
    if mode == "synthesize-finding":
        report = clean_report(lane)
        report["walkthrough"] = "The change does several things."
        report["file_notes"] = []
        report["findings"] = [
            {
                "rule": "engine:narrator",
                "severity": "BLOCKER",
                "file": lane.get("files", ["x"])[0],
                "line": 1,
                "dimension": "correctness",
                "summary": "a synthesis lane has no say",
                "why": "w",
                "fix": "f",
                "confidence": 99,
                "blast_radius": "local",
            }
        ]
        json.dump(report, sys.stdout)
        return 0
    if mode == "huge":
        report = clean_report(lane)
        report["summary"] = "x" * int(argv[2] if len(argv) > 2 else 1000000)
        json.dump(report, sys.stdout)
        return 0
    if mode == "env":
        report = clean_report(lane)
        report["checks"] = sorted(os.environ)
        json.dump(report, sys.stdout)
        return 0
    if mode == "leak":
        report = clean_report(lane)
        report["findings"] = [
            {
                "rule": "engine:leaky",
                "severity": "IMPORTANT",
                "file": lane.get("files", ["x"])[0],
                "line": 1,
                "dimension": "security",
                "summary": "the key AKIAIOSFODNN7EXAMPLE is live",
                "why": "config has password=hunter2hunter2 in it",
                "fix": "rotate ghp_abcdefghijklmnopqrstuvwxyz0123456789",
                "confidence": 90,
                "blast_radius": "local",
            }
        ]
        json.dump(report, sys.stdout)
        return 0
    if mode == "fail-leak":
        print("login failed for redis://ci:hunter2hunter2@redis:6379 (token=abcd1234efgh5678)", file=sys.stderr)
        return 65
    if mode == "garbage":
        sys.stdout.write("this is not a report")
        return 0
    print(f"unknown mode {mode!r}", file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
