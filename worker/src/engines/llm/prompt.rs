//! The prompt of a lane: the review contract (a versioned file,
//! `worker/prompts/review-v2.md`) as the system message, and the lane's
//! files, with the new-side line number on every line, as data.
//!
//! A prompt is laid out so that what the lanes of one review share comes
//! first and stays the same from lane to lane, for the providers' prompt
//! caches: the method (the same for every review lane), then the data
//! (the change's intent, the repository's review conventions and path
//! guidance, the files with their hunks, enclosing definitions, callers,
//! tests and whole text as [`super::plan`] fits them; every specialist
//! lane of a review shows the same; last, what the gate rejected), and
//! only then the lane's own task (which lane it is, its part).
//!
//! Everything that comes from the change, the repository or a model is
//! inside the `<data>` fence; after it are revu's own words only.

use super::prompts::{PromptName, PromptSet};
use crate::engines::LaneInput;
use revu_domain::diff::{FilePatch, LineKind};
use revu_domain::lane::LaneKind;
use std::fmt::Write;

/// The version of what a review lane's data holds and how the planner
/// fills it (a new layout is another engine for the lane result cache).
pub const CONTEXT_VERSION: &str = "context-v1";

/// A lane's system message, and its user message in two parts: the data
/// (which other lanes of the review may share) and the lane's task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub system: String,
    /// The data fence and what is in it.
    pub data: String,
    /// What this lane is asked, after the data.
    pub task: String,
}

impl Prompt {
    /// The user message as one text.
    pub fn user(&self) -> String {
        format!("{}{}", self.data, self.task)
    }
}

/// What the lane is, in the words of the system message.
fn lane_words(kind: &LaneKind) -> String {
    match kind {
        LaneKind::Domain { domain } => {
            format!("the `{domain}` slice, every dimension of review")
        }
        LaneKind::Specialist { dimension } => {
            format!("the {dimension} dimension, across every changed file")
        }
        LaneKind::Adjudication => "adjudication of earlier findings".to_owned(),
        LaneKind::Challenge => "a challenge of one earlier finding".to_owned(),
        LaneKind::Grouping => "the grouping of the change into slices".to_owned(),
        LaneKind::Synthesis => "the walkthrough of the change".to_owned(),
    }
}

/// A lane's prompt before it is fitted to the input budget: the system
/// message, what every request of the lane repeats (intent, conventions,
/// candidates; the lane's task; what the gate rejected), and the lane's
/// files, each with the context the planner may add to it.
#[derive(Debug, Clone)]
pub struct Parts {
    pub system: String,
    /// The lane's task, after the data fence: revu's words only.
    pub task: String,
    /// Text inside the fence before the files.
    pub context: String,
    pub files: Vec<FileText>,
    /// Text inside the fence after the files: why the completeness gate
    /// sent the lane's last answer back, if it did.
    pub rejected: String,
}

/// One file of the lane as the prompt shows it: its hunks, which every
/// request that carries the file shows, and the context a request adds
/// while it fits (see [`super::plan`]).
#[derive(Debug, Clone, Default)]
pub struct FileText {
    pub path: String,
    /// Each hunk's header and numbered lines; one note for a binary file.
    pub hunks: Vec<HunkText>,
    /// What the code index says of the file in a few lines (importers,
    /// changed symbols with their callers and tests by `file:line`, stale
    /// uses): shown with the hunks.
    pub index: String,
    /// The definitions around the hunks, at head.
    pub definitions: Vec<Definition>,
    /// Call sites of the file's changed symbols, with their lines.
    pub callers: Vec<SiteText>,
    /// Where tests name the file's changed symbols, with their lines.
    pub tests: Vec<SiteText>,
    /// The whole file after the change, every line numbered, when the
    /// review carries it.
    pub head: Option<String>,
}

#[derive(Debug, Clone)]
pub struct HunkText {
    /// `@@ -a,b +c,d @@`, the way the diff names the hunk.
    pub label: String,
    pub text: String,
}

