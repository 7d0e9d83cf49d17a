//! SARIF 2.1.0, for code-scanning tools (GitHub code scanning, the SARIF
//! viewers of editors, `sarif-tools`).
//!
//! One run. The driver lists a rule for every rule id among the findings,
//! described from the first finding that cites it (the report is all a
//! renderer reads). Each result's `level` is the severity the finding counts
//! with at the report's rigor; the severity it was raised with is in its
//! properties. `partialFingerprints` hash the rule, the file and the
//! normalised summary, never the line, so an alert survives code moving
//! around it and code scanning recognises it across runs.
//!
//! A lane that faulted or was cancelled makes the invocation unsuccessful;
//! every lane that did not complete is a tool execution notification, so a
//! partial review never reads as a clean one in a code-scanning UI.
mod model;

use super::{counted_severity, dimensions, message, rigor_name};
use model::{
    ArtifactLocation, BaseId, Configuration, DescriptorReference, Driver, Fingerprints, Invocation,
    Level, Location, Log, Notification, NotificationProperties, OriginalUriBaseIds,
    PhysicalLocation, Region, ResultProperties, Rule, RuleProperties, Run, RunProperties,
    SarifResult, Text, Tool,
};
use revu_domain::finding::{Dimension, Finding, Severity};
use revu_domain::report::{LaneOutcome, Report};
use std::collections::{BTreeMap, BTreeSet, HashMap};

const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const SRC_ROOT: &str = "%SRCROOT%";

/// Renders the report as a SARIF 2.1.0 log, pretty-printed, with a trailing
/// newline.
pub fn sarif(report: &Report) -> String {
    let rules = rules(&report.findings);
    let index: HashMap<&str, usize> = rules
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.as_str(), i))
        .collect();
    let fingerprints = fingerprints(&report.findings);
    let results = report
        .findings
        .iter()
        .zip(fingerprints)
        .map(|(f, fingerprint)| SarifResult {
            rule_id: f.rule.clone(),
            rule_index: index.get(f.rule.as_str()).copied().unwrap_or_default(),
            level: level(counted_severity(f, report.rigor.level)),
            message: Text { text: message(f) },
            locations: vec![location(f)],
            partial_fingerprints: Fingerprints {
                finding: fingerprint,
            },
            properties: ResultProperties {
                severity: f.severity.as_str(),
                confidence: f.confidence,
                dimensions: dimensions(f).iter().map(|d| d.as_str()).collect(),
                blast_radius: f.blast_radius.as_str().to_owned(),
                owners: f.owners.clone(),
            },
        })
        .collect();
    let log = Log {
        schema: SCHEMA_URI,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "revu",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: env!("CARGO_PKG_REPOSITORY"),
                    rules,
                },
            },
            invocations: vec![invocation(report)],
            original_uri_base_ids: OriginalUriBaseIds {
                src_root: BaseId {
                    description: Text {
                        text: "The root of the repository the reviewed diff applies to.".into(),
                    },
                },
            },
            results,
            properties: RunProperties {
                review_id: report.review_id.clone(),
                verdict: report.verdict.as_str(),
                gate: report.gate.as_str(),
                gate_reasons: report.gate_reasons.clone(),
                rigor: rigor_name(report.rigor.level),
            },
        }],
    };
    super::to_pretty_json(&log)
}

fn level(severity: Severity) -> Level {
    match severity {
        Severity::Blocker => Level::Error,
        Severity::Important => Level::Warning,
        Severity::Suggestion => Level::Note,
    }
}

/// One rule per rule id, sorted by id, described by the first finding (in
/// report order) that cites it.
fn rules(findings: &[Finding]) -> Vec<Rule> {
    let mut by_id: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for f in findings {
        by_id.entry(f.rule.as_str()).or_default().push(f);
    }
    by_id
        .into_iter()
        .filter_map(|(id, group)| {
            let first = group.first()?;
            let severity = group.iter().map(|f| f.severity).max()?;
            let tags: BTreeSet<Dimension> = group.iter().flat_map(|f| dimensions(f)).collect();
            let security = tags.contains(&Dimension::Security);
            Some(Rule {
                id: id.to_owned(),
                short_description: Text {
                    text: one_line(&first.shown_summary()),
                },
                full_description: (!first.why.trim().is_empty()).then(|| Text {
                    text: first.why.clone(),
                }),
                help: Text { text: help(first) },
                default_configuration: Configuration {
                    level: level(severity),
                },
                properties: RuleProperties {
                    tags: tags.iter().map(|d| d.as_str()).collect(),
                    security_severity: security.then(|| security_severity(severity)),
                },
            })
        })
        .collect()
}

