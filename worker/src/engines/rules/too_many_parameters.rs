use super::lang::Lang;
use super::pattern::{Pattern, pattern};
use super::scope::HunkLines;
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

/// A function header up to the opening parenthesis of its parameter list:
/// Rust `fn`, Python `def`, JavaScript `function`, Go `func`.
static HEADER: Pattern = pattern!(concat!(
        r#"(?:^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|const|unsafe|extern\s+"\w+")\s+)*fn"#,
        r#"|^\s*(?:async\s+)?def"#,
        r#"|\bfunction\s*\*?"#,
        r#"|^\s*func(?:\s*\([^)]*\))?)"#,
        r#"\s+(\w+)\s*(?:<[^(]*>|\[[^\]]*\])?\s*\("#,
    ));
/// A parameter list may span this many lines.
const MAX_SIGNATURE_LINES: usize = 40;
/// Parameters (receivers excluded) at which a signature is flagged.
const LIMIT: usize = 7;

/// The `too-many-parameters` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct TooManyParameters;

/// The `too-many-parameters` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-DES-001",
    name: "too-many-parameters",
    dimension: Dimension::Design,
    severity: Severity::Suggestion,
    confidence: 80,
    languages: &["Rust", "Python", "JavaScript/TypeScript", "Go"],
    catches: "Flags a new or changed function (Rust `fn`, Python `def`, JavaScript `function`, \
              Go `func`) that takes seven or more parameters, not counting `self`/`cls`, \
              `*args` and `**kwargs`.",
    why: "Long parameter lists are hard to call correctly (arguments of the same type are easy \
          to swap), hard to extend, and usually mean the function does several jobs or that \
          some parameters belong together in a type.",
    example: Example {
        path: "app/users.py",
        code: "def create_user(name, email, phone, street, city, zip_code, country): ...",
        context: "",
    },
    instead: "```python\n\
              def create_user(name: str, contact: Contact, address: Address): ...\n\
              ```",
};

impl Rule for TooManyParameters {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let lang = Lang::of(patch.path());
            if !matches!(
                lang,
                Lang::Rust | Lang::Python | Lang::JavaScript | Lang::Go
            ) {
                continue;
            }
            for hunk in &patch.hunks {
                let lines = HunkLines::new(hunk);
                for (i, l) in lines.each().enumerate() {
                    let Some(code) = ctx.production_text(patch, l.line).filter(|_| l.added) else {
                        continue;
                    };
                    if !HEADER.is_match(code) {
                        continue;
                    }
                    let Some(c) = HEADER.captures(l.text) else {
                        continue;
                    };
                    let (name, open) = (&c[1], c.get(0).map_or(0, |m| m.end()));
                    let comment = if lang == Lang::Python { "#" } else { "//" };
                    let rest = std::iter::once(&l.text[open..])
                        .chain(lines.all()[i + 1..].iter().map(|n| n.text))
                        .take(MAX_SIGNATURE_LINES)
                        .map(|t| t.split(comment).next().unwrap_or(t));
                    // In Rust a `'` starts a lifetime, not a string.
                    let Some(n) = count_parameters(rest, lang != Lang::Rust) else {
                        continue;
                    };
                    if n < LIMIT {
                        continue;
                    }
                    let msg = Message {
                        summary: format!("Function `{name}` takes {n} parameters."),
                        why: "Long parameter lists are easy to call wrongly (same-typed arguments \
                              swap silently), hard to extend, and usually mean the function does \
                              several jobs or that some parameters belong together."
                            .into(),
                        fix: "Group related parameters into a struct/dataclass/options object, or \
                              split the function so each part needs fewer inputs."
                            .into(),
                    };
                    out.push(finding(
                        self,
                        patch.path(),
                        l.line,
                        BlastRadius::Module,
                        msg,
                    ));
                }
            }
        }
    }
}

/// Counts the parameters of a list whose `(` has just been consumed, reading
/// `text` until the matching `)`. `None` if it does not close in `text`.
fn count_parameters<'a>(text: impl Iterator<Item = &'a str>, single_quotes: bool) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut current = String::new();
    let mut params = Vec::new();
    for line in text {
        let mut prev = ' ';
        for ch in line.chars() {
            match (quote, ch) {
                (Some(q), c) if c == q && prev != '\\' => quote = None,
                (Some(_), _) => {}
                (None, '"') => quote = Some(ch),
                (None, '\'') if single_quotes => quote = Some(ch),
                (None, '(' | '[' | '{' | '<') => depth += 1,
                (None, '>') if matches!(prev, '-' | '=') => {}
                (None, ')') if depth == 0 => {
                    params.push(std::mem::take(&mut current));
                    return Some(params.iter().filter(|p| counts(p)).count());
                }
                (None, ')' | ']' | '}' | '>') => depth = depth.saturating_sub(1),
                (None, ',') if depth == 0 => {
                    params.push(std::mem::take(&mut current));
                    prev = ch;
                    continue;
                }
                _ => {}
            }
            current.push(ch);
            prev = ch;
        }
        current.push(' ');
    }
    None
}

/// Whether a parameter counts: receivers and variadic catch-alls do not.
fn counts(param: &str) -> bool {
    let p = param.trim();
    let name = p.split([':', '=']).next().unwrap_or(p).trim();
    let name = name.trim_start_matches('&');
    !(p.is_empty()
        || p.starts_with('*')
        || p == "/"
        || matches!(name, "self" | "cls" | "mut self")
        || name.ends_with(" self"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_long_signatures_on_one_or_many_lines() {
        let change = [
            added_file(
                "app/users.py",
                &[
                    "def create_user(self, name, email, phone, street, city, zip_code, country=\"NL, EU\"):",
                ],
            ),
            added_file(
                "src/report.rs",
                &[
                    "/// Renders.",
                    "pub fn render(",
                    "    &self,",
                    "    a: u8,",
                    "    b: HashMap<String, Vec<u8>>,",
                    "    c: impl Fn(u8) -> u8,",
                    "    d: &str,",
                    "    e: u8,",
                    "    f: u8,",
                    "    g: u8,",
                    ") -> String {",
                ],
            ),
        ];
        let found = run(&TooManyParameters, &change);
        assert_eq!(
            cited(&found),
            vec![("app/users.py", 1), ("src/report.rs", 2)]
        );
        assert_eq!(
            found[0].summary,
            "Function `create_user` takes 7 parameters."
        );
        assert_eq!(found[1].summary, "Function `render` takes 7 parameters.");
        assert_well_formed(&TooManyParameters, &found);
    }

    #[test]
    fn ignores_short_signatures_receivers_varargs_and_tests() {
        let change = [
            added_file(
                "app/users.py",
                &[
                    "def update(self, a, b, c, d, e, *args, **kwargs):",
                    "def call(fn, args=(1, 2, 3, 4, 5, 6, 7)):",
                    "def link(  # noqa: C901",
                    "    self, a, b, c, d, e, f,",
                    "):",
                ],
            ),
            added_file("tests/helpers.py", &["def make(a, b, c, d, e, f, g, h):"]),
        ];
        assert!(run(&TooManyParameters, &change).is_empty());
    }
}
