//! Digests the source of the built-in rules (every `.rs` file under
//! `src/engines/rules/`, by path and content) into `RULES_SOURCE_SHA256`,
//! which the rules engine's cache identity carries: a change to a rule, a
//! pattern or a helper they share is another engine, whose lanes must not
//! reuse the reports of the one before.

use sha2::{Digest, Sha256};
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let rules = Path::new("src/engines/rules");
    println!("cargo:rerun-if-changed={}", rules.display());
    let mut files = Vec::new();
    if let Err(e) = collect(rules, &mut files) {
        panic!("reading {}: {e}", rules.display());
    }
    files.sort();
    let mut hash = Sha256::new();
    for path in &files {
        let bytes = fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        // Separators that no path or length holds, so that no two trees
        // hash alike.
        let name = path.to_string_lossy().replace('\\', "/");
        hash.update(name.as_bytes());
        hash.update([0]);
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(&bytes);
    }
    let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=RULES_SOURCE_SHA256={hex}");
}

/// Every `.rs` file under `dir`, recursively.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}
