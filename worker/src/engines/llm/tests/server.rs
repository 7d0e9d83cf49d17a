//! A loopback HTTP/1.1 server for the engine's tests: each request is
//! answered by a responder (the next response of a script, or what a
//! model family's API would say to it), one connection per request.

use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::Notify;

/// One scripted response.
pub(super) struct Scripted {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
    /// Held this long before answering.
    pub delay: Duration,
}

pub(super) fn ok(body: Value) -> Scripted {
    Scripted {
        status: 200,
        headers: vec![],
        body: body.to_string(),
        delay: Duration::ZERO,
    }
}

pub(super) fn status(status: u16, headers: Vec<(&'static str, String)>, body: &str) -> Scripted {
    Scripted {
        status,
        headers,
        body: body.to_owned(),
        delay: Duration::ZERO,
    }
}

/// What the server saw of one request.
#[derive(Debug, Clone)]
pub(super) struct Seen {
    pub head: String,
    pub body: Value,
}

/// A loopback HTTP/1.1 server, one connection per request. Ends with the
/// test's runtime, or when its responder has no more answers.
pub(super) struct Server {
    pub base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    pub arrived: Arc<Notify>,
    /// Set when a client closed its connection before the answer.
    pub hung_up: Arc<Notify>,
}

impl Server {
    /// Answers each request with the next response of `script`.
    pub async fn start(script: Vec<Scripted>) -> Server {
        let mut script = script.into_iter();
        Self::answering(move |_| script.next()).await
    }

    /// Answers each request with what `respond` makes of it, until it
    /// answers `None`.
    pub async fn answering(
        mut respond: impl FnMut(&Seen) -> Option<Scripted> + Send + 'static,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (arrived, hung_up) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
        let state = (seen.clone(), arrived.clone(), hung_up.clone());
        tokio::spawn(async move {
            loop {
                let Ok((mut conn, _)) = listener.accept().await else {
                    return;
                };
                let Some(request) = read_request(&mut conn).await else {
                    continue;
                };
                let Some(answer) = respond(&request) else {
                    return;
                };
                state.0.lock().unwrap().push(request);
                state.1.notify_one();
                if !answer.delay.is_zero() {
                    let mut byte = [0u8; 1];
                    tokio::select! {
                        () = tokio::time::sleep(answer.delay) => {}
                        read = conn.read(&mut byte) => {
                            if matches!(read, Ok(0) | Err(_)) {
                                state.2.notify_one();
                                continue;
                            }
                        }
                    }
                }
                let mut head = format!(
                    "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                    answer.status,
                    answer.body.len()
                );
                for (k, v) in &answer.headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                let _ = conn.write_all(head.as_bytes()).await;
                let _ = conn.write_all(answer.body.as_bytes()).await;
                let _ = conn.shutdown().await;
            }
        });
        Server {
            base,
            seen,
            arrived,
            hung_up,
        }
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Reads one request: its head and its JSON body (by content-length).
async fn read_request(conn: &mut tokio::net::TcpStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = conn.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = conn.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or(Value::Null);
    Some(Seen { head, body })
}