/// The innermost definition around some hunks of a file, as its head text
/// shows it (a long one cut to its first lines and the lines around the
/// change), numbered like the full file.
#[derive(Debug, Clone)]
pub struct Definition {
    /// E.g. `function `charge` (lines 12-48)`.
    pub label: String,
    /// The symbol's name, for the lane's coverage note.
    pub name: String,
    /// Which of the file's hunks it encloses (indexes into `hunks`).
    pub hunks: Vec<usize>,
    pub text: String,
}

/// A call or test site of a changed symbol, with its lines at head.
#[derive(Debug, Clone)]
pub struct SiteText {
    pub text: String,
}

/// What one request shows of a file: which hunks, and which of its
/// context. Indexes are into the [`FileText`]'s lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Share {
    pub hunks: Vec<usize>,
    /// Some of the file's hunks are in other requests.
    pub partial: bool,
    pub definitions: Vec<usize>,
    pub callers: Vec<usize>,
    pub tests: Vec<usize>,
    pub head: bool,
}

/// Headings of a file's context sections.
pub(super) const DEFINITIONS_HEADING: &str =
    "### Enclosing definitions at head (numbered like the file)\n";
pub(super) const CALLERS_HEADING: &str = "### Call sites of its changed symbols at head\n";
pub(super) const TESTS_HEADING: &str = "### Tests that name its changed symbols\n";

impl FileText {
    /// The file's hunks, nothing else.
    pub fn text(&self) -> String {
        let all: Vec<usize> = (0..self.hunks.len()).collect();
        self.section(&Share {
            hunks: all,
            ..Share::default()
        })
    }

    /// The file's heading and its hunks (marked when not all of them),
    /// with what the index says of it.
    pub fn heading(&self, partial: bool) -> String {
        let mut out = if partial {
            format!(
                "## File: {} (some of its hunks; the rest are in another request)\n",
                fence_safe(&self.path)
            )
        } else {
            format!("## File: {}\n", fence_safe(&self.path))
        };
        if !self.index.is_empty() {
            out.push_str(&self.index);
        }
        out
    }

    /// The whole file after the change, as a section of its own.
    pub fn head_section(&self) -> Option<String> {
        let head = self.head.as_ref()?;
        Some(format!(
            "### Full file after the change: {}\n{head}",
            fence_safe(&self.path)
        ))
    }

    /// What `share` shows of the file, as one section of a request.
    pub fn section(&self, share: &Share) -> String {
        let mut out = self.heading(share.partial);
        for &i in &share.hunks {
            if let Some(h) = self.hunks.get(i) {
                out.push_str(&h.text);
            }
        }
        let mut list = |heading: &str, texts: Vec<&str>| {
            if !texts.is_empty() {
                out.push_str(heading);
                texts.iter().for_each(|t| out.push_str(t));
            }
        };
        list(
            DEFINITIONS_HEADING,
            pick(&self.definitions, &share.definitions, |d| &d.text),
        );
        list(
            CALLERS_HEADING,
            pick(&self.callers, &share.callers, |s| &s.text),
        );
        list(TESTS_HEADING, pick(&self.tests, &share.tests, |s| &s.text));
        if share.head
            && let Some(head) = self.head_section()
        {
            out.push_str(&head);
        }
        out.push('\n');
        out
    }
}

fn pick<'a, T>(items: &'a [T], chosen: &[usize], text: fn(&T) -> &String) -> Vec<&'a str> {
    chosen
        .iter()
        .filter_map(|&i| items.get(i))
        .map(|t| text(t).as_str())
        .collect()
}

/// Which request of how many a prompt is, and what it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartNote {
    pub index: usize,
    pub of: usize,
    /// Files whose every hunk this request carries.
    pub whole: usize,
    /// Files some of whose hunks it carries.
    pub some: usize,
    /// The lane's files.
    pub files: usize,
}

