//! The catalogue written out: a line per rule for a terminal, the
//! entries as JSON, and the Markdown page `docs/rules.md`.

use crate::error::CliError;
use revu_domain::finding::{Dimension, Severity};
use revu_worker::engines::rules::Rule;
use serde::Serialize;
use std::fmt::Write;

/// Languages shown on a rule's line before the rest are counted.
const LINE_LANGUAGES: usize = 3;

/// One line per rule: code, severity, dimension, languages, name.
pub fn list(rules: &[Box<dyn Rule>]) -> String {
    let rows: Vec<[String; 5]> = rules
        .iter()
        .map(|r| {
            let m = r.meta();
            let mut languages = m.languages[..m.languages.len().min(LINE_LANGUAGES)].join(", ");
            if m.languages.len() > LINE_LANGUAGES {
                let _ = write!(languages, " +{}", m.languages.len() - LINE_LANGUAGES);
            }
            [
                m.code.to_owned(),
                m.severity.to_string(),
                m.dimension.to_string(),
                languages,
                m.name.to_owned(),
            ]
        })
        .collect();
    let head = ["CODE", "SEVERITY", "DIMENSION", "LANGUAGES", "NAME"].map(str::to_owned);
    let mut widths = [0usize; 5];
    for row in std::iter::once(&head).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&head).chain(&rows) {
        let mut line = String::new();
        for (w, cell) in widths.iter().zip(row) {
            let _ = write!(line, "{cell:<w$}  ");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A catalogue entry as JSON shows it.
#[derive(Debug, Serialize)]
pub struct Entry {
    code: &'static str,
    name: &'static str,
    dimension: Dimension,
    severity: Severity,
    confidence: u8,
    languages: &'static [&'static str],
    /// What of a line it reads: code, code and strings, or everything.
    reads: &'static str,
    catches: &'static str,
    why: &'static str,
    example: Example,
    instead: &'static str,
    /// How to silence it, as Markdown.
    silencing: String,
    /// The `REVIEW.md` sections that silence it; null for a BLOCKER.
    review_md: Option<String>,
}

/// A rule's example as JSON shows it.
#[derive(Debug, Serialize)]
struct Example {
    path: &'static str,
    code: &'static str,
    context: &'static str,
}

/// `rule`'s entry.
pub fn entry(rule: &dyn Rule) -> Entry {
    let m = rule.meta();
    Entry {
        code: m.code,
        name: m.name,
        dimension: m.dimension,
        severity: m.severity,
        confidence: m.confidence,
        languages: m.languages,
        reads: rule.reads().as_str(),
        catches: m.catches,
        why: m.why,
        example: Example {
            path: m.example.path,
            code: m.example.code,
            context: m.example.context,
        },
        instead: m.instead,
        silencing: m.silencing(),
        review_md: m.review_md(),
    }
}

/// Every rule's entry, in code order.
pub fn entries(rules: &[Box<dyn Rule>]) -> Vec<Entry> {
    rules.iter().map(|r| entry(r.as_ref())).collect()
}

/// `value` as indented JSON, with a final newline.
pub fn json(value: &impl Serialize) -> Result<String, CliError> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| CliError::Internal(format!("writing the catalogue as JSON: {e}")))?;
    text.push('\n');
    Ok(text)
}

/// The page `docs/rules.md`: a table of every rule, then each in full.
pub fn page(rules: &[Box<dyn Rule>]) -> String {
    let mut out = String::from(
        "# Built-in rules\n\
         \n\
         <!-- Written by `revu rules --format md > docs/rules.md`: edit the rules' \
         catalogue entries (`static META` in worker/src/engines/rules/), not this page. -->\n\
         \n\
         The checks of the `rules` engine, which runs offline on every review \
         ([`engines.md`](engines.md)). Each has a stable code, a dimension, the severity of \
         its findings and how often a hit is a true positive (its confidence). `revu rules` \
         prints this list, `revu rules CODE` one rule; `--format json` gives both as JSON. \
         A repository silences a rule in its `REVIEW.md` \
         ([`conventions.md`](conventions.md)), except a BLOCKER, which nothing there \
         lowers or silences.\n\
         \n\
         | code | severity | dimension | languages | name |\n\
         |---|---|---|---|---|\n",
    );
    for rule in rules {
        let m = rule.meta();
        let _ = writeln!(
            out,
            "| [{}](#{}) | {} | {} | {} | {} |",
            m.code,
            anchor(rule.as_ref()),
            m.severity,
            m.dimension,
            m.languages.join(", "),
            m.name
        );
    }
    for rule in rules {
        out.push('\n');
        out.push_str(&section(rule.as_ref()));
    }
    out
}

/// The heading anchor GitHub gives a rule's section.
fn anchor(rule: &dyn Rule) -> String {
    format!("{}-{}", rule.code(), rule.name()).to_ascii_lowercase()
}

/// One rule in full, as Markdown: its section of the page.
pub fn section(rule: &dyn Rule) -> String {
    let m = rule.meta();
    let mut out = format!("## {} {}\n\n", m.code, m.name);
    let _ = writeln!(
        out,
        "{} · {} · confidence {} · reads {} · {}\n",
        m.severity,
        m.dimension,
        m.confidence,
        rule.reads().as_str(),
        m.languages.join(", ")
    );
    let _ = writeln!(out, "**What it catches.** {}\n", m.catches);
    let _ = writeln!(out, "**Why it matters.** {}\n", m.why);
    let example = m.example;
    if example.code.is_empty() {
        // A file without lines (a binary): what it is says it all.
        let _ = writeln!(
            out,
            "**Example.** `{}`: {}\n",
            example.path, example.context
        );
    } else {
        let fence = fence(example.path);
        let _ = writeln!(out, "**Example.** In `{}`:\n", example.path);
        let _ = writeln!(out, "```{fence}\n{}\n```\n", example.code);
        if !example.context.is_empty() {
            let _ = writeln!(out, "{}\n", example.context);
        }
    }
    if m.instead.starts_with("```") {
        let _ = writeln!(out, "**Use instead:**\n\n{}\n", m.instead);
    } else {
        let _ = writeln!(out, "**Use instead:** {}\n", m.instead);
    }
    let _ = writeln!(out, "**Silencing it.** {}", m.silencing());
    out
}

/// The language of a code block holding lines of `path`.
fn fence(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name == "Dockerfile" {
        return "dockerfile";
    }
    match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("rs") => "rust",
        Some("py") => "python",
        Some("js" | "ts") => "js",
        Some("go") => "go",
        Some("java") => "java",
        Some("sql") => "sql",
        Some("sh") => "sh",
        Some("yaml" | "yml") => "yaml",
        Some("tf") => "hcl",
        _ => "text",
    }
}
