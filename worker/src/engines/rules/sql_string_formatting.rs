use super::falsify::{Around, weigh_injection};
use super::interpolation::interpolation;
use super::lang::Lang;
use super::paths::in_migration_dir;
use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Reads, Rule, RuleContext, finding, mask_of, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

/// SQL written in upper case, as it usually is inside application code.
static SQL_UPPER: Pattern = pattern!(r"\b(SELECT\s.*?\bFROM|INSERT\s+INTO|UPDATE\s+\S+\s+SET|DELETE\s+FROM)\b");
/// Lower-case SQL needs a full clause, so that prose ("select a file from")
/// does not match.
static SQL_ANY_CASE: Pattern = pattern!(concat!(
        r"(?i)\b(select\s.*?\bfrom\s+\S+.*?\bwhere",
        r"|insert\s+into\s+\S+.*?\bvalues",
        r"|update\s+\S+\s+set\s+\w+\s*=",
        r"|delete\s+from\s+\S+\s+where)\b",
    ));

/// The `sql-string-formatting` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct SqlStringFormatting;

/// The `sql-string-formatting` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-002",
    name: "sql-string-formatting",
    dimension: Dimension::Security,
    severity: Severity::Blocker,
    confidence: 80,
    languages: &["any source language"],
    catches: "Flags SQL statements (`SELECT … FROM`, `INSERT INTO`, `UPDATE … SET`, `DELETE \
              FROM`) built on one line with f-strings, `%` formatting, `.format()`, `format!`, \
              `fmt.Sprintf`, template literals, interpolated strings or string concatenation.",
    why: "Values pasted into the SQL text are parsed as SQL. A value that contains a quote \
          changes the statement — the classic SQL injection — which can read, modify or delete \
          any data the database user can reach.",
    example: Example {
        path: "app/users.py",
        code: concat!(
            "def find_user(cur, email):\n",
            "    cur.execute(f\"SELECT * FROM users WHERE email = '{email}'\")",
        ),
        context: "",
    },
    instead: concat!(
        "```python\n",
        "def find_user(cur, email):\n",
        "    cur.execute(\"SELECT * FROM users WHERE email = %s\", (email,))\n",
        "```",
    ),
};

impl Rule for SqlStringFormatting {
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
            if !lang.is_source() || in_migration_dir(path) {
                continue;
            }
            let masks = ctx.production_masks(patch);
            for (i, &(line, text)) in ctx.production_lines(patch).iter().enumerate() {
                let bytes = mask_of(&masks, i);
                let Some(sql) = SQL_UPPER
                    .captures_line(text, bytes)
                    .or_else(|| SQL_ANY_CASE.captures_line(text, bytes))
                else {
                    continue;
                };
                let Some(how) = interpolation(text) else {
                    continue;
                };
                let verb = sql[1]
                    .split_whitespace()
                    .next()
                    .unwrap_or("SQL")
                    .to_ascii_uppercase();
                let msg = Message {
                    summary: format!("SQL `{verb}` statement built with {how}."),
                    why: "Values formatted into SQL text are parsed as SQL: input containing a \
                          quote can rewrite the statement (SQL injection) and read or destroy \
                          data the database user can reach."
                        .into(),
                    fix:
                        "Keep the SQL constant and pass values as bound parameters (`%s`/`?`/`$1` \
                          placeholders with a parameter list, or the query builder's bind API); \
                          if an identifier must vary, pick it from a fixed allow-list."
                            .into(),
                };
                let f = finding(self, path, line, BlastRadius::System, msg);
                out.push(weigh_injection(f, &Around::of(ctx, patch), path, line, text));
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, modified, run};
    use super::*;

    #[test]
    fn flags_formatted_sql() {
        let change = [
            modified(
                "app/users.py",
                30,
                &[
                    (' ', "def find(email):"),
                    (
                        '+',
                        "    cur.execute(f\"SELECT * FROM users WHERE email = '{email}'\")",
                    ),
                ],
            ),
            added_file(
                "src/db.rs",
                &["let q = format!(\"delete from jobs where id = {id}\");"],
            ),
            added_file(
                "web/repo.ts",
                &["db.query(`UPDATE orders SET state = '${s}'`);"],
            ),
        ];
        let found = run(&SqlStringFormatting, &change);
        assert_eq!(
            cited(&found),
            vec![("app/users.py", 31), ("src/db.rs", 1), ("web/repo.ts", 1)]
        );
        assert_eq!(
            found[0].summary,
            "SQL `SELECT` statement built with an f-string."
        );
        assert_eq!(
            found[1].summary,
            "SQL `DELETE` statement built with `format!`."
        );
        assert_well_formed(&SqlStringFormatting, &found);
    }

    #[test]
    fn ignores_parameterised_queries_prose_and_tests() {
        let change = [
            added_file(
                "app/users.py",
                &[
                    "cur.execute(\"SELECT * FROM users WHERE email = %s\", (email,))",
                    "log.info(f\"select a file from {folder}\")",
                    "# cur.execute(f\"SELECT * FROM users WHERE id = {uid}\")",
                ],
            ),
            added_file(
                "tests/test_users.py",
                &["q = f\"SELECT * FROM users WHERE id = {uid}\""],
            ),
        ];
        assert!(run(&SqlStringFormatting, &change).is_empty());
    }
}
