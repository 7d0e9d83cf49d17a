//! What a change is for, as the lanes are told it: the author's words
//! (`--intent`, `--intent-file`), the pull or merge request a CI job runs
//! for (GitHub Actions' event file, GitLab's `CI_MERGE_REQUEST_*`
//! variables) and the messages of the reviewed commits, in that order.
//! `--no-auto-intent` keeps only the author's words.
//!
//! Each part is bounded ([`MAX_PART`]) and so is the whole
//! ([`MAX_INTENT`]); parts are joined under headings that say where each
//! came from, except a lone `--intent`, which goes as written. Whatever it
//! says, the intent reaches a model as data, inside the prompt's fence:
//! a pull request's description is written by whoever opened it.

use crate::error::CliError;
use crate::head::HeadOf;
use crate::source::{Change, git};
use revu_domain::intent::IntentSource;
use std::path::{Path, PathBuf};

/// Most bytes of one part (a file, a request's description, the commit
/// messages).
pub const MAX_PART: usize = 4 * 1024;
/// Most bytes of the whole intent.
pub const MAX_INTENT: usize = 12 * 1024;
/// Most commits whose messages are read, newest first.
pub const MAX_COMMITS: usize = 20;
/// Largest GitHub event file read (GitHub's own limit on a webhook's
/// payload).
const MAX_EVENT_BYTES: u64 = 25 * 1024 * 1024;

/// The flags that say what a change is for.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct IntentArgs {
    /// What the change is meant to do.
    #[arg(long, default_value = "")]
    pub intent: String,
    /// A UTF-8 file saying what the change is meant to do (a design note,
    /// a ticket's text); joined after --intent.
    #[arg(long, value_name = "FILE")]
    pub intent_file: Option<PathBuf>,
    #[command(flatten)]
    pub auto: AutoIntent,
}

/// Whether revu gathers intent of its own accord.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct AutoIntent {
    /// Give the lanes only the stated intent (--intent, --intent-file, an
    /// evaluation case's): not the title and description of the pull or
    /// merge request a CI job runs for, nor the reviewed commits'
    /// messages.
    #[arg(long, env = "REVU_NO_AUTO_INTENT")]
    pub no_auto_intent: bool,
}

impl AutoIntent {
    /// The intent of an evaluated change: `stated` (the case's), and the
    /// messages of its commits. Never the CI request's: the run that
    /// evaluates is not the change's.
    pub fn for_eval(self, stated: &str, change: &Change) -> Intent {
        let mut parts = Parts::default();
        parts.add(IntentSource::Flag, "Intent".into(), stated);
        if !self.no_auto_intent {
            parts.commits(change);
        }
        parts.finish()
    }
}

/// The intent the lanes are given, and where it came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Intent {
    pub text: String,
    pub sources: Vec<IntentSource>,
}

/// The process's environment, as the gathering reads it.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The environment of this process.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

impl IntentArgs {
    /// The intent of `change`: the stated parts, then, unless
    /// `--no-auto-intent`, the CI request's and the commits'. Exit 2 on an
    /// `--intent-file` that cannot be read as UTF-8 text.
    pub fn gather(&self, change: &Change, env: Env<'_>) -> Result<Intent, CliError> {
        let mut parts = self.stated()?;
        if !self.auto.no_auto_intent {
            parts.ci_request(env);
            parts.commits(change);
        }
        Ok(parts.finish())
    }

    /// `--intent` and `--intent-file`.
    fn stated(&self) -> Result<Parts, CliError> {
        let mut parts = Parts::default();
        parts.add(IntentSource::Flag, "Intent (--intent)".into(), &self.intent);
        if let Some(path) = &self.intent_file {
            let text = read_intent_file(path)?;
            let heading = format!("Intent (--intent-file {})", path.display());
            parts.add(IntentSource::File, heading, &text);
        }
        Ok(parts)
    }
}