/// Splits `input` into the [`Parts`] of its prompt.
pub fn parts(input: &LaneInput, prompts: &PromptSet) -> Parts {
    let job = &input.job;
    let kind = &job.lane.kind;
    let (system, mut task) = match PromptSet::lane_prompt(kind) {
        Some(lane) => (
            prompts.text(PromptName::Review).to_owned(),
            format!(
                "\nYour lane: {}.\n\n{}",
                lane_words(kind),
                prompts.text(lane).trim_end()
            ),
        ),
        None => (
            prompts.text(PromptSet::system(kind)).to_owned(),
            String::new(),
        ),
    };
    if !task.is_empty() {
        task.push('\n');
    }
    let bundle = input.bundle();
    let lane_files = input.lane_files();
    let mut context = String::new();
    let intent = &bundle.intent;
    if !intent.is_empty() {
        let _ = writeln!(context, "Intent of the change:\n{}\n", fence_safe(intent));
    }
    let paths: Vec<&str> = lane_files.iter().map(|p| p.path()).collect();
    context.push_str(&super::context::conventions(
        bundle,
        &paths,
        &job.lane.guidance,
    ));
    if kind.adjudicates() {
        context.push_str(&candidates_section(job.candidates.iter().enumerate()));
    } else {
        context.push_str(&known_section(&job.candidates));
        context.push_str(&linted_section(&input.linted()));
    }
    // The gate quotes what the model wrote (an unknown section's name, a
    // field's value): inside the fence, after the files, so that the
    // shared prefix of the lanes stays the same.
    let mut rejected = String::new();
    if !job.rejected_for.is_empty() {
        let _ = writeln!(
            rejected,
            "What the completeness gate found wrong with this lane's last answer:"
        );
        for why in &job.rejected_for {
            let _ = writeln!(rejected, "- {}", fence_safe(why));
        }
        let _ = writeln!(
            task,
            "\nYour last answer for this lane was rejected by the completeness gate, \
             for the reasons given at the end of the data. Answer again, fixing them."
        );
    }
    let index = bundle.code_index.as_ref();
    let files = lane_files
        .into_iter()
        .map(|patch| {
            let mut file = file_text(patch);
            let head = bundle.head_text(patch.path());
            if let Some(indexed) = index.and_then(|i| i.files.get(patch.path())) {
                if let Some(head) = &head {
                    file.definitions = super::context::definitions(patch, head, indexed);
                }
                let listed = super::consumers::of_file(index, patch.path());
                file.index = listed.summary;
                file.callers = listed.callers;
                file.tests = listed.tests;
            } else if let Some(index) = index {
                // Stale uses of a file the index could not read.
                file.index = super::consumers::of_file(Some(index), patch.path()).summary;
            }
            file.head = head.map(|text| numbered(&text));
            file
        })
        .collect();
    Parts {
        system,
        task,
        context,
        files,
        rejected,
    }
}

impl Parts {
    /// The prompt of one request carrying `data` (file sections), with a
    /// note when the lane is reviewed in several requests.
    pub fn prompt(&self, data: &str, part: Option<PartNote>) -> Prompt {
        let mut task = self.task.clone();
        if let Some(p) = part {
            let some = match p.some {
                0 => String::new(),
                n => format!(" and some of the hunks of {n} more"),
            };
            let _ = writeln!(
                task,
                "\nThis lane is too large for one request and is reviewed in {} requests; \
                 this is request {} of {}. It carries every hunk of {} of the lane's {} \
                 file(s){some}; the other requests carry the rest. Report on the hunks this \
                 request shows, and use everything shown with them (definitions, call \
                 sites, tests, whole files) to judge them.",
                p.of, p.index, p.of, p.whole, p.files
            );
        }
        Prompt {
            system: self.system.clone(),
            data: format!("<data>\n{}{data}{}</data>\n", self.context, self.rejected),
            task,
        }
    }
}

/// Builds the prompt of `input` as one request with no input budget: its
/// hunks and all of their context.
pub fn build(input: &LaneInput, prompts: &PromptSet) -> Prompt {
    let fitted = super::plan::fit(
        &parts(input, prompts),
        super::budget::Counter::estimate(),
        u64::MAX,
    );
    match fitted.requests.into_iter().next() {
        Some((prompt, _)) => prompt,
        None => Prompt {
            system: String::new(),
            data: String::new(),
            task: String::new(),
        },
    }
}

