//! One trace per review across processes: a coordinator and a worker, each
//! its own process, export spans over OTLP to a receiver in this test.

use revu_domain::telemetry::names::{attr, span};
use revu_tests::otlp::{OtlpReceiver, ReceivedSpan};
use revu_tests::{Client, Cluster, RedisServer, example, fault_engine};
use std::time::Duration;

const CLIENT_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";
/// OTLP span kinds.
const SERVER: i32 = 2;
const PRODUCER: i32 = 4;
const CONSUMER: i32 = 5;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("runtime: {e}"))
}

fn env(pairs: &[(String, String)]) -> Vec<(&str, &str)> {
    pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

fn named<'a>(spans: &'a [ReceivedSpan], name: &str) -> Vec<&'a ReceivedSpan> {
    spans.iter().filter(|s| s.name == name).collect()
}

fn of_lane<'a>(spans: &[&'a ReceivedSpan], lane: &str) -> Vec<&'a ReceivedSpan> {
    spans
        .iter()
        .copied()
        .filter(|s| s.attr(attr::LANE_ID) == Some(lane))
        .collect()
}

#[test]
fn a_review_is_one_trace_from_the_caller_through_every_worker_attempt() {
    let rt = runtime();
    let receiver = rt.block_on(OtlpReceiver::start());
    let coordinator_env = receiver.env("revu-coordinator");
    let worker_env = receiver.env("revu-worker");
    // domain lanes fail on every attempt (two allowed): retried, then faulted;
    // the specialist lanes run the rules engine and complete.
    let mut cluster = Cluster::start_coordinator_only_with_env(
        RedisServer::start(),
        &[
            "--lane-engine",
            "domain:*=flaky",
            "--engine-retry",
            "flaky=2:50",
        ],
        &env(&coordinator_env),
    );
    let failing = format!("flaky={}", fault_engine("fail"));
    cluster.add_worker_with_env(&["--exec-engine", &failing], &env(&worker_env));

    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let diff = std::fs::read(example("secret-and-unwrap.patch"))
        .unwrap_or_else(|e| panic!("example: {e}"));
    let traceparent = format!("00-{CLIENT_TRACE}-{CLIENT_SPAN}-01");
    let id = rt
        .block_on(client.submit_traced(diff, &traceparent))
        .unwrap_or_else(|e| panic!("submit: {e}"));
    let done = rt.block_on(client.wait_terminal(&id, Duration::from_secs(60)));
    assert!(
        done.report_json.contains("PIPELINE-FAULT"),
        "{}",
        done.report_json
    );

    let spans = rt.block_on(receiver.wait_for(
        Duration::from_secs(30),
        "finalize span and four worker attempts",
        |spans| {
            !named(spans, span::RENDER).is_empty()
                && named(spans, span::PROCESS).len() >= 4
                && named(spans, span::GATHER).len() >= 4
        },
    ));

    // One trace: the caller's, through both processes.
    let review: Vec<&ReceivedSpan> = spans
        .iter()
        .filter(|s| s.trace_id == CLIENT_TRACE)
        .collect();
    let strays: Vec<String> = spans
        .iter()
        .filter(|s| s.trace_id != CLIENT_TRACE)
        .map(|s| format!("{} {}", s.service, s.name))
        .collect();
    assert!(
        strays.is_empty(),
        "spans outside the review's trace: {strays:?}"
    );
    for name in span::ALL {
        assert!(!named(&spans, name).is_empty(), "no {name} span");
    }
    // Stages 1-4 nest under the prepare span, the verdict under verify.
    let prepare = named(&spans, span::PREPARE)[0];
    for stage in [span::FACTS, span::GROUPING, span::EXACT_COVER, span::PLAN] {
        assert_eq!(
            named(&spans, stage)[0].parent_span_id,
            prepare.span_id,
            "{stage} under prepare"
        );
    }
    let verify = named(&spans, span::VERIFY)[0];
    assert_eq!(
        named(&spans, span::VERDICT)[0].parent_span_id,
        verify.span_id
    );
    let submit = named(&spans, span::SUBMIT)[0];
    assert_eq!(
        submit.parent_span_id, CLIENT_SPAN,
        "the caller's span is the parent"
    );
    assert_eq!(submit.kind, SERVER);
    assert_eq!(submit.attr(attr::REVIEW_ID), Some(id.as_str()));
    assert!(review.iter().any(|s| s.service == "revu-coordinator"));
    assert!(review.iter().any(|s| s.service == "revu-worker"));

    // Every attempt's parent is the producer span that dispatched it.
    let producers = named(&spans, span::PUBLISH);
    let attempts = named(&spans, span::PROCESS);
    for attempt in &attempts {
        assert_eq!(attempt.service, "revu-worker");
        assert_eq!(attempt.kind, CONSUMER);
        let parent = producers
            .iter()
            .find(|p| p.span_id == attempt.parent_span_id)
            .unwrap_or_else(|| panic!("attempt {:?} has no producer parent", attempt.attributes));
        assert_eq!(parent.kind, PRODUCER);
        assert_eq!(parent.service, "revu-coordinator");
        for key in [attr::LANE_ID, attr::ATTEMPT, attr::REVIEW_ID] {
            assert_eq!(parent.attr(key), attempt.attr(key), "{key}");
        }
        for key in [
            attr::LANE_KIND,
            attr::ENGINE,
            attr::WORKER,
            attr::MESSAGING_DESTINATION,
            attr::MESSAGING_MESSAGE_ID,
            attr::OUTCOME,
        ] {
            assert!(attempt.attr(key).is_some(), "attempt without {key}");
        }
        assert_eq!(attempt.attr(attr::MESSAGING_SYSTEM), Some("redis"));
        assert_eq!(attempt.attr(attr::MESSAGING_GROUP), Some("workers"));
        assert!(
            attempt.attr(attr::LANE_DOMAIN).is_some()
                || attempt.attr(attr::LANE_DIMENSION).is_some(),
            "attempt without its domain or dimension"
        );
    }

    // The retried lane shows two attempts; both failed, and the lane faulted.
    let core = of_lane(&attempts, "domain:core");
    let mut tries: Vec<&str> = core.iter().filter_map(|s| s.attr(attr::ATTEMPT)).collect();
    tries.sort_unstable();
    assert_eq!(tries, ["1", "2"], "{core:#?}");
    for a in &core {
        assert_eq!(a.attr(attr::OUTCOME), Some("failed"));
        assert_eq!(a.attr(attr::ENGINE), Some("flaky"));
        assert_eq!(a.attr(attr::LANE_KIND), Some("domain"));
        assert_eq!(a.attr(attr::LANE_DOMAIN), Some("core"));
        assert!(
            a.attr(attr::FAULT_REASON)
                .is_some_and(|r| r.contains("simulated outage")),
            "{a:?}"
        );
        assert_eq!(a.attr(attr::FAULT_CLASS), Some("engine_error"));
    }
    let gathered = named(&spans, span::GATHER);
    let faulted = of_lane(&gathered, "domain:core")
        .into_iter()
        .find(|g| g.attr(attr::OUTCOME) == Some("pipeline_fault"))
        .unwrap_or_else(|| panic!("no gather span settled domain:core as faulted"));
    assert!(
        faulted
            .attr(attr::FAULT_REASON)
            .is_some_and(|r| r.contains("simulated outage"))
    );
    assert!(
        of_lane(&gathered, "domain:core")
            .iter()
            .any(|g| g.attr(attr::STEP) == Some("retry")),
        "the first failure was retried"
    );

    // A clean lane: one attempt, reported, settled complete.
    let testing = of_lane(&attempts, "specialist:testing");
    assert_eq!(testing.len(), 1);
    assert_eq!(testing[0].attr(attr::OUTCOME), Some("reported"));
    assert_eq!(testing[0].attr(attr::LANE_DIMENSION), Some("testing"));
    assert!(testing[0].attr(attr::FINDINGS).is_some());

    let verify = named(&spans, span::VERIFY)[0];
    assert_eq!(verify.attr(attr::GATE), Some("NEEDS-HUMAN"));
}
