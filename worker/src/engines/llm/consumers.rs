//! What the code index says about a lane's file, for the prompt: who
//! imports it, who calls the symbols the change touched and which tests
//! name them, and the uses at head the change left stale. The contract
//! asks a reviewer to find the consumers of every changed symbol; this is
//! what lets a model do it without a checkout.
//!
//! A file's summary (counts, sites as `file:line`, stale uses) always goes
//! with its hunks; the lines around each call and test site, when the
//! index carries them, are context the planner adds while they fit.

use super::prompt::{SiteText, fence_safe};
use revu_domain::code_index::{CodeIndex, Site, Symbol};
use std::fmt::Write;

/// Most changed symbols listed per file.
const MAX_SYMBOLS: usize = 20;
/// Most call sites, and most test sites, listed per symbol.
const MAX_SITES: usize = 5;

/// What the index says of one file.
#[derive(Debug, Default)]
pub(super) struct Listed {
    pub summary: String,
    pub callers: Vec<SiteText>,
    pub tests: Vec<SiteText>,
}

/// What `index` says of `path`; nothing without an index.
pub(super) fn of_file(index: Option<&CodeIndex>, path: &str) -> Listed {
    let Some(index) = index else {
        return Listed::default();
    };
    let mut listed = Listed::default();
    let out = &mut listed.summary;
    if let Some(file) = index.files.get(path) {
        let _ = writeln!(
            out,
            "Code index: {} direct importer(s), {} transitive.",
            file.direct_importers, file.transitive_importers
        );
        if !file.importers.is_empty() {
            let _ = writeln!(
                out,
                "  imported by: {}",
                fence_safe(&file.importers.join(", "))
            );
        }
        for s in file.symbols.iter().filter(|s| s.changed).take(MAX_SYMBOLS) {
            let _ = writeln!(out, "{}", symbol_line(s));
            for site in s.sites.iter().take(MAX_SITES) {
                if let Some(text) = site_text(s, site, "called") {
                    listed.callers.push(SiteText { text });
                }
            }
            for site in s.test_sites.iter().take(MAX_SITES) {
                if let Some(text) = site_text(s, site, "named by a test") {
                    listed.tests.push(SiteText { text });
                }
            }
        }
    }
    for o in index.omissions_in(path) {
        if out.is_empty() {
            let _ = writeln!(
                out,
                "Code index: uses at head of what the change took from it."
            );
        }
        let what = match &o.doubt {
            None => "stale use".to_owned(),
            Some(doubt) => format!("possible stale use, to check ({doubt})"),
        };
        let line = format!(
            "  {what} at {}:{} of {} `{}` ({}): {}",
            o.site.file,
            o.site.line,
            o.kind.as_str(),
            o.symbol,
            o.change.describe(),
            o.text
        );
        let _ = writeln!(out, "{}", fence_safe(&line));
    }
    if out.is_empty() && !index.files.contains_key(path) {
        return Listed::default();
    }
    listed
}

/// A changed symbol, its callers and tests by `file:line`.
fn symbol_line(s: &Symbol) -> String {
    let at = |sites: &[Site]| -> Vec<String> {
        sites
            .iter()
            .take(MAX_SITES)
            .map(|x| format!("{}:{}", x.file, x.line))
            .collect()
    };
    let sites = at(&s.sites);
    let mut line = format!(
        "  changed {} `{}` (lines {}-{}): {} caller(s)",
        s.kind.as_str(),
        s.name,
        s.line,
        s.end_line,
        s.callers
    );
    if !sites.is_empty() {
        let _ = write!(line, ", e.g. {}", sites.join(", "));
    }
    let tests = if s.test_sites.is_empty() {
        s.tests.iter().take(MAX_SITES).cloned().collect()
    } else {
        at(&s.test_sites)
    };
    if !tests.is_empty() {
        let _ = write!(line, "; named by tests at {}", tests.join(", "));
    }
    fence_safe(&line)
}

/// A site's lines, numbered, under a heading that says what it is; `None`
/// when the index carried no lines for it.
fn site_text(s: &Symbol, site: &Site, what: &str) -> Option<String> {
    if site.snippet.is_empty() {
        return None;
    }
    let mut out = fence_safe(&format!(
        "#### `{}` {what} at {}:{}\n",
        s.name, site.file, site.line
    ));
    for (k, text) in site.snippet.lines.iter().enumerate() {
        let n = site.snippet.first_line as usize + k;
        let _ = writeln!(out, "{n:>6}   {}", fence_safe(text));
    }
    Some(out)
}
