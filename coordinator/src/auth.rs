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

use revu_common::lane::check_tenant_name;
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
    #[error("tokens file {path}, line {line}: {reason}")]
    Line {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("tokens file {path} names no tenant")]
    Empty { path: PathBuf },
}

/// Tenants by the digest of their tokens.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TokenTable {
    by_digest: HashMap<[u8; 32], String>,
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
            let fail = |reason: String| TokensError::Line {
                path: path.to_owned(),
                line: n + 1,
                reason,
            };
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [tenant, hex] = fields[..] else {
                return Err(fail(format!(
                    "expected `TENANT SHA256HEX`, found {} field(s)",
                    fields.len()
                )));
            };
            check_tenant_name(tenant).map_err(fail)?;
            let digest = decode_digest(hex).ok_or_else(|| {
                fail("the token digest must be 64 hex digits (the SHA-256 of the token)".into())
            })?;
            if let Some(other) = by_digest.insert(digest, tenant.to_owned())
                && other != tenant
            {
                return Err(fail(format!(
                    "this token digest also belongs to tenant {other:?}"
                )));
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

    fn tenant_of(&self, token: &str) -> Option<&str> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        self.by_digest.get(&digest).map(String::as_str)
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

/// The hex SHA-256 of `token`, as a tokens file holds it.
pub fn token_digest(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
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

    /// Whether calls must carry a token.
    pub fn is_required(&self) -> bool {
        self.tokens.is_some()
    }

    /// The tenant of a call from its metadata: `Ok(None)` without
    /// authentication, `UNAUTHENTICATED` without a valid token.
    pub fn tenant(
        &self,
        metadata: &tonic::metadata::MetadataMap,
    ) -> Result<Option<String>, Status> {
        let Some(tokens) = &self.tokens else {
            return Ok(None);
        };
        let header = metadata.get("authorization").ok_or_else(|| {
            Status::unauthenticated("no bearer token: send `authorization: Bearer TOKEN`")
        })?;
        let token = header.to_str().ok().and_then(bearer).ok_or_else(|| {
            Status::unauthenticated("the authorization header is not `Bearer TOKEN`")
        })?;
        let table = match tokens.read() {
            Ok(t) => Arc::clone(&t),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        };
        table
            .tenant_of(token)
            .map(|t| Some(t.to_owned()))
            .ok_or_else(|| {
                Status::unauthenticated("the bearer token is not valid (unknown or revoked)")
            })
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
        let tenant = |h: &str| a.tenant(&call(h)).ok().flatten();
        assert_eq!(tenant("Bearer alpha").as_deref(), Some("team-a"));
        assert_eq!(tenant("bearer alpha-2").as_deref(), Some("team-a"));
        assert_eq!(tenant("Bearer bravo").as_deref(), Some("team-b"));
        for bad in ["", "Bearer", "Bearer nope", "Basic alpha", "alpha"] {
            let refused = a.tenant(&call(bad)).err().map(|s| s.code());
            assert_eq!(refused, Some(tonic::Code::Unauthenticated), "{bad:?}");
        }
        assert_eq!(Authenticator::open().tenant(&call("")).ok(), Some(None));
    }

    #[test]
    fn a_malformed_tokens_file_names_its_line() {
        let d = token_digest("x");
        for (text, says) in [
            ("team-a\n", "line 1: expected `TENANT SHA256HEX`, found 1"),
            ("# only\n\nteam a deadbeef\n", "line 3: expected"),
            ("team/a {d}\n", "line 1: tenant name"),
            ("team-a abc\n", "line 1: the token digest must be 64 hex"),
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
