//! TLS for the services, on rustls with the ring provider: PEM files read
//! into rustls configurations, and a server configuration that follows its
//! files, so a renewed certificate is served without a restart.

use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ServerConfig, WebPkiClientVerifier};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// Errors reading TLS material.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file (`what` names its flag) that does not give what it should.
    #[error("{what} {path}: {source}")]
    File {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: PemError,
    },
    #[error("TLS configuration: {0}")]
    Config(#[source] rustls::Error),
    /// The CA a client's certificate must chain to makes no verifier.
    #[error("TLS configuration: {what}: {source}")]
    ClientCa {
        what: &'static str,
        #[source]
        source: rustls::server::VerifierBuilderError,
    },
    /// A certificate and a key (named by their flags) that do not match.
    #[error("TLS configuration: {cert} and {key} do not make a pair: {source}")]
    Pair {
        cert: &'static str,
        key: &'static str,
        #[source]
        source: rustls::Error,
    },
    /// Loading the files again stopped before it ended.
    #[error("TLS configuration: {0}")]
    Reload(#[source] tokio::task::JoinError),
}

/// What is wrong with a PEM file.
#[derive(Debug, thiserror::Error)]
pub enum PemError {
    #[error(transparent)]
    Pem(#[from] rustls::pki_types::pem::Error),
    #[error("holds no PEM certificate")]
    NoCertificate,
    /// A certificate a trust store does not take.
    #[error(transparent)]
    Certificate(#[from] rustls::Error),
}

/// Makes ring the process's crypto provider (once; later calls do nothing).
/// Every rustls user in the process (the Redis client, HTTP clients) then
/// agrees on it.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The certificates of a PEM file (`what` names it in errors).
pub fn read_certs(
    what: &'static str,
    path: &Path,
) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let fail = |source: PemError| TlsError::File {
        what,
        path: path.to_owned(),
        source,
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| fail(e.into()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(e.into()))?;
    if certs.is_empty() {
        return Err(fail(PemError::NoCertificate));
    }
    Ok(certs)
}

/// The private key of a PEM file (PKCS#8, PKCS#1 or SEC1).
pub fn read_key(what: &'static str, path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    PrivateKeyDer::from_pem_file(path).map_err(|e| TlsError::File {
        what,
        path: path.to_owned(),
        source: e.into(),
    })
}

/// A trust store of the certificates in `path`.
pub fn read_roots(what: &'static str, path: &Path) -> Result<RootCertStore, TlsError> {
    let mut roots = RootCertStore::empty();
    for cert in read_certs(what, path)? {
        roots.add(cert).map_err(|e| TlsError::File {
            what,
            path: path.to_owned(),
            source: e.into(),
        })?;
    }
    Ok(roots)
}

/// The files of a TLS server: its certificate chain and key, and, for
/// mutual TLS, the CA its clients' certificates must chain to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerTlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub client_ca: Option<PathBuf>,
    /// The flags that named the files, for errors.
    pub flags: TlsFlags,
}

/// The flags of a server's TLS files, as its errors name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TlsFlags {
    pub cert: &'static str,
    pub key: &'static str,
    /// `None` where the server takes no client CA.
    pub client_ca: Option<&'static str>,
}

impl TlsFlags {
    /// The coordinator's gRPC port.
    pub const GRPC: TlsFlags = TlsFlags {
        cert: "--tls-cert",
        key: "--tls-key",
        client_ca: Some("--tls-client-ca"),
    };
    /// The metrics endpoint.
    pub const METRICS: TlsFlags = TlsFlags {
        cert: "--metrics-tls-cert",
        key: "--metrics-tls-key",
        client_ca: None,
    };
}

impl ServerTlsFiles {
    /// Reads the files into a server configuration offering `alpn`.
    pub fn load(&self, alpn: &[&[u8]]) -> Result<ServerConfig, TlsError> {
        let flags = self.flags;
        let certs = read_certs(flags.cert, &self.cert)?;
        let key = read_key(flags.key, &self.key)?;
        let builder = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(TlsError::Config)?;
        let builder = match &self.client_ca {
            Some(ca) => {
                let what = flags.client_ca.unwrap_or("client CA");
                let roots = read_roots(what, ca)?;
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider())
                        .build()
                        .map_err(|source| TlsError::ClientCa { what, source })?;
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        };
        let mut config = builder
            .with_single_cert(certs, key)
            .map_err(|source| TlsError::Pair {
                cert: flags.cert,
                key: flags.key,
                source,
            })?;
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Ok(config)
    }

    fn paths(&self) -> impl Iterator<Item = &PathBuf> {
        [&self.cert, &self.key].into_iter().chain(&self.client_ca)
    }
}

/// A server configuration that follows its files.
#[derive(Debug, Clone)]
pub struct ReloadingServerTls {
    files: ServerTlsFiles,
    alpn: &'static [&'static [u8]],
    current: Arc<RwLock<Arc<ServerConfig>>>,
}

impl ReloadingServerTls {
    /// Reads the files now: a file that does not read, or a key that does
    /// not match its certificate, is an error here, at startup.
    pub fn new(files: ServerTlsFiles, alpn: &'static [&'static [u8]]) -> Result<Self, TlsError> {
        let config = files.load(alpn)?;
        Ok(ReloadingServerTls {
            files,
            alpn,
            current: Arc::new(RwLock::new(Arc::new(config))),
        })
    }

    /// The configuration for the next handshake.
    pub fn current(&self) -> Arc<ServerConfig> {
        match self.current.read() {
            Ok(c) => Arc::clone(&c),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Reads the files again every `every` while they change, until
    /// `shutdown`. A version that does not load (a certificate written
    /// before its key, say) is refused with a warning, and the last good
    /// one keeps serving; connections already open keep theirs.
    pub async fn follow(&self, every: Duration, shutdown: impl Future<Output = ()>) {
        let follow = async {
            let mut last = self.contents().await;
            loop {
                tokio::time::sleep(every).await;
                let now = self.contents().await;
                if now == last {
                    continue;
                }
                last = now;
                let (files, alpn) = (self.files.clone(), self.alpn);
                let loaded = tokio::task::spawn_blocking(move || files.load(alpn))
                    .await
                    .map_err(TlsError::Reload)
                    .and_then(|r| r);
                match loaded {
                    Ok(config) => {
                        tracing::info!(cert = %self.files.cert.display(), "TLS certificate reloaded");
                        let mut slot = match self.current.write() {
                            Ok(g) => g,
                            Err(poisoned) => poisoned.into_inner(),
                        };
                        *slot = Arc::new(config);
                    }
                    Err(e) => tracing::warn!(
                        error = %e,
                        "TLS files not reloaded; the last good certificate keeps serving"
                    ),
                }
            }
        };
        tokio::select! {
            () = shutdown => {}
            () = follow => {}
        }
    }

    async fn contents(&self) -> Vec<Option<Vec<u8>>> {
        let mut out = Vec::new();
        for path in self.files.paths() {
            out.push(tokio::fs::read(path).await.ok());
        }
        out
    }
}
