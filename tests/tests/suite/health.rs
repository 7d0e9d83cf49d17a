//! Health that tells the truth: the coordinator's gRPC health is
//! `NOT_SERVING` while its Redis does not answer and `SERVING` again once
//! it does, for the review service and for the server as a whole; and
//! `/readyz` of a worker and of a coordinator answers 503, then 200 again.

use revu_tests::{Cluster, RedisServer};
use std::time::{Duration, Instant};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

const SERVICE: &str = "revu.v1.ReviewService";

/// Polls the health of `service` until it is `wanted`, for at most 20 s.
async fn until(endpoint: &str, service: &str, wanted: ServingStatus) {
    let started = Instant::now();
    let mut last = None;
    loop {
        let channel = tonic::transport::Channel::from_shared(endpoint.to_owned())
            .unwrap_or_else(|e| panic!("{endpoint}: {e}"))
            .connect()
            .await;
        if let Ok(channel) = channel {
            let mut client = HealthClient::new(channel);
            let asked = client
                .check(HealthCheckRequest {
                    service: service.to_owned(),
                })
                .await;
            last = Some(asked.map(|r| r.into_inner().status));
            if matches!(&last, Some(Ok(s)) if *s == wanted as i32) {
                return;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{service:?} never became {wanted:?}; last answer {last:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[test]
fn health_follows_redis_down_and_back() {
    let mut cluster = Cluster::start_coordinator_only(RedisServer::start_own(), &[]);
    let endpoint = cluster.endpoint();
    let rt = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    for service in [SERVICE, ""] {
        rt.block_on(until(&endpoint, service, ServingStatus::Serving));
    }
    cluster.redis.stop();
    for service in [SERVICE, ""] {
        rt.block_on(until(&endpoint, service, ServingStatus::NotServing));
    }
    cluster.redis.start_again();
    for service in [SERVICE, ""] {
        rt.block_on(until(&endpoint, service, ServingStatus::Serving));
    }
}

/// Polls `GET /readyz` on `addr` until it answers `wanted`, for at most 20 s.
fn ready_until(addr: &str, wanted: u16) {
    let started = Instant::now();
    loop {
        let got = revu_tests::scrape::status(addr, "/readyz");
        if got == Ok(wanted) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "/readyz on {addr} never answered {wanted}; last {got:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn readiness_of_workers_and_coordinators_follows_redis_down_and_back() {
    let mut cluster = Cluster::start_coordinator_only(
        RedisServer::start_own(),
        &["--metrics-listen", "127.0.0.1:0"],
    );
    let coordinator = cluster.coordinator.announced("metrics serving");
    let worker = cluster.add_worker(&["--metrics-listen", "127.0.0.1:0"]);
    let worker = cluster.workers[worker].announced("metrics serving");
    for addr in [&coordinator, &worker] {
        ready_until(addr, 200);
    }
    cluster.redis.stop();
    for addr in [&coordinator, &worker] {
        ready_until(addr, 503);
    }
    cluster.redis.start_again();
    for addr in [&coordinator, &worker] {
        ready_until(addr, 200);
    }
}
