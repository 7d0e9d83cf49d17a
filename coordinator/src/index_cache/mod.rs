//! Where the coordinator keeps the code index's cache entries a fleet
//! shares ([`revu_queue::index_cache`]): in Redis, beside the reviews
//! (the default), or in a directory it is given
//! (`--shared-index-cache-dir`).
//!
//! Either store keeps each tenant's entries apart from every other's,
//! within the tenant's byte limit and for as long as they are used within
//! the age limit ([`IndexCacheLimits`]); a lookup counts as a use. An entry
//! is opaque here: clients check what they are given.

mod dir;

pub use dir::DirStore;

use revu_queue::QueueError;
use revu_queue::index_cache::{EntryName, Found, IndexCacheLimits, Kept};
use revu_queue::redis::RedisBackend;
use std::path::PathBuf;
use std::sync::Arc;

/// The errors of a store.
#[derive(Debug, thiserror::Error)]
pub enum IndexCacheError {
    #[error("backend: {0}")]
    Backend(#[from] QueueError),
    #[error("shared index cache {}: {source}", path.display())]
    Dir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("blocking task failed: {0}")]
    Blocking(#[source] tokio::task::JoinError),
}

/// The store of shared entries. Cloning shares it.
#[derive(Debug, Clone)]
pub enum IndexCacheStore {
    Redis {
        backend: RedisBackend,
        limits: IndexCacheLimits,
    },
    Dir(Arc<DirStore>),
}

impl IndexCacheStore {
    /// Entries kept in the Redis of `backend`, under its key prefix.
    pub fn redis(backend: RedisBackend, limits: IndexCacheLimits) -> IndexCacheStore {
        IndexCacheStore::Redis { backend, limits }
    }

    /// Entries kept below `top`, made if it is not there.
    pub fn dir(top: PathBuf, limits: IndexCacheLimits) -> Result<IndexCacheStore, IndexCacheError> {
        Ok(IndexCacheStore::Dir(Arc::new(DirStore::open(top, limits)?)))
    }

    /// The entries `tenant` holds for `names`, in order (with `keys_only`,
    /// an empty entry for each held), answering until about `budget`
    /// bytes of entries: never fewer than one found, and never one past
    /// the budget after the first.
    pub async fn look_up(
        &self,
        tenant: Option<String>,
        names: Vec<EntryName>,
        keys_only: bool,
        budget: usize,
    ) -> Result<Found, IndexCacheError> {
        match self {
            IndexCacheStore::Redis { backend, limits } => Ok(backend
                .look_up_index_entries(tenant.as_deref(), &names, keys_only, budget, limits)
                .await?),
            IndexCacheStore::Dir(dir) => {
                let dir = Arc::clone(dir);
                tokio::task::spawn_blocking(move || {
                    dir.look_up(tenant.as_deref(), &names, keys_only, budget)
                })
                .await
                .map_err(IndexCacheError::Blocking)?
            }
        }
    }

    /// Keeps `entries` for `tenant`, then removes what the limits no
    /// longer allow.
    pub async fn keep(
        &self,
        tenant: Option<String>,
        entries: Vec<(EntryName, Vec<u8>)>,
    ) -> Result<Kept, IndexCacheError> {
        if entries.is_empty() {
            return Ok(Kept::default());
        }
        match self {
            IndexCacheStore::Redis { backend, limits } => Ok(backend
                .keep_index_entries(tenant.as_deref(), &entries, limits)
                .await?),
            IndexCacheStore::Dir(dir) => {
                let dir = Arc::clone(dir);
                tokio::task::spawn_blocking(move || dir.keep(tenant.as_deref(), &entries))
                    .await
                    .map_err(IndexCacheError::Blocking)?
            }
        }
    }
}
