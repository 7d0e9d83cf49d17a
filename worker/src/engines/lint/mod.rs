//! Linters on PATH, run by the rules engine on each domain lane: the head
//! contents of the lane's files are written to a scratch directory, each
//! tool that reads some of them runs there (killed at its timeout, and when
//! the lane is abandoned), and what it reports becomes findings with a
//! stable rule id `TOOL:CODE`, kept or left out by reviewdog's filter
//! modes. A tool that is missing, fails or times out is named in the
//! lane's checks: never silent.

mod engine;
mod failure;
pub mod settings;
mod tools;

pub use engine::{LINT_ENGINE, LintEngine};
pub use settings::{FilterMode, LintSettings, ToolSpec};

use super::LaneInput;
use super::exec::finish;
use failure::{ScratchError, ToolFailure};
use revu_domain::diff::{FilePatch, FileStatus};
use revu_domain::finding::{BlastRadius, Dimension, Finding};
use revu_domain::paths::is_test_path;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tools::{Raw, Tool};

/// Confidence of a linter's finding: a tool's rule is a fact about the
/// code, not a guess, but it knows nothing of the change's intent.
const CONFIDENCE: u8 = 85;

/// The linters a worker runs.
#[derive(Debug, Clone)]
pub struct Linters {
    tools: Vec<Tool>,
    mode: FilterMode,
    timeout: Duration,
    /// The variables a tool gets from the worker's environment.
    env: std::sync::Arc<[String]>,
}

/// What the linters found on one lane, and what they did.
#[derive(Debug, Default)]
pub struct Linted {
    pub findings: Vec<Finding>,
    /// One line per tool that had files to read: ran, missing, failed.
    pub checks: Vec<String>,
}

impl Linters {
    /// The built-in tools and the configured ones; `None` when off.
    pub fn new(settings: &LintSettings) -> Option<Linters> {
        if !settings.linters {
            return None;
        }
        let mut tools = tools::builtin();
        tools.extend(settings.lint_tools.iter().map(tools::configured));
        Some(Linters {
            tools,
            mode: settings.lint_filter_mode,
            timeout: Duration::from_secs(settings.lint_timeout_secs.max(1)),
            env: settings.env.names(),
        })
    }

    /// What decides the tools' answers, for the lane result cache: the
    /// filter mode, and each tool's command with the program it resolves
    /// to on PATH now (its size and modification time stand for its
    /// version: an upgraded tool is another tool).
    pub fn identity(&self) -> String {
        let mut out = format!("mode={}", self.mode.as_str());
        for tool in &self.tools {
            let found = on_path(&tool.program).and_then(|p| {
                let meta = p.metadata().ok()?;
                let mtime = meta
                    .modified()
                    .ok()?
                    .duration_since(std::time::UNIX_EPOCH)
                    .ok()?
                    .as_secs();
                Some(format!("{}:{}:{mtime}", p.display(), meta.len()))
            });
            out.push_str(&format!(
                " {}[{} {}]={}",
                tool.name,
                tool.program,
                tool.args.join(" "),
                found.as_deref().unwrap_or("absent")
            ));
        }
        out
    }

    /// The linters' findings on every file of `input`'s review, run by the
    /// first lane of the review in this process that asks and shared with
    /// the rest ([`LaneInput::linted`] gives a lane those in its files).
    /// What the tools could not do is the lint lanes' to report; here a
    /// missing tool only means less is shown.
    pub async fn run_once(&self, input: &LaneInput) {
        let memo = std::sync::Arc::clone(&input.review.linted);
        memo.get_or_init(|| async {
            let mut job = (*input.job).clone();
            job.lane.files = input
                .diff()
                .files
                .iter()
                .map(|p| p.path().to_owned())
                .collect();
            let whole = LaneInput::new(std::sync::Arc::new(job), input.review.clone());
            self.run(&whole).await.findings
        })
        .await;
    }

    /// Runs every tool that reads one of the lane's files.
    pub async fn run(&self, input: &LaneInput) -> Linted {
        let files = head_files(input);
        let mut linted = Linted::default();
        let mut scratch: Option<Scratch> = None;
        for tool in &self.tools {
            let mine: Vec<&(String, Vec<u8>)> =
                files.iter().filter(|(path, _)| tool.reads(path)).collect();
            if mine.is_empty() {
                continue;
            }
            let Some(program) = on_path(&tool.program) else {
                linted.checks.push(format!(
                    "{}: not on PATH, {} file(s) not linted",
                    tool.name,
                    mine.len()
                ));
                continue;
            };
            if scratch.is_none() {
                match Scratch::write(&files).await {
                    Ok(s) => scratch = Some(s),
                    Err(e) => {
                        linted.checks.push(format!("linters not run: {e}"));
                        return linted;
                    }
                }
            }
            let Some(dir) = scratch.as_ref() else { break };
            let paths: Vec<&str> = mine.iter().map(|(p, _)| p.as_str()).collect();
            match self.run_tool(tool, &program, &dir.root, &paths).await {
                Ok(raw) => {
                    let (kept, left_out) = self.keep(input, &dir.root, raw, &paths);
                    let mut line = format!(
                        "{} ({} file(s)): {} finding(s)",
                        tool.name,
                        paths.len(),
                        kept.len()
                    );
                    if left_out > 0 {
                        line.push_str(&format!(
                            ", {left_out} outside the {} lines left out",
                            self.mode.as_str()
                        ));
                    }
                    linted.checks.push(line);
                    linted
                        .findings
                        .extend(kept.into_iter().map(|r| finding(&tool.name, r)));
                }
                Err(why) => linted.checks.push(format!("{}: {why}", tool.name)),
            }
        }
        // The scratch directory goes with `scratch`, here or when the lane
        // is abandoned.
        drop(scratch);
        linted
    }

