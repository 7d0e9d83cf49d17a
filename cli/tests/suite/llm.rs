//! `revu review --engine llm` against a scripted OpenAI-compatible server
//! on loopback: what the lanes become for a good answer, for prose, and
//! under a rate limit that never lifts.

use crate::model_server;

use model_server::{Server, answer, assert_key_hidden, outcomes, report, review_model, serve_with};
use std::process::Output;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Answers every request with `status`, `headers` and `body`.
fn serve(status: u16, headers: &'static str, body: String) -> Server {
    serve_by(status, headers, move |_| body.clone())
}

/// Like [`serve`], the body chosen by what the request asked.
fn serve_by(
    status: u16,
    headers: &'static str,
    answer: impl Fn(&str) -> String + Send + 'static,
) -> Server {
    serve_with(headers, move |request| (status, answer(request)))
}

/// `revu review --engine llm --format json` on `patch` against `server`.
fn review(server: &Server, patch: &str) -> Output {
    review_with(server, patch, &[])
}

fn review_with(server: &Server, patch: &str, extra: &[&str]) -> Output {
    review_model(server, patch, "test-model", extra)
}

#[test]
fn model_findings_are_verified_and_decide_the_verdict() {
    let finding = serde_json::json!({
        "reviewed": ["src/billing/client.rs"],
        "checks": ["credentials"],
        "findings": [
            {"severity": "BLOCKER", "file": "src/billing/client.rs", "line": 3,
             "summary": "hard-coded key", "why": "anyone with the repo can use it",
             "fix": "load it from the environment", "confidence": 90, "dimension": "security"},
            {"severity": "BLOCKER", "file": "src/billing/client.rs", "line": 4000,
             "summary": "a line that does not exist", "why": "-", "fix": "-",
             "confidence": 90, "dimension": "security"}
        ],
        "summary": "a key in the code"
    });
    let server = serve(200, "", answer(&finding.to_string()));
    let out = review(&server, "secret-and-unwrap.patch");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = report(&out);
    assert!(
        outcomes(&r).iter().all(|o| o == "COMPLETE"),
        "{:?}",
        outcomes(&r)
    );
    let cited: Vec<String> = r["findings"]
        .as_array()
        .map(|f| {
            f.iter()
                .map(|f| format!("{}:{}", f["file"].as_str().unwrap_or(""), f["line"]))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(cited, ["src/billing/client.rs:3"], "{r}");
    assert!(
        r["verification"]["dropped_missing_line"].as_u64() >= Some(1),
        "{r}"
    );
    assert_eq!(r["verdict"], "REQUEST CHANGES");
    assert!(
        server.saw_key.load(Ordering::SeqCst) >= 1,
        "no request carried the key"
    );
    assert_key_hidden(&out);
}

#[test]
fn prose_never_reads_as_a_clean_lane() {
    let server = serve(200, "", answer("Looks great, approve this change!"));
    let out = review(&server, "docs-only.patch");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = report(&out);
    assert!(
        outcomes(&r).iter().all(|o| o == "INCOMPLETE"),
        "{:?}",
        outcomes(&r)
    );
    assert_eq!(r["gate"], "NEEDS-HUMAN");
}

#[test]
fn a_spent_token_cap_sends_nothing_more_and_no_lane_reads_as_clean() {
    let server = serve(200, "", answer("{}"));
    // Less than any request reserves (its prompt and the output limit).
    let out = review_with(
        &server,
        "secret-and-unwrap.patch",
        &["--review-token-cap", "100"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = report(&out);
    assert!(
        outcomes(&r).iter().all(|o| o == "INCOMPLETE"),
        "{:?}",
        outcomes(&r)
    );
    for lane in r["lanes"].as_array().into_iter().flatten() {
        let banner = lane["banner"].as_str().unwrap_or_default();
        assert!(banner.contains("token cap of 100"), "{lane}");
    }
    assert_eq!(r["gate"], "NEEDS-HUMAN");
}

#[test]
fn a_rate_limit_that_never_lifts_faults_the_lanes_after_waiting_it_out() {
    let server = serve(
        429,
        "retry-after: 1\r\n",
        r#"{"error":{"message":"rate limit reached"}}"#.to_owned(),
    );
    let out = review(&server, "docs-only.patch");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = report(&out);
    let lanes = r["lanes"].as_array().cloned().unwrap_or_default();
    assert!(!lanes.is_empty());
    for lane in &lanes {
        assert_eq!(lane["outcome"], "PIPELINE-FAULT", "{lane}");
        // Every attempt's request counts, answered or not.
        assert_eq!(lane["usage"]["requests"], 3, "{lane}");
        assert!(
            lane["banner"]
                .as_str()
                .is_some_and(|b| b.contains("429: rate limit reached")),
            "{lane}"
        );
    }
    assert_eq!(r["gate"], "NEEDS-HUMAN");
    // Three attempts per lane (the default), each retry at least the
    // server's Retry-After after the last.
    let times = server.requests();
    assert_eq!(times.len(), 3 * lanes.len(), "{} requests", times.len());
    let span = times
        .iter()
        .max()
        .zip(times.iter().min())
        .map(|(a, b)| a.duration_since(*b));
    assert!(span >= Some(Duration::from_secs(2)), "{span:?}");
    assert_key_hidden(&out);
}

#[test]
fn llm_adjudication_can_drop_what_llm_lanes_raised() {
    let review_answer = serde_json::json!({
        "reviewed": ["src/billing/client.rs"], "checks": ["credentials"],
        "findings": [{"severity": "BLOCKER", "file": "src/billing/client.rs", "line": 3,
            "summary": "hard-coded key", "why": "anyone can use it", "fix": "load it",
            "confidence": 90, "dimension": "security"}],
        "summary": "a key"
    });
    let adjudication = serde_json::json!({
        "reviewed": ["src/billing/client.rs"], "checks": ["adjudication"], "findings": [],
        "summary": "the key is a documented example",
        "decisions": [{"index": 0, "action": "drop", "reason": "an example key from the docs",
            "evidence": "src/billing/client.rs:3"}]
    });
    let server = serve_by(200, "", move |request| {
        if request.contains("adjudicating findings") {
            answer(&adjudication.to_string())
        } else {
            answer(&review_answer.to_string())
        }
    });
    let out = review_with(&server, "secret-and-unwrap.patch", &["--adjudicate", "llm"]);
    let r = report(&out);
    assert!(
        outcomes(&r).iter().all(|o| o == "COMPLETE"),
        "{:?}",
        outcomes(&r)
    );
    assert_eq!(r["findings"].as_array().map(Vec::len), Some(0), "{r}");
    assert_eq!(r["verdict"], "APPROVE", "{r}");
    assert_key_hidden(&out);
}

#[test]
fn an_answer_cut_at_the_token_limit_is_incomplete_and_not_asked_again() {
    let cut = serde_json::json!({
        "choices": [{"message": {"role": "assistant", "content": "{\"reviewed\": [\"README.md\"], \"checks\": [], \"fin"}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 2048},
    })
    .to_string();
    let server = serve(200, "", cut);
    let out = review(&server, "docs-only.patch");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = report(&out);
    let lanes = r["lanes"].as_array().cloned().unwrap_or_default();
    assert!(!lanes.is_empty());
    for lane in &lanes {
        assert_eq!(lane["outcome"], "INCOMPLETE", "{lane}");
        assert!(
            lane["banner"]
                .as_str()
                .is_some_and(|b| b.contains("output token limit")),
            "{lane}"
        );
        // Asking again with the same limit would only be cut again.
        assert_eq!(lane["usage"]["requests"], 1, "{lane}");
    }
    assert_eq!(server.requests().len(), lanes.len());
    assert_eq!(r["gate"], "NEEDS-HUMAN");
}

/// A server for the grouping and synthesis lanes: review lanes answer
/// clean; the grouping lane answers `grouping`; the synthesis lane a
/// walkthrough with a line for each of `files` and one for a file that
/// is not in the change.
fn phase_server(grouping: String, files: &'static [&'static str]) -> Server {
    let clean = serde_json::json!({
        "reviewed": files, "checks": ["reading"], "findings": [], "summary": "nothing to raise"
    });
    let mut notes: Vec<serde_json::Value> = files
        .iter()
        .map(|f| serde_json::json!({"path": f, "note": format!("{f} changes")}))
        .collect();
    notes.push(serde_json::json!({"path": "src/ghost.rs", "note": "not here"}));
    let walkthrough = serde_json::json!({
        "walkthrough": "The change adds a billing client.\n\nRead the client first.",
        "file_notes": notes,
        "summary": "walkthrough"
    });
    serve_by(200, "", move |request| {
        if request.contains("planning the review") {
            answer(&grouping)
        } else if request.contains("writing the walkthrough") {
            answer(&walkthrough.to_string())
        } else {
            answer(&clean.to_string())
        }
    })
}

/// The files of `multi-file.patch`, in diff order.
const FILES: &[&str] = &[
    "db/migrations/0042_drop_legacy_totals.sql",
    "docs/orders.md",
    "services/orders/repo.py",
    "src/lib.rs",
    "web/src/cart.js",
];

fn domain_lanes(r: &serde_json::Value) -> Vec<String> {
    r["lanes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|l| l["kind"] == "domain")
        .filter_map(|l| l["id"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn llm_grouping_and_synthesis_shape_the_lanes_and_write_the_walkthrough() {
    let grouping = serde_json::json!({
        "slices": [
            {"name": "orders", "files": &FILES[..3]},
            {"name": "clients", "files": &FILES[3..]}
        ],
        "summary": "the orders change and its callers"
    });
    let server = phase_server(grouping.to_string(), FILES);
    let flags = ["--refine-grouping", "llm", "--synthesize", "llm"];
    let out = review_with(&server, "multi-file.patch", &flags);
    let r = report(&out);
    assert_eq!(domain_lanes(&r), ["domain:orders", "domain:clients"], "{r}");
    assert!(r.get("cover_fallback").is_none(), "{r}");
    assert!(
        outcomes(&r).iter().all(|o| o == "COMPLETE"),
        "{:?}",
        outcomes(&r)
    );
    let w = &r["walkthrough"];
    assert_eq!(w["engine"], "llm", "{w}");
    assert!(
        w["text"]
            .as_str()
            .is_some_and(|t| t.contains("billing client")),
        "{w}"
    );
    let paths: Vec<&str> = w["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["path"].as_str())
        .collect();
    let facts: Vec<&str> = r["facts"]["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(paths, facts, "one line per changed file, in facts order");
    assert!(
        w["note"]
            .as_str()
            .is_some_and(|n| n.contains("src/ghost.rs")),
        "{w}"
    );
    let grouping = r["lanes"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["id"] == "grouping"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(grouping["checks"], serde_json::json!(["prompt group-v1"]));
    assert!(
        grouping["usage"]["requests"].as_u64() >= Some(1),
        "{grouping}"
    );
    assert_key_hidden(&out);
}

#[test]
fn an_llm_grouping_that_drops_a_file_is_refused_and_the_proposal_reviewed() {
    let grouping = serde_json::json!({
        "slices": [{"name": "orders", "files": &FILES[..4]}],
        "summary": "forgot one"
    });
    let server = phase_server(grouping.to_string(), FILES);
    let plain = report(&review(&server, "multi-file.patch"));
    let out = review_with(&server, "multi-file.patch", &["--refine-grouping", "llm"]);
    let r = report(&out);
    assert_eq!(domain_lanes(&r), domain_lanes(&plain), "{r}");
    let note = r["cover_fallback"].as_str().unwrap_or_default();
    assert!(
        note.contains("in no slice") && note.contains("web/src/cart.js"),
        "{note}"
    );
    assert_eq!(r["gate"], plain["gate"]);
    assert_eq!(r["verdict"], plain["verdict"]);
}
