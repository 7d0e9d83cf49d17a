//! CLI errors and their exit codes.

/// Why a command failed, by exit code.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad flags or bad input: exit 2.
    #[error("{0}")]
    Input(String),
    /// Nothing to review: the change asked for is empty. Exit 2.
    #[error("{0}")]
    Empty(String),
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
            CliError::Input(_) | CliError::Empty(_) => 2,
            CliError::Unavailable(_) | CliError::Internal(_) => 3,
        }
    }
}
