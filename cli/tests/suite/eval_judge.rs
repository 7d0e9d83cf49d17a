//! `revu eval corpus` on free-text expectations: the golden corpus of
//! `tests/golden` scored for the rules engine and for a scripted llm
//! engine, a scripted judge pairing a finding with a description that has
//! no line, the line window, and a benchmark's golden comments read with
//! one pull request checked out and one missing. Needs git on PATH.

use crate::model_server::{KEY, Server, answer, serve_with};
use crate::scratch::{Scratch, revu_command};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

fn golden() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/golden")
}

/// `revu eval corpus ARGS` in `dir`, no llm settings from the environment.
fn corpus_in(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = revu_command(dir, None);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("REVU_LLM_") {
            cmd.env_remove(name);
        }
    }
    cmd.env("REVU_LLM_API_KEY", KEY)
        .args(["eval", "corpus"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json_of(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stderr(out)))
}

/// Every known bug of the golden corpus: (file, first line, severity).
fn golden_bugs() -> Vec<(String, u64, String)> {
    let mut bugs = Vec::new();
    let dirs = std::fs::read_dir(golden()).unwrap_or_else(|e| panic!("tests/golden: {e}"));
    for dir in dirs.flatten() {
        let case = dir.path().join("case.toml");
        let Ok(text) = std::fs::read_to_string(&case) else {
            continue;
        };
        let parsed: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        for e in parsed["expect"].as_array().into_iter().flatten() {
            let first = e
                .get("line")
                .or_else(|| e.get("lines").and_then(|l| l.get(0)))
                .and_then(toml::Value::as_integer)
                .unwrap_or_else(|| panic!("{}: an expectation without a line", case.display()));
            bugs.push((
                e["file"].as_str().unwrap_or_default().to_owned(),
                u64::try_from(first).unwrap_or(0),
                e.get("severity")
                    .and_then(toml::Value::as_str)
                    .unwrap_or("IMPORTANT")
                    .to_owned(),
            ));
        }
    }
    bugs
}

/// A lane report with a finding on each known bug in a file the request
/// names.
fn lane_answer(request: &str, bugs: &[(String, u64, String)]) -> String {
    let findings: Vec<Value> = bugs
        .iter()
        .filter(|(file, _, _)| request.contains(file.as_str()))
        .map(|(file, line, severity)| {
            json!({"severity": severity, "file": file, "line": line,
                   "summary": "a known bug", "why": "the golden corpus says so",
                   "fix": "fix it", "confidence": 95, "dimension": "correctness"})
        })
        .collect();
    let report = json!({"reviewed": [], "checks": ["scripted"], "findings": findings,
                        "summary": "scripted"});
    answer(&report.to_string())
}

#[test]
fn the_golden_corpus_scores_the_rules_engine_with_precision_recall_and_f1() {
    let root = golden();
    let out = corpus_in(&root, &[".", "--linters", "off"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = String::from_utf8_lossy(&out.stdout);
    for want in [
        "| precision | F1 |",
        "## By case",
        "## Cost",
        "python-order-search/case.toml",
    ] {
        assert!(md.contains(want), "{want:?} not in:\n{md}");
    }
    let scored = json_of(&corpus_in(
        &root,
        &[".", "--linters", "off", "--format", "json"],
    ));
    let all = &scored["overall"];
    let bugs = golden_bugs().len() as u64;
    assert!((20..=28).contains(&bugs), "{bugs} known bugs");
    assert_eq!(all["expectations"].as_u64(), Some(bugs), "{all:#}");
    assert_eq!(all["needs_judge"], 0);
    let (p, r, f1) = (
        all["precision"].as_f64().unwrap_or(-1.0),
        all["recall"].as_f64().unwrap_or(-1.0),
        all["f1"].as_f64().unwrap_or(-1.0),
    );
    assert!(r > 0.0 && r < 1.0 && p > 0.0, "{all:#}");
    let harmonic = 2.0 * p * r / (p + r);
    assert!((f1 - harmonic).abs() < 0.001, "{all:#}");
    assert_eq!(all["traps"], 4);
    assert_eq!(scored["cases"].as_array().map(Vec::len), Some(13));
    assert!(scored["by_language"]["sql"]["expectations"].as_u64() >= Some(2));
    assert!(scored["spent"]["usage"].is_null(), "the rules use no model");
}

#[test]
fn the_golden_corpus_scores_a_scripted_llm_engine_and_its_tokens() {
    let bugs = golden_bugs();
    let server = serve_with("", move |request| (200, lane_answer(request, &bugs)));
    let root = golden();
    let scored = json_of(&corpus_in(
        &root,
        &[
            ".",
            "--format",
            "json",
            "--engine",
            "llm",
            "--llm-provider",
            "openai",
            "--llm-base-url",
            &server.base,
            "--llm-model",
            "scripted-model",
        ],
    ));
    let all = &scored["overall"];
    assert_eq!(all["recall"], 1.0, "{:#}", scored["expectations"]);
    assert_eq!(all["precision"], 1.0, "{all:#}");
    assert_eq!(all["f1"], 1.0);
    assert_eq!(all["traps_hit"], 0);
    let requests = server.requests().len() as u64;
    let usage = &scored["spent"]["usage"];
    assert_eq!(usage["requests"].as_u64(), Some(requests), "{usage:#}");
    assert_eq!(usage["input_tokens"].as_u64(), Some(100 * requests));
    assert_eq!(usage["output_tokens"].as_u64(), Some(40 * requests));
    for case in scored["cases"].as_array().into_iter().flatten() {
        assert!(
            case["spent"]["usage"]["requests"].as_u64() >= Some(1),
            "{case:#}"
        );
        assert!(case["spent"]["wall_ms"].is_u64());
        assert!(case["spent"]["judge"].is_null());
    }
}

const SQL_PATCH: &str = "diff --git a/app/db.py b/app/db.py
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

const DESCRIBED: &str = r#"diff = "change.patch"

[[expect]]
description = "The user's name is pasted into the SQL text: injection."

[[expect]]
file = "app/other.py"
description = "The same injection, said to be in another file."
"#;

/// A corpus of one case, `case` on the SQL patch, beside `s`.
fn one_case(s: &Scratch, case: &str) -> PathBuf {
    let root = s.dir.parent().unwrap_or(&s.dir).join("corpus");
    std::fs::create_dir_all(&root).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("change.patch"), SQL_PATCH).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("case.toml"), case).unwrap_or_else(|e| panic!("{e}"));
    root
}

