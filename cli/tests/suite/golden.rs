//! Golden tests of verification and verdict over the example diffs: the
//! whole embedded pipeline runs, and the verified findings and the verdict
//! are compared with snapshots.

use std::path::PathBuf;
use std::process::Command;

fn review(example: &str) -> serde_json::Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(example);
    let out = crate::scratch::outside_ci(&mut Command::new(env!("CARGO_BIN_EXE_revu")))
        .args(["review", "--format", "json", "--diff"])
        .arg(&path)
        .env_remove("REVU_COORDINATOR")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{example}: not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// What verification decided: the counts and every kept finding.
fn verification(r: &serde_json::Value) -> serde_json::Value {
    let findings: Vec<serde_json::Value> = r["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|f| {
            serde_json::json!({
                "rule": f["rule"],
                "severity": f["severity"],
                "citation": format!("{}:{}", f["file"].as_str().unwrap_or(""), f["line"]),
                "dimension": f["dimension"],
                "dimensions": f.get("dimensions").cloned().unwrap_or(serde_json::Value::Null),
                "confidence": f["confidence"],
            })
        })
        .collect();
    serde_json::json!({
        "stats": r["verification"],
        "cross_cutting": r["cross_cutting"],
        "findings": findings,
    })
}

/// The verdict arithmetic's output and what it rested on.
fn verdict(r: &serde_json::Value) -> serde_json::Value {
    let lanes: Vec<String> = r["lanes"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|l| {
            format!(
                "{} {}",
                l["id"].as_str().unwrap_or(""),
                l["outcome"].as_str().unwrap_or("")
            )
        })
        .collect();
    serde_json::json!({
        "verdict": r["verdict"],
        "gate": r["gate"],
        "gate_reasons": r["gate_reasons"],
        "actions": r["actions"],
        "risk_tier": r["facts"]["risk_tier"],
        "signals": r["facts"]["signals"],
        "rigor": r["rigor"],
        "lanes": lanes,
    })
}

#[test]
fn verification_and_verdict_of_every_example() {
    for example in [
        "docs-only.patch",
        "secret-and-unwrap.patch",
        "multi-file.patch",
    ] {
        let r = review(example);
        let name = example.trim_end_matches(".patch");
        insta::assert_json_snapshot!(format!("{name}-verification"), verification(&r));
        insta::assert_json_snapshot!(format!("{name}-verdict"), verdict(&r));
    }
}
