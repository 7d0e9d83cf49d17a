//! `REVIEW.md`: the repository's review conventions, as Markdown bullets
//! under three optional level-2 sections. The grammar is in
//! `docs/conventions.md`; `conventions::bullet` has the selector syntax.
//!
//! A malformed bullet never fails a review: it becomes a warning naming its
//! line, and the rest of the file still applies.

use super::bullet::{BulletError, Scope, Token, below, glob, split_body, tokens};
use globset::GlobMatcher;
use revu_domain::finding::Severity;

/// Guidance handed to the lanes that review matching files.
#[derive(Debug, Clone)]
pub struct PathGuidance {
    /// The file that wrote it: `REVIEW.md`, or a nested `pkg/REVIEW.md`.
    pub origin: String,
    /// The directory of a nested `REVIEW.md`, whose globs read from there.
    pub within: Option<String>,
    pub line: usize,
    pub globs: Vec<(String, GlobMatcher)>,
    pub text: String,
}

impl PathGuidance {
    pub fn applies_to(&self, path: &str) -> bool {
        below(self.within.as_deref(), path)
            .is_some_and(|p| self.globs.iter().any(|(_, g)| g.is_match(p)))
    }

    /// The guidance as a lane receives it: `glob, glob: text`, each glob
    /// from the repository's root.
    pub fn render(&self) -> String {
        let globs: Vec<String> = self
            .globs
            .iter()
            .map(|(g, _)| match &self.within {
                Some(dir) => format!("{dir}/{g}"),
                None => g.clone(),
            })
            .collect();
        format!("{}: {}", globs.join(", "), self.text)
    }

    /// Where it is written, e.g. `pkg/REVIEW.md:7`.
    pub fn convention(&self) -> String {
        format!("{}:{}", self.origin, self.line)
    }
}

/// Which way a severity override moves a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// At least this severity (a named invariant's floor).
    Floor(Severity),
    /// At most this severity (never applied to a BLOCKER).
    Cap(Severity),
}

#[derive(Debug, Clone)]
pub struct SeverityOverride {
    /// The file that wrote it: `REVIEW.md`, or a nested `pkg/REVIEW.md`.
    pub origin: String,
    pub line: usize,
    pub scope: Scope,
    pub bound: Bound,
}

/// A SUGGESTION pattern the repository does not want reported.
#[derive(Debug, Clone)]
pub struct AllowedNit {
    /// The file that wrote it: `REVIEW.md`, or a nested `pkg/REVIEW.md`.
    pub origin: String,
    pub line: usize,
    pub scope: Scope,
    pub reason: String,
}

/// A parsed `REVIEW.md`.
#[derive(Debug, Clone, Default)]
pub struct ReviewMd {
    pub guidance: Vec<PathGuidance>,
    pub overrides: Vec<SeverityOverride>,
    pub nits: Vec<AllowedNit>,
    /// `REVIEW.md:LINE: …` for every bullet that was not understood.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    PathGuidance,
    SeverityOverrides,
    AllowedNits,
}

impl Section {
    fn name(self) -> &'static str {
        match self {
            Section::PathGuidance => "path guidance",
            Section::SeverityOverrides => "severity override",
            Section::AllowedNits => "allowed nit",
        }
    }

    /// Recognizes a heading, case-insensitively, singular or plural.
    fn of_heading(title: &str) -> Option<Section> {
        let words: Vec<String> = title
            .trim_end_matches(':')
            .split_whitespace()
            .map(|w| w.to_ascii_lowercase())
            .collect();
        match words.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            ["path", "guidance"] => Some(Section::PathGuidance),
            ["severity", "overrides" | "override"] => Some(Section::SeverityOverrides),
            ["allowed", "nits" | "nit"] => Some(Section::AllowedNits),
            _ => None,
        }
    }
}

/// A bullet being collected, possibly over several lines.
struct Pending {
    line: usize,
    text: String,
}

