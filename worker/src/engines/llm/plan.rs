//! The budget planner: which requests a lane is reviewed in, and what
//! each one shows, within the input budget (`--llm-context-tokens`).
//!
//! Invariants:
//! - Every hunk of the lane is in exactly one request, unless it cannot
//!   fit even alone; such a hunk is named in [`Fitted::left_out`] and the
//!   lane is incomplete. Context never takes a hunk's place.
//! - A request is filled in priority order: its hunks (with what the code
//!   index says of their files), then the definitions enclosing them,
//!   then call sites and tests of the changed symbols, then whole head
//!   files. Each item of a lower priority is added only when it fits in
//!   what is left; an item that does not fit is left out and the next
//!   one tried.
//! - A lane whose hunks do not fit one request is split by file, and a
//!   file too large for a request of its own by hunk; a file's context
//!   goes in the request that carries the file (its definitions with the
//!   hunks they enclose, the rest with its first hunks).
//! - What was shown and what was left out is counted in [`Coverage`], for
//!   the lane's `checks`.

use super::budget::{Counter, REQUEST_OVERHEAD};
use super::prompt::{
    CALLERS_HEADING, DEFINITIONS_HEADING, FileText, PartNote, Parts, Prompt, Share, TESTS_HEADING,
};
use std::collections::BTreeSet;

/// The requests a lane is reviewed in, and what had to be left out.
#[derive(Debug, Clone)]
pub struct Fitted {
    /// Each request's prompt and its counted input tokens.
    pub requests: Vec<(Prompt, u64)>,
    /// Hunks no request could carry, as `path @@ … @@`.
    pub left_out: Vec<String>,
    /// What the requests showed, together.
    pub coverage: Coverage,
}

/// What a lane's requests showed of its hunks and their context, as
/// `shown` of `total` per kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    pub hunks: (usize, usize),
    pub definitions: (usize, usize),
    pub callers: (usize, usize),
    pub tests: (usize, usize),
    pub whole_files: (usize, usize),
    /// Context left out, in words (`whole files of a.py, b.py`).
    pub left_out: Vec<String>,
    pub budget: u64,
}

impl Coverage {
    /// The lane's `checks` entry, e.g. `context: 4 hunks, 2 enclosing
    /// definitions, 6 caller snippets, 1 test snippet, 0 of 3 whole files;
    /// left out: whole files of a.py, b.py (budget 32000)`.
    pub fn describe(&self) -> String {
        let some = |(shown, total): (usize, usize), one: &str, many: &str| {
            let noun = |n: usize| if n == 1 { one } else { many };
            if shown == total {
                format!("{shown} {}", noun(shown))
            } else {
                format!("{shown} of {total} {}", noun(total))
            }
        };
        let mut out = format!(
            "context: {}, {}, {}, {}, {} of {} whole file{}",
            some(self.hunks, "hunk", "hunks"),
            some(
                self.definitions,
                "enclosing definition",
                "enclosing definitions"
            ),
            some(self.callers, "caller snippet", "caller snippets"),
            some(self.tests, "test snippet", "test snippets"),
            self.whole_files.0,
            self.whole_files.1,
            if self.whole_files.1 == 1 { "" } else { "s" }
        );
        if !self.left_out.is_empty() {
            out.push_str("; left out: ");
            out.push_str(&self.left_out.join("; "));
        }
        out.push_str(&format!(" (budget {})", self.budget));
        out
    }
}

/// A context item added to a request, kept so that it can be taken back.
#[derive(Debug, Clone)]
enum Added {
    Definition(usize, usize),
    Caller(usize, usize),
    Test(usize, usize),
    /// A whole file, and the definitions of it it replaced.
    Head(usize, Vec<usize>),
}

/// One request being filled: its files' shares, the tokens they take and
/// the most they may take.
#[derive(Debug, Default)]
struct Bin {
    shares: Vec<(usize, Share)>,
    used: u64,
    limit: u64,
    added: Vec<Added>,
}

