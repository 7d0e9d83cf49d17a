use super::paths::{MigrationPath, migration_path};
use super::pattern::{Pattern, pattern};
use super::scope::{each_head_line, indent};
use super::meta::{Example, RuleMeta};
use super::{Message, Reads, Rule, RuleContext, downgrade, finding, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static DESTRUCTIVE: Pattern = pattern!(concat!(
        r#"(?i)\b(drop\s+(?:table|column|schema|database)|truncate(?:\s+table)?"#,
        r#"|alter\s+table\s+\S+\s+drop\s+(?:column\s+)?[\w"`]+"#,
        r#"|op\.drop_(?:table|column)|remove_column|drop_table|remove_reference"#,
        r#"|migrations\.(?:RemoveField|DeleteModel))\b"#,
    ));
/// A function header whose body undoes a migration.
static DOWN_FN: Pattern = pattern!(r"^\s*def\s+(?:downgrade|down|backwards)\b");
static ANY_FN: Pattern = pattern!(r"^\s*def\s+\w+");

/// The `destructive-migration` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct DestructiveMigration;

/// The `destructive-migration` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-COR-005",
    name: "destructive-migration",
    dimension: Dimension::Correctness,
    severity: Severity::Blocker,
    confidence: 85,
    languages: &["SQL", "Python", "Ruby"],
    catches: "Flags destructive schema changes in migrations: `DROP TABLE`, `DROP COLUMN`, \
              `TRUNCATE`, `ALTER TABLE … DROP`, Alembic `op.drop_table`/`op.drop_column`, Rails \
              `drop_table`/`remove_column`, Django `RemoveField`/`DeleteModel`. Rollback \
              (`downgrade`, `down`, `*.down.sql`) is not flagged.\n\
              \n\
              A migration is a SQL file, or a file of a migrations directory named by a number, \
              a timestamp or a revision (`0002_drop.py`, `db/migrate/2024…rb`, `V3__x.sql`, \
              `alembic/versions/…`). Test code is skipped: a migration framework's own tests, \
              and the migrations and schemas they load, run against a test database. Other \
              files of a migrations directory (the framework's source, helpers) are IMPORTANT, \
              not BLOCKER.",
    why: "Running the migration deletes data irrecoverably, and during a rolling deploy the old \
          version of the code still reads the dropped table or column.",
    example: Example {
        path: "db/migrations/0042_drop_legacy_email.sql",
        code: "ALTER TABLE users DROP COLUMN legacy_email;",
        context: "",
    },
    instead: "stop reading and writing the column in one release, back it up if needed, and \
              drop it in a later migration once no deployed version uses it.",
};

impl Rule for DestructiveMigration {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
    fn reads(&self) -> Reads {
        Reads::CodeAndStrings
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let path = patch.path();
            // A framework's own tests, and the migrations and schemas they
            // load, run against a throwaway test database: no data is lost.
            let kind = migration_path(path);
            if matches!(kind, MigrationPath::None | MigrationPath::Test)
                || path.to_ascii_lowercase().ends_with(".down.sql")
            {
                continue;
            }
            for hunk in &patch.hunks {
                // Whether the innermost `def` so far is a rollback, and its indentation.
                let mut in_down = DOWN_FN.is_match(&hunk.section);
                let mut def_indent = 0;
                for l in each_head_line(hunk) {
                    if ANY_FN.is_match(l.text) {
                        in_down = DOWN_FN.is_match(l.text);
                        def_indent = indent(l.text);
                    } else if in_down && !l.text.trim().is_empty() && indent(l.text) <= def_indent {
                        in_down = false;
                    }
                    if !l.added || in_down {
                        continue;
                    }
                    let Some(c) = ctx
                        .production_text(patch, l.line)
                        .and_then(|t| DESTRUCTIVE.captures(t))
                    else {
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
                              read or write what it removes. Checked: the file is a versioned \
                              migration, not its rollback and not test code, and the statement \
                              drops data (not a constraint, an index or a default)."
                            .into(),
                        fix: "Split it: first ship code that no longer uses the table or column, \
                              take a backup (or copy the data), then drop it in a separate, later \
                              migration; make sure the rollback path is documented."
                            .into(),
                    };
                    let f = finding(self, path, l.line, BlastRadius::System, msg);
                    out.push(if kind == MigrationPath::Unversioned {
                        downgrade(f, Severity::Important, UNVERSIONED)
                    } else {
                        f
                    });
                }
            }
        }
    }
}

const UNVERSIONED: &str = "the file is in a migrations directory but not named like a \
                           migration (no number, timestamp or `versions/` revision), so it is \
                           more likely a migration framework's own code or a helper than a \
                           migration that runs against a deployed database. If it is one:";

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
    fn app_migrations_stay_blockers() {
        let change = [
            added_file(
                "shop/migrations/0002_drop.py",
                &[
                    "class Migration(migrations.Migration):",
                    "    operations = [migrations.DeleteModel(name=\"Legacy\")]",
                ],
            ),
            added_file(
                "db/migrate/20240101120000_drop_users.rb",
                &["def change", "  drop_table :users", "end"],
            ),
            added_file("schema/003_drop.sql", &["DROP TABLE sessions;"]),
        ];
        let found = run(&DestructiveMigration, &change);
        assert_eq!(
            cited(&found),
            vec![
                ("shop/migrations/0002_drop.py", 2),
                ("db/migrate/20240101120000_drop_users.rb", 2),
                ("schema/003_drop.sql", 1)
            ]
        );
        assert!(found.iter().all(|f| f.severity == Severity::Blocker));
        assert_well_formed(&DestructiveMigration, &found);
    }

    #[test]
    fn a_migration_frameworks_own_tests_are_not_migrations() {
        let change = [
            added_file(
                "tests/migrations/test_operations.py",
                &[
                    "def test_drop(self):",
                    "    with connection.cursor() as c:",
                    "        c.execute(\"DROP TABLE test_pony\")",
                ],
            ),
            added_file(
                "tests/migrations/test_migrations/0002_second.py",
                &["    operations = [migrations.DeleteModel(\"Tribble\")]"],
            ),
            added_file(
                "alembic/testing/suite/test_op.py",
                &["    op.drop_table(\"foo\")"],
            ),
            added_file("tests/fixtures/schema.sql", &["DROP TABLE IF EXISTS t;"]),
        ];
        assert!(run(&DestructiveMigration, &change).is_empty());
    }

    #[test]
    fn framework_source_in_a_migrations_dir_is_important_with_the_reason() {
        let change = [added_file(
            "django/db/migrations/recorder.py",
            &["        self.cursor.execute(\"DROP TABLE %s\" % table)"],
        )];
        let found = run(&DestructiveMigration, &change);
        assert_eq!(cited(&found), vec![("django/db/migrations/recorder.py", 1)]);
        assert_eq!(found[0].severity, Severity::Important);
        assert!(found[0].why.contains("not named like a migration"));
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
