//! Shared entries in a directory: one file each, laid out as a client's
//! own cache lays out its entries, below a directory of the tenant's.
//!
//! ```text
//! DIR/open/<stamp>/<2 hex>/<38 hex>.<language>          no tenant
//! DIR/tenant-<tenant>/<stamp>/<2 hex>/<38 hex>.<language>
//! ```
//!
//! What it keeps:
//!
//! - an entry is written to a file of its own and renamed into place, so
//!   coordinators sharing the directory leave whole entries, and a reader
//!   never sees half of one;
//! - an entry's modification time is its last use: set when it is stored,
//!   and when a lookup finds it (at most once an hour); a lookup answers
//!   only for entries used within the age limit;
//! - each tenant's total is known in this process once a trim has walked
//!   its directory: the first store after the start walks it, and so does
//!   a store that takes the total past the byte limit or that finds the
//!   last walk [`TRIM_EVERY`] old. A walk removes the entries unused past
//!   the age limit, the temporary files a stopped writer left, and, while
//!   the total is over the limit, the entries unused the longest, down to
//!   nine tenths of the limit so that the next stores do not walk again at
//!   once. Coordinators sharing the directory each count their own stores
//!   between walks, so the total can pass the limit by what the others
//!   stored since; the next walk of any of them takes it back.

use super::IndexCacheError;
use revu_domain::clock::{Clock, SharedClock};
use revu_queue::index_cache::{EntryName, Found, IndexCacheLimits, Kept};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How often a tenant's directory is walked, at most, when it stays
/// within its limit.
pub const TRIM_EVERY: Duration = Duration::from_secs(600);

/// How stale an entry's time may get before a lookup refreshes it.
const TOUCH_AFTER: Duration = Duration::from_secs(3600);

/// A temporary file older than this was left by a writer that stopped.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// Tells apart the temporary files of one process.
static TEMP: AtomicU64 = AtomicU64::new(0);

/// Shared entries below one directory.
#[derive(Debug)]
pub struct DirStore {
    top: PathBuf,
    limits: IndexCacheLimits,
    clock: SharedClock,
    /// Each tenant's total, as this process knows it; a tenant's stores
    /// take turns on it.
    tallies: Mutex<HashMap<Option<String>, Arc<Mutex<Tally>>>>,
}

/// A tenant's entries as this process counts them.
#[derive(Debug, Default)]
struct Tally {
    bytes: u64,
    /// When its directory was last walked (ms); never yet when `None`,
    /// and `bytes` is then unknown.
    walked_ms: Option<u64>,
}

/// One file a walk found.
struct Walked {
    path: PathBuf,
    len: u64,
    used_ms: u64,
}