impl ReviewMd {
    /// Parses `REVIEW.md`. Never fails; problems become [`ReviewMd::warnings`].
    pub fn parse(text: &str) -> ReviewMd {
        let mut md = ReviewMd::default();
        let mut section: Option<Section> = None;
        let mut seen_section = false;
        let mut pending: Option<Pending> = None;
        let mut fence: Option<&str> = None;
        for (index, raw) in text.lines().enumerate() {
            let line_no = index + 1;
            let trimmed = raw.trim();
            // Bullets inside fenced code are examples, not conventions.
            if let Some(marker) = fence {
                if trimmed.starts_with(marker) {
                    fence = None;
                }
                continue;
            }
            if let Some(marker) = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m)) {
                md.flush(section, pending.take());
                fence = Some(marker);
                continue;
            }
            if let Some(level) = heading_level(raw) {
                md.flush(section, pending.take());
                if level <= 2 {
                    section = Section::of_heading(raw[level..].trim().trim_end_matches('#'));
                    seen_section |= section.is_some();
                }
                continue;
            }
            if section.is_none() {
                continue;
            }
            let indented = raw.starts_with([' ', '\t']);
            if let Some(item) = bullet_text(trimmed) {
                if indented && let Some(p) = pending.as_mut() {
                    // A nested bullet continues its parent.
                    p.text.push_str("; ");
                    p.text.push_str(item);
                    continue;
                }
                md.flush(section, pending.take());
                pending = Some(Pending {
                    line: line_no,
                    text: item.to_owned(),
                });
            } else if trimmed.is_empty() || !indented {
                // A blank line or unindented prose ends the bullet.
                md.flush(section, pending.take());
            } else if let Some(p) = pending.as_mut() {
                p.text.push(' ');
                p.text.push_str(trimmed);
            }
        }
        md.flush(section, pending.take());
        if !seen_section && !text.trim().is_empty() {
            md.warnings.push(
                "REVIEW.md: no `## Path Guidance`, `## Severity Overrides` or `## Allowed Nits` \
                 section; no conventions applied"
                    .into(),
            );
        }
        md
    }

    /// Parses the `REVIEW.md` of directory `dir` (`pkg/api`): what it says
    /// applies below `dir` only, its globs read from there.
    pub fn parse_in(text: &str, dir: &str) -> ReviewMd {
        let dir = dir.trim_matches('/');
        let origin = format!("{dir}/{}", super::REVIEW_MD);
        let mut md = ReviewMd::parse(text);
        for g in &mut md.guidance {
            g.origin.clone_from(&origin);
            g.within = Some(dir.to_owned());
        }
        for o in &mut md.overrides {
            o.origin.clone_from(&origin);
            o.scope.within = Some(dir.to_owned());
        }
        for n in &mut md.nits {
            n.origin.clone_from(&origin);
            n.scope.within = Some(dir.to_owned());
        }
        for w in &mut md.warnings {
            if let Some(rest) = w.strip_prefix(super::REVIEW_MD) {
                *w = format!("{origin}{rest}");
            }
        }
        md
    }

    /// Lays a nested `REVIEW.md` on top of this one: its guidance is given
    /// too, and where its overrides conflict with these the nearer wins
    /// ([`super::apply`]).
    pub fn absorb(&mut self, nested: ReviewMd) {
        self.guidance.extend(nested.guidance);
        self.overrides.extend(nested.overrides);
        self.nits.extend(nested.nits);
        self.warnings.extend(nested.warnings);
    }

    fn flush(&mut self, section: Option<Section>, pending: Option<Pending>) {
        let (Some(section), Some(Pending { line, text })) = (section, pending) else {
            return;
        };
        let parsed = match section {
            Section::PathGuidance => parse_guidance(&text).map(|g| {
                self.guidance.push(PathGuidance {
                    origin: super::REVIEW_MD.to_owned(),
                    within: None,
                    line,
                    globs: g.0,
                    text: g.1,
                })
            }),
            Section::SeverityOverrides => parse_override(&text).map(|(scope, bound)| {
                self.overrides.push(SeverityOverride {
                    origin: super::REVIEW_MD.to_owned(),
                    line,
                    scope,
                    bound,
                })
            }),
            Section::AllowedNits => parse_nit(&text).map(|(scope, reason)| {
                self.nits.push(AllowedNit {
                    origin: super::REVIEW_MD.to_owned(),
                    line,
                    scope,
                    reason,
                })
            }),
        };
        if let Err(why) = parsed {
            self.warnings.push(format!(
                "REVIEW.md:{line}: {} bullet ignored: {why}",
                section.name()
            ));
        }
    }
}