/// A judge that pairs golden 1 and golden 2 with the finding the request
/// numbers on `app/db.py:5`.
fn judge_server() -> Server {
    serve_with("", |request| {
        let body: Value = serde_json::from_str(request).unwrap_or_default();
        let user = body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["role"] == "user")
            .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
            .collect::<String>();
        let finding = user
            .lines()
            .find(|l| l.starts_with("[F") && l.contains("app/db.py:5 "))
            .and_then(|l| l[2..].split(']').next()?.parse::<u64>().ok())
            .unwrap_or(0);
        let matches = json!({"matches": [
            {"golden": 1, "finding": finding, "reasoning": "both say injection"},
            {"golden": 2, "finding": finding, "reasoning": "same words"},
            {"golden": 9, "finding": 1, "reasoning": "made up"}
        ]});
        (200, answer(&matches.to_string()))
    })
}

fn judged_args<'a>(root: &'a str, server: &'a Server) -> Vec<&'a str> {
    vec![
        root,
        "--linters",
        "off",
        "--format",
        "json",
        "--judge",
        "--llm-provider",
        "openai",
        "--llm-base-url",
        &server.base,
        "--llm-model",
        "judge-model",
    ]
}

#[test]
fn a_judge_matches_a_finding_to_a_description_without_a_line_and_its_tokens_are_apart() {
    let s = Scratch::new("eval-judge");
    let root = one_case(&s, DESCRIBED);
    let dir = root.to_string_lossy().into_owned();

    // Without a judge the descriptions are counted apart, and said so.
    let out = corpus_in(&s.dir, &[&dir, "--linters", "off", "--format", "json"]);
    let unjudged = json_of(&out);
    assert_eq!(unjudged["overall"]["needs_judge"], 2);
    assert_eq!(unjudged["overall"]["expectations"], 0);
    assert!(unjudged["overall"]["recall"].is_null());
    assert!(
        stderr(&out).contains("2 expectations not scored"),
        "{}",
        stderr(&out)
    );

    let server = judge_server();
    let prices = s.dir.parent().unwrap_or(&s.dir).join("prices.toml");
    std::fs::write(
        &prices,
        "[models.\"judge-model\"]\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let prices = prices.to_string_lossy().into_owned();
    let mut args = judged_args(&dir, &server);
    args.extend(["--llm-prices", prices.as_str()]);
    let scored = json_of(&corpus_in(&s.dir, &args));
    let all = &scored["overall"];
    assert_eq!(
        (
            all["expectations"].as_u64(),
            all["matched"].as_u64(),
            all["needs_judge"].as_u64()
        ),
        (Some(2), Some(1), Some(0)),
        "the second names another file: {scored:#}"
    );
    let first = &scored["expectations"][0];
    assert_eq!(first["matched"], true);
    assert_eq!(first["judge_reasoning"], "both say injection");
    assert_eq!(first["matched_by"][0]["citation"], "app/db.py:5");
    assert_eq!(scored["judge"]["model"], "judge-model");
    assert_eq!(scored["judge"]["prompt"], "judge-v1");
    let judge = &scored["cases"][0]["spent"]["judge"];
    assert_eq!(
        (
            judge["input_tokens"].as_u64(),
            judge["output_tokens"].as_u64(),
            judge["requests"].as_u64()
        ),
        (Some(100), Some(40), Some(1)),
        "{judge:#}"
    );
    assert!(
        scored["cases"][0]["spent"]["usage"].is_null(),
        "the review used no model"
    );
    assert_eq!(scored["spent"]["judge"]["input_tokens"], 100);
    // 100 tokens in at $1 and 40 out at $2 per million.
    assert_eq!(judge["cost_usd"], 0.00018, "{judge:#}");

    // The request: the method, then the descriptions and findings fenced as data.
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 1, "one request per case");
    let text = bodies[0].to_string();
    assert!(
        text.contains("<data>") && text.contains("[G2] (in app/other.py)"),
        "{text}"
    );
    assert!(text.contains("pasted into the SQL text"), "{text}");
    assert!(text.contains("json_schema"), "{text}");

    let server = judge_server();
    let mut md_args = judged_args(&dir, &server);
    md_args.retain(|a| *a != "--format" && *a != "json");
    let out = corpus_in(&s.dir, &md_args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        md.contains("Judged by engine `llm` (model `judge-model`, prompt judge-v1)"),
        "{md}"
    );
    assert!(
        md.contains("| case.toml | 0.0 |") || md.contains("| case.toml |"),
        "{md}"
    );
    assert!(md.contains("| 100 | 40 |"), "the judge's tokens: {md}");

    for (args, want) in [
        (
            vec![dir.as_str(), "--judge"],
            "--judge llm: no llm engine is set up",
        ),
        (
            vec![
                dir.as_str(),
                "--judge",
                "other",
                "--llm-provider",
                "openai",
                "--llm-model",
                "m",
            ],
            "--judge other: not an llm engine (the llm engines are llm)",
        ),
    ] {
        let out = corpus_in(&s.dir, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(want),
            "{want:?} not in {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_line_window_from_the_flag_the_case_or_the_corpus_widens_the_range() {
    let s = Scratch::new("eval-window");
    // The print is on line 6; the expectation says 7.
    let case = "diff = \"change.patch\"\n\n[[expect]]\nfile = \"app/db.py\"\nline = 7\nrule = \"RV-OPS-001\"\n";
    let root = one_case(&s, case);
    let dir = root.to_string_lossy().into_owned();
    let matched = |extra: &[&str]| {
        let mut args = vec![dir.as_str(), "--linters", "off", "--format", "json"];
        args.extend_from_slice(extra);
        let scored = json_of(&corpus_in(&s.dir, &args));
        (
            scored["overall"]["matched"].as_u64(),
            scored["cases"][0]["window"].as_u64(),
        )
    };
    assert_eq!(matched(&[]), (Some(0), Some(0)));
    assert_eq!(matched(&["--line-window", "1"]), (Some(1), Some(1)));
    std::fs::write(root.join("case.toml"), format!("window = 2\n{case}"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(matched(&[]), (Some(1), Some(2)));
    assert_eq!(
        matched(&["--line-window", "0"]),
        (Some(0), Some(0)),
        "the flag wins"
    );
    std::fs::write(root.join("case.toml"), case).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("corpus.toml"), "window = 1\n").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(matched(&[]), (Some(1), Some(1)));

    // Unknown fields stay errors, in case files and in corpus.toml.
    std::fs::write(root.join("corpus.toml"), "windw = 1\n").unwrap_or_else(|e| panic!("{e}"));
    let out = corpus_in(&s.dir, &[&dir]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("corpus.toml: unknown field `windw`"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(root.join("corpus.toml")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        root.join("case.toml"),
        case.replace("rule =", "descripton =\"x\"\nrule ="),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = corpus_in(&s.dir, &[&dir]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown field `descripton`"),
        "{}",
        stderr(&out)
    );
    std::fs::write(
        root.join("case.toml"),
        "diff = \"change.patch\"\n[[expect]]\nfile = \"a.py\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = corpus_in(&s.dir, &[&dir]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("expect #1: give line, lines, rule, class or description"),
        "{}",
        stderr(&out)
    );
}

/// Golden comments in the published benchmark's shape: two pull requests,
/// the first checked out, the second not.
const GOLDEN_COMMENTS: &str = r#"[
  {
    "pr_title": "Users: find by name",
    "url": "https://github.com/acme/shop/pull/7",
    "comments": [
      {"comment": "The name is interpolated into the SQL query, an injection.", "severity": "High"},
      {"comment": "The query result is printed to stdout on every call.", "severity": "Low"}
    ]
  },
  {
    "pr_title": "Billing: retries",
    "url": "https://github.com/acme/shop/pull/8",
    "comments": [{"comment": "Retries never stop.", "severity": "Critical"}]
  }
]"#;

#[test]
fn golden_comments_are_read_as_they_are_and_a_missing_checkout_is_skipped_by_name() {
    let s = Scratch::new("eval-benchmark");
    let top = s.dir.parent().unwrap_or(&s.dir).to_path_buf();
    let checkouts = top.join("checkouts");
    // The checkout of shop#7: HEAD at the pull request's head, the
    // `revu-base` branch at its base.
    let pr = checkouts.join("shop-7");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .current_dir(&pr)
            .env("GIT_CONFIG_GLOBAL", &s.hostile)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("running git: {e} (this test needs git on PATH)"));
        assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    };
    let write = |path: &str, text: &str| {
        let at = pr.join(path);
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(at, text).unwrap_or_else(|e| panic!("{e}"));
    };
    write("app/__init__.py", "");
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "base"]);
    git(&["branch", "revu-base"]);
    let body = SQL_PATCH
        .lines()
        .filter_map(|l| l.strip_prefix('+').filter(|_| !l.starts_with("+++")))
        .collect::<Vec<_>>()
        .join("\n");
    write("app/db.py", &format!("{body}\n"));
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "find by name"]);
    let golden = top.join("shop.json");
    std::fs::write(&golden, GOLDEN_COMMENTS).unwrap_or_else(|e| panic!("{e}"));
    let (golden, checkouts) = (
        golden.to_string_lossy().into_owned(),
        checkouts.to_string_lossy().into_owned(),
    );
    let server = judge_server();
    let out = corpus_in(
        &s.dir,
        &[
            "--golden",
            &golden,
            "--checkouts",
            &checkouts,
            "--linters",
            "off",
            "--format",
            "json",
            "--judge",
            "--llm-provider",
            "openai",
            "--llm-base-url",
            &server.base,
            "--llm-model",
            "judge-model",
        ],
    );
    let scored = json_of(&out);
    assert!(
        stderr(&out).contains("revu: skipped shop-8: no checkout"),
        "{}",
        stderr(&out)
    );
    assert_eq!(scored["skipped"][0]["name"], "shop-8");
    let names: Vec<&Value> = scored["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| &c["name"])
        .collect();
    assert_eq!(names, ["shop-7"]);
    assert_eq!(scored["cases"][0]["description"], "Users: find by name");
    let e = &scored["expectations"];
    assert_eq!(
        e[0]["golden_severity"], "IMPORTANT",
        "High maps to IMPORTANT"
    );
    assert_eq!(e[1]["golden_severity"], "SUGGESTION");
    assert!(e[0]["file"].is_null() && e[0]["first"].is_null());
    let all = &scored["overall"];
    assert_eq!(
        (all["expectations"].as_u64(), all["matched"].as_u64()),
        (Some(2), Some(2)),
        "the scripted judge pairs both comments with the SQL finding: {scored:#}"
    );

    // Without a judge, nothing of it can be scored, and the run says so.
    let out = corpus_in(
        &s.dir,
        &[
            "--golden",
            &golden,
            "--checkouts",
            &checkouts,
            "--linters",
            "off",
            "--format",
            "json",
        ],
    );
    let unjudged = json_of(&out);
    assert_eq!(unjudged["overall"]["needs_judge"], 2);
    assert_eq!(unjudged["skipped"].as_array().map(Vec::len), Some(1));

    let out = corpus_in(&s.dir, &["--golden", &golden]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--checkouts"), "{}", stderr(&out));
}

#[test]
fn a_judge_that_never_answers_in_json_fails_its_case_visibly() {
    let s = Scratch::new("eval-judge-prose");
    let root = one_case(&s, DESCRIBED);
    let dir = root.to_string_lossy().into_owned();
    let server = serve_with("", |_| (200, answer("They look the same to me.")));
    let out = corpus_in(&s.dir, &judged_args(&dir, &server));
    let scored = json_of(&out);
    assert_eq!(server.requests().len(), 3, "three attempts in all");
    let error = scored["cases"][0]["judge_error"]
        .as_str()
        .unwrap_or_default();
    assert!(
        error.contains("not JSON") && error.contains("3 attempt"),
        "{error}"
    );
    assert_eq!(scored["overall"]["needs_judge"], 2);
    assert_eq!(scored["cases"][0]["spent"]["judge"]["requests"], 3);
    assert!(
        stderr(&out).contains("the judge gave no answer for their case"),
        "{}",
        stderr(&out)
    );
}