impl Bin {
    fn share(&mut self, file: usize) -> Option<&mut Share> {
        self.shares
            .iter_mut()
            .find(|(f, _)| *f == file)
            .map(|(_, s)| s)
    }

    fn undo(&mut self, added: &Added) {
        match added {
            Added::Definition(f, i) => {
                if let Some(s) = self.share(*f) {
                    s.definitions.retain(|d| d != i);
                }
            }
            Added::Caller(f, i) => {
                if let Some(s) = self.share(*f) {
                    s.callers.retain(|d| d != i);
                }
            }
            Added::Test(f, i) => {
                if let Some(s) = self.share(*f) {
                    s.tests.retain(|d| d != i);
                }
            }
            Added::Head(f, replaced) => {
                if let Some(s) = self.share(*f) {
                    s.head = false;
                    s.definitions = replaced.clone();
                }
            }
        }
    }
}

/// Fits `parts` into requests of at most `budget` input tokens each.
pub fn fit(parts: &Parts, counter: Counter, budget: u64) -> Fitted {
    // Every request repeats the system message: counted once.
    let system = counter.count(&parts.system) + REQUEST_OVERHEAD;
    let tokens_of = |prompt: &Prompt| system + counter.count(&prompt.user());
    let files = &parts.files;
    let all: Vec<(usize, Share)> = files
        .iter()
        .enumerate()
        .map(|(f, file)| {
            let share = Share {
                hunks: (0..file.hunks.len()).collect(),
                ..Share::default()
            };
            (f, share)
        })
        .collect();
    let hunks_only: String = files.iter().map(FileText::text).collect();
    let single = tokens_of(&parts.prompt(&hunks_only, None));
    let mut left_out = Vec::new();
    let mut bins = if single <= budget || files.is_empty() {
        let fixed = tokens_of(&parts.prompt("", None));
        vec![Bin {
            shares: all,
            used: single.saturating_sub(fixed),
            limit: budget.saturating_sub(fixed),
            added: Vec::new(),
        }]
    } else {
        let widest = PartNote {
            index: 999,
            of: 999,
            whole: 9999,
            some: 9999,
            files: 9999,
        };
        let room = budget.saturating_sub(tokens_of(&parts.prompt("", Some(widest))));
        split(files, counter, room, &mut left_out)
    };
    // A file's callers, tests and whole text go with the first request
    // that carries it.
    let mut owner: Vec<Option<usize>> = vec![None; files.len()];
    for (b, bin) in bins.iter().enumerate() {
        for (f, _) in &bin.shares {
            owner[*f].get_or_insert(b);
        }
    }
    for (b, bin) in bins.iter_mut().enumerate() {
        fill(bin, files, counter, |f| owner[f] == Some(b));
    }
    let n = bins.len();
    let mut requests = Vec::with_capacity(n);
    for (i, bin) in bins.iter_mut().enumerate() {
        let note = (n > 1).then(|| PartNote {
            index: i + 1,
            of: n,
            whole: bin.shares.iter().filter(|(_, s)| !s.partial).count(),
            some: bin.shares.iter().filter(|(_, s)| s.partial).count(),
            files: files.len(),
        });
        let render = |bin: &Bin| {
            let data: String = bin
                .shares
                .iter()
                .map(|(f, s)| files[*f].section(s))
                .collect();
            let prompt = parts.prompt(&data, note);
            let tokens = tokens_of(&prompt);
            (prompt, tokens)
        };
        let mut request = render(bin);
        // The counts of the parts may fall short of the count of the
        // whole: take context back, last added first, until it fits.
        while request.1 > budget {
            let Some(last) = bin.added.pop() else { break };
            bin.undo(&last);
            request = render(bin);
        }
        requests.push(request);
    }
    let coverage = coverage(files, &bins, left_out.len(), budget);
    Fitted {
        requests,
        left_out,
        coverage,
    }
}

