//! Redis in a container, through testcontainers: the harness's other
//! Redis source, chosen with `REVU_TEST_REDIS=docker` (and the `docker`
//! feature of this crate). The container starts and stops on a thread of
//! its own, so that neither touches the test's async runtime.

use std::sync::mpsc;
use std::thread::JoinHandle;

/// The Redis image: 7.x for `XAUTOCLAIM` (the module's default is 5.0).
#[cfg(feature = "docker")]
const TAG: &str = "7.2";

/// A running Redis container; dropping it removes the container.
#[derive(Debug)]
pub struct DockerRedis {
    pub port: u16,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for DockerRedis {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Starts a Redis container and returns it once its port answers; `Err`
/// says why not (no Docker daemon, no image).
#[cfg(feature = "docker")]
pub fn start() -> Result<DockerRedis, String> {
    use testcontainers::ImageExt;
    use testcontainers::runners::SyncRunner;
    use testcontainers_modules::redis::{REDIS_PORT, Redis};
    hold(move || {
        let container = Redis::default()
            .with_tag(TAG)
            .start()
            .map_err(|e| format!("starting redis:{TAG}: {e}"))?;
        let port = container
            .get_host_port_ipv4(REDIS_PORT)
            .map_err(|e| format!("the container's Redis port: {e}"))?;
        Ok((container, port))
    })
}

/// Starts `redis-server` with `args` (which name `port`) in a container on
/// the host's network, and returns it once it is ready. It listens where
/// a local server would, on the host's loopback: a cluster node tells
/// clients the address it listens on, and a server stopped and started
/// again comes back on its port. Every directory `args` name (a file's,
/// for a file) is mounted at the same path, so that they mean what they
/// mean to a local server (its `--dir`, its certificates), and the server
/// runs as the owner of the first, so that what it writes there is the
/// test's own.
#[cfg(feature = "docker")]
pub fn start_server(port: u16, args: Vec<String>) -> Result<DockerRedis, String> {
    use std::os::unix::fs::MetadataExt;
    use testcontainers::core::{Mount, WaitFor};
    use testcontainers::runners::SyncRunner;
    use testcontainers::{GenericImage, ImageExt};
    let dirs = named_dirs(&args);
    let owner = dirs
        .first()
        .and_then(|d| std::fs::metadata(d).ok())
        .map(|m| format!("{}:{}", m.uid(), m.gid()));
    hold(move || {
        let mut request = GenericImage::new("redis", TAG)
            .with_wait_for(WaitFor::message_on_stdout("Ready to accept connections"))
            .with_network("host")
            .with_cmd(std::iter::once("redis-server".to_owned()).chain(args));
        for dir in dirs {
            let dir = dir.to_string_lossy().into_owned();
            request = request.with_mount(Mount::bind_mount(dir.clone(), dir));
        }
        if let Some(owner) = owner {
            request = request.with_user(owner);
        }
        let container = request
            .start()
            .map_err(|e| format!("starting redis:{TAG} on port {port}: {e}"))?;
        Ok((container, port))
    })
}

/// The directories `args` name, each once, in order: an argument that is
/// an absolute path to a directory, or the directory of one to a file.
#[cfg_attr(not(feature = "docker"), allow(dead_code))]
fn named_dirs(args: &[String]) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<std::path::PathBuf> = Vec::new();
    for arg in args {
        let path = std::path::Path::new(arg);
        if !path.is_absolute() {
            continue;
        }
        let dir = if path.is_dir() {
            Some(path)
        } else if path.is_file() {
            path.parent()
        } else {
            None
        };
        if let Some(dir) = dir
            && !dirs.iter().any(|d| d == dir)
        {
            dirs.push(dir.to_path_buf());
        }
    }
    dirs
}

/// Runs `redis-cli` with `args` in a container on the host's network until
/// it exits: what it printed when it exits 0, else what it printed and
/// its exit code.
#[cfg(feature = "docker")]
pub fn redis_cli(args: Vec<String>) -> Result<String, String> {
    use testcontainers::core::WaitFor;
    use testcontainers::core::wait::ExitWaitStrategy;
    use testcontainers::runners::SyncRunner;
    use testcontainers::{GenericImage, ImageExt};
    // The sync runner blocks on a runtime of its own: off the caller's.
    let run = std::thread::spawn(move || {
        let container = GenericImage::new("redis", TAG)
            .with_wait_for(WaitFor::exit(ExitWaitStrategy::new()))
            .with_network("host")
            .with_cmd(std::iter::once("redis-cli".to_owned()).chain(args))
            .start()
            .map_err(|e| format!("running redis-cli in redis:{TAG}: {e}"))?;
        let mut out = container.stdout_to_vec().unwrap_or_default();
        out.extend(container.stderr_to_vec().unwrap_or_default());
        let out = String::from_utf8_lossy(&out).into_owned();
        match container.exit_code() {
            Ok(Some(0)) => Ok(out),
            code => Err(format!("redis-cli exited with {code:?}: {out}")),
        }
    });
    run.join()
        .unwrap_or_else(|_| Err("the redis-cli container's thread panicked".into()))
}

/// Starts a container with `start` on a thread of its own, which keeps it
/// until the returned handle drops; the port it says the server is on.
#[cfg(feature = "docker")]
fn hold<I: testcontainers::Image + 'static>(
    start: impl FnOnce() -> Result<(testcontainers::Container<I>, u16), String> + Send + 'static,
) -> Result<DockerRedis, String> {
    let (port_tx, port_rx) = mpsc::channel::<Result<u16, String>>();
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    let thread = std::thread::spawn(move || {
        let container = match start() {
            Ok((container, port)) => {
                let _ = port_tx.send(Ok(port));
                container
            }
            Err(why) => {
                let _ = port_tx.send(Err(why));
                return;
            }
        };
        // Until the handle is dropped.
        let _ = stop_rx.recv();
        drop(container);
    });
    let port = port_rx
        .recv()
        .map_err(|_| "the container thread ended".to_owned())
        .and_then(|p| p);
    match port {
        Ok(port) => Ok(DockerRedis {
            port,
            stop: Some(stop_tx),
            thread: Some(thread),
        }),
        Err(why) => {
            drop(stop_tx);
            let _ = thread.join();
            Err(why)
        }
    }
}

