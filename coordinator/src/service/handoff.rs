//! Finished reports handed to a reader in the same process (the embedded
//! mode), so that it renders the report the coordinator built instead of
//! parsing the stored JSON back: on a large change that parse was a
//! tenth of the review, at its end, on one thread.

use revu_domain::lane::ReviewId;
use revu_domain::report::Report;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Reports by review, put by finalization and taken once by the reader.
#[derive(Debug, Default)]
pub struct ReportHandoff {
    reports: Mutex<HashMap<ReviewId, Arc<Report>>>,
}

impl ReportHandoff {
    pub(super) fn put(&self, id: &ReviewId, report: Arc<Report>) {
        self.reports
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone(), report);
    }

    /// The report finalization built for `id`, if this process built it
    /// and nobody took it yet.
    pub fn take(&self, id: &ReviewId) -> Option<Arc<Report>> {
        self.reports
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id)
    }
}
