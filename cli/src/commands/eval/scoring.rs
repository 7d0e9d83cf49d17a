//! Scoring a review against what a corpus case expects of it.
//!
//! - A finding **matches** an expectation when it cites the same file, a
//!   line in the expectation's range, and meets its optional severity
//!   (the least that counts), rule (exact, or every rule of a tool for a
//!   value ending in `:`) and class (every word in the finding's summary
//!   or why, case-insensitive).
//! - **Recall**: expectations matched over expectations. **Precision**:
//!   findings that match an expectation of their case over findings.
//! - A trap is **hit** when a finding (of its rule, when it names one)
//!   cites one of its lines.
//! - A finding is a **citation off** when it matches no expectation but
//!   meets the file, rule and class of one that no finding matched and
//!   that names a rule or a class: the problem found, its line cited
//!   wrong. Counted once per finding.
//!
//! Everything is counted overall, per language (of the file cited) and
//! per case. A share with nothing to divide by is `None`.

use super::backtest::{EVAL_VERSION, round};
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
    pub fn contains(self, line: u32) -> bool {
        (self.first..=self.last).contains(&line)
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
    pub file: String,
    #[serde(flatten)]
    pub lines: Lines,
    pub severity: Option<Severity>,
    pub rule: Option<String>,
    pub class: Option<String>,
    /// The label of a marked defect (`revu-eval: defect ID`).
    pub id: Option<String>,
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
    /// The file, rule and class it asks for, wherever in the file.
    fn same_file_rule_class(&self, f: &Finding) -> bool {
        f.file == self.file
            && rule_matches(self.rule.as_deref(), &f.rule)
            && class_matches(self.class.as_deref(), f)
    }

    /// The same problem, cited anywhere in the file. Only an expectation
    /// that names a rule or a class names a problem to recognise
    /// elsewhere.
    fn same_problem(&self, f: &Finding) -> bool {
        (self.rule.is_some() || self.class.is_some()) && self.same_file_rule_class(f)
    }

    pub fn matches(&self, f: &Finding) -> bool {
        self.same_file_rule_class(f)
            && self.lines.contains(f.line)
            && self.severity.is_none_or(|least| f.severity >= least)
    }
}

impl Trap {
    pub fn hit_by(&self, f: &Finding) -> bool {
        f.file == self.file
            && self.lines.contains(f.line)
            && rule_matches(self.rule.as_deref(), &f.rule)
    }
}

/// The counts of one slice of the corpus.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Tally {
    pub expectations: usize,
    pub matched: usize,
    pub recall: Option<f64>,
    pub findings: usize,
    pub findings_matching: usize,
    pub precision: Option<f64>,
    pub traps: usize,
    pub traps_hit: usize,
    pub citations_off: usize,
}

impl Tally {
    fn shares(&mut self) {
        let share = |n: usize, of: usize| (of > 0).then(|| round(n as f64 / of as f64));
        self.recall = share(self.matched, self.expectations);
        self.precision = share(self.findings_matching, self.findings);
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
    #[serde(flatten)]
    pub tally: Tally,
}

/// The whole corpus scored: what `--format json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Scored {
    pub eval_version: &'static str,
    pub mode: &'static str,
    pub corpus: String,
    pub overall: Tally,
    pub by_language: BTreeMap<&'static str, Tally>,
    pub cases: Vec<CaseScore>,
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
            overall: Tally::default(),
            by_language: BTreeMap::new(),
            cases: Vec::new(),
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
        findings: &[Finding],
    ) {
        let mut case = Tally::default();
        let mut count = |file: &str, step: &dyn Fn(&mut Tally)| {
            step(&mut case);
            step(&mut self.overall);
            step(self.by_language.entry(language(file)).or_default());
        };
        let mut missed = Vec::new();
        for e in &expected.expectations {
            let matched = findings.iter().any(|f| e.matches(f));
            count(&e.file, &|t| {
                t.expectations += 1;
                t.matched += usize::from(matched);
            });
            if !matched {
                missed.push(e);
            }
            let result = ExpectationResult {
                expectation: e.clone(),
                matched,
            };
            self.expectations.push(InCase::new(name, &e.file, result));
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
        for f in findings {
            let matching = expected.expectations.iter().any(|e| e.matches(f));
            let near: Vec<String> = missed
                .iter()
                .filter(|e| !matching && e.same_problem(f))
                .map(|e| e.lines.citation(&e.file))
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
        self.cases.push(CaseScore {
            name: name.to_owned(),
            description,
            tally: case,
        });
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
