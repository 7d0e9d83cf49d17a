//! CLI errors and their exit codes.

/// Why a command failed, by exit code.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad flags or bad input: exit 2.
    #[error("{0}")]
    Input(String),
    /// The coordinator or another service is unreachable: exit 3.
    #[error("{0}")]
    Unavailable(String),
    /// Anything else that went wrong inside revu: exit 3.
    #[error("{0}")]
    Internal(String),
}

impl CliError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => 2,
            CliError::Unavailable(_) | CliError::Internal(_) => 3,
        }
    }
}
