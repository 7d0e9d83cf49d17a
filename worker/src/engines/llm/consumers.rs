//! What the code index says about a lane's files, for the prompt: who
//! imports each file, who calls the symbols the change touched, and the
//! uses at head the change left stale. The contract asks a reviewer to
//! find the consumers of every changed symbol; this is what lets a model
//! do it without a checkout.

use super::prompt::fence_safe;
use crate::engines::LaneInput;
use std::fmt::Write;

/// Most changed symbols listed per file.
const MAX_SYMBOLS: usize = 20;
/// Most call sites listed per symbol.
const MAX_SITES: usize = 5;

/// The consumers section of `input`'s prompt; empty without an index.
pub(super) fn section(input: &LaneInput) -> String {
    let Some(index) = input.bundle().code_index.as_ref() else {
        return String::new();
    };
    let mut out = String::new();
    for patch in input.lane_files() {
        let path = patch.path();
        let Some(file) = index.files.get(path) else {
            continue;
        };
        let _ = writeln!(
            out,
            "Consumers of {path}: {} direct importer(s), {} transitive.",
            file.direct_importers, file.transitive_importers
        );
        if !file.importers.is_empty() {
            let _ = writeln!(out, "  imported by: {}", file.importers.join(", "));
        }
        for s in file.symbols.iter().filter(|s| s.changed).take(MAX_SYMBOLS) {
            let sites: Vec<String> = s
                .sites
                .iter()
                .take(MAX_SITES)
                .map(|x| format!("{}:{}", x.file, x.line))
                .collect();
            let _ = writeln!(
                out,
                "  changed {} `{}` (lines {}-{}): {} caller(s){}",
                s.kind.as_str(),
                s.name,
                s.line,
                s.end_line,
                s.callers,
                if sites.is_empty() {
                    String::new()
                } else {
                    format!(", e.g. {}", sites.join(", "))
                }
            );
        }
        for o in index.omissions_in(path) {
            let what = match &o.doubt {
                None => "stale use".to_owned(),
                Some(doubt) => format!("possible stale use, to check ({doubt})"),
            };
            let _ = writeln!(
                out,
                "  {what} at {}:{} of {} `{}` ({}): {}",
                o.site.file,
                o.site.line,
                o.kind.as_str(),
                o.symbol,
                o.change.describe(),
                fence_safe(&o.text)
            );
        }
    }
    if out.is_empty() {
        return out;
    }
    format!("Code index (callers and importers at head):\n{out}\n")
}
