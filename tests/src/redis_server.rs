//! A Redis for tests: `REVU_TEST_REDIS_URL` when set, else a private
//! `redis-server` on a free loopback port (in a container with
//! `REVU_TEST_REDIS=docker`). Never a silent skip: without any, the test
//! fails and says how to get one.
//!
//! `redis-server` cannot listen on port 0 and say which port it got, so the
//! harness offers it a port that was free a moment ago, and makes sure the
//! server answering there is its own child (`INFO server` names the PID):
//! when another process took the port first, the child fails to bind and
//! exits, and the harness tries another port.

use crate::procs::Proc;
use std::net::TcpListener;
use std::process::Command;
use std::time::{Duration, Instant};

/// Ports offered before giving up.
const PORT_TRIES: usize = 5;

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
    /// The server's working directory, removed with the handle.
    dir: Option<std::path::PathBuf>,
    /// The container it runs in, with `REVU_TEST_REDIS=docker`.
    container: Option<crate::redis_docker::DockerRedis>,
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        // The server first, then what it wrote.
        drop(self.container.take());
        drop(self.process.take());
        if let Some(dir) = self.dir.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

const HOW_TO_GET_ONE: &str = "no Redis for the end-to-end tests: install redis-server \
(Debian/Ubuntu: `apt-get install -y redis-server`; macOS: `brew install redis`) so it is on PATH, \
or point REVU_TEST_REDIS_URL at a Redis 7 you may write to, or run Redis in containers with \
REVU_TEST_REDIS=docker and `--features revu-tests/docker`";

impl RedisServer {
    /// A handle on a Redis this handle did not start (an external one, or
    /// a cluster named by its seeds), with key prefix `prefix`.
    pub fn external(url: &str, prefix: &str) -> RedisServer {
        RedisServer {
            url: url.to_owned(),
            prefix: prefix.to_owned(),
            process: None,
            port: 0,
            command: Vec::new(),
            dir: None,
            container: None,
        }
    }

