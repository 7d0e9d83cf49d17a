//! A model server on loopback for the `revu review --engine llm` tests,
//! and the runs that review against it. Each test crate that includes
//! this uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub const KEY: &str = "sk-revu-test-key-0123456789";

/// Most requests a test server answers before it stops by itself.
const MAX_REQUESTS: usize = 200;

/// A loopback server on a thread of its own, answering each request as
/// its responder says; records when requests came and what they asked.
pub struct Server {
    pub base: String,
    times: Arc<Mutex<Vec<Instant>>>,
    bodies: Arc<Mutex<Vec<String>>>,
    pub saw_key: Arc<AtomicUsize>,
}

/// Answers every request with `status`, `headers` (each line ending in
/// `\r\n`) and the body `respond` makes of the request's body; requests
/// are answered one after the other, in the order they came.
pub fn serve_with(
    headers: &'static str,
    respond: impl Fn(&str) -> (u16, String) + Send + 'static,
) -> Server {
    let listener =
        TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("binding loopback: {e}"));
    let base = format!(
        "http://{}/v1",
        listener
            .local_addr()
            .unwrap_or_else(|e| panic!("local address: {e}"))
    );
    let times = Arc::new(Mutex::new(Vec::new()));
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let saw_key = Arc::new(AtomicUsize::new(0));
    let (t, b, k) = (times.clone(), bodies.clone(), saw_key.clone());
    std::thread::spawn(move || {
        for conn in listener.incoming().take(MAX_REQUESTS) {
            let Ok(mut conn) = conn else { continue };
            let mut reader = BufReader::new(match conn.try_clone() {
                Ok(c) => c,
                Err(_) => continue,
            });
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                if lower.starts_with("authorization:") && line.contains(KEY) {
                    k.fetch_add(1, Ordering::SeqCst);
                }
            }
            let mut body_in = vec![0u8; length];
            let _ = reader.read_exact(&mut body_in);
            let request = String::from_utf8_lossy(&body_in).into_owned();
            let (status, body) = respond(&request);
            if let (Ok(mut times), Ok(mut bodies)) = (t.lock(), b.lock()) {
                times.push(Instant::now());
                bodies.push(request);
            }
            let reply = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n{headers}\r\n{body}",
                body.len()
            );
            let _ = conn.write_all(reply.as_bytes());
        }
    });
    Server {
        base,
        times,
        bodies,
        saw_key,
    }
}

impl Server {
    /// When each request came.
    pub fn requests(&self) -> Vec<Instant> {
        self.times.lock().map(|t| t.clone()).unwrap_or_default()
    }

    /// Each request's body, in the order they came.
    pub fn bodies(&self) -> Vec<serde_json::Value> {
        self.bodies
            .lock()
            .map(|b| {
                b.iter()
                    .map(|text| serde_json::from_str(text).unwrap_or_default())
                    .collect()
            })
            .unwrap_or_default()
    }
}

pub fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
}

/// `revu review --engine llm --format json` of `patch` (the name of an
/// example, or a path) against `server` with `model`, the key given in
/// the environment. Adjudication, on by default where a model reviews, is
/// off unless `extra` sets `--adjudicate`: these servers answer lanes,
/// not adjudications.
pub fn review_model(server: &Server, patch: &str, model: &str, extra: &[&str]) -> Output {
    let mut args = extra.to_vec();
    if !extra.contains(&"--adjudicate") {
        args.extend(["--adjudicate", "none"]);
    }
    review_model_as_is(server, patch, model, &args)
}

/// [`review_model`] with revu's defaults, adjudication included.
pub fn review_model_as_is(server: &Server, patch: &str, model: &str, extra: &[&str]) -> Output {
    let diff = example(patch);
    crate::scratch::outside_ci(&mut Command::new(env!("CARGO_BIN_EXE_revu")))
        .env_remove("TRACEPARENT")
        .env("REVU_LLM_API_KEY", KEY)
        .args([
            "review",
            "--diff",
            &diff.to_string_lossy(),
            "--format",
            "json",
            "--engine",
            "llm",
            "--llm-provider",
            "openai",
            "--llm-base-url",
            &server.base,
            "--llm-model",
            model,
        ])
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A chat completion whose message is `content`.
pub fn answer(content: &str) -> String {
    serde_json::json!({
        "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 40},
    })
    .to_string()
}

pub fn report(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

pub fn outcomes(report: &serde_json::Value) -> Vec<String> {
    report["lanes"]
        .as_array()
        .map(|lanes| {
            lanes
                .iter()
                .map(|l| l["outcome"].as_str().unwrap_or("?").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

pub fn assert_key_hidden(out: &Output) {
    assert!(!String::from_utf8_lossy(&out.stdout).contains(KEY));
    assert!(!String::from_utf8_lossy(&out.stderr).contains(KEY));
}
