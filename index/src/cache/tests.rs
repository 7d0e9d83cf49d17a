//! The cache's entries: kept and read back whole, and every entry that is
//! not exactly what was asked for refused.

use super::entry::{self, Rejection, Stamp};
use super::*;
use crate::extract::Readers;

const PY: &str = "import os\nfrom app.models import User as U\n\n\nclass Report(Base):\n    limit = 3\n\n    def render(self, user: U, *rest):\n        name = user.user_name\n        return os.path.join(name, self.limit)\n\n\ndef main():\n    Report().render(U(), 1, 2)\n";

fn facts(src: &str) -> FileFacts {
    Readers::default()
        .read(Lang::Python, src.as_bytes(), &|_| true)
        .unwrap_or_else(|| panic!("the Python grammar does not load"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("revu-facts-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_blob_id_is_the_one_git_gives() {
    // `printf 'hello\n' | git hash-object --stdin`, and the empty blob.
    assert_eq!(
        BlobId::of(b"hello\n").to_string(),
        "ce013625030ba8dba906f756967f9e9ca394464a"
    );
    assert_eq!(
        BlobId::of(b"").to_string(),
        "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    );
    let id = BlobId::of(PY.as_bytes());
    assert_eq!(BlobId::from_hex(&id.to_string()), Some(id));
    assert_eq!(BlobId::from_hex("ce01"), None);
    assert_eq!(BlobId::from_hex(&"g".repeat(40)), None);
}

#[test]
fn facts_read_back_are_the_facts_kept_and_narrowed_as_the_reader_narrows() {
    let all = facts(PY);
    assert!(!all.refs.is_empty() && !all.defs.is_empty() && !all.classes.is_empty());
    let id = BlobId::of(PY.as_bytes());
    let stamp = Stamp::current();
    let bytes = entry::seal(&stamp, Lang::Python, id, 42, &all);
    let (back, size) = entry::open(&bytes, &stamp, Lang::Python, id, &|_| true, None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((back, size), (all.clone(), 42));
    for names in [&["user_name"][..], &["render", "limit", "U"], &[]] {
        let want = |n: &str| names.contains(&n);
        let narrowed = Readers::default()
            .read(Lang::Python, PY.as_bytes(), &want)
            .unwrap_or_default();
        let (back, _) = entry::open(&bytes, &stamp, Lang::Python, id, &want, None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, narrowed, "{names:?}");
        assert_eq!(all.clone().keep(&want), narrowed, "{names:?}");
    }
}

#[test]
fn the_marks_an_entry_reads_back_are_those_of_the_whole_facts_however_narrowed() {
    let all = facts(PY);
    let id = BlobId::of(PY.as_bytes());
    let stamp = Stamp::current();
    let bytes = entry::seal(&stamp, Lang::Python, id, 42, &all);
    let whole = crate::tree::marks(&all);
    assert!(whole.len() > 5, "{whole:?}");
    for names in [&["user_name"][..], &["render", "limit", "U"], &[]] {
        let want = |n: &str| names.contains(&n);
        let mut marks = Vec::new();
        entry::open(&bytes, &stamp, Lang::Python, id, &want, Some(&mut marks))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(marks, whole, "{names:?}");
    }
}

#[test]
fn a_truncated_entry_is_refused_at_every_length() {
    let id = BlobId::of(PY.as_bytes());
    let stamp = Stamp::current();
    let bytes = entry::seal(&stamp, Lang::Python, id, 1, &facts(PY));
    for len in 0..bytes.len() {
        let got = entry::open(&bytes[..len], &stamp, Lang::Python, id, &|_| true, None);
        assert!(
            matches!(
                got,
                Err(Rejection::Truncated | Rejection::Checksum | Rejection::Magic)
            ),
            "{len}: {got:?}"
        );
    }
}

#[test]
fn a_changed_byte_anywhere_is_refused() {
    let id = BlobId::of(PY.as_bytes());
    let stamp = Stamp::current();
    let bytes = entry::seal(&stamp, Lang::Python, id, 1, &facts(PY));
    for at in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[at] ^= 0x20;
        let got = entry::open(&bad, &stamp, Lang::Python, id, &|_| true, None);
        assert!(got.is_err(), "byte {at} changed, still read");
    }
}

#[test]
fn an_entry_of_another_version_blob_or_language_is_refused() {
    let id = BlobId::of(PY.as_bytes());
    let other = BlobId::of(b"x = 1\n");
    let stamp = Stamp::current();
    let all = facts(PY);
    let open = |bytes: &[u8], lang, blob| entry::open(bytes, &stamp, lang, blob, &|_| true, None);
    for foreign in [
        Stamp {
            extractor: stamp.extractor + 1,
            ..stamp.clone()
        },
        Stamp {
            layout: stamp.layout + 1,
            ..stamp.clone()
        },
        Stamp {
            crate_version: "0.0.0-other".into(),
            ..stamp.clone()
        },
    ] {
        let bytes = entry::seal(&foreign, Lang::Python, id, 1, &all);
        assert_eq!(
            open(&bytes, Lang::Python, id).err(),
            Some(Rejection::Foreign)
        );
    }
    let bytes = entry::seal(&stamp, Lang::Python, id, 1, &all);
    assert_eq!(
        open(&bytes, Lang::Python, other).err(),
        Some(Rejection::WrongBlob)
    );
    assert_eq!(
        open(&bytes, Lang::Go, id).err(),
        Some(Rejection::WrongLanguage)
    );
}

#[test]
fn entries_refused_on_disk_are_misses_and_written_over() {
    let dir = scratch("disk");
    let cache = FactsCache::open(&dir).unwrap_or_else(|e| panic!("{e}"));
    let all = facts(PY);
    let id = BlobId::of(PY.as_bytes());
    let path = cache.entry_path(id, Lang::Python);
    assert!(cache.get(id, Lang::Python, &|_| true).is_none());
    cache.put(id, Lang::Python, 7, &all);
    assert_eq!(
        cache.get(id, Lang::Python, &|_| true),
        Some((all.clone(), 7))
    );

    // Truncated.
    let whole = std::fs::read(&path).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&path, &whole[..whole.len() / 2]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        cache.check(id, Lang::Python),
        Err(Some(Rejection::Truncated))
    );
    assert!(cache.get(id, Lang::Python, &|_| true).is_none());
    // Another blob's entry where this one's belongs.
    let other = BlobId::of(b"y = 2\n");
    cache.put(other, Lang::Python, 6, &all);
    std::fs::copy(cache.entry_path(other, Lang::Python), &path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        cache.check(id, Lang::Python),
        Err(Some(Rejection::WrongBlob))
    );
    assert!(cache.get(id, Lang::Python, &|_| true).is_none());
    // Written over, it is read again.
    cache.put(id, Lang::Python, 7, &all);
    assert_eq!(cache.check(id, Lang::Python), Ok(()));
    let stats = cache.stats();
    assert_eq!(
        (stats.hits, stats.rejected, stats.misses),
        (1, 2, 3),
        "{stats:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn writers_of_one_entry_at_once_leave_a_whole_entry() {
    let dir = scratch("race");
    let cache = FactsCache::open(&dir).unwrap_or_else(|e| panic!("{e}"));
    let all = facts(PY);
    let id = BlobId::of(PY.as_bytes());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..50 {
                    cache.put(id, Lang::Python, 7, &all);
                    // Whatever a reader finds is whole.
                    if let Some(found) = cache.get(id, Lang::Python, &|_| true) {
                        assert_eq!(found, (all.clone(), 7));
                    }
                }
            });
        }
    });
    assert_eq!(cache.stats().rejected, 0);
    assert_eq!(cache.stats().write_failures, 0);
    let left: Vec<_> =
        std::fs::read_dir(cache.entry_path(id, Lang::Python).parent().unwrap_or(&dir))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name())
            .collect();
    assert_eq!(left.len(), 1, "temporary files left: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_trim_removes_what_was_not_used_lately_and_waits_a_day_for_the_next() {
    let dir = scratch("trim");
    let cache = FactsCache::open(&dir).unwrap_or_else(|e| panic!("{e}"));
    let all = facts(PY);
    let (old, new, used) = (BlobId::of(b"old"), BlobId::of(b"new"), BlobId::of(b"used"));
    let long_ago = SystemTime::now() - MAX_AGE - Duration::from_secs(60);
    for blob in [old, new, used] {
        cache.put(blob, Lang::Python, 3, &all);
    }
    for blob in [old, used] {
        let file = std::fs::File::options()
            .append(true)
            .open(cache.entry_path(blob, Lang::Python))
            .unwrap_or_else(|e| panic!("{e}"));
        file.set_modified(long_ago)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    // A use makes an entry new again.
    assert!(cache.get(used, Lang::Python, &|_| true).is_some());
    assert_eq!(cache.trim_if_due(MAX_AGE).ok(), Some(1));
    assert!(cache.get(old, Lang::Python, &|_| true).is_none());
    assert!(cache.get(new, Lang::Python, &|_| true).is_some());
    assert!(cache.get(used, Lang::Python, &|_| true).is_some());
    // Trimmed a moment ago: not again today.
    assert_eq!(cache.trim_if_due(Duration::ZERO).ok(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_entry_from_elsewhere_is_kept_only_when_it_checks_and_handed_out_only_whole() {
    let dir = scratch("admit");
    let cache = FactsCache::open(&dir).unwrap_or_else(|e| panic!("{e}"));
    let all = facts(PY);
    let id = BlobId::of(PY.as_bytes());
    let other = BlobId::of(b"z = 3\n");
    let good = entry::seal(cache.stamp(), Lang::Python, id, 7, &all);
    let mut corrupt = good.clone();
    corrupt[good.len() / 2] ^= 1;
    assert!(matches!(
        cache.admit(id, Lang::Python, &corrupt),
        Err(Refused::Rejected(Rejection::Checksum))
    ));
    // Another blob's entry, offered as this one's.
    assert!(matches!(
        cache.admit(other, Lang::Python, &good),
        Err(Refused::Rejected(Rejection::WrongBlob))
    ));
    let foreign = Stamp {
        extractor: cache.stamp().extractor + 1,
        ..cache.stamp().clone()
    };
    let newer = entry::seal(&foreign, Lang::Python, id, 7, &all);
    assert!(matches!(
        cache.admit(id, Lang::Python, &newer),
        Err(Refused::Rejected(Rejection::Foreign))
    ));
    assert!(!cache.holds(id, Lang::Python) && !cache.holds(other, Lang::Python));

    cache
        .admit(id, Lang::Python, &good)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(cache.holds(id, Lang::Python));
    assert_eq!(cache.sealed(id, Lang::Python), Some(good));
    assert_eq!(cache.get(id, Lang::Python, &|_| true), Some((all, 7)));
    // What no longer checks on disk is not handed out.
    std::fs::write(cache.entry_path(id, Lang::Python), &corrupt).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cache.sealed(id, Lang::Python), None);
    assert_eq!(cache.sealed(other, Lang::Python), None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stamp_names_the_crate_extractor_and_layout_versions() {
    let stamp = Stamp {
        layout: 3,
        extractor: 12,
        crate_version: "1.2.0-rc.1".into(),
    };
    assert_eq!(stamp.to_string(), "1.2.0-rc.1-x12-l3");
}
