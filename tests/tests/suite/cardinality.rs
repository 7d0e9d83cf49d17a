//! A submitter cannot inflate the Prometheus that scrapes the fleet: a
//! thousand reviews, each with a `revu.toml` naming a domain no review
//! named before, leave each endpoint's series count under the bound the
//! binaries state (`max_series`), with the domains past the cap counted
//! under one `lane` value.

use revu_coordinator::metrics::CoordinatorMetrics;
use revu_proto::v1 as pb;
use revu_runtime::metrics::{MAX_DOMAIN_LABELS, OTHER_DOMAINS};
use revu_tests::scrape::{sample, scrape};
use revu_tests::{Client, Cluster, RedisServer, example};
use revu_worker::metrics::WorkerMetrics;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

const REVIEWS: usize = 1000;
/// Reviews submitted before waiting for them to finish.
const BATCH: usize = 100;

/// Sample lines of a scrape: its series.
fn series(body: &str) -> usize {
    body.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .count()
}

/// The `lane` values of domain lanes in a scrape.
fn domain_lanes(body: &str) -> BTreeSet<String> {
    body.lines()
        .filter(|l| l.contains("lane_kind=\"domain\""))
        .filter_map(|l| {
            let at = l.find("lane=\"")? + "lane=\"".len();
            let end = l[at..].find('"')?;
            Some(l[at..at + end].to_owned())
        })
        .collect()
}

#[test]
fn a_thousand_new_domains_leave_every_endpoint_under_its_series_bound() {
    let rt = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("runtime: {e}"));
    let mut cluster =
        Cluster::start_coordinator_only(RedisServer::start(), &["--metrics-listen", "127.0.0.1:0"]);
    let coordinator = cluster.coordinator.announced("metrics serving");
    let worker = cluster.add_worker(&["--metrics-listen", "127.0.0.1:0"]);
    let worker = cluster.workers[worker].announced("metrics serving");
    let idle = (
        series(&scrape(&coordinator).unwrap_or_default()),
        series(&scrape(&worker).unwrap_or_default()),
    );
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let diff = std::fs::read(example("secret-and-unwrap.patch"))
        .unwrap_or_else(|e| panic!("example: {e}"));
    let started = Instant::now();
    for batch in 0..REVIEWS / BATCH {
        let mut ids = Vec::with_capacity(BATCH);
        for i in batch * BATCH..(batch + 1) * BATCH {
            let request = pb::SubmitReviewRequest {
                diff: diff.clone().into(),
                repo_config: format!(
                    "[[grouping.domain]]\nname = \"team-{i}\"\nglobs = [\"src/**\"]\n"
                ),
                ..Default::default()
            };
            ids.push(
                rt.block_on(client.submit_request(request))
                    .unwrap_or_else(|e| panic!("review {i}: {e}")),
            );
        }
        for id in ids {
            rt.block_on(client.wait_terminal(&id, Duration::from_secs(120)));
        }
    }
    // Counters follow the last event by a moment.
    loop {
        let done = scrape(&coordinator)
            .ok()
            .and_then(|b| sample(&b, "revu_reviews_finished_total", &[]));
        if done == Some(REVIEWS as f64) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "{done:?} of {REVIEWS} reviews finished"
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    // One engine (the rules) serves every lane; no tenants, no models.
    let bounds = [
        (
            "coordinator",
            &coordinator,
            CoordinatorMetrics::max_series(1, 0),
        ),
        ("worker", &worker, WorkerMetrics::max_series(1, 0)),
    ];
    for (what, addr, bound) in bounds {
        let body = scrape(addr).unwrap_or_else(|e| panic!("{what}: {e}"));
        let count = series(&body);
        let lanes = domain_lanes(&body);
        println!(
            "{what}: {count} series under load ({} at idle), bound {bound}",
            if what == "coordinator" {
                idle.0
            } else {
                idle.1
            }
        );
        assert!(count <= bound, "{what}: {count} series, bound {bound}");
        assert!(
            lanes.len() <= MAX_DOMAIN_LABELS + 1 && lanes.contains(OTHER_DOMAINS),
            "{what}: domain lanes {lanes:?}"
        );
    }
    drop(cluster);
}
