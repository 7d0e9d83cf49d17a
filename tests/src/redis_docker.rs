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
    let (port_tx, port_rx) = mpsc::channel::<Result<u16, String>>();
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    let thread = std::thread::spawn(move || {
        let container = match Redis::default().with_tag(TAG).start() {
            Ok(c) => c,
            Err(e) => {
                let _ = port_tx.send(Err(format!("starting redis:{TAG}: {e}")));
                return;
            }
        };
        let port = container
            .get_host_port_ipv4(REDIS_PORT)
            .map_err(|e| format!("the container's Redis port: {e}"));
        let _ = port_tx.send(port);
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
    Err(
        "REVU_TEST_REDIS=docker needs the tests built with the `docker` feature: \
         `cargo test -p revu-tests --features docker`"
            .into(),
    )
}

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
}
