//! What a model answers: the lane report as a bounded JSON Schema (so a
//! small model cannot loop until its token limit), a tolerant reader for
//! servers that ignore the schema (code fences, prose around the JSON),
//! and the conversion to a lane report.

use revu_domain::adjudication::{Action, Decision};
use revu_domain::finding::{BlastRadius, Dimension, Finding, PRE_EXISTING_MARK, Severity};
use revu_domain::lane::LaneReportBody;
use serde::Deserialize;
use serde_json::{Value, json};

/// Most findings one lane answer may carry.
pub const MAX_FINDINGS: usize = 20;

/// Output tokens a finding takes at most, roughly, at the string bounds
/// [`schema`] sets for a given budget.
const TOKENS_PER_FINDING: u32 = 250;

/// The JSON Schema of a lane answer, as `response_format` and tool input,
/// bounded so that a full answer fits in `max_output_tokens`: a model made
/// to fill every list would otherwise be cut at the limit every time. An
/// adjudication answer adds one decision for each candidate index in
/// `adjudication` (those this request decides) and no finding.
pub fn schema(adjudication: Option<&[usize]>, max_output_tokens: u32) -> Value {
    // About 4 characters a token; a quarter of the budget for the rest.
    let findings = (max_output_tokens.saturating_mul(3) / 4 / TOKENS_PER_FINDING)
        .clamp(1, MAX_FINDINGS as u32) as usize;
    let long = if max_output_tokens >= 2048 { 1000 } else { 300 };
    let text = |max: usize| json!({"type": "string", "maxLength": max});
    let list =
        |items: usize, max: usize| json!({"type": "array", "maxItems": items, "items": text(max)});
    let mut schema = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["reviewed", "checks", "findings", "summary"],
        "properties": {
            "reviewed": list(200, 300),
            "checks": list(20, 120),
            "findings": {
                "type": "array",
                "maxItems": findings,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["severity", "file", "line", "summary", "why", "fix", "confidence", "dimension"],
                    "properties": {
                        "severity": {"enum": ["BLOCKER", "IMPORTANT", "SUGGESTION"]},
                        "file": text(300),
                        "line": {"type": "integer", "minimum": 1},
                        "summary": text(300),
                        "why": text(long),
                        "fix": text(long),
                        "confidence": {"type": "integer", "minimum": 0, "maximum": 100},
                        "dimension": {"enum": Dimension::ALL.map(Dimension::as_str)},
                        "pre_existing": {"type": "boolean"},
                        "pre_existing_reason": text(300),
                    }
                }
            },
            "summary": text(long),
        }
    });
    if let Some(decides) = adjudication {
        schema["required"] = json!(["reviewed", "checks", "findings", "summary", "decisions"]);
        schema["properties"]["findings"]["maxItems"] = json!(0);
        schema["properties"]["decisions"] = json!({
            "type": "array",
            "minItems": decides.len(),
            "maxItems": decides.len(),
            "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["index", "action", "reason", "evidence"],
                "properties": {
                    "index": {"enum": decides},
                    "action": {"enum": Action::ALL.map(Action::as_str)},
                    "reason": text(500),
                    "evidence": text(300),
                }
            }
        });
    }
    schema
}

/// A finding as the model writes it; the engine adds the rest.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFinding {
    severity: Severity,
    file: String,
    line: u32,
    /// The review contract's finding schema also has these; a model may
    /// write them even when the schema it was given leaves them out.
    #[serde(default)]
    end_line: Option<u32>,
    #[serde(default)]
    blast_radius: Option<String>,
    /// The engine attributes every finding to itself whatever this says.
    #[serde(default, rename = "rule")]
    _rule: Option<String>,
    summary: String,
    why: String,
    fix: String,
    confidence: u8,
    dimension: Dimension,
    /// The model says the change did not introduce the problem, and why.
    #[serde(default)]
    pre_existing: bool,
    #[serde(default)]
    pre_existing_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelReport {
    reviewed: Vec<String>,
    checks: Vec<String>,
    findings: Vec<ModelFinding>,
    summary: String,
    /// Adjudication answers only; the completeness gate checks them.
    #[serde(default)]
    decisions: Vec<Decision>,
}

/// The JSON object in a model's text: the whole text, else inside a code
/// fence, else the first balanced `{…}` in it.
pub fn read_json(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if let Ok(v @ Value::Object(_)) = serde_json::from_str(trimmed) {
        return Some(v);
    }
    if let Some(fenced) = fenced(trimmed)
        && let Ok(v @ Value::Object(_)) = serde_json::from_str(fenced.trim())
    {
        return Some(v);
    }
    balanced_object(trimmed).and_then(|s| serde_json::from_str(s).ok())
}

/// The body of the first ``` fence in `text`.
fn fenced(text: &str) -> Option<&str> {
    let start = text.find("```")?;
    let after = &text[start + 3..];
    // Skip the info string (`json`).
    let body = &after[after.find('\n')? + 1..];
    Some(&body[..body.find("```")?])
}

