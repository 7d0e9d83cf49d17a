//! `CODEOWNERS`: who owns which files, in GitHub's and GitLab's syntax.
//!
//! A line is a pattern and its owners (`@user`, `@org/team`, an e-mail
//! address). Patterns follow `.gitignore`: a leading `/` or a `/` inside
//! anchors the pattern at the root, otherwise it matches at any depth; a
//! trailing `/` matches a directory's contents only; `*` stays within a
//! path segment and `**` crosses them; a pattern naming a directory owns
//! everything below it, but one whose last segment is a wildcard
//! (`docs/*`) only the files at that level. The last matching line wins.
//!
//! GitLab adds sections: `[Name]`, `^[Name]` (optional) or `[Name][2]`
//! (approvals), optionally followed by default owners for the section's
//! lines that name none. Each section is read on its own (the last
//! matching line within it wins) and a file's owners are those of every
//! section that matches it, in file order.

use globset::{GlobBuilder, GlobMatcher};

/// Where GitHub and GitLab look for the file, in the order they do; the
/// first that exists is used.
pub const LOCATIONS: [&str; 4] = [
    ".github/CODEOWNERS",
    "CODEOWNERS",
    ".gitlab/CODEOWNERS",
    "docs/CODEOWNERS",
];

/// One rule: a pattern and who owns what it matches.
#[derive(Debug, Clone)]
struct Rule {
    matchers: Vec<GlobMatcher>,
    owners: Vec<String>,
}

impl Rule {
    fn matches(&self, path: &str) -> bool {
        self.matchers.iter().any(|m| m.is_match(path))
    }
}

/// A parsed `CODEOWNERS`: its rules by section (a file without sections
/// has one).
#[derive(Debug, Clone, Default)]
pub struct CodeOwners {
    sections: Vec<Vec<Rule>>,
    /// `CODEOWNERS:LINE: …` for every line that was not understood.
    pub warnings: Vec<String>,
}

impl CodeOwners {
    /// Parses the file; a line it cannot read becomes a warning.
    pub fn parse(text: &str) -> CodeOwners {
        let mut owners = CodeOwners {
            sections: vec![Vec::new()],
            warnings: Vec::new(),
        };
        let mut defaults: Vec<String> = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(section_defaults) = section_header(line) {
                owners.sections.push(Vec::new());
                defaults = section_defaults;
                continue;
            }
            let (pattern, named) = split_line(line);
            let listed: Vec<String> = named
                .split_whitespace()
                .take_while(|w| !w.starts_with('#'))
                .map(str::to_owned)
                .collect();
            let rule_owners = if listed.is_empty() {
                defaults.clone()
            } else {
                listed
            };
            match matchers(&pattern) {
                Ok(matchers) => {
                    if let Some(section) = owners.sections.last_mut() {
                        section.push(Rule {
                            matchers,
                            owners: rule_owners,
                        });
                    }
                }
                Err(e) => owners
                    .warnings
                    .push(format!("CODEOWNERS:{}: {e}", index + 1)),
            }
        }
        owners
    }

    /// The owners of `path`: in each section the last matching line's,
    /// every section's together, each owner once. Empty when no line
    /// matches (or the matching line names nobody, which GitHub reads as
    /// "no owner").
    pub fn owners_of(&self, path: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for section in &self.sections {
            if let Some(rule) = section.iter().rev().find(|r| r.matches(path)) {
                for owner in &rule.owners {
                    if !out.contains(owner) {
                        out.push(owner.clone());
                    }
                }
            }
        }
        out
    }
}

/// The default owners of a GitLab section header (`[Name]`, `^[Name]`,
/// `[Name][2] @owner`), or `None` when `line` is no header.
fn section_header(line: &str) -> Option<Vec<String>> {
    let rest = line.strip_prefix('^').unwrap_or(line);
    let rest = rest.strip_prefix('[')?;
    let close = rest.find(']')?;
    if close == 0 {
        return None;
    }
    let mut after = &rest[close + 1..];
    // An approval count: `[2]`.
    if let Some(count) = after.strip_prefix('[') {
        let end = count.find(']')?;
        if !count[..end].chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        after = &count[end + 1..];
    }
    if !after.is_empty() && !after.starts_with(char::is_whitespace) {
        return None;
    }
    Some(
        after
            .split_whitespace()
            .take_while(|w| !w.starts_with('#'))
            .map(str::to_owned)
            .collect(),
    )
}

