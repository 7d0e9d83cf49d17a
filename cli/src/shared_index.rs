//! The code index's cache shared by a fleet through its coordinator
//! (`revu.v1.IndexCacheService`), for `revu submit`.
//!
//! Before the index parses what this machine's cache lacks, the fleet is
//! asked for those entries ([`fill`]). Each one it holds is checked as an
//! entry read from this machine's cache is ([`FactsCache::admit`]: its
//! checksum, and that its header names the blob, the language and this
//! build's versions) and kept in the cache, where the index then finds it;
//! one that does not check is counted as rejected and its file parsed.
//! The entries this machine has already are asked about without their
//! content, so that the coordinator keeps those in use. Once the index is
//! built, the entries the fleet lacked (or held corrupt) are sent to it
//! ([`GiveBack`]), while the review runs.
//!
//! Sharing is a speed-up, never a condition: a coordinator that does not
//! offer the service (an older one, or one run without it) or that fails
//! is met with one line on stderr, and the index is built from this
//! machine's cache alone.

use crate::credentials::Credentials;
use revu_index::{BlobId, FactsCache, Lang, Refused};
use revu_proto::index_cache::{MAX_ENTRY_BYTES, MAX_KEYS, MESSAGE_LIMIT, STORE_BYTES};
use revu_proto::v1 as pb;
use revu_proto::v1::index_cache_service_client::IndexCacheServiceClient;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

/// What an entry is the facts of.
pub type Key = (BlobId, Lang);

/// Longest one call to the coordinator may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Why sharing stopped.
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    #[error(
        "the coordinator does not share code index cache entries (it predates them, \
         or runs with --no-shared-index-cache)"
    )]
    NotOffered,
    #[error("the coordinator's shared index cache failed: {} ({:?})", .0.message(), .0.code())]
    Call(tonic::Status),
    #[error("the coordinator's shared index cache answered none of the keys asked about")]
    NoAnswer,
}

impl From<tonic::Status> for FleetError {
    fn from(status: tonic::Status) -> Self {
        match status.code() {
            tonic::Code::Unimplemented => FleetError::NotOffered,
            _ => FleetError::Call(status),
        }
    }
}

/// One answer to a lookup.
#[derive(Debug, Default)]
pub struct Fetched {
    /// The entries held (empty when only whether they are held was asked).
    pub entries: Vec<(Key, Vec<u8>)>,
    /// How many of the keys, from the first, were looked up.
    pub answered: usize,
}

/// Where shared entries come from and go to.
pub trait Fleet {
    /// The entries held for `keys` (at most [`MAX_KEYS`]), or with
    /// `keys_only` which keys are held.
    fn fetch(&mut self, keys: &[Key], keys_only: bool) -> Result<Fetched, FleetError>;
    /// Hands over `entries` (at most [`STORE_BYTES`] of them).
    fn store(&mut self, entries: &[(Key, Vec<u8>)]) -> Result<(), FleetError>;
}

/// What sharing did for one index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FleetStats {
    /// Entries this machine's cache lacked, asked of the fleet.
    pub asked: usize,
    /// Of those, entries the fleet held that checked, now in this
    /// machine's cache.
    pub fetched: usize,
    /// Entries the fleet held that did not check (corrupt, truncated, of
    /// another blob, language or version): never used, their files parsed.
    pub rejected: usize,
}

/// The entries the fleet lacked, to send it once the index is built.
#[derive(Debug)]
pub struct GiveBack {
    cache: Arc<FactsCache>,
    lacking: Vec<Key>,
}

/// Fills `cache` with the fleet's entries of the `keys` it lacks. Returns
/// what was fetched, and the entries to give back once the index is
/// built: those the fleet does not hold, or holds corrupt.
pub fn fill(
    cache: &Arc<FactsCache>,
    fleet: &mut dyn Fleet,
    keys: BTreeSet<Key>,
) -> Result<(FleetStats, GiveBack), FleetError> {
    let (have, lack): (Vec<Key>, Vec<Key>) = keys
        .into_iter()
        .partition(|&(blob, lang)| cache.holds(blob, lang));
    let mut lacking = look_up(fleet, &have, true, |_, _| {})?;
    let mut stats = FleetStats {
        asked: lack.len(),
        ..FleetStats::default()
    };
    let mut rejected = Vec::new();
    let not_held = look_up(fleet, &lack, false, |key, bytes| {
        match cache.admit(key.0, key.1, &bytes) {
            Ok(()) => stats.fetched += 1,
            Err(Refused::Rejected(_)) => {
                stats.rejected += 1;
                rejected.push(key);
            }
            // The fleet holds it whole: this machine parses it again.
            Err(Refused::Write(_)) => {}
        }
    })?;
    lacking.extend(not_held);
    lacking.extend(rejected);
    let give_back = GiveBack {
        cache: Arc::clone(cache),
        lacking,
    };
    Ok((stats, give_back))
}

