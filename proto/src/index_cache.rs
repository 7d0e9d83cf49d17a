//! The limits of `revu.v1.IndexCacheService` that both sides keep: a
//! client sizes its calls by them, and the coordinator refuses or drops
//! what goes past them.

/// Most keys one `FetchIndexEntries` call names.
pub const MAX_KEYS: usize = 4096;

/// Bytes of entries one `FetchIndexEntries` answer carries at most, past
/// its first entry; the keys after are answered by the next call.
pub const ANSWER_BYTES: usize = 8 * 1024 * 1024;

/// Bytes of entries one `StoreIndexEntries` call carries at most.
pub const STORE_BYTES: usize = 16 * 1024 * 1024;

/// Largest entry the coordinator keeps: an entry describes one file of at
/// most the index's file limit (1 MiB by default) in about half its size,
/// so this leaves room for a raised limit.
pub const MAX_ENTRY_BYTES: usize = 4 * 1024 * 1024;

/// Largest message either way: a store's entries, and room for their
/// keys.
pub const MESSAGE_LIMIT: usize = STORE_BYTES + 1024 * 1024;
