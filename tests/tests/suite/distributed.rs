//! Coordinator + two workers + a real redis-server: `revu submit` gives the
//! same verdict and findings as the one-process `revu review`.

use revu_tests::{Cluster, RedisServer, bin, example};
use serde_json::Value;
use std::process::{Command, Output};

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"))
}

fn report(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "report is not JSON ({e}); stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The parts of a report that must not depend on where it ran.
fn comparable(mut r: Value) -> Value {
    if let Some(obj) = r.as_object_mut() {
        obj.remove("review_id");
        // What the fleet's lane result cache did is the fleet's, not the
        // review's: the embedded mode keeps no cache.
        if let Some(Value::Array(lanes)) = obj.get_mut("lanes") {
            for lane in lanes {
                if let Some(lane) = lane.as_object_mut() {
                    lane.remove("cache");
                }
            }
        }
    }
    r
}

#[test]
fn distributed_review_matches_embedded_review() {
    let cluster = Cluster::start(RedisServer::start(), 2, &[]);
    let patch = example("multi-file.patch");

    let submitted = run(Command::new(bin("revu"))
        .arg("submit")
        .arg("--diff")
        .arg(&patch)
        .arg("--format")
        .arg("json")
        .arg("--coordinator")
        .arg(cluster.endpoint()));
    let embedded = run(Command::new(bin("revu"))
        .arg("review")
        .arg("--diff")
        .arg(&patch)
        .arg("--format")
        .arg("json"));

    let stderr = String::from_utf8_lossy(&submitted.stderr);
    assert_eq!(
        submitted.status.code(),
        Some(1),
        "submit: NEEDS-HUMAN expected; stderr:\n{stderr}"
    );
    assert_eq!(embedded.status.code(), Some(1));
    assert!(
        stderr.contains("dispatched"),
        "progress on stderr: {stderr}"
    );
    assert!(
        stderr.contains("verdict REQUEST CHANGES"),
        "verdict on stderr: {stderr}"
    );

    let (dist, emb) = (report(&submitted), report(&embedded));
    assert_eq!(dist["verdict"], "REQUEST CHANGES");
    assert_eq!(dist["gate"], "NEEDS-HUMAN");
    let findings = dist["findings"].as_array().map(Vec::len).unwrap_or(0);
    assert!(
        findings >= 5,
        "expected the example's findings, got {findings}"
    );
    let lanes = dist["lanes"].as_array().cloned().unwrap_or_default();
    assert!(lanes.len() >= 4, "several lanes ran");
    assert!(
        lanes.iter().all(|l| l["outcome"] == "COMPLETE"),
        "every lane complete: {lanes:?}"
    );
    assert_eq!(
        comparable(dist),
        comparable(emb),
        "distributed and embedded reports differ"
    );
}

#[test]
fn citations_are_exact_and_nothing_stays_pending() {
    let cluster = Cluster::start(RedisServer::start(), 2, &[]);
    let out = run(Command::new(bin("revu"))
        .arg("submit")
        .arg("--diff")
        .arg(example("secret-and-unwrap.patch"))
        .arg("--format")
        .arg("json")
        .arg("--coordinator")
        .arg(cluster.endpoint()));
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = report(&out);
    let cited: Vec<String> = r["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|f| format!("{}:{}", f["file"].as_str().unwrap_or(""), f["line"]))
        .collect();
    assert!(
        cited.contains(&"src/billing/client.rs:3".to_owned()),
        "{cited:?}"
    );
    assert!(
        cited.contains(&"src/billing/client.rs:16".to_owned()),
        "{cited:?}"
    );

    // Every job acknowledged: no pending entries on either stream. The
    // result entry is acknowledged just after the report is stored, so allow
    // it a moment.
    let client = redis::Client::open(cluster.redis.url.as_str()).unwrap_or_else(|e| panic!("{e}"));
    let mut conn = client.get_connection().unwrap_or_else(|e| panic!("{e}"));
    let layout = cluster.redis.layout();
    let streams = revu_queue::redis::layout::shards().flat_map(|s| {
        [
            (layout.jobs(s, "rules"), "workers"),
            (layout.sharded(s, "results"), "coordinators"),
        ]
    });
    for (key, group) in streams {
        let mut pending = pending_count(&mut conn, &key, group);
        for _ in 0..50 {
            if pending == 0 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            pending = pending_count(&mut conn, &key, group);
        }
        assert_eq!(pending, 0, "pending entries left on {key}");
    }
}

/// The pending count of `group` on `key` (the first element of `XPENDING`).
fn pending_count(conn: &mut redis::Connection, key: &str, group: &str) -> u64 {
    let summary: redis::Value = redis::cmd("XPENDING")
        .arg(key)
        .arg(group)
        .query(conn)
        .unwrap_or_else(|e| panic!("XPENDING {key}: {e}"));
    match &summary {
        redis::Value::Array(items) => items
            .first()
            .and_then(|v| redis::from_redis_value_ref::<u64>(v).ok())
            .unwrap_or_else(|| panic!("unexpected XPENDING reply {summary:?}")),
        other => panic!("unexpected XPENDING reply {other:?}"),
    }
}
