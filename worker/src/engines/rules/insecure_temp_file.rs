use super::meta::{Example, RuleMeta};
use revu_domain::finding::{Dimension, Severity};
use super::table::{Check, Files, Wording, table_rule};
use super::lang::Lang;
use std::sync::LazyLock;

static CHECKS: LazyLock<Vec<Check>> = LazyLock::new(|| {
    vec![
        Check::new("tempfile.mktemp", Files::Lang(Lang::Python), r"\btempfile\.mktemp\(|\bos\.(?:tempnam|tmpnam)\("),
        Check::new("mktemp/tmpnam", Files::Lang(Lang::C), r"(?:^|[^\w.])(?:mktemp|tmpnam|tempnam)\("),
    ]
});

fn summary(label: &str) -> String {
    format!("Temporary file named before it is created (`{label}`).")
}

static WORDING: Wording = Wording {
    summary,
    why: "Another process can create that path first, a symlink to a file it wants \
          overwritten, and the program then writes where the attacker chose.",
    fix: "Create the file atomically: `tempfile.mkstemp()`, `NamedTemporaryFile()`, \
          `mkstemp(3)`.",
};

/// The `insecure-temp-file` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-017",
    name: "insecure-temp-file",
    dimension: Dimension::Security,
    severity: Severity::Important,
    confidence: 85,
    languages: &["Python", "C/C++"],
    catches: "Flags temporary file names made before the file is: Python's `tempfile.mktemp()` \
              and `os.tempnam()`, C's `mktemp()`, `tmpnam()`. The class of bandit's B306.",
    why: "Between choosing the name and opening it, another process can create that path (a \
          symlink to a file it wants overwritten), and the program then writes where the \
          attacker chose.",
    example: Example {
        path: "app/export.py",
        code: "path = tempfile.mktemp()",
        context: "",
    },
    instead: "`tempfile.mkstemp()` / `NamedTemporaryFile()` / `mkstemp(3)`, which create the \
              file atomically.",
};

table_rule! {
    /// The `insecure-temp-file` rule: [`META`].
    InsecureTempFile {
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
    fn flags_names_made_before_files() {
        let change = [added_file("app/tmp.py", &["p = tempfile.mktemp()", "fd, p = tempfile.mkstemp()"])];
        let found = run(&InsecureTempFile, &change);
        assert_eq!(cited(&found), vec![("app/tmp.py", 1)]);
        assert_well_formed(&InsecureTempFile, &found);
    }
}
