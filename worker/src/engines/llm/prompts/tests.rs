#![allow(clippy::unwrap_used)]

use super::*;
use regex::Regex;

/// A fresh directory holding `files`.
fn dir_with(files: &[(&str, &[u8])]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("revu-prompts-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    dir
}

#[test]
fn a_file_in_the_directory_replaces_its_prompt_and_names_it_by_hash() {
    let text = "## Security\n### Hunt: money\nEvery amount is integer cents.\n";
    let dir = dir_with(&[("security.md", text.as_bytes()), (".hidden", b"x")]);
    let set = PromptSet::load(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let security = set.get(PromptName::Lane(Dimension::Security));
    assert_eq!(security.text, text);
    // sha256 of the text above, its first 12 hex digits.
    let hash = hex(&Sha256::digest(text.as_bytes()))[..12].to_owned();
    assert_eq!(security.version, format!("security@{hash}"));
    assert_eq!(
        set.version(&LaneKind::Specialist {
            dimension: Dimension::Security
        }),
        format!("review-v3+security@{hash}")
    );
    // Every other prompt stays built in.
    let builtin = PromptSet::default();
    for name in PromptName::ALL {
        if name != PromptName::Lane(Dimension::Security) {
            assert_eq!(set.get(name), builtin.get(name), "{name:?}");
        }
    }
    assert_ne!(set.identity(), builtin.identity());
}

#[test]
fn a_file_that_names_no_prompt_is_refused_by_name_with_the_accepted_names() {
    let dir = dir_with(&[("review.md", b"method"), ("securty.md", b"typo")]);
    let err = PromptSet::load(&dir).unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(err.problem, PromptProblem::Unknown), "{err}");
    assert_eq!(err.path.file_name().unwrap(), "securty.md");
    let message = err.to_string();
    assert!(message.contains("securty.md: names no prompt"), "{message}");
    assert!(
        message.contains("review.md, correctness.md, security.md, performance.md, design.md, testing.md, operability.md, domain.md, adjudicate.md, challenge.md, group.md, synthesize.md"),
        "{message}"
    );
    // A versioned name is not a prompt's name either.
    let dir = dir_with(&[("review-v3.md", b"method")]);
    let err = PromptSet::load(&dir).unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(err.problem, PromptProblem::Unknown), "{err}");
}

#[test]
fn an_empty_a_non_utf8_file_or_a_missing_directory_is_refused() {
    let dir = dir_with(&[("domain.md", b" \n\t\n")]);
    let err = PromptSet::load(&dir).unwrap_err();
    assert!(matches!(err.problem, PromptProblem::Empty), "{err}");
    assert!(err.to_string().contains("domain.md: is empty"), "{err}");
    std::fs::write(dir.join("domain.md"), b"caf\xe9").unwrap();
    let err = PromptSet::load(&dir).unwrap_err();
    assert!(matches!(err.problem, PromptProblem::NotUtf8), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
    let err = PromptSet::load(&dir).unwrap_err();
    assert!(matches!(err.problem, PromptProblem::Read(_)), "{err}");
    assert_eq!(err.path, dir);
}

#[test]
fn the_built_in_set_names_every_prompt_by_its_file() {
    let set = PromptSet::default();
    let versions: Vec<&str> = PromptName::ALL
        .iter()
        .map(|n| set.get(*n).version.as_str())
        .collect();
    assert_eq!(
        versions,
        [
            "review-v3",
            "correctness-v1",
            "security-v1",
            "performance-v1",
            "design-v1",
            "testing-v1",
            "operability-v1",
            "domain-v1",
            "adjudicate-v2",
            "challenge-v1",
            "group-v1",
            "synthesize-v1"
        ]
    );
    assert_eq!(set.identity(), PromptSet::default().identity());
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// A model told where the pipeline's confidence cut lies learns to
/// report just above it: no prompt may state one.
#[test]
fn no_prompt_states_where_findings_are_cut() {
    let patterns = [
        // "below 70", "under 80", "less than 75", "at least 80", "< 70"
        r"(?i)\b(below|under|less than|lower than|fewer than|beneath|at least|no less than|minimum(\s+of)?|threshold(\s+of)?)\s+(a\s+)?(confidence\s+(of\s+)?)?\d{2,3}\b",
        r"(<|<=|≤|>=|≥)\s*\d{2,3}\b",
        // "dropped ... 70", "70 ... dropped", within one sentence
        r"(?i)\b(drop|dropped|drops|discard(ed)?|filter(ed)?( out)?|suppress(ed)?|cut)\b[^.\n]{0,40}\b\d{2,3}\b",
        r"(?i)\b\d{2,3}\b[^.\n]{0,40}\b(drop|dropped|discarded|filtered|suppressed)\b",
    ]
    .map(|p| Regex::new(p).unwrap());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("prompts");
    let mut files = Vec::new();
    files_under(&root, &mut files);
    assert!(files.len() >= 11, "{files:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for pattern in &patterns {
            for m in pattern.find_iter(&text) {
                found.push(format!("{}: {:?}", file.display(), m.as_str()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
    // The scan itself catches what it is for.
    let planted = "IMPORTANT below 70 and SUGGESTION under 80 are dropped, so do not pad.";
    assert!(patterns.iter().any(|p| p.is_match(planted)));
    assert!(patterns[2].is_match("findings are dropped when confidence is 65"));
}
