//! The `exec` engine: any external command reviews a lane.
//!
//! Protocol: the command gets the lane as JSON on stdin (`job`, `files`,
//! `diff`, `head_files`, `intent`, `conventions`; `consumers`, what the
//! client's code index says of each lane file, when the review has one;
//! and for the adjudication lane `candidates`) and writes the lane report body as JSON on stdout
//! (`reviewed`, `checks`, `findings`, `summary`; an adjudication lane adds
//! `decisions`: `{"index", "action": "confirm"|"downgrade"|"drop",
//! "reason"}`, one per candidate).
//! Exit status 0 means a report; 64 (usage) or 65 (bad data) mean a
//! permanent failure; any other status, a signal, or running past the
//! timeout (the command is then killed) is a transient failure. The report
//! is passed on as written: the coordinator's completeness gate judges it.
//! Stderr is read as the command runs; its last 4 KB go into the reason of
//! a failure.

use super::{Engine, EngineError, EngineOutput, LaneInput, Review};
use revu_domain::lane::{FaultKind, LaneKind};
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};

/// Largest report read from a command's stdout.
const MAX_REPORT_BYTES: usize = 16 * 1024 * 1024;

/// How much of a command's stderr, its last bytes, a failure reason quotes.
const STDERR_TAIL_BYTES: usize = 4096;

/// A command's report (its stdout) that cannot be taken.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("reading the report: {0}")]
    Read(#[source] std::io::Error),
    /// Longer than `limit` bytes; the rest was drained.
    #[error("the report is longer than {} MiB", .limit / (1024 * 1024))]
    TooLong { limit: usize },
}

/// An exec engine given a command of no words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("engine {engine}: empty command")]
pub struct EmptyCommand {
    pub engine: String,
}

/// An engine backed by an external command.
#[derive(Debug, Clone)]
pub struct ExecEngine {
    name: String,
    program: String,
    args: Vec<String>,
    timeout: Duration,
    /// The variables the command gets from the worker's environment.
    env: Arc<[String]>,
}

impl ExecEngine {
    /// `command` is split on whitespace: a program and its arguments, run
    /// as an argv, never through a shell. It gets only the variables of
    /// the worker's environment that `env` names.
    pub fn new(
        name: &str,
        command: &str,
        timeout: Duration,
        env: Arc<[String]>,
    ) -> Result<Self, EmptyCommand> {
        let mut words = command.split_whitespace().map(str::to_owned);
        let program = words.next().ok_or_else(|| EmptyCommand {
            engine: name.to_owned(),
        })?;
        Ok(ExecEngine {
            name: name.to_owned(),
            program,
            args: words.collect(),
            timeout,
            env,
        })
    }