fn read_intent_file(path: &Path) -> Result<String, CliError> {
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::Input(format!("--intent-file {}: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|e| {
        CliError::Input(format!(
            "--intent-file {}: not UTF-8 text (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// One part of an intent.
#[derive(Debug)]
struct Part {
    source: IntentSource,
    heading: String,
    text: String,
}

/// The parts gathered so far, in order.
#[derive(Debug, Default)]
struct Parts(Vec<Part>);

impl Parts {
    /// Adds `text` under `heading`, bounded; blank text adds nothing.
    fn add(&mut self, source: IntentSource, heading: String, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        self.0.push(Part {
            source,
            heading,
            text: bounded(text, MAX_PART),
        });
    }

    /// The pull request of a GitHub Actions run, else the merge request of
    /// a GitLab pipeline. A GitHub event file that cannot be read is said
    /// on stderr and left out: the review goes on without it.
    fn ci_request(&mut self, env: Env<'_>) {
        let event = env("GITHUB_EVENT_NAME").unwrap_or_default();
        if matches!(event.as_str(), "pull_request" | "pull_request_target") {
            match env("GITHUB_EVENT_PATH").filter(|p| !p.is_empty()) {
                Some(path) => match github_request(Path::new(&path)) {
                    Ok(text) => self.add(IntentSource::Github, "GitHub pull request".into(), &text),
                    Err(why) => eprintln!(
                        "revu: GITHUB_EVENT_PATH {path}: {why}; the pull request's title and \
                         description are not part of the intent"
                    ),
                },
                None => eprintln!(
                    "revu: GITHUB_EVENT_NAME is {event} but GITHUB_EVENT_PATH is not set; the \
                     pull request's title and description are not part of the intent"
                ),
            }
        }
        let title = env("CI_MERGE_REQUEST_TITLE").unwrap_or_default();
        let description = env("CI_MERGE_REQUEST_DESCRIPTION").unwrap_or_default();
        self.add(
            IntentSource::Gitlab,
            "GitLab merge request".into(),
            &request_text(&title, &description),
        );
    }

    /// The messages of the commits `change` reviews, newest first, when it
    /// is a range of commits. git failing here is said on stderr and
    /// leaves them out.
    fn commits(&mut self, change: &Change) {
        let (Some(top), Some(HeadOf::Commit(to))) = (&change.work_tree, &change.head_of) else {
            return;
        };
        let range = match change.base_rev.as_deref() {
            Some(from) if !from.is_empty() => format!("{from}..{to}"),
            _ => to.clone(),
        };
        match commit_messages(top, &range) {
            Ok(text) => self.add(
                IntentSource::Commits,
                "Commit messages (newest first)".into(),
                &text,
            ),
            Err(why) => eprintln!("revu: reading the commit messages: {why}; left out"),
        }
    }

    /// The parts joined: a lone `--intent` as written, else each part
    /// under its heading; the whole bounded.
    fn finish(self) -> Intent {
        let sources = self.0.iter().map(|p| p.source).collect();
        let text = match self.0.as_slice() {
            [] => String::new(),
            [only] if only.source == IntentSource::Flag => only.text.clone(),
            parts => {
                let joined: Vec<String> = parts
                    .iter()
                    .map(|p| format!("## {}\n\n{}\n", p.heading, p.text))
                    .collect();
                bounded(&joined.join("\n"), MAX_INTENT)
            }
        };
        Intent { text, sources }
    }
}

/// A request's title and description as one text.
fn request_text(title: &str, description: &str) -> String {
    match (title.trim(), description.trim()) {
        (t, "") => t.to_owned(),
        ("", d) => d.to_owned(),
        (t, d) => format!("{t}\n\n{d}"),
    }
}

/// The title and body of the pull request in a GitHub event file.
fn github_request(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(MAX_EVENT_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    let event: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| format!("not an event's JSON: {e}"))?;
    let Some(request) = event.get("pull_request").filter(|r| r.is_object()) else {
        return Err("no pull_request in the event".into());
    };
    let field = |name: &str| request.get(name).and_then(|v| v.as_str()).unwrap_or("");
    Ok(request_text(field("title"), field("body")))
}

/// `git log` of `range`, one commit after another: its short id and
/// subject, then its body.
fn commit_messages(top: &Path, range: &str) -> Result<String, String> {
    let out = git(top)
        .args(["log", "-z", "--encoding=UTF-8", "--format=%h %B"])
        .arg(format!("--max-count={}", MAX_COMMITS + 1))
        .arg(range)
        .arg("--")
        .output()
        .map_err(|e| format!("running git: {e}"))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(said.lines().next().unwrap_or("git log failed").to_owned());
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let commits: Vec<&str> = stdout
        .split('\0')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    let mut shown: Vec<String> = commits
        .iter()
        .take(MAX_COMMITS)
        .map(|c| {
            let lines: Vec<&str> = c.lines().map(str::trim_end).collect();
            let indented = lines.join("\n  ").replace("\n  \n", "\n\n");
            format!("- {indented}")
        })
        .collect();
    if commits.len() > MAX_COMMITS {
        shown.push(format!("- (older commits left out: {MAX_COMMITS} shown)"));
    }
    Ok(shown.join("\n"))
}

/// `text` cut at `max` bytes on a character boundary, the cut marked.
fn bounded(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n[… {} more bytes left out]",
        text[..end].trim_end(),
        text.len() - end
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn a_lone_flag_goes_as_written_and_more_parts_go_under_headings() {
        let args = IntentArgs {
            intent: "  fix the retry  ".into(),
            ..IntentArgs::default()
        };
        let lone = args.stated().map(Parts::finish).ok();
        assert_eq!(
            lone,
            Some(Intent {
                text: "fix the retry".into(),
                sources: vec![IntentSource::Flag],
            })
        );
        let mut parts = args.stated().unwrap_or_default();
        parts.ci_request(&env(&[
            ("CI_MERGE_REQUEST_TITLE", "Retry once"),
            ("CI_MERGE_REQUEST_DESCRIPTION", "Closes #4."),
        ]));
        let both = parts.finish();
        assert_eq!(both.sources, vec![IntentSource::Flag, IntentSource::Gitlab]);
        assert_eq!(
            both.text,
            "## Intent (--intent)\n\nfix the retry\n\n## GitLab merge request\n\nRetry once\n\nCloses #4.\n"
        );
        assert_eq!(Parts::default().finish(), Intent::default());
    }

    #[test]
    fn each_part_and_the_whole_are_bounded() {
        let long = "ü".repeat(MAX_PART);
        let mut parts = Parts::default();
        for source in [
            IntentSource::Flag,
            IntentSource::File,
            IntentSource::Github,
            IntentSource::Gitlab,
        ] {
            parts.add(source, "part".into(), &long);
        }
        assert!(parts.0.iter().all(|p| p.text.len() < MAX_PART + 40));
        assert!(parts.0[0].text.ends_with("more bytes left out]"));
        let whole = parts.finish();
        assert!(whole.text.len() < MAX_INTENT + 40, "{}", whole.text.len());
        assert!(whole.text.ends_with("more bytes left out]"));
        assert_eq!(whole.sources.len(), 4);
    }

    #[test]
    fn a_github_event_other_than_a_pull_request_is_not_read() {
        let mut parts = Parts::default();
        parts.ci_request(&env(&[
            ("GITHUB_EVENT_NAME", "push"),
            ("GITHUB_EVENT_PATH", "/nonexistent/event.json"),
        ]));
        assert!(parts.0.is_empty());
        // A pull request whose event file is missing: a warning, no part.
        parts.ci_request(&env(&[
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("GITHUB_EVENT_PATH", "/nonexistent/event.json"),
        ]));
        assert!(parts.0.is_empty());
    }

    #[test]
    fn a_request_is_its_title_and_description() {
        assert_eq!(request_text(" T ", ""), "T");
        assert_eq!(request_text("", " D "), "D");
        assert_eq!(request_text("T", "D"), "T\n\nD");
        assert_eq!(request_text(" ", "\n"), "");
    }
}
