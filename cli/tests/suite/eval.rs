//! `revu eval`: `history` on a scratch repository whose commits hold a
//! clean change, a hard-coded AWS key, a docs-only change, an empty
//! commit, a `REVIEW.md` that changes a rule's severity from its commit on,
//! and a merged pull request; `corpus` on a small corpus with a diff case,
//! a repository case, marked sources and traps. Needs git on PATH.

use crate::scratch;

use scratch::{Scratch, revu_command};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `revu eval ARGS` in `dir` with the scratch's hostile git config,
/// `stdin` on its standard input.
fn eval_in(dir: &Path, config: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = revu_command(dir, Some(config))
        .arg("eval")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(mut input) = child.stdin.take() {
        input
            .write_all(stdin.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    child.wait_with_output().unwrap_or_else(|e| panic!("{e}"))
}

fn eval(s: &Scratch, args: &[&str]) -> Output {
    eval_in(&s.dir, &s.hostile, args, "")
}

fn json(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

/// Runs `revu eval ARGS` and checks its Markdown holds every line of `wants`.
fn markdown_holds(s: &Scratch, args: &[&str], wants: &[&str]) {
    let out = eval(s, args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = String::from_utf8_lossy(&out.stdout);
    for want in wants {
        assert!(md.contains(want), "{want:?} not in:\n{md}");
    }
}

/// The items of the array `v[key]`.
fn each<'a>(v: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    v[key].as_array().into_iter().flatten()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The id of `rev` in the scratch repository.
fn sha(s: &Scratch, rev: &str) -> String {
    let out = Command::new("git")
        .current_dir(&s.dir)
        .args(["rev-parse", rev])
        .output()
        .unwrap_or_else(|e| panic!("running git: {e} (the eval tests need git on PATH)"));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

const TESTS: &str = "from app.util import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n";

/// A history: `first`, then on the main line `util: sub` (clean), `billing:
/// client settings` (an AWS key), `docs: guide`, `empty: nothing`, `report:
/// show` (a print, a SUGGESTION), `conventions: no stray prints` (REVIEW.md
/// makes a print a BLOCKER), `report: total` (a print, now a BLOCKER) and
/// the merge of a branch adding `pickle.loads` and its test.
fn history(name: &str) -> Scratch {
    let s = Scratch::new(name);
    let mut tests = TESTS.to_owned();
    let mut add_test = |s: &Scratch, name: &str, body: &str| {
        tests.push_str(&format!("\n\ndef test_{name}():\n{body}"));
        s.write("tests/test_util.py", &tests);
    };
    s.write("app/__init__.py", "");
    s.write("app/util.py", "def add(a, b):\n    return a + b\n");
    s.write("tests/test_util.py", TESTS);
    s.write("README.md", "# demo\n");
    s.commit("first");
    s.write(
        "app/util.py",
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    );
    add_test(
        &s,
        "sub",
        "    from app.util import sub\n    assert sub(3, 2) == 1\n",
    );
    s.commit("util: sub");
    // The key is put together here so that this file holds none.
    let key = concat!("AKIAZ7QF3H", "XMPL2RT4VB");
    s.write(
        "app/billing.py",
        &format!("AWS_ACCESS_KEY_ID = \"{key}\"\n\n\ndef region():\n    return \"eu-west-1\"\n"),
    );
    add_test(
        &s,
        "region",
        "    from app.billing import region\n    assert region() == \"eu-west-1\"\n",
    );
    s.commit("billing: client settings");
    s.write("docs/guide.md", "# Guide\n\nHow to use the app.\n");
    s.commit("docs: guide");
    s.git(&["commit", "-q", "--allow-empty", "-m", "empty: nothing"]);
    let report = "def show(rows):\n    print(\"debug\", rows)\n    return len(rows)\n";
    s.write("app/report.py", report);
    add_test(
        &s,
        "show",
        "    from app.report import show\n    assert show([1]) == 1\n",
    );
    s.commit("report: show");
    s.write(
        "REVIEW.md",
        "# Review\n\n## Severity Overrides\n\n- `RV-OPS-001`: BLOCKER — no stray prints\n",
    );
    s.commit("conventions: no stray prints");
    s.write(
        "app/report.py",
        &format!(
            "{report}\n\ndef total(rows):\n    print(\"total\", rows)\n    return sum(rows)\n"
        ),
    );
    add_test(
        &s,
        "total",
        "    from app.report import total\n    assert total([1, 2]) == 3\n",
    );
    s.commit("report: total");
    s.git(&["checkout", "-q", "-b", "feature"]);
    s.write(
        "app/cache.py",
        "import pickle\n\n\ndef load(blob):\n    return pickle.loads(blob)\n",
    );
    s.commit("cache: load");
    add_test(
        &s,
        "load",
        "    import pickle\n    from app.cache import load\n    assert load(pickle.dumps(1)) == 1\n",
    );
    s.commit("cache: test");
    s.git(&["checkout", "-q", "-"]);
    s.git(&[
        "merge",
        "-q",
        "--no-ff",
        "feature",
        "-m",
        "Merge branch feature",
    ]);
    s
}

fn commit_of<'a>(run: &'a Value, subject: &str) -> &'a Value {
    each(run, "commits")
        .find(|c| c["subject"] == subject)
        .unwrap_or_else(|| panic!("no commit {subject:?}: {:#}", run["commits"]))
}

#[test]
fn history_reports_what_the_gate_would_have_done_commit_by_commit() {
    let s = history("eval-history");
    // The work tree's REVIEW.md plays no part: each commit's own does.
    s.write("REVIEW.md", "# Review\n");
    let out = eval(
        &s,
        &[
            "history",
            "--last",
            "8",
            "--format",
            "json",
            "--linters",
            "off",
        ],
    );
    let run = json(&out);
    let subjects: Vec<&str> = each(&run, "commits")
        .filter_map(|c| c["subject"].as_str())
        .collect();
    assert_eq!(
        subjects,
        [
            "util: sub",
            "billing: client settings",
            "docs: guide",
            "empty: nothing",
            "report: show",
            "conventions: no stray prints",
            "report: total",
            "Merge branch feature",
        ],
        "oldest first, first parent only"
    );
    assert_eq!(run["eval_version"], "1");
    assert_eq!(run["asked"]["selection"]["last"], 8);
    assert_eq!(run["asked"]["first_parent"], true);
    let sum = &run["summary"];
    assert_eq!(sum["reviewed"], 7, "{sum:#}");
    assert_eq!(sum["skipped"], 1);
    assert_eq!(sum["failed"], 0);
    assert_eq!(sum["changed_lines"], 56, "{:#}", run["commits"]);
    assert_eq!(sum["findings"], 4, "{:#}", run["by_rule"]);
    assert_eq!(sum["findings_per_1000_lines"], 71.4286);
    assert_eq!(sum["blockers"], 3);
    let blocker_commits = [sha(&s, "HEAD~6"), sha(&s, "HEAD~1"), sha(&s, "HEAD")];
    assert_eq!(sum["blocker_commits"], serde_json::json!(blocker_commits));
    assert_eq!(sum["gated"]["commits"], 3);
    assert_eq!(sum["gated"]["findings"], 3);
    assert_eq!(sum["gated"]["findings_only"], 3);
    assert_eq!(sum["gated"]["trigger"], 0);
    assert_eq!(sum["findings_only_share"], 0.4286);
    assert!(sum["wall_ms"]["max"].as_u64() >= sum["wall_ms"]["median"].as_u64());

    assert_eq!(run["by_rule"]["RV-SEC-001"]["BLOCKER"], 1);
    assert_eq!(run["by_rule"]["RV-SEC-003"]["BLOCKER"], 1);
    assert_eq!(run["by_rule"]["RV-OPS-001"]["BLOCKER"], 1);
    assert_eq!(run["by_rule"]["RV-OPS-001"]["SUGGESTION"], 1);

    let empty = commit_of(&run, "empty: nothing");
    assert_eq!(empty["status"], "skipped");
    assert_eq!(empty["reason"], "an empty change against its first parent");
    assert_eq!(
        stderr(&out),
        format!(
            "revu: skipped {} (empty: nothing): an empty change against its first parent\n",
            empty["short"].as_str().unwrap_or_default()
        ),
        "off a terminal, only the skipped commit is told"
    );
    let docs = commit_of(&run, "docs: guide");
    assert_eq!(
        (docs["gate"].as_str(), docs["findings"].as_u64()),
        (Some("MERGE-READY"), Some(0))
    );
    let clean = commit_of(&run, "util: sub");
    assert_eq!(clean["gated_by"], serde_json::json!([]));
    assert_eq!(clean["changed_lines"], 9);

    let key = &run["blockers"][0];
    assert_eq!(key["subject"], "billing: client settings");
    assert_eq!(key["citation"], "app/billing.py:1");
    assert_eq!(key["rule"], "RV-SEC-001");
    assert!(
        key["summary"]
            .as_str()
            .is_some_and(|t| t.contains("AWS access key")),
        "{key:#}"
    );
    assert!(
        key["why"].as_str().is_some_and(|t| !t.is_empty()),
        "{key:#}"
    );
    let billing = commit_of(&run, "billing: client settings");
    assert_eq!(billing["gated_by"], serde_json::json!(["findings"]));

    // REVIEW.md as of each commit: the print before it is a SUGGESTION that
    // does not gate, the one after it a BLOCKER.
    let before = commit_of(&run, "report: show");
    assert_eq!(
        (before["findings"].as_u64(), before["blockers"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(before["gate"], "MERGE-READY");
    assert_eq!(run["blockers"][1]["citation"], "app/report.py:7");
    assert_eq!(run["blockers"][1]["rule"], "RV-OPS-001");

    // The merge is reviewed against its first parent: the whole branch.
    let merge = commit_of(&run, "Merge branch feature");
    assert_eq!(merge["changed_lines"], 11);
    assert_eq!(run["blockers"][2]["citation"], "app/cache.py:5");
    assert_eq!(run["blockers"][2]["subject"], "Merge branch feature");
}

#[test]
fn history_in_markdown_lists_the_gated_commits_and_every_blocker() {
    let s = history("eval-md");
    markdown_holds(
        &s,
        &["history", "--last", "8", "--linters", "off"],
        &[
            "# revu eval history: `repo`",
            "The last 8 commits of HEAD, first parent.",
            "| commits reviewed | 7 |",
            "| findings per 1,000 changed lines | 71.4 |",
            "| BLOCKERs | 3 in 3 commits |",
            "| … by findings | 3 |",
            "| `RV-SEC-001` | 1 | 0 | 0 | 1 |",
            "## Commits the gate would have stopped",
            "| billing: client settings | findings | 1 | 1 |",
            "**`app/billing.py:1`** · `RV-SEC-001` — Hard-coded AWS access key id",
            "## Not reviewed",
            "empty: nothing — skipped: an empty change against its first parent",
        ],
    );
}

#[test]
fn history_takes_a_list_of_commits_or_a_range() {
    let s = history("eval-select");
    let list = format!(
        "# the two risky ones\n{}\n\n  HEAD~6  \n{}\n",
        sha(&s, "HEAD"),
        sha(&s, "HEAD")
    );
    s.write("../commits.txt", &list);
    let listed = json(&eval(
        &s,
        &[
            "history",
            "--commits",
            "../commits.txt",
            "--format",
            "json",
            "--linters",
            "off",
        ],
    ));
    let subjects: Vec<&Value> = each(&listed, "commits").map(|c| &c["subject"]).collect();
    assert_eq!(
        subjects,
        ["Merge branch feature", "billing: client settings"],
        "the file's order, each once"
    );
    assert_eq!(listed["summary"]["blockers"], 2);

    let stdin = eval_in(
        &s.dir,
        &s.hostile,
        &[
            "history",
            "--commits",
            "-",
            "--format",
            "json",
            "--linters",
            "off",
        ],
        "HEAD~2\n",
    );
    assert_eq!(
        json(&stdin)["commits"][0]["subject"],
        "conventions: no stray prints"
    );

    let range = json(&eval(
        &s,
        &[
            "history",
            "--range",
            "HEAD~3..HEAD",
            "--format",
            "json",
            "--linters",
            "off",
        ],
    ));
    assert_eq!(range["asked"]["selection"]["range"], "HEAD~3..HEAD");
    assert_eq!(range["asked"]["commits"], 3);
    // Every commit: the branch's two and the merge.
    let every = json(&eval(
        &s,
        &[
            "history",
            "--range",
            "HEAD~1..HEAD",
            "--no-first-parent",
            "--format",
            "json",
            "--linters",
            "off",
        ],
    ));
    assert_eq!(every["asked"]["commits"], 3, "{:#}", every["commits"]);
    assert_eq!(every["asked"]["first_parent"], false);
}

#[test]
fn keep_reports_writes_each_reviewed_commits_report() {
    let s = history("eval-keep");
    let dir = s.dir.parent().unwrap_or(&s.dir).join("reports");
    let dir_arg = dir.to_string_lossy().into_owned();
    let run = json(&eval(
        &s,
        &[
            "history",
            "--last",
            "3",
            "--format",
            "json",
            "--linters",
            "off",
            "--keep-reports",
            &dir_arg,
        ],
    ));
    for c in each(&run, "commits") {
        let path = dir.join(format!("{}.json", c["sha"].as_str().unwrap_or_default()));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let report: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report["gate"], c["gate"], "{}", path.display());
        assert_eq!(report["schema_version"], "1");
    }
    let kept = std::fs::read_dir(&dir).map(Iterator::count).unwrap_or(0);
    assert_eq!(kept, 3);
}

#[test]
fn bad_input_exits_2_saying_what_is_wrong() {
    let s = history("eval-bad");
    let not_repo = s.dir.parent().unwrap_or(&s.dir).join("plain");
    std::fs::create_dir_all(&not_repo).unwrap_or_else(|e| panic!("{e}"));
    let cases: [(&[&str], &str); 7] = [
        (&["history", "../plain"], "not a git work tree"),
        (&["history", "../missing"], "not a directory"),
        (
            &["history", "--commits", "../nope.txt"],
            "--commits: reading ../nope.txt",
        ),
        (&["history", "--range", "nope..HEAD"], "--range nope..HEAD"),
        (&["history", "--last", "0"], "--last"),
        (
            &["history", "--diff", "x.patch"],
            "unexpected argument '--diff'",
        ),
        (
            &["history", "--engine", "nope"],
            "--engine nope: not an engine",
        ),
    ];
    for (args, want) in cases {
        let out = eval(&s, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(want),
            "{args:?}: {want:?} not in {}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    s.write("../bad.txt", "HEAD\nno-such-branch\n");
    let out = eval(&s, &["history", "--commits", "../bad.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("../bad.txt:2: bad revision `no-such-branch`"),
        "{}",
        stderr(&out)
    );
}

const PATCH: &str = "diff --git a/app/db.py b/app/db.py
new file mode 100644
--- /dev/null
+++ b/app/db.py
@@ -0,0 +1,7 @@
+import sqlite3
+
+
+def find(conn, name):
+    rows = conn.execute(f\"SELECT id FROM users WHERE name = '{name}'\")
+    print(\"rows\", rows)
+    return rows.fetchall()
";

const SQL_CASE: &str = r#"description = "SQL built from an f-string"
diff = "change.patch"

[[expect]]
file = "app/db.py"
line = 5
rule = "RV-SEC-002"
class = "SQL"

# The print is on line 6: found, cited off.
[[expect]]
file = "app/db.py"
lines = [7, 7]
rule = "RV-OPS-001"

[[trap]]
file = "app/db.py"
line = 7
"#;

const CACHE: &str = "import json
import pickle


def load(blob):
    # revu-eval: defect B301
    return pickle.loads(blob)


def load_json(text):
    # revu-eval: trap B301
    return json.loads(text)


def show(x):
    # revu-eval: trap debug-print
    print(\"x\", x)
    return x
";

const DEPLOY: &str = "#!/bin/sh
# revu-eval: defect curl-pipe-sh
curl -fsSL https://example.com/install.sh | sh
# revu-eval: defect SC2086
echo $1
";

/// A corpus beside the scratch repository: a diff case, a case on the
/// repository's `billing` commit, two marked sources and a README that
/// mentions the marker.
fn corpus(s: &Scratch) -> std::path::PathBuf {
    let root = s.dir.parent().unwrap_or(&s.dir).join("corpus");
    let write = |path: &str, text: &str| {
        let at = root.join(path);
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(at, text).unwrap_or_else(|e| panic!("{e}"));
    };
    write("sql/change.patch", PATCH);
    write("sql/case.toml", SQL_CASE);
    write(
        "repo.case.toml",
        &format!(
            "repo = \"../repo\"\ncommit = \"{}\"\n\n[[expect]]\nfile = \"app/billing.py\"\nline = 1\nseverity = \"BLOCKER\"\nrule = \"RV-SEC-001\"\n",
            sha(s, "HEAD~1~5")
        ),
    );
    write("marked/app/cache.py", CACHE);
    write("marked/deploy.sh", DEPLOY);
    write("README.md", "Marks read `revu-eval: defect ID`.\n");
    root
}

#[test]
fn corpus_scores_recall_precision_traps_and_citations_off() {
    let s = history("eval-corpus");
    let root = corpus(&s);
    let dir = root.to_string_lossy().into_owned();
    let scored = json(&eval(
        &s,
        &["corpus", &dir, "--format", "json", "--linters", "off"],
    ));
    let all = &scored["overall"];
    assert_eq!(scored["mode"], "corpus");
    assert_eq!(
        (all["expectations"].as_u64(), all["matched"].as_u64()),
        (Some(6), Some(4)),
        "{scored:#}"
    );
    assert_eq!(all["recall"], 0.6667);
    assert_eq!(
        (all["findings"].as_u64(), all["findings_matching"].as_u64()),
        (Some(8), Some(4)),
        "{scored:#}"
    );
    assert_eq!(all["precision"], 0.5);
    assert_eq!(
        (all["traps"].as_u64(), all["traps_hit"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(all["citations_off"], 1);

    let names: Vec<&Value> = each(&scored, "cases").map(|c| &c["name"]).collect();
    assert_eq!(names, ["repo.case.toml", "sql/case.toml", "marked sources"]);
    assert_eq!(scored["cases"][0]["recall"], 1.0);
    assert_eq!(
        scored["cases"][1]["description"],
        "SQL built from an f-string"
    );
    assert_eq!(scored["cases"][1]["citations_off"], 1);

    let python = &scored["by_language"]["python"];
    assert_eq!(
        (python["expectations"].as_u64(), python["matched"].as_u64()),
        (Some(4), Some(3))
    );
    let shell = &scored["by_language"]["shell"];
    assert_eq!(
        (shell["expectations"].as_u64(), shell["matched"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(shell["recall"], 0.5);

    let off = &scored["citations_off"][0];
    assert_eq!(
        (off["citation"].as_str(), off["rule"].as_str()),
        (Some("app/db.py:6"), Some("RV-OPS-001"))
    );
    assert_eq!(off["expected"], serde_json::json!(["app/db.py:7"]));
    let hit: Vec<&Value> = each(&scored, "traps")
        .filter(|t| t["hit_by"] != serde_json::json!([]))
        .collect();
    assert_eq!(hit.len(), 1);
    assert_eq!(
        (hit[0]["file"].as_str(), hit[0]["first"].as_u64()),
        (Some("marked/app/cache.py"), Some(17))
    );
    assert_eq!(hit[0]["id"], "debug-print");
    let missed: Vec<String> = each(&scored, "expectations")
        .filter(|e| e["matched"] == false)
        .map(|e| format!("{}:{}", e["file"].as_str().unwrap_or_default(), e["first"]))
        .collect();
    assert_eq!(missed, ["app/db.py:7", "marked/deploy.sh:5"]);

    markdown_holds(
        &s,
        &["corpus", &dir, "--linters", "off"],
        &[
            "| all | 6 | 4 | 0.67 | 8 | 4 | 0.50 | 0.57 | 0 | 1/3 | 1 |",
            "| shell | 2 | 1 | 0.50 |",
            "- `marked/deploy.sh:5` (marked sources) SC2086",
            "- `marked/app/cache.py:17` (marked sources) debug-print — hit by `RV-OPS-001`",
            "- `app/db.py:6` (sql/case.toml) `RV-OPS-001`",
        ],
    );

    let gate = |args: &[&str]| {
        let mut all = vec![
            "corpus",
            dir.as_str(),
            "--linters",
            "off",
            "--format",
            "json",
        ];
        all.extend_from_slice(args);
        eval(&s, &all).status.code()
    };
    assert_eq!(gate(&["--min-recall", "0.6"]), Some(0));
    assert_eq!(gate(&["--min-recall", "0.7"]), Some(1));
    assert_eq!(gate(&["--max-trap-hits", "1"]), Some(0));
    assert_eq!(gate(&["--max-trap-hits", "0"]), Some(1));
    assert_eq!(gate(&["--min-recall", "1.5"]), Some(2));
}

#[test]
fn a_case_file_with_an_unknown_field_or_no_change_exits_2_naming_it() {
    let s = history("eval-case-errors");
    let root = corpus(&s);
    // The corpus with `text` as its SQL case refuses to run, saying `want`.
    let refused = |text: &str, want: &str| {
        let case = root.join("sql/case.toml");
        std::fs::write(&case, text).unwrap_or_else(|e| panic!("{e}"));
        let out = eval(&s, &["corpus", &root.to_string_lossy()]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(want),
            "{want:?} not in {}",
            stderr(&out)
        );
    };
    refused(
        &SQL_CASE.replace("class = ", "clas = "),
        "sql/case.toml:8: unknown field `clas`",
    );
    refused(
        "[[expect]]\nfile = \"a.py\"\nline = 1\n",
        "sql/case.toml: give the change to review",
    );
    refused(
        "diff = \"change.patch\"\nrepo = \".\"\ncommit = \"HEAD\"\n",
        "sql/case.toml: give either diff or repo and commit, not both",
    );
    refused(
        "diff = \"change.patch\"\n[[trap]]\nfile = \"a.py\"\nline = 1\nlines = [1, 2]\n",
        "sql/case.toml: trap #1: give line = N or lines = [FIRST, LAST]",
    );

    let empty = s.dir.parent().unwrap_or(&s.dir).join("empty");
    std::fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    let out = eval(&s, &["corpus", &empty.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no case file"), "{}", stderr(&out));
}
