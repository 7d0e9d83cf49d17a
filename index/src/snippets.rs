//! The lines around the sites a reviewer reads without the file: the
//! callers and the test uses of each changed symbol, and the stale uses
//! the change left behind.
//!
//! Invariants this module keeps:
//! - only changed symbols' sites (`Symbol.changed`), their test sites and
//!   omissions' sites get a snippet; the rest of the index stays as small
//!   as it was;
//! - at most [`MAX_SNIPPETS`] distinct `(file, line)` places get one, chosen
//!   from the index alone (omissions first, then the changed symbols' sites
//!   rank by rank), so the choice is the same whatever order files are
//!   read in and whether a file's text was at hand or read afterwards;
//! - a snippet is the site's line and up to [`CONTEXT`] lines each side,
//!   clamped to the file, each line cut at [`MAX_LINE`] bytes with
//!   [`CUT_MARK`] after it.
//!
//! The scan does not keep the texts it parses (that would hold the whole
//! repository in memory at once), so the files the snippets need are
//! named by a [`SnippetPlan`] and read again, one at a time: a few hundred
//! at most.

use revu_domain::code_index::{CodeIndex, Site, Snippet};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Lines kept before and after a site's line.
pub const CONTEXT: u32 = 2;
/// Longest line kept in a snippet, in bytes; a longer one is cut.
pub const MAX_LINE: usize = 200;
/// What ends a line that was cut.
pub const CUT_MARK: &str = " …";
/// Most places of one index that carry a snippet.
pub const MAX_SNIPPETS: usize = 400;

/// The places of an index that get a snippet, and the lines read for
/// them so far.
#[derive(Debug, Default)]
pub struct SnippetPlan {
    /// File → lines of sites in it that get a snippet and have none yet.
    wanted: BTreeMap<String, BTreeSet<u32>>,
    found: HashMap<(String, u32), Snippet>,
}

impl SnippetPlan {
    /// The places of `index` that get a snippet and still lack one.
    pub fn of(index: &CodeIndex) -> SnippetPlan {
        let mut chosen: BTreeSet<(&str, u32)> = BTreeSet::new();
        let mut wanted: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
        for site in candidates(index) {
            if chosen.len() >= MAX_SNIPPETS {
                break;
            }
            if chosen.insert((site.file.as_str(), site.line)) && site.snippet.is_empty() {
                wanted
                    .entry(site.file.clone())
                    .or_default()
                    .insert(site.line);
            }
        }
        SnippetPlan {
            wanted,
            found: HashMap::new(),
        }
    }

    /// The files whose text the plan still needs, sorted.
    pub fn files(&self) -> Vec<String> {
        self.wanted.keys().cloned().collect()
    }

    /// Whether nothing is left to read.
    pub fn is_done(&self) -> bool {
        self.wanted.is_empty()
    }

    /// Takes the snippets of `path` from its text; a file the plan does
    /// not need is passed over.
    pub fn read(&mut self, path: &str, text: &[u8]) {
        let Some(lines) = self.wanted.remove(path) else {
            return;
        };
        for (line, snippet) in snippets(text, &lines) {
            self.found.insert((path.to_owned(), line), snippet);
        }
    }

    /// Puts the snippets read into every site of `index` at their places.
    pub fn apply(self, index: &mut CodeIndex) {
        if self.found.is_empty() {
            return;
        }
        let mut put = |site: &mut Site| {
            if site.snippet.is_empty()
                && let Some(s) = self.found.get(&(site.file.clone(), site.line))
            {
                site.snippet = s.clone();
            }
        };
        for o in &mut index.omissions {
            put(&mut o.site);
        }
        for file in index.files.values_mut() {
            for symbol in file.symbols.iter_mut().filter(|s| s.changed) {
                symbol.sites.iter_mut().for_each(&mut put);
                symbol.test_sites.iter_mut().for_each(&mut put);
            }
        }
    }
}

/// The sites that may carry a snippet, most wanted first: the stale uses,
/// then the changed symbols' first sites and first test sites, then their
/// second ones, and so on.
fn candidates(index: &CodeIndex) -> impl Iterator<Item = &Site> {
    let changed: Vec<_> = index
        .files
        .values()
        .flat_map(|f| &f.symbols)
        .filter(|s| s.changed)
        .collect();
    let deepest = changed
        .iter()
        .map(|s| s.sites.len().max(s.test_sites.len()))
        .max()
        .unwrap_or(0);
    let ranked = (0..deepest).flat_map(move |rank| {
        let changed = changed.clone();
        changed
            .into_iter()
            .flat_map(move |s| [s.sites.get(rank), s.test_sites.get(rank)])
            .flatten()
    });
    index.omissions.iter().map(|o| &o.site).chain(ranked)
}

