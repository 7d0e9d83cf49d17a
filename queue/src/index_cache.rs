//! The code index's cache entries a fleet shares through its coordinators:
//! what names an entry, and the bounds a store keeps them within.
//!
//! An entry is opaque here: the bytes of one file's facts as a client
//! sealed them. Clients check every entry they are given (its checksum,
//! and that its header names the blob, language and versions asked for),
//! so a store never needs to understand one, only to keep it under the
//! name it was given and to hand it back whole. [`EntryName`] holds the
//! names a store accepts: ones that cannot reach outside a tenant's
//! entries, whether as a Redis hash field or as a path below a directory.

use std::path::PathBuf;
use std::time::Duration;

/// What one entry is the facts of, and who wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntryName {
    stamp: String,
    blob: String,
    language: String,
}

/// A part of an entry's name that no client of revu sends.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadEntryName {
    #[error(
        "stamp {0:?} is not 1 to 64 letters, digits and `.+-_`, starting with a letter or digit"
    )]
    Stamp(String),
    #[error("blob id {0:?} is not 40 lowercase hex digits")]
    Blob(String),
    #[error("language {0:?} is not 1 to 16 lowercase letters and digits")]
    Language(String),
}

impl EntryName {
    /// The entry of blob `blob` (40 lowercase hex digits) read as
    /// `language` by the writer `stamp` (`0.1.0-x1-l1`).
    pub fn new(stamp: &str, blob: &str, language: &str) -> Result<EntryName, BadEntryName> {
        let stamp_ok = (1..=64).contains(&stamp.len())
            && stamp.as_bytes()[0].is_ascii_alphanumeric()
            && stamp
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".+-_".contains(&b));
        if !stamp_ok {
            return Err(BadEntryName::Stamp(stamp.to_owned()));
        }
        let blob_ok = blob.len() == 40
            && blob
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !blob_ok {
            return Err(BadEntryName::Blob(blob.to_owned()));
        }
        let language_ok = (1..=16).contains(&language.len())
            && language
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
        if !language_ok {
            return Err(BadEntryName::Language(language.to_owned()));
        }
        Ok(EntryName {
            stamp: stamp.to_owned(),
            blob: blob.to_owned(),
            language: language.to_owned(),
        })
    }

    pub fn stamp(&self) -> &str {
        &self.stamp
    }

    pub fn blob(&self) -> &str {
        &self.blob
    }

    pub fn language(&self) -> &str {
        &self.language
    }

    /// The name as one string, `<stamp>/<blob>.<language>`: a Redis hash
    /// field.
    pub fn field(&self) -> String {
        format!("{}/{}.{}", self.stamp, self.blob, self.language)
    }

    /// Where the entry lies below a tenant's directory:
    /// `<stamp>/<2 hex>/<38 hex>.<language>`, as the client's own cache
    /// lays out its entries.
    pub fn path(&self) -> PathBuf {
        let (fan, rest) = self.blob.split_at(2);
        PathBuf::from(&self.stamp)
            .join(fan)
            .join(format!("{rest}.{}", self.language))
    }
}

/// How much a store keeps for each tenant, and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexCacheLimits {
    /// Bytes of entries kept per tenant; past it, the entries unused the
    /// longest go first.
    pub max_tenant_bytes: u64,
    /// An entry unused (neither stored nor looked up) for this long is
    /// forgotten.
    pub max_age: Duration,
}

impl Default for IndexCacheLimits {
    fn default() -> Self {
        IndexCacheLimits {
            max_tenant_bytes: 256 * 1024 * 1024,
            max_age: Duration::from_secs(7 * 24 * 3600),
        }
    }
}

/// What a lookup found: for each key looked up, in order, the entry (empty
/// when only whether it is held was asked), or `None` when not held.
/// Shorter than the keys asked for when the answer reached its size limit:
/// the rest were not looked up.
pub type Found = Vec<Option<Vec<u8>>>;

/// What a store did with entries it was given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Kept {
    /// Entries stored.
    pub stored: usize,
    /// Entries of the tenant removed to stay within its limits (unused too
    /// long, or the least lately used past its byte limit).
    pub evicted: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOB: &str = "ce013625030ba8dba906f756967f9e9ca394464a";

    #[test]
    fn a_name_is_what_a_client_sends_and_nothing_that_reaches_elsewhere() {
        let name = EntryName::new("0.1.0-x1-l1", BLOB, "python").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(name.field(), format!("0.1.0-x1-l1/{BLOB}.python"));
        assert_eq!(
            name.path(),
            PathBuf::from("0.1.0-x1-l1/ce/013625030ba8dba906f756967f9e9ca394464a.python")
        );
        for stamp in ["", "..", "../x", "a/b", ".hidden", "a b", &"9".repeat(65)] {
            assert_eq!(
                EntryName::new(stamp, BLOB, "python"),
                Err(BadEntryName::Stamp(stamp.to_owned())),
                "{stamp:?}"
            );
        }
        for blob in [
            "",
            &BLOB[1..],
            &BLOB.to_uppercase(),
            &format!("{}/", &BLOB[1..]),
        ] {
            assert!(
                matches!(EntryName::new("s", blob, "go"), Err(BadEntryName::Blob(_))),
                "{blob:?}"
            );
        }
        for language in ["", "Go", "go/..", "x.y", &"a".repeat(17)] {
            assert!(
                matches!(
                    EntryName::new("s", BLOB, language),
                    Err(BadEntryName::Language(_))
                ),
                "{language:?}"
            );
        }
        assert!(EntryName::new("1.2.0-rc.1+b_2-x12-l3", BLOB, "tsx").is_ok());
    }
}
