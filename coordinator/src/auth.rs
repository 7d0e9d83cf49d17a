//! Who is calling: bearer tokens per tenant.
//!
//! The coordinator knows tokens only by their SHA-256 digest, read from a
//! tokens file (`--tokens-file`): one `TENANT SHA256HEX` per line, `#`
//! comments and blank lines ignored. A tenant may have several lines, so a
//! new token can be added before the old one is removed (rotation without
//! downtime). The file is read again when it changes; a version that does
//! not parse is refused with a warning and the last good one stays in use,
//! so a typo never locks every client out.
//!
//! A call carries `authorization: Bearer TOKEN`; the coordinator hashes the
//! token and looks the digest up. Raw tokens are never stored or logged.
//!
//! Under mutual TLS a client certificate can stand for a token: a line
//! `TENANT cert-sha256:HEX` names the SHA-256 of a certificate (its DER),
//! and a call on a connection that presented it, with no bearer token,
//! belongs to that tenant.

use revu_domain::lane::{BadTenantName, check_tenant_name};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tonic::Status;

/// Errors reading a tokens file.
#[derive(Debug, thiserror::Error)]
pub enum TokensError {
    #[error("reading tokens file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("tokens file {path}, line {line}: {source}")]
    Line {
        path: PathBuf,
        line: usize,
        #[source]
        source: LineError,
    },
    #[error("tokens file {path} names no tenant")]
    Empty { path: PathBuf },
}

/// What a digest in the tokens file is the digest of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Credential {
    Token,
    Certificate,
}

/// The line prefix of a client certificate's digest.
const CERT_PREFIX: &str = "cert-sha256:";

/// `UNAUTHENTICATED`, saying `why`, with its reason for clients.
fn refused(why: &str) -> Status {
    revu_proto::reason::Reason::Unauthenticated.status(tonic::Code::Unauthenticated, why)
}

/// What is wrong with one line of a tokens file.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    #[error("expected `TENANT SHA256HEX`, found {0} field(s)")]
    Fields(usize),
    #[error(transparent)]
    Tenant(#[from] BadTenantName),
    #[error(
        "the digest must be 64 hex digits: the SHA-256 of a token, or \
         {CERT_PREFIX}HEX of a client certificate"
    )]
    Digest,
    /// A digest listed for another tenant already.
    #[error("this token digest also belongs to tenant {tenant:?}")]
    Shared { tenant: String },
}

/// Tenants by the digest of their tokens and certificates.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TokenTable {
    by_digest: HashMap<(Credential, [u8; 32]), String>,
}

impl TokenTable {
    /// Reads the text of a tokens file (`path` names it in errors).
    pub fn parse(path: &Path, text: &str) -> Result<TokenTable, TokensError> {
        let mut by_digest = HashMap::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            let fail = |source: LineError| TokensError::Line {
                path: path.to_owned(),
                line: n + 1,
                source,
            };
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [tenant, hex] = fields[..] else {
                return Err(fail(LineError::Fields(fields.len())));
            };
            check_tenant_name(tenant).map_err(|e| fail(e.into()))?;
            let (kind, hex) = match hex.strip_prefix(CERT_PREFIX) {
                Some(cert) => (Credential::Certificate, cert),
                None => (Credential::Token, hex),
            };
            let digest = decode_digest(hex).ok_or_else(|| fail(LineError::Digest))?;
            if let Some(other) = by_digest.insert((kind, digest), tenant.to_owned())
                && other != tenant
            {
                return Err(fail(LineError::Shared { tenant: other }));
            }
        }
        if by_digest.is_empty() {
            return Err(TokensError::Empty {
                path: path.to_owned(),
            });
        }
        Ok(TokenTable { by_digest })
    }

    /// How many tenants have at least one token.
    pub fn tenants(&self) -> usize {
        let mut names: Vec<&String> = self.by_digest.values().collect();
        names.sort();
        names.dedup();
        names.len()
    }

    /// The tenants, each once, sorted.
    pub fn tenant_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.by_digest.values().cloned().collect();
        names.sort();
        names.dedup();
        names
    }

    fn tenant_of(&self, kind: Credential, secret: &[u8]) -> Option<&str> {
        let digest: [u8; 32] = Sha256::digest(secret).into();
        self.by_digest.get(&(kind, digest)).map(String::as_str)
    }
}

