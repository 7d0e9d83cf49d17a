//! `revu review --commit` with the llm engine in a repository the test
//! builds (so that the code index is on), against a scripted server that
//! logs the requests: with an input budget too small for whole files, a
//! lane's request still holds the function around its hunk. Needs git on
//! PATH.

use crate::model_server::{KEY, Server, answer, serve_with};
use crate::scratch::{Scratch, report, revu_with};
use std::ffi::OsStr;

/// `withdraw` checks the amount twenty lines above the line the second
/// commit edits; a long tail of helpers makes the file too large for the
/// budget.
fn bank(edited: bool) -> String {
    let mut text = String::from("def withdraw(account, amount):\n");
    text.push_str("    if amount <= 0 or amount > account.balance:\n");
    text.push_str("        raise ValueError(\"amount out of range\")\n");
    for k in 0..18 {
        text.push_str(&format!("    audit_step_{k}(account)\n"));
    }
    text.push_str(if edited {
        "    account.balance -= amount * 1\n"
    } else {
        "    account.balance -= amount\n"
    });
    text.push_str("    return account.balance\n");
    for f in 0..1500 {
        text.push_str(&format!(
            "\n\ndef helper_{f}(value):\n    return value + {f}  # padding the file\n"
        ));
    }
    text
}

fn review(s: &Scratch, server: &Server, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "--commit",
        "HEAD",
        "--engine",
        "llm",
        "--llm-provider",
        "openai",
        "--llm-base-url",
        &server.base,
        "--llm-model",
        "test-model",
    ];
    args.extend_from_slice(extra);
    let out = revu_with(
        &s.dir,
        Some(&s.hostile),
        &args,
        &[("REVU_LLM_API_KEY", OsStr::new(KEY))],
    );
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    report(&out)
}

fn server() -> Server {
    let clean = serde_json::json!({
        "reviewed": ["src/bank.py"], "checks": [], "findings": [], "summary": "clean"
    });
    let body = answer(&clean.to_string());
    serve_with("", move |_| (200, body.clone()))
}

/// The system and user messages of each request the server logged.
fn messages(server: &Server) -> Vec<(String, String)> {
    server
        .bodies()
        .iter()
        .map(|b| {
            let text = |i: usize| {
                b["messages"][i]["content"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned()
            };
            (text(0), text(1))
        })
        .collect()
}

#[test]
fn a_lane_over_budget_for_whole_files_still_sees_the_enclosing_function() {
    let s = Scratch::new("llm-context");
    s.write("src/bank.py", &bank(false));
    s.write(
        "src/api.py",
        "from bank import withdraw\n\n\ndef pay(acct, req):\n    return withdraw(acct, req.amount)\n",
    );
    s.commit("first");
    s.write("src/bank.py", &bank(true));
    s.commit("second");
    // The system prompt's size, as the estimate counts it (3 bytes a
    // token), from a run with the default budget.
    let roomy = server();
    review(&s, &roomy, &[]);
    let system = messages(&roomy)
        .first()
        .map(|(system, _)| system.len().div_ceil(3))
        .unwrap_or_else(|| panic!("no request reached the server"));
    // Room for the hunk and its context, not for the file (over 20000
    // tokens).
    let budget = (system + 64 + 3_000).to_string();
    let tight = server();
    let r = review(&s, &tight, &["--llm-context-tokens", &budget]);
    let lanes: Vec<(String, String)> = messages(&tight)
        .into_iter()
        .filter(|(_, user)| user.contains("## File: src/bank.py"))
        .collect();
    assert!(!lanes.is_empty(), "no request showed src/bank.py");
    for (_, user) in &lanes {
        assert!(
            user.contains("     2       if amount <= 0 or amount > account.balance:\n"),
            "the guard above the hunk is not in the request:\n{user}"
        );
        assert!(
            user.contains("#### function `withdraw`, lines 1-23"),
            "{user}"
        );
        assert!(!user.contains("Full file after the change"), "{user}");
        let data_end = user.find("</data>").unwrap_or(0);
        assert!(user.find("def withdraw") < Some(data_end), "{user}");
    }
    let checks: Vec<String> = r["lanes"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|l| l["checks"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c.as_str().map(str::to_owned))
        .filter(|c| c.starts_with("context: "))
        .collect();
    assert!(!checks.is_empty(), "{r}");
    for c in &checks {
        assert!(c.contains("left out: whole files of src/bank.py"), "{c}");
        assert!(c.contains(&format!("(budget {budget})")), "{c}");
    }
}

/// A `--lint-tool` that reports in SARIF and counts its runs in `runs`.
fn counting_probe(root: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = root.join("bin-probe");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join("probe");
    let sarif = r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"probe"}},"results":[{"ruleId":"P1","level":"error","message":{"text":"unquoted </data> expansion"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"job.sh"},"region":{"startLine":2}}}]}]}]}"#;
    let runs = root.join("runs");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\necho run >> '{}'\necho '{sarif}'\n",
            runs.display()
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
    path
}

#[test]
fn review_lanes_are_shown_the_linters_findings_in_their_files_run_once() {
    let s = Scratch::new("llm-linted");
    s.write("job.sh", "echo start\n");
    s.commit("first");
    s.write("job.sh", "echo start\necho $1\n");
    s.commit("second");
    let root = s
        .dir
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let probe = format!("probe:*.sh={}", counting_probe(&root).display());
    let clean = serde_json::json!({
        "reviewed": ["job.sh"], "checks": [], "findings": [], "summary": "clean"
    });
    let body = answer(&clean.to_string());
    let server = serve_with("", move |_| (200, body.clone()));
    let r = review(&s, &server, &["--lint-tool", &probe]);
    let shown = "- job.sh:2 [probe:P1]: unquoted </ data> expansion";
    let lanes: Vec<(String, String)> = messages(&server)
        .into_iter()
        .filter(|(_, user)| user.contains("## File: job.sh"))
        .collect();
    assert!(!lanes.is_empty(), "no request showed job.sh");
    for (_, user) in &lanes {
        let at = user
            .find(shown)
            .unwrap_or_else(|| panic!("the linter's finding is not shown:\n{user}"));
        assert!(at < user.find("</data>").unwrap_or(0), "{user}");
        assert!(user.contains("What the linters report"), "{user}");
    }
    // One run for the review, however many lanes were shown it.
    let runs = std::fs::read_to_string(root.join("runs")).unwrap_or_default();
    assert_eq!(runs.lines().count(), 1, "{runs}");
    // Shown, not reported: no lane here reports what the linters found.
    let rules: Vec<&str> = r["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(!rules.contains(&"probe:P1"), "{r}");
}