fn help(f: &Finding) -> String {
    [f.fix.as_str(), f.why.as_str(), &f.shown_summary()]
        .into_iter()
        .find(|t| !t.trim().is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| f.rule.clone())
}

/// GitHub's bands: critical above 9.0, high from 7.0, medium from 4.0.
fn security_severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Blocker => "9.5",
        Severity::Important => "7.5",
        Severity::Suggestion => "4.0",
    }
}

fn location(f: &Finding) -> Location {
    // Line 0 cites the file as a whole; SARIF says so by leaving out the region.
    let region = (f.line > 0).then(|| Region {
        start_line: f.line,
        end_line: f.end_line.unwrap_or(f.line).max(f.line),
    });
    Location {
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation {
                uri: uri_path(&f.file),
                uri_base_id: SRC_ROOT,
            },
            region,
        },
    }
}

/// A repository-relative path as a URI reference: every byte but the
/// unreserved characters and `/` percent-encoded, so that spaces, `#`, `?`,
/// `%` or a `:` in the first segment cannot change what the URI means.
fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn invocation(report: &Report) -> Invocation {
    let mut successful = true;
    let notifications = report
        .lanes
        .iter()
        .filter(|l| l.outcome != LaneOutcome::Complete)
        .map(|l| {
            let (level, id, what) = match l.outcome {
                LaneOutcome::PipelineFault => (Level::Error, "lane-pipeline-fault", "faulted"),
                LaneOutcome::Cancelled => (Level::Error, "lane-cancelled", "was cancelled"),
                LaneOutcome::Incomplete | LaneOutcome::Complete => {
                    (Level::Warning, "lane-incomplete", "is incomplete")
                }
            };
            // An incomplete lane still reported; a faulted or cancelled one
            // never did, so the run is missing whatever it would have found.
            successful &= level != Level::Error;
            let text = match &l.banner {
                Some(banner) => format!("lane {} {what}: {}", l.id, one_line(banner)),
                None => format!("lane {} {what}", l.id),
            };
            Notification {
                level,
                message: Text { text },
                descriptor: DescriptorReference { id },
                properties: NotificationProperties {
                    lane: l.id.clone(),
                    outcome: super::outcome_name(l.outcome),
                },
            }
        })
        .collect();
    Invocation {
        execution_successful: successful,
        tool_execution_notifications: notifications,
    }
}

/// `<hash>:<n>`: a hash of rule, file and normalised summary, and which
/// occurrence of that hash (in line order) the finding is, so that two
/// identical findings in one file stay two alerts.
fn fingerprints(findings: &[Finding]) -> Vec<String> {
    let hashes: Vec<u64> = findings.iter().map(finding_hash).collect();
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by_key(|&i| (hashes[i], findings[i].line, findings[i].end_line, i));
    let mut occurrence = vec![0usize; findings.len()];
    let mut seen: HashMap<u64, usize> = HashMap::new();
    for i in order {
        let n = seen.entry(hashes[i]).or_default();
        *n += 1;
        occurrence[i] = *n;
    }
    hashes
        .iter()
        .zip(occurrence)
        .map(|(h, n)| format!("{h:016x}:{n}"))
        .collect()
}

fn finding_hash(f: &Finding) -> u64 {
    let key = format!("{}\0{}\0{}", f.rule, f.file, normalize(&f.shown_summary()));
    fnv1a(key.as_bytes())
}

/// Lower case, single spaces, every run of digits as `#`: counts and line
/// numbers quoted in a summary move with the code, and that is not a new
/// finding.
fn normalize(summary: &str) -> String {
    let mut out = String::with_capacity(summary.len());
    let mut in_digits = false;
    for word in summary.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        for c in word.chars() {
            if c.is_ascii_digit() {
                if !in_digits {
                    out.push('#');
                }
                in_digits = true;
            } else {
                out.extend(c.to_lowercase());
                in_digits = false;
            }
        }
        in_digits = false;
    }
    out
}

/// 64-bit FNV-1a: tiny, and unlike `DefaultHasher` its output is fixed
/// forever, which fingerprints stored by code-scanning services rely on.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