fn ms_of(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn time_of(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl DirStore {
    /// The store below `top`, made if it is not there.
    pub fn open(top: PathBuf, limits: IndexCacheLimits) -> Result<DirStore, IndexCacheError> {
        std::fs::create_dir_all(&top).map_err(|source| IndexCacheError::Dir {
            path: top.clone(),
            source,
        })?;
        Ok(DirStore {
            top,
            limits,
            clock: revu_domain::clock::system(),
            tallies: Mutex::default(),
        })
    }

    /// Reads the time of uses from `clock` (by default, the system's).
    pub fn with_clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// The directory of `tenant`'s entries.
    fn tenant_dir(&self, tenant: Option<&str>) -> PathBuf {
        match tenant {
            None => self.top.join("open"),
            Some(t) => self.top.join(format!("tenant-{t}")),
        }
    }

    fn tally(&self, tenant: Option<&str>) -> Arc<Mutex<Tally>> {
        let mut all = self.tallies.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(all.entry(tenant.map(str::to_owned)).or_default())
    }

    /// See [`super::IndexCacheStore::look_up`].
    pub fn look_up(
        &self,
        tenant: Option<&str>,
        names: &[EntryName],
        keys_only: bool,
        budget: usize,
    ) -> Result<Found, IndexCacheError> {
        let dir = self.tenant_dir(tenant);
        let now = self.clock.now_ms();
        let oldest = now.saturating_sub(millis(self.limits.max_age));
        let mut found = Vec::with_capacity(names.len());
        let mut sent = 0usize;
        for name in names {
            let path = dir.join(name.path());
            let used = match std::fs::metadata(&path) {
                Ok(meta) if meta.is_file() => meta.modified().map_or(0, ms_of),
                _ => {
                    found.push(None);
                    continue;
                }
            };
            if used < oldest {
                found.push(None);
                continue;
            }
            let bytes = if keys_only {
                Vec::new()
            } else {
                let bytes = match std::fs::read(&path) {
                    Ok(bytes) => bytes,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        found.push(None);
                        continue;
                    }
                    Err(source) => return Err(IndexCacheError::Dir { path, source }),
                };
                if sent > 0 && sent.saturating_add(bytes.len()) > budget {
                    break;
                }
                sent = sent.saturating_add(bytes.len());
                bytes
            };
            if now.saturating_sub(used) > millis(TOUCH_AFTER) {
                touch(&path, now);
            }
            found.push(Some(bytes));
        }
        Ok(found)
    }

    /// See [`super::IndexCacheStore::keep`].
    pub fn keep(
        &self,
        tenant: Option<&str>,
        entries: &[(EntryName, Vec<u8>)],
    ) -> Result<Kept, IndexCacheError> {
        let dir = self.tenant_dir(tenant);
        let tally = self.tally(tenant);
        let mut tally = tally.lock().unwrap_or_else(|p| p.into_inner());
        let now = self.clock.now_ms();
        let mut kept = Kept::default();
        for (name, bytes) in entries {
            let path = dir.join(name.path());
            let old = std::fs::metadata(&path).map_or(0, |m| m.len());
            write(&path, bytes, now).map_err(|source| IndexCacheError::Dir {
                path: path.clone(),
                source,
            })?;
            let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
            tally.bytes = tally.bytes.saturating_sub(old).saturating_add(len);
            kept.stored += 1;
        }
        let due = tally
            .walked_ms
            .is_none_or(|t| now.saturating_sub(t) >= millis(TRIM_EVERY));
        if due || tally.bytes > self.limits.max_tenant_bytes {
            let (left, evicted) = trim(&dir, now, &self.limits);
            *tally = Tally {
                bytes: left,
                walked_ms: Some(now),
            };
            kept.evicted = evicted;
        }
        Ok(kept)
    }
}

/// Writes `bytes` to a file of its own beside `path`, used at `now_ms`,
/// then renames it into place.
fn write(path: &Path, bytes: &[u8], now_ms: u64) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let n = TEMP.fetch_add(1, Ordering::Relaxed);
    let mut temp = path.as_os_str().to_owned();
    temp.push(format!(".{}.{n}.tmp", std::process::id()));
    let temp = PathBuf::from(temp);
    let written = std::fs::write(&temp, bytes)
        .and_then(|()| {
            std::fs::File::options()
                .append(true)
                .open(&temp)?
                .set_modified(time_of(now_ms))
        })
        .and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// Marks an entry used at `now_ms`; an entry that cannot be marked ages
/// as it would have unused.
fn touch(path: &Path, now_ms: u64) {
    if let Ok(file) = std::fs::File::options().append(true).open(path) {
        let _ = file.set_modified(time_of(now_ms));
    }
}

/// Walks a tenant's directory: removes what the limits no longer allow
/// (see the module's doc), and the directories that leaves empty. Returns
/// the bytes left and how many entries went.
fn trim(dir: &Path, now_ms: u64, limits: &IndexCacheLimits) -> (u64, usize) {
    let mut files = Vec::new();
    walk(dir, &mut files);
    let oldest = now_ms.saturating_sub(millis(limits.max_age));
    let stale_temp = now_ms.saturating_sub(millis(STALE_TEMP));
    let mut evicted = 0;
    let mut kept = Vec::with_capacity(files.len());
    for f in files {
        let temp = f.path.extension().is_some_and(|e| e == "tmp");
        if temp {
            if f.used_ms < stale_temp {
                let _ = std::fs::remove_file(&f.path);
            }
            continue;
        }
        if f.used_ms < oldest {
            if std::fs::remove_file(&f.path).is_ok() {
                evicted += 1;
            }
            continue;
        }
        kept.push(f);
    }
    let mut total: u64 = kept.iter().map(|f| f.len).sum();
    if total > limits.max_tenant_bytes {
        let low_water = limits.max_tenant_bytes - limits.max_tenant_bytes / 10;
        kept.sort_by_key(|f| f.used_ms);
        for f in &kept {
            if total <= low_water {
                break;
            }
            if std::fs::remove_file(&f.path).is_ok() {
                total -= f.len;
                evicted += 1;
            }
        }
    }
    remove_empty_dirs(dir);
    (total, evicted)
}

/// Every file below `dir`.
fn walk(dir: &Path, out: &mut Vec<Walked>) {
    let Ok(list) = std::fs::read_dir(dir) else {
        return;
    };
    for item in list.flatten() {
        let Ok(meta) = item.metadata() else { continue };
        let path = item.path();
        if meta.is_dir() {
            walk(&path, out);
        } else if meta.is_file() {
            out.push(Walked {
                path,
                len: meta.len(),
                used_ms: meta.modified().map_or(0, ms_of),
            });
        }
    }
}

/// Removes the directories below `dir` that hold nothing.
fn remove_empty_dirs(dir: &Path) {
    let Ok(list) = std::fs::read_dir(dir) else {
        return;
    };
    for item in list.flatten() {
        if item.file_type().is_ok_and(|t| t.is_dir()) {
            let path = item.path();
            remove_empty_dirs(&path);
            // Only succeeds once empty.
            let _ = std::fs::remove_dir(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock the test moves by hand.
    #[derive(Debug, Clone)]
    struct Hands(Arc<AtomicU64>);

    impl Clock for Hands {
        fn now_ms(&self) -> u64 {
            self.0.load(Ordering::Relaxed)
        }
    }

    impl Hands {
        fn set(&self, ms: u64) {
            self.0.store(ms, Ordering::Relaxed);
        }
    }

    const DAY: u64 = 24 * 3600 * 1000;
    /// A time well after the epoch, as file times are.
    const T0: u64 = 1_700_000_000_000;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("revu-shared-index-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn store(name: &str, limits: IndexCacheLimits) -> (DirStore, Hands, PathBuf) {
        let dir = scratch(name);
        let hands = Hands(Arc::new(AtomicU64::new(T0)));
        let store = DirStore::open(dir.clone(), limits)
            .unwrap_or_else(|e| panic!("{e}"))
            .with_clock(hands.clone());
        (store, hands, dir)
    }

    fn name(n: u8) -> EntryName {
        let blob = format!("{n:02x}{}", "0".repeat(38));
        EntryName::new("0.1.0-x1-l1", &blob, "python").unwrap_or_else(|e| panic!("{e}"))
    }

    fn held(store: &DirStore, tenant: Option<&str>, names: &[EntryName]) -> Vec<bool> {
        store
            .look_up(tenant, names, true, usize::MAX)
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .map(|f| f.is_some())
            .collect()
    }

    #[test]
    fn past_its_byte_limit_a_tenant_loses_the_entries_unused_the_longest() {
        let limits = IndexCacheLimits {
            max_tenant_bytes: 1000,
            max_age: Duration::from_secs(7 * 24 * 3600),
        };
        let (store, hands, dir) = store("bound", limits);
        let names: Vec<EntryName> = (0..5).map(name).collect();
        let hour = 3600 * 1000;
        for (i, n) in names.iter().enumerate() {
            let at = T0 + u64::try_from(i).unwrap_or(0) * 2 * hour;
            // The first is used again between the third and the fourth
            // coming: the second and third are then unused the longest.
            if i == 3 {
                hands.set(at - hour);
                assert_eq!(held(&store, None, &names[..1]), [true]);
            }
            hands.set(at);
            let kept = store
                .keep(None, &[(n.clone(), vec![b'x'; 300])])
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(kept.stored, 1);
        }
        // 1,500 bytes stored into 1,000: down to 900 at most, the least
        // lately used first (the second, then the third).
        assert_eq!(held(&store, None, &names), [true, false, false, true, true]);
        let mut files = Vec::new();
        walk(&dir, &mut files);
        let total: u64 = files.iter().map(|f| f.len).sum();
        assert!(total <= 900, "{total}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_entry_unused_past_the_age_limit_is_forgotten_and_a_use_keeps_one() {
        let limits = IndexCacheLimits {
            max_tenant_bytes: 1 << 20,
            max_age: Duration::from_secs(7 * 24 * 3600),
        };
        let (store, hands, dir) = store("age", limits);
        let (a, b) = (name(1), name(2));
        for n in [&a, &b] {
            store
                .keep(None, &[(n.clone(), b"entry".to_vec())])
                .unwrap_or_else(|e| panic!("{e}"));
        }
        hands.set(T0 + 5 * DAY);
        assert_eq!(held(&store, None, std::slice::from_ref(&b)), [true]);
        hands.set(T0 + 8 * DAY);
        // a was last used 8 days ago; b 3 days ago.
        assert_eq!(held(&store, None, &[a.clone(), b.clone()]), [false, true]);
        // The next store past a walk's interval removes a from the disk.
        let kept = store
            .keep(None, &[(name(3), b"entry".to_vec())])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(kept.evicted, 1);
        assert!(!dir.join("open").join(a.path()).exists());
        assert!(dir.join("open").join(b.path()).exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_tenant_never_reads_another_tenants_entries() {
        let (store, _, dir) = store("tenants", IndexCacheLimits::default());
        let n = name(7);
        store
            .keep(Some("team-a"), &[(n.clone(), b"a's".to_vec())])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            held(&store, Some("team-a"), std::slice::from_ref(&n)),
            [true]
        );
        assert_eq!(
            held(&store, Some("team-b"), std::slice::from_ref(&n)),
            [false]
        );
        assert_eq!(held(&store, None, std::slice::from_ref(&n)), [false]);
        // A tenant's name stays one directory below the top.
        store
            .keep(Some(".."), &[(n.clone(), b"dots".to_vec())])
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(dir.join("tenant-..").is_dir());
        assert_eq!(held(&store, None, std::slice::from_ref(&n)), [false]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_answer_stops_at_its_budget_but_never_before_its_first_entry() {
        let (store, _, dir) = store("budget", IndexCacheLimits::default());
        let names: Vec<EntryName> = (0..4).map(name).collect();
        let entries: Vec<(EntryName, Vec<u8>)> = names
            .iter()
            .skip(1)
            .map(|n| (n.clone(), vec![b'y'; 100]))
            .collect();
        store.keep(None, &entries).unwrap_or_else(|e| panic!("{e}"));
        let found = |budget| {
            store
                .look_up(None, &names, false, budget)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        // The first key is not held; the second's entry goes over a budget
        // of 50 but is the first found.
        let small = found(50);
        assert_eq!(small.len(), 2);
        assert_eq!(small[0], None);
        assert_eq!(small[1].as_ref().map(Vec::len), Some(100));
        assert_eq!(found(250).len(), 3);
        assert_eq!(found(300).len(), 4);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
