//! `revu.v1.IndexCacheService` over the shared index cache store
//! ([`crate::index_cache`]): the caller's tenant decides whose entries it
//! reads and writes, and the names it sends are checked here, at the
//! edge, before any reaches the store.

use super::grpc::{caller, malformed};
use crate::auth::Authenticator;
use crate::index_cache::IndexCacheStore;
use crate::metrics::{CoordinatorMetrics, IndexCacheLabels};
use revu_proto::index_cache::{ANSWER_BYTES, MAX_ENTRY_BYTES, MAX_KEYS};
use revu_proto::v1 as pb;
use revu_proto::v1::index_cache_service_server::IndexCacheService;
use revu_queue::index_cache::EntryName;
use std::sync::Arc;
use tonic::{Request, Response, Status};

/// The gRPC face of an [`IndexCacheStore`].
#[derive(Debug, Clone)]
pub struct IndexCacheApi {
    store: IndexCacheStore,
    auth: Authenticator,
    metrics: Arc<CoordinatorMetrics>,
}

impl IndexCacheApi {
    pub fn new(
        store: IndexCacheStore,
        auth: Authenticator,
        metrics: Arc<CoordinatorMetrics>,
    ) -> Self {
        IndexCacheApi {
            store,
            auth,
            metrics,
        }
    }

    /// The caller's tenant, or `UNAUTHENTICATED`.
    fn tenant<T>(&self, request: &Request<T>) -> Result<Option<String>, Status> {
        caller(&self.auth, request).inspect_err(|_| {
            self.metrics.unauthenticated.inc();
        })
    }

    fn count(&self, outcome: &'static str, n: usize) {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        if n > 0 {
            self.metrics
                .index_cache_entries
                .get_or_create(&IndexCacheLabels {
                    outcome: outcome.to_owned(),
                })
                .inc_by(n);
        }
    }
}

/// The name of the entry `key` names under `stamp`, or `INVALID_ARGUMENT`.
fn entry_name(stamp: &str, key: Option<&pb::IndexEntryKey>) -> Result<EntryName, Status> {
    let key = key.ok_or_else(|| malformed("an index entry without its key".to_owned()))?;
    EntryName::new(stamp, &key.blob_id, &key.language).map_err(|e| malformed(e.to_string()))
}

#[tonic::async_trait]
impl IndexCacheService for IndexCacheApi {
    async fn fetch_index_entries(
        &self,
        request: Request<pb::FetchIndexEntriesRequest>,
    ) -> Result<Response<pb::FetchIndexEntriesResponse>, Status> {
        let tenant = self.tenant(&request)?;
        let request = request.into_inner();
        if request.keys.len() > MAX_KEYS {
            return Err(malformed(format!(
                "{} keys in one lookup; at most {MAX_KEYS}",
                request.keys.len()
            )));
        }
        let names = request
            .keys
            .iter()
            .map(|k| entry_name(&request.stamp, Some(k)))
            .collect::<Result<Vec<_>, _>>()?;
        let found = self
            .store
            .look_up(tenant, names, request.keys_only, ANSWER_BYTES)
            .await?;
        let answered = found.len();
        let entries: Vec<pb::IndexEntry> = request
            .keys
            .into_iter()
            .zip(found)
            .filter_map(|(key, found)| {
                found.map(|content| pb::IndexEntry {
                    key: Some(key),
                    content,
                })
            })
            .collect();
        let held = entries.len();
        self.count(if request.keys_only { "held" } else { "served" }, held);
        self.count("missed", answered - held);
        Ok(Response::new(pb::FetchIndexEntriesResponse {
            entries,
            answered: u32::try_from(answered).unwrap_or(u32::MAX),
        }))
    }

    async fn store_index_entries(
        &self,
        request: Request<pb::StoreIndexEntriesRequest>,
    ) -> Result<Response<pb::StoreIndexEntriesResponse>, Status> {
        let tenant = self.tenant(&request)?;
        let request = request.into_inner();
        let mut entries = Vec::with_capacity(request.entries.len());
        for entry in request.entries {
            let name = entry_name(&request.stamp, entry.key.as_ref())?;
            // An entry is never empty; one past the limit is not kept.
            if !entry.content.is_empty() && entry.content.len() <= MAX_ENTRY_BYTES {
                entries.push((name, entry.content));
            }
        }
        let kept = self.store.keep(tenant, entries).await?;
        self.count("stored", kept.stored);
        self.count("evicted", kept.evicted);
        Ok(Response::new(pb::StoreIndexEntriesResponse {
            stored: u32::try_from(kept.stored).unwrap_or(u32::MAX),
        }))
    }
}
