//! Reading the diff: a file, or `-` for standard input.

use crate::error::CliError;
use std::io::Read;
use std::path::Path;

pub fn read_diff(path: &Path) -> Result<Vec<u8>, CliError> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| CliError::Input(format!("reading the diff from stdin: {e}")))?;
        return Ok(buf);
    }
    std::fs::read(path).map_err(|e| CliError::Input(format!("reading {}: {e}", path.display())))
}
