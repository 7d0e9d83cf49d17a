//! The completeness gate: a lane report must carry every mandatory section
//! and only findings that match the schema; an adjudication lane's report
//! must also decide every candidate exactly once; a grouping lane's must
//! carry its slices, and a synthesis lane's its walkthrough, and neither
//! may raise a finding.

use revu_domain::adjudication::{Action, Decision};
use revu_domain::finding::Finding;
use revu_domain::lane::{FileNote, LaneKind, LaneReportBody, LaneSpec, Slice};
use revu_domain::review::ReviewPlan;
use serde_json::Value;

/// The sections every lane report carries, even when clean.
pub const MANDATORY_SECTIONS: [&str; 4] = ["reviewed", "checks", "findings", "summary"];

/// The section an adjudication lane's report adds.
pub const DECISIONS: &str = "decisions";
/// The section a grouping lane's report adds.
pub const SLICES: &str = "slices";
/// The sections a synthesis lane's report adds.
pub const WALKTHROUGH: [&str; 2] = ["walkthrough", "file_notes"];

/// An optional section by which an engine says it could not finish the
/// lane (its answer was cut at a token limit, a budget ran out): the
/// report then never passes as complete.
pub const INCOMPLETE: &str = "incomplete";

/// What a lane's report must hold besides the mandatory sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// A review lane: the mandatory sections and nothing else.
    Review,
    /// The adjudication lane: also `decisions`, one per candidate.
    Decisions { candidates: usize },
    /// The grouping lane: also `slices`, and no findings.
    Slices,
    /// The synthesis lane: also `walkthrough` and `file_notes`, and no
    /// findings.
    Walkthrough,
}

impl Expected {
    /// What `spec`'s reports must hold in the review planned by `plan`.
    pub fn of(plan: &ReviewPlan, spec: &LaneSpec) -> Expected {
        match spec.kind {
            LaneKind::Adjudication => Expected::Decisions {
                candidates: plan.adjudication.as_ref().map_or(0, |a| a.candidates.len()),
            },
            // Its one candidate, by index 0.
            LaneKind::Challenge => Expected::Decisions { candidates: 1 },
            LaneKind::Grouping => Expected::Slices,
            LaneKind::Synthesis => Expected::Walkthrough,
            LaneKind::Domain { .. } | LaneKind::Specialist { .. } => Expected::Review,
        }
    }

    /// The sections this kind of report has besides the mandatory ones.
    fn extra(self) -> &'static [&'static str] {
        match self {
            Expected::Review => &[],
            Expected::Decisions { .. } => &[DECISIONS],
            Expected::Slices => &[SLICES],
            Expected::Walkthrough => &WALKTHROUGH,
        }
    }
}

/// Validates a raw report body; on failure lists everything wrong with it.
pub fn check(body: &Value, expected: Expected) -> Result<LaneReportBody, Vec<String>> {
    let Some(obj) = body.as_object() else {
        return Err(vec![format!(
            "report body is {}, not an object",
            kind(body)
        )]);
    };
    let mut problems = Vec::new();
    // Why the engine gave up comes first: it explains what is missing.
    if let Some(why) = obj.get(INCOMPLETE) {
        let why = why.as_str().map_or_else(|| why.to_string(), str::to_owned);
        problems.push(format!("the engine could not finish the lane: {why}"));
    }
    let extra = expected.extra();
    for section in MANDATORY_SECTIONS.iter().chain(extra) {
        if !obj.contains_key(*section) {
            problems.push(format!("missing section `{section}`"));
        }
    }
    for key in obj.keys() {
        if !MANDATORY_SECTIONS.contains(&key.as_str())
            && !extra.contains(&key.as_str())
            && key != INCOMPLETE
        {
            problems.push(format!("unknown section `{key}`"));
        }
    }
    let strings = |name: &str, problems: &mut Vec<String>| -> Vec<String> {
        match obj.get(name) {
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .filter_map(|(i, v)| match v.as_str() {
                    Some(s) => Some(s.to_owned()),
                    None => {
                        problems.push(format!("`{name}[{i}]` is {}, not a string", kind(v)));
                        None
                    }
                })
                .collect(),
            Some(other) => {
                problems.push(format!("`{name}` is {}, not a list", kind(other)));
                Vec::new()
            }
            None => Vec::new(),
        }
    };
    let reviewed = strings("reviewed", &mut problems);
    let checks = strings("checks", &mut problems);
    let mut findings = Vec::new();
    match obj.get("findings") {
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                match serde_json::from_value::<Finding>(item.clone()) {
                    Ok(f) if f.confidence > 100 => problems.push(format!(
                        "`findings[{i}]`: confidence {} is over 100",
                        f.confidence
                    )),
                    Ok(f) => findings.push(f),
                    Err(e) => problems.push(format!("`findings[{i}]`: {e}")),
                }
            }
        }
        Some(other) => problems.push(format!("`findings` is {}, not a list", kind(other))),
        None => {}
    }
    if matches!(expected, Expected::Slices | Expected::Walkthrough) && !findings.is_empty() {
        problems.push(format!(
            "`findings` must be empty: this lane reviews nothing ({} raised)",
            findings.len()
        ));
    }
    let summary = match obj.get("summary") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) => {
            problems.push("`summary` is empty".to_owned());
            String::new()
        }
        Some(other) => {
            problems.push(format!("`summary` is {}, not a string", kind(other)));
            String::new()
        }
        None => String::new(),
    };
    let decisions = match (expected, obj.get(DECISIONS)) {
        (Expected::Decisions { candidates }, Some(section)) => {
            decisions(section, candidates, &mut problems)
        }
        _ => Vec::new(),
    };
    let slices = match (expected, obj.get(SLICES)) {
        (Expected::Slices, Some(section)) => listed::<Slice>(section, SLICES, &mut problems),
        _ => Vec::new(),
    };
    let (walkthrough, file_notes) = match expected {
        Expected::Walkthrough => (
            match obj.get(WALKTHROUGH[0]) {
                Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                Some(Value::String(_)) => {
                    problems.push("`walkthrough` is empty".to_owned());
                    String::new()
                }
                Some(other) => {
                    problems.push(format!("`walkthrough` is {}, not a string", kind(other)));
                    String::new()
                }
                None => String::new(),
            },
            obj.get(WALKTHROUGH[1])
                .map(|section| listed::<FileNote>(section, WALKTHROUGH[1], &mut problems))
                .unwrap_or_default(),
        ),
        _ => (String::new(), Vec::new()),
    };
    if problems.is_empty() {
        Ok(LaneReportBody {
            reviewed,
            checks,
            findings,
            summary,
            decisions,
            slices,
            walkthrough,
            file_notes,
        })
    } else {
        Err(problems)
    }
}

