//! Proptest strategies for arbitrary `REVIEW.md` files, shared by the
//! property tests of the conventions and of verification.

use proptest::prelude::*;

/// Any bullet the grammar knows, well-formed or not, over the given rule
/// ids and globs, plus arbitrary printable text.
fn arb_bullet(
    rules: &'static [&'static str],
    globs: &'static [&'static str],
) -> impl Strategy<Value = String> {
    let rule = prop::sample::select(rules.to_vec());
    let glob = prop::sample::select(globs.to_vec());
    let qual = prop::sample::select(vec!["", "at least ", "at most "]);
    let sev = prop::sample::select(vec!["BLOCKER", "IMPORTANT", "SUGGESTION", "suggestion"]);
    prop_oneof![
        (rule.clone(), glob.clone(), qual.clone(), sev.clone())
            .prop_map(|(r, g, q, s)| format!("- `{r}` in `{g}`: {q}{s}")),
        (rule.clone(), qual.clone(), sev.clone()).prop_map(|(r, q, s)| format!("- `{r}`: {q}{s}")),
        (glob.clone(), qual, sev).prop_map(|(g, q, s)| format!("- `{g}`: {q}{s}")),
        rule.clone().prop_map(|r| format!("- `{r}`")),
        glob.clone().prop_map(|g| format!("- `{g}`: fine")),
        (rule, glob).prop_map(|(r, g)| format!("- `{r}` in `{g}` matching \"summary\"")),
        "[ -~]{0,24}".prop_map(|s| format!("- {s}")),
    ]
}

/// A `REVIEW.md` of up to five sections of up to five bullets each.
pub(crate) fn arb_review_md(
    rules: &'static [&'static str],
    globs: &'static [&'static str],
) -> impl Strategy<Value = String> {
    let section = prop::sample::select(vec!["Severity Overrides", "Allowed Nits", "Path Guidance"]);
    let bullets = prop::collection::vec(arb_bullet(rules, globs), 0..5);
    prop::collection::vec((section, bullets), 0..5).prop_map(|sections| {
        sections
            .into_iter()
            .map(|(title, bullets)| format!("## {title}\n{}\n", bullets.join("\n")))
            .collect()
    })
}
