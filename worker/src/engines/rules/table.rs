//! Table-driven rules: a rule that is one defect class spelled several
//! ways across languages lists its spellings as [`Check`]s (where it
//! applies, the pattern, the safe spellings that look alike) and lets
//! [`hits`] find them on the lane's added production lines.

use super::lang::Lang;
use super::pattern::Pattern;
use super::scope::{HeadLine, each_head_line};
use super::{Message, Reads, Rule, RuleContext, blanked, finding, mask_of, text_files};
use revu_domain::diff::FilePatch;
use revu_domain::finding::{BlastRadius, Finding};
use revu_domain::paths::{ends_with_ignore_case, file_name, starts_with_ignore_case};
use revu_domain::pattern::LineMask;
use std::borrow::Cow;

/// Which files a check reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Files {
    Lang(Lang),
    /// Shell scripts, Dockerfiles, Makefiles and CI files: where commands
    /// are written.
    Commands,
    Dockerfile,
    /// YAML manifests (Kubernetes, Compose, Helm templates).
    Yaml,
    Terraform,
}

pub(crate) fn is_dockerfile(path: &str) -> bool {
    is_dockerfile_name(file_name(path))
}

fn is_dockerfile_name(name: &str) -> bool {
    name.eq_ignore_ascii_case("dockerfile")
        || name.eq_ignore_ascii_case("containerfile")
        || starts_with_ignore_case(name, "dockerfile.")
        || ends_with_ignore_case(name, ".dockerfile")
}

/// What [`Files`] asks of a path, worked out once per file rather than
/// once per check.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kind {
    lang: Lang,
    dockerfile: bool,
    yaml: bool,
    /// A Makefile or a CI configuration: commands outside shell scripts.
    commands: bool,
    terraform: bool,
}

impl Kind {
    pub(crate) fn of(path: &str) -> Kind {
        let name = file_name(path);
        let yaml = name.ends_with(".yml") || name.ends_with(".yaml");
        Kind {
            lang: Lang::of(path),
            dockerfile: is_dockerfile_name(name),
            yaml,
            commands: name == "Makefile"
                || name.ends_with(".mk")
                || (yaml && (path.contains(".github/") || name.contains("gitlab-ci"))),
            terraform: name.ends_with(".tf") || name.ends_with(".tfvars") || name.ends_with(".hcl"),
        }
    }
}

impl Files {
    pub(crate) fn covers(self, path: &str) -> bool {
        self.covers_kind(&Kind::of(path))
    }

    /// [`Files::covers`], given what the path is.
    fn covers_kind(self, kind: &Kind) -> bool {
        match self {
            Files::Lang(l) => kind.lang == l,
            Files::Commands => kind.lang == Lang::Shell || kind.dockerfile || kind.commands,
            Files::Dockerfile => kind.dockerfile,
            Files::Yaml => kind.yaml,
            Files::Terraform => kind.terraform,
        }
    }
}

/// One spelling of a defect.
#[derive(Debug)]
pub(crate) struct Check {
    /// How the finding names it, e.g. `hashlib.md5`.
    pub label: &'static str,
    pub files: Files,
    pattern: Pattern,
    /// A line that also matches this is the safe spelling.
    unless: Option<Pattern>,
    /// Match the line with its string literals blanked (program code), or
    /// as written (commands and configuration, where the value is the
    /// point).
    code_only: bool,
    /// Only inside a block: walking back from the line, the first line
    /// that matches either regex must match the first (`ingress` before
    /// `egress` or the next `resource`). Lines the hunk does not show end
    /// the walk, unmatched.
    inside: Option<(Pattern, Pattern)>,
}

impl Check {
    pub(crate) fn new(label: &'static str, files: Files, pattern: &str) -> Check {
        let code_only = matches!(files, Files::Lang(_))
            && !matches!(files, Files::Lang(Lang::Shell | Lang::Config));
        Check {
            label,
            files,
            pattern: Pattern::owned(pattern),
            unless: None,
            code_only,
            inside: None,
        }
    }

    /// Only inside a block opened by `opens` and not yet closed by `stops`
    /// (see [`Check::inside`]).
    pub(crate) fn inside(mut self, opens: &str, stops: &str) -> Check {
        self.inside = Some((Pattern::owned(opens), Pattern::owned(stops)));
        self
    }

    /// Safe when the line also matches `pattern`.
    pub(crate) fn unless(mut self, pattern: &str) -> Check {
        self.unless = Some(Pattern::owned(pattern));
        self
    }

    /// Matched against the line as written, string literals included.
    pub(crate) fn verbatim(mut self) -> Check {
        self.code_only = false;
        self
    }

    /// Whether every regex of the check compiles (for the rules' tests).
    #[cfg(test)]
    pub(crate) fn compiles(&self) -> bool {
        self.pattern.regex().is_some()
            && self.unless.as_ref().is_none_or(|u| u.regex().is_some())
            && self
                .inside
                .as_ref()
                .is_none_or(|(o, s)| o.regex().is_some() && s.regex().is_some())
    }