/// Attributes each finding of `body` that names no rule (the review
/// contract's own finding schema has none) to `engine:{engine}`.
pub fn attribute(body: &mut LaneReportBody, engine: &str) {
    for f in body
        .findings
        .iter_mut()
        .filter(|f| f.rule.trim().is_empty())
    {
        f.rule = format!("engine:{engine}");
    }
}

/// Reads `section` as a list of `T`, naming each item that is not one.
fn listed<T: serde::de::DeserializeOwned>(
    section: &Value,
    name: &str,
    problems: &mut Vec<String>,
) -> Vec<T> {
    let Some(items) = section.as_array() else {
        problems.push(format!("`{name}` is {}, not a list", kind(section)));
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(
            |(i, item)| match serde_json::from_value::<T>(item.clone()) {
                Ok(v) => Some(v),
                Err(e) => {
                    problems.push(format!("`{name}[{i}]`: {e}"));
                    None
                }
            },
        )
        .collect()
}

/// Checks an adjudication report's `decisions`: a list deciding each of
/// `candidates` exactly once, with a known action and, for a downgrade or a
/// drop, a reason.
fn decisions(section: &Value, candidates: usize, problems: &mut Vec<String>) -> Vec<Decision> {
    let Some(items) = section.as_array() else {
        problems.push(format!("`{DECISIONS}` is {}, not a list", kind(section)));
        return Vec::new();
    };
    let mut decided = vec![false; candidates];
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("`{DECISIONS}[{i}]`");
        if let Some(action) = item.get("action").and_then(Value::as_str)
            && !Action::ALL.iter().any(|a| a.as_str() == action)
        {
            problems.push(format!(
                "{at}: action {action:?} is not confirm, downgrade or drop"
            ));
            continue;
        }
        let d = match serde_json::from_value::<Decision>(item.clone()) {
            Ok(d) => d,
            Err(e) => {
                problems.push(format!("{at}: {e}"));
                continue;
            }
        };
        match decided.get_mut(d.index) {
            None => problems.push(format!(
                "{at}: index {} is out of range ({candidates} candidate(s))",
                d.index
            )),
            Some(true) => problems.push(format!("{at}: candidate {} decided twice", d.index)),
            Some(seen) => *seen = true,
        }
        if d.action.needs_reason() && d.reason.trim().is_empty() {
            problems.push(format!("{at}: a {} needs a reason", d.action.as_str()));
        }
        out.push(d);
    }
    let missing: Vec<String> = decided
        .iter()
        .enumerate()
        .filter(|(_, seen)| !**seen)
        .map(|(i, _)| i.to_string())
        .collect();
    if !missing.is_empty() {
        problems.push(format!(
            "no decision for candidate(s) {}",
            missing.join(", ")
        ));
    }
    out
}

