use super::meta::{Example, RuleMeta};
use revu_domain::finding::{Dimension, Severity};
use super::table::{Check, Files, Wording, table_rule};
use super::lang::Lang;
use std::sync::LazyLock;

/// An octal mode whose last digit lets others write (2, 3, 6 or 7).
const OTHERS_WRITE: &str = r"\b0[oO]?[0-7]?[0-7][0-7][2367]\b";

static CHECKS: LazyLock<Vec<Check>> = LazyLock::new(|| {
    vec![
        Check::new(
            "chmod",
            Files::Commands,
            r"\bchmod\s+(?:-[A-Za-z]+\s+)*(?:0?[0-7]?[0-7][0-7][2367]|[ugoa]*[oa][ugoa]*\+[rwxXst]*w[rwxXst]*)(?:\s|$)",
        ),
        Check::new("os.chmod/mkdir/open", Files::Lang(Lang::Python), &format!(r"\bos\.(?:chmod|fchmod|mkdir|makedirs|open)\(.*{OTHERS_WRITE}")),
        Check::new("os.WriteFile/OpenFile/Mkdir/Chmod", Files::Lang(Lang::Go), &format!(r"\bos\.(?:WriteFile|OpenFile|Mkdir|MkdirAll|Chmod)\(.*{OTHERS_WRITE}")),
        Check::new("fs.chmod/writeFile/mkdir", Files::Lang(Lang::JavaScript), &format!(r"\bfs\.(?:chmod|chmodSync|writeFile|writeFileSync|mkdir|mkdirSync|open|openSync)\(.*{OTHERS_WRITE}")),
        Check::new("setWritable(true, false)", Files::Lang(Lang::Java), r"\bsetWritable\(\s*true\s*,\s*false\s*\)|\bPosixFilePermission\.OTHERS_WRITE\b"),
    ]
});

fn summary(label: &str) -> String {
    format!("Made writable by every user (`{label}`).")
}

static WORDING: Wording = Wording {
    summary,
    why: "Any local user or process, a compromised one included, can then replace the \
          program, its configuration or its data, and run code as whoever uses them next.",
    fix: "Grant the least mode that works (`750`, `640`, `0o600`) to an owner or group \
          that needs the access.",
};

/// The `world-writable-permissions` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-012",
    name: "world-writable-permissions",
    dimension: Dimension::Security,
    severity: Severity::Important,
    confidence: 85,
    languages: &["shell", "Dockerfile", "Makefile", "CI YAML", "Python", "Go", "JavaScript/TypeScript", "Java"],
    catches: "Flags files and directories made writable by every user: `chmod 777`, `chmod \
              o+w`, `os.chmod(p, 0o777)`, `os.WriteFile(p, b, 0666)`, `fs.writeFileSync(p, d, { \
              mode: 0o666 })`, Java's `setWritable(true, false)`. The class of bandit's B103, \
              gosec's G301/G302/G306 and the `chmod 777` checks of shell and Dockerfile \
              linters.",
    why: "Any local user or process, a compromised one included, can then replace the program, \
          its configuration or its data, and so run code as whoever uses them next.",
    example: Example {
        path: "scripts/deploy.sh",
        code: "chmod 777 /srv/app",
        context: "",
    },
    instead: "the least mode that works (`750`, `640`, `0o600`), and an owner or group that \
              needs the access.",
};

table_rule! {
    /// The `world-writable-permissions` rule: [`META`].
    WorldWritablePermissions {
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
    fn flags_modes_that_let_others_write() {
        let change = [
            added_file("deploy/setup.sh", &["chmod 777 /srv/app", "chmod 750 /srv/app", "chmod -R o+w /data"]),
            added_file("app/files.py", &["os.chmod(path, 0o777)", "os.chmod(path, 0o640)"]),
            added_file("pkg/w.go", &["os.WriteFile(p, b, 0666)", "os.WriteFile(p, b, 0600)"]),
        ];
        let found = run(&WorldWritablePermissions, &change);
        assert_eq!(
            cited(&found),
            vec![
                ("deploy/setup.sh", 1),
                ("deploy/setup.sh", 3),
                ("app/files.py", 1),
                ("pkg/w.go", 1)
            ]
        );
        assert_well_formed(&WorldWritablePermissions, &found);
        assert!(CHECKS.iter().all(Check::compiles));
    }
}
