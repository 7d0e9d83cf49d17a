//! A shared coordinator: bearer tokens per tenant from a tokens file,
//! reviews, idempotency keys, watches and cancels scoped to the tenant,
//! per-tenant quotas, and the CLI's answer to a refusal.

use revu_coordinator::auth::token_digest;
use revu_tests::bins::submit_example;
use revu_tests::scrape::{sample, scrape};
use revu_tests::{Client, Cluster, RedisServer, bin, example};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tonic::Code;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

const ALPHA: &str = "alpha-token-7f3c";
const BRAVO: &str = "bravo-token-19ad";
const CHARLIE: &str = "charlie-token-5e21";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("runtime: {e}"))
}

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("revu-tenants-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn tokens_file(dir: &Path, tenants: &[(&str, &str)]) -> PathBuf {
    let mut text = String::from("# tenant  sha256(token)\n");
    for (tenant, token) in tenants {
        text.push_str(&format!("{tenant} {}\n", token_digest(token)));
    }
    let path = dir.join("tokens");
    write(&path, &text);
    path
}

fn diff() -> Vec<u8> {
    std::fs::read(example("secret-and-unwrap.patch")).unwrap_or_else(|e| panic!("example: {e}"))
}

fn code<T: std::fmt::Debug>(r: Result<T, tonic::Status>) -> Code {
    match r {
        Ok(v) => panic!("expected a refusal, got {v:?}"),
        Err(s) => s.code(),
    }
}

