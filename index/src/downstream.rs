//! The downstream sweep: sibling checkouts of the repositories that consume
//! this one, searched for the names of what the change removed, renamed or
//! changed (`--consumers-root DIR`).

use revu_domain::code_index::{CodeIndex, DownstreamHit};
use std::collections::BTreeMap;
use std::path::Path;

/// Most hits kept per review.
const MAX_HITS: usize = 200;
/// Files read at most per downstream repository.
const MAX_FILES: usize = 50_000;
/// Larger files are not read.
const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Shorter names match too much to mean anything.
const MIN_NAME: usize = 4;

const SKIP_DIRS: [&str; 6] = [".git", "node_modules", "target", "vendor", "dist", "build"];

/// The names the sweep looks for, with how the change touched each: what
/// the change removed, renamed or re-shaped, and the symbols whose
/// definitions it changed.
pub fn contract_tokens(index: &CodeIndex) -> BTreeMap<String, String> {
    let mut tokens = BTreeMap::new();
    for t in &index.taken {
        tokens.insert(t.symbol.clone(), t.change.clone());
    }
    for file in index.files.values() {
        for s in file.symbols.iter().filter(|s| s.changed) {
            tokens
                .entry(s.name.clone())
                .or_insert_with(|| "changed".to_owned());
        }
    }
    tokens.retain(|name, _| name.len() >= MIN_NAME);
    tokens
}

/// Every use of `tokens` in the repositories under `root` (each directory
/// directly under it is one), as whole words.
pub fn sweep(
    root: &Path,
    tokens: &BTreeMap<String, String>,
) -> std::io::Result<Vec<DownstreamHit>> {
    let mut hits = Vec::new();
    if tokens.is_empty() {
        return Ok(hits);
    }
    let mut repos: Vec<_> = std::fs::read_dir(root)?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    repos.sort();
    for repo in repos {
        let name = repo
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut files = Vec::new();
        walk(&repo, &mut files);
        files.sort();
        for file in files.into_iter().take(MAX_FILES) {
            let Ok(text) = std::fs::read(&file) else {
                continue;
            };
            if text.contains(&0) {
                continue;
            }
            let rel = file
                .strip_prefix(&repo)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = String::from_utf8_lossy(&text);
            for (i, line) in text.lines().enumerate() {
                for (token, how) in tokens {
                    if has_word(line, token) {
                        hits.push(DownstreamHit {
                            repository: name.clone(),
                            file: rel.clone(),
                            line: u32::try_from(i + 1).unwrap_or(u32::MAX),
                            symbol: token.clone(),
                            change: how.clone(),
                        });
                        if hits.len() >= MAX_HITS {
                            return Ok(hits);
                        }
                    }
                }
            }
        }
    }
    Ok(hits)
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.filter_map(Result::ok) {
        let Ok(kind) = e.file_type() else { continue };
        let path = e.path();
        if kind.is_dir() {
            let skip = e
                .file_name()
                .to_str()
                .is_some_and(|n| SKIP_DIRS.contains(&n));
            if !skip {
                walk(&path, out);
            }
        } else if kind.is_file() && e.metadata().is_ok_and(|m| m.len() <= MAX_FILE_BYTES) {
            out.push(path);
        }
        if out.len() >= MAX_FILES {
            return;
        }
    }
}

/// `word` in `line`, not inside a longer identifier.
fn has_word(line: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut from = 0;
    while let Some(at) = line[from..].find(word) {
        let start = from + at;
        let end = start + word.len();
        let before = line[..start].chars().next_back();
        let after = line[end..].chars().next();
        if !before.is_some_and(ident) && !after.is_some_and(ident) {
            return true;
        }
        from = end;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::has_word;

    #[test]
    fn words_are_whole() {
        assert!(has_word("x = user.user_name", "user_name"));
        assert!(!has_word("x = user.user_name2", "user_name"));
        assert!(!has_word("my_user_name", "user_name"));
        assert!(has_word("(user_name)", "user_name"));
    }
}
