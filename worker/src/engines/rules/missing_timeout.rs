use super::meta::{Example, RuleMeta};
use revu_domain::finding::{Dimension, Severity};
use super::table::{Check, Files, Wording, table_rule};
use super::lang::Lang;
use std::sync::LazyLock;

static CHECKS: LazyLock<Vec<Check>> = LazyLock::new(|| {
    vec![
        // A call that closes on its line, so that its arguments are all seen.
        Check::new(
            "requests without timeout",
            Files::Lang(Lang::Python),
            r"\brequests\.(?:get|post|put|patch|delete|head|options|request)\((?:[^()]|\([^()]*\))*\)",
        )
        .unless(r"\btimeout\s*="),
        Check::new("http.ListenAndServe", Files::Lang(Lang::Go), r"\bhttp\.ListenAndServe(?:TLS)?\("),
    ]
});

fn summary(label: &str) -> String {
    format!("A network call that can wait forever ({label}).")
}

static WORDING: Wording = Wording {
    summary,
    why: "One slow or silent peer holds a worker, a connection or a goroutine until \
          the process restarts; enough of them and the service stops answering.",
    fix: "Bound every call: `timeout=` on requests; an `http.Server` with \
          `ReadHeaderTimeout`, `ReadTimeout` and `WriteTimeout`.",
};

/// The `missing-timeout` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-OPS-005",
    name: "missing-timeout",
    dimension: Dimension::Operability,
    severity: Severity::Important,
    confidence: 80,
    languages: &["Python", "Go"],
    catches: "Flags network calls that can wait forever: a Python `requests` call without \
              `timeout=` (written on one line, so that every argument is seen), and Go's \
              `http.ListenAndServe`, whose server has no read or write timeouts. The class of \
              bandit's B113 and gosec's G114.",
    why: "One slow or silent peer then holds a worker, a connection or a goroutine until the \
          process is restarted; enough of them and the service stops answering (slowloris, a \
          hung upstream).",
    example: Example {
        path: "app/client.py",
        code: "r = requests.get(url)",
        context: "",
    },
    instead: "`requests.get(url, timeout=10)`; an `http.Server` with `ReadHeaderTimeout`, \
              `ReadTimeout` and `WriteTimeout` set.",
};

table_rule! {
    /// The `missing-timeout` rule: [`META`].
    MissingTimeout {
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
    fn flags_unbounded_calls() {
        let change = [
            added_file(
                "app/client.py",
                &["r = requests.get(url)", "r = requests.get(url, timeout=5)", "r = requests.post(", "    url, json=x)"],
            ),
            added_file("cmd/main.go", &["http.ListenAndServe(\":8080\", nil)"]),
        ];
        let found = run(&MissingTimeout, &change);
        assert_eq!(cited(&found), vec![("app/client.py", 1), ("cmd/main.go", 1)]);
        assert_well_formed(&MissingTimeout, &found);
    }
}
