//! The lines a rule reads: a file's added lines as the lexical pass
//! ([`super::lexical`]) sees them ([`super::lines`]), filtered by what the
//! rule declares it reads ([`Reads`]).
//!
//! A line has three views: its code (comments removed, the contents of
//! its strings blanked, `f("…")` reading `f("")`), its code and strings
//! (comments removed), and the line as written. A rule gets only the view
//! it declares, whichever helper it calls, so that a rule reading code
//! never matches a comment or a string's text; it may ask for less
//! ([`RuleContext::reading`]), never for more.
//!
//! A rule's production lines are the added lines before test code starts
//! ([`super::scope::test_code_start`]) that hold something in its view: a
//! line that is only a comment or a docstring is none for a rule reading
//! code, nor a line that is only a string's contents for one reading code
//! alone.

use super::RuleContext;
use super::lines::{FileLines, View};
use super::table::Kind;
use revu_domain::diff::FilePatch;
use revu_domain::pattern::LineMask;
use std::borrow::Cow;

/// What of a file's lines a rule reads ([`super::Rule::reads`]): the
/// engine gives it that and no more. From least to most.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reads {
    /// Code: comments removed, the contents of string literals blanked.
    #[default]
    Code,
    /// Code and the contents of its strings (a SQL statement, a shell
    /// command, a setting's value), comments removed.
    CodeAndStrings,
    /// Everything, comments included.
    Everything,
}

impl Reads {
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// How `docs/engines.md` and the catalogue say it: `code`, `code and
    /// strings` or `everything`.
    pub fn as_str(self) -> &'static str {
        match self {
            Reads::Code => "code",
            Reads::CodeAndStrings => "code and strings",
            Reads::Everything => "everything",
        }
    }
}

/// The `i`th of `masks` ([`RuleContext::production_masks`],
/// [`RuleContext::added_masks`]); past the end, one that turns nothing
/// away.
pub(crate) fn mask_of(masks: &[LineMask], i: usize) -> LineMask {
    masks.get(i).copied().unwrap_or(LineMask::ALL)
}

/// The `i`th production line's code ([`RuleContext::production_code`]),
/// given its `text`.
pub(crate) fn blanked<'t>(code: &[&'t str], i: usize, text: &'t str) -> &'t str {
    code.get(i).copied().unwrap_or(text)
}

impl<'a> RuleContext<'a> {
    /// The lines of `patch`, if the context carries them.
    pub(crate) fn file_lines(&self, patch: &FilePatch) -> Option<&'a FileLines<'a>> {
        self.lines.iter().find(|l| std::ptr::eq(l.patch, patch))
    }

    /// [`RuleContext::file_lines`], for a rule reading them: every file of
    /// its lane has them when the rule is [`super::run`].
    fn read(&self, patch: &FilePatch) -> Option<&'a FileLines<'a>> {
        let found = self.file_lines(patch);
        debug_assert!(found.is_some(), "{} read outside its lane", patch.path());
        found
    }

    /// The same context reading no more than `reads` (never more than the
    /// rule declared): for a rule that reads one thing of a line as code
    /// and another as written.
    pub(crate) fn reading(&self, reads: Reads) -> Self {
        RuleContext {
            reads: reads.min(self.reads),
            ..*self
        }
    }

    fn view(&self, patch: &FilePatch) -> Option<&'a View<'a>> {
        Some(self.read(patch)?.view(self.reads))
    }

    /// The added lines of `patch` before test code that hold something in
    /// the rule's view, as the view shows them.
    pub(crate) fn production_lines(&self, patch: &FilePatch) -> Cow<'a, [(u32, &'a str)]> {
        let lines = self.view(patch).map(|v| &v.lines[..v.production]);
        Cow::Borrowed(lines.unwrap_or_default())
    }

    /// Each of [`RuleContext::production_lines`], in the same order, as
    /// code (comments removed, string contents blanked). Read them with
    /// [`blanked`].
    pub(crate) fn production_code(&self, patch: &FilePatch) -> Cow<'a, [&'a str]> {
        let Some(lines) = self.read(patch) else {
            return Cow::Borrowed(&[]);
        };
        let production = lines.view(self.reads).production;
        let code = lines.code(self.reads);
        Cow::Borrowed(code.get(..production).unwrap_or(code))
    }

    /// The [`LineMask`] of each of [`RuleContext::production_lines`], in
    /// the same order, which serves the line and its
    /// [`RuleContext::production_code`]. Read them with [`mask_of`].
    pub(crate) fn production_masks(&self, patch: &FilePatch) -> Cow<'a, [LineMask]> {
        let production = self.view(patch).map_or(0, |v| v.production);
        let masks = self.masks(patch);
        Cow::Borrowed(masks.get(..production).unwrap_or(masks))
    }

    /// [`RuleContext::production_lines`] with test code: every added line
    /// of `patch` that holds something in the rule's view.
    pub(crate) fn added_lines(&self, patch: &FilePatch) -> Cow<'a, [(u32, &'a str)]> {
        Cow::Borrowed(self.view(patch).map(|v| &v.lines[..]).unwrap_or_default())
    }

    /// The [`LineMask`] of each of [`RuleContext::added_lines`]. Read them
    /// with [`mask_of`].
    pub(crate) fn added_masks(&self, patch: &FilePatch) -> Cow<'a, [LineMask]> {
        Cow::Borrowed(self.masks(patch))
    }

    fn masks(&self, patch: &FilePatch) -> &'a [LineMask] {
        self.read(patch)
            .map(|l| l.shared().masks(l.patch, self.reads))
            .unwrap_or_default()
    }

    /// The production line `line` of `patch` in the rule's view; `None`
    /// when it is not one (for a rule that walks a hunk's lines itself).
    pub(crate) fn production_text(&self, patch: &FilePatch, line: u32) -> Option<&'a str> {
        let lines = self.view(patch).map(|v| &v.lines[..v.production])?;
        let at = lines.binary_search_by_key(&line, |&(n, _)| n).ok()?;
        lines.get(at).map(|&(_, text)| text)
    }

    /// What kind of file `patch` is, as the tables' checks ask.
    pub(crate) fn kind(&self, patch: &FilePatch) -> Kind {
        self.file_lines(patch)
            .map_or_else(|| Kind::of(patch.path()), FileLines::kind)
    }
}

