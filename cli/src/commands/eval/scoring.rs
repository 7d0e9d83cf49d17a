//! Scoring a review against what a corpus case expects of it.
//!
//! - A finding **matches** an expectation with lines when it cites the
//!   same file, a line in the expectation's range widened by the case's
//!   line window, and meets its optional severity (the least that counts),
//!   rule (exact, or every rule of a tool for a value ending in `:`) and
//!   class (every word in the finding's summary or why, case-insensitive).
//!   An expectation without lines that names a rule or a class is matched
//!   by a finding meeting them (in its file, when it names one).
//! - With a judge, a finding the judge says describes an expectation's
//!   description matches it too, line or no line, when the files agree
//!   (where the expectation names one) and the severity is met. An
//!   expectation with a description alone **needs the judge**: without
//!   one it is counted apart and left out of recall, never a silent miss.
//! - **Recall**: expectations matched over expectations scored.
//!   **Precision**: findings that match an expectation of their case over
//!   findings. **F1**: their harmonic mean.
//! - A trap is **hit** when a finding (of its rule, when it names one)
//!   cites one of its lines.
//! - A finding is a **citation off** when it matches no expectation but
//!   meets the file, rule and class of one with lines that no finding
//!   matched and that names a rule or a class: the problem found, its line
//!   cited wrong. Counted once per finding.
//!
//! Everything is counted overall, per language (of the file cited) and
//! per case. A share with nothing to divide by is `None`.

mod tally;

pub use tally::{Spent, Tally};

use super::backtest::EVAL_VERSION;
use revu_domain::finding::{Finding, Severity};
use serde::Serialize;
use std::collections::BTreeMap;

/// A range of head-side lines, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Lines {
    pub first: u32,
    pub last: u32,
}

impl Lines {
    /// Whether `line` is in the range widened by `window` lines each side.
    pub fn holds(self, line: u32, window: u32) -> bool {
        (self.first.saturating_sub(window)..=self.last.saturating_add(window)).contains(&line)
    }

    /// `file:line`, or `file:first-last`.
    pub fn citation(self, file: &str) -> String {
        if self.first == self.last {
            format!("{file}:{}", self.first)
        } else {
            format!("{file}:{}-{}", self.first, self.last)
        }
    }
}

/// A finding a review should report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Expectation {
    /// The file it is in; `None` only for an expectation without lines.
    pub file: Option<String>,
    #[serde(flatten)]
    pub lines: Option<Lines>,
    pub severity: Option<Severity>,
    pub rule: Option<String>,
    pub class: Option<String>,
    /// The label of a marked defect (`revu-eval: defect ID`).
    pub id: Option<String>,
    /// What a maintainer wrote about the problem: what the judge reads.
    pub description: Option<String>,
    /// The severity a benchmark's golden comment gave it, mapped to
    /// revu's (shown, not a condition of a match).
    pub golden_severity: Option<Severity>,
}

/// Lines that must stay silent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Trap {
    pub file: String,
    #[serde(flatten)]
    pub lines: Lines,
    pub rule: Option<String>,
    pub id: Option<String>,
}

/// What one case expects; its change lives with the corpus.
#[derive(Debug, Clone, Default)]
pub struct Expected {
    pub expectations: Vec<Expectation>,
    pub traps: Vec<Trap>,
}

/// The pairs (expectation, finding), by index, that a judge said
/// describe the same problem, with its reasoning.
pub type Judged = BTreeMap<(usize, usize), String>;

/// What one case's review gave, to be scored.
#[derive(Debug, Clone, Default)]
pub struct CaseRun {
    pub findings: Vec<Finding>,
    /// What the judge said, when one was asked and answered.
    pub judged: Option<Judged>,
    /// Why the judge gave no answer for this case, when it gave none.
    pub judge_error: Option<String>,
    /// Lines either side of an expectation's range that still match.
    pub window: u32,
    pub spent: Spent,
}

/// Whether `rule` is the finding's, or its tool's (`ruff:`).
fn rule_matches(wanted: Option<&str>, rule: &str) -> bool {
    match wanted {
        None => true,
        Some(w) if w.ends_with(':') => rule.starts_with(w),
        Some(w) => rule == w,
    }
}

/// Every word of `class` in the finding's summary or why.
fn class_matches(class: Option<&str>, f: &Finding) -> bool {
    let Some(class) = class else {
        return true;
    };
    let text = format!("{} {}", f.summary, f.why).to_lowercase();
    class
        .split_whitespace()
        .all(|word| text.contains(&word.to_lowercase()))
}

impl Expectation {
    fn agrees_on_file(&self, f: &Finding) -> bool {
        self.file.as_ref().is_none_or(|file| *file == f.file)
    }

    /// The file, rule and class it asks for, wherever in the file.
    fn same_file_rule_class(&self, f: &Finding) -> bool {
        self.agrees_on_file(f)
            && rule_matches(self.rule.as_deref(), &f.rule)
            && class_matches(self.class.as_deref(), f)
    }

