//! A Redis for tests: `REVU_TEST_REDIS_URL` when set, else a private
//! `redis-server` on a free loopback port. Never a silent skip: without
//! either, the test fails and says how to get one.

use crate::procs::{Proc, free_port};
use std::process::Command;
use std::time::{Duration, Instant};

/// A Redis the test may use, with a key prefix of its own.
#[derive(Debug)]
pub struct RedisServer {
    pub url: String,
    /// Unique per server handle, so tests sharing an external Redis never
    /// see each other's keys.
    pub prefix: String,
    /// The server process when this handle started one.
    pub process: Option<Proc>,
    pub port: u16,
    /// How the server was started, to start it again the same way.
    command: Vec<String>,
}

const HOW_TO_GET_ONE: &str = "no Redis for the end-to-end tests: install redis-server \
(Debian/Ubuntu: `apt-get install -y redis-server`; macOS: `brew install redis`) so it is on PATH, \
or point REVU_TEST_REDIS_URL at a Redis 7 you may write to";

impl RedisServer {
    /// Starts (or connects to) a Redis. Panics with instructions if none can be had.
    pub fn start() -> RedisServer {
        Self::start_with(&[])
    }

    /// Like [`RedisServer::start`], passing `extra` arguments to a started
    /// `redis-server` (ignored for an external one).
    pub fn start_with(extra: &[&str]) -> RedisServer {
        let prefix = format!("revu-test-{}", uuid_like());
        if let Ok(url) = std::env::var("REVU_TEST_REDIS_URL") {
            return RedisServer {
                url,
                prefix,
                process: None,
                port: 0,
                command: Vec::new(),
            };
        }
        let found = Command::new("redis-server").arg("--version").output();
        if !found.is_ok_and(|o| o.status.success()) {
            panic!("{HOW_TO_GET_ONE}");
        }
        let port = free_port();
        let dir = std::env::temp_dir().join(format!("revu-redis-{port}-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let mut command: Vec<String> = [
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            &dir.to_string_lossy(),
        ]
        .iter()
        .map(|a| (*a).to_owned())
        .collect();
        command.extend(extra.iter().map(|a| (*a).to_owned()));
        let mut cmd = Command::new("redis-server");
        cmd.args(&command);
        let process = Proc::spawn("redis-server", cmd);
        let server = RedisServer {
            url: format!("redis://127.0.0.1:{port}"),
            prefix,
            process: Some(process),
            port,
            command,
        };
        server.wait_ready(Duration::from_secs(10));
        server
    }

    /// Kills the server (SIGKILL) and starts it again on the same port and
    /// directory, so what it persisted comes back. Only for servers this
    /// handle started.
    pub fn restart(&mut self, down_for: Duration) {
        assert!(self.process.is_some(), "cannot restart an external Redis");
        if let Some(p) = self.process.as_mut() {
            p.kill();
        }
        std::thread::sleep(down_for);
        let mut cmd = Command::new("redis-server");
        cmd.args(&self.command);
        self.process = Some(Proc::spawn("redis-server", cmd));
        self.wait_ready(Duration::from_secs(10));
    }

    /// Waits until the server answers PING.
    pub fn wait_ready(&self, within: Duration) {
        let started = Instant::now();
        loop {
            if self.ping() {
                return;
            }
            assert!(
                started.elapsed() < within,
                "redis at {} did not answer PING within {within:?}",
                self.url
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn ping(&self) -> bool {
        let Ok(client) = redis::Client::open(self.url.as_str()) else {
            return false;
        };
        let Ok(mut conn) = client.get_connection_with_timeout(Duration::from_millis(500)) else {
            return false;
        };
        redis::cmd("PING").query::<String>(&mut conn).is_ok()
    }
}

/// A unique-enough token without another dependency: time and PID.
fn uuid_like() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:x}-{}", nanos, std::process::id())
}
