//! What the client's code index says about a change: for each changed file,
//! who imports it and who calls the symbols it defines; the symbols the
//! change removes or renames, or whose arity it changes, that are still
//! used at head; and hits in downstream repositories.
//!
//! Built by the client from the repository at head (`revu-index`), it
//! travels in the review bundle, so that no worker needs a checkout. It is
//! bounded: site lists are cut at [`MAX_SITES`] with the full count kept.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most call or reference sites listed per symbol or omission kind.
pub const MAX_SITES: usize = 20;

/// The blast radius a finding reads when there is no code index (a diff
/// from a file or standard input, with no repository around it).
pub const GRAPH_UNAVAILABLE: &str = "graph unavailable -- severity based on code analysis only";

/// IMPORTANT findings in a file with this many transitive importers or more
/// are raised to BLOCKER (the review contract's elevation rule).
pub const ELEVATE_AT_IMPORTERS: usize = 50;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeIndex {
    /// What was indexed.
    pub stats: IndexStats,
    /// The changed files the index could read, by head path.
    #[serde(default)]
    pub files: BTreeMap<String, IndexedFile>,
    /// Symbols the change removed, renamed or re-shaped that are still used
    /// at head.
    #[serde(default)]
    pub omissions: Vec<Omission>,
    /// Every symbol the change removed, renamed or gave other parameters,
    /// used at head or not.
    #[serde(default)]
    pub taken: Vec<Taken>,
    /// Uses of changed or removed symbols in sibling checkouts
    /// (`--consumers-root`).
    #[serde(default)]
    pub downstream: Vec<DownstreamHit>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexStats {
    /// Files of a language the index reads, parsed.
    pub files: usize,
    /// Of those, files whose syntax tree had errors (still indexed).
    #[serde(default)]
    pub with_errors: usize,
    /// Files left out: over the size limit, or past the file limit.
    #[serde(default)]
    pub skipped: usize,
    /// Files per language.
    #[serde(default)]
    pub languages: BTreeMap<String, usize>,
}

/// One changed file as the index sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexedFile {
    pub language: String,
    /// Files that import this one.
    pub direct_importers: usize,
    /// Files that import it directly or through others.
    pub transitive_importers: usize,
    /// Some of the direct importers, sorted.
    #[serde(default)]
    pub importers: Vec<String>,
    /// Definitions at head, in line order.
    #[serde(default)]
    pub symbols: Vec<Symbol>,
}

/// A definition at head and its direct callers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    pub line: u32,
    pub end_line: u32,
    /// The change added or changed lines inside it.
    #[serde(default)]
    pub changed: bool,
    /// Distinct callers: a function, method or module top level that
    /// names it, outside its own body, in a file that can see it.
    pub callers: usize,
    /// Some of the calling sites, sorted.
    #[serde(default)]
    pub sites: Vec<Site>,
    /// Test files that name it (up to [`MAX_SITES`]), sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<String>,
    /// Where tests name it, with the lines around each (bounded like
    /// `sites`), for a reviewer to read what the tests pin.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub test_sites: Vec<Site>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    Function,
    Method,
    Class,
    Type,
    Property,
    Variable,
}

impl SymbolKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Class => "class",
            SymbolKind::Type => "type",
            SymbolKind::Property => "property",
            SymbolKind::Variable => "variable",
        }
    }

    /// Reached through an object (`x.name`), not by a bare name.
    pub fn is_member(self) -> bool {
        matches!(self, SymbolKind::Method | SymbolKind::Property)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Site {
    pub file: String,
    pub line: u32,
    /// A few lines around the site at head, so that a reviewer reads the
    /// use without the file; empty when the index did not carry them.
    #[serde(default, skip_serializing_if = "Snippet::is_empty")]
    pub snippet: Snippet,
}

impl Site {
    /// A site with no lines carried.
    pub fn at(file: impl Into<String>, line: u32) -> Site {
        Site {
            file: file.into(),
            line,
            snippet: Snippet::default(),
        }
    }
}

/// Consecutive lines of a file at head, the first of them numbered
/// `first_line`.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snippet {
    pub first_line: u32,
    pub lines: Vec<String>,
}

