//! The subset of the SARIF 2.1.0 object model revu writes.
//!
//! Typed structs rather than `serde_json::Value`, so that the key order of
//! the output is the declaration order below whatever features `serde_json`
//! is built with: byte-identical output must not hinge on feature
//! unification elsewhere in the tree.
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct Log {
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    pub version: &'static str,
    pub runs: Vec<Run>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub tool: Tool,
    pub invocations: Vec<Invocation>,
    pub original_uri_base_ids: OriginalUriBaseIds,
    pub results: Vec<SarifResult>,
    pub properties: RunProperties,
}

#[derive(Debug, Serialize)]
pub struct Tool {
    pub driver: Driver,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Driver {
    pub name: &'static str,
    pub version: &'static str,
    pub semantic_version: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub information_uri: &'static str,
    pub rules: Vec<Rule>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    pub id: String,
    pub short_description: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_description: Option<Text>,
    pub help: Text,
    pub default_configuration: Configuration,
    pub properties: RuleProperties,
}

#[derive(Debug, Serialize)]
pub struct Configuration {
    pub level: Level,
}

#[derive(Debug, Serialize)]
pub struct RuleProperties {
    pub tags: Vec<&'static str>,
    /// Read by GitHub code scanning for rules tagged `security`.
    #[serde(rename = "security-severity", skip_serializing_if = "Option::is_none")]
    pub security_severity: Option<&'static str>,
}

/// A `message` or `multiformatMessageString`: revu writes plain text only.
#[derive(Debug, Serialize)]
pub struct Text {
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Note,
    Warning,
    Error,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Invocation {
    pub execution_successful: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_execution_notifications: Vec<Notification>,
}

#[derive(Debug, Serialize)]
pub struct Notification {
    pub level: Level,
    pub message: Text,
    pub descriptor: DescriptorReference,
    pub properties: NotificationProperties,
}

#[derive(Debug, Serialize)]
pub struct DescriptorReference {
    pub id: &'static str,
}

#[derive(Debug, Serialize)]
pub struct NotificationProperties {
    pub lane: String,
    pub outcome: &'static str,
}

#[derive(Debug, Serialize)]
pub struct OriginalUriBaseIds {
    #[serde(rename = "%SRCROOT%")]
    pub src_root: BaseId,
}

#[derive(Debug, Serialize)]
pub struct BaseId {
    pub description: Text,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifResult {
    pub rule_id: String,
    pub rule_index: usize,
    pub level: Level,
    pub message: Text,
    pub locations: Vec<Location>,
    pub partial_fingerprints: Fingerprints,
    pub properties: ResultProperties,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    pub physical_location: PhysicalLocation,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhysicalLocation {
    pub artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<Region>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactLocation {
    pub uri: String,
    pub uri_base_id: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    pub start_line: u32,
    pub end_line: u32,
}

#[derive(Debug, Serialize)]
pub struct Fingerprints {
    #[serde(rename = "revuFinding/v1")]
    pub finding: String,
}

#[derive(Debug, Serialize)]
pub struct ResultProperties {
    /// The severity the finding was raised with; `level` is what it counts
    /// as at the report's rigor.
    pub severity: &'static str,
    pub confidence: u8,
    pub dimensions: Vec<&'static str>,
    pub blast_radius: String,
    /// The cited file's owners by `CODEOWNERS`, on a BLOCKER.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owners: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct RunProperties {
    pub review_id: String,
    pub verdict: &'static str,
    pub gate: &'static str,
    pub gate_reasons: Vec<String>,
    pub rigor: &'static str,
}
