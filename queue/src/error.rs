//! What [`crate::QueueError`] carries when the store contradicts itself, a
//! write did not arrive whole, or the backend's settings cannot work.

use revu_domain::bundle::MissingHead;
use revu_domain::lane::ReviewId;
use std::path::PathBuf;

/// Stored state that contradicts itself.
#[derive(Debug, thiserror::Error)]
pub enum Corruption {
    /// A phase name no version of revu writes.
    #[error("review {review}: unknown phase {name:?}")]
    UnknownPhase { review: ReviewId, name: String },
    /// A key that held fewer bytes than its length said.
    #[error("{key}: read {read} of its {len} bytes")]
    ShortRead {
        key: String,
        read: usize,
        len: usize,
    },
    /// A bundle naming a head file that is not stored.
    #[error("review {review}: {source}")]
    MissingHead {
        review: ReviewId,
        #[source]
        source: MissingHead,
    },
}

/// A write that did not arrive whole: fewer bytes stored than were sent.
#[derive(Debug, thiserror::Error)]
#[error("{what} in {key}: {stored} bytes stored where {sent} were sent")]
pub struct LostWrite {
    /// What was being written: `staging the diff`.
    pub what: &'static str,
    pub key: String,
    pub stored: usize,
    pub sent: usize,
}

/// Settings of the backend that cannot work, named by their flags.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("reading {flag} {}: {source}", path.display())]
    Read {
        flag: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{flag} {} is not UTF-8", path.display())]
    NotUtf8 { flag: &'static str, path: PathBuf },
    #[error("--redis-client-cert and --redis-client-key go together")]
    HalfClientPair,
    #[error("--redis-ca-cert and --redis-client-cert need a rediss:// URL")]
    TlsWithoutRediss,
    #[error("--redis names no cluster seed node")]
    NoSeedNode,
    #[error("key prefix {prefix:?} must be non-empty and hold no `{{` or `}}`")]
    KeyPrefix { prefix: String },
}