/// Without the `docker` feature there is no container to start.
#[cfg(not(feature = "docker"))]
pub fn start() -> Result<DockerRedis, String> {
    Err(NO_FEATURE.into())
}

/// Without the `docker` feature there is no container to start.
#[cfg(not(feature = "docker"))]
pub fn start_server(_port: u16, _args: Vec<String>) -> Result<DockerRedis, String> {
    Err(NO_FEATURE.into())
}

/// Without the `docker` feature there is no container to run.
#[cfg(not(feature = "docker"))]
pub fn redis_cli(_args: Vec<String>) -> Result<String, String> {
    Err(NO_FEATURE.into())
}

#[cfg(not(feature = "docker"))]
const NO_FEATURE: &str = "REVU_TEST_REDIS=docker needs the tests built with the `docker` feature: \
     `cargo test -p revu-tests --features docker`";

#[cfg(test)]
mod tests {
    /// With a Docker daemon (and the `docker` feature) the container's
    /// Redis answers; without, the error says what is missing.
    #[test]
    fn a_container_answers_or_the_error_says_why() {
        match super::start() {
            Ok(redis) => {
                let client = redis::Client::open(format!("redis://127.0.0.1:{}", redis.port))
                    .unwrap_or_else(|e| panic!("{e}"));
                let mut conn = client
                    .get_connection_with_timeout(std::time::Duration::from_secs(5))
                    .unwrap_or_else(|e| panic!("the container's Redis: {e}"));
                let pong: String = redis::cmd("PING")
                    .query(&mut conn)
                    .unwrap_or_else(|e| panic!("PING: {e}"));
                assert_eq!(pong, "PONG");
            }
            Err(why) => assert!(
                why.contains("docker") || why.contains("Docker") || why.contains("redis:7"),
                "an error that does not say what is missing: {why}"
            ),
        }
    }

    /// With a Docker daemon `redis-cli` runs in a container and prints
    /// what it says; without, the error says what is missing.
    #[test]
    fn redis_cli_runs_in_a_container_or_the_error_says_why() {
        match super::redis_cli(vec!["--version".into()]) {
            Ok(out) => assert!(out.contains("redis-cli"), "{out}"),
            Err(why) => assert!(
                why.contains("docker") || why.contains("Docker") || why.contains("redis:7"),
                "an error that does not say what is missing: {why}"
            ),
        }
    }

    /// A server's directory and its certificates' are mounted, each once;
    /// what is not a path on this machine is not.
    #[test]
    fn the_directories_the_arguments_name_are_found_once() {
        let dir = std::env::temp_dir().join(format!("revu-named-dirs-{}", std::process::id()));
        let certs = dir.join("certs");
        std::fs::create_dir_all(&certs).unwrap_or_else(|e| panic!("{e}"));
        let cert = certs.join("redis.pem");
        let key = certs.join("redis.key");
        for f in [&cert, &key] {
            std::fs::write(f, "x").unwrap_or_else(|e| panic!("{e}"));
        }
        let text = |p: &std::path::Path| p.to_string_lossy().into_owned();
        let args: Vec<String> = vec![
            "--port".into(),
            "6379".into(),
            "--dir".into(),
            text(&dir),
            "--tls-cert-file".into(),
            text(&cert),
            "--tls-key-file".into(),
            text(&key),
            "--save".into(),
            String::new(),
            "/no/such/path".into(),
            "nodes.conf".into(),
        ];
        assert_eq!(super::named_dirs(&args), vec![dir.clone(), certs]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
