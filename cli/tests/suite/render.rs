//! The report contract as a CI user meets it: `revu render`, `revu verdict`,
//! `revu schema`, `--format sarif|rdjson`, `--fail-on`, and the same bytes
//! for the same review.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const EXAMPLES: [&str; 3] = [
    "docs-only.patch",
    "multi-file.patch",
    "secret-and-unwrap.patch",
];

fn example(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name);
    path.to_string_lossy().into_owned()
}

fn revu(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_revu"));
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{e}"));
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(bytes).unwrap_or_else(|e| panic!("{e}"));
    }
    child.wait_with_output().unwrap_or_else(|e| panic!("{e}"))
}

fn review(patch: &str, format: &str) -> Output {
    revu(
        &["review", "--diff", &example(patch), "--format", format],
        None,
    )
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap_or_else(|e| panic!("{e}"))
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn errors(validator: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    validator
        .iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Writes `text` to a fresh file in the target directory's temp area.
fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("render-tests");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path
}

fn path_arg(path: &Path) -> &str {
    path.to_str().unwrap_or_default()
}

#[test]
fn the_same_review_twice_is_byte_identical_apart_from_its_id() {
    let runs: Vec<String> = (0..2)
        .map(|_| {
            let out = review("multi-file.patch", "json");
            assert_eq!(out.status.code(), Some(1));
            let text = stdout(&out);
            let id = parse(&text)["review_id"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            assert!(!id.is_empty());
            let line = format!("\"review_id\": \"{id}\"");
            assert_eq!(text.matches(&line).count(), 1, "{text}");
            text.replace(&line, "\"review_id\": \"\"")
        })
        .collect();
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn every_example_report_is_valid_against_the_published_schema() {
    let out = revu(&["schema"], None);
    assert_eq!(out.status.code(), Some(0));
    let schema = parse(&stdout(&out));
    assert_eq!(schema["title"], "revu report");
    let validator = validator(&schema);
    for patch in EXAMPLES {
        let report = parse(&stdout(&review(patch, "json")));
        let errs = errors(&validator, &report);
        assert!(errs.is_empty(), "{patch}: {errs:#?}");
        let mut unknown = report.clone();
        unknown["lanes"][0]["graded"] = true.into();
        assert!(!validator.is_valid(&unknown), "{patch}: unknown field");
        let mut bad_enum = report.clone();
        bad_enum["verdict"] = "LGTM".into();
        assert!(!validator.is_valid(&bad_enum), "{patch}: bad enum");
    }
}

#[test]
fn sarif_of_every_example_is_valid_against_the_official_schema() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../stages/tests/fixtures/sarif-schema-2.1.0.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let validator = validator(&parse(&text));
    for patch in EXAMPLES {
        let log = parse(&stdout(&review(patch, "sarif")));
        let errs = errors(&validator, &log);
        assert!(errs.is_empty(), "{patch}: {errs:#?}");
        assert_eq!(log["runs"][0]["tool"]["driver"]["name"], "revu");
    }
    let log = parse(&stdout(&review("secret-and-unwrap.patch", "sarif")));
    let results = log["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let secret = results
        .iter()
        .find(|r| r["ruleId"] == "RV-SEC-001")
        .unwrap_or_else(|| panic!("{results:?}"));
    assert_eq!(secret["level"], "error");
    let location = &secret["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "src/billing/client.rs");
    assert_eq!(location["region"]["startLine"], 3);
}

#[test]
fn render_reproduces_every_format_from_the_json_alone() {
    let json = stdout(&review("secret-and-unwrap.patch", "json"));
    let file = temp_file("secret-and-unwrap.json", &json);
    let out = revu(&["render", path_arg(&file), "--format", "json"], None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), json, "json renders back to the same bytes");
    for format in ["md", "sarif", "rdjson"] {
        let from_file = revu(&["render", path_arg(&file), "--format", format], None);
        let from_stdin = revu(&["render", "-", "--format", format], Some(json.as_bytes()));
        assert_eq!(from_file.status.code(), Some(0), "{format}");
        assert_eq!(from_file.stdout, from_stdin.stdout, "{format}");
    }
    let md = stdout(&revu(&["render", path_arg(&file)], None));
    assert!(md.starts_with("# revu review: REQUEST CHANGES"), "{md}");
    let rd = parse(&stdout(&revu(
        &["render", path_arg(&file), "--format", "rdjson"],
        None,
    )));
    assert_eq!(rd["source"]["name"], "revu");
    assert!(
        rd["diagnostics"].as_array().is_some_and(|d| d
            .iter()
            .any(|d| d["code"]["value"] == "RV-SEC-001"
                && d["severity"] == "ERROR"
                && d["location"]["range"]["start"]["line"] == 3)),
        "{rd}"
    );
}

#[test]
fn render_and_verdict_refuse_what_is_not_a_report() {
    let report = parse(&stdout(&review("docs-only.patch", "json")));
    let mut unknown = report.clone();
    unknown["graded_by"] = "model".into();
    let mut bad_enum = report.clone();
    bad_enum["gate"] = "SHIP-IT".into();
    let mut missing = report;
    if let Some(map) = missing.as_object_mut() {
        map.remove("findings");
    }
    let cases = [
        ("not json", "hello\n".to_owned(), "not JSON"),
        ("unknown field", unknown.to_string(), "graded_by"),
        ("bad enum", bad_enum.to_string(), "SHIP-IT"),
        ("missing field", missing.to_string(), "findings"),
    ];
    for (name, text, mentions) in cases {
        for cmd in [&["render", "-"][..], &["verdict", "-"][..]] {
            let out = revu(cmd, Some(text.as_bytes()));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{cmd:?} {name}: {stderr}");
            assert_eq!(stderr.trim_end().lines().count(), 1, "{name}: {stderr:?}");
            assert!(
                stderr.starts_with("revu: standard input: "),
                "{name}: {stderr}"
            );
            assert!(stderr.contains(mentions), "{name}: {stderr}");
            assert!(out.stdout.is_empty(), "{name}");
        }
    }
    let out = revu(&["render", "/nonexistent/report.json"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/report.json"));
}

#[test]
fn verdict_replays_every_example_from_the_json_alone() {
    for patch in EXAMPLES {
        let json = stdout(&review(patch, "json"));
        let report = parse(&json);
        let out = revu(&["verdict", "-"], Some(json.as_bytes()));
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{patch}: {text}");
        let expected = format!(
            "verdict: {}\ngate: {}\n",
            report["verdict"].as_str().unwrap_or_default(),
            report["gate"].as_str().unwrap_or_default()
        );
        assert!(text.starts_with(&expected), "{patch}: {text}");
        assert!(
            text.ends_with("agrees with the verdict the report carries\n"),
            "{text}"
        );
    }
}

#[test]
fn a_verdict_that_does_not_replay_exits_1_with_a_diff() {
    let mut report = parse(&stdout(&review("secret-and-unwrap.patch", "json")));
    report["gate"] = "MERGE-READY".into();
    report["verdict"] = "APPROVE".into();
    let file = temp_file("tampered.json", &report.to_string());
    let out = revu(&["verdict", path_arg(&file)], None);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.starts_with("verdict: REQUEST CHANGES\ngate: NEEDS-HUMAN\n"),
        "{text}"
    );
    assert!(text.contains("--- report\n+++ recomputed\n"), "{text}");
    assert!(
        text.contains(
            "\n-verdict: APPROVE\n-gate: MERGE-READY\n+verdict: REQUEST CHANGES\n+gate: NEEDS-HUMAN\n"
        ),
        "{text}"
    );
}

#[test]
fn fail_on_sets_the_exit_code_by_severity() {
    let secret = example("secret-and-unwrap.patch");
    let docs = example("docs-only.patch");
    let cases: [(&str, &str, Option<i32>); 6] = [
        (&secret, "never", Some(0)),
        (&secret, "blocker", Some(1)),
        (&secret, "suggestion", Some(1)),
        (&docs, "suggestion", Some(0)),
        (&docs, "never", Some(0)),
        (&secret, "sometimes", Some(2)),
    ];
    for (diff, fail_on, code) in cases {
        let out = revu(
            &[
                "review",
                "--diff",
                diff,
                "--format",
                "rdjson",
                "--fail-on",
                fail_on,
            ],
            None,
        );
        assert_eq!(
            out.status.code(),
            code,
            "{diff} --fail-on {fail_on}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Without --fail-on the gate still decides.
    assert_eq!(
        review("secret-and-unwrap.patch", "sarif").status.code(),
        Some(1)
    );
    assert_eq!(review("docs-only.patch", "sarif").status.code(), Some(0));
}
