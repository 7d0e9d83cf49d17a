//! Worker throughput on a slow model server: how close a worker comes to
//! the ideal lanes/s when every request takes the server `DELAY`.
//!
//! A scripted OpenAI-compatible server on loopback answers each request
//! with a valid lane report after `DELAY`, any number at once. One worker
//! on the in-memory queue runs `LANES` lanes of the `llm` engine with `C`
//! lanes in flight, for C in 1, 8, 32, 64. The ideal is C lanes per DELAY;
//! the figure is the measured lanes/s over it, in the same run.
//!
//! `cargo bench -p revu-worker --bench llm_lanes` (`-- --lanes N
//! --delay-ms MS` to change the load).

use revu_domain::bundle::ReviewBundle;
use revu_domain::lane::{LaneJob, LaneKind, LaneSpec, ReviewId};
use revu_domain::review::{ReviewPlan, ReviewRecord};
use revu_queue::memory::MemoryBackend;
use revu_queue::{JobQueue, ReviewStore};
use revu_worker::engines::Engines;
use revu_worker::engines::llm::LlmSettings;
use revu_worker::engines::llm::wire::Provider;
use revu_worker::runner::Worker;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const PATCH: &[u8] = b"diff --git a/app.py b/app.py
--- a/app.py
+++ b/app.py
@@ -1,2 +1,2 @@
 import os
-x = 1
+x = eval(input())
";

/// The answer to every request: a clean report.
fn answer() -> String {
    let report = json!({
        "reviewed": ["app.py"], "checks": ["input handling"], "findings": [],
        "summary": "Nothing to report."
    });
    json!({
        "choices": [{"message": {"role": "assistant", "content": report.to_string()},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 40},
    })
    .to_string()
}

/// Answers every request after `delay`, on keep-alive connections; counts
/// the requests.
async fn slow_server(delay: Duration) -> Result<(String, Arc<AtomicUsize>), String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("binding the server: {e}"))?;
    let base = format!(
        "http://{}/v1",
        listener.local_addr().map_err(|e| e.to_string())?
    );
    let served = Arc::new(AtomicUsize::new(0));
    let count = served.clone();
    let body = Arc::new(answer());
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let (body, count) = (body.clone(), count.clone());
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = vec![0u8; 64 * 1024];
                loop {
                    // One request: its head, then content-length bytes.
                    let head_end = loop {
                        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            break i + 4;
                        }
                        match conn.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    };
                    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
                    let length: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    while buf.len() < head_end + length {
                        match conn.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                    buf.drain(..head_end + length);
                    tokio::time::sleep(delay).await;
                    count.fetch_add(1, Ordering::Relaxed);
                    let response = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{}",
                        body.len(),
                        body
                    );
                    if conn.write_all(response.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    Ok((base, served))
}

fn record(id: &ReviewId) -> ReviewRecord {
    ReviewRecord::running(id.clone(), ReviewPlan::default(), 1, u64::MAX)
}

/// Runs `lanes` llm lanes with `in_flight` at once against a server that
/// takes `delay` per request; the wall time from dispatch to the last
/// report.
async fn run(lanes: usize, in_flight: usize, delay: Duration) -> Result<Duration, String> {
    let (base, served) = slow_server(delay).await?;
    let settings = LlmSettings {
        provider: Some(Provider::Openai),
        base_url: Some(base),
        model: Some("bench".into()),
        max_output_tokens: Some(256),
        ..LlmSettings::default()
    };
    let mut engines = Engines::default();
    for engine in settings.engines().await.map_err(|e| e.to_string())? {
        engines = engines.with(Arc::new(engine));
    }
    let backend = MemoryBackend::new();
    let id = ReviewId::new();
    let jobs: Vec<LaneJob> = (0..lanes)
        .map(|i| {
            let spec = LaneSpec {
                id: format!("domain:d{i}"),
                kind: LaneKind::Domain {
                    domain: format!("d{i}"),
                },
                engine: "llm".into(),
                files: vec!["app.py".into()],
                guidance: vec![],
            };
            LaneJob::new(id.clone(), spec, 1, u64::MAX, vec![])
        })
        .collect();
    let bundle = Arc::new(ReviewBundle {
        diff: PATCH.to_vec().into(),
        ..ReviewBundle::default()
    });
    let worker = Worker::new(backend.clone(), engines, Duration::from_secs(60))
        .with_poll(Duration::from_millis(20));
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(async move {
        worker
            .run(in_flight, Duration::from_secs(5), async {
                let _ = stop_rx.await;
            })
            .await;
    });
    let started = Instant::now();
    backend
        .create_review(&record(&id), &bundle, None, &jobs)
        .await
        .map_err(|e| e.to_string())?;
    let mut reported = 0;
    while reported < lanes {
        if started.elapsed() > Duration::from_secs(600) {
            return Err(format!(
                "only {reported} of {lanes} lanes reported in 600 s"
            ));
        }
        for report in backend
            .take_results("bench", Duration::from_millis(100))
            .await
            .map_err(|e| e.to_string())?
        {
            backend
                .ack_result(&report.entry)
                .await
                .map_err(|e| e.to_string())?;
            reported += 1;
        }
    }
    let took = started.elapsed();
    let _ = stop_tx.send(());
    let _ = running.await;
    let requests = served.load(Ordering::Relaxed);
    if requests != lanes {
        return Err(format!("{requests} requests for {lanes} lanes"));
    }
    Ok(took)
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), String> {
    let lanes = arg("--lanes", 256);
    let delay = Duration::from_millis(arg("--delay-ms", 500) as u64);
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    println!(
        "llm lanes against a server answering in {} ms; {lanes} lanes a run",
        delay.as_millis()
    );
    println!("in flight | wall s | lanes/s | ideal lanes/s | of ideal");
    for in_flight in [1usize, 8, 32, 64] {
        // One lane at a time takes DELAY each: fewer lanes keep the run short.
        let n = if in_flight == 1 { lanes.min(16) } else { lanes };
        let took = rt.block_on(run(n, in_flight, delay))?;
        let rate = n as f64 / took.as_secs_f64();
        let ideal = in_flight as f64 / delay.as_secs_f64();
        println!(
            "{in_flight:>9} | {:>6.2} | {rate:>7.1} | {ideal:>13.1} | {:>7.3}",
            took.as_secs_f64(),
            rate / ideal
        );
    }
    Ok(())
}