fn decode_digest(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The hex SHA-256 of `token`, as a tokens file holds it.
pub fn token_digest(token: &str) -> String {
    hex_sha256(token.as_bytes())
}

/// `cert-sha256:HEX` of a client certificate (its DER), as a tokens file
/// names it.
pub fn certificate_digest(der: &[u8]) -> String {
    format!("{CERT_PREFIX}{}", hex_sha256(der))
}

/// Decides the tenant of each call.
#[derive(Debug, Clone, Default)]
pub struct Authenticator {
    /// `None`: no authentication; every call is in the open namespace.
    tokens: Option<Arc<RwLock<Arc<TokenTable>>>>,
}

impl Authenticator {
    /// No authentication: calls have no tenant.
    pub fn open() -> Self {
        Authenticator::default()
    }

    /// Tokens from `path`, read now (a file that does not read or parse is
    /// an error here, at startup).
    pub async fn from_file(path: &Path) -> Result<Self, TokensError> {
        let table = read_table(path).await?;
        tracing::info!(tenants = table.tenants(), path = %path.display(), "tokens loaded");
        Ok(Authenticator {
            tokens: Some(Arc::new(RwLock::new(Arc::new(table)))),
        })
    }

    /// The tenants the tokens name now (none without authentication).
    pub fn tenant_names(&self) -> Vec<String> {
        let Some(tokens) = &self.tokens else {
            return Vec::new();
        };
        match tokens.read() {
            Ok(t) => t.tenant_names(),
            Err(poisoned) => poisoned.into_inner().tenant_names(),
        }
    }

    /// Whether calls must carry a token.
    pub fn is_required(&self) -> bool {
        self.tokens.is_some()
    }

    /// The tenant of a call from its metadata and the client certificate
    /// of its connection (DER, under mutual TLS): `Ok(None)` without
    /// authentication, `UNAUTHENTICATED` without a valid credential.
    pub fn tenant(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        client_cert: Option<&[u8]>,
    ) -> Result<Option<String>, Status> {
        let Some(tokens) = &self.tokens else {
            return Ok(None);
        };
        let table = match tokens.read() {
            Ok(t) => Arc::clone(&t),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        };
        let Some(header) = metadata.get("authorization") else {
            return client_cert
                .and_then(|der| table.tenant_of(Credential::Certificate, der))
                .map(|t| Some(t.to_owned()))
                .ok_or_else(|| refused("no bearer token: send `authorization: Bearer TOKEN`"));
        };
        let token = header
            .to_str()
            .ok()
            .and_then(bearer)
            .ok_or_else(|| refused("the authorization header is not `Bearer TOKEN`"))?;
        table
            .tenant_of(Credential::Token, token.as_bytes())
            .map(|t| Some(t.to_owned()))
            .ok_or_else(|| refused("the bearer token is not valid (unknown or revoked)"))
    }

    /// Reads `path` again every `every` while it changes, until `shutdown`.
    pub async fn follow_file(
        &self,
        path: PathBuf,
        every: Duration,
        shutdown: impl Future<Output = ()>,
    ) {
        let Some(tokens) = self.tokens.clone() else {
            return;
        };
        let follow = async {
            let mut last = tokio::fs::read(&path).await.ok();
            loop {
                tokio::time::sleep(every).await;
                let now = tokio::fs::read(&path).await.ok();
                if now.is_none() || now == last {
                    continue;
                }
                last = now;
                match read_table(&path).await {
                    Ok(table) => {
                        tracing::info!(tenants = table.tenants(), path = %path.display(), "tokens reloaded");
                        let mut slot = match tokens.write() {
                            Ok(g) => g,
                            Err(poisoned) => poisoned.into_inner(),
                        };
                        *slot = Arc::new(table);
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "tokens file not reloaded; the last good version stays in use");
                    }
                }
            }
        };
        tokio::select! {
            () = shutdown => {}
            () = follow => {}
        }
    }
}

/// The token of a `Bearer` credential (the scheme is case-insensitive).
fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

