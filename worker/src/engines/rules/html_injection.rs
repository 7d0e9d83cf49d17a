use super::meta::{Example, RuleMeta};
use revu_domain::finding::{Dimension, Severity};
use super::table::{Check, Files, Wording, table_rule};
use super::lang::Lang;
use std::sync::LazyLock;

static CHECKS: LazyLock<Vec<Check>> = LazyLock::new(|| {
    vec![
        // An assignment of a literal (`el.innerHTML = ""`, alone or before
        // another statement) is safe.
        Check::new("innerHTML/outerHTML", Files::Lang(Lang::JavaScript), r"\.(?:inner|outer)HTML\s*(?:\+=|=[^=])")
            .unless(r#"\.(?:inner|outer)HTML\s*=\s*(?:"[^"$]*"|'[^'$]*'|`[^`$]*`)\s*(?:;|$)"#),
        Check::new("document.write", Files::Lang(Lang::JavaScript), r"\bdocument\.write(?:ln)?\("),
        Check::new("insertAdjacentHTML", Files::Lang(Lang::JavaScript), r"\.insertAdjacentHTML\("),
        Check::new("dangerouslySetInnerHTML", Files::Lang(Lang::JavaScript), r"\bdangerouslySetInnerHTML\b")
            .unless(r"DOMPurify|sanitize"),
        Check::new("res.send of request input", Files::Lang(Lang::JavaScript), r"\bres\.(?:send|write|end)\(.*\breq\.(?:query|params|body)\b"),
        Check::new("mark_safe/Markup", Files::Lang(Lang::Python), r#"\b(?:mark_safe|Markup)\(\s*[^"')\s]"#),
        Check::new("getWriter() of a request parameter", Files::Lang(Lang::Java), r"getWriter\(\)\.(?:print|println|write)\(.*getParameter\("),
        Check::new("template.HTML", Files::Lang(Lang::Go), r#"\btemplate\.HTML\(\s*[^")\s]"#),
    ]
});

fn summary(label: &str) -> String {
    format!("Unescaped data written as HTML (`{label}`).")
}

static WORDING: Wording = Wording {
    summary,
    why: "Text that reaches an HTML sink unescaped runs as markup and script in the \
          user's session: cross-site scripting.",
    fix: "Write text as text (`textContent`, escaping templates), or sanitize HTML \
          that must stay HTML (DOMPurify, bleach) before it reaches the sink.",
};

/// The `html-injection` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-010",
    name: "html-injection",
    dimension: Dimension::Security,
    severity: Severity::Important,
    confidence: 80,
    languages: &["JavaScript/TypeScript", "Python", "Java", "Go"],
    catches: "Flags HTML built from data and written where the browser parses it: \
              `innerHTML`/`outerHTML` assignments, `document.write`, `insertAdjacentHTML`, \
              React's `dangerouslySetInnerHTML`, an Express response written from \
              `req.query`/`req.params`/`req.body`, Django's `mark_safe` and Jinja's `Markup` of \
              a variable, a servlet writing a request parameter, Go's `template.HTML` of a \
              variable. The classes of semgrep's `insecure-document-method`, \
              `react-dangerouslysetinnerhtml` and `direct-response-write` rules, bandit's \
              B308/B703 and gosec's G203.",
    why: "Text that reaches an HTML sink unescaped runs as markup and script in the user's \
          session (cross-site scripting): it can read the page, act as the user and steal \
          tokens.",
    example: Example {
        path: "web/comments.js",
        code: "el.innerHTML = comment.body;",
        context: "",
    },
    instead: "`el.textContent = comment.body`, the framework's escaping templates, or a \
              sanitizer (DOMPurify) for HTML that must stay HTML.",
};

table_rule! {
    /// The `html-injection` rule: [`META`].
    HtmlInjection {
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
    fn flags_html_sinks_fed_with_data() {
        let change = [added_file(
            "web/view.js",
            &[
                "el.innerHTML = comment.body;",
                "el.innerHTML = \"\";",
                "el.textContent = comment.body;",
                "res.send(\"<p>\" + req.query.q);",
                "if (el.innerHTML === x) {}",
            ],
        )];
        let found = run(&HtmlInjection, &change);
        assert_eq!(cited(&found), vec![("web/view.js", 1), ("web/view.js", 4)]);
        assert_well_formed(&HtmlInjection, &found);
        assert!(CHECKS.iter().all(Check::compiles));
    }

    #[test]
    fn an_html_sink_in_a_trailing_comment_or_a_string_is_not_one() {
        let change = [added_file(
            "web/greet.js",
            &[
                "el.textContent = \"Hello \" + name; // el.innerHTML = html",
                "const tip = \"never write el.innerHTML = input\";",
                "/* was:",
                "el.innerHTML = html;",
                "*/ el.textContent = html;",
            ],
        )];
        assert!(run(&HtmlInjection, &change).is_empty());
    }
}