/// The first `{…}` of `text` whose braces balance, strings respected.
fn balanced_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, c) in text[start..].char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '{' if !in_string => depth += 1,
            '}' if !in_string => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(&text[start..=start + i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// The lane report in `answer`, each finding under `rule` (see
/// [`revu_domain::finding::model_rule`]); `Err` gives back what to hand the completeness gate
/// instead, which lists what is wrong with it and sends the lane back once.
/// A finding the model marks pre-existing carries the mark in its summary
/// and the model's reason in `why`; verification reads the mark.
pub fn to_report(answer: Value, rule: &str) -> Result<LaneReportBody, Value> {
    let Ok(report) = serde_json::from_value::<ModelReport>(answer.clone()) else {
        return Err(answer);
    };
    let findings = report
        .findings
        .into_iter()
        .map(|f| Finding {
            rule: rule.to_owned(),
            severity: f.severity,
            file: f.file,
            line: f.line,
            end_line: f.end_line.filter(|e| *e > f.line),
            dimension: f.dimension,
            dimensions: Vec::new(),
            summary: match f.pre_existing {
                true if !f.summary.starts_with(PRE_EXISTING_MARK) => {
                    format!("{PRE_EXISTING_MARK}{}", f.summary)
                }
                _ => f.summary,
            },
            why: match f.pre_existing_reason.as_deref().map(str::trim) {
                Some(reason) if f.pre_existing && !reason.is_empty() => {
                    format!("{} Pre-existing: {reason}", f.why.trim_end())
                }
                _ => f.why,
            },
            fix: f.fix,
            confidence: f.confidence.min(100),
            blast_radius: f
                .blast_radius
                .as_deref()
                .map_or(BlastRadius::Local, BlastRadius::parse),
            pre_existing: false,
            pre_existing_line: false,
            downgraded_from: None,
            meta: false,
            owners: Vec::new(),
        })
        .collect();
    Ok(LaneReportBody {
        reviewed: report.reviewed,
        checks: report.checks,
        findings,
        summary: report.summary,
        decisions: report.decisions,
        ..LaneReportBody::default()
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use revu_domain::finding::model_rule;

    const REPORT: &str = r#"{"reviewed":["app.py"],"checks":["input handling"],"findings":[{"severity":"BLOCKER","file":"app.py","line":2,"summary":"eval of input","why":"runs any code","fix":"parse it","confidence":95,"dimension":"security"}],"summary":"one blocker"}"#;

    #[test]
    fn json_is_found_bare_fenced_or_inside_prose() {
        let bare = read_json(REPORT).unwrap();
        let fenced = read_json(&format!("Here you go:\n```json\n{REPORT}\n```\nDone.")).unwrap();
        let prose = read_json(&format!("Sure! {REPORT} Hope that helps {{not json}}")).unwrap();
        assert_eq!(bare, fenced);
        assert_eq!(bare, prose);
        assert_eq!(read_json("I think the change looks fine."), None);
        assert_eq!(
            read_json(r#"{"a": "} in a string", "b": 1} tail"#).unwrap()["b"],
            1
        );
    }

    #[test]
    fn a_valid_answer_becomes_a_report_with_the_lane_as_rule() {
        let body = to_report(
            read_json(REPORT).unwrap(),
            &model_rule("specialist:security"),
        )
        .unwrap();
        assert_eq!(body.findings.len(), 1);
        assert_eq!(body.findings[0].rule, "llm:security");
        assert_eq!(model_rule("domain:api"), "llm:domain:api");
        assert_eq!(body.findings[0].severity, Severity::Blocker);
        assert_eq!(body.findings[0].line, 2);
    }

    #[test]
    fn a_finding_the_model_marks_pre_existing_carries_the_mark_and_its_reason() {
        let answer = json!({"reviewed": ["app.py"], "checks": [], "summary": "",
            "findings": [{"severity": "BLOCKER", "file": "app.py", "line": 2,
                "summary": "webhook signature never checked", "why": "anyone can post",
                "fix": "verify it", "confidence": 90, "dimension": "security",
                "pre_existing": true, "pre_existing_reason": "the handler moved unchanged"}]});
        let f = &to_report(answer, "llm:security").unwrap().findings[0];
        assert_eq!(f.summary, "[pre-existing] webhook signature never checked");
        assert_eq!(
            f.why,
            "anyone can post Pre-existing: the handler moved unchanged"
        );
    }

    #[test]
    fn an_answer_off_the_schema_goes_to_the_gate_as_it_is() {
        let off = json!({"reviewed": [], "findings": "none"});
        assert_eq!(to_report(off.clone(), "llm"), Err(off));
    }

    #[test]
    fn the_schema_bounds_every_list_and_string() {
        let s = schema(None, 8192);
        assert_eq!(s["properties"]["findings"]["maxItems"], MAX_FINDINGS);
        assert_eq!(s["properties"]["summary"]["maxLength"], 1000);
        // A small budget gets a schema a full answer fits in.
        let small = schema(None, 256);
        assert_eq!(small["properties"]["findings"]["maxItems"], 1);
        assert_eq!(small["properties"]["summary"]["maxLength"], 300);
        assert_eq!(schema(None, 2048)["properties"]["findings"]["maxItems"], 6);
        let dims = &s["properties"]["findings"]["items"]["properties"]["dimension"]["enum"];
        assert_eq!(dims.as_array().map(Vec::len), Some(6));
        let a = schema(Some(&[0, 2, 5]), 2048);
        assert_eq!(a["properties"]["decisions"]["minItems"], 3);
        let decision = &a["properties"]["decisions"]["items"]["properties"];
        assert_eq!(decision["index"]["enum"], json!([0, 2, 5]));
        assert_eq!(decision["evidence"]["maxLength"], 300);
        assert_eq!(a["properties"]["findings"]["maxItems"], 0);
    }

    #[test]
    fn an_adjudication_answer_keeps_its_decisions() {
        let answer = json!({"reviewed": ["app.py"], "checks": ["adjudication"], "findings": [],
            "summary": "one real", "decisions": [{"index": 0, "action": "drop", "reason": "handled"}]});
        let body = to_report(answer, "llm").unwrap();
        assert_eq!(body.decisions.len(), 1);
        assert_eq!(body.decisions[0].action, Action::Drop);
    }
}
