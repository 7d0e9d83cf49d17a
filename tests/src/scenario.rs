//! A review scenario for the fault and lifecycle tests: a cluster, a client
//! and a runtime to drive it from a plain `#[test]`.

use crate::client::Client;
use crate::{Cluster, RedisServer, example};
use revu_proto::v1 as pb;
use revu_proto::v1::review_event::Kind;
use serde_json::Value;
use std::time::Duration;

/// A running cluster with a connected client.
#[derive(Debug)]
pub struct Scenario {
    pub rt: tokio::runtime::Runtime,
    pub cluster: Cluster,
    pub client: Client,
}

impl Scenario {
    /// A coordinator with `coordinator_args` on a fresh Redis, and one
    /// worker per entry of `workers` (each that worker's extra flags).
    pub fn start(coordinator_args: &[&str], workers: &[&[&str]]) -> Scenario {
        Self::start_on(RedisServer::start(), coordinator_args, workers)
    }

    /// Like [`Scenario::start`], on the given Redis.
    pub fn start_on(
        redis: RedisServer,
        coordinator_args: &[&str],
        workers: &[&[&str]],
    ) -> Scenario {
        let rt = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("runtime: {e}"));
        let mut cluster = Cluster::start_coordinator_only(redis, coordinator_args);
        for args in workers {
            cluster.add_worker(args);
        }
        let client = rt.block_on(Client::connect(
            &cluster.endpoint(),
            Duration::from_secs(10),
        ));
        Scenario {
            rt,
            cluster,
            client,
        }
    }

    /// Connects the client again (after a coordinator restart).
    pub fn reconnect(&mut self) {
        self.client = self.rt.block_on(Client::connect(
            &self.cluster.endpoint(),
            Duration::from_secs(10),
        ));
    }

    /// Submits `examples/<name>`; returns the review id.
    pub fn submit(&mut self, name: &str, key: &str) -> String {
        self.try_submit(name, key)
            .unwrap_or_else(|e| panic!("submit {name}: {e}"))
    }

    pub fn try_submit(&mut self, name: &str, key: &str) -> Result<String, tonic::Status> {
        self.rt
            .block_on(self.client.submit(example_diff(name), key))
    }

    /// Waits for the review's terminal state; returns the response.
    pub fn wait(&mut self, id: &str, within: Duration) -> pb::GetReviewResponse {
        self.rt.block_on(self.client.wait_terminal(id, within))
    }

    /// Waits for the review's report.
    pub fn report(&mut self, id: &str, within: Duration) -> Value {
        report_json(&self.wait(id, within))
    }

    /// Every event of a finished review.
    pub fn events(&mut self, id: &str) -> Vec<pb::ReviewEvent> {
        self.rt.block_on(self.client.events(id))
    }

    /// Waits until some lane of `id` has started.
    pub fn wait_lane_started(&mut self, id: &str) {
        let client = &mut self.client;
        let found = self.rt.block_on(async {
            tokio::time::timeout(
                Duration::from_secs(20),
                client.events_until(id, Kind::LaneStarted),
            )
            .await
        });
        assert!(
            matches!(found, Ok(true)),
            "no lane of {id} started within 20s"
        );
    }
}

/// The bytes of `examples/<name>`.
pub fn example_diff(name: &str) -> Vec<u8> {
    std::fs::read(example(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The canonical report a finished review carries.
pub fn report_json(r: &pb::GetReviewResponse) -> Value {
    serde_json::from_str(&r.report_json)
        .unwrap_or_else(|e| panic!("report JSON: {e}: {}", r.report_json))
}

/// Reviews the example `patch` on a fresh cluster (a coordinator with
/// `coordinator` flags, one worker with `worker` flags) and returns the
/// report, checked against the published report schema.
pub fn review_checked(
    patch: &str,
    coordinator: &[&str],
    worker: &[&str],
    within: Duration,
) -> Value {
    let mut s = Scenario::start(coordinator, &[worker]);
    let id = s.submit(patch, "");
    let report = s.report(&id, within);
    let schema: Value = serde_json::from_str(revu_domain::report_schema::REPORT_SCHEMA)
        .unwrap_or_else(|e| panic!("{e}"));
    let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{e}"));
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{report}");
    report
}

/// The report's lanes.
pub fn lanes(report: &Value) -> Vec<Value> {
    report["lanes"].as_array().cloned().unwrap_or_default()
}

/// The report's first lane (the only one of a docs-only change).
pub fn first_lane(report: &Value) -> Value {
    lanes(report).into_iter().next().unwrap_or_default()
}

/// The report without its review id, for comparing two runs.
pub fn without_id(mut report: Value) -> Value {
    if let Some(o) = report.as_object_mut() {
        o.remove("review_id");
    }
    report
}

/// `file:line` of every finding.
pub fn citations(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|f| format!("{}:{}", f["file"].as_str().unwrap_or(""), f["line"]))
        .collect()
}

/// How many events of `kind` there are.
pub fn count(events: &[pb::ReviewEvent], kind: Kind) -> usize {
    events
        .iter()
        .filter(|e| crate::client::kind(e) == kind)
        .count()
}
