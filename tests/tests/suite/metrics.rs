//! `/metrics` on a coordinator and a worker after a review with a clean, a
//! retried-then-faulted and a rules-engine lane.

use revu_tests::scrape::{sample, scrape};
use revu_tests::{Client, Cluster, RedisServer, example, fault_engine};
use std::time::{Duration, Instant};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("runtime: {e}"))
}

/// Scrapes `addr` until `ready` holds for the body (gauges are sampled,
/// counters follow the review's last event by a moment).
fn scrape_until(addr: &str, what: &str, ready: impl Fn(&str) -> bool) -> String {
    let started = Instant::now();
    loop {
        let body = scrape(addr);
        if let Ok(body) = &body
            && ready(body)
        {
            return body.clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{what} not on {addr} within 20s: {body:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn lane_histograms_and_counters_carry_lane_engine_outcome_and_reason() {
    let rt = runtime();
    // Both listen on a port they bind themselves, and say which.
    let mut cluster = Cluster::start_coordinator_only(
        RedisServer::start(),
        &[
            "--lane-engine",
            "domain:*=flaky",
            "--engine-retry",
            "flaky=2:50",
            "--metrics-listen",
            "127.0.0.1:0",
        ],
    );
    let coordinator_metrics = cluster.coordinator.announced("metrics serving");
    let failing = format!("flaky={}", fault_engine("fail"));
    let worker =
        cluster.add_worker(&["--exec-engine", &failing, "--metrics-listen", "127.0.0.1:0"]);
    let worker_metrics = cluster.workers[worker].announced("metrics serving");
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let diff = std::fs::read(example("secret-and-unwrap.patch"))
        .unwrap_or_else(|e| panic!("example: {e}"));
    let id = rt
        .block_on(client.submit(diff, ""))
        .unwrap_or_else(|e| panic!("submit: {e}"));
    rt.block_on(client.wait_terminal(&id, Duration::from_secs(60)));

    // The coordinator: one faulted domain lane (two attempts, one retry),
    // two complete specialist lanes, one review NEEDS-HUMAN.
    let c = scrape_until(&coordinator_metrics, "the finished review", |b| {
        sample(b, "revu_reviews_finished_total", &[]) == Some(1.0)
    });
    let faulted = [
        ("lane_kind", "domain"),
        ("lane", "core"),
        ("engine", "flaky"),
        ("outcome", "pipeline_fault"),
    ];
    assert_eq!(
        sample(&c, "revu_lane_duration_seconds_count", &faulted),
        Some(1.0),
        "{c}"
    );
    assert!(sample(&c, "revu_lane_duration_seconds_sum", &faulted).is_some_and(|s| s > 0.0));
    assert_eq!(
        sample(
            &c,
            "revu_lane_duration_seconds_bucket",
            &[("lane", "core"), ("le", "+Inf")]
        ),
        Some(1.0),
        "{c}"
    );
    let complete = [
        ("lane_kind", "specialist"),
        ("engine", "rules"),
        ("outcome", "complete"),
    ];
    assert_eq!(
        sample(&c, "revu_lane_duration_seconds_count", &complete),
        Some(2.0),
        "{c}"
    );
    assert_eq!(
        sample(
            &c,
            "revu_lane_duration_seconds_count",
            &[("lane", "testing")]
        ),
        Some(1.0)
    );
    // The engine's message speaks of a timeout and a cancellation; the
    // label is the kind its failure carries (an engine error: exit 1).
    let flaky_outage = [("engine", "flaky"), ("reason", "engine_error")];
    assert_eq!(
        sample(&c, "revu_lane_retries_total", &flaky_outage),
        Some(1.0),
        "{c}"
    );
    assert_eq!(
        sample(&c, "revu_lane_faults_total", &flaky_outage),
        Some(1.0),
        "{c}"
    );
    assert_eq!(
        sample(&c, "revu_dead_letters_total", &[("reason", "engine_error")]),
        Some(1.0),
        "{c}"
    );
    assert_eq!(
        sample(
            &c,
            "revu_reviews_finished_total",
            &[("gate", "NEEDS-HUMAN")]
        ),
        Some(1.0),
        "{c}"
    );
    assert_eq!(sample(&c, "revu_reviews_submitted_total", &[]), Some(1.0));
    for stage in ["prepare", "dispatch", "verify", "render"] {
        assert_eq!(
            sample(&c, "revu_stage_duration_seconds_count", &[("stage", stage)]),
            Some(1.0),
            "stage {stage}: {c}"
        );
    }
    // Gauges, sampled from Redis every few seconds: once a sample sees the
    // dead letter, nothing is left in flight or on the queue.
    let c = scrape_until(
        &coordinator_metrics,
        "a queue sample after the review",
        |b| sample(b, "revu_queue_dead_letter_length", &[]).is_some_and(|d| d >= 1.0),
    );
    assert_eq!(sample(&c, "revu_reviews_in_flight", &[]), Some(0.0), "{c}");
    // Per engine and shard: the flaky engine's stream in every shard,
    // summed.
    let flaky_queue = [("engine", "flaky"), ("group", "workers")];
    assert_eq!(
        sample(&c, "revu_queue_pending", &flaky_queue),
        Some(0.0),
        "{c}"
    );
    assert_eq!(
        sample(&c, "revu_queue_consumer_lag", &flaky_queue),
        Some(0.0),
        "{c}"
    );
    assert_eq!(
        sample(&c, "revu_queue_stream_length", &[("engine", "flaky")]),
        Some(0.0)
    );
    assert_eq!(
        sample(&c, "revu_queue_oldest_age_seconds", &[("engine", "rules")]),
        Some(0.0),
        "{c}"
    );
    assert_eq!(sample(&c, "revu_ready", &[]), Some(1.0), "{c}");

    // The worker: two failed attempts of the flaky lane, two reported ones.
    let w = scrape(&worker_metrics).unwrap_or_else(|e| panic!("worker metrics: {e}"));
    let failed = [("lane", "core"), ("engine", "flaky"), ("outcome", "failed")];
    assert_eq!(
        sample(&w, "revu_lane_attempt_duration_seconds_count", &failed),
        Some(2.0),
        "{w}"
    );
    assert_eq!(
        sample(
            &w,
            "revu_lane_attempt_duration_seconds_count",
            &[("lane_kind", "specialist"), ("outcome", "reported")]
        ),
        Some(2.0),
        "{w}"
    );
    assert_eq!(
        sample(&w, "revu_lane_attempt_failures_total", &flaky_outage),
        Some(2.0),
        "{w}"
    );
    assert_eq!(sample(&w, "revu_worker_lanes_running", &[]), Some(0.0));
    assert_eq!(sample(&w, "revu_ready", &[]), Some(1.0), "{w}");
}
