//! The built-in rules engine: deterministic checks over the added lines of a
//! change. One rule per module, each with a stable code, a dimension, a
//! severity, a confidence and a fixture test.

use revu_common::code_index::CodeIndex;
use revu_common::diff::{FilePatch, FileStatus};
use revu_common::finding::{BlastRadius, Dimension, Finding, Severity};
use revu_common::pattern::LineMask;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

pub(crate) mod adjudicator;
mod behaviour;
mod catalogue;
mod falsify;
mod interpolation;
mod lang;
pub(crate) mod memo;
mod paths;
mod pattern;
pub(crate) mod phases;
mod scope;
mod secrets;
#[cfg(test)]
mod testing;

/// What a rule sees: the files of its lane and the change as a whole.
#[derive(Debug, Clone, Copy)]
pub struct RuleContext<'a> {
    /// The files this lane reviews.
    pub files: &'a [&'a FilePatch],
    /// Every file of the change (for change-wide rules such as "source
    /// changed without tests").
    pub change: &'a [FilePatch],
    /// The client's code index of the change, when the review has one.
    pub index: Option<&'a CodeIndex>,
    /// The head contents of the changed files, when the client sent them:
    /// what a rule reads to falsify a finding (the function around a line,
    /// a guard above it).
    pub heads: Option<&'a BTreeMap<String, Vec<u8>>>,
    /// One file's production lines, worked out once for every rule that
    /// reads that file ([`memo`]); rules ask [`RuleContext::production_lines`].
    pub(crate) lines: Option<&'a FileLines<'a>>,
}

/// A file's added production lines ([`scope::production_lines`]) and
/// whether its text is read, kept so that the rules reading the file
/// share them.
#[derive(Debug)]
pub(crate) struct FileLines<'a> {
    pub patch: &'a FilePatch,
    pub production: Vec<(u32, &'a str)>,
    /// What every lane reading the file shares.
    shared: Arc<SharedLines>,
}

/// What the rules work out about a file once for all the lanes that read
/// it ([`memo`]), holding nothing of the diff itself.
#[derive(Debug)]
pub(crate) struct SharedLines {
    production: Vec<scope::LineRef>,
    /// Whether the rules read its text ([`text_files`]).
    text: bool,
    /// [`FileLines::production`] with string literals blanked, worked out
    /// when a rule first asks ([`RuleContext::production_code`]).
    code: OnceLock<Vec<Option<Box<str>>>>,
    /// The [`LineMask`] of each of [`FileLines::production`], worked out
    /// when a rule first asks ([`RuleContext::production_masks`]).
    masks: OnceLock<Vec<LineMask>>,
    /// The [`LineMask`] of each added line ([`RuleContext::added_masks`]).
    added_masks: OnceLock<Vec<LineMask>>,
    /// What kind of file it is, for the tables ([`RuleContext::kind`]).
    kind: OnceLock<catalogue::Kind>,
}

impl SharedLines {
    pub(crate) fn of(patch: &FilePatch) -> Self {
        SharedLines {
            production: scope::production_refs(patch),
            text: is_text(patch),
            code: OnceLock::new(),
            masks: OnceLock::new(),
            added_masks: OnceLock::new(),
            kind: OnceLock::new(),
        }
    }
}

/// The `i`th of `masks` ([`RuleContext::production_masks`],
/// [`RuleContext::added_masks`]); past the end, one that turns nothing
/// away.
pub(crate) fn mask_of(masks: &[LineMask], i: usize) -> LineMask {
    masks.get(i).copied().unwrap_or(LineMask::ALL)
}

/// The `i`th production line's code ([`RuleContext::production_code`]),
/// given its `text`.
pub(crate) fn blanked<'t>(code: &'t [Option<Box<str>>], i: usize, text: &'t str) -> &'t str {
    code.get(i).and_then(Option::as_deref).unwrap_or(text)
}

impl<'a> FileLines<'a> {
    /// `patch`'s lines, from what is shared about it.
    pub(crate) fn of(patch: &'a FilePatch, shared: Arc<SharedLines>) -> Self {
        FileLines {
            patch,
            production: scope::lines_at(patch, &shared.production),
            shared,
        }
    }
}