/// The lane's files in requests of at most `room` tokens of file text
/// each: whole files while they fit, a file too large alone hunk by hunk.
fn split(files: &[FileText], counter: Counter, room: u64, left_out: &mut Vec<String>) -> Vec<Bin> {
    let mut bins: Vec<Bin> = Vec::new();
    let mut current = Bin {
        limit: room,
        ..Bin::default()
    };
    let mut place = |f: usize, share: Share, tokens: u64, current: &mut Bin| {
        if current.used + tokens > room && !current.shares.is_empty() {
            bins.push(std::mem::replace(
                current,
                Bin {
                    limit: room,
                    ..Bin::default()
                },
            ));
        }
        current.shares.push((f, share));
        current.used += tokens;
    };
    for (f, file) in files.iter().enumerate() {
        let tokens = counter.count(&file.text());
        if tokens <= room {
            let share = Share {
                hunks: (0..file.hunks.len()).collect(),
                ..Share::default()
            };
            place(f, share, tokens, &mut current);
            continue;
        }
        // Too large for a request of its own: as many consecutive hunks
        // per request as fit.
        let header = counter.count(&file.heading(true)) + 1;
        let mut run: Vec<usize> = Vec::new();
        let mut run_tokens = 0;
        for (h, hunk) in file.hunks.iter().enumerate() {
            let tokens = counter.count(&hunk.text);
            if header + tokens > room {
                left_out.push(format!("{} {}", file.path, hunk.label));
                continue;
            }
            if header + run_tokens + tokens > room {
                let share = Share {
                    hunks: std::mem::take(&mut run),
                    partial: true,
                    ..Share::default()
                };
                place(f, share, header + run_tokens, &mut current);
                run_tokens = 0;
            }
            run.push(h);
            run_tokens += tokens;
        }
        if !run.is_empty() {
            let share = Share {
                hunks: run,
                partial: true,
                ..Share::default()
            };
            place(f, share, header + run_tokens, &mut current);
        }
    }
    if !current.shares.is_empty() {
        bins.push(current);
    }
    bins
}

/// Adds context to `bin` by priority while it fits: enclosing
/// definitions, then call sites, then tests, then whole files.
fn fill(bin: &mut Bin, files: &[FileText], counter: Counter, owns: impl Fn(usize) -> bool) {
    let heading = |h: &str| counter.count(h);
    let (defs_h, callers_h, tests_h) = (
        heading(DEFINITIONS_HEADING),
        heading(CALLERS_HEADING),
        heading(TESTS_HEADING),
    );
    // A request holds at most one share of a file.
    for k in 0..bin.shares.len() {
        let (f, share) = &bin.shares[k];
        let file = &files[*f];
        let wanted: Vec<usize> = (0..file.definitions.len())
            .filter(|&d| {
                file.definitions[d]
                    .hunks
                    .iter()
                    .any(|h| share.hunks.contains(h))
            })
            .collect();
        let f = *f;
        for d in wanted {
            let extra = if bin.shares[k].1.definitions.is_empty() {
                defs_h
            } else {
                0
            };
            let cost = counter.count(&file.definitions[d].text) + extra;
            if bin.used + cost <= bin.limit {
                bin.used += cost;
                bin.shares[k].1.definitions.push(d);
                bin.added.push(Added::Definition(f, d));
            }
        }
    }
    for tests in [false, true] {
        for k in 0..bin.shares.len() {
            let f = bin.shares[k].0;
            let file = &files[f];
            if !owns(f) {
                continue;
            }
            let (sites, h) = if tests {
                (&file.tests, tests_h)
            } else {
                (&file.callers, callers_h)
            };
            for (i, site) in sites.iter().enumerate() {
                let share = &mut bin.shares[k].1;
                let list = if tests {
                    &mut share.tests
                } else {
                    &mut share.callers
                };
                let cost = counter.count(&site.text) + if list.is_empty() { h } else { 0 };
                if bin.used + cost <= bin.limit {
                    bin.used += cost;
                    list.push(i);
                    bin.added.push(if tests {
                        Added::Test(f, i)
                    } else {
                        Added::Caller(f, i)
                    });
                }
            }
        }
    }
    for k in 0..bin.shares.len() {
        let f = bin.shares[k].0;
        let file = &files[f];
        let Some(head) = file.head_section() else {
            continue;
        };
        if !owns(f) {
            continue;
        }
        // The whole file holds its definitions: they give back their room.
        let replaced = bin.shares[k].1.definitions.clone();
        let refund: u64 = replaced
            .iter()
            .map(|&d| counter.count(&file.definitions[d].text))
            .sum::<u64>()
            + if replaced.is_empty() { 0 } else { defs_h };
        let cost = counter.count(&head);
        if bin.used + cost <= bin.limit.saturating_add(refund) {
            bin.used = bin.used + cost - refund;
            let share = &mut bin.shares[k].1;
            share.head = true;
            share.definitions.clear();
            bin.added.push(Added::Head(f, replaced));
        }
    }
}

