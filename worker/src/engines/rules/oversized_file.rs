use super::lang::Lang;
use super::paths::is_test_path;
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding, text_files};
use revu_domain::diff::FileStatus;
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

/// Added lines above which a new source file is flagged.
const LIMIT: u32 = 1000;

/// The `oversized-file` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct OversizedFile;

/// The `oversized-file` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-DES-003",
    name: "oversized-file",
    dimension: Dimension::Design,
    severity: Severity::Suggestion,
    confidence: 80,
    languages: &["any source language"],
    catches: "Flags a new source file with more than 1000 lines. Lock files, vendored, \
              generated and test files are not flagged.",
    why: "A file that starts out this large usually mixes several responsibilities, is hard to \
          review in one pass, and becomes a merge-conflict hot spot as more people work in it.",
    example: Example {
        path: "services/billing.py",
        code: concat!(
            "def invoice_total(invoice):\n",
            "    return sum(line.amount for line in invoice.lines)",
        ),
        context: "The new file goes on like this for 1,400 lines, holding invoicing, tax rules, \
                  PDF rendering and email delivery.",
    },
    instead: "one module per responsibility (`invoices.py`, `tax.py`, `render.py`, `notify.py`) \
              behind a small package interface.",
};

impl Rule for OversizedFile {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let path = patch.path();
            let added = patch.added();
            if patch.status != FileStatus::Added
                || added <= LIMIT
                || !Lang::of(path).is_source()
                || is_test_path(path)
            {
                continue;
            }
            let msg = Message {
                summary: format!("New file `{path}` has {added} lines."),
                why: "A file that starts this large usually mixes several responsibilities, is \
                      hard to review in one pass, and turns into a merge-conflict hot spot."
                    .into(),
                fix: format!(
                    "Split it into modules of one responsibility each (aim for well under \
                     {LIMIT} lines per file) behind a small public interface."
                ),
            };
            out.push(finding(self, path, patch.anchor_line(), BlastRadius::Module, msg));
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, modified, run};
    use super::*;

    fn lines(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("x{i} = {i}")).collect()
    }

    #[test]
    fn flags_new_source_files_over_the_limit() {
        let big = lines(1001);
        let big: Vec<&str> = big.iter().map(String::as_str).collect();
        let found = run(&OversizedFile, &[added_file("app/billing.py", &big)]);
        assert_eq!(cited(&found), vec![("app/billing.py", 1)]);
        assert_eq!(
            found[0].summary,
            "New file `app/billing.py` has 1001 lines."
        );
        assert_well_formed(&OversizedFile, &found);
    }

    #[test]
    fn ignores_small_generated_data_test_and_modified_files() {
        let at_limit = lines(1000);
        let at_limit: Vec<&str> = at_limit.iter().map(String::as_str).collect();
        let big = lines(1500);
        let big: Vec<&str> = big.iter().map(String::as_str).collect();
        let edits: Vec<(char, &str)> = big.iter().map(|l| ('+', *l)).collect();
        let change = [
            added_file("app/a.py", &at_limit),
            added_file("api/service_pb2.py", &big),
            added_file("data/cities.csv", &big),
            added_file("tests/test_big.py", &big),
            modified("app/legacy.py", 1, &edits),
        ];
        assert!(run(&OversizedFile, &change).is_empty());
    }
}
