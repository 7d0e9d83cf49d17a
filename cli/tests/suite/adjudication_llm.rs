//! Adjudication by a model, on by default wherever a model reviews: a
//! lane whose candidates do not fit one request is split by candidate, and
//! each request decides only its own, so the merged decisions decide every
//! candidate once and are applied. On a broad change each BLOCKER also
//! gets a challenge lane, a second opinion told to disprove it.

use crate::model_server::{answer, outcomes, report, review_model_as_is, serve_with};
use std::collections::BTreeSet;
use std::fmt::Write;

/// A diff adding `lines` numbered lines to each of `files`.
fn patch(files: &[&str], lines: usize) -> String {
    let mut out = String::new();
    for file in files {
        let _ = write!(
            out,
            "diff --git a/{file} b/{file}\nnew file mode 100644\n--- /dev/null\n+++ b/{file}\n@@ -0,0 +1,{lines} @@\n"
        );
        for n in 1..=lines {
            let _ = writeln!(
                out,
                "+    let value_{n} = compute_the_total_for_row({n}, &ledger, &rates)?;"
            );
        }
    }
    out
}

/// The candidate indices an adjudication request's answer schema allows.
fn decides(request: &serde_json::Value) -> Vec<u64> {
    let schema = &request["response_format"]["json_schema"]["schema"];
    schema["properties"]["decisions"]["items"]["properties"]["index"]["enum"]
        .as_array()
        .map(|v| v.iter().filter_map(serde_json::Value::as_u64).collect())
        .unwrap_or_default()
}

/// Three BLOCKERs in two files of a change too broad for one request.
struct Case {
    dir: std::path::PathBuf,
    diff: std::path::PathBuf,
}