    /// One tool on `paths` in `dir`: its problems, or why there are none.
    async fn run_tool(
        &self,
        tool: &Tool,
        program: &Path,
        dir: &Path,
        paths: &[&str],
    ) -> Result<Vec<Raw>, ToolFailure> {
        let mut command = tokio::process::Command::new(program);
        crate::engines::command_env::restrict(&mut command, &self.env);
        let mut child = command
            .args(&tool.args)
            .args(paths)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(ToolFailure::Start)?;
        let finished =
            match tokio::time::timeout(self.timeout, finish(&mut child, Vec::new())).await {
                Ok(Ok(finished)) => finished,
                Ok(Err(e)) => return Err(ToolFailure::Wait(e)),
                Err(_) => {
                    let _ = child.kill().await;
                    return Err(ToolFailure::Timeout(self.timeout));
                }
            };
        let code = finished.status.code();
        if !code.is_some_and(|c| tool.ok_exits.contains(&c)) {
            let stderr = finished.stderr.trim();
            let tail: String = stderr
                .lines()
                .last()
                .unwrap_or_default()
                .chars()
                .take(200)
                .collect();
            return Err(ToolFailure::Exit { code, tail });
        }
        let stdout = finished.stdout?;
        Ok(tool.parse(&stdout)?)
    }

    /// The problems on the lane's files that the filter mode keeps, with
    /// paths made relative to the scratch directory; and how many it left
    /// out.
    fn keep(
        &self,
        input: &LaneInput,
        dir: &Path,
        raw: Vec<Raw>,
        paths: &[&str],
    ) -> (Vec<Raw>, usize) {
        let patches = input.lane_files();
        let root = dir.to_string_lossy().into_owned();
        let mut left_out = 0;
        let mut kept = Vec::new();
        for mut r in raw {
            let relative = r
                .file
                .strip_prefix(&root)
                .unwrap_or(&r.file)
                .trim_start_matches('/')
                .trim_start_matches("./")
                .to_owned();
            r.file = relative;
            let patch = patches.iter().find(|p| p.path() == r.file);
            let keep = match (patch, self.mode) {
                _ if r.line == 0 || !paths.contains(&r.file.as_str()) => false,
                // A test's temporary path, subprocess or fixed password is
                // the test's own, not a hole in the program: the built-in
                // rules skip test code, and so do linters' security checks.
                _ if r.dimension == Dimension::Security && is_test_path(&r.file) => false,
                (_, FilterMode::Nofilter) => true,
                (None, _) => false,
                (Some(_), FilterMode::File) => true,
                (Some(p), FilterMode::DiffContext) => p.has_head_line(r.line),
                (Some(p), FilterMode::Added) => p.is_added_line(r.line),
            };
            if keep {
                kept.push(r);
            } else {
                left_out += 1;
            }
        }
        (kept, left_out)
    }
}

/// A linter's problem as a finding.
fn finding(tool: &str, r: Raw) -> Finding {
    let documented = r
        .url
        .as_deref()
        .map(|u| format!(" (see {u})"))
        .unwrap_or_default();
    Finding {
        rule: format!("{tool}:{}", r.code),
        severity: r.severity,
        file: r.file,
        line: r.line,
        end_line: r.end_line,
        dimension: r.dimension,
        dimensions: Vec::new(),
        summary: r.message.clone(),
        why: format!("{tool} reports {}: {}{documented}", r.code, r.message),
        fix: r.fix.unwrap_or_else(|| match &r.url {
            Some(u) => format!("Do what the rule's documentation advises: {u}"),
            None => format!(
                "Change the code so that {tool} no longer reports {}.",
                r.code
            ),
        }),
        confidence: CONFIDENCE,
        blast_radius: BlastRadius::Local,
        pre_existing: false,
        pre_existing_line: false,
        downgraded_from: None,
        meta: false,
        owners: Vec::new(),
    }
}

