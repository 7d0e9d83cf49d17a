//! Falsification before a BLOCKER: what a rule checks that could disprove
//! its finding, read from the head file around the line (the whole file
//! when the client sent it, else the hunk's head-side lines): the function
//! the line stands in and its parameters, the conditions that guard the
//! line, and where the values it uses come from. A rule that finds a
//! falsifier drops or lowers its finding; one that finds none says in its
//! `why` what it checked.

use super::lang::{Lang, trim_start};
use super::paths::is_script_path;
use super::pattern::{Pattern, pattern};
use super::scope::{each_head_line, indent};
use super::{RuleContext, downgrade, source_without_tests::DEFINES};
use revu_domain::diff::FilePatch;
use revu_domain::finding::{Finding, Severity};

/// The head-side lines around a finding.
#[derive(Debug)]
pub(crate) struct Around<'a> {
    lang: Lang,
    /// (line number, text), in order; gaps where the file is not known.
    lines: Vec<(u32, &'a str)>,
}

/// A condition that guards a line: its line number and text.
pub(crate) type Guard<'a> = (u32, &'a str);

static CONDITION: Pattern =
    pattern!(r"^(?:\}\s*)?(?:if\b|elif\b|else\s+if\b|unless\b|when\b|case\b|\[\[?\s|test\s)");
static ELSE: Pattern = pattern!(r"^(?:\}\s*)?else\s*(?::|\{|$)");