/// `##` → 2, for an ATX heading (`#` run then a space or the end).
fn heading_level(raw: &str) -> Option<usize> {
    let level = raw.bytes().take_while(|b| *b == b'#').count();
    let rest = &raw[level..];
    (1..=6)
        .contains(&level)
        .then_some(level)
        .filter(|_| rest.is_empty() || rest.starts_with([' ', '\t']))
}

fn bullet_text(trimmed: &str) -> Option<&str> {
    ["- ", "* ", "+ "]
        .into_iter()
        .find_map(|m| trimmed.strip_prefix(m))
        .map(str::trim)
}

/// `` `glob`[, `glob`…]: text ``
fn parse_guidance(text: &str) -> Result<(Vec<(String, GlobMatcher)>, String), BulletError> {
    let (selector, body) = split_body(text);
    let body = body.map(str::trim).unwrap_or_default();
    if body.is_empty() {
        return Err(BulletError::GuidanceShape);
    }
    let mut globs = Vec::new();
    let mut expect_glob = true;
    for tok in tokens(selector)? {
        match (tok, expect_glob) {
            (Token::Code(g), true) => {
                globs.push((g.clone(), glob(&g)?));
                expect_glob = false;
            }
            (Token::Comma, false) => expect_glob = true,
            _ => return Err(BulletError::GuidanceSelector),
        }
    }
    if globs.is_empty() || expect_glob {
        return Err(BulletError::GuidanceShape);
    }
    Ok((globs, body.to_owned()))
}

/// `` <scope>: [at least|at most] SEVERITY [reason] ``
fn parse_override(text: &str) -> Result<(Scope, Bound), BulletError> {
    let (selector, body) = split_body(text);
    let Some(body) = body else {
        return Err(BulletError::OverrideShape);
    };
    let scope = Scope::parse(selector)?;
    let words: Vec<&str> = body.split_whitespace().collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    let (cap, sev_word) = match lower.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["at", "most", sev, ..] => (true, sev.to_owned()),
        ["at", "least", sev, ..] => (false, sev.to_owned()),
        [sev, ..] => (false, sev.to_owned()),
        [] => return Err(BulletError::NoSeverity),
    };
    let written = words[lower.iter().position(|w| *w == sev_word).unwrap_or(0)];
    let severity = severity_word(&sev_word).ok_or_else(|| BulletError::NotSeverity {
        word: written.to_owned(),
    })?;
    match (cap, severity) {
        (true, Severity::Blocker) => Err(BulletError::CapOfBlocker),
        (false, Severity::Suggestion) => Err(BulletError::FloorOfSuggestion),
        (false, _) if scope.rule.is_none() => Err(BulletError::FloorWithoutRule),
        (true, s) => Ok((scope, Bound::Cap(s))),
        (false, s) => Ok((scope, Bound::Floor(s))),
    }
}

/// `` <scope> [: reason] ``
fn parse_nit(text: &str) -> Result<(Scope, String), BulletError> {
    let (selector, reason) = split_body(text);
    let scope = Scope::parse(selector)?;
    Ok((scope, reason.map(str::trim).unwrap_or_default().to_owned()))
}

/// A severity name, case-insensitive, ignoring trailing punctuation.
fn severity_word(word: &str) -> Option<Severity> {
    match word.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()) {
        "blocker" => Some(Severity::Blocker),
        "important" => Some(Severity::Important),
        "suggestion" => Some(Severity::Suggestion),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