/// Looks `keys` up in batches, handing each entry held to `found`.
/// Returns the keys not held.
fn look_up(
    fleet: &mut dyn Fleet,
    keys: &[Key],
    keys_only: bool,
    mut found: impl FnMut(Key, Vec<u8>),
) -> Result<Vec<Key>, FleetError> {
    let mut not_held = Vec::new();
    let mut rest = keys;
    while !rest.is_empty() {
        let batch = &rest[..rest.len().min(MAX_KEYS)];
        let fetched = fleet.fetch(batch, keys_only)?;
        let answered = fetched.answered.min(batch.len());
        if answered == 0 {
            return Err(FleetError::NoAnswer);
        }
        let mut held: HashMap<Key, Vec<u8>> = fetched.entries.into_iter().collect();
        for key in &batch[..answered] {
            match held.remove(key) {
                Some(bytes) => found(*key, bytes),
                None => not_held.push(*key),
            }
        }
        rest = &rest[answered..];
    }
    Ok(not_held)
}

impl GiveBack {
    /// Whether the fleet lacked none.
    pub fn is_empty(&self) -> bool {
        self.lacking.is_empty()
    }

    /// Sends the fleet the entries it lacked that this machine's cache now
    /// holds, in batches; returns how many were sent. Reads the cache:
    /// blocking work.
    pub fn send(self, fleet: &mut dyn Fleet) -> Result<usize, FleetError> {
        let mut batch = Vec::new();
        let mut bytes = 0;
        let mut sent = 0;
        for (blob, lang) in self.lacking {
            // Not parsed (past the index's limits), or not kept.
            let Some(entry) = self.cache.sealed(blob, lang) else {
                continue;
            };
            if entry.len() > MAX_ENTRY_BYTES {
                continue;
            }
            if !batch.is_empty() && (bytes + entry.len() > STORE_BYTES || batch.len() >= MAX_KEYS) {
                fleet.store(&batch)?;
                sent += batch.len();
                batch.clear();
                bytes = 0;
            }
            bytes += entry.len();
            batch.push(((blob, lang), entry));
        }
        if !batch.is_empty() {
            fleet.store(&batch)?;
            sent += batch.len();
        }
        Ok(sent)
    }
}

type Client = IndexCacheServiceClient<InterceptedService<Channel, Credentials>>;

/// The fleet behind a coordinator. Its calls block on `runtime`: make
/// them outside it, or on one of its blocking threads.
#[derive(Debug)]
pub struct CoordinatorFleet {
    runtime: tokio::runtime::Handle,
    client: Client,
    /// The versions this build's entries are exchanged under.
    stamp: String,
}

impl CoordinatorFleet {
    /// The fleet behind the coordinator `channel` reaches (connected on
    /// the first call), called with `credentials`.
    pub fn new(
        runtime: tokio::runtime::Handle,
        channel: Channel,
        credentials: Credentials,
    ) -> CoordinatorFleet {
        let client = IndexCacheServiceClient::with_interceptor(channel, credentials)
            .max_decoding_message_size(MESSAGE_LIMIT)
            .max_encoding_message_size(MESSAGE_LIMIT);
        CoordinatorFleet {
            runtime,
            client,
            stamp: revu_index::cache::entry::Stamp::current().to_string(),
        }
    }
}

fn wire_key((blob, lang): &Key) -> pb::IndexEntryKey {
    pb::IndexEntryKey {
        blob_id: blob.to_string(),
        language: lang.name().to_owned(),
    }
}

fn key_of(key: &pb::IndexEntryKey) -> Option<Key> {
    Some((BlobId::from_hex(&key.blob_id)?, Lang::named(&key.language)?))
}

impl Fleet for CoordinatorFleet {
    fn fetch(&mut self, keys: &[Key], keys_only: bool) -> Result<Fetched, FleetError> {
        let mut request = tonic::Request::new(pb::FetchIndexEntriesRequest {
            stamp: self.stamp.clone(),
            keys: keys.iter().map(wire_key).collect(),
            keys_only,
        });
        request.set_timeout(CALL_TIMEOUT);
        let answer = self
            .runtime
            .block_on(self.client.fetch_index_entries(request))?
            .into_inner();
        // An entry under a key that does not parse was not asked for.
        let entries = answer
            .entries
            .into_iter()
            .filter_map(|e| Some((key_of(e.key.as_ref()?)?, e.content)))
            .collect();
        Ok(Fetched {
            entries,
            answered: usize::try_from(answer.answered).unwrap_or(usize::MAX),
        })
    }

