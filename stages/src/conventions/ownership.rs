//! Who a CI job asks to review: the owners, by the repository's
//! `CODEOWNERS`, of the changed files that carry a BLOCKER or an
//! always-human signal.

use super::RepoContext;
use revu_domain::diff::Diff;
use revu_domain::facts::{Signal, always_human_files};
use revu_domain::finding::{Finding, Severity};
use revu_domain::report::FileOwners;
use std::collections::BTreeMap;

impl RepoContext {
    /// The owners, by `CODEOWNERS`, of every changed file that carries a
    /// BLOCKER or an always-human signal; each BLOCKER finding names its
    /// file's owners too.
    pub fn owners(&self, diff: &Diff, findings: &mut [Finding]) -> Vec<FileOwners> {
        let Some(codeowners) = &self.codeowners else {
            return Vec::new();
        };
        let mut because: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for f in findings
            .iter_mut()
            .filter(|f| f.severity == Severity::Blocker)
        {
            f.owners = codeowners.owners_of(&f.file);
            let reasons = because.entry(f.file.clone()).or_default();
            if !reasons.iter().any(|r| r == "blocker") {
                reasons.push("blocker".to_owned());
            }
        }
        for (file, signals) in always_human_files(diff) {
            let reasons = because.entry(file).or_default();
            reasons.extend(signals.iter().map(|s| signal_key(*s)));
        }
        because
            .into_iter()
            .map(|(file, because)| FileOwners {
                owners: codeowners.owners_of(&file),
                file,
                because,
            })
            .collect()
    }
}

/// A signal as the report's JSON names it (`auth_surface`).
fn signal_key(signal: Signal) -> String {
    serde_json::to_value(signal)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