impl Case {
    fn new(name: &str) -> Case {
        let dir = std::env::temp_dir().join(format!("revu-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let diff = dir.join("three-blockers.patch");
        std::fs::write(&diff, patch(&["src/a.rs", "src/b.rs"], 300))
            .unwrap_or_else(|e| panic!("{e}"));
        Case { dir, diff }
    }

    /// `revu review` of the change with revu's defaults, `challenge`
    /// answering each second opinion with its decision.
    fn review(
        &self,
        challenge: impl Fn() -> serde_json::Value + Send + 'static,
    ) -> (serde_json::Value, Vec<serde_json::Value>) {
        let blocker = |file: &str, line: u32, summary: &str| {
            serde_json::json!({"severity": "BLOCKER", "file": file, "line": line,
                "summary": summary, "why": "the row total overflows on large ledgers",
                "fix": "use checked arithmetic", "confidence": 90, "dimension": "correctness"})
        };
        let lane_answer = serde_json::json!({
            "reviewed": ["src/a.rs", "src/b.rs"], "checks": ["totals"],
            "findings": [
                blocker("src/a.rs", 10, "row total overflows"),
                blocker("src/a.rs", 20, "rates unchecked before division"),
                blocker("src/b.rs", 30, "ledger read twice under one lock"),
            ],
            "summary": "three problems"
        })
        .to_string();
        let server = serve_with("", move |request| {
            let body: serde_json::Value = serde_json::from_str(request).unwrap_or_default();
            let decisions: Vec<serde_json::Value> = if request.contains("second opinion") {
                vec![challenge()]
            } else if request.contains("adjudicating findings") {
                // Confirm exactly the candidates this request may decide.
                decides(&body)
                    .into_iter()
                    .map(|i| serde_json::json!({"index": i, "action": "confirm", "reason": "traced", "evidence": ""}))
                    .collect()
            } else {
                return (200, answer(&lane_answer));
            };
            let decided = serde_json::json!({"reviewed": [], "checks": ["adjudication"],
                "findings": [], "summary": "decided", "decisions": decisions});
            (200, answer(&decided.to_string()))
        });
        // Room for one file's hunks beside a prompt, not for two.
        let out = review_model_as_is(
            &server,
            &self.diff.to_string_lossy(),
            "test-model",
            &["--llm-context-tokens", "16000"],
        );
        let r = report(&out);
        assert!(
            outcomes(&r).iter().all(|o| o == "COMPLETE"),
            "{:?}\n{}",
            outcomes(&r),
            String::from_utf8_lossy(&out.stderr)
        );
        (r, server.bodies())
    }
}

impl Drop for Case {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn stands() -> serde_json::Value {
    serde_json::json!({"index": 0, "action": "confirm", "reason": "no guard", "evidence": ""})
}

#[test]
fn a_two_part_adjudication_decides_each_candidate_once_and_is_applied() {
    let (r, bodies) = Case::new("two-part").review(stands);
    assert_eq!(
        r["adjudication"]["status"], "applied",
        "{}",
        r["adjudication"]
    );
    assert_eq!(r["adjudication"]["candidates"], 3);
    assert_eq!(r["adjudication"]["confirmed"], 3);
    // Not NEEDS-HUMAN for a lane the gate refused.
    assert!(
        !r["gate_reasons"].to_string().contains("adjudication"),
        "{}",
        r["gate_reasons"]
    );
    assert_eq!(r["verdict"], "REQUEST CHANGES");
    // Two requests, each deciding its own candidates: together each once.
    let parts: Vec<Vec<u64>> = bodies
        .iter()
        .filter(|b| b.to_string().contains("adjudicating findings"))
        .map(decides)
        .collect();
    assert_eq!(parts.len(), 2, "{parts:?}");
    let all: Vec<u64> = parts.iter().flatten().copied().collect();
    assert_eq!(all.len(), 3, "{parts:?}");
    assert_eq!(all.iter().collect::<BTreeSet<_>>().len(), 3, "{parts:?}");
    for f in r["findings"].as_array().into_iter().flatten() {
        assert!(
            f["why"]
                .as_str()
                .is_some_and(|w| w.contains("Adjudicated: confirmed — traced")),
            "{f}"
        );
    }
}

#[test]
fn each_blocker_of_a_broad_change_gets_a_second_opinion_that_can_lower_it() {
    // The change adds 600 lines: BROAD. The challenger disproves every
    // BLOCKER, citing a line of the change.
    let (r, bodies) = Case::new("challenge").review(|| {
        serde_json::json!({"index": 0, "action": "drop", "reason": "checked_add guards it",
            "evidence": "src/a.rs:5"})
    });
    let challenges: Vec<&str> = bodies
        .iter()
        .filter(|b| b.to_string().contains("second opinion"))
        .map(|_| "challenge")
        .collect();
    assert_eq!(challenges.len(), 3, "one fresh request per BLOCKER");
    let lanes: Vec<String> = r["lanes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|l| l["kind"] == "challenge")
        .map(|l| l["id"].as_str().unwrap_or("?").to_owned())
        .collect();
    assert_eq!(lanes, ["challenge:0", "challenge:1", "challenge:2"]);
    let shown = &r["adjudication"]["challenges"];
    assert_eq!(shown.as_array().map(Vec::len), Some(3), "{shown}");
    for c in shown.as_array().into_iter().flatten() {
        assert_eq!(c["adjudication"], "confirm", "{c}");
        assert_eq!(c["verdict"], "disproved", "{c}");
        assert_eq!(c["evidence"], "src/a.rs:5", "{c}");
    }
    // Lowered, not dropped: three IMPORTANT findings that say why.
    let findings = r["findings"].as_array().cloned().unwrap_or_default();
    assert_eq!(findings.len(), 3, "{}", r["findings"]);
    for f in &findings {
        assert_eq!(f["severity"], "IMPORTANT", "{f}");
        assert_eq!(f["downgraded_from"], "BLOCKER", "{f}");
        assert!(
            f["why"].as_str().is_some_and(
                |w| w.contains("Challenged: disproved — checked_add guards it (src/a.rs:5)")
            ),
            "{f}"
        );
    }
    assert_eq!(r["verdict"], "APPROVE WITH FOLLOWUPS");
}
