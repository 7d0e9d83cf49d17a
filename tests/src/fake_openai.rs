//! A model service on loopback that answers as OpenAI's chat completions
//! API does: its first requests are refused with a rate limit (429 and a
//! `Retry-After`), the rest answered with a clean report over the files
//! it is told, and usage with cached and reasoning tokens.

use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// The running service; stops accepting when dropped.
#[derive(Debug)]
pub struct FakeOpenai {
    pub addr: String,
    served: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl FakeOpenai {
    /// Refuses the first `rate_limited` requests, then answers each with a
    /// report that reviewed `files`.
    pub fn start(rate_limited: usize, files: &[&str]) -> FakeOpenai {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("addr: {e}"))
            .to_string();
        listener
            .set_nonblocking(true)
            .unwrap_or_else(|e| panic!("nonblocking: {e}"));
        let served = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let report = json!({
            "reviewed": files,
            "checks": ["fake model"],
            "findings": [],
            "summary": "nothing to report",
        })
        .to_string();
        let (count, stopping) = (served.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stopping.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let n = count.fetch_add(1, Ordering::SeqCst);
                        let _ = answer(stream, n < rate_limited, &report);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        FakeOpenai { addr, served, stop }
    }

    /// The base URL to give `--llm-base-url`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Requests answered so far.
    pub fn served(&self) -> usize {
        self.served.load(Ordering::SeqCst)
    }
}

impl Drop for FakeOpenai {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Reads one request and answers it, closing the connection.
fn answer(stream: TcpStream, limited: bool, report: &str) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    let (status, extra, payload) = if limited {
        (
            "429 Too Many Requests",
            "retry-after: 1\r\n",
            json!({"error": {"message": "rate limit reached, slow down", "type": "rate_limit"}})
                .to_string(),
        )
    } else {
        (
            "200 OK",
            "",
            json!({
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": "fake-mini",
                "choices": [{
                    "index": 0,
                    "message": {"role": "assistant", "content": report},
                    "finish_reason": "stop"
                }],
                "usage": {
                    "prompt_tokens": 1200,
                    "completion_tokens": 150,
                    "prompt_tokens_details": {"cached_tokens": 800},
                    "completion_tokens_details": {"reasoning_tokens": 40}
                }
            })
            .to_string(),
        )
    };
    let mut out = stream;
    out.write_all(
        format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n{payload}",
            payload.len()
        )
        .as_bytes(),
    )?;
    out.flush()
}
