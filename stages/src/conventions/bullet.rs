//! The grammar of one `REVIEW.md` convention bullet, shared by the three
//! sections:
//!
//! ```text
//! bullet   = selector [ ":" body ]
//! selector = [ CODE ] [ "in" CODE ] [ "matching" QUOTED ]     (overrides, nits)
//!          | CODE { "," CODE }                                (path guidance)
//! CODE     = "`" text "`"       a rule id if it looks like one, else a glob
//! QUOTED   = '"' text '"'       matched case-insensitively in the summary
//! ```
//!
//! The first `:` outside backticks and quotes separates selector and body.

use globset::{Glob, GlobMatcher};
use revu_domain::finding::Finding;

/// One lexical piece of a selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    Code(String),
    Quoted(String),
    Comma,
    Word(String),
}

/// Why a bullet is ignored: what the grammar (or a section's use of it)
/// did not find.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BulletError {
    /// A backtick or a double quote (`quote`) that is not closed.
    #[error("unterminated {quote}")]
    Unterminated { quote: char },
    #[error("empty {quote}{quote}")]
    Empty { quote: char },
    /// A glob, as written, said by the kind of its error.
    #[error("glob `{pattern}`: {}", .error.kind())]
    Glob {
        pattern: String,
        error: globset::Error,
    },
    #[error("more than one path glob")]
    TwoGlobs,
    #[error("more than one `matching` text")]
    TwoTexts,
    #[error("`in` must be followed by a `glob` in backticks")]
    InWithoutGlob,
    #[error("`matching` must be followed by \"text\" in double quotes")]
    MatchingWithoutText,
    #[error("unexpected {}; expected `in` `glob` or `matching` \"text\"", describe(.0))]
    Unexpected(Token),
    #[error("names no rule id, glob or text")]
    NoScope,
    #[error("expected `` `glob`: guidance text ``")]
    GuidanceShape,
    #[error("the selector must be `glob`s in backticks, separated by commas")]
    GuidanceSelector,
    #[error("expected `` `RULE-ID`: BLOCKER `` or `` `glob`: at most SUGGESTION ``")]
    OverrideShape,
    #[error("no severity after `:`")]
    NoSeverity,
    /// The word where a severity was expected, as written.
    #[error("{word:?} is not BLOCKER, IMPORTANT or SUGGESTION")]
    NotSeverity { word: String },
    #[error("`at most BLOCKER` changes nothing")]
    CapOfBlocker,
    #[error("a floor of SUGGESTION changes nothing; did you mean `at most SUGGESTION`?")]
    FloorOfSuggestion,
    #[error("a floor must name a rule id (`RULE-ID`); caps on a path need `at most`")]
    FloorWithoutRule,
}

/// Splits a bullet at its first `:` outside backticks and quotes.
pub(crate) fn split_body(text: &str) -> (&str, Option<&str>) {
    let (mut in_code, mut in_quote) = (false, false);
    for (i, c) in text.char_indices() {
        match c {
            '`' if !in_quote => in_code = !in_code,
            '"' if !in_code => in_quote = !in_quote,
            ':' if !in_code && !in_quote => return (&text[..i], Some(&text[i + 1..])),
            _ => {}
        }
    }
    (text, None)
}

/// Tokenizes a selector; the error says what is wrong.
pub(crate) fn tokens(selector: &str) -> Result<Vec<Token>, BulletError> {
    let mut out = Vec::new();
    let mut chars = selector.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            ',' => out.push(Token::Comma),
            '`' | '"' => {
                let body_start = start + 1;
                let end = selector[body_start..].find(c).map(|e| body_start + e);
                let Some(end) = end else {
                    return Err(BulletError::Unterminated { quote: c });
                };
                let inner = selector[body_start..end].trim();
                if inner.is_empty() {
                    return Err(BulletError::Empty { quote: c });
                }
                out.push(if c == '`' {
                    Token::Code(inner.to_owned())
                } else {
                    Token::Quoted(inner.to_owned())
                });
                while chars.peek().is_some_and(|(i, _)| *i <= end) {
                    chars.next();
                }
            }
            _ => {
                let mut end = selector.len();
                while let Some(&(i, n)) = chars.peek() {
                    if n.is_whitespace() || matches!(n, ',' | '`' | '"') {
                        end = i;
                        break;
                    }
                    chars.next();
                }
                out.push(Token::Word(selector[start..end].to_owned()));
            }
        }
    }
    Ok(out)
}

