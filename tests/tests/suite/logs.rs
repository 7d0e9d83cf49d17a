//! Logs fit where they go: a coordinator and a worker whose stderr is a
//! file write plain text, without colour escapes.

use revu_tests::{Proc, RedisServer};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A directory of its own under the temp dir, removed when dropped.
struct LogDir(PathBuf);

impl LogDir {
    fn new() -> LogDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("revu-logs-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        LogDir(dir)
    }
}

impl Drop for LogDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn read(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

/// Waits until the log at `log` holds `line`, and returns the log.
fn wait_for(log: &Path, line: &str) -> String {
    let started = Instant::now();
    loop {
        let text = read(log);
        if text.contains(line) {
            return text;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no {line:?} in {} within 20s: {text:?}",
            log.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn coordinator_and_worker_logs_written_to_a_file_have_no_colour_escapes() {
    let redis = RedisServer::start();
    let dir = LogDir::new();
    let (coordinator_log, worker_log) = (dir.0.join("coordinator.log"), dir.0.join("worker.log"));
    let mut coordinator = Proc::spawn_logging_to(
        "revu-coordinator",
        &redis,
        &["--listen", "127.0.0.1:0"],
        &coordinator_log,
    );
    let mut worker = Proc::spawn_logging_to("revu-worker", &redis, &[], &worker_log);
    wait_for(&coordinator_log, "coordinator serving");
    wait_for(&worker_log, "worker started");
    // Stopped gracefully, so the shutdown lines are in the files too.
    assert!(
        worker.terminate(Duration::from_secs(10)),
        "worker did not stop"
    );
    assert!(
        coordinator.terminate(Duration::from_secs(10)),
        "coordinator did not stop"
    );
    for log in [&coordinator_log, &worker_log] {
        let text = read(log);
        assert!(text.contains("INFO"), "{}: {text:?}", log.display());
        assert!(!text.contains("\x1b["), "{}: {text:?}", log.display());
    }
}
