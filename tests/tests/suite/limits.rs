//! Input limits with named errors: a submission past a limit is refused
//! INVALID_ARGUMENT with the limit, its value and the flag that raises it,
//! `revu submit` says the same, a worker's oversized lane report faults its
//! lane naming its flag, and nothing accepted before is lost.

use revu_proto::v1 as pb;
use revu_tests::bins::submit_example;
use revu_tests::{Client, Cluster, RedisServer, fault_engine};
use std::time::Duration;
use tonic::Code;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("runtime: {e}"))
}

/// A diff adding `lines` lines to each of `files` new files.
fn diff(files: usize, lines: usize) -> Vec<u8> {
    let mut out = String::new();
    for f in 0..files {
        out.push_str(&format!(
            "diff --git a/src/f{f}.rs b/src/f{f}.rs\nnew file mode 100644\n--- /dev/null\n+++ b/src/f{f}.rs\n@@ -0,0 +1,{lines} @@\n"
        ));
        for l in 0..lines {
            out.push_str(&format!("+let v{l} = {l};\n"));
        }
    }
    out.into_bytes()
}

fn refused(r: Result<String, tonic::Status>, says: &[&str]) {
    match r {
        Ok(id) => panic!("accepted as {id}; expected a refusal saying {says:?}"),
        Err(s) => {
            assert_eq!(s.code(), Code::InvalidArgument, "{s:?}");
            for part in says {
                assert!(
                    s.message().contains(part),
                    "{part:?} not in {:?}",
                    s.message()
                );
            }
        }
    }
}

#[test]
fn submissions_past_a_limit_are_refused_naming_it_and_nothing_before_is_lost() {
    let rt = runtime();
    let cluster = Cluster::start(
        RedisServer::start(),
        1,
        &[
            "--max-diff-bytes",
            "6000",
            "--max-files",
            "3",
            "--max-file-lines",
            "40",
            "--max-head-file-bytes",
            "100",
            "--max-head-bytes",
            "150",
            "--max-index-bytes",
            "1000",
        ],
    );
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    // Accepted first; must survive every refusal after it.
    let kept = rt
        .block_on(client.submit(diff(1, 5), "kept"))
        .unwrap_or_else(|e| panic!("a diff within the limits: {e}"));

    refused(
        rt.block_on(client.submit(diff(1, 400), "")),
        &[
            "diff bytes is",
            "past the limit of 6000",
            "--max-diff-bytes",
        ],
    );
    refused(
        rt.block_on(client.submit(diff(4, 2), "")),
        &["changed files is 4", "past the limit of 3", "--max-files"],
    );
    refused(
        rt.block_on(client.submit(diff(1, 41), "")),
        &["changed lines of src/f0.rs is 41", "--max-file-lines"],
    );
    let head = |files: &[(&str, usize)]| pb::SubmitReviewRequest {
        diff: diff(1, 5).into(),
        head_files: files
            .iter()
            .map(|(path, bytes)| pb::HeadFile {
                path: (*path).to_owned(),
                content: vec![b'x'; *bytes],
            })
            .collect(),
        ..pb::SubmitReviewRequest::default()
    };
    refused(
        rt.block_on(client.submit_request(head(&[("src/f0.rs", 101)]))),
        &["head file src/f0.rs bytes is 101", "--max-head-file-bytes"],
    );
    refused(
        rt.block_on(client.submit_request(head(&[("a.rs", 80), ("b.rs", 80)]))),
        &[
            "head file bytes in all is 160",
            "past the limit of 150",
            "--max-head-bytes",
        ],
    );
    let indexed = |code_index: Vec<u8>| pb::SubmitReviewRequest {
        diff: diff(1, 5).into(),
        code_index,
        ..pb::SubmitReviewRequest::default()
    };
    refused(
        rt.block_on(client.submit_request(indexed(b"{\"stats\": 3".to_vec()))),
        &["code_index is not a valid code index"],
    );
    let mut padded = b"{\"stats\": {\"files\": 0}}".to_vec();
    padded.resize(1001, b' ');
    refused(
        rt.block_on(client.submit_request(indexed(padded))),
        &[
            "code index bytes is 1001",
            "past the limit of 1000",
            "--max-index-bytes",
        ],
    );

    // The CLI says the same, on one line, and exits 2.
    let big = std::env::temp_dir().join(format!("revu-limits-{}.patch", std::process::id()));
    let submit_file = |bytes: Vec<u8>| {
        std::fs::write(&big, bytes).unwrap_or_else(|e| panic!("{e}"));
        let out = std::process::Command::new(revu_tests::bin("revu"))
            .args(["submit", "--quiet", "--timeout", "30", "--diff"])
            .arg(&big)
            .arg("--coordinator")
            .arg(cluster.endpoint())
            .env_remove("REVU_COORDINATOR")
            .output()
            .unwrap_or_else(|e| panic!("revu submit: {e}"));
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        stderr
    };
    let stderr = submit_file(diff(1, 400));
    assert!(stderr.contains("--max-diff-bytes"), "{stderr}");
    // Past the gRPC message size (the diff, head and index limits plus
    // 1 MiB):
    // refused by the server's decoder, and the CLI names the limits.
    let stderr = submit_file(vec![b'+'; 1024 * 1024 + 8000]);
    assert!(
        stderr.contains("--max-diff-bytes plus --max-head-bytes"),
        "{stderr}"
    );
    let _ = std::fs::remove_file(&big);

    let done = rt.block_on(client.wait_terminal(&kept, Duration::from_secs(60)));
    assert_eq!(
        done.state,
        pb::ReviewState::Finished as i32,
        "the review accepted first"
    );
}

#[test]
fn a_review_planning_more_lanes_than_the_limit_is_refused_naming_it() {
    let rt = runtime();
    let cluster = Cluster::start_coordinator_only(RedisServer::start(), &["--max-lanes", "1"]);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    // A domain lane and the specialists a credential calls for.
    let example = std::fs::read(revu_tests::example("secret-and-unwrap.patch"))
        .unwrap_or_else(|e| panic!("example: {e}"));
    refused(
        rt.block_on(client.submit(example, "")),
        &["planned lanes is", "past the limit of 1", "--max-lanes"],
    );
}

#[test]
fn an_oversized_lane_report_faults_its_lane_naming_the_limit() {
    let mut cluster = Cluster::start_coordinator_only(
        RedisServer::start(),
        &[
            "--lane-engine",
            "domain:*=huge",
            "--max-report-bytes",
            "20000",
            "--lane-attempts",
            "1",
        ],
    );
    let huge = format!("huge={}", fault_engine("huge 50000"));
    cluster.add_worker(&["--exec-engine", &huge]);
    // One file, one domain lane, whose engine answers with 50 kB.
    let out = submit_example(&cluster.endpoint(), &[], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a faulted lane gates the verdict: {stderr}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("report: {e}: {stderr}"));
    let text = report.to_string();
    assert!(text.contains("--max-report-bytes"), "{report}");
    assert!(text.contains("past the limit of 20000"), "{report}");
}
