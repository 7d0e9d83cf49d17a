//! How `revu submit` and `revu bench` prove who they are to a coordinator,
//! and check who it is: the bearer token (from `--token-file FILE`, else
//! `REVU_TOKEN`; never a flag value, which other users of the machine
//! could read in the process list) and TLS for `https://` coordinators.

use crate::error::CliError;
use std::path::{Path, PathBuf};
use tonic::metadata::{Ascii, MetadataValue};
use tonic::transport::{Certificate, ClientTlsConfig, Identity};

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

/// TLS to a coordinator: its configuration, and whether it presents a
/// client certificate (which tells a refusal of one from a demand for one).
#[derive(Debug, Clone)]
pub struct ClientTls {
    pub config: ClientTlsConfig,
    pub client_certificate: bool,
}

/// TLS to an `https://` coordinator.
#[derive(Debug, Clone, clap::Args)]
pub struct TlsArgs {
    /// PEM CA certificates to trust for an `https://` coordinator, besides
    /// the system's roots.
    #[arg(long, env = "REVU_CA_CERT", value_name = "FILE")]
    ca_cert: Option<PathBuf>,
    /// PEM client certificate for a coordinator that asks for one (mutual
    /// TLS), with `--client-key`.
    #[arg(long, env = "REVU_CLIENT_CERT", value_name = "FILE")]
    client_cert: Option<PathBuf>,
    /// PEM private key of `--client-cert`.
    #[arg(long, env = "REVU_CLIENT_KEY", value_name = "FILE")]
    client_key: Option<PathBuf>,
}

fn read(flag: &str, path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path)
        .map_err(|e| CliError::Input(format!("reading {flag} {}: {e}", path.display())))
}

impl TlsArgs {
    /// The TLS configuration for `address`: none for `http://`. Reads the
    /// files (and looks for the system's roots), so call it before the
    /// runtime starts.
    pub fn config(&self, address: &str) -> Result<Option<ClientTls>, CliError> {
        let given = self.ca_cert.is_some() || self.client_cert.is_some();
        if !address.starts_with("https://") {
            if given && address.starts_with("http://") {
                return Err(CliError::Input(format!(
                    "--ca-cert and --client-cert are for an https:// coordinator, not {address}"
                )));
            }
            return Ok(None);
        }
        let mut config = ClientTlsConfig::new();
        if let Some(ca) = &self.ca_cert {
            config = config.ca_certificate(Certificate::from_pem(read("--ca-cert", ca)?));
        }
        // Without a CA of its own the client needs the system's roots;
        // with one, it trusts them too when the system has any.
        if self.ca_cert.is_none() || !rustls_native_certs::load_native_certs().certs.is_empty() {
            config = config.with_native_roots();
        }
        match (&self.client_cert, &self.client_key) {
            (Some(cert), Some(key)) => {
                config = config.identity(Identity::from_pem(
                    read("--client-cert", cert)?,
                    read("--client-key", key)?,
                ));
            }
            (None, None) => {}
            _ => {
                return Err(CliError::Input(
                    "--client-cert and --client-key go together".into(),
                ));
            }
        }
        Ok(Some(ClientTls {
            config,
            client_certificate: self.client_cert.is_some(),
        }))
    }
}
