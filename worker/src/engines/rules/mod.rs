//! The built-in rules engine: deterministic checks over the added lines of a
//! change. One rule per module, each with its catalogue entry ([`RuleMeta`]:
//! a stable code, a dimension, a severity, a confidence, what it catches and
//! why, an example it flags) and a fixture test. Each rule declares what of
//! a line it reads (code, code and strings, or everything: [`Reads`]), and
//! gets only that ([`view`]).

use revu_domain::code_index::CodeIndex;
use revu_domain::diff::{FilePatch, FileStatus};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};
use std::borrow::Cow;
use std::collections::BTreeMap;

pub(crate) mod adjudicator;
mod behaviour;
#[cfg(test)]
mod examples;
mod falsify;
mod identity;
mod interpolation;
mod lang;
mod lexical;
mod lines;
pub(crate) mod memo;
mod meta;
mod paths;
mod pattern;
pub(crate) mod phases;
pub(crate) mod same_root;
mod scope;
mod secrets;
mod table;
#[cfg(test)]
pub(crate) mod testing;
mod view;

pub(crate) use identity::digest;
pub(crate) use lines::{FileLines, SharedLines};
pub use meta::{Example, RuleMeta};
pub use view::Reads;
pub(crate) use view::{blanked, mask_of};

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
    /// where the lexical pass starts (a hunk may open inside a comment or
    /// a string), and what a rule reads to falsify a finding (the function
    /// around a line, a guard above it).
    pub heads: Option<&'a BTreeMap<String, Vec<u8>>>,
    /// What the rule being run reads ([`Rule::reads`]), set by [`run`].
    pub(crate) reads: Reads,
    /// The lines of the lane's files, worked out once for every rule that
    /// reads them ([`memo`]); rules ask [`RuleContext::production_lines`].
    pub(crate) lines: &'a [FileLines<'a>],
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
            reads: Reads::Code,
            lines: &[],
        }
    }

    /// The same context, reading `heads` for the changed files' contents.
    pub fn with_heads(self, heads: Option<&'a BTreeMap<String, Vec<u8>>>) -> Self {
        RuleContext { heads, ..self }
    }

    /// The head contents of `path` as text, when the client sent them and
    /// they are UTF-8.
    pub(crate) fn head_text(&self, path: &str) -> Option<&'a str> {
        head_text(self.heads, path)
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

/// The contents of `path` in `heads` as text, when they are there and
/// UTF-8.
pub(crate) fn head_text<'h>(
    heads: Option<&'h BTreeMap<String, Vec<u8>>>,
    path: &str,
) -> Option<&'h str> {
    let bytes = heads?.get(path)?;
    std::str::from_utf8(bytes).ok()
}

/// A built-in check. What it is comes from its catalogue entry
/// ([`Rule::meta`]); the other methods of that kind read it and are not
/// written again by a rule.
pub trait Rule: Send + Sync {
    /// Its catalogue entry.
    fn meta(&self) -> &'static RuleMeta;
    /// [`RuleMeta::code`].
    fn code(&self) -> &'static str {
        self.meta().code
    }
    /// [`RuleMeta::name`].
    fn name(&self) -> &'static str {
        self.meta().name
    }
    /// [`RuleMeta::dimension`].
    fn dimension(&self) -> Dimension {
        self.meta().dimension
    }
    /// [`RuleMeta::severity`].
    fn severity(&self) -> Severity {
        self.meta().severity
    }
    /// [`RuleMeta::confidence`].
    fn confidence(&self) -> u8 {
        self.meta().confidence
    }
    /// What of a file's lines it reads: the lines it gets through its
    /// context hold only that ([`Reads`]).
    fn reads(&self) -> Reads {
        Reads::Code
    }
    /// Appends its findings on the lane's files. Called through [`run`].
    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>);
}

/// Runs `rule` on `ctx`, giving it the lines it reads ([`Rule::reads`]);
/// the lines of a file the context does not carry are worked out when the
/// rule first asks.
pub(crate) fn run(rule: &dyn Rule, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
    let reads = rule.reads();
    if ctx.files.iter().all(|p| ctx.file_lines(p).is_some()) {
        rule.check(&RuleContext { reads, ..*ctx }, out);
        return;
    }
    let lines: Vec<FileLines<'_>> = ctx
        .files
        .iter()
        .map(|p| FileLines::lazy(p, ctx.head_text(p.path())))
        .collect();
    let ctx = RuleContext {
        files: ctx.files,
        change: ctx.change,
        index: ctx.index,
        heads: ctx.heads,
        reads,
        lines: &lines,
    };
    rule.check(&ctx, out);
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
/// [`revu_domain::diff::FilePatch::anchor_line`]).
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
        pre_existing_line: false,
        downgraded_from: None,
        meta: false,
        owners: Vec::new(),
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
    let ctx = *ctx;
    ctx.files.iter().copied().filter(move |p| {
        ctx.file_lines(p)
            .map_or_else(|| is_text(p), FileLines::is_text)
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

    #[test]
    fn what_each_rule_reads_is_what_the_engines_page_says() {
        let path = format!("{}/../docs/engines.md", env!("CARGO_MANIFEST_DIR"));
        let page = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let said: Vec<(String, String)> = page
            .lines()
            .filter(|l| l.starts_with("| RV-"))
            .filter_map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                Some((cells.get(1)?.to_string(), cells.get(3)?.to_string()))
            })
            .collect();
        let rules: Vec<(String, String)> = all_rules()
            .iter()
            .map(|r| (r.code().to_string(), r.reads().as_str().to_string()))
            .collect();
        assert_eq!(said, rules);
    }
}