/// Salvages what it can from a report that failed the gate twice, so the
/// report keeps it (banner-flagged) rather than losing it.
pub fn salvage(body: &Value) -> LaneReportBody {
    let list = |name: &str| -> Vec<String> {
        body.get(name)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    LaneReportBody {
        reviewed: list("reviewed"),
        checks: list("checks"),
        findings: body
            .get("findings")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| serde_json::from_value::<Finding>(v.clone()).ok())
                    .filter(|f| f.confidence <= 100)
                    .collect()
            })
            .unwrap_or_default(),
        summary: body
            .get("summary")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        // A twice-rejected adjudication, grouping or synthesis report is
        // never applied.
        ..LaneReportBody::default()
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    const REVIEW: Expected = Expected::Review;

    #[test]
    fn findings_without_a_rule_are_the_engines() {
        let body = json!({"reviewed": ["a.rs"], "checks": [], "summary": "one",
            "findings": [{"severity": "IMPORTANT", "file": "a.rs", "line": 1,
                "dimension": "correctness", "summary": "s", "why": "w", "fix": "f",
                "confidence": 80, "blast_radius": "1 direct caller"}]});
        let mut checked = check(&body, REVIEW).unwrap();
        attribute(&mut checked, "lint-bot");
        assert_eq!(checked.findings[0].rule, "engine:lint-bot");
    }

    #[test]
    fn clean_report_with_every_section_passes() {
        let body = json!({"reviewed": ["a.rs"], "checks": ["RV-COR-001"], "findings": [], "summary": "clean"});
        assert_eq!(check(&body, REVIEW).unwrap().reviewed, ["a.rs"]);
    }

    #[test]
    fn missing_sections_and_bad_findings_are_all_listed() {
        let body = json!({"reviewed": [], "findings": [{"rule": "X"}], "extra": 1});
        let problems = check(&body, REVIEW).unwrap_err();
        assert!(problems.contains(&"missing section `checks`".to_owned()));
        assert!(problems.contains(&"missing section `summary`".to_owned()));
        assert!(problems.contains(&"unknown section `extra`".to_owned()));
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("`findings[0]`: missing field"))
        );
    }

    #[test]
    fn a_report_its_engine_could_not_finish_never_passes() {
        let body = json!({"reviewed": ["a.rs"], "checks": [], "findings": [], "summary": "partial",
                          "incomplete": "cut at the output token limit"});
        assert_eq!(
            check(&body, REVIEW).unwrap_err(),
            ["the engine could not finish the lane: cut at the output token limit"]
        );
    }

    #[test]
    fn non_object_is_rejected() {
        assert_eq!(check(&json!([1]), REVIEW).unwrap_err().len(), 1);
    }

    fn adjudication(decisions: Value) -> Value {
        json!({"reviewed": ["a.rs"], "checks": ["RV-COR-001"], "findings": [],
               "summary": "re-tried", "decisions": decisions})
    }

    const TWO: Expected = Expected::Decisions { candidates: 2 };

    #[test]
    fn adjudication_report_deciding_every_candidate_once_passes() {
        let body = adjudication(json!([
            {"index": 1, "action": "drop", "reason": "rule no longer fires at a.rs:3"},
            {"index": 0, "action": "confirm"},
        ]));
        let checked = check(&body, TWO).unwrap();
        assert_eq!(checked.decisions.len(), 2);
        assert_eq!(checked.decisions[0].action, Action::Drop);
    }

    #[test]
    fn adjudication_problems_are_all_listed() {
        let body = adjudication(json!([
            {"index": 0, "action": "raise", "reason": "x"},
            {"index": 0, "action": "downgrade", "reason": " "},
            {"index": 0, "action": "confirm"},
            {"index": 7, "action": "confirm"},
            {"action": "drop", "reason": "x"},
        ]));
        let problems = check(&body, TWO).unwrap_err();
        let expected = [
            "`decisions[0]`: action \"raise\" is not confirm, downgrade or drop",
            "`decisions[1]`: a downgrade needs a reason",
            "`decisions[2]`: candidate 0 decided twice",
            "`decisions[3]`: index 7 is out of range (2 candidate(s))",
            "no decision for candidate(s) 1",
        ];
        for p in expected {
            assert!(problems.contains(&p.to_owned()), "{p} not in {problems:#?}");
        }
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("`decisions[4]`: missing field `index`")),
            "{problems:#?}"
        );
    }

    #[test]
    fn decisions_belong_to_adjudication_lanes_only() {
        let body = adjudication(json!([]));
        assert_eq!(
            check(&body, REVIEW).unwrap_err(),
            ["unknown section `decisions`"]
        );
        let mut no_decisions = body.clone();
        no_decisions.as_object_mut().unwrap().remove("decisions");
        assert_eq!(
            check(&no_decisions, TWO).unwrap_err(),
            ["missing section `decisions`"]
        );
        assert_eq!(
            check(&body, Expected::Decisions { candidates: 0 })
                .unwrap()
                .decisions,
            []
        );
    }
}