    /// Where this server's keys live (the key layout under its prefix).
    pub fn layout(&self) -> revu_queue::redis::layout::Layout {
        revu_queue::redis::layout::Layout::new(&self.prefix).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Starts (or connects to) a Redis: `REVU_TEST_REDIS_URL` when set,
    /// else a container with `REVU_TEST_REDIS=docker`, else a local
    /// `redis-server`. Panics with instructions if none can be had.
    pub fn start() -> RedisServer {
        match std::env::var("REVU_TEST_REDIS").as_deref() {
            _ if std::env::var_os("REVU_TEST_REDIS_URL").is_some() => Self::start_with(&[]),
            Ok("docker") => Self::start_docker(),
            Ok("" | "local") | Err(_) => Self::start_with(&[]),
            Ok(other) => panic!(
                "REVU_TEST_REDIS={other:?}: use `local` (a redis-server process, the default) \
                 or `docker` (testcontainers)"
            ),
        }
    }

    /// A Redis of this handle's own, never the external
    /// `REVU_TEST_REDIS_URL`: for tests that stop it and start it again.
    pub fn start_own() -> RedisServer {
        Self::start_own_with(&[])
    }

    /// [`RedisServer::start_own`] with `extra` arguments: a local
    /// `redis-server`, or with `REVU_TEST_REDIS=docker` one in a container
    /// on the host's network (so that it comes back on its port). Panics
    /// with instructions if it cannot start one.
    pub fn start_own_with(extra: &[&str]) -> RedisServer {
        let docker = in_docker();
        require_redis_server(docker);
        let prefix = format!("revu-test-{}", uuid_like());
        let mut last = String::new();
        for _ in 0..PORT_TRIES {
            match Self::spawn_own(probe_port(), &prefix, extra, docker) {
                Ok(server) => return server,
                Err(why) => last = why,
            }
        }
        panic!(
            "no redis-server of ours came up in {PORT_TRIES} tries: {last}{}",
            docker_hint(docker)
        );
    }

    /// Redis in a container (testcontainers); panics saying why when no
    /// Docker daemon answers.
    fn start_docker() -> RedisServer {
        let container = crate::redis_docker::start().unwrap_or_else(|why| {
            panic!(
                "REVU_TEST_REDIS=docker, but no Redis container started: {why}. It needs a \
                 Docker daemon that answers (`docker info`); unset REVU_TEST_REDIS for a local \
                 redis-server"
            )
        });
        Self::in_container(container, &format!("revu-test-{}", uuid_like()))
    }

    /// A handle on a Redis `container` listening on `port` of the host,
    /// with key prefix `prefix`.
    pub(crate) fn in_container(
        container: crate::redis_docker::DockerRedis,
        prefix: &str,
    ) -> RedisServer {
        RedisServer {
            url: format!("redis://127.0.0.1:{}", container.port),
            prefix: prefix.to_owned(),
            process: None,
            port: container.port,
            command: Vec::new(),
            dir: None,
            container: Some(container),
        }
    }

    /// Whether this handle started a server (a process or a container)
    /// that it has not killed with [`RedisServer::kill`] since.
    pub(crate) fn started(&self) -> bool {
        self.process.is_some() || self.container.is_some()
    }

    /// Whether the server this handle started still runs.
    pub(crate) fn running(&mut self) -> bool {
        self.container.is_some() || self.process.as_mut().is_some_and(Proc::running)
    }

    /// Kills the server this handle started, for good: SIGKILL for a
    /// process, removal for a container.
    pub(crate) fn kill(&mut self) {
        if let Some(container) = self.container.take() {
            drop(container);
        } else if let Some(p) = self.process.as_mut() {
            p.kill();
        }
    }

    /// Like [`RedisServer::start`], passing `extra` arguments to a started
    /// `redis-server` (ignored for an external one).
    pub fn start_with(extra: &[&str]) -> RedisServer {
        match std::env::var("REVU_TEST_REDIS_URL") {
            Ok(url) => RedisServer::external(&url, &format!("revu-test-{}", uuid_like())),
            Err(_) => Self::start_own_with(extra),
        }
    }

    /// Starts a `redis-server` of its own that listens for TLS only (no
    /// plaintext port), with `extra` arguments (its certificate and key,
    /// the CA of its clients, ACL users), its URL made by `url` from the
    /// port. An external `REVU_TEST_REDIS_URL` is never used for this.
    pub fn start_tls(extra: &[&str], url: impl Fn(u16) -> String) -> RedisServer {
        let docker = in_docker();
        require_redis_server(docker);
        let prefix = format!("revu-test-{}", uuid_like());
        let mut last = String::new();
        for _ in 0..PORT_TRIES {
            let port = probe_port();
            let dir =
                std::env::temp_dir().join(format!("revu-redis-tls-{port}-{}", std::process::id()));
            let _ = std::fs::create_dir_all(&dir);
            let command = server_args(
                &["--port", "0", "--tls-port", &port.to_string()],
                &dir,
                extra,
            );
            let (process, container) = match launch(port, &command, docker) {
                Ok(started) => started,
                Err(why) => {
                    last = why;
                    continue;
                }
            };
            let mut server = RedisServer {
                url: url(port),
                prefix: prefix.clone(),
                process,
                port,
                command,
                dir: Some(dir),
                container,
            };
            match server.wait_listening(Duration::from_secs(10)) {
                Ok(()) => return server,
                Err(why) => last = why,
            }
        }
        panic!(
            "no TLS redis-server of ours came up in {PORT_TRIES} tries: {last}{}",
            docker_hint(docker)
        );
    }

    /// Waits until the port accepts connections while our child runs (a
    /// child that could not bind exits): for a server the harness cannot
    /// PING without its client certificate.
    fn wait_listening(&mut self, within: Duration) -> Result<(), String> {
        let started = Instant::now();
        loop {
            if !self.running() {
                return Err(format!("redis-server exited on port {}", self.port));
            }
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                // Still ours a moment later: not a stranger on the port.
                std::thread::sleep(Duration::from_millis(100));
                if self.running() {
                    return Ok(());
                }
            }
            if started.elapsed() > within {
                return Err(format!(
                    "nothing listened on port {} within {within:?}",
                    self.port
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// One try at starting a `redis-server` of our own on a free port with
    /// `extra` arguments and key prefix `prefix`, in a container on the
    /// host's network when `docker`: `Err` when it did not come up
    /// (another process took a port it was given).
    pub(crate) fn try_start_with(
        extra: &[&str],
        prefix: &str,
        docker: bool,
    ) -> Result<RedisServer, String> {
        require_redis_server(docker);
        Self::spawn_own(probe_port(), prefix, extra, docker)
    }

    /// Starts `redis-server` on `port`, its files in a directory of its
    /// own: `Err` when it is not ours that answers there (another process
    /// had the port).
    fn spawn_own(
        port: u16,
        prefix: &str,
        extra: &[&str],
        docker: bool,
    ) -> Result<RedisServer, String> {
        let dir = std::env::temp_dir().join(format!("revu-redis-{port}-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let command = server_args(&["--port", &port.to_string()], &dir, extra);
        let (process, container) = match launch(port, &command, docker) {
            Ok(started) => started,
            Err(why) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(why);
            }
        };
        let mut server = RedisServer {
            url: format!("redis://127.0.0.1:{port}"),
            prefix: prefix.to_owned(),
            process,
            port,
            command,
            dir: Some(dir),
            container,
        };
        if !docker {
            server.wait_ours(Duration::from_secs(10))?;
        }
        Ok(server)
    }

    /// Kills the server (SIGKILL) and starts it again on the same port and
    /// directory, so what it persisted comes back. Only for servers this
    /// handle started.
    pub fn restart(&mut self, down_for: Duration) {
        self.stop();
        std::thread::sleep(down_for);
        self.start_again();
    }

    /// Kills the server (SIGKILL); [`RedisServer::start_again`] brings it
    /// back on the same port and directory. Only for servers this handle
    /// started.
    pub fn stop(&mut self) {
        assert!(
            self.started(),
            "cannot stop an external Redis: start it with RedisServer::start_own()"
        );
        assert!(
            !self.command.is_empty(),
            "this test stops its Redis: start it with RedisServer::start_own(), not on a port \
             Docker chose"
        );
        self.kill();
    }

    /// Starts a stopped server again on its port and directory (in a new
    /// container, for one that ran in a container).
    pub fn start_again(&mut self) {
        let docker = self.process.is_none();
        let again = launch(self.port, &self.command, docker).and_then(|(process, container)| {
            self.process = process;
            self.container = container;
            if docker {
                Ok(())
            } else {
                self.wait_ours(Duration::from_secs(10))
            }
        });
        if let Err(why) = again {
            panic!("restarting redis-server on port {}: {why}", self.port);
        }
    }

    /// Waits until our child answers PING on the port: `Err` if it exits
    /// (it could not bind) or another server answers there.
    fn wait_ours(&mut self, within: Duration) -> Result<(), String> {
        let started = Instant::now();
        loop {
            let Some(process) = self.process.as_mut() else {
                return Err("no process".into());
            };
            if !process.running() {
                return Err(format!("redis-server exited on port {}", self.port));
            }
            let ours = process.pid();
            if let Some(pid) = self.server_pid() {
                return if pid == ours {
                    Ok(())
                } else {
                    Err(format!(
                        "port {} belongs to another redis (pid {pid})",
                        self.port
                    ))
                };
            }
            if started.elapsed() > within {
                return Err(format!(
                    "redis at {} did not answer PING within {within:?}",
                    self.url
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits up to `within` until `holds` is true of this Redis, polling;
    /// panics naming `what` when it never is.
    pub fn wait_until(&self, what: &str, within: Duration, holds: impl Fn(&Self) -> bool) {
        let started = Instant::now();
        while !holds(self) {
            assert!(
                started.elapsed() < within,
                "{what}: not within {within:?} on {}",
                self.url
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The delivery counter `name` under this handle's prefix (0 if unset
    /// or unreadable).
    pub fn stat(&self, name: &str) -> u64 {
        self.query(
            redis::cmd("HGET")
                .arg(format!("{}:stats", self.prefix))
                .arg(name),
        )
        .unwrap_or(0)
    }

    /// The review hashes the store holds (`{prefix:N}:review:ID`).
    fn review_hashes(&self) -> Vec<String> {
        let keys: Vec<String> = self
            .query(redis::cmd("KEYS").arg(format!("{{{}:?}}:review:*", self.prefix)))
            .unwrap_or_default();
        keys.into_iter()
            .filter(|k| {
                k.split_once("}:review:")
                    .is_some_and(|(_, id)| !id.contains(':'))
            })
            .collect()
    }

    /// How many reviews the store holds.
    pub fn review_count(&self) -> usize {
        self.review_hashes().len()
    }

    /// The fields of every review hash the store holds, sorted.
    pub fn review_fields(&self) -> Vec<String> {
        let mut fields: Vec<String> = self
            .review_hashes()
            .iter()
            .flat_map(|k| {
                self.query::<Vec<String>>(redis::cmd("HKEYS").arg(k))
                    .unwrap_or_default()
            })
            .collect();
        fields.sort();
        fields
    }

    /// Entries on the stream `{prefix:N}:{stream}` of every shard (0 for
    /// one that is unreadable).
    pub fn stream_len(&self, stream: &str) -> u64 {
        let layout = self.layout();
        revu_queue::redis::layout::shards()
            .map(|s| {
                self.query::<u64>(redis::cmd("XLEN").arg(layout.sharded(s, stream)))
                    .unwrap_or(0)
            })
            .sum()
    }

    fn query<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Option<T> {
        let client = redis::Client::open(self.url.as_str()).ok()?;
        let mut conn = client
            .get_connection_with_timeout(Duration::from_millis(500))
            .ok()?;
        cmd.query(&mut conn).ok()
    }

    /// The PID of the server answering at the URL, if one does.
    fn server_pid(&self) -> Option<u32> {
        let info: String = self.query(redis::cmd("INFO").arg("server"))?;
        info.lines()
            .find_map(|l| l.strip_prefix("process_id:"))
            .and_then(|pid| pid.trim().parse().ok())
    }
}

/// Starts `redis-server` with `command` on `port`: a process of ours, or
/// when `docker` a container on the host's network (ready once it says
/// so).
fn launch(port: u16, command: &[String], docker: bool) -> Result<Launched, String> {
    if docker {
        crate::redis_docker::start_server(port, command.to_vec()).map(|c| (None, Some(c)))
    } else {
        let mut cmd = Command::new("redis-server");
        cmd.args(command);
        Ok((Some(Proc::spawn("redis-server", cmd)), None))
    }
}

/// What [`launch`] started: the process, or the container.
type Launched = (Option<Proc>, Option<crate::redis_docker::DockerRedis>);

/// Panics with instructions when local servers are wanted and there is
/// no `redis-server` on PATH.
fn require_redis_server(docker: bool) {
    if docker {
        return;
    }
    let found = Command::new("redis-server").arg("--version").output();
    if !found.is_ok_and(|o| o.status.success()) {
        panic!("{HOW_TO_GET_ONE}");
    }
}

/// Whether `REVU_TEST_REDIS=docker` asks for servers in containers.
pub(crate) fn in_docker() -> bool {
    std::env::var("REVU_TEST_REDIS").as_deref() == Ok("docker")
}

/// What a failed start in a container needs said.
pub(crate) fn docker_hint(docker: bool) -> &'static str {
    if docker {
        " (REVU_TEST_REDIS=docker: Redis in containers needs a Docker daemon that answers, \
         `docker info`; unset REVU_TEST_REDIS for local redis-server processes)"
    } else {
        ""
    }
}

/// A loopback port that was free when asked (bound, read, released).
/// The arguments of a test `redis-server`: `ports`, loopback only, no
/// persistence, its files in `dir`, then `extra`.
fn server_args(ports: &[&str], dir: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let dir = dir.to_string_lossy();
    let fixed = [
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        &dir,
    ];
    ports
        .iter()
        .chain(fixed.iter())
        .chain(extra.iter())
        .map(|a| (*a).to_owned())
        .collect()
}

pub(crate) fn probe_port() -> u16 {
    let listener =
        TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("no free loopback port: {e}"));
    listener
        .local_addr()
        .unwrap_or_else(|e| panic!("no local address: {e}"))
        .port()
}

/// A unique-enough token without another dependency: time and PID.
pub(crate) fn uuid_like() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:x}-{}", nanos, std::process::id())
}
