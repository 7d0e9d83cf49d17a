use super::meta::{Example, RuleMeta};
use revu_domain::finding::{Dimension, Severity};
use super::table::{Check, Files, Wording, table_rule};
use super::lang::Lang;
use std::sync::LazyLock;

static CHECKS: LazyLock<Vec<Check>> = LazyLock::new(|| {
    vec![
        Check::new("host=\"0.0.0.0\"", Files::Lang(Lang::Python), r#"\bhost\s*=\s*["']0\.0\.0\.0["']"#).verbatim(),
        Check::new("bind((\"0.0.0.0\", …))", Files::Lang(Lang::Python), r#"\.bind\(\s*\(\s*["'](?:0\.0\.0\.0)?["']\s*,"#).verbatim(),
        Check::new("Listen(\"0.0.0.0:…\")", Files::Lang(Lang::Go), r#"\bnet\.Listen\(\s*"tcp4?"\s*,\s*"0\.0\.0\.0:"#).verbatim(),
        Check::new("listen(…, \"0.0.0.0\")", Files::Lang(Lang::JavaScript), r#"\.listen\([^)]*["']0\.0\.0\.0["']"#).verbatim(),
    ]
});

fn summary(label: &str) -> String {
    format!("Server bound to every interface (`{label}`).")
}

static WORDING: Wording = Wording {
    summary,
    why: "Outside a container the service then answers on every network the machine \
          is on, public ones included.",
    fix: "Bind to `127.0.0.1` by default and take the listen address from \
          configuration where the service must be reachable.",
};

/// The `bind-all-interfaces` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-016",
    name: "bind-all-interfaces",
    dimension: Dimension::Security,
    severity: Severity::Suggestion,
    confidence: 80,
    languages: &["Python", "Go", "JavaScript/TypeScript"],
    catches: "Flags a server bound to every network interface in program code: \
              `app.run(host=\"0.0.0.0\")`, `sock.bind((\"0.0.0.0\", port))`, \
              `net.Listen(\"tcp\", \"0.0.0.0:8080\")`, `server.listen(port, \"0.0.0.0\")`. The \
              class of bandit's B104 and gosec's G102.",
    why: "Outside a container the service then answers on every network the machine is on, \
          public ones included, which is rarely what a development server or an admin endpoint \
          means to do.",
    example: Example {
        path: "app/server.py",
        code: "app.run(host=\"0.0.0.0\", port=8080)",
        context: "",
    },
    instead: "bind to `127.0.0.1` by default and take the address from configuration where the \
              service must be reachable.",
};

table_rule! {
    /// The `bind-all-interfaces` rule: [`META`].
    BindAllInterfaces {
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
    fn flags_binding_to_every_interface() {
        let change = [added_file(
            "app/serve.py",
            &["app.run(host=\"0.0.0.0\", port=80)", "app.run(host=\"127.0.0.1\")", "app.run(host=settings.HOST)"],
        )];
        let found = run(&BindAllInterfaces, &change);
        assert_eq!(cited(&found), vec![("app/serve.py", 1)]);
        assert_well_formed(&BindAllInterfaces, &found);
        assert!(CHECKS.iter().all(Check::compiles));
    }
}