impl<'a> RuleContext<'a> {
    /// The lane's files and the change, with nothing worked out ahead.
    pub fn new(
        files: &'a [&'a FilePatch],
        change: &'a [FilePatch],
        index: Option<&'a CodeIndex>,
    ) -> Self {
        RuleContext {
            files,
            change,
            index,
            heads: None,
            lines: None,
        }
    }

    /// The same context, reading `heads` for the changed files' contents.
    pub fn with_heads(self, heads: Option<&'a BTreeMap<String, Vec<u8>>>) -> Self {
        RuleContext { heads, ..self }
    }

    /// The head contents of `path` as text, when the client sent them and
    /// they are UTF-8.
    pub(crate) fn head_text(&self, path: &str) -> Option<&'a str> {
        let bytes = self.heads?.get(path)?;
        std::str::from_utf8(bytes).ok()
    }

    /// The added lines of `patch` that are code ([`scope::production_lines`]).
    pub(crate) fn production_lines(&self, patch: &'a FilePatch) -> Cow<'a, [(u32, &'a str)]> {
        match self.lines {
            Some(lines) if std::ptr::eq(lines.patch, patch) => Cow::Borrowed(&lines.production),
            _ => Cow::Owned(scope::production_lines(patch)),
        }
    }

    /// Each of [`RuleContext::production_lines`], in the same order, with
    /// the content of its string literals removed
    /// ([`lang::Lang::code_only`] in the file's language): `None` where
    /// that leaves the line as it is. Read them with [`blanked`].
    pub(crate) fn production_code(&self, patch: &'a FilePatch) -> Cow<'a, [Option<Box<str>>]> {
        let blank = |lines: &[(u32, &str)]| -> Vec<Option<Box<str>>> {
            let lang = lang::Lang::of(patch.path());
            lines
                .iter()
                .map(|&(_, text)| match lang.code_only(text) {
                    Cow::Borrowed(_) => None,
                    Cow::Owned(code) => Some(code.into_boxed_str()),
                })
                .collect()
        };
        match self.lines {
            Some(lines) if std::ptr::eq(lines.patch, patch) => {
                Cow::Borrowed(lines.shared.code.get_or_init(|| blank(&lines.production)))
            }
            _ => Cow::Owned(blank(&scope::production_lines(patch))),
        }
    }

    /// The [`LineMask`] of each of [`RuleContext::production_lines`], in
    /// the same order, which serves the line as written and its
    /// [`RuleContext::production_code`]. Read them with [`mask_of`].
    pub(crate) fn production_masks(&self, patch: &'a FilePatch) -> Cow<'a, [LineMask]> {
        let of = |lines: &[(u32, &str)], code: &[Option<Box<str>>]| -> Vec<LineMask> {
            lines
                .iter()
                .enumerate()
                .map(
                    |(i, &(_, text))| match code.get(i).and_then(Option::as_deref) {
                        Some(code) => LineMask::of(text).with(code),
                        None => LineMask::of(text),
                    },
                )
                .collect()
        };
        match self.lines {
            Some(lines) if std::ptr::eq(lines.patch, patch) => Cow::Borrowed(
                lines
                    .shared
                    .masks
                    .get_or_init(|| of(&lines.production, &self.production_code(patch))),
            ),
            _ => Cow::Owned(of(
                &scope::production_lines(patch),
                &self.production_code(patch),
            )),
        }
    }

    /// The [`LineMask`] of each of `patch`'s added lines, in the order of
    /// [`FilePatch::added_lines`]. Read them with [`mask_of`].
    pub(crate) fn added_masks(&self, patch: &'a FilePatch) -> Cow<'a, [LineMask]> {
        let of = || -> Vec<LineMask> {
            patch
                .added_lines()
                .map(|(_, text)| LineMask::of(text))
                .collect()
        };
        match self.lines {
            Some(lines) if std::ptr::eq(lines.patch, patch) => {
                Cow::Borrowed(lines.shared.added_masks.get_or_init(of))
            }
            _ => Cow::Owned(of()),
        }
    }

    /// What kind of file `patch` is, as the tables' checks ask.
    pub(crate) fn kind(&self, patch: &'a FilePatch) -> catalogue::Kind {
        match self.lines {
            Some(lines) if std::ptr::eq(lines.patch, patch) => *lines
                .shared
                .kind
                .get_or_init(|| catalogue::Kind::of(patch.path())),
            _ => catalogue::Kind::of(patch.path()),
        }
    }

    /// [`RuleContext::production_lines`] of a Rust file outside examples,
    /// benchmarks and build scripts; none for other files.
    pub(crate) fn production_rust_lines(&self, patch: &'a FilePatch) -> Cow<'a, [(u32, &'a str)]> {
        if !scope::is_production_rust(patch.path()) {
            return Cow::Borrowed(&[]);
        }
        self.production_lines(patch)
    }
}

/// A built-in check.
pub trait Rule: Send + Sync {
    /// Stable code, e.g. `RV-SEC-001`. Never reused for another check.
    fn code(&self) -> &'static str;
    /// Short kebab-case name, e.g. `hardcoded-credential`.
    fn name(&self) -> &'static str;
    fn dimension(&self) -> Dimension;
    fn severity(&self) -> Severity;
    /// 0–100: how often a hit is a true positive.
    fn confidence(&self) -> u8;
    /// Appends its findings on the lane's files.
    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>);
}

/// Declares each rule's module and lists the rule in [`all_rules`], so that
/// a rule is registered in one place. Listed in code order.
macro_rules! rules {
    ($($module:ident::$rule:ident),* $(,)?) => {
        $(mod $module;)*

        /// Every built-in rule, in code order.
        pub fn all_rules() -> Vec<Box<dyn Rule>> {
            vec![$(Box::new($module::$rule)),*]
        }
    };
}

rules! {
    unwrap_in_production::UnwrapInProduction,
    bare_panic::BarePanic,
    placeholder_macro::PlaceholderMacro,
    swallowed_exception::SwallowedException,
    destructive_migration::DestructiveMigration,
    stale_reference::StaleReference,
    unguarded_recursive_delete::UnguardedRecursiveDelete,
    hardcoded_credential::HardcodedCredential,
    sql_string_formatting::SqlStringFormatting,
    dynamic_code_execution::DynamicCodeExecution,
    shell_injection::ShellInjection,
    tls_verification_disabled::TlsVerificationDisabled,
    secret_logged::SecretLogged,
    debug_mode_enabled::DebugModeEnabled,
    weak_cryptography::WeakCryptography,
    insecure_randomness::InsecureRandomness,
    html_injection::HtmlInjection,
    request_controlled_target::RequestControlledTarget,
    world_writable_permissions::WorldWritablePermissions,
    unverified_download::UnverifiedDownload,
    container_privilege::ContainerPrivilege,
    insecure_cloud_resource::InsecureCloudResource,
    bind_all_interfaces::BindAllInterfaces,
    insecure_temp_file::InsecureTempFile,
    regex_in_loop::RegexInLoop,
    select_star::SelectStar,
    blocking_sleep_in_async::BlockingSleepInAsync,
    too_many_parameters::TooManyParameters,
    wildcard_import::WildcardImport,
    oversized_file::OversizedFile,
    source_without_tests::SourceWithoutTests,
    focused_test::FocusedTest,
    skipped_test::SkippedTest,
    debug_print::DebugPrint,
    debugger_statement::DebuggerStatement,
    large_binary::LargeBinary,
    unpinned_image::UnpinnedImage,
    missing_timeout::MissingTimeout,
}

/// The text of a finding.
#[derive(Debug, Clone)]
pub(crate) struct Message {
    pub summary: String,
    pub why: String,
    pub fix: String,
}

/// A finding of `rule` at `file:line` (a finding on the whole file cites
/// [`revu_common::diff::FilePatch::anchor_line`]).
pub(crate) fn finding(
    rule: &dyn Rule,
    file: &str,
    line: u32,
    blast_radius: BlastRadius,
    msg: Message,
) -> Finding {
    Finding {
        rule: rule.code().to_string(),
        severity: rule.severity(),
        file: file.to_string(),
        line,
        end_line: None,
        dimension: rule.dimension(),
        dimensions: Vec::new(),
        summary: msg.summary,
        why: msg.why,
        fix: msg.fix,
        confidence: rule.confidence(),
        blast_radius,
        pre_existing: false,
        meta: false,
    }
}

/// `f` lowered to `to`, for a hit that a convention says is no blocker (a
/// test fixture, a framework's own code): the reason leads its `why`, so the
/// report says why it does not block.
pub(crate) fn downgrade(mut f: Finding, to: Severity, reason: &str) -> Finding {
    debug_assert!(to < f.severity, "{} is not lower than {}", to, f.severity);
    f.why = format!("Downgraded from {}: {reason} {}", f.severity, f.why);
    f.severity = to;
    f
}

/// The lane's files whose text a rule reads: neither binary nor deleted, and
/// written by people (not lock files, vendored or generated code).
pub(crate) fn text_files<'a>(ctx: &RuleContext<'a>) -> impl Iterator<Item = &'a FilePatch> {
    let lines = ctx.lines;
    ctx.files.iter().copied().filter(move |p| match lines {
        Some(lines) if std::ptr::eq(lines.patch, *p) => lines.shared.text,
        _ => is_text(p),
    })
}

fn is_text(p: &FilePatch) -> bool {
    !p.binary && p.status != FileStatus::Deleted && !paths::is_generated_path(p.path())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn prefix(d: Dimension) -> &'static str {
        match d {
            Dimension::Correctness => "RV-COR-",
            Dimension::Security => "RV-SEC-",
            Dimension::Performance => "RV-PERF-",
            Dimension::Design => "RV-DES-",
            Dimension::Testing => "RV-TEST-",
            Dimension::Operability => "RV-OPS-",
        }
    }

    #[test]
    fn codes_and_names_are_unique_and_match_their_dimension() {
        let rules = all_rules();
        let codes: HashSet<_> = rules.iter().map(|r| r.code()).collect();
        let names: HashSet<_> = rules.iter().map(|r| r.name()).collect();
        assert_eq!(codes.len(), rules.len());
        assert_eq!(names.len(), rules.len());
        for r in &rules {
            let p = prefix(r.dimension());
            let number = r.code().strip_prefix(p).unwrap_or_default();
            assert!(
                number.len() == 3 && number.chars().all(|c| c.is_ascii_digit()),
                "{} does not match {p}NNN",
                r.code()
            );
            assert!(
                r.name().chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{} is not kebab-case",
                r.name()
            );
        }
    }

    #[test]
    fn rules_cover_every_dimension_with_sane_confidence() {
        let rules = all_rules();
        assert!(rules.len() >= 14);
        let dims: HashSet<_> = rules.iter().map(|r| r.dimension()).collect();
        for d in Dimension::ALL {
            assert!(dims.contains(&d), "no rule for {d}");
        }
        for r in &rules {
            assert!((1..=100).contains(&r.confidence()), "{}", r.code());
        }
    }

    #[test]
    fn rules_are_listed_in_code_order() {
        let order = |code: &str| {
            let dim = Dimension::ALL
                .iter()
                .position(|d| code.starts_with(prefix(*d)))
                .unwrap_or(usize::MAX);
            (dim, code.to_string())
        };
        let codes: Vec<_> = all_rules().iter().map(|r| order(r.code())).collect();
        let mut sorted = codes.clone();
        sorted.sort();
        assert_eq!(codes, sorted);
    }

    #[test]
    fn no_rule_reads_deleted_or_binary_files() {
        let change = [
            testing::deleted("src/app.py", &["password = \"s3cr3t-v4lue!\"", "eval(x)"]),
            testing::binary("assets/logo.png", FileStatus::Added, Some(2_000)),
        ];
        for r in all_rules() {
            assert!(testing::run(r.as_ref(), &change).is_empty(), "{}", r.code());
        }
    }
}
