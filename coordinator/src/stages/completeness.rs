//! The completeness gate: a lane report must carry every mandatory section
//! and only findings that match the schema.

use revu_common::finding::Finding;
use revu_common::lane::LaneReportBody;
use serde_json::Value;

/// The sections every lane report carries, even when clean.
pub const MANDATORY_SECTIONS: [&str; 4] = ["reviewed", "checks", "findings", "summary"];

/// Validates a raw report body; on failure lists everything wrong with it.
pub fn check(body: &Value) -> Result<LaneReportBody, Vec<String>> {
    let Some(obj) = body.as_object() else {
        return Err(vec![format!(
            "report body is {}, not an object",
            kind(body)
        )]);
    };
    let mut problems = Vec::new();
    for section in MANDATORY_SECTIONS {
        if !obj.contains_key(section) {
            problems.push(format!("missing section `{section}`"));
        }
    }
    for key in obj.keys() {
        if !MANDATORY_SECTIONS.contains(&key.as_str()) {
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
    if problems.is_empty() {
        Ok(LaneReportBody {
            reviewed,
            checks,
            findings,
            summary,
        })
    } else {
        Err(problems)
    }
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

    #[test]
    fn clean_report_with_every_section_passes() {
        let body = json!({"reviewed": ["a.rs"], "checks": ["RV-COR-001"], "findings": [], "summary": "clean"});
        assert_eq!(check(&body).unwrap().reviewed, ["a.rs"]);
    }

    #[test]
    fn missing_sections_and_bad_findings_are_all_listed() {
        let body = json!({"reviewed": [], "findings": [{"rule": "X"}], "extra": 1});
        let problems = check(&body).unwrap_err();
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
    fn non_object_is_rejected() {
        assert_eq!(check(&json!([1])).unwrap_err().len(), 1);
    }
}
