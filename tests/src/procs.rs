//! Child processes that are always stopped: a [`Proc`] kills its child (by
//! its own PID) when dropped.

use crate::bins::bin;
use crate::redis_server::RedisServer;
use std::fs::File;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A free loopback TCP port (bound, read, released).
pub fn free_port() -> u16 {
    let listener =
        TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("no free loopback port: {e}"));
    listener
        .local_addr()
        .unwrap_or_else(|e| panic!("no local address: {e}"))
        .port()
}

/// A running child process.
#[derive(Debug)]
pub struct Proc {
    pub name: String,
    child: Option<Child>,
}

impl Proc {
    pub fn spawn(name: &str, mut cmd: Command) -> Proc {
        cmd.stdin(Stdio::null());
        if std::env::var_os("REVU_TEST_SHOW_LOGS").is_none() {
            cmd.stdout(Stdio::null()).stderr(Stdio::null());
        }
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("starting {name}: {e}"));
        Proc {
            name: name.to_owned(),
            child: Some(child),
        }
    }

    /// Starts the revu binary `name` on `redis` with `args`, its stderr
    /// (the log) written to the file `log`, whatever `REVU_TEST_SHOW_LOGS`
    /// says.
    pub fn spawn_logging_to(name: &str, redis: &RedisServer, args: &[&str], log: &Path) -> Proc {
        let file = File::create(log).unwrap_or_else(|e| panic!("creating {}: {e}", log.display()));
        let mut cmd = Command::new(bin(name));
        cmd.env_clear_revu()
            .arg("--redis")
            .arg(&redis.url)
            .arg("--key-prefix")
            .arg(&redis.prefix)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file);
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("starting {name}: {e}"));
        Proc {
            name: name.to_owned(),
            child: Some(child),
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().map(Child::id).unwrap_or(0)
    }

    /// Sends SIGKILL and reaps the child.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Sends SIGTERM and waits up to `grace` for the child to exit, then kills it.
    /// Returns whether it exited on its own.
    pub fn terminate(&mut self, grace: Duration) -> bool {
        let Some(mut child) = self.child.take() else {
            return true;
        };
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
        let started = Instant::now();
        while started.elapsed() < grace {
            if let Ok(Some(_)) = child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
        false
    }

    /// Whether the child is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.as_mut().map(Child::try_wait), Some(Ok(None)))
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A coordinator and workers on one Redis.
#[derive(Debug)]
pub struct Cluster {
    pub redis: RedisServer,
    pub coordinator: Proc,
    pub workers: Vec<Proc>,
    pub port: u16,
    coordinator_args: Vec<String>,
    coordinator_env: Vec<(String, String)>,
}

/// Owned `(name, value)` pairs of extra environment for a child.
fn owned_env(env: &[(&str, &str)]) -> Vec<(String, String)> {
    env.iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

impl Cluster {
    /// Starts a coordinator and `workers` default workers, waiting until
    /// the coordinator accepts connections.
    pub fn start(redis: RedisServer, workers: usize, coordinator_args: &[&str]) -> Cluster {
        let mut cluster = Self::start_coordinator_only(redis, coordinator_args);
        for _ in 0..workers {
            cluster.add_worker(&[]);
        }
        cluster
    }

    /// Starts a coordinator and no worker.
    pub fn start_coordinator_only(redis: RedisServer, coordinator_args: &[&str]) -> Cluster {
        Self::start_coordinator_only_with_env(redis, coordinator_args, &[])
    }

    /// Starts a coordinator with extra environment (`OTEL_*`, …) and no
    /// worker. The environment also applies to its restarts.
    pub fn start_coordinator_only_with_env(
        redis: RedisServer,
        coordinator_args: &[&str],
        env: &[(&str, &str)],
    ) -> Cluster {
        let port = free_port();
        let coordinator_args: Vec<String> =
            coordinator_args.iter().map(|a| (*a).to_owned()).collect();
        let coordinator_env = owned_env(env);
        let coordinator =
            Self::spawn_coordinator(&redis, port, &coordinator_args, &coordinator_env);
        let cluster = Cluster {
            redis,
            coordinator,
            workers: Vec::new(),
            port,
            coordinator_args,
            coordinator_env,
        };
        cluster.wait_listening(Duration::from_secs(20));
        cluster
    }

    /// Starts one more worker with `args`; returns its index in `workers`.
    pub fn add_worker(&mut self, args: &[&str]) -> usize {
        self.add_worker_with_env(args, &[])
    }

    /// Starts one more worker with `args` and extra environment; returns
    /// its index in `workers`.
    pub fn add_worker_with_env(&mut self, args: &[&str], env: &[(&str, &str)]) -> usize {
        self.workers
            .push(Self::spawn_worker(&self.redis, args, &owned_env(env)));
        self.workers.len() - 1
    }

    /// SIGKILLs worker `index` and starts a fresh incarnation in its place.
    pub fn restart_worker(&mut self, index: usize, args: &[&str]) {
        let fresh = Self::spawn_worker(&self.redis, args, &[]);
        if let Some(slot) = self.workers.get_mut(index) {
            slot.kill();
            *slot = fresh;
        }
    }

    /// SIGKILLs the coordinator.
    pub fn kill_coordinator(&mut self) {
        self.coordinator.kill();
    }

    /// Starts a new coordinator incarnation on the same port and settings.
    pub fn restart_coordinator(&mut self) {
        self.coordinator.kill();
        self.coordinator = Self::spawn_coordinator(
            &self.redis,
            self.port,
            &self.coordinator_args,
            &self.coordinator_env,
        );
        self.wait_listening(Duration::from_secs(20));
    }

    fn spawn_coordinator(
        redis: &RedisServer,
        port: u16,
        args: &[String],
        env: &[(String, String)],
    ) -> Proc {
        let mut cmd = Command::new(bin("revu-coordinator"));
        cmd.env_clear_revu()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .arg("--listen")
            .arg(format!("127.0.0.1:{port}"))
            .arg("--redis")
            .arg(&redis.url)
            .arg("--key-prefix")
            .arg(&redis.prefix)
            .args(args);
        Proc::spawn("revu-coordinator", cmd)
    }

    fn spawn_worker(redis: &RedisServer, args: &[&str], env: &[(String, String)]) -> Proc {
        let mut cmd = Command::new(bin("revu-worker"));
        cmd.env_clear_revu()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .arg("--redis")
            .arg(&redis.url)
            .arg("--key-prefix")
            .arg(&redis.prefix);
        if !args.contains(&"--concurrency") {
            cmd.arg("--concurrency").arg("2");
        }
        cmd.args(args);
        Proc::spawn("revu-worker", cmd)
    }

    /// The coordinator's gRPC address for clients.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn wait_listening(&self, within: Duration) {
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                started.elapsed() < within,
                "coordinator did not listen on port {} within {within:?} (REVU_TEST_SHOW_LOGS=1 shows its log)",
                self.port
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Keeps the caller's `REVU_*` and `OTEL_*` settings out of spawned
/// processes, so that only the flags and environment a test passes apply.
trait ClearRevuEnv {
    fn env_clear_revu(&mut self) -> &mut Self;
}

impl ClearRevuEnv for Command {
    fn env_clear_revu(&mut self) -> &mut Self {
        for (key, _) in std::env::vars_os() {
            let key_text = key.to_string_lossy();
            if key_text.starts_with("REVU_") || key_text.starts_with("OTEL_") {
                self.env_remove(&key);
            }
        }
        self
    }
}