/// The head contents of the lane's text files, byte-exact: from the
/// bundle, or, for a file the change adds, its added lines. Deleted,
/// binary and unsafe paths are left out.
fn head_files(input: &LaneInput) -> Vec<(String, Vec<u8>)> {
    let heads = &input.bundle().head_files;
    input
        .lane_files()
        .into_iter()
        .filter(|p| !p.binary && p.status != FileStatus::Deleted && safe(p.path()))
        .filter_map(|p| {
            let text = heads.get(p.path()).cloned().or_else(|| added_file(p))?;
            Some((p.path().to_owned(), text))
        })
        .collect()
}

/// An added file's content, from its added lines.
fn added_file(p: &FilePatch) -> Option<Vec<u8>> {
    if p.status != FileStatus::Added {
        return None;
    }
    let mut text = String::new();
    for (_, line) in p.added_lines() {
        text.push_str(line);
        text.push('\n');
    }
    Some(text.into_bytes())
}

/// A relative path that stays inside the scratch directory.
fn safe(path: &str) -> bool {
    let p = Path::new(path);
    !p.is_absolute()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// `program` as PATH finds it.
fn on_path(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let p = PathBuf::from(program);
        return runnable(&p).then_some(p);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| runnable(p))
}

/// The scratch directory a lane's files are linted in.
struct Scratch {
    root: PathBuf,
}

impl Scratch {
    async fn write(files: &[(String, Vec<u8>)]) -> Result<Scratch, ScratchError> {
        let root = std::env::temp_dir().join(format!("revu-lint-{}", uuid::Uuid::now_v7()));
        for (path, text) in files {
            let at = root.join(path);
            if let Some(parent) = at.parent() {
                tokio::fs::create_dir_all(parent)
                    .await
                    .map_err(|source| ScratchError::Create {
                        path: parent.to_owned(),
                        source,
                    })?;
            }
            tokio::fs::write(&at, text)
                .await
                .map_err(|source| ScratchError::Write { path: at, source })?;
        }
        Ok(Scratch { root })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let root = std::mem::take(&mut self.root);
        let remove = move || {
            if let Err(e) = std::fs::remove_dir_all(&root) {
                tracing::debug!(dir = %root.display(), error = %e, "scratch directory not removed");
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(remove)),
            Err(_) => remove(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use revu_domain::finding::{Dimension, Severity};
    use revu_domain::lane::{LaneKind, LaneSpec};

    /// Line 1 context, line 2 added, line 3 context; line 9 is outside
    /// every hunk.
    const PATCH: &[u8] = b"diff --git a/run.sh b/run.sh
--- a/run.sh
+++ b/run.sh
@@ -1,2 +1,3 @@
 old=$1
+echo $new
 echo $old
";

    fn input() -> LaneInput {
        let lane = LaneSpec {
            id: "domain:core".into(),
            kind: LaneKind::Domain {
                domain: "core".into(),
            },
            engine: "rules".into(),
            files: vec!["run.sh".into()],
            guidance: vec![],
        };
        crate::engines::patch_input(lane, PATCH, "")
    }

    fn raw(file: &str, line: u32) -> Raw {
        Raw {
            file: file.into(),
            line,
            end_line: None,
            code: "SC2086".into(),
            message: "quote it".into(),
            severity: Severity::Suggestion,
            dimension: Dimension::Correctness,
            url: None,
            fix: None,
        }
    }

    fn kept(mode: FilterMode) -> Vec<u32> {
        let linters = Linters {
            tools: Vec::new(),
            mode,
            timeout: Duration::from_secs(1),
            env: crate::engines::command_env::CommandEnv::default().names(),
        };
        let dir = Path::new("/tmp/scratch");
        let problems = vec![
            raw("/tmp/scratch/run.sh", 2),
            raw("./run.sh", 3),
            raw("run.sh", 9),
            raw("other.sh", 2),
            raw("run.sh", 0),
        ];
        let (kept, left_out) = linters.keep(&input(), dir, problems, &["run.sh"]);
        assert_eq!(kept.len() + left_out, 5);
        assert!(kept.iter().all(|r| r.file == "run.sh"));
        kept.iter().map(|r| r.line).collect()
    }

    #[test]
    fn each_filter_mode_keeps_what_reviewdog_keeps() {
        assert_eq!(kept(FilterMode::Added), [2]);
        assert_eq!(kept(FilterMode::DiffContext), [2, 3]);
        assert_eq!(kept(FilterMode::File), [2, 3, 9]);
        // Never a file the tool was not given, never line 0.
        assert_eq!(kept(FilterMode::Nofilter), [2, 3, 9]);
    }

    #[test]
    fn paths_that_leave_the_scratch_directory_are_never_written() {
        assert!(safe("src/run.sh"));
        assert!(!safe("../run.sh"));
        assert!(!safe("/etc/passwd"));
        assert!(!safe("a/../../b"));
    }
}