impl<'a> Around<'a> {
    /// The lines of `patch`'s head file: all of them when the review
    /// carries its contents, else those its hunks show.
    pub(crate) fn of(ctx: &RuleContext<'a>, patch: &'a FilePatch) -> Around<'a> {
        let lang = Lang::of(patch.path());
        let lines = match ctx.head_text(patch.path()) {
            Some(text) => text
                .lines()
                .enumerate()
                .map(|(i, l)| (u32::try_from(i + 1).unwrap_or(u32::MAX), l))
                .collect(),
            None => patch
                .hunks
                .iter()
                .flat_map(each_head_line)
                .map(|l| (l.line, l.text))
                .collect(),
        };
        Around { lang, lines }
    }

    /// The lines above `line`, nearest first, that are not blank.
    fn above(&self, line: u32) -> impl Iterator<Item = (u32, &'a str)> + '_ {
        let at = self.lines.partition_point(|&(n, _)| n < line);
        self.lines[..at]
            .iter()
            .rev()
            .copied()
            .filter(|(_, t)| !t.trim().is_empty())
    }

    fn text_at(&self, line: u32) -> Option<&'a str> {
        let at = self.lines.partition_point(|&(n, _)| n < line);
        self.lines
            .get(at)
            .filter(|(n, _)| *n == line)
            .map(|&(_, t)| t)
    }

    /// The definition line of the function around `line`, if it shows.
    pub(crate) fn enclosing(&self, line: u32) -> Option<(u32, &'a str)> {
        let own = indent(self.text_at(line)?);
        self.above(line)
            .find(|&(_, t)| indent(t) < own && DEFINES.is_match(t))
    }

    /// The conditions that decide whether `line` runs, innermost first: the
    /// `if`/`elif`/`else` blocks (and their chains) it stands in, up to its
    /// function.
    pub(crate) fn guards(&self, line: u32) -> Vec<Guard<'a>> {
        let Some(text) = self.text_at(line) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut threshold = indent(text);
        // Inside an `else` block: the conditions of its chain, at its
        // indentation, decide too.
        let mut chain_at: Option<usize> = None;
        for (n, t) in self.above(line) {
            let width = indent(t);
            let head = trim_start(t);
            if let Some(level) = chain_at {
                if width == level && CONDITION.is_match(head) {
                    out.push((n, t));
                    if !head.starts_with("elif") && !head.contains("else") {
                        chain_at = None;
                    }
                    continue;
                }
                if width < level {
                    chain_at = None;
                }
            }
            if width >= threshold {
                continue;
            }
            threshold = width;
            if DEFINES.is_match(t) {
                break;
            }
            if CONDITION.is_match(head) {
                out.push((n, t));
                if head.starts_with("elif") || head.contains("else") {
                    chain_at = Some(width);
                }
            } else if ELSE.is_match(head) {
                chain_at = Some(width);
            }
        }
        out
    }

    /// Whether the handler at `line` ignores its error on purpose: a
    /// comment says so (in the handler, on its line, or just above its
    /// `try`), or the `try` only overrides a value set just before it, which
    /// stays the fallback.
    pub(crate) fn ignores_on_purpose(&self, line: u32) -> bool {
        let Some(text) = self.text_at(line) else {
            return false;
        };
        let has_comment = |t: &str| {
            self.lang.is_comment(t) || {
                let code = self.lang.code_only(t);
                code.contains(" //") || code.contains(" #") || code.contains("/*")
            }
        };
        if has_comment(text) {
            return true;
        }
        let next = self.lines.partition_point(|&(n, _)| n <= line);
        if self
            .lines
            .get(next)
            .is_some_and(|&(_, t)| self.lang.is_comment(t))
        {
            return true;
        }
        let own = indent(text);
        let Some((try_line, _)) = self
            .above(line)
            .take(20)
            .find(|&(_, t)| indent(t) <= own && trim_start(t).starts_with("try"))
        else {
            return false;
        };
        let mut before = self.above(try_line);
        let first = before.next();
        let second = before.next();
        let body: Vec<&str> = self
            .lines
            .iter()
            .filter(|&&(n, _)| n > try_line && n < line)
            .map(|&(_, t)| t)
            .collect();
        if body.iter().any(|t| self.lang.is_comment(t)) {
            return true;
        }
        // `x = default` (or `let x = default;`) just before the `try`,
        // which the `try` assigns: the default is the fallback.
        fn assigned(t: &str) -> Option<&str> {
            let t = trim_start(t)
                .trim_start_matches("let ")
                .trim_start_matches("var ")
                .trim_start_matches("const ");
            t.split(['=', ':']).next().map(str::trim).filter(|n| {
                !n.is_empty()
                    && n.chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            })
        }
        [first, second].into_iter().flatten().any(|(_, t)| {
            has_comment(t)
                || assigned(t).is_some_and(|name| body.iter().any(|b| assigned(b) == Some(name)))
        })
    }

    /// The parameter names of the definition line `def`.
    pub(crate) fn params(&self, def: &str) -> Vec<String> {
        let Some(open) = def.find('(') else {
            return Vec::new();
        };
        let inner = &def[open + 1..];
        let close = inner.find(')').unwrap_or(inner.len());
        inner[..close]
            .split(',')
            .filter_map(|p| {
                let p = p.split(['=', ':']).next().unwrap_or(p);
                let words: Vec<&str> = p
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .filter(|w| !w.is_empty() && !matches!(*w, "mut" | "self" | "this" | "final"))
                    .collect();
                // Java and C#: `Type name`; the others: `name Type` or
                // `name: Type` (cut above).
                let name = match self.lang {
                    Lang::Java | Lang::CSharp | Lang::C => words.last(),
                    _ => words.first(),
                };
                name.map(|w| (*w).to_owned())
            })
            .collect()
    }
}

/// Names that say a value comes from outside the program: a request, its
/// parameters, the command line, the environment, user input.
static INPUT: Pattern = pattern!(
    r"(?i)\b(?:request|req|params|query|form|body|payload|argv|args|user_input|input|environ|getenv|getParameter|stdin)\b"
);

/// Where a value the line passes to a sink comes from, as far as the
/// code around it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// A parameter of the function around it: its callers control it.
    Parameter { name: String, function: String },
    /// Read from a request, the command line or the environment.
    Input(String),
    /// Nothing shows where it comes from.
    Unknown,
}

/// Where the values that `text` (the line at `line`) interpolates come
/// from.
pub(crate) fn source_of(around: &Around<'_>, line: u32, text: &str) -> Source {
    if let Some(m) = INPUT.find(&around.lang.code_only(text)) {
        return Source::Input(m.as_str().to_owned());
    }
    let used = identifiers(text);
    let Some((_, def)) = around.enclosing(line) else {
        return Source::Unknown;
    };
    let function = def
        .split('(')
        .next()
        .and_then(|h| h.split_whitespace().last())
        .unwrap_or("the function")
        .to_owned();
    around
        .params(def)
        .into_iter()
        .find(|p| used.iter().any(|u| u == p))
        .map_or(Source::Unknown, |name| Source::Parameter { name, function })
}

