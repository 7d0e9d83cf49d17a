//! The published JSON Schema of the canonical report, as `revu schema`
//! prints it. Hand-written, so that it documents the contract rather than
//! echoes whatever the Rust types happen to accept; tests hold every report
//! the pipeline writes to it.

/// The schema (JSON Schema draft-07) of reports whose `schema_version` is
/// [`crate::report::SCHEMA_VERSION`].
pub const REPORT_SCHEMA: &str = include_str!("report_schema.json");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::SCHEMA_VERSION;

    #[test]
    fn schema_is_json_and_pins_the_current_report_version() {
        let schema: serde_json::Value =
            serde_json::from_str(REPORT_SCHEMA).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            schema["properties"]["schema_version"]["enum"],
            serde_json::json!([SCHEMA_VERSION])
        );
        assert_eq!(schema["additionalProperties"], false);
    }
}