    /// Names a rule or a class: a problem to recognise without a judge.
    fn names_problem(&self) -> bool {
        self.rule.is_some() || self.class.is_some()
    }

    /// The same problem, cited elsewhere in the file.
    fn same_problem(&self, f: &Finding) -> bool {
        self.lines.is_some() && self.names_problem() && self.same_file_rule_class(f)
    }

    /// Only a judge can match it: a description and nothing else to go by.
    pub fn needs_judge(&self) -> bool {
        self.lines.is_none() && !self.names_problem()
    }

    /// Matched by `f` on its lines (within `window`), or by its rule and
    /// class when it has no lines, and its severity.
    pub fn matches(&self, f: &Finding, window: u32) -> bool {
        let placed = match self.lines {
            Some(lines) => lines.holds(f.line, window),
            None => self.names_problem(),
        };
        placed && self.same_file_rule_class(f) && self.severity_met(f)
    }

    /// Matched by `f`, which a judge said describes it.
    fn judged_match(&self, f: &Finding) -> bool {
        self.agrees_on_file(f) && self.severity_met(f)
    }

    fn severity_met(&self, f: &Finding) -> bool {
        self.severity.is_none_or(|least| f.severity >= least)
    }

    /// `file:line` of it, its file alone, or `(anywhere)`.
    pub fn citation(&self) -> String {
        match (&self.file, self.lines) {
            (Some(file), Some(lines)) => lines.citation(file),
            (Some(file), None) => file.clone(),
            (None, _) => "(anywhere)".to_owned(),
        }
    }
}

impl Trap {
    pub fn hit_by(&self, f: &Finding) -> bool {
        f.file == self.file
            && self.lines.holds(f.line, 0)
            && rule_matches(self.rule.as_deref(), &f.rule)
    }
}

/// A finding as the corpus report names it.
#[derive(Debug, Clone, Serialize)]
pub struct FindingRef {
    pub citation: String,
    pub rule: String,
    pub severity: Severity,
    pub summary: String,
}

impl FindingRef {
    fn of(f: &Finding) -> FindingRef {
        FindingRef {
            citation: f.citation(),
            rule: f.rule.clone(),
            severity: f.severity,
            summary: f.summary.clone(),
        }
    }
}

/// One item of a case, with the case's name and the language of its file.
#[derive(Debug, Clone, Serialize)]
pub struct InCase<T> {
    pub case: String,
    pub language: &'static str,
    #[serde(flatten)]
    pub item: T,
}

