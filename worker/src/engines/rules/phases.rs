//! The rules engine on the two lanes that review nothing. As the grouping
//! lane it keeps the deterministic proposal as it is; as the synthesis lane
//! it writes a plain walkthrough from the diff and the report's findings:
//! what changed, file by file, and what the review found where. Both are
//! what an offline fleet can say without a model.

use revu_domain::diff::{Diff, FilePatch, FileStatus};
use revu_domain::finding::{Finding, Severity};
use revu_domain::lane::{FileNote, LaneReportBody, Slice};

/// The grouping lane's report: the proposal, unchanged.
pub(crate) fn group(proposal: &[Slice]) -> LaneReportBody {
    let files: usize = proposal.iter().map(|s| s.files.len()).sum();
    LaneReportBody {
        reviewed: proposal.iter().flat_map(|s| s.files.clone()).collect(),
        checks: vec!["deterministic grouping kept".to_owned()],
        summary: format!(
            "kept the proposal: {} slice(s) over {files} file(s).",
            proposal.len()
        ),
        slices: proposal.to_vec(),
        ..LaneReportBody::default()
    }
}

/// The synthesis lane's report: a walkthrough of `diff` and its `findings`.
pub(crate) fn synthesize(diff: &Diff, findings: &[Finding]) -> LaneReportBody {
    let count = |status: FileStatus| diff.files.iter().filter(|f| f.status == status).count();
    let (added, removed) = diff.files.iter().fold((0u64, 0u64), |(a, r), f| {
        (a + u64::from(f.added()), r + u64::from(f.removed()))
    });
    let kinds: Vec<String> = [
        FileStatus::Added,
        FileStatus::Modified,
        FileStatus::Deleted,
        FileStatus::Renamed,
        FileStatus::Copied,
        FileStatus::TypeChanged,
    ]
    .into_iter()
    .filter(|s| count(*s) > 0)
    .map(|s| format!("{} {}", count(s), s.as_str()))
    .collect();
    let mut text = format!(
        "The change touches {} file(s) (+{added} −{removed}): {}.",
        diff.files.len(),
        kinds.join(", ")
    );
    text.push_str("\n\n");
    text.push_str(&found(findings));
    let file_notes = diff
        .files
        .iter()
        .map(|f| FileNote {
            path: f.path().to_owned(),
            note: note(f, findings),
        })
        .collect();
    LaneReportBody {
        reviewed: diff.files.iter().map(|f| f.path().to_owned()).collect(),
        checks: vec!["walkthrough from the diff".to_owned()],
        summary: format!("walkthrough of {} file(s).", diff.files.len()),
        walkthrough: text,
        file_notes,
        ..LaneReportBody::default()
    }
}

/// What the review found, by severity.
fn found(findings: &[Finding]) -> String {
    if findings.is_empty() {
        return "The review found nothing to report.".to_owned();
    }
    let by = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    format!(
        "The review found {} BLOCKER, {} IMPORTANT and {} SUGGESTION finding(s).",
        by(Severity::Blocker),
        by(Severity::Important),
        by(Severity::Suggestion)
    )
}

/// One file's line: how it changed, and the rules that found something
/// in it.
fn note(f: &FilePatch, findings: &[Finding]) -> String {
    let how = match (f.status, f.binary) {
        (_, true) => format!("{} (binary)", status_word(f)),
        (FileStatus::Added, false) => format!("added, {} line(s)", f.added()),
        (FileStatus::Deleted, false) => format!("deleted, {} line(s)", f.removed()),
        _ => format!("{}, +{} −{}", status_word(f), f.added(), f.removed()),
    };
    let here: Vec<&Finding> = findings.iter().filter(|x| x.file == f.path()).collect();
    let rules: std::collections::BTreeSet<&str> = here.iter().map(|x| x.rule.as_str()).collect();
    if here.is_empty() {
        how
    } else {
        let rules: Vec<&str> = rules.into_iter().collect();
        format!("{how}; {} finding(s): {}", here.len(), rules.join(", "))
    }
}

fn status_word(f: &FilePatch) -> String {
    match (f.status, &f.old_path) {
        (FileStatus::Renamed | FileStatus::Copied, Some(old)) => {
            format!("{} from {old}", f.status.as_str())
        }
        (status, _) => status.as_str().to_owned(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use revu_domain::diff;

    const PATCH: &str = "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n\
@@ -1,2 +1,2 @@\n-old\n+new\n ctx\n\
diff --git a/src/b.rs b/src/b.rs\nnew file mode 100644\n--- /dev/null\n+++ b/src/b.rs\n\
@@ -0,0 +1,2 @@\n+one\n+two\n";

    #[test]
    fn the_walkthrough_names_every_file_and_what_was_found_in_it() {
        let diff = diff::parse(PATCH.as_bytes()).unwrap();
        let finding: Finding = serde_json::from_value(serde_json::json!({
            "rule": "RV-COR-001", "severity": "BLOCKER", "file": "src/b.rs", "line": 1,
            "dimension": "correctness", "summary": "s", "why": "w", "fix": "f",
            "confidence": 90, "blast_radius": "local"
        }))
        .unwrap();
        let body = synthesize(&diff, &[finding]);
        assert!(
            body.walkthrough
                .contains("2 file(s) (+3 −1): 1 added, 1 modified")
        );
        assert!(
            body.walkthrough.contains("1 BLOCKER"),
            "{}",
            body.walkthrough
        );
        let notes: Vec<(&str, &str)> = body
            .file_notes
            .iter()
            .map(|n| (n.path.as_str(), n.note.as_str()))
            .collect();
        assert_eq!(
            notes,
            [
                ("src/a.rs", "modified, +1 −1"),
                ("src/b.rs", "added, 2 line(s); 1 finding(s): RV-COR-001")
            ]
        );
        assert!(body.findings.is_empty());
    }

    #[test]
    fn the_grouping_lane_keeps_the_proposal() {
        let proposal = vec![Slice {
            name: "core".into(),
            domain: "core".into(),
            files: vec!["src/a.rs".into()],
        }];
        let body = group(&proposal);
        assert_eq!(body.slices, proposal);
        assert!(body.findings.is_empty());
    }
}