    /// Whether the walk back over `before` (nearest last) finds the block
    /// open.
    fn in_block(&self, before: &[HeadLine<'_>]) -> bool {
        let Some((opens, stops)) = &self.inside else {
            return true;
        };
        for HeadLine { text, .. } in before.iter().rev() {
            if opens.is_match(text) {
                return true;
            }
            if stops.is_match(text) {
                return false;
            }
        }
        false
    }

    /// Whether the line matches: `text` as written, `code` with its string
    /// literals blanked.
    fn matches(&self, text: &str, code: &str, mask: LineMask) -> bool {
        let subject = if self.code_only { code } else { text };
        self.pattern.is_match_line(subject, mask)
            && !self
                .unless
                .as_ref()
                .is_some_and(|u| u.is_match_line(text, mask))
    }
}

/// Every added production line of the lane that a check matches, with
/// the first check that does.
pub(crate) fn hits<'a, 'c>(
    ctx: &RuleContext<'a>,
    checks: &'c [Check],
) -> Vec<(&'a FilePatch, u32, &'c Check)> {
    let mut out = Vec::new();
    for patch in text_files(ctx) {
        let kind = ctx.kind(patch);
        let mine: Vec<&Check> = checks
            .iter()
            .filter(|c| c.files.covers_kind(&kind))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let lines = ctx.production_lines(patch);
        let masks = ctx.production_masks(patch);
        let code = if mine.iter().any(|c| c.code_only) {
            ctx.production_code(patch)
        } else {
            Cow::Borrowed(&[][..])
        };
        // Every head-side line the hunks show, for the block walks: read
        // only when a line matches a check that walks.
        let mut shown: Option<Vec<HeadLine<'_>>> = None;
        for (i, &(line, text)) in lines.iter().enumerate() {
            let code = blanked(&code, i, text);
            let mask = mask_of(&masks, i);
            let hit = mine.iter().find(|c| {
                c.matches(text, code, mask)
                    && (c.inside.is_none() || {
                        let shown = shown.get_or_insert_with(|| {
                            patch.hunks.iter().flat_map(each_head_line).collect()
                        });
                        c.in_block(&shown[..shown.partition_point(|l| l.line < line)])
                    })
            });
            if let Some(check) = hit {
                out.push((patch, line, *check));
            }
        }
    }
    out
}

/// What a table reads: code alone when every check matches code, else
/// the strings too (commands, configuration, a literal that is the point).
pub(crate) fn reads(checks: &[Check]) -> Reads {
    if checks.iter().all(|c| c.code_only) {
        Reads::Code
    } else {
        Reads::CodeAndStrings
    }
}

/// What a table-driven rule says of a hit: the summary (given the check's
/// label), why it matters and how to fix it.
pub(crate) struct Wording {
    pub summary: fn(&str) -> String,
    pub why: &'static str,
    pub fix: &'static str,
}

/// Appends a finding of `rule` for every hit of `checks`.
pub(crate) fn report(
    rule: &dyn Rule,
    ctx: &RuleContext<'_>,
    checks: &[Check],
    wording: &Wording,
    out: &mut Vec<Finding>,
) {
    for (patch, line, check) in hits(ctx, checks) {
        let msg = Message {
            summary: (wording.summary)(check.label),
            why: wording.why.to_owned(),
            fix: wording.fix.to_owned(),
        };
        out.push(finding(rule, patch.path(), line, BlastRadius::Service, msg));
    }
}

/// A rule that is a table of [`Check`]s: its struct and its [`Rule`]
/// implementation, from its catalogue entry, checks and [`Wording`]. The
/// doc comment goes on the struct.
macro_rules! table_rule {
    (
        $(#[$doc:meta])*
        $rule:ident {
            meta: $meta:ident,
            checks: $checks:ident,
            wording: $wording:ident,
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default)]
        pub struct $rule;

        impl super::Rule for $rule {
            fn meta(&self) -> &'static super::RuleMeta {
                &$meta
            }
            fn reads(&self) -> super::Reads {
                super::table::reads(&$checks)
            }
            fn check(
                &self,
                ctx: &super::RuleContext<'_>,
                out: &mut Vec<revu_domain::finding::Finding>,
            ) {
                super::table::report(self, ctx, &$checks, &$wording, out);
            }
        }
    };
}
pub(crate) use table_rule;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_told_apart_by_name() {
        assert!(Files::Dockerfile.covers("deploy/Dockerfile"));
        assert!(Files::Dockerfile.covers("Dockerfile.prod"));
        assert!(Files::Commands.covers("ops/install.sh"));
        assert!(Files::Commands.covers(".github/workflows/ci.yml"));
        assert!(!Files::Commands.covers("k8s/deploy.yaml"));
        assert!(Files::Yaml.covers("k8s/deploy.yaml"));
        assert!(Files::Terraform.covers("infra/main.tf"));
        assert!(Files::Lang(Lang::Go).covers("app/main.go"));
    }
}
