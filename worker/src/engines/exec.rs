//! The `exec` engine: any external command reviews a lane.
//!
//! Protocol: the command gets the lane as JSON on stdin (`job`, `files`,
//! `diff`, `head_files`, `intent`, `conventions`, and for the adjudication
//! lane `candidates`) and writes the lane report body as JSON on stdout
//! (`reviewed`, `checks`, `findings`, `summary`; an adjudication lane adds
//! `decisions`: `{"index", "action": "confirm"|"downgrade"|"drop",
//! "reason"}`, one per candidate).
//! Exit status 0 means a report; 64 (usage) or 65 (bad data) mean a
//! permanent failure; any other status, a signal, or running past the
//! timeout (the command is then killed) is a transient failure. The report
//! is passed on as written: the coordinator's completeness gate judges it.

use super::{Engine, EngineError, EngineOutput, LaneInput};
use revu_common::lane::LaneKind;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Largest report read from a command's stdout.
const MAX_REPORT_BYTES: u64 = 16 * 1024 * 1024;

/// An engine backed by an external command.
#[derive(Debug, Clone)]
pub struct ExecEngine {
    name: String,
    program: String,
    args: Vec<String>,
    timeout: Duration,
    /// Set when the worker gives up its lanes: running commands are killed.
    stopping: Arc<AtomicBool>,
}

impl ExecEngine {
    /// `command` is split on whitespace: a program and its arguments.
    pub fn new(name: &str, command: &str, timeout: Duration) -> Result<Self, String> {
        let mut words = command.split_whitespace().map(str::to_owned);
        let program = words
            .next()
            .ok_or_else(|| format!("engine {name}: empty command"))?;
        Ok(ExecEngine {
            name: name.to_owned(),
            program,
            args: words.collect(),
            timeout,
            stopping: Arc::new(AtomicBool::new(false)),
        })
    }

    fn request(input: &LaneInput<'_>) -> Result<Vec<u8>, EngineError> {
        let files: Vec<&str> = input.lane_files().iter().map(|f| f.path()).collect();
        let mut request = serde_json::json!({
            "job": input.job,
            "files": files,
            "diff": String::from_utf8_lossy(&input.bundle.diff),
            "head_files": input.bundle.head_files,
            "intent": input.bundle.intent,
            "conventions": input.bundle.conventions,
        });
        if input.job.lane.kind == LaneKind::Adjudication {
            request["candidates"] = serde_json::json!(input.job.candidates);
        }
        serde_json::to_vec(&request).map_err(|e| {
            EngineError::Permanent(format!("encoding the lane for {}: {e}", input.job.lane.id))
        })
    }
}

impl Engine for ExecEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn stop(&self) {
        self.stopping.store(true, Ordering::Relaxed);
    }

    fn review(&self, input: &LaneInput<'_>) -> Result<EngineOutput, EngineError> {
        // Passed on untouched: the completeness gate lists what is wrong
        // with a malformed report, and sends it back once.
        self.review_raw(input).map(EngineOutput::Raw)
    }
}

impl ExecEngine {
    /// Runs the command and returns its stdout as JSON.
    pub fn review_raw(&self, input: &LaneInput<'_>) -> Result<serde_json::Value, EngineError> {
        let request = Self::request(input)?;
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| EngineError::Permanent(format!("starting {}: {e}", self.program)))?;
        let mut stdin = child.stdin.take();
        let writer = std::thread::spawn(move || {
            if let Some(pipe) = stdin.as_mut() {
                // A command that exits without reading its input is not an error.
                let _ = pipe.write_all(&request);
            }
        });
        let stdout = child.stdout.take();
        let reader = std::thread::spawn(move || {
            let mut out = Vec::new();
            if let Some(pipe) = stdout {
                let _ = pipe.take(MAX_REPORT_BYTES).read_to_end(&mut out);
            }
            out
        });
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if self.stopping.load(Ordering::Relaxed) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(EngineError::Transient(format!(
                        "{} killed: the worker is stopping",
                        self.program
                    )));
                }
                Ok(None) if started.elapsed() >= self.timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(EngineError::Transient(format!(
                        "{} timed out after {}s and was killed",
                        self.program,
                        self.timeout.as_secs()
                    )));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(e) => {
                    return Err(EngineError::Transient(format!(
                        "waiting for {}: {e}",
                        self.program
                    )));
                }
            }
        };
        let _ = writer.join();
        let stdout = reader.join().unwrap_or_default();
        let mut stderr = String::new();
        if let Some(mut pipe) = child.stderr.take() {
            let _ = (&mut pipe).take(4096).read_to_string(&mut stderr);
        }
        let stderr = stderr.trim();
        match status.code() {
            Some(0) => serde_json::from_slice(&stdout).map_err(|e| {
                EngineError::Transient(format!(
                    "{} wrote a report that is not JSON: {e}",
                    self.program
                ))
            }),
            Some(code @ (64 | 65)) => Err(EngineError::Permanent(format!(
                "{} refused the lane (exit {code}): {stderr}",
                self.program
            ))),
            Some(code) => Err(EngineError::Transient(format!(
                "{} failed (exit {code}): {stderr}",
                self.program
            ))),
            None => Err(EngineError::Transient(format!(
                "{} was killed by a signal",
                self.program
            ))),
        }
    }
}