#[cfg(test)]
mod tests {
    use super::super::memo::{FileFindings, Reading};
    use super::super::pattern::{Pattern, pattern};
    use super::super::testing::{added_file, cited, modified, run};
    use super::super::{FileLines, all_rules, run as run_rule};
    use super::*;
    use revu_domain::diff::Diff;
    use revu_domain::finding::{Dimension, Finding};
    use std::collections::BTreeMap;

    fn findings_of(rule: &str, change: &[FilePatch]) -> Vec<Finding> {
        let rules = all_rules();
        let rule = rules.iter().find(|r| r.code() == rule);
        rule.map(|r| run(r.as_ref(), change)).unwrap_or_default()
    }

    #[test]
    fn verify_false_inside_a_multi_line_string_is_not_tls_verification_disabled() {
        let change = [added_file(
            "app/client.py",
            &[
                "HELP = \"\"\"",
                "Never call requests.get(url, verify=False) here.",
                "\"\"\"",
                "requests.get(url, verify=True)  # not verify=False",
            ],
        )];
        assert!(findings_of("RV-SEC-005", &change).is_empty());
    }

    #[test]
    fn a_rule_reading_code_gets_neither_comments_nor_string_contents() {
        static EVAL: Pattern = pattern!(r"\beval\(");
        let patch = added_file(
            "app/x.py",
            &["x = 1  # eval(y)", "# eval(z)", "s = 'eval(w)'", "eval(v)"],
        );
        let lines = FileLines::lazy(&patch, None);
        let files = [&patch];
        let ctx = RuleContext {
            lines: std::slice::from_ref(&lines),
            ..RuleContext::new(&files, &[], None)
        };
        let code = ctx.production_lines(&patch);
        assert_eq!(
            code.to_vec(),
            vec![(1, "x = 1  "), (3, "s = ''"), (4, "eval(v)")]
        );
        let masks = ctx.production_masks(&patch);
        let found: Vec<bool> = (0..code.len())
            .map(|i| EVAL.is_match_line(code[i].1, mask_of(&masks, i)))
            .collect();
        assert_eq!(found, [false, false, true]);
        // The mask admits what blanking made, which the line as written
        // does not hold.
        static BLANKED: Pattern = pattern!(r"s = ''");
        assert!(BLANKED.is_match_line(code[1].1, mask_of(&masks, 1)));
        // Asking for more than it declared gives it no more.
        let wider = ctx.reading(Reads::Everything);
        assert_eq!(wider.production_lines(&patch).len(), 3);
        let strings = RuleContext {
            reads: Reads::CodeAndStrings,
            ..ctx
        };
        assert_eq!(strings.production_lines(&patch)[1], (3, "s = 'eval(w)'"));
        assert_eq!(strings.production_code(&patch)[1], "s = ''");
        let all = RuleContext {
            reads: Reads::Everything,
            ..ctx
        };
        assert_eq!(all.added_lines(&patch).len(), 4);
    }

    #[test]
    fn a_hunk_that_opens_inside_a_block_comment_is_read_as_one_with_the_head_file() {
        let patch = modified(
            "src/lib.rs",
            3,
            &[
                (' ', "let cfg = load();"),
                ('+', "let v = cfg.get().unwrap();"),
            ],
        );
        let head = "/* How to use:\n\nlet cfg = load();\nlet v = cfg.get().unwrap();\n*/\n";
        let heads = BTreeMap::from([("src/lib.rs".to_owned(), head.as_bytes().to_vec())]);
        let change = [patch];
        // Without the head file, the hunk reads as code (best effort).
        assert_eq!(
            cited(&findings_of("RV-COR-001", &change)),
            vec![("src/lib.rs", 4)]
        );
        let rules = all_rules();
        let files: Vec<&FilePatch> = change.iter().collect();
        let ctx = RuleContext::new(&files, &change, None).with_heads(Some(&heads));
        let mut alone = Vec::new();
        for rule in &rules {
            run_rule(rule.as_ref(), &ctx, &mut alone);
        }
        let diff = Diff {
            files: change.to_vec(),
        };
        let mut shared = Vec::new();
        let reading = Reading {
            diff: &diff,
            index: None,
            heads: Some(&heads),
        };
        FileFindings::default().extend(&rules, reading, 0, &Dimension::ALL, &mut shared);
        for found in [alone, shared] {
            assert!(!found.iter().any(|f| f.rule == "RV-COR-001"), "{found:?}");
        }
    }
}
