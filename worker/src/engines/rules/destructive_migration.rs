use super::lang::Lang;
use super::paths::is_migration_path;
use super::pattern::{Pattern, captures, compile, is_match};
use super::scope::{head_lines, indent};
use super::{Message, Rule, RuleContext, finding, text_files};
use revu_common::finding::{BlastRadius, Dimension, Finding, Severity};
use std::sync::LazyLock;

static DESTRUCTIVE: Pattern = LazyLock::new(|| {
    compile(concat!(
        r#"(?i)\b(drop\s+(?:table|column|schema|database)|truncate(?:\s+table)?"#,
        r#"|alter\s+table\s+\S+\s+drop\s+(?:column\s+)?[\w"`]+"#,
        r#"|op\.drop_(?:table|column)|remove_column|drop_table|remove_reference"#,
        r#"|migrations\.(?:RemoveField|DeleteModel))\b"#,
    ))
});
/// A function header whose body undoes a migration.
static DOWN_FN: Pattern = LazyLock::new(|| compile(r"^\s*def\s+(?:downgrade|down|backwards)\b"));
static ANY_FN: Pattern = LazyLock::new(|| compile(r"^\s*def\s+\w+"));

/// ## What it does
/// Flags destructive schema changes in migrations: `DROP TABLE`,
/// `DROP COLUMN`, `TRUNCATE`, `ALTER TABLE … DROP`, Alembic
/// `op.drop_table`/`op.drop_column`, Rails `drop_table`/`remove_column`,
/// Django `RemoveField`/`DeleteModel`.
///
/// ## Why is this bad?
/// Running the migration deletes data irrecoverably, and during a rolling
/// deploy the old version of the code still reads the dropped table or
/// column. Rollback (`downgrade`, `down`, `*.down.sql`) is not flagged.
///
/// ## Example
/// ```sql
/// ALTER TABLE users DROP COLUMN legacy_email;
/// ```
///
/// Use instead: stop reading and writing the column in one release, back it
/// up if needed, and drop it in a later migration once no deployed version
/// uses it.
#[derive(Debug, Clone, Copy, Default)]
pub struct DestructiveMigration;

impl Rule for DestructiveMigration {
    fn code(&self) -> &'static str {
        "RV-COR-005"
    }
    fn name(&self) -> &'static str {
        "destructive-migration"
    }
    fn dimension(&self) -> Dimension {
        Dimension::Correctness
    }
    fn severity(&self) -> Severity {
        Severity::Blocker
    }
    fn confidence(&self) -> u8 {
        85
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let path = patch.path();
            if !is_migration_path(path) || path.to_ascii_lowercase().ends_with(".down.sql") {
                continue;
            }
            let lang = Lang::of(path);
            for hunk in &patch.hunks {
                // Whether the innermost `def` so far is a rollback, and its indentation.
                let mut in_down = is_match(&DOWN_FN, &hunk.section);
                let mut def_indent = 0;
                for l in head_lines(hunk) {
                    if is_match(&ANY_FN, l.text) {
                        in_down = is_match(&DOWN_FN, l.text);
                        def_indent = indent(l.text);
                    } else if in_down && !l.text.trim().is_empty() && indent(l.text) <= def_indent {
                        in_down = false;
                    }
                    if !l.added || in_down || lang.is_comment(l.text) {
                        continue;
                    }
                    let Some(c) = captures(&DESTRUCTIVE, l.text) else {
                        continue;
                    };
                    let op = c[1].split_whitespace().collect::<Vec<_>>().join(" ");
                    if drops_no_data(&op) {
                        continue;
                    }
                    let msg = Message {
                        summary: format!("Migration runs destructive `{op}`."),
                        why: "Applying this migration deletes data that cannot be restored \
                              without a backup, and code still deployed during the rollout may \
                              read or write what it removes."
                            .into(),
                        fix: "Split it: first ship code that no longer uses the table or column, \
                              take a backup (or copy the data), then drop it in a separate, later \
                              migration; make sure the rollback path is documented."
                            .into(),
                    };
                    out.push(finding(self, path, l.line, BlastRadius::System, msg));
                }
            }
        }
    }
}

/// `ALTER TABLE t DROP CONSTRAINT|INDEX|DEFAULT …` changes no data.
fn drops_no_data(op: &str) -> bool {
    const KEEPS_DATA: &[&str] = &[
        "constraint",
        "index",
        "key",
        "primary",
        "foreign",
        "default",
        "not",
        "check",
        "unique",
    ];
    let last = op
        .rsplit(' ')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    op.to_ascii_lowercase().starts_with("alter") && KEEPS_DATA.contains(&last.as_str())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_drops_in_sql_and_framework_migrations() {
        let change = [
            added_file(
                "db/migrations/0042_users.sql",
                &["-- tidy up", "alter table users drop column legacy_email;"],
            ),
            added_file(
                "alembic/versions/9f1_drop_sessions.py",
                &[
                    "def upgrade():",
                    "    op.drop_table('sessions')",
                    "",
                    "def downgrade():",
                    "    op.drop_table('audit')",
                ],
            ),
        ];
        let found = run(&DestructiveMigration, &change);
        assert_eq!(
            cited(&found),
            vec![
                ("db/migrations/0042_users.sql", 2),
                ("alembic/versions/9f1_drop_sessions.py", 2)
            ]
        );
        assert!(found[1].summary.contains("`op.drop_table`"));
        assert_well_formed(&DestructiveMigration, &found);
    }

    #[test]
    fn ignores_rollbacks_comments_and_non_migrations() {
        let change = [
            added_file("db/migrations/0042_users.down.sql", &["DROP TABLE users;"]),
            added_file(
                "db/migrations/0043.sql",
                &["-- DROP TABLE users; (kept for reference)"],
            ),
            added_file("docs/ops.md", &["Never run DROP TABLE by hand."]),
            added_file(
                "migrations/0044.sql",
                &["ALTER TABLE users DROP CONSTRAINT users_email_key;"],
            ),
            added_file(
                "db/migrate/20240101_add.rb",
                &[
                    "def up",
                    "  add_column :users, :age",
                    "end",
                    "def down",
                    "  remove_column :users, :age",
                    "end",
                ],
            ),
        ];
        assert!(run(&DestructiveMigration, &change).is_empty());
    }
}
