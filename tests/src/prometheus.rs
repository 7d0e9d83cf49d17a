//! A real Prometheus for tests: Debian's `prometheus` scraping revu's
//! endpoints on loopback every second, asked through its HTTP API as
//! Grafana asks it.

use crate::procs::Proc;
use crate::scrape::get;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// The `prometheus` binary: `REVU_TEST_PROMETHEUS`, else the one on PATH.
/// Fails, saying how to get it, when there is none.
pub fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("REVU_TEST_PROMETHEUS") {
        return PathBuf::from(path);
    }
    let found = Command::new("prometheus").arg("--version").output();
    match found {
        Ok(out) if out.status.success() => PathBuf::from("prometheus"),
        _ => panic!(
            "prometheus is not installed: `apt-get install prometheus` (Debian's package \
             carries prometheus and promtool; scripts/test installs it), or set \
             REVU_TEST_PROMETHEUS to a prometheus binary"
        ),
    }
}

/// A port nobody listens on now. Prometheus cannot say which port it got
/// for `:0`, so this one is probed; [`Prometheus::start`] tries again
/// should another process take it first.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("no free port: {e}"))
}

/// A running Prometheus with its own configuration and storage, removed
/// when dropped.
#[derive(Debug)]
pub struct Prometheus {
    pub addr: String,
    dir: PathBuf,
    proc: Proc,
}

impl Prometheus {
    /// Starts Prometheus scraping each `(job, address)` every second, with
    /// `rule_files` loaded, and waits until it is ready.
    pub fn start(targets: &[(&str, &str)], rule_files: &[PathBuf]) -> Prometheus {
        let dir = std::env::temp_dir().join(format!(
            "revu-prometheus-{}-{}",
            std::process::id(),
            free_port()
        ));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut config = String::from(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n",
        );
        if !rule_files.is_empty() {
            config.push_str("rule_files:\n");
            for f in rule_files {
                config.push_str(&format!("  - {}\n", f.display()));
            }
        }
        config.push_str("scrape_configs:\n");
        for (job, addr) in targets {
            config.push_str(&format!(
                "  - job_name: {job}\n    static_configs:\n      - targets: ['{addr}']\n"
            ));
        }
        let config_path = dir.join("prometheus.yml");
        std::fs::write(&config_path, config).unwrap_or_else(|e| panic!("config: {e}"));
        let binary = binary();
        for _ in 0..5 {
            let addr = format!("127.0.0.1:{}", free_port());
            let mut cmd = Command::new(&binary);
            cmd.arg(format!("--config.file={}", config_path.display()))
                .arg(format!(
                    "--storage.tsdb.path={}",
                    dir.join("data").display()
                ))
                .arg(format!("--web.listen-address={addr}"))
                .arg("--log.level=warn");
            let mut proc = Proc::spawn("prometheus", cmd);
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(30) && proc.running() {
                if matches!(get(&addr, "/-/ready"), Ok((200, _))) {
                    return Prometheus { addr, dir, proc };
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            proc.kill();
        }
        panic!(
            "prometheus did not become ready (config {})",
            config_path.display()
        );
    }

    /// Waits until every target has been scraped successfully at least
    /// `scrapes` times.
    pub fn wait_scraped(&self, jobs: &[&str], scrapes: usize) {
        let started = Instant::now();
        loop {
            let ok = jobs.iter().all(|job| {
                let q = format!("count_over_time(up{{job=\"{job}\"}}[1m])");
                self.query(&q)
                    .ok()
                    .and_then(|r| r.first().and_then(sample_value))
                    .is_some_and(|n| n >= scrapes as f64)
            });
            if ok {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "targets {jobs:?} not scraped {scrapes} times: {:?}",
                self.query("up")
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// An instant query: the result vector, or Prometheus's error.
    pub fn query(&self, promql: &str) -> Result<Vec<Value>, String> {
        let path = format!("/api/v1/query?query={}", encode(promql));
        let (status, body) = get(&self.addr, &path)?;
        let json: Value =
            serde_json::from_str(&body).map_err(|e| format!("{status}: {e}: {body}"))?;
        if json["status"] != "success" {
            return Err(format!(
                "{}: {}",
                json["errorType"].as_str().unwrap_or("error"),
                json["error"].as_str().unwrap_or(&body)
            ));
        }
        match &json["data"]["result"] {
            Value::Array(items) => Ok(items.clone()),
            // A scalar or a string: one value.
            other => Ok(vec![other.clone()]),
        }
    }

    /// The rules as Prometheus loaded them (`/api/v1/rules`).
    pub fn rules(&self) -> Result<Value, String> {
        let (_, body) = get(&self.addr, "/api/v1/rules")?;
        serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        self.proc.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The value of one element of an instant vector.
pub fn sample_value(v: &Value) -> Option<f64> {
    v["value"][1].as_str().and_then(|s| s.parse().ok())
}

/// Percent-encodes a query parameter.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b));
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
