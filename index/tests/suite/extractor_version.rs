//! Whether the extractor changed without its version: cache entries are
//! keyed by `EXTRACTOR_VERSION`, so an extractor that reads files
//! differently under the same version would be served the old facts.

use std::path::Path;

/// The version, and the fingerprint of the sources it was given for.
const RECORDED: (u32, &str) = (1, "a8dc181426120e158771b613f26c9119a6265d50");

/// The extractor's sources (`src/extract/`, `src/lang.rs`) and the
/// versions of tree-sitter and its grammars in Cargo.lock, as one SHA-1.
fn fingerprint() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources: Vec<_> = std::fs::read_dir(root.join("src/extract"))
        .unwrap_or_else(|e| panic!("src/extract: {e}"))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    sources.push(root.join("src/lang.rs"));
    sources.sort();
    let mut h = sha1_smol::Sha1::new();
    for path in &sources {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        h.update(name.unwrap_or_default().as_bytes());
        h.update(text.replace('\r', "").as_bytes());
    }
    let lock = std::fs::read_to_string(root.join("../Cargo.lock"))
        .unwrap_or_else(|e| panic!("the workspace's Cargo.lock: {e}"));
    let mut grammars = 0;
    for package in lock.split("[[package]]") {
        let field = |key: &str| {
            package
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().trim_matches('"').to_owned())
        };
        if let (Some(name), Some(version)) = (field("name ="), field("version ="))
            && name.starts_with("tree-sitter")
        {
            h.update(format!("{name} {version}\n").as_bytes());
            grammars += 1;
        }
    }
    assert!(
        grammars >= 7,
        "tree-sitter and its grammars are not in Cargo.lock"
    );
    h.digest().to_string()
}

#[test]
fn the_extractor_version_moves_with_the_extractor() {
    let now = fingerprint();
    assert_eq!(
        revu_index::extract::EXTRACTOR_VERSION,
        RECORDED.0,
        "EXTRACTOR_VERSION changed: record it here with the fingerprint {now}"
    );
    assert_eq!(
        now,
        RECORDED.1,
        "the extractor's sources or grammars changed: if what it reads of a file may have \
         changed, bump EXTRACTOR_VERSION (index/src/extract/mod.rs) to {next} and record \
         ({next}, \"{now}\") here; if it cannot have, record ({}, \"{now}\")",
        RECORDED.0,
        next = RECORDED.0 + 1,
    );
}