#[test]
fn tenants_see_only_their_own_reviews_and_no_token_sees_nothing() {
    let rt = runtime();
    let dir = scratch("scope");
    let tokens = tokens_file(&dir, &[("team-a", ALPHA), ("team-b", BRAVO)]);
    let tokens_arg = tokens.to_string_lossy().into_owned();
    let mut cluster = Cluster::start(
        RedisServer::start(),
        1,
        &[
            "--tokens-file",
            &tokens_arg,
            "--metrics-listen",
            "127.0.0.1:0",
        ],
    );
    let metrics = cluster.coordinator.announced("metrics serving");
    let endpoint = format!("http://{}", cluster.addr);
    let within = Duration::from_secs(10);
    let mut a = rt.block_on(Client::connect_as(&endpoint, Some(ALPHA), within));
    let mut b = rt.block_on(Client::connect_as(&endpoint, Some(BRAVO), within));
    let mut nobody = rt.block_on(Client::connect_as(&endpoint, None, within));
    let mut forger = rt.block_on(Client::connect_as(&endpoint, Some("guessed"), within));

    // Tenant A submits and reads its review.
    let id = rt
        .block_on(a.submit(diff(), "ci-1"))
        .unwrap_or_else(|e| panic!("team-a submit: {e}"));
    let done = rt.block_on(a.wait_terminal(&id, Duration::from_secs(60)));
    assert_eq!(done.state, revu_proto::v1::ReviewState::Finished as i32);
    let report: serde_json::Value =
        serde_json::from_str(&done.report_json).unwrap_or_else(|e| panic!("report: {e}"));
    assert_eq!(report["review_id"], id.as_str(), "the id its client knows");
    assert!(rt.block_on(a.watch_first(&id)).is_ok());

    // Tenant B cannot tell A's review from one that never existed.
    let unknown = "0193a6f0-0000-7000-8000-000000000000";
    for probe in [id.as_str(), unknown] {
        assert_eq!(
            code(rt.block_on(b.get(probe))),
            Code::NotFound,
            "get {probe}"
        );
        assert_eq!(
            code(rt.block_on(b.watch_first(probe))),
            Code::NotFound,
            "watch {probe}"
        );
        assert_eq!(
            code(rt.block_on(b.cancel(probe))),
            Code::NotFound,
            "cancel {probe}"
        );
    }
    let said = |r: Result<revu_proto::v1::GetReviewResponse, tonic::Status>| {
        r.err().map(|s| {
            s.message()
                .replace(id.as_str(), "ID")
                .replace(unknown, "ID")
        })
    };
    assert_eq!(
        said(rt.block_on(b.get(&id))),
        said(rt.block_on(b.get(unknown)))
    );
    // A's review is untouched by B's cancel.
    let still = rt
        .block_on(a.get(&id))
        .unwrap_or_else(|e| panic!("get: {e}"));
    assert_eq!(still.state, revu_proto::v1::ReviewState::Finished as i32);

    // Idempotency keys are the tenant's own: B's "ci-1" is another review.
    let theirs = rt
        .block_on(b.submit(diff(), "ci-1"))
        .unwrap_or_else(|e| panic!("team-b submit: {e}"));
    assert_ne!(theirs, id);
    let again = rt
        .block_on(a.submit(diff(), "ci-1"))
        .unwrap_or_else(|e| panic!("team-a resubmit: {e}"));
    assert_eq!(again, id);

    // No token, or a wrong one: UNAUTHENTICATED on every call.
    for client in [&mut nobody, &mut forger] {
        assert_eq!(
            code(rt.block_on(client.submit(diff(), ""))),
            Code::Unauthenticated
        );
        assert_eq!(code(rt.block_on(client.get(&id))), Code::Unauthenticated);
        assert_eq!(
            code(rt.block_on(client.watch_first(&id))),
            Code::Unauthenticated
        );
        assert_eq!(code(rt.block_on(client.cancel(&id))), Code::Unauthenticated);
    }

    // Health stays open.
    let status = rt.block_on(async {
        let channel = tonic::transport::Channel::from_shared(endpoint.clone())
            .unwrap_or_else(|e| panic!("{e}"))
            .connect()
            .await
            .unwrap_or_else(|e| panic!("connect: {e}"));
        HealthClient::new(channel)
            .check(HealthCheckRequest {
                service: "revu.v1.ReviewService".into(),
            })
            .await
            .map(|r| r.into_inner().status)
    });
    assert_eq!(status.ok(), Some(ServingStatus::Serving as i32));

    // The CLI: refused without a token (exit 2, saying so), served with one.
    let refused = submit_example(&endpoint, &[], &[]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unauthenticated"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    let token_file = dir.join("alpha");
    write(&token_file, &format!("{ALPHA}\n"));
    let token_arg = token_file.to_string_lossy().into_owned();
    for (args, env) in [
        (vec!["--token-file", token_arg.as_str()], vec![]),
        (vec![], vec![("REVU_TOKEN", BRAVO)]),
    ] {
        let served = submit_example(&endpoint, &args, &env);
        let stderr = String::from_utf8_lossy(&served.stderr);
        assert!(
            matches!(served.status.code(), Some(0 | 1)),
            "{args:?} {env:?}: {stderr}"
        );
        let report: serde_json::Value = serde_json::from_slice(&served.stdout)
            .unwrap_or_else(|e| panic!("report on stdout: {e}: {stderr}"));
        assert!(report["verdict"].is_string(), "{report}");
    }

    // A tenant added to the file is let in without a restart.
    tokens_file(
        &dir,
        &[("team-a", ALPHA), ("team-b", BRAVO), ("team-c", CHARLIE)],
    );
    let mut c = rt.block_on(Client::connect_as(&endpoint, Some(CHARLIE), within));
    let started = Instant::now();
    loop {
        match rt.block_on(c.get(unknown)) {
            Err(s) if s.code() == Code::NotFound => break,
            other => assert!(
                started.elapsed() < Duration::from_secs(15),
                "team-c still refused after the tokens file changed: {other:?}"
            ),
        }
        std::thread::sleep(Duration::from_millis(200));
    }

    // Metrics by tenant, and the refusals.
    let body = scrape(&metrics).unwrap_or_else(|e| panic!("metrics: {e}"));
    let submitted = |t| {
        sample(
            &body,
            "revu_tenant_reviews_submitted_total",
            &[("tenant", t)],
        )
    };
    assert_eq!(submitted("team-a"), Some(2.0), "{body}");
    assert_eq!(submitted("team-b"), Some(2.0), "{body}");
    assert!(
        sample(&body, "revu_unauthenticated_calls_total", &[]).is_some_and(|n| n >= 9.0),
        "{body}"
    );
    drop(cluster);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The minute of the clock now: the submissions quota counts per minute
/// of the coordinator's clock, which is this machine's.
fn minute_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 60)
        .unwrap_or_default()
}

