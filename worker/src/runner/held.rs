//! The job entries a worker holds right now, so a drain that runs out of
//! time can hand them back.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};

#[derive(Debug, Clone, Default)]
pub(super) struct Held {
    entries: Arc<Mutex<BTreeSet<String>>>,
}

impl Held {
    fn lock(&self) -> MutexGuard<'_, BTreeSet<String>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn insert(&self, entry: &str) {
        self.lock().insert(entry.to_owned());
    }

    pub(super) fn remove(&self, entry: &str) {
        self.lock().remove(entry);
    }

    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }

    pub(super) fn take_all(&self) -> Vec<String> {
        std::mem::take(&mut *self.lock()).into_iter().collect()
    }
}
