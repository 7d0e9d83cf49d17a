//! Reading an input file: a path, or `-` for standard input.

use crate::error::CliError;
use std::io::Read;
use std::path::Path;

pub fn read_diff(path: &Path) -> Result<Vec<u8>, CliError> {
    read_input(path, "the diff")
}

/// The bytes of `path`, or of standard input for `-` (named `what` in an
/// error).
pub fn read_input(path: &Path, what: &str) -> Result<Vec<u8>, CliError> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| CliError::Input(format!("reading {what} from stdin: {e}")))?;
        return Ok(buf);
    }
    std::fs::read(path).map_err(|e| CliError::Input(format!("reading {}: {e}", path.display())))
}