/// `text` with its line number before every line, fenced as data.
pub(super) fn numbered(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for (i, line) in text.lines().enumerate() {
        let _ = writeln!(out, "{:>6}   {}", i + 1, fence_safe(line));
    }
    out
}

/// The candidates an adjudication request decides, each by its index in
/// the lane's list; empty for none.
pub(super) fn candidates_section<'a>(
    candidates: impl Iterator<Item = (usize, &'a revu_domain::finding::Finding)>,
) -> String {
    let mut out = String::new();
    for (index, f) in candidates {
        if out.is_empty() {
            out.push_str("Candidates:\n");
        }
        let _ = writeln!(
            out,
            "{index}. {} {} ({}, confidence {}): {} Why: {}",
            f.severity,
            fence_safe(&f.citation()),
            f.dimension,
            f.confidence,
            fence_safe(&f.summary),
            fence_safe(&f.why)
        );
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// What revu found in a review lane's files before the lane ran (the
/// repository's review-miss ledger): reported already, shown so that a
/// model follows what they imply instead of raising them again.
fn known_section(known: &[revu_domain::finding::Finding]) -> String {
    let mut out = String::new();
    for f in known {
        if out.is_empty() {
            out.push_str(
                "Found already by the repository's review-miss ledger (reported by revu; do not \
                 report these again):\n",
            );
        }
        let _ = writeln!(
            out,
            "- {} {} [{}]: {}",
            f.severity,
            fence_safe(&f.citation()),
            fence_safe(&f.rule),
            fence_safe(&f.summary)
        );
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// What the linters report in a review lane's files (at most
/// [`MAX_LINTED`]): a tool's rule, a fact about the code that knows
/// nothing of the change, for the model to weigh.
fn linted_section(linted: &[&revu_domain::finding::Finding]) -> String {
    let mut out = String::new();
    for f in linted.iter().take(MAX_LINTED) {
        if out.is_empty() {
            out.push_str(
                "What the linters report in these files (each a tool's rule, not a judgement of \
                 the change; raise one only where it matters to this change, with your own \
                 evidence):\n",
            );
        }
        let _ = writeln!(
            out,
            "- {} [{}]: {}",
            fence_safe(&f.citation()),
            fence_safe(&f.rule),
            fence_safe(&f.summary)
        );
    }
    if linted.len() > MAX_LINTED {
        let _ = writeln!(out, "- and {} more", linted.len() - MAX_LINTED);
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// Most linter findings a lane is shown.
const MAX_LINTED: usize = 50;

/// The data fence cannot be closed from inside the data.
pub(super) fn fence_safe(text: &str) -> String {
    text.replace("</data>", "</ data>")
}

/// One file's hunks, each line led by its new-side number (blank for a
/// removed line) and its kind, the way the contract asks findings to cite.
pub(super) fn file_text(patch: &FilePatch) -> FileText {
    let path = patch.path().to_owned();
    if patch.binary {
        return FileText {
            path,
            hunks: vec![HunkText {
                label: "(binary)".to_owned(),
                text: "(binary file)\n".to_owned(),
            }],
            ..FileText::default()
        };
    }
    let hunks = patch
        .hunks
        .iter()
        .map(|hunk| {
            let label = format!(
                "@@ -{},{} +{},{} @@",
                hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
            );
            let mut text = format!("{label} {}\n", fence_safe(hunk.section.trim()));
            for line in &hunk.lines {
                let (number, mark) = match line.kind() {
                    LineKind::Added => (line.new_line(), '+'),
                    LineKind::Context => (line.new_line(), ' '),
                    LineKind::Removed => (None, '-'),
                };
                let number = number.map(|n| n.to_string()).unwrap_or_default();
                let _ = writeln!(text, "{number:>6} {mark} {}", fence_safe(&line.text));
            }
            HunkText { label, text }
        })
        .collect();
    FileText {
        path,
        hunks,
        ..FileText::default()
    }
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
