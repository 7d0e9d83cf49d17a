use super::lang::Lang;
use super::paths::is_test_path;
use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static PY_STAR: Pattern = pattern!(r"^\s*from\s+(\S+)\s+import\s+\*");
/// A private glob `use` (a `pub use …::*` is a deliberate re-export).
static RUST_GLOB: Pattern = pattern!(r"^\s*use\s+([\w:]+)::\*\s*;");
static JAVA_STAR: Pattern = pattern!(r"^\s*import\s+(?:static\s+)?([\w.]+)\.\*\s*;");

/// The `wildcard-import` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct WildcardImport;

/// The `wildcard-import` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-DES-002",
    name: "wildcard-import",
    dimension: Dimension::Design,
    severity: Severity::Suggestion,
    confidence: 80,
    languages: &["Python", "Rust", "Java"],
    catches: "Flags wildcard imports added outside tests: Python `from x import *`, Rust `use \
              path::*;` (not `pub use`, `super::*`, preludes or enum variants), and Java \
              `import pkg.*;`.",
    why: "A wildcard import hides where names come from, lets a new export in the imported \
          module silently shadow or clash with local names, and defeats \"find usages\" and \
          unused-import checks.",
    example: Example {
        path: "billing/views.py",
        code: "from billing.models import *",
        context: "",
    },
    instead: "```python\n\
              from billing.models import Invoice, LineItem\n\
              ```",
};

impl Rule for WildcardImport {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let path = patch.path();
            let lang = Lang::of(path);
            if is_test_path(path) || path.ends_with("__init__.py") {
                continue;
            }
            let lines = match lang {
                Lang::Rust => ctx.production_rust_lines(patch),
                Lang::Python | Lang::Java => ctx.added_lines(patch),
                _ => continue,
            };
            for &(line, text) in lines.iter() {
                let pattern = match lang {
                    Lang::Rust => &RUST_GLOB,
                    Lang::Python => &PY_STAR,
                    _ => &JAVA_STAR,
                };
                let Some(c) = pattern.captures(text) else {
                    continue;
                };
                let module = &c[1];
                if lang == Lang::Rust && !is_flaggable_rust_glob(module) {
                    continue;
                }
                let msg = Message {
                    summary: format!("Wildcard import of `{module}`."),
                    why: "A wildcard import hides where names come from, lets new exports of \
                          the imported module shadow or clash with local names, and defeats \
                          find-usages and unused-import checks."
                        .into(),
                    fix: format!("Import the names you use from `{module}` explicitly."),
                };
                out.push(finding(self, path, line, BlastRadius::Local, msg));
            }
        }
    }
}

/// Rust globs that are idiomatic are not flagged: `super::*`, preludes, and
/// the variants of an enum (last segment capitalised).
fn is_flaggable_rust_glob(module: &str) -> bool {
    let last = module.rsplit("::").next().unwrap_or(module);
    let enum_variants = last.chars().next().is_some_and(char::is_uppercase);
    !(module == "super" || module.split("::").any(|s| s == "prelude") || enum_variants)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_wildcard_imports() {
        let change = [
            added_file(
                "billing/views.py",
                &["import os", "from billing.models import *"],
            ),
            added_file("src/lib.rs", &["use crate::diff::model::*;"]),
        ];
        let found = run(&WildcardImport, &change);
        assert_eq!(
            cited(&found),
            vec![("billing/views.py", 2), ("src/lib.rs", 1)]
        );
        assert_eq!(found[0].summary, "Wildcard import of `billing.models`.");
        assert_well_formed(&WildcardImport, &found);
    }

    #[test]
    fn ignores_reexports_preludes_tests_and_package_inits() {
        let change = [
            added_file(
                "src/lib.rs",
                &[
                    "pub use model::*;",
                    "use bevy::prelude::*;",
                    "fn f(o: Ordering) {",
                    "    use std::cmp::Ordering::*;",
                    "}",
                    "#[cfg(test)]",
                    "mod tests {",
                    "    use super::*;",
                    "    use crate::x::*;",
                    "}",
                ],
            ),
            added_file("billing/__init__.py", &["from .models import *"]),
            added_file("tests/test_views.py", &["from billing.models import *"]),
        ];
        assert!(run(&WildcardImport, &change).is_empty());
    }
}