    fn request(input: &LaneInput) -> Result<Vec<u8>, EngineError> {
        let files: Vec<&str> = input.lane_files().iter().map(|f| f.path()).collect();
        let bundle = input.bundle();
        // Text for the command: a head file that is not UTF-8 shows U+FFFD.
        let heads: std::collections::BTreeMap<&str, std::borrow::Cow<'_, str>> = bundle
            .head_files
            .keys()
            .filter_map(|p| Some((p.as_str(), bundle.head_text(p)?)))
            .collect();
        let mut request = serde_json::json!({
            "job": &*input.job,
            "files": files,
            "diff": String::from_utf8_lossy(&bundle.diff),
            "head_files": heads,
            "intent": bundle.intent,
            "conventions": bundle.conventions,
        });
        // What the code index says of the lane's files: importers, callers
        // of their symbols, and the uses at head their change left stale.
        if let Some(index) = &bundle.code_index {
            let consumers: serde_json::Map<String, serde_json::Value> = files
                .iter()
                .filter_map(|path| {
                    let file = index.files.get(*path)?;
                    let stale: Vec<_> = index.omissions_in(path).collect();
                    Some((
                        (*path).to_owned(),
                        serde_json::json!({ "file": file, "stale_uses": stale }),
                    ))
                })
                .collect();
            request["consumers"] = serde_json::Value::Object(consumers);
        }
        match input.job.lane.kind {
            LaneKind::Adjudication | LaneKind::Challenge => {
                request["candidates"] = serde_json::json!(input.job.candidates);
            }
            LaneKind::Grouping => request["proposal"] = serde_json::json!(input.job.proposal),
            LaneKind::Synthesis => request["findings"] = serde_json::json!(input.job.candidates),
            LaneKind::Domain { .. } | LaneKind::Specialist { .. } => {}
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

    fn review(&self, input: LaneInput) -> Review<'_> {
        // Passed on untouched: the completeness gate lists what is wrong
        // with a malformed report, and sends it back once.
        Box::pin(async move { self.review_raw(input).await.map(EngineOutput::Raw) })
    }
}

/// What a command left behind when it exited.
pub(crate) struct Finished {
    pub(crate) status: ExitStatus,
    pub(crate) stdout: Result<Vec<u8>, ReportError>,
    pub(crate) stderr: String,
}

impl ExecEngine {
    /// Runs the command and returns its stdout as JSON. The command is
    /// killed when it runs past the timeout, and when the returned future is
    /// dropped (the lane was abandoned).
    pub async fn review_raw(&self, input: LaneInput) -> Result<serde_json::Value, EngineError> {
        // Encoding a large diff is CPU work: off the async runtime.
        let request = tokio::task::spawn_blocking(move || Self::request(&input))
            .await
            .map_err(|e| {
                EngineError::transient(FaultKind::Crash, format!("encoding the lane: {e}"))
            })??;
        let mut command = Command::new(&self.program);
        crate::engines::command_env::restrict(&mut command, &self.env);
        let mut child = command
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                EngineError::permanent(
                    FaultKind::Refused,
                    format!("starting {}: {e}", self.program),
                )
            })?;
        let finished = match tokio::time::timeout(self.timeout, finish(&mut child, request)).await {
            Ok(Ok(finished)) => finished,
            Ok(Err(e)) => {
                return Err(EngineError::transient(
                    FaultKind::Crash,
                    format!("waiting for {}: {e}", self.program),
                ));
            }
            Err(_) => {
                let _ = child.kill().await;
                return Err(EngineError::transient(
                    FaultKind::Timeout,
                    format!(
                        "{} timed out after {}s and was killed",
                        self.program,
                        self.timeout.as_secs()
                    ),
                ));
            }
        };
        let stderr = finished.stderr.trim();
        match finished.status.code() {
            Some(0) => {
                let stdout = finished.stdout.map_err(|e| {
                    EngineError::transient(FaultKind::BadReport, format!("{}: {e}", self.program))
                })?;
                serde_json::from_slice(&stdout).map_err(|e| {
                    EngineError::transient(
                        FaultKind::BadReport,
                        format!("{} wrote a report that is not JSON: {e}", self.program),
                    )
                })
            }
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

/// Feeds `request` to the child's stdin while reading its stdout and
/// stderr, all at once, so that no pipe fills up and stalls it; then
/// waits for it to exit.
pub(crate) async fn finish(child: &mut Child, request: Vec<u8>) -> std::io::Result<Finished> {
    let stdin = child.stdin.take();
    let write = async move {
        if let Some(mut pipe) = stdin {
            // A command that exits without reading its input is not an error.
            let _ = pipe.write_all(&request).await;
        }
    };
    let stdout = read_report(child.stdout.take());
    let stderr = tail(child.stderr.take());
    let ((), stdout, stderr) = tokio::join!(write, stdout, stderr);
    let status = child.wait().await?;
    Ok(Finished {
        status,
        stdout,
        stderr,
    })
}

/// Reads a report from `pipe`, up to [`MAX_REPORT_BYTES`]; a longer one
/// is an error, and the rest is drained so the command is not stalled.
async fn read_report(pipe: Option<impl AsyncRead + Unpin>) -> Result<Vec<u8>, ReportError> {
    let Some(mut pipe) = pipe else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut too_long = false;
    loop {
        match pipe.read(&mut chunk).await {
            Ok(0) => break,
            Ok(n) if !too_long && out.len() + n <= MAX_REPORT_BYTES => {
                out.extend_from_slice(&chunk[..n]);
            }
            Ok(_) => too_long = true,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ReportError::Read(e)),
        }
    }
    if too_long {
        Err(ReportError::TooLong {
            limit: MAX_REPORT_BYTES,
        })
    } else {
        Ok(out)
    }
}

/// Reads `pipe` to its end and returns its last [`STDERR_TAIL_BYTES`],
/// starting on a character boundary.
async fn tail(pipe: Option<impl AsyncRead + Unpin>) -> String {
    let Some(mut pipe) = pipe else {
        return String::new();
    };
    let mut kept: Vec<u8> = Vec::with_capacity(2 * STDERR_TAIL_BYTES);
    let mut chunk = [0u8; 8192];
    loop {
        match pipe.read(&mut chunk).await {
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
    use crate::engines::LoadedReview;
    use revu_domain::bundle::ReviewBundle;
    use revu_domain::lane::{LaneJob, LaneSpec, ReviewId};
    use revu_domain::retry::Retry;
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::Instant;

    /// A shell script in the temp dir, removed when dropped.
    struct Script(PathBuf);

    impl Script {
        fn new(body: &str) -> Script {
            let path = std::env::temp_dir().join(format!("revu-exec-{}.sh", uuid::Uuid::new_v4()));
            std::fs::write(&path, body).unwrap_or_else(|e| panic!("writing the script: {e}"));
            Script(path)
        }

        fn engine(&self, timeout: Duration) -> ExecEngine {
            let env = crate::engines::command_env::CommandEnv::default().names();
            ExecEngine::new("exec", &format!("sh {}", self.0.display()), timeout, env)
                .unwrap_or_else(|e| panic!("{e}"))
        }
    }

    impl Drop for Script {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    fn input() -> LaneInput {
        let lane = LaneSpec {
            id: "domain:docs".into(),
            kind: LaneKind::Domain {
                domain: "docs".into(),
            },
            engine: "exec".into(),
            files: Vec::new(),
            guidance: Vec::new(),
        };
        LaneInput::new(
            Arc::new(LaneJob::new(ReviewId::new(), lane, 1, u64::MAX, Vec::new())),
            Arc::new(LoadedReview::new(
                ReviewBundle::default().into(),
                Arc::default(),
            )),
        )
    }

    async fn run(engine: &ExecEngine) -> Result<serde_json::Value, EngineError> {
        engine.review_raw(input()).await
    }

    #[test]
    fn the_request_carries_what_the_code_index_says_of_the_lane_files() {
        use revu_domain::code_index::{CodeIndex, IndexedFile};
        let lane = LaneSpec {
            id: "domain:app".into(),
            kind: LaneKind::Domain {
                domain: "app".into(),
            },
            engine: "exec".into(),
            files: vec!["app.py".into()],
            guidance: Vec::new(),
        };
        let patch = b"diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n";
        let base = crate::engines::patch_input(lane, patch, "");
        let mut review = LoadedReview::clone(&base.review);
        let mut index = CodeIndex::default();
        index.files.insert(
            "app.py".into(),
            IndexedFile {
                language: "python".into(),
                direct_importers: 3,
                ..IndexedFile::default()
            },
        );
        Arc::make_mut(&mut review.bundle).code_index = Some(index);
        let input = LaneInput::new(base.job.clone(), Arc::new(review));
        let request: serde_json::Value = ExecEngine::request(&input)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        assert_eq!(
            request["consumers"]["app.py"]["file"]["direct_importers"], 3,
            "{request:#}"
        );
        // Without an index there is no `consumers`.
        let plain: serde_json::Value = ExecEngine::request(&base)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        assert!(plain.get("consumers").is_none(), "{plain:#}");
    }

    /// Writes 200 KB to stderr, far more than a pipe holds.
    const NOISY: &str = "cat > /dev/null\nhead -c 204800 /dev/zero | tr '\\0' 'x' >&2\n";

    #[tokio::test]
    async fn a_command_writing_200kb_to_stderr_reports_without_waiting_for_the_timeout() {
        let script = Script::new(&format!(
            "{NOISY}echo '{{\"reviewed\":[],\"checks\":[],\"findings\":[],\"summary\":\"ok\"}}'\n"
        ));
        let timeout = Duration::from_secs(20);
        let started = Instant::now();
        let report = run(&script.engine(timeout)).await;
        let took = started.elapsed();
        assert_eq!(
            report.map(|r| r["summary"].clone()),
            Ok(serde_json::json!("ok"))
        );
        assert!(took < timeout / 4, "took {took:?}");
    }

    #[tokio::test]
    async fn a_failing_command_is_reported_with_the_tail_of_its_stderr() {
        let script = Script::new(&format!("{NOISY}echo 'the last words' >&2\nexit 3\n"));
        let timeout = Duration::from_secs(20);
        let started = Instant::now();
        let err = match run(&script.engine(timeout)).await {
            Err(EngineError {
                retry: Retry::Transient,
                kind: FaultKind::EngineError,
                reason,
                ..
            }) => reason,
            other => panic!("expected a transient failure, got {other:?}"),
        };
        assert!(started.elapsed() < timeout / 4, "{err}");
        assert!(err.contains("failed (exit 3)"), "{err}");
        assert!(err.ends_with("xxxxthe last words"), "{err}");
        assert!(err.len() <= STDERR_TAIL_BYTES + 100, "{} bytes", err.len());
    }

    #[tokio::test]
    async fn a_command_past_its_timeout_is_killed() {
        let script = Script::new("cat > /dev/null\nsleep 30\n");
        let started = Instant::now();
        let err = run(&script.engine(Duration::from_millis(300)))
            .await
            .err()
            .unwrap_or_else(|| panic!("a 30 s command finished in 300 ms"));
        assert_eq!(err.kind, FaultKind::Timeout, "{err}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    /// Whether process `pid` exists (and is not a zombie).
    fn alive(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| !stat.contains(") Z "))
    }

    #[tokio::test]
    async fn an_abandoned_lane_kills_its_command() {
        let pid_file = std::env::temp_dir().join(format!("revu-exec-{}.pid", uuid::Uuid::new_v4()));
        let script = Script::new(&format!(
            "cat > /dev/null\necho $$ > {}\nexec sleep 30\n",
            pid_file.display()
        ));
        let engine = script.engine(Duration::from_secs(60));
        let lane = engine.review(input());
        // The lane is abandoned (a cancel, a lost lease) once the command runs.
        let pid = tokio::select! {
            _ = lane => panic!("a 30 s command finished"),
            pid = async {
                loop {
                    if let Ok(pid) = std::fs::read_to_string(&pid_file)
                        && !pid.trim().is_empty()
                    {
                        return pid.trim().to_owned();
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            } => pid,
        };
        let started = Instant::now();
        while alive(&pid) {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "command {pid} still runs after its lane was dropped"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let _ = std::fs::remove_file(&pid_file);
    }

    #[tokio::test]
    async fn the_tail_starts_on_a_character_boundary() {
        // 6,001 bytes: the last 4,096 start inside an `é`.
        let text = format!("{}z", "é".repeat(3000));
        let kept = tail(Some(text.as_bytes())).await;
        assert_eq!(kept, format!("{}z", "é".repeat(2047)));
    }

    #[tokio::test]
    async fn a_short_stderr_is_kept_whole() {
        assert_eq!(
            tail(Some("no such file\n".as_bytes())).await,
            "no such file\n"
        );
    }
}