/// Splits a line into its pattern (escaped spaces and `#` unescaped) and
/// the rest.
fn split_line(line: &str) -> (String, &str) {
    let mut pattern = String::new();
    let mut chars = line.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, next)) = chars.next() {
                    pattern.push(next);
                }
            }
            c if c.is_whitespace() => return (pattern, &line[i..]),
            c => pattern.push(c),
        }
    }
    (pattern, "")
}

/// The globs a `.gitignore`-style pattern stands for.
/// A CODEOWNERS pattern that matches nothing; the pattern as written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum OwnersPattern {
    #[error("pattern `{pattern}` names nothing")]
    Empty { pattern: String },
    #[error("pattern `{pattern}`: {}", .error.kind())]
    Glob {
        pattern: String,
        error: globset::Error,
    },
}

fn matchers(pattern: &str) -> Result<Vec<GlobMatcher>, OwnersPattern> {
    let dir_only = pattern.ends_with('/');
    let trimmed = pattern.trim_end_matches('/');
    let anchored = trimmed.starts_with('/') || trimmed.contains('/');
    let base = trimmed.trim_start_matches('/');
    if base.is_empty() {
        return Err(OwnersPattern::Empty {
            pattern: pattern.to_owned(),
        });
    }
    let base = if anchored {
        base.to_owned()
    } else {
        format!("**/{base}")
    };
    // A pattern naming a directory owns what is below it; one whose last
    // segment is a wildcard (`docs/*`, `*.js`) names files at that level
    // only, as GitHub reads it.
    let last = base.rsplit('/').next().unwrap_or("");
    let names_files_only = last.contains('*') && last != "**";
    let mut globs = Vec::new();
    if !names_files_only || dir_only {
        globs.push(format!("{base}/**"));
    }
    if !dir_only {
        globs.push(base);
    }
    globs
        .iter()
        .map(|g| {
            GlobBuilder::new(g)
                .literal_separator(true)
                .build()
                .map(|g| g.compile_matcher())
                .map_err(|error| OwnersPattern::Glob {
                    pattern: pattern.to_owned(),
                    error,
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owners(text: &str, path: &str) -> Vec<String> {
        CodeOwners::parse(text).owners_of(path)
    }

    #[test]
    fn github_patterns_match_as_gitignore_and_the_last_match_wins() {
        let file = "\
# Owners of everything, then narrower.
*       @acme/everyone
*.js    @web
/docs/  @docs-team
apps/   @apps
build/logs/ @ops
payments @pay @acme/finance
/src/**/auth.py security@acme.test
vendor/legacy
";
        assert_eq!(owners(file, "README.md"), ["@acme/everyone"]);
        assert_eq!(owners(file, "ui/app.js"), ["@web"]);
        assert_eq!(owners(file, "docs/guide.md"), ["@docs-team"]);
        assert_eq!(
            owners(file, "x/docs/guide.md"),
            ["@acme/everyone"],
            "anchored"
        );
        assert_eq!(owners(file, "apps/web/a.py"), ["@apps"]);
        assert_eq!(owners(file, "build/logs/today.txt"), ["@ops"]);
        assert_eq!(
            owners(file, "svc/payments/card.go"),
            ["@pay", "@acme/finance"]
        );
        assert_eq!(owners(file, "src/a/b/auth.py"), ["security@acme.test"]);
        // A line naming no owner leaves the file unowned.
        assert!(owners(file, "vendor/legacy/x.c").is_empty());
        assert!(CodeOwners::parse(file).warnings.is_empty());
    }

    #[test]
    fn a_star_stays_within_a_directory() {
        let file = "docs/*  @docs\n";
        assert_eq!(owners(file, "docs/a.md"), ["@docs"]);
        assert!(owners(file, "docs/deep/a.md").is_empty());
    }

    #[test]
    fn gitlab_sections_each_give_their_owners() {
        let file = "\
* @default

[Backend] @backend-leads
app/models/
app/api/ @api-team

^[Docs][2] @writers
*.md
";
        assert_eq!(
            owners(file, "app/models/user.rb"),
            ["@default", "@backend-leads"]
        );
        assert_eq!(
            owners(file, "app/api/README.md"),
            ["@default", "@api-team", "@writers"]
        );
        assert_eq!(owners(file, "lib/x.rb"), ["@default"]);
    }

    #[test]
    fn escapes_comments_and_bad_patterns() {
        let file = "\
my\\ file.txt @spaces # a comment
\\#notes @hash
/ @nobody
";
        let parsed = CodeOwners::parse(file);
        assert_eq!(parsed.owners_of("my file.txt"), ["@spaces"]);
        assert_eq!(parsed.owners_of("#notes"), ["@hash"]);
        assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
        assert!(parsed.warnings[0].starts_with("CODEOWNERS:3:"));
    }
}
