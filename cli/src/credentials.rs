//! The bearer token `revu submit` and `revu bench` send to a coordinator
//! that requires one: from `--token-file FILE`, else `REVU_TOKEN`.
//!
//! Never taken as a flag value, which other users of the machine could read
//! in the process list.

use crate::error::CliError;
use std::path::PathBuf;
use tonic::metadata::{Ascii, MetadataValue};

/// Where the token comes from.
#[derive(Debug, Clone, clap::Args)]
pub struct TokenArgs {
    /// File holding the bearer token for a coordinator that requires one
    /// (its first line); without it, `REVU_TOKEN` holds the token.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
}

/// Credentials sent with every call: `authorization: Bearer TOKEN`.
#[derive(Clone, Default)]
pub struct Credentials {
    bearer: Option<MetadataValue<Ascii>>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("bearer", &self.bearer.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl TokenArgs {
    /// The credentials they name (none when neither is given).
    pub fn credentials(&self) -> Result<Credentials, CliError> {
        let token = match &self.token_file {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    CliError::Input(format!("reading --token-file {}: {e}", path.display()))
                })?;
                let token = text.lines().next().unwrap_or_default().trim().to_owned();
                if token.is_empty() {
                    return Err(CliError::Input(format!(
                        "--token-file {} holds no token",
                        path.display()
                    )));
                }
                Some(token)
            }
            None => std::env::var("REVU_TOKEN")
                .ok()
                .map(|t| t.trim().to_owned())
                .filter(|t| !t.is_empty()),
        };
        let bearer = token
            .map(|t| {
                format!("Bearer {t}").parse().map_err(|_| {
                    CliError::Input(
                        "the token must be printable ASCII without spaces or line breaks".into(),
                    )
                })
            })
            .transpose()?;
        Ok(Credentials { bearer })
    }
}

impl tonic::service::Interceptor for Credentials {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(bearer) = &self.bearer {
            request
                .metadata_mut()
                .insert("authorization", bearer.clone());
        }
        Ok(request)
    }
}
