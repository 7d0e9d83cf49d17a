//! Each format read from what the tool itself printed (shellcheck 0.9,
//! ruff 0.17, hadolint 2.12, yamllint 1.38), and actionlint's and SARIF's
//! documented shapes.

use super::*;

fn tool(name: &str) -> Tool {
    builtin()
        .into_iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn shellcheck_codes_become_sc_ids_with_their_wiki_page() {
    let out = br#"{"comments":[{"file":"run.sh","line":3,"endLine":3,"column":6,"endColumn":10,"level":"info","code":2086,"message":"Double quote to prevent globbing and word splitting.","fix":null}]}"#;
    let raw = tool("shellcheck").parse(out).unwrap_or_default();
    assert_eq!(raw.len(), 1);
    assert_eq!((raw[0].file.as_str(), raw[0].line), ("run.sh", 3));
    assert_eq!(raw[0].code, "SC2086");
    assert_eq!(raw[0].severity, Severity::Suggestion);
    assert_eq!(
        raw[0].url.as_deref(),
        Some("https://www.shellcheck.net/wiki/SC2086")
    );
}

#[test]
fn ruff_security_rules_are_security_and_bugbear_correctness() {
    let out = br#"[{"cell":null,"code":"S602","end_location":{"column":16,"row":2},"filename":"/tmp/x/app.py","fix":null,"location":{"column":1,"row":2},"message":"`subprocess` call with `shell=True` identified, security issue","noqa_row":2,"url":"https://docs.astral.sh/ruff/rules/subprocess-popen-with-shell-equals-true"},
{"cell":null,"code":"B006","end_location":{"column":11,"row":3},"filename":"/tmp/x/app.py","fix":{"applicability":"unsafe","edits":[],"message":"Replace with `None`; initialize within function"},"location":{"column":9,"row":3},"message":"Do not use mutable data structures for argument defaults","noqa_row":3,"url":"https://docs.astral.sh/ruff/rules/mutable-argument-default"}]"#;
    let raw = tool("ruff").parse(out).unwrap_or_default();
    assert_eq!(raw.len(), 2);
    assert_eq!(
        (raw[0].dimension, raw[0].severity),
        (Dimension::Security, Severity::Important)
    );
    assert_eq!(
        (raw[1].dimension, raw[1].severity),
        (Dimension::Correctness, Severity::Suggestion)
    );
    assert_eq!(raw[1].line, 3);
    assert_eq!(
        raw[1].fix.as_deref(),
        Some("Replace with `None`; initialize within function")
    );
    assert!(tool("ruff").reads("src/app.py"));
    assert!(!tool("ruff").reads("src/app.js"));
}

#[test]
fn hadolint_leaves_style_out() {
    let out = br#"[{"code":"DL3007","column":1,"file":"Dockerfile","level":"warning","line":1,"message":"Using latest is prone to errors"},{"code":"DL4000","column":1,"file":"Dockerfile","level":"style","line":2,"message":"MAINTAINER is deprecated"}]"#;
    let raw = tool("hadolint").parse(out).unwrap_or_default();
    let codes: Vec<&str> = raw.iter().map(|r| r.code.as_str()).collect();
    assert_eq!(codes, ["DL3007"]);
    assert!(tool("hadolint").reads("build/Dockerfile"));
}

#[test]
fn actionlint_kinds_are_its_rule_ids() {
    let out = br#"[{"message":"property \"runs-on\" is missing","filepath":".github/workflows/ci.yml","line":4,"column":3,"kind":"syntax-check","snippet":"  build:","end_column":8}]"#;
    let raw = tool("actionlint").parse(out).unwrap_or_default();
    assert_eq!(raw.len(), 1);
    assert_eq!(raw[0].code, "syntax-check");
    assert_eq!(raw[0].file, ".github/workflows/ci.yml");
    assert!(tool("actionlint").reads(".github/workflows/ci.yml"));
    assert!(!tool("actionlint").reads("deploy/ci.yml"));
}

#[test]
fn yamllint_lines_are_read_with_their_rule() {
    let out = b"conf.yaml:2:1: [error] duplication of key \"a\" in mapping (key-duplicates)\n\
conf.yaml:4:1: [error] syntax error: expected the node content, but found '<stream end>' (syntax)\n";
    let raw = tool("yamllint").parse(out).unwrap_or_default();
    let got: Vec<(u32, &str)> = raw.iter().map(|r| (r.line, r.code.as_str())).collect();
    assert_eq!(got, [(2, "key-duplicates"), (4, "syntax")]);
}

#[test]
fn sarif_results_are_read_from_every_run() {
    let out = br#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"R1","level":"error","message":{"text":"bad"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"src/a.py"},"region":{"startLine":7}}}]}]}]}"#;
    let spec = ToolSpec {
        name: "x".into(),
        globs: vec!["*.py".into()],
        command: "x --sarif".into(),
    };
    let raw = configured(&spec).parse(out).unwrap_or_default();
    assert_eq!(raw.len(), 1);
    assert_eq!(
        (raw[0].file.as_str(), raw[0].line, raw[0].code.as_str()),
        ("src/a.py", 7, "R1")
    );
    assert_eq!(raw[0].severity, Severity::Important);
    assert!(configured(&spec).parse(b"not json").is_err());
}