impl Snippet {
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// A use at head of something the change took away.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Omission {
    pub symbol: String,
    pub kind: SymbolKind,
    pub change: SymbolChange,
    /// Where it was defined: the file (at head, or its old path when the
    /// change deleted it) and the line on the base side.
    pub defined_in: String,
    pub defined_line: u32,
    /// The stale use.
    pub site: Site,
    /// That line at head, trimmed and bounded.
    pub text: String,
    /// What the index checked to resolve the name at the use to the
    /// symbol the change took away (its binding, its qualifier, its
    /// receiver's type), in words for the finding's `why`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub checked: String,
    /// Set when the use may not be one: the name could not be resolved
    /// with certainty (a receiver of unknown type whose class extends
    /// something outside the project, say). Such a use is a candidate to
    /// check, never a BLOCKER.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doubt: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "what", deny_unknown_fields)]
pub enum SymbolChange {
    /// Defined on the base side, defined nowhere at head.
    Removed,
    /// Renamed to `to` in its definition.
    Renamed { to: String },
    /// Its parameters changed; the call passes `passed` arguments, which
    /// the old definition took and the new one does not.
    Arity {
        was: String,
        now: String,
        passed: u32,
    },
}

impl SymbolChange {
    /// How the report words it, e.g. `renamed to username`.
    pub fn describe(&self) -> String {
        match self {
            SymbolChange::Removed => "removed".to_owned(),
            SymbolChange::Renamed { to } => format!("renamed to `{to}`"),
            SymbolChange::Arity { was, now, passed } => {
                format!("its parameters changed from {was} to {now}, and this call passes {passed}")
            }
        }
    }
}

/// A symbol the change removed, renamed or re-shaped.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Taken {
    pub symbol: String,
    pub kind: SymbolKind,
    /// Its file, and its line on the base side.
    pub file: String,
    pub line: u32,
    /// `removed`, `renamed` or `changed`.
    pub change: String,
}

/// A downstream repository that uses a symbol the change touches.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DownstreamHit {
    /// The directory under `--consumers-root`.
    pub repository: String,
    pub file: String,
    pub line: u32,
    pub symbol: String,
    /// `removed`, `renamed` or `changed`.
    pub change: String,
}

impl CodeIndex {
    /// The innermost symbol of `file` around `line`.
    pub fn symbol_at(&self, file: &str, line: u32) -> Option<&Symbol> {
        self.files
            .get(file)?
            .symbols
            .iter()
            .filter(|s| s.line <= line && line <= s.end_line)
            .min_by_key(|s| s.end_line - s.line)
    }

    /// The stale uses of symbols defined in `file`.
    pub fn omissions_in<'a>(&'a self, file: &'a str) -> impl Iterator<Item = &'a Omission> + 'a {
        self.omissions.iter().filter(move |o| o.defined_in == file)
    }

    /// Whether the client read `file:line` at head as a use of a changed
    /// symbol, so that a finding may cite it although the change did not
    /// touch the file.
    /// Whether the index carries the text of `file:line`: a call site, a
    /// test's use or a stale use, or a line of the snippet around one.
    pub fn shows_line(&self, file: &str, line: u32) -> bool {
        let shows = |site: &Site| {
            site.file == file
                && (site.line == line || {
                    let first = site.snippet.first_line;
                    let n = u32::try_from(site.snippet.lines.len()).unwrap_or(u32::MAX);
                    line >= first && line < first.saturating_add(n)
                })
        };
        self.omissions.iter().any(|o| shows(&o.site))
            || self.files.values().any(|f| {
                f.symbols
                    .iter()
                    .any(|s| s.sites.iter().chain(&s.test_sites).any(shows))
            })
    }

    pub fn has_site(&self, file: &str, line: u32) -> bool {
        self.omissions
            .iter()
            .any(|o| o.site.file == file && o.site.line == line)
    }

    /// The blast radius of a finding at `file:line`, as the review contract
    /// writes it: `N direct callers, M transitive importers`.
    pub fn blast_radius(&self, file: &str, line: u32) -> Option<(usize, usize)> {
        if let Some(indexed) = self.files.get(file) {
            let callers = self.symbol_at(file, line).map_or(0, |s| s.callers);
            return Some((callers, indexed.transitive_importers));
        }
        // A stale use in a file the change did not touch: the reach of the
        // symbol it names.
        let o = self
            .omissions
            .iter()
            .find(|o| o.site.file == file && o.site.line == line)?;
        let defined = self.files.get(&o.defined_in);
        let callers = self
            .omissions
            .iter()
            .filter(|x| x.symbol == o.symbol && x.defined_in == o.defined_in)
            .count();
        Some((callers, defined.map_or(0, |d| d.transitive_importers)))
    }
}

/// `N direct callers, M transitive importers`, spelled as the review
/// contract spells it whatever the numbers, so that tools can read it.
pub fn describe_radius(callers: usize, importers: usize) -> String {
    format!("{callers} direct callers, {importers} transitive importers")
}
