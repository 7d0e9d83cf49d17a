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
//! Stderr is read as the command runs; its last 4 KB go into the reason of
//! a failure.

use super::{Engine, EngineError, EngineOutput, LaneInput};
use revu_common::lane::{FaultKind, LaneKind};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Largest report read from a command's stdout.
const MAX_REPORT_BYTES: u64 = 16 * 1024 * 1024;

/// How much of a command's stderr, its last bytes, a failure reason quotes.
const STDERR_TAIL_BYTES: usize = 4096;

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
            EngineError::permanent(
                FaultKind::EngineError,
                format!("encoding the lane for {}: {e}", input.job.lane.id),
            )
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
            .map_err(|e| {
                EngineError::permanent(
                    FaultKind::Refused,
                    format!("starting {}: {e}", self.program),
                )
            })?;
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
        // Drained while the command runs: a command blocked on a full
        // stderr pipe would otherwise never exit and only time out.
        let stderr = child.stderr.take();
        let errors = std::thread::spawn(move || stderr.map(tail).unwrap_or_default());
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if self.stopping.load(Ordering::Relaxed) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(EngineError::transient(
                        FaultKind::Cancelled,
                        format!("{} killed: the worker is stopping", self.program),
                    ));
                }
                Ok(None) if started.elapsed() >= self.timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(EngineError::transient(
                        FaultKind::Timeout,
                        format!(
                            "{} timed out after {}s and was killed",
                            self.program,
                            self.timeout.as_secs()
                        ),
                    ));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(e) => {
                    return Err(EngineError::transient(
                        FaultKind::Crash,
                        format!("waiting for {}: {e}", self.program),
                    ));
                }
            }
        };
        let _ = writer.join();
        let stdout = reader.join().unwrap_or_default();
        let stderr = errors.join().unwrap_or_default();
        let stderr = stderr.trim();
        match status.code() {
            Some(0) => serde_json::from_slice(&stdout).map_err(|e| {
                EngineError::transient(
                    FaultKind::BadReport,
                    format!("{} wrote a report that is not JSON: {e}", self.program),
                )
            }),
            Some(code @ (64 | 65)) => Err(EngineError::permanent(
                FaultKind::Refused,
                format!("{} refused the lane (exit {code}): {stderr}", self.program),
            )),
            Some(code) => Err(EngineError::transient(
                FaultKind::EngineError,
                format!("{} failed (exit {code}): {stderr}", self.program),
            )),
            None => Err(EngineError::transient(
                FaultKind::Crash,
                format!("{} was killed by a signal", self.program),
            )),
        }
    }
}

/// Reads `pipe` to its end and returns its last [`STDERR_TAIL_BYTES`],
/// starting on a character boundary.
fn tail(mut pipe: impl Read) -> String {
    let mut kept: Vec<u8> = Vec::with_capacity(2 * STDERR_TAIL_BYTES);
    let mut chunk = [0u8; 8192];
    loop {
        match pipe.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                kept.extend_from_slice(&chunk[..n]);
                if kept.len() > STDERR_TAIL_BYTES {
                    kept.drain(..kept.len() - STDERR_TAIL_BYTES);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    // The cut may split a UTF-8 sequence: skip its continuation bytes.
    let start = kept
        .iter()
        .take(3)
        .take_while(|b| (**b & 0b1100_0000) == 0b1000_0000)
        .count();
    String::from_utf8_lossy(&kept[start..]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use revu_common::bundle::ReviewBundle;
    use revu_common::diff::Diff;
    use revu_common::lane::{LaneJob, LaneSpec, ReviewId};
    use std::path::PathBuf;

    /// A shell script in the temp dir, removed when dropped.
    struct Script(PathBuf);

    impl Script {
        fn new(body: &str) -> Script {
            let path = std::env::temp_dir().join(format!("revu-exec-{}.sh", uuid::Uuid::new_v4()));
            std::fs::write(&path, body).unwrap_or_else(|e| panic!("writing the script: {e}"));
            Script(path)
        }

        fn engine(&self, timeout: Duration) -> ExecEngine {
            ExecEngine::new("exec", &format!("sh {}", self.0.display()), timeout)
                .unwrap_or_else(|e| panic!("{e}"))
        }
    }

    impl Drop for Script {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    fn job() -> LaneJob {
        let lane = LaneSpec {
            id: "domain:docs".into(),
            kind: LaneKind::Domain {
                domain: "docs".into(),
            },
            engine: "exec".into(),
            files: Vec::new(),
            guidance: Vec::new(),
        };
        LaneJob::new(ReviewId::new(), lane, 1, u64::MAX, Vec::new())
    }

    fn run(engine: &ExecEngine) -> Result<serde_json::Value, EngineError> {
        let job = job();
        let (diff, bundle) = (Diff::default(), ReviewBundle::default());
        engine.review_raw(&LaneInput {
            job: &job,
            diff: &diff,
            bundle: &bundle,
        })
    }

    /// Writes 200 KB to stderr, far more than a pipe holds.
    const NOISY: &str = "cat > /dev/null\nhead -c 204800 /dev/zero | tr '\\0' 'x' >&2\n";

    #[test]
    fn a_command_writing_200kb_to_stderr_reports_without_waiting_for_the_timeout() {
        let script = Script::new(&format!(
            "{NOISY}echo '{{\"reviewed\":[],\"checks\":[],\"findings\":[],\"summary\":\"ok\"}}'\n"
        ));
        let timeout = Duration::from_secs(20);
        let started = Instant::now();
        let report = run(&script.engine(timeout));
        let took = started.elapsed();
        assert_eq!(
            report.map(|r| r["summary"].clone()),
            Ok(serde_json::json!("ok"))
        );
        assert!(took < timeout / 4, "took {took:?}");
    }

    #[test]
    fn a_failing_command_is_reported_with_the_tail_of_its_stderr() {
        let script = Script::new(&format!("{NOISY}echo 'the last words' >&2\nexit 3\n"));
        let timeout = Duration::from_secs(20);
        let started = Instant::now();
        let err = match run(&script.engine(timeout)) {
            Err(EngineError {
                transient: true,
                kind: FaultKind::EngineError,
                reason,
            }) => reason,
            other => panic!("expected a transient failure, got {other:?}"),
        };
        assert!(started.elapsed() < timeout / 4, "{err}");
        assert!(err.contains("failed (exit 3)"), "{err}");
        assert!(err.ends_with("xxxxthe last words"), "{err}");
        assert!(err.len() <= STDERR_TAIL_BYTES + 100, "{} bytes", err.len());
    }

    #[test]
    fn the_tail_starts_on_a_character_boundary() {
        // 6,001 bytes: the last 4,096 start inside an `é`.
        let text = format!("{}z", "é".repeat(3000));
        let kept = tail(text.as_bytes());
        assert_eq!(kept, format!("{}z", "é".repeat(2047)));
    }

    #[test]
    fn a_short_stderr_is_kept_whole() {
        assert_eq!(tail("no such file\n".as_bytes()), "no such file\n");
    }
}
