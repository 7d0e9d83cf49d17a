use super::lang::Lang;
use super::paths::in_migration_dir;
use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Reads, Rule, RuleContext, finding, mask_of, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static SELECT_STAR: Pattern = pattern!(r#"(?i)\bselect\s+(?:distinct\s+)?(?:\w+\.)?\*\s+from\b"#);

/// The `select-star` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct SelectStar;

/// The `select-star` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-PERF-002",
    name: "select-star",
    dimension: Dimension::Performance,
    severity: Severity::Suggestion,
    confidence: 80,
    languages: &["any source language", "SQL"],
    catches: "Flags `SELECT * FROM` added to application code or SQL files (tests and \
              migrations excluded).",
    why: "The query fetches and transfers every column, including large ones the caller never \
          reads, and it defeats index-only scans. It also couples the code to the table layout: \
          adding or reordering a column silently changes what positional readers receive.",
    example: Example {
        path: "db/queries/orders.sql",
        code: "SELECT * FROM orders WHERE customer_id = $1",
        context: "",
    },
    instead: "```sql\n\
              SELECT id, state, total_cents FROM orders WHERE customer_id = $1\n\
              ```",
};

impl Rule for SelectStar {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
    fn reads(&self) -> Reads {
        Reads::CodeAndStrings
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let path = patch.path();
            let lang = Lang::of(path);
            if !(lang.is_source() || lang == Lang::Sql) || in_migration_dir(path) {
                continue;
            }
            let masks = ctx.production_masks(patch);
            for (i, &(line, text)) in ctx.production_lines(patch).iter().enumerate() {
                if !SELECT_STAR.is_match_line(text, mask_of(&masks, i)) {
                    continue;
                }
                let msg = Message {
                    summary: "Query uses `SELECT *` instead of naming its columns.".into(),
                    why: "Every column is fetched and transferred, including large ones the \
                          caller never reads, index-only scans become impossible, and the result \
                          shape changes whenever the table does."
                        .into(),
                    fix: "List the columns the caller actually uses (`SELECT id, name FROM …`)."
                        .into(),
                };
                out.push(finding(self, path, line, BlastRadius::Local, msg));
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_select_star_in_code_and_sql() {
        let change = [
            added_file(
                "app/orders.py",
                &[
                    "def list_orders(cid):",
                    "    return db.fetch(\"SELECT * FROM orders WHERE customer_id = %s\", cid)",
                ],
            ),
            added_file("queries/report.sql", &["select o.* from orders o;"]),
        ];
        let found = run(&SelectStar, &change);
        assert_eq!(
            cited(&found),
            vec![("app/orders.py", 2), ("queries/report.sql", 1)]
        );
        assert_well_formed(&SelectStar, &found);
    }

    #[test]
    fn ignores_count_star_migrations_comments_and_tests() {
        let change = [
            added_file(
                "app/orders.py",
                &[
                    "n = db.fetch(\"SELECT count(*) FROM orders\")",
                    "# SELECT * FROM orders is too slow here",
                ],
            ),
            added_file(
                "db/migrations/0007_copy.sql",
                &["INSERT INTO orders_v2 SELECT * FROM orders;"],
            ),
            added_file(
                "tests/test_orders.py",
                &["db.fetch(\"SELECT * FROM orders\")"],
            ),
        ];
        assert!(run(&SelectStar, &change).is_empty());
    }
}