#[test]
fn quotas_answer_resource_exhausted_naming_the_quota_and_its_flag() {
    let rt = runtime();
    let dir = scratch("quota");
    let tokens = tokens_file(&dir, &[("team-a", ALPHA), ("team-b", BRAVO)]);
    let tokens_arg = tokens.to_string_lossy().into_owned();
    let bytes = diff().len();
    let per_day = (bytes * 5 / 2).to_string();
    // No worker: every review stays in flight.
    let cluster = Cluster::start_coordinator_only(
        RedisServer::start(),
        &[
            "--tokens-file",
            &tokens_arg,
            "--tenant-max-inflight",
            "2",
            "--tenant-submissions-per-minute",
            "3",
            "--tenant-diff-bytes-per-day",
            &per_day,
        ],
    );
    let endpoint = cluster.endpoint();
    let within = Duration::from_secs(10);
    let mut a = rt.block_on(Client::connect_as(&endpoint, Some(ALPHA), within));
    let mut b = rt.block_on(Client::connect_as(&endpoint, Some(BRAVO), within));
    let refusal = |r: Result<String, tonic::Status>| match r {
        Ok(id) => panic!("accepted {id}; expected RESOURCE_EXHAUSTED"),
        Err(s) => {
            assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
            s.message().to_owned()
        }
    };
    let minute = minute_now();
    let first = rt
        .block_on(a.submit(diff(), "k1"))
        .unwrap_or_else(|e| panic!("k1: {e}"));
    // A retry under a key already held is answered, and costs nothing.
    let retried = rt
        .block_on(a.submit(diff(), "k1"))
        .unwrap_or_else(|e| panic!("k1 again: {e}"));
    assert_eq!(retried, first);
    rt.block_on(a.submit(diff(), "k2"))
        .unwrap_or_else(|e| panic!("k2: {e}"));
    let said = refusal(rt.block_on(a.submit(diff(), "k3")));
    assert!(
        said.contains("team-a")
            && said.contains("max-inflight")
            && said.contains("--tenant-max-inflight"),
        "{said}"
    );
    // Another tenant is not held back by team-a's quota.
    rt.block_on(b.submit(diff(), "k1"))
        .unwrap_or_else(|e| panic!("team-b: {e}"));
    rt.block_on(a.cancel(&first))
        .unwrap_or_else(|e| panic!("cancel: {e}"));
    let said = refusal(rt.block_on(a.submit(diff(), "k4")));
    assert!(
        said.contains("diff-bytes-per-day") && said.contains("--tenant-diff-bytes-per-day"),
        "{said}"
    );
    let said = refusal(rt.block_on(a.submit(diff(), "k5")));
    if minute_now() == minute {
        assert!(
            said.contains("submissions-per-minute reached (3 used of 3)")
                && said.contains("--tenant-submissions-per-minute"),
            "{said}"
        );
    } else {
        // A minute began while they were counted, and counted afresh: the
        // day's bytes may be what refused it. How the windows count is
        // tested on paused time, beside the coordinator's admission.
        assert!(
            said.contains("--tenant-submissions-per-minute")
                || said.contains("--tenant-diff-bytes-per-day"),
            "{said}"
        );
    }
    // What was accepted before is all still there.
    let kept = rt
        .block_on(a.get(&first))
        .unwrap_or_else(|e| panic!("get: {e}"));
    assert_eq!(kept.state, revu_proto::v1::ReviewState::Cancelled as i32);
    // The CLI names the quota too.
    let token_file = dir.join("alpha");
    write(&token_file, ALPHA);
    let token_arg = token_file.to_string_lossy().into_owned();
    let out = submit_example(&endpoint, &["--token-file", &token_arg], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("quota"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_coordinator_beyond_loopback_without_tokens_refuses_to_start() {
    let out = Command::new(bin("revu-coordinator"))
        .args(["--listen", "0.0.0.0:0", "--redis", "redis://127.0.0.1:1"])
        .env_remove("REVU_TOKENS_FILE")
        .env_remove("REVU_ALLOW_UNAUTHENTICATED")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("running revu-coordinator: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("without authentication")
            && stderr.contains("--tokens-file")
            && stderr.contains("--allow-unauthenticated"),
        "{stderr}"
    );
}
