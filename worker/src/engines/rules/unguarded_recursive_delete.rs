use super::meta::{Example, RuleMeta};
use revu_domain::finding::{Dimension, Severity};
use super::table::{Check, Files, Wording, table_rule};
use std::sync::LazyLock;

static CHECKS: LazyLock<Vec<Check>> = LazyLock::new(|| {
    vec![
        Check::new(
            "rm -r \"$VAR/…\"",
            Files::Commands,
            r#"\brm\s+(?:-[A-Za-z]*[rR][A-Za-z]*\s+|--recursive\s+)(?:-\S+\s+)*["']?\$\{?\w+\}?["']?/"#,
        )
        .unless(r"\$\{\w+:[?]"),
    ]
});

fn summary(label: &str) -> String {
    format!("Recursive delete of a path an empty variable makes `/` (`{label}`).")
}

static WORDING: Wording = Wording {
    summary,
    why: "When the variable is empty or unset (a typo, a failed command, a missing \
          environment variable) the command deletes from the root.",
    fix: "Write `${VAR:?}` so that the script stops when the variable is empty: \
          `rm -rf \"${VAR:?}/\"*`.",
};

/// The `unguarded-recursive-delete` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-COR-007",
    name: "unguarded-recursive-delete",
    dimension: Dimension::Correctness,
    severity: Severity::Important,
    confidence: 85,
    languages: &["shell", "Dockerfile", "Makefile", "CI YAML"],
    catches: "Flags a recursive delete of a path that starts with a variable and a slash, `rm \
              -rf \"$DIR/\"*`, without `${DIR:?}`. The class of shellcheck's SC2115.",
    why: "When the variable is empty or unset (a typo, a failed command, a missing environment \
          variable) the command becomes `rm -rf /*`.",
    example: Example {
        path: "scripts/clean.sh",
        code: "rm -rf \"$BUILD_DIR/\"*",
        context: "",
    },
    instead: "`rm -rf \"${BUILD_DIR:?}/\"*`, which stops the script when the variable is empty.",
};

table_rule! {
    /// The `unguarded-recursive-delete` rule: [`META`].
    UnguardedRecursiveDelete {
        meta: META,
        checks: CHECKS,
        wording: WORDING,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_deletes_an_empty_variable_turns_into_root() {
        let change = [added_file(
            "ops/clean.sh",
            &["rm -rf \"$TARGET/\"*", "rm -rf \"${TARGET:?}/\"*", "rm -rf ./build"],
        )];
        let found = run(&UnguardedRecursiveDelete, &change);
        assert_eq!(cited(&found), vec![("ops/clean.sh", 1)]);
        assert_well_formed(&UnguardedRecursiveDelete, &found);
    }
}
