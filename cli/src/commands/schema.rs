//! `revu schema`: the published JSON Schema of the canonical report; and
//! reading a report back, held to that schema.

use crate::error::CliError;
use crate::output::print;
use revu_domain::report::Report;
use revu_domain::report_schema::REPORT_SCHEMA;
use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<ExitCode, CliError> {
    print(REPORT_SCHEMA)?;
    Ok(ExitCode::SUCCESS)
}

/// Reads a canonical report from `path` (`-` for standard input) and checks
/// it against the published schema before trusting it: a file that is not a
/// report is refused with the first thing wrong, on one line.
pub fn load_report(path: &Path) -> Result<Report, CliError> {
    let name = if path.as_os_str() == "-" {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    };
    let bytes = read(path).map_err(|e| CliError::Input(format!("reading {name}: {e}")))?;
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| CliError::Input(format!("{name}: not JSON: {e}")))?;
    let schema: Value = serde_json::from_str(REPORT_SCHEMA)
        .map_err(|e| CliError::Internal(format!("the report schema is not JSON: {e}")))?;
    let validator = jsonschema::validator_for(&schema)
        .map_err(|e| CliError::Internal(format!("the report schema does not compile: {e}")))?;
    if let Err(e) = validator.validate(&value) {
        let at = match e.instance_path().as_str() {
            "" => "/".to_owned(),
            p => p.to_owned(),
        };
        return Err(CliError::Input(format!(
            "{name}: not a revu report: at {at}: {}",
            one_line(&e.to_string())
        )));
    }
    serde_json::from_value(value)
        .map_err(|e| CliError::Input(format!("{name}: not a revu report: {e}")))
}

fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf)?;
        return Ok(buf);
    }
    std::fs::read(path)
}

/// Schema messages quote the offending value, which can be a whole object:
/// keep the reason to one short line.
fn one_line(text: &str) -> String {
    const MAX: usize = 200;
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}
