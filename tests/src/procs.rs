//! Child processes that are always stopped: a [`Proc`] kills its child (by
//! its own PID) when dropped.
//!
//! Nothing here picks a port for a child: a revu binary listens on
//! `127.0.0.1:0` and the harness reads the address it got from its log
//! line (`coordinator serving addr=…`), so no other process can take the
//! port between a probe and the bind.

use crate::bins::bin;
use crate::redis_server::RedisServer;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long a child may take to announce an address it listens on.
const ANNOUNCE_WITHIN: Duration = Duration::from_secs(20);

/// The `addr=` fields of a child's log lines, as they arrive.
#[derive(Debug, Default)]
struct Announcements {
    /// `(line, address)` in order.
    seen: Mutex<Vec<(String, String)>>,
    arrived: Condvar,
}

/// The address a log line announces: `addr=127.0.0.1:4321` in text logs,
/// `"addr":"127.0.0.1:4321"` in JSON ones.
fn announced_addr(line: &str) -> Option<String> {
    let (rest, end) = if let Some(i) = line.find("addr=") {
        (&line[i + "addr=".len()..], [' ', '\t', ','].as_slice())
    } else if let Some(i) = line.find("\"addr\":\"") {
        (&line[i + "\"addr\":\"".len()..], ['"'].as_slice())
    } else {
        return None;
    };
    let addr: String = rest.chars().take_while(|c| !end.contains(c)).collect();
    (!addr.is_empty()).then_some(addr)
}

/// A running child process.
#[derive(Debug)]
pub struct Proc {
    pub name: String,
    child: Option<Child>,
    announcements: Arc<Announcements>,
}

impl Proc {
    /// Starts `cmd`. Its stderr (the log of a revu binary) is read on a
    /// thread of its own: shown with `REVU_TEST_SHOW_LOGS`, and scanned
    /// for the addresses it announces (see [`Proc::announced`]).
    pub fn spawn(name: &str, mut cmd: Command) -> Proc {
        let show = std::env::var_os("REVU_TEST_SHOW_LOGS").is_some();
        cmd.stdin(Stdio::null()).stderr(Stdio::piped());
        if !show {
            cmd.stdout(Stdio::null());
        }
        if std::env::var_os("RUST_LOG").is_none() {
            // The address announcements are info lines.
            cmd.env("RUST_LOG", "info");
        }
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("starting {name}: {e}"));
        let announcements = Arc::new(Announcements::default());
        if let Some(stderr) = child.stderr.take() {
            let seen = announcements.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if show {
                        eprintln!("{line}");
                    }
                    if let Some(addr) = announced_addr(&line) {
                        let mut list = seen.seen.lock().unwrap_or_else(|p| p.into_inner());
                        list.push((line, addr));
                        seen.arrived.notify_all();
                    }
                }
            });
        }
        Proc {
            name: name.to_owned(),
            child: Some(child),
            announcements,
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
            announcements: Arc::default(),
        }
    }

    /// The address the child announced on a log line containing `what`
    /// (`"coordinator serving"`, `"metrics serving"`), waiting for it.
    /// Panics if the child exits first or says nothing in time.
    pub fn announced(&mut self, what: &str) -> String {
        let started = Instant::now();
        let mut seen = self
            .announcements
            .seen
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some((_, addr)) = seen.iter().find(|(line, _)| line.contains(what)) {
                return addr.clone();
            }
            let exited = match self.child.as_mut().map(Child::try_wait) {
                Some(Ok(None)) => None,
                Some(Ok(Some(status))) => Some(status.to_string()),
                Some(Err(e)) => Some(e.to_string()),
                None => Some("stopped".to_owned()),
            };
            if let Some(status) = exited {
                panic!("{} exited ({status}) before announcing {what:?}", self.name);
            }
            let left = ANNOUNCE_WITHIN.saturating_sub(started.elapsed());
            assert!(
                !left.is_zero(),
                "{} did not announce {what:?} within {ANNOUNCE_WITHIN:?}",
                self.name
            );
            // Woken by each announcement; the timeout notices an exit.
            let wait = left.min(Duration::from_millis(100));
            seen = self
                .announcements
                .arrived
                .wait_timeout(seen, wait)
                .unwrap_or_else(|p| p.into_inner())
                .0;
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
    /// Where the coordinator (its latest incarnation) listens.
    pub addr: String,
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
        let coordinator_args: Vec<String> =
            coordinator_args.iter().map(|a| (*a).to_owned()).collect();
        let coordinator_env = owned_env(env);
        let mut coordinator = Self::spawn_coordinator(&redis, &coordinator_args, &coordinator_env);
        let addr = coordinator.announced("coordinator serving");
        Cluster {
            redis,
            coordinator,
            workers: Vec::new(),
            addr,
            coordinator_args,
            coordinator_env,
        }
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

    /// Starts a new coordinator incarnation with the same settings, on a
    /// port of its own ([`Cluster::endpoint`] names it; clients reconnect).
    pub fn restart_coordinator(&mut self) {
        self.coordinator.kill();
        self.coordinator =
            Self::spawn_coordinator(&self.redis, &self.coordinator_args, &self.coordinator_env);
        self.addr = self.coordinator.announced("coordinator serving");
    }

    /// Starts another coordinator on the same Redis with the same
    /// settings, beside the first (both serve the same fleet); it is
    /// killed when the returned `Proc` is dropped.
    pub fn another_coordinator(&self) -> (Proc, String) {
        let mut other =
            Self::spawn_coordinator(&self.redis, &self.coordinator_args, &self.coordinator_env);
        let addr = other.announced("coordinator serving");
        (other, addr)
    }

    /// SIGKILLs the coordinator and starts a new incarnation on the same
    /// address, as a restart behind one service address looks to clients.
    pub fn restart_coordinator_in_place(&mut self) {
        self.coordinator.kill();
        self.coordinator = Self::spawn_coordinator_at(
            &self.redis,
            &self.addr,
            &self.coordinator_args,
            &self.coordinator_env,
        );
        self.addr = self.coordinator.announced("coordinator serving");
    }

    fn spawn_coordinator(redis: &RedisServer, args: &[String], env: &[(String, String)]) -> Proc {
        Self::spawn_coordinator_at(redis, "127.0.0.1:0", args, env)
    }

    fn spawn_coordinator_at(
        redis: &RedisServer,
        listen: &str,
        args: &[String],
        env: &[(String, String)],
    ) -> Proc {
        let mut cmd = Command::new(bin("revu-coordinator"));
        cmd.env_clear_revu()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .arg("--listen")
            .arg(listen)
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
        format!("http://{}", self.addr)
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

/// Waits up to `within` for `child` (named `what` in a failure); kills it
/// (by its own handle) after that and returns `None`.
pub fn wait_bounded(
    child: &mut Child,
    within: Duration,
    what: &str,
) -> Option<std::process::ExitStatus> {
    let started = Instant::now();
    while started.elapsed() < within {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("waiting for {what}: {e}"),
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Reads a child's pipe to the end on a thread of its own (so that neither
/// pipe can fill and stall the child); [`joined`] gives what it read.
pub fn drain(pipe: Option<impl std::io::Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// What a [`drain`] thread read (empty if it panicked).
pub fn joined(reader: std::thread::JoinHandle<String>) -> String {
    reader.join().unwrap_or_default()
}