async fn read_table(path: &Path) -> Result<TokenTable, TokensError> {
    let text = tokio::fs::read_to_string(path)
        .await
        .map_err(|source| TokensError::Read {
            path: path.to_owned(),
            source,
        })?;
    TokenTable::parse(path, &text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::metadata::MetadataMap;

    fn table(text: &str) -> Result<TokenTable, TokensError> {
        TokenTable::parse(Path::new("tokens"), text)
    }

    fn auth(text: &str) -> Authenticator {
        let t = table(text).unwrap_or_else(|e| panic!("{e}"));
        Authenticator {
            tokens: Some(Arc::new(RwLock::new(Arc::new(t)))),
        }
    }

    fn call(header: &str) -> MetadataMap {
        let mut m = MetadataMap::new();
        if let Ok(v) = header.parse() {
            m.insert("authorization", v);
        }
        m
    }

    #[test]
    fn a_token_names_its_tenant_by_digest_and_nothing_else_passes() {
        let file = format!(
            "# tenants\nteam-a {}\nteam-a {}  # rotated in\n\nteam-b {}\n",
            token_digest("alpha"),
            token_digest("alpha-2"),
            token_digest("bravo").to_uppercase()
        );
        let a = auth(&file);
        let tenant = |h: &str| a.tenant(&call(h), None).ok().flatten();
        assert_eq!(tenant("Bearer alpha").as_deref(), Some("team-a"));
        assert_eq!(tenant("bearer alpha-2").as_deref(), Some("team-a"));
        assert_eq!(tenant("Bearer bravo").as_deref(), Some("team-b"));
        for bad in ["", "Bearer", "Bearer nope", "Basic alpha", "alpha"] {
            let refused = a.tenant(&call(bad), None).err().map(|s| s.code());
            assert_eq!(refused, Some(tonic::Code::Unauthenticated), "{bad:?}");
            let reason = a.tenant(&call(bad), None).err();
            assert_eq!(
                reason.as_ref().and_then(revu_proto::reason::Reason::of),
                Some(revu_proto::reason::Reason::Unauthenticated)
            );
        }
        assert_eq!(
            Authenticator::open().tenant(&call(""), None).ok(),
            Some(None)
        );
    }

    #[test]
    fn a_listed_client_certificate_stands_for_a_token() {
        let cert = b"DER of a client certificate";
        let a = auth(&format!(
            "team-c {}\nteam-a {}\n",
            certificate_digest(cert),
            token_digest("alpha")
        ));
        let no_header = MetadataMap::new();
        let tenant = a.tenant(&no_header, Some(cert)).ok().flatten();
        assert_eq!(tenant.as_deref(), Some("team-c"));
        let other = a.tenant(&no_header, Some(b"another certificate".as_slice()));
        assert_eq!(
            other.err().map(|s| s.code()),
            Some(tonic::Code::Unauthenticated)
        );
        // A token beats the certificate; a certificate's digest is no token.
        let as_a = a.tenant(&call("Bearer alpha"), Some(cert)).ok().flatten();
        assert_eq!(as_a.as_deref(), Some("team-a"));
        let forged = a.tenant(&call("Bearer DER of a client certificate"), None);
        assert_eq!(
            forged.err().map(|s| s.code()),
            Some(tonic::Code::Unauthenticated)
        );
    }

    #[test]
    fn a_malformed_tokens_file_names_its_line() {
        let d = token_digest("x");
        for (text, says) in [
            ("team-a\n", "line 1: expected `TENANT SHA256HEX`, found 1"),
            ("# only\n\nteam a deadbeef\n", "line 3: expected"),
            ("team/a {d}\n", "line 1: tenant name"),
            ("team-a abc\n", "line 1: the digest must be 64 hex"),
            (
                "team-a cert-sha256:abc\n",
                "line 1: the digest must be 64 hex",
            ),
            (
                "a {d}\nb {d}\n",
                "line 2: this token digest also belongs to tenant \"a\"",
            ),
            ("# nobody\n", "names no tenant"),
        ] {
            let text = text.replace("{d}", &d);
            let err = table(&text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(err.contains(says), "{text:?}: {err}");
        }
    }
}