/// The snippet around each of `lines` (sorted, counted from 1) of `text`,
/// reading the text once; a line past the end gets none.
pub fn snippets(text: &[u8], lines: &BTreeSet<u32>) -> Vec<(u32, Snippet)> {
    let Some(&last_wanted) = lines.last() else {
        return Vec::new();
    };
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    // Only the lines some snippet holds are cut out of the text.
    let mut kept: BTreeMap<u32, String> = BTreeMap::new();
    if !text.is_empty() {
        let window = |n: u32| {
            lines
                .range(n.saturating_sub(CONTEXT)..=n.saturating_add(CONTEXT))
                .next()
                .is_some()
        };
        for (raw, n) in body.split(|&b| b == b'\n').zip(1u32..) {
            if n > last_wanted.saturating_add(CONTEXT) {
                break;
            }
            if window(n) {
                kept.insert(n, cut(raw));
            }
        }
    }
    lines
        .iter()
        .filter(|line| kept.contains_key(line))
        .map(|&line| {
            let first = line.saturating_sub(CONTEXT).max(1);
            let lines = kept
                .range(first..=line.saturating_add(CONTEXT))
                .map(|(_, l)| l.clone())
                .collect();
            (
                line,
                Snippet {
                    first_line: first,
                    lines,
                },
            )
        })
        .collect()
}

/// One line as a snippet holds it: without its line ending, cut at
/// [`MAX_LINE`] bytes on a character boundary, the cut marked.
fn cut(raw: &[u8]) -> String {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let text = String::from_utf8_lossy(raw);
    let text = text.trim_end();
    if text.len() <= MAX_LINE {
        return text.to_owned();
    }
    let mut end = MAX_LINE;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{CUT_MARK}", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use revu_domain::code_index::{IndexedFile, Omission, Symbol, SymbolChange, SymbolKind};

    fn at(text: &str, lines: &[u32]) -> Vec<(u32, u32, Vec<String>)> {
        let lines: BTreeSet<u32> = lines.iter().copied().collect();
        snippets(text.as_bytes(), &lines)
            .into_iter()
            .map(|(l, s)| (l, s.first_line, s.lines))
            .collect()
    }

    fn owned(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| (*l).to_owned()).collect()
    }

    #[test]
    fn a_snippet_is_two_lines_each_side_clamped_to_the_file() {
        let text = "one\ntwo\r\nthree\nfour\nfive\nsix\n";
        assert_eq!(
            at(text, &[1, 4, 6, 7, 0]),
            vec![
                (1, 1, owned(&["one", "two", "three"])),
                (4, 2, owned(&["two", "three", "four", "five", "six"])),
                (6, 4, owned(&["four", "five", "six"])),
            ]
        );
        // No newline at the end: the last line counts all the same.
        assert_eq!(
            at("a\nb", &[2, 3]),
            vec![(2, 1, owned(&["a", "b"]))],
            "a line past the end has no snippet"
        );
        assert_eq!(at("", &[1]), vec![]);
        assert_eq!(at("\n", &[1]), vec![(1, 1, owned(&[""]))]);
    }

    fn symbol(name: &str, changed: bool, sites: usize) -> Symbol {
        Symbol {
            name: name.into(),
            kind: SymbolKind::Function,
            line: 1,
            end_line: 2,
            changed,
            callers: sites,
            sites: (1..=sites)
                .map(|n| Site::at(format!("{name}/{n:04}.py"), 3))
                .collect(),
            tests: Vec::new(),
            test_sites: vec![Site::at(format!("tests/{name}.py"), 7)],
        }
    }

    #[test]
    fn the_plan_takes_stale_uses_first_then_changed_symbols_rank_by_rank() {
        let mut index = CodeIndex::default();
        let file = IndexedFile {
            symbols: vec![
                symbol("a", true, MAX_SNIPPETS),
                symbol("b", true, 2),
                symbol("c", false, 5),
            ],
            ..IndexedFile::default()
        };
        index.files.insert("lib.py".into(), file);
        index.omissions.push(Omission {
            symbol: "gone".into(),
            kind: SymbolKind::Function,
            change: SymbolChange::Removed,
            defined_in: "lib.py".into(),
            defined_line: 4,
            site: Site::at("use.py", 9),
            text: String::new(),
            checked: String::new(),
            doubt: None,
        });
        let plan = SnippetPlan::of(&index);
        let files = plan.files();
        let wanted = |f: &str| files.iter().any(|x| x == f);
        assert_eq!(files.len(), MAX_SNIPPETS);
        assert!(wanted("use.py") && wanted("tests/a.py") && wanted("tests/b.py"));
        assert!(wanted("b/0001.py") && wanted("b/0002.py"));
        assert!(!wanted("c/0001.py"), "an unchanged symbol gets none");
        assert!(wanted("a/0001.py") && !wanted(&format!("a/{MAX_SNIPPETS:04}.py")));
        let mut plan = plan;
        plan.read("use.py", b"1\n2\n3\n4\n5\n6\n7\n8\nuse(x)\n");
        plan.read("unasked.py", b"x\n");
        plan.apply(&mut index);
        assert_eq!(index.omissions[0].site.snippet.first_line, 7);
        assert_eq!(index.omissions[0].site.snippet.lines.len(), 3);
        // Read already, so not asked for again.
        assert!(
            !SnippetPlan::of(&index)
                .files()
                .contains(&"use.py".to_owned())
        );
    }

    #[test]
    fn a_long_line_is_cut_on_a_character_boundary_and_marked() {
        let long = "é".repeat(150);
        let got = at(&format!("x\n{long}\n"), &[1]);
        let line = &got[0].2[1];
        assert!(line.ends_with(CUT_MARK), "{line}");
        assert!(line.len() <= MAX_LINE + CUT_MARK.len(), "{}", line.len());
        assert!(long.starts_with(line.trim_end_matches(CUT_MARK)));
        let exact = "x".repeat(MAX_LINE);
        assert_eq!(at(&exact, &[1])[0].2, vec![exact.clone()]);
    }
}