/// What `bins` show of `files`, all requests together.
fn coverage(files: &[FileText], bins: &[Bin], hunks_left_out: usize, budget: u64) -> Coverage {
    let mut shown_defs = BTreeSet::new();
    let mut shown_callers = BTreeSet::new();
    let mut shown_tests = BTreeSet::new();
    let mut shown_heads = BTreeSet::new();
    for (f, s) in bins.iter().flat_map(|b| b.shares.iter()) {
        shown_defs.extend(s.definitions.iter().map(|d| (*f, *d)));
        shown_callers.extend(s.callers.iter().map(|d| (*f, *d)));
        shown_tests.extend(s.tests.iter().map(|d| (*f, *d)));
        if s.head {
            shown_heads.insert(*f);
            // A whole file shows its definitions too.
            shown_defs.extend((0..files[*f].definitions.len()).map(|d| (*f, d)));
        }
    }
    let total = |n: fn(&FileText) -> usize| files.iter().map(n).sum::<usize>();
    let hunks = total(|f| f.hunks.len());
    let mut c = Coverage {
        hunks: (hunks - hunks_left_out, hunks),
        definitions: (shown_defs.len(), total(|f| f.definitions.len())),
        callers: (shown_callers.len(), total(|f| f.callers.len())),
        tests: (shown_tests.len(), total(|f| f.tests.len())),
        whole_files: (
            shown_heads.len(),
            files.iter().filter(|f| f.head.is_some()).count(),
        ),
        left_out: Vec::new(),
        budget,
    };
    let whole: Vec<&str> = files
        .iter()
        .enumerate()
        .filter(|(f, file)| file.head.is_some() && !shown_heads.contains(f))
        .map(|(_, file)| file.path.as_str())
        .collect();
    if !whole.is_empty() {
        c.left_out
            .push(format!("whole files of {}", listed(&whole)));
    }
    let mut defs = Vec::new();
    let (mut callers, mut tests) = (Vec::new(), Vec::new());
    for (f, file) in files.iter().enumerate() {
        for (d, def) in file.definitions.iter().enumerate() {
            if !shown_defs.contains(&(f, d)) {
                defs.push(format!("`{}` of {}", def.name, file.path));
            }
        }
        let missing = |n: usize, shown: &BTreeSet<(usize, usize)>| {
            (0..n).filter(|i| !shown.contains(&(f, *i))).count()
        };
        match missing(file.callers.len(), &shown_callers) {
            0 => {}
            n => callers.push(format!("{} ({n})", file.path)),
        }
        match missing(file.tests.len(), &shown_tests) {
            0 => {}
            n => tests.push(format!("{} ({n})", file.path)),
        }
    }
    for (what, items) in [
        ("enclosing definitions", defs),
        ("caller snippets of", callers),
        ("test snippets of", tests),
    ] {
        if !items.is_empty() {
            let items: Vec<&str> = items.iter().map(String::as_str).collect();
            c.left_out.push(format!("{what} {}", listed(&items)));
        }
    }
    c
}

/// Most names listed in one item of the coverage note.
const MAX_LISTED: usize = 8;

fn listed(items: &[&str]) -> String {
    let mut out = items
        .iter()
        .take(MAX_LISTED)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > MAX_LISTED {
        out.push_str(&format!(" and {} more", items.len() - MAX_LISTED));
    }
    out
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