/// The identifiers of a line, inside its interpolations too.
fn identifiers(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
        .map(str::to_owned)
        .collect()
}

impl Source {
    /// What was checked, for a BLOCKER's `why`.
    pub(crate) fn checked(&self) -> String {
        match self {
            Source::Parameter { name, function } => {
                format!("`{name}` is a parameter of `{function}`, so its callers choose it")
            }
            Source::Input(from) => format!("the value is read from `{from}`, outside the program"),
            Source::Unknown => String::new(),
        }
    }
}

/// An injection finding (a value reaching a shell, SQL, an evaluator)
/// weighed before it may block: a BLOCKER when the code around it shows the
/// value comes from outside (a parameter, a request, the command line), its
/// `why` saying so; IMPORTANT, with the doubt named, when nothing shows
/// that, or when the file is a development script whose input is its
/// users' own.
pub(crate) fn weigh_injection(
    f: Finding,
    around: &Around<'_>,
    path: &str,
    line: u32,
    text: &str,
) -> Finding {
    if f.severity != Severity::Blocker {
        return f;
    }
    if is_script_path(path) {
        return downgrade(
            f,
            Severity::Important,
            "a development script or command-line entry point, whose input is chosen by the \
             people who run it.",
        );
    }
    match source_of(around, line, text) {
        Source::Unknown => downgrade(
            f,
            Severity::Important,
            "nothing around this line shows that the value comes from outside the program (a \
             parameter, a request, the command line, the environment); check where it is set.",
        ),
        source => Finding {
            why: format!("{} Checked: {}.", f.why, source.checked()),
            ..f
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn around(lang: Lang, text: &'static str) -> Around<'static> {
        Around {
            lang,
            lines: text
                .lines()
                .enumerate()
                .map(|(i, l)| (u32::try_from(i + 1).unwrap_or(0), l))
                .collect(),
        }
    }

    #[test]
    fn guards_are_the_conditions_a_line_stands_under() {
        let a = around(
            Lang::Python,
            "def make(verify=True, cert=None):\n    ctx = ssl.create_default_context()\n    if cert:\n        ctx.load_cert_chain(cert)\n    if verify is False:\n        ctx.check_hostname = False\n    elif verify is None:\n        pass\n    else:\n        ctx.verify_mode = ssl.CERT_NONE\n    return ctx\n",
        );
        let texts = |line| -> Vec<String> {
            a.guards(line)
                .iter()
                .map(|(_, t)| t.trim().to_owned())
                .collect()
        };
        assert_eq!(texts(6), vec!["if verify is False:"]);
        assert_eq!(
            texts(10),
            vec!["elif verify is None:", "if verify is False:"]
        );
        assert!(texts(2).is_empty());
        assert_eq!(a.enclosing(6).map(|(n, _)| n), Some(1));
        assert_eq!(
            a.params("def make(verify=True, cert: str = None):"),
            ["verify", "cert"]
        );
    }

    #[test]
    fn sources_are_parameters_or_input() {
        let a = around(
            Lang::Python,
            "def run(cmd, user):\n    subprocess.call(f\"ls {user}\", shell=True)\n    path = VERSION\n    subprocess.run(f\"black {path}\", shell=True)\n",
        );
        assert_eq!(
            source_of(&a, 2, "    subprocess.call(f\"ls {user}\", shell=True)"),
            Source::Parameter {
                name: "user".into(),
                function: "run".into()
            }
        );
        assert_eq!(
            source_of(&a, 4, "    subprocess.run(f\"black {path}\", shell=True)"),
            Source::Unknown
        );
        let java = around(
            Lang::Java,
            "  void q(String name, int n) {\n    s.execute(\"x\" + name);\n",
        );
        assert_eq!(java.params("  void q(String name, int n) {"), ["name", "n"]);
    }
}