impl<T> InCase<T> {
    fn new(case: &str, file: &str, item: T) -> InCase<T> {
        InCase {
            case: case.to_owned(),
            language: language(file),
            item,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ExpectationResult {
    #[serde(flatten)]
    pub expectation: Expectation,
    pub matched: bool,
    /// Not scored: only a judge can match it, and none answered.
    pub needs_judge: bool,
    /// The findings that match it.
    pub matched_by: Vec<FindingRef>,
    /// Why the judge said a finding describes it, when one did.
    pub judge_reasoning: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TrapResult {
    #[serde(flatten)]
    pub trap: Trap,
    /// The findings on its lines; empty when it held.
    pub hit_by: Vec<FindingRef>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OffCitation {
    #[serde(flatten)]
    pub finding: FindingRef,
    /// The citation of each missed expectation it would have met.
    pub expected: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CaseScore {
    pub name: String,
    pub description: Option<String>,
    /// Lines either side of an expectation's range that still match.
    pub window: u32,
    #[serde(flatten)]
    pub tally: Tally,
    pub spent: Spent,
    /// Why the judge gave no answer for this case, when it gave none.
    pub judge_error: Option<String>,
}

/// A case of the corpus that was not reviewed, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    pub name: String,
    pub reason: String,
}

/// The engine that judged findings against descriptions.
#[derive(Debug, Clone, Serialize)]
pub struct JudgeInfo {
    pub engine: String,
    pub model: String,
    pub prompt: &'static str,
}

/// The whole corpus scored: what `--format json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Scored {
    pub eval_version: &'static str,
    pub mode: &'static str,
    pub corpus: String,
    pub judge: Option<JudgeInfo>,
    pub overall: Tally,
    pub by_language: BTreeMap<&'static str, Tally>,
    pub cases: Vec<CaseScore>,
    /// Cases not reviewed (a pull request without a checkout), by name.
    pub skipped: Vec<Skipped>,
    /// What the cases spent together.
    pub spent: Spent,
    pub expectations: Vec<InCase<ExpectationResult>>,
    pub traps: Vec<InCase<TrapResult>>,
    pub citations_off: Vec<InCase<OffCitation>>,
}

impl Scored {
    pub fn new(corpus: String) -> Scored {
        Scored {
            eval_version: EVAL_VERSION,
            mode: "corpus",
            corpus,
            judge: None,
            overall: Tally::default(),
            by_language: BTreeMap::new(),
            cases: Vec::new(),
            skipped: Vec::new(),
            spent: Spent::default(),
            expectations: Vec::new(),
            traps: Vec::new(),
            citations_off: Vec::new(),
        }
    }

    /// Scores one case's findings against what it expects.
    pub fn add(
        &mut self,
        name: &str,
        description: Option<String>,
        expected: Expected,
        run: CaseRun,
    ) {
        let findings = &run.findings;
        let window = run.window;
        let judged = run.judged.as_ref();
        // Whether expectation `i` is matched by finding `j`, and the
        // judge's reasoning when the judge matched it.
        let matching =
            |i: usize, e: &Expectation, j: usize, f: &Finding| -> Option<Option<String>> {
                if e.matches(f, window) {
                    return Some(None);
                }
                let reason = judged.and_then(|pairs| pairs.get(&(i, j)))?;
                e.judged_match(f).then(|| Some(reason.clone()))
            };
        let mut case = Tally::default();
        let mut count = |file: &str, step: &dyn Fn(&mut Tally)| {
            step(&mut case);
            step(&mut self.overall);
            step(self.by_language.entry(language(file)).or_default());
        };
        let mut missed = Vec::new();
        let mut finding_matches = vec![false; findings.len()];
        for (i, e) in expected.expectations.iter().enumerate() {
            let file = e.file.as_deref().unwrap_or_default();
            let needs_judge = e.needs_judge() && judged.is_none();
            let mut matched_by = Vec::new();
            let mut reasoning = None;
            for (j, f) in findings.iter().enumerate() {
                if let Some(why) = matching(i, e, j, f) {
                    finding_matches[j] = true;
                    matched_by.push(FindingRef::of(f));
                    reasoning = reasoning.or(why);
                }
            }
            let matched = !matched_by.is_empty();
            if needs_judge {
                count(file, &|t| t.needs_judge += 1);
            } else {
                count(file, &|t| {
                    t.expectations += 1;
                    t.matched += usize::from(matched);
                });
                if !matched {
                    missed.push(e);
                }
            }
            let result = ExpectationResult {
                expectation: e.clone(),
                matched,
                needs_judge,
                matched_by,
                judge_reasoning: reasoning,
            };
            self.expectations.push(InCase::new(name, file, result));
        }
        for trap in expected.traps {
            let hit_by: Vec<FindingRef> = findings
                .iter()
                .filter(|f| trap.hit_by(f))
                .map(FindingRef::of)
                .collect();
            let hit = !hit_by.is_empty();
            count(&trap.file, &|t| {
                t.traps += 1;
                t.traps_hit += usize::from(hit);
            });
            let file = trap.file.clone();
            self.traps
                .push(InCase::new(name, &file, TrapResult { trap, hit_by }));
        }
        for (f, &matching) in findings.iter().zip(&finding_matches) {
            let near: Vec<String> = missed
                .iter()
                .filter(|e| !matching && e.same_problem(f))
                .map(|e| e.citation())
                .collect();
            let off = !near.is_empty();
            count(&f.file, &|t| {
                t.findings += 1;
                t.findings_matching += usize::from(matching);
                t.citations_off += usize::from(off);
            });
            if off {
                let off = OffCitation {
                    finding: FindingRef::of(f),
                    expected: near,
                };
                self.citations_off.push(InCase::new(name, &f.file, off));
            }
        }
        case.shares();
        self.spent.add(&run.spent);
        self.cases.push(CaseScore {
            name: name.to_owned(),
            description,
            window,
            tally: case,
            spent: run.spent,
            judge_error: run.judge_error,
        });
    }

    /// A case not reviewed, and why.
    pub fn skip(&mut self, name: String, reason: String) {
        self.skipped.push(Skipped { name, reason });
    }

    /// Works out the shares once every case is in.
    pub fn finish(&mut self) {
        self.overall.shares();
        for t in self.by_language.values_mut() {
            t.shares();
        }
    }
}

/// The language of a file, by its name: the families the rules know.
pub fn language(path: &str) -> &'static str {
    let name = revu_domain::paths::file_name(path).to_ascii_lowercase();
    if name == "dockerfile"
        || name == "containerfile"
        || name.starts_with("dockerfile.")
        || name.ends_with(".dockerfile")
    {
        return "dockerfile";
    }
    let ext = name.rsplit_once('.').map_or("", |(_, ext)| ext);
    match ext {
        "py" | "pyi" => "python",
        "go" => "go",
        "java" => "java",
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => "javascript",
        "sh" | "bash" | "zsh" => "shell",
        "yml" | "yaml" => "yaml",
        "tf" | "tfvars" | "hcl" => "terraform",
        "rs" => "rust",
        "kt" | "kts" => "kotlin",
        "rb" | "rake" => "ruby",
        "cs" => "csharp",
        "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => "c",
        "php" => "php",
        "swift" => "swift",
        "scala" | "sc" => "scala",
        "sql" => "sql",
        _ => "other",
    }
}

#[cfg(test)]
mod tests;