/// Whether a code span names a rule (`RV-COR-001`, `MISS-012`) rather than a
/// path: upper-case letters and digits in at least two dash-joined parts.
pub fn is_rule_id(s: &str) -> bool {
    let mut parts = s.split('-');
    let first_ok = parts.next().is_some_and(|p| {
        p.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && p.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    });
    let rest: Vec<&str> = parts.collect();
    first_ok
        && !rest.is_empty()
        && rest.iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
}

/// Compiles a glob with the same dialect as the grouping stage.
pub(crate) fn glob(pattern: &str) -> Result<GlobMatcher, BulletError> {
    Glob::new(pattern)
        .map(|g| g.compile_matcher())
        .map_err(|error| BulletError::Glob {
            pattern: pattern.to_owned(),
            error,
        })
}

/// What a severity override or an allowed nit applies to. Every part that is
/// set must match.
#[derive(Debug, Clone)]
pub struct Scope {
    /// The directory of the nested `REVIEW.md` that wrote it (`pkg/api`):
    /// it applies below that directory only, its glob read from there.
    pub within: Option<String>,
    pub rule: Option<String>,
    pub path: Option<(String, GlobMatcher)>,
    /// Lower-cased text looked for in the finding's summary.
    pub text: Option<String>,
}

impl Scope {
    /// Parses `[CODE] [in CODE] [matching QUOTED]`.
    pub(crate) fn parse(selector: &str) -> Result<Scope, BulletError> {
        let mut toks = tokens(selector)?.into_iter().peekable();
        let mut scope = Scope {
            within: None,
            rule: None,
            path: None,
            text: None,
        };
        if let Some(Token::Code(code)) = toks.peek().cloned() {
            toks.next();
            if is_rule_id(&code) {
                scope.rule = Some(code);
            } else {
                scope.path = Some((code.clone(), glob(&code)?));
            }
        }
        while let Some(tok) = toks.next() {
            match (tok, toks.next()) {
                (Token::Word(w), Some(Token::Code(g))) if w.eq_ignore_ascii_case("in") => {
                    if scope.path.is_some() {
                        return Err(BulletError::TwoGlobs);
                    }
                    scope.path = Some((g.clone(), glob(&g)?));
                }
                (Token::Word(w), Some(Token::Quoted(t))) if w.eq_ignore_ascii_case("matching") => {
                    if scope.text.is_some() {
                        return Err(BulletError::TwoTexts);
                    }
                    scope.text = Some(t.to_lowercase());
                }
                (Token::Word(w), _) if w.eq_ignore_ascii_case("in") => {
                    return Err(BulletError::InWithoutGlob);
                }
                (Token::Word(w), _) if w.eq_ignore_ascii_case("matching") => {
                    return Err(BulletError::MatchingWithoutText);
                }
                (other, _) => return Err(BulletError::Unexpected(other)),
            }
        }
        if scope.rule.is_none() && scope.path.is_none() && scope.text.is_none() {
            return Err(BulletError::NoScope);
        }
        Ok(scope)
    }

    pub fn matches(&self, f: &Finding) -> bool {
        let Some(path) = below(self.within.as_deref(), &f.file) else {
            return false;
        };
        self.rule.as_deref().is_none_or(|r| r == f.rule)
            && self.path.as_ref().is_none_or(|(_, g)| g.is_match(path))
            && self
                .text
                .as_deref()
                .is_none_or(|t| f.summary.to_lowercase().contains(t))
    }
}

/// `path` as seen from directory `within` (all of it at the root), or
/// `None` when it is not below it.
pub(crate) fn below<'a>(within: Option<&str>, path: &'a str) -> Option<&'a str> {
    match within {
        None => Some(path),
        Some(dir) => path.strip_prefix(dir)?.strip_prefix('/'),
    }
}

/// How deep a nested `REVIEW.md` sits: 0 at the root, 1 for `pkg`, 2 for
/// `pkg/api`.
pub(crate) fn depth(within: Option<&str>) -> usize {
    within.map_or(0, |d| d.split('/').filter(|p| !p.is_empty()).count())
}

fn describe(tok: &Token) -> String {
    match tok {
        Token::Code(c) => format!("`{c}`"),
        Token::Quoted(q) => format!("\"{q}\""),
        Token::Comma => "`,`".into(),
        Token::Word(w) => format!("word {w:?}"),
    }
}
