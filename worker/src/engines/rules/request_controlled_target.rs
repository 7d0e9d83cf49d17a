use super::meta::{Example, RuleMeta};
use revu_domain::finding::{Dimension, Severity};
use super::table::{Check, Files, Wording, table_rule};
use super::lang::Lang;
use std::sync::LazyLock;

static CHECKS: LazyLock<Vec<Check>> = LazyLock::new(|| {
    let js = Files::Lang(Lang::JavaScript);
    let py = Files::Lang(Lang::Python);
    vec![
        Check::new("res.redirect(req…)", js, r"\bres\.redirect\(\s*(?:\d+\s*,\s*)?req\.(?:query|params|body)\b"),
        Check::new("res.sendFile(req…)", js, r"\bres\.(?:sendFile|download)\(\s*req\.(?:query|params|body)\b"),
        Check::new("path built from req…", js, r"\bpath\.(?:join|resolve)\([^)]*\breq\.(?:query|params|body)\b"),
        Check::new("fs call on req…", js, r"\bfs\.\w+\(\s*req\.(?:query|params|body)\b"),
        Check::new("redirect(request…)", py, r"\bredirect\(\s*request\.(?:args|form|values|GET|POST)\b"),
        Check::new("open(request…)", py, r"\b(?:open|send_file|send_from_directory)\([^)]*\brequest\.(?:args|form|values|GET|POST)\b"),
        Check::new("sendRedirect(getParameter)", Files::Lang(Lang::Java), r"\bsendRedirect\(\s*request\.getParameter\("),
        Check::new("new File(getParameter)", Files::Lang(Lang::Java), r"\bnew\s+File(?:InputStream)?\([^)]*request\.getParameter\("),
        Check::new("http.Redirect to a request value", Files::Lang(Lang::Go), r"\bhttp\.Redirect\([^,]+,[^,]+,\s*r\.(?:URL\.Query\(\)|FormValue\()"),
    ]
});

fn summary(label: &str) -> String {
    format!("A redirect or file path taken from the request (`{label}`).")
}

static WORDING: Wording = Wording {
    summary,
    why: "A redirect to wherever the request says lends the site's name to a phishing \
          page (open redirect); a path from the request reads outside the directory \
          it meant (`../`, path traversal).",
    fix: "Redirect only to relative paths or allow-listed hosts; resolve a requested \
          name under a base directory and refuse any result outside it.",
};

/// The `request-controlled-target` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-011",
    name: "request-controlled-target",
    dimension: Dimension::Security,
    severity: Severity::Important,
    confidence: 80,
    languages: &["JavaScript/TypeScript", "Python", "Java", "Go"],
    catches: "Flags a redirect target or a file path taken straight from the request: \
              `res.redirect(req.query.next)`, `res.sendFile(req.params.name)`, `path.join(root, \
              req.params.x)`, Flask's `redirect(request.args[…])`, `send_file(request…)`, a \
              servlet's `sendRedirect(getParameter(…))` or `new File(getParameter(…))`, Go's \
              `http.Redirect` to a query value. The classes of semgrep's \
              `express-open-redirect` and `path-join-resolve-traversal` rules and gosec's G304.",
    why: "A redirect to wherever the request says sends users to a phishing page under the \
          site's name; a path from the request reads `../../etc/passwd`.",
    example: Example {
        path: "web/login.js",
        code: "res.redirect(req.query.next);",
        context: "",
    },
    instead: "redirect only to relative paths or an allow-list of hosts; resolve a requested \
              name inside a base directory and refuse what escapes it.",
};

table_rule! {
    /// The `request-controlled-target` rule: [`META`].
    RequestControlledTarget {
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
    fn flags_redirects_and_paths_from_the_request() {
        let change = [
            added_file(
                "web/app.js",
                &["res.redirect(req.query.next);", "res.redirect(\"/home\");", "res.sendFile(req.params.f);"],
            ),
            added_file("app/views.py", &["return redirect(request.args.get('next'))"]),
        ];
        let found = run(&RequestControlledTarget, &change);
        assert_eq!(
            cited(&found),
            vec![("web/app.js", 1), ("web/app.js", 3), ("app/views.py", 1)]
        );
        assert_well_formed(&RequestControlledTarget, &found);
        assert!(CHECKS.iter().all(Check::compiles));
    }
}