    fn store(&mut self, entries: &[(Key, Vec<u8>)]) -> Result<(), FleetError> {
        let mut request = tonic::Request::new(pb::StoreIndexEntriesRequest {
            stamp: self.stamp.clone(),
            entries: entries
                .iter()
                .map(|(key, content)| pb::IndexEntry {
                    key: Some(wire_key(key)),
                    content: content.clone(),
                })
                .collect(),
        });
        request.set_timeout(CALL_TIMEOUT);
        self.runtime
            .block_on(self.client.store_index_entries(request))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use revu_index::cache::entry::{self, Stamp};
    use revu_index::extract::FileFacts;

    /// A fleet in memory, answering `answer_at_most` keys per call.
    #[derive(Debug, Default)]
    struct Shelf {
        held: HashMap<Key, Vec<u8>>,
        answer_at_most: usize,
        calls: usize,
        stored: Vec<Key>,
    }

    impl Fleet for Shelf {
        fn fetch(&mut self, keys: &[Key], keys_only: bool) -> Result<Fetched, FleetError> {
            self.calls += 1;
            let answered = keys.len().min(self.answer_at_most.max(1));
            let entries = keys[..answered]
                .iter()
                .filter_map(|k| {
                    let bytes = self.held.get(k)?;
                    Some((*k, if keys_only { Vec::new() } else { bytes.clone() }))
                })
                .collect();
            Ok(Fetched { entries, answered })
        }

        fn store(&mut self, entries: &[(Key, Vec<u8>)]) -> Result<(), FleetError> {
            for (key, bytes) in entries {
                self.stored.push(*key);
                self.held.insert(*key, bytes.clone());
            }
            Ok(())
        }
    }

    fn scratch(name: &str) -> Arc<FactsCache> {
        let dir = std::env::temp_dir().join(format!("revu-fleet-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Arc::new(FactsCache::open(&dir).unwrap_or_else(|e| panic!("{e}")))
    }

    fn entry(content: &str) -> (Key, Vec<u8>) {
        let blob = BlobId::of(content.as_bytes());
        let facts = FileFacts::default();
        let bytes = entry::seal(&Stamp::current(), Lang::Python, blob, 1, &facts);
        ((blob, Lang::Python), bytes)
    }

    #[test]
    fn what_the_fleet_holds_whole_is_kept_and_the_rest_is_given_back_once_built() {
        let cache = scratch("fill");
        let (good, good_bytes) = entry("good = 1\n");
        let (corrupt, mut corrupt_bytes) = entry("corrupt = 2\n");
        let last = corrupt_bytes.len() - 1;
        corrupt_bytes[last] ^= 1;
        // Another blob's entry, held under this key.
        let (foreign, _) = entry("foreign = 3\n");
        let (missing, missing_bytes) = entry("missing = 4\n");
        // This machine has it; the fleet does not.
        let (local, local_bytes) = entry("local = 5\n");
        cache
            .admit(local.0, local.1, &local_bytes)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut shelf = Shelf {
            answer_at_most: 2,
            ..Shelf::default()
        };
        shelf.held.insert(good, good_bytes.clone());
        shelf.held.insert(corrupt, corrupt_bytes);
        shelf.held.insert(foreign, good_bytes);
        let keys = BTreeSet::from([good, corrupt, foreign, missing, local]);
        let (stats, give_back) = fill(&cache, &mut shelf, keys).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            stats,
            FleetStats {
                asked: 4,
                fetched: 1,
                rejected: 2
            }
        );
        // Two keys per answer: every key was asked about all the same.
        assert_eq!(shelf.calls, 1 + 2);
        assert!(cache.holds(good.0, good.1));
        assert!(!cache.holds(corrupt.0, corrupt.1) && !cache.holds(foreign.0, foreign.1));
        assert_eq!(give_back.lacking.len(), 4);

        // The index parses what was missing and keeps it; what it did not
        // parse is not sent.
        cache
            .admit(missing.0, missing.1, &missing_bytes)
            .unwrap_or_else(|e| panic!("{e}"));
        let sent = give_back.send(&mut shelf).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sent, 2);
        let mut stored = shelf.stored.clone();
        stored.sort();
        let mut expected = vec![missing, local];
        expected.sort();
        assert_eq!(stored, expected);
    }

    #[test]
    fn a_coordinator_without_the_service_says_so_in_one_line() {
        let err = FleetError::from(tonic::Status::unimplemented("unknown service"));
        assert!(matches!(err, FleetError::NotOffered));
        let said = FleetError::from(tonic::Status::unavailable("redis down")).to_string();
        assert!(
            said.contains("redis down") && !said.contains('\n'),
            "{said}"
        );
    }
}
