//! The code index's cache through `revu index`, on a repository of real
//! code (this workspace's index and CLI crates and the breadth corpus, in
//! six languages): the index is the same with and without the cache, for a
//! commit, the staged change and the work tree; a one-file change of a
//! cached repository parses only what changed; an entry that is
//! truncated or not what it claims is refused and written again, as is a
//! summary of a tree that does not check out; and the cache goes where the
//! flag, the environment or XDG_CACHE_HOME says.
//! Needs git on PATH.

use crate::scratch;

use scratch::{Scratch, revu_command};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Copies the indexed files under `from` into the scratch repository.
fn copy_tree(s: &Scratch, from: &Path, rel: &str) -> usize {
    let mut n = 0;
    let Ok(list) = std::fs::read_dir(from) else {
        return 0;
    };
    for item in list.flatten() {
        let path = item.path();
        let name = item.file_name().to_string_lossy().into_owned();
        let to = format!("{rel}/{name}");
        if path.is_dir() {
            n += copy_tree(s, &path, &to);
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            s.write(&to, &text);
            n += 1;
        }
    }
    n
}

const LANG_RS: &str = "index/src/lang.rs";

/// A repository of real code, and a commit on it that renames a function
/// whose callers stay as they were.
fn repository(name: &str) -> Scratch {
    let s = Scratch::new(name);
    let mut n = 0;
    for dir in ["index/src", "cli/src", "tests/breadth"] {
        n += copy_tree(&s, &workspace().join(dir), dir);
    }
    assert!(
        n > 60,
        "the workspace's files are not where this test looks: {n} files"
    );
    s.write("index/Cargo.toml", "[package]\nname = \"revu-index\"\n");
    s.commit("real code");
    rename(&s, "checks_arity", "arity_checked");
    s.commit("rename");
    s
}

fn rename(s: &Scratch, from: &str, to: &str) {
    let path = s.dir.join(LANG_RS);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let renamed = text.replace(&format!("pub fn {from}("), &format!("pub fn {to}("));
    assert_ne!(text, renamed, "{LANG_RS} no longer defines {from}");
    s.write(LANG_RS, &renamed);
}

/// `revu index` in the repository with `args`; its JSON.
fn index<A: AsRef<std::ffi::OsStr> + std::fmt::Debug>(
    s: &Scratch,
    args: &[A],
    env: &[(&str, &Path)],
) -> Value {
    let out = revu_command(&s.dir, Some(&s.hostile))
        .envs(env.iter().copied())
        .arg("index")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "revu index {args:?}: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stderr}"))
}

fn cache_stats<A: AsRef<str>>(s: &Scratch, args: &[A]) -> Value {
    let args: Vec<&str> = args.iter().map(AsRef::as_ref).chain(["--stats"]).collect();
    let stats = index(s, &args, &[]);
    assert!(stats["cache"].is_object(), "{stats:#}");
    stats["cache"].clone()
}

/// The entries under a cache directory.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for item in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = item.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.parent() != Some(dir) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_index_is_the_same_with_and_without_the_cache_and_a_warm_one_parses_only_the_change() {
    let s = repository("cache-same");
    let cache = s.dir.parent().map(|p| p.join("cache")).unwrap_or_default();
    let cache_arg = cache.to_string_lossy().into_owned();
    let with = |extra: &[&'static str]| -> Vec<String> {
        extra
            .iter()
            .map(|a| a.to_string())
            .chain(["--index-cache".to_owned(), cache_arg.clone()])
            .collect()
    };

    let without = index(&s, &["--commit", "HEAD", "--no-index-cache"], &[]);
    let stale = without["omissions"].to_string();
    assert!(stale.contains("checks_arity"), "{without:#}");
    // Each stale use carries the lines around it, read again from git for
    // the files the change did not touch.
    let omissions = without["omissions"].as_array().cloned().unwrap_or_default();
    assert!(!omissions.is_empty());
    for o in &omissions {
        let snippet = &o["site"]["snippet"];
        let lines = snippet["lines"].as_array().cloned().unwrap_or_default();
        let first = snippet["first_line"].as_u64().unwrap_or(0);
        let line = o["site"]["line"].as_u64().unwrap_or(0);
        let at = usize::try_from(line.saturating_sub(first)).unwrap_or(usize::MAX);
        assert!(
            lines
                .get(at)
                .and_then(Value::as_str)
                .is_some_and(|l| l.contains("checks_arity")),
            "{o:#}"
        );
    }
    assert!(without["stats"]["files"].as_u64() > Some(45), "{without:#}");
    let cold = cache_stats(&s, &with(&["--commit", "HEAD"]));
    assert_eq!(cold["hits"], 0, "{cold}");
    assert!(cold["written"].as_u64() > Some(45), "{cold}");
    assert_eq!(
        index(&s, &with(&["--commit", "HEAD"]), &[]),
        without,
        "warm"
    );

    // One file changed again: it alone is parsed; of the rest, the files
    // where a use may be bound to what it defines come from the cache, and
    // the summary of the base tree stands for the others.
    rename(&s, "arity_checked", "arity_is_checked");
    s.commit("again");
    let stats = index(&s, &with(&["--commit", "HEAD", "--stats"]), &[]);
    let warm = &stats["cache"];
    assert_eq!(stats["tree"], "warm", "{stats:#}");
    assert_eq!(
        (&warm["misses"], &warm["written"]),
        (&1.into(), &1.into()),
        "{warm}"
    );
    let hits = warm["hits"].as_u64().unwrap_or(0);
    let files = stats["files"].as_u64().unwrap_or(0);
    assert!(hits > 1 && hits < files, "{hits} of {files} files read");
    let committed = index(&s, &["--commit", "HEAD", "--no-index-cache"], &[]);
    assert_eq!(index(&s, &with(&["--commit", "HEAD"]), &[]), committed);

    // The same change staged, then in the work tree: read from the files,
    // by the same blob ids.
    s.git(&["reset", "-q", "--soft", "HEAD~1"]);
    let staged = index(&s, &["--staged", "--no-index-cache"], &[]);
    assert_eq!(staged["omissions"], committed["omissions"]);
    assert_eq!(index(&s, &with(&["--staged"]), &[]), staged, "staged");
    let warm = cache_stats(&s, &with(&["--staged"]));
    assert_eq!(warm["misses"], 0, "{warm}");
    s.git(&["reset", "-q", "HEAD"]);
    let worktree = index(&s, &["--worktree", "--no-index-cache"], &[]);
    assert_eq!(worktree["omissions"], committed["omissions"], "work tree");
    assert_eq!(
        index(&s, &with(&["--worktree"]), &[]),
        worktree,
        "work tree"
    );
}

#[test]
fn a_truncated_or_misplaced_entry_is_refused_and_written_again() {
    let s = repository("cache-verify");
    let cache = s.dir.parent().map(|p| p.join("cache")).unwrap_or_default();
    let args = [
        "--commit",
        "HEAD",
        "--index-cache",
        &cache.to_string_lossy(),
    ]
    .map(str::to_owned);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let first = index(&s, &args, &[]);
    let all = entries(&cache);
    assert!(all.len() > 45, "{}", all.len());
    let (a, b) = (&all[0], &all[1]);
    let whole = std::fs::read(a).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(a, &whole[..whole.len() - 7]).unwrap_or_else(|e| panic!("{e}"));
    // Another file's entry in the place of b's.
    std::fs::copy(&all[2], b).unwrap_or_else(|e| panic!("{e}"));
    let stats = cache_stats(&s, &args);
    assert_eq!(
        (&stats["rejected"], &stats["written"]),
        (&2.into(), &2.into()),
        "{stats}"
    );
    assert_eq!(index(&s, &args, &[]), first);
    let again = cache_stats(&s, &args);
    assert_eq!(
        (&again["rejected"], &again["misses"]),
        (&0.into(), &0.into()),
        "{again}"
    );
}

/// The summaries of trees under a cache directory.
fn summaries(dir: &Path) -> Vec<PathBuf> {
    entries(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "tree"))
        .collect()
}

#[test]
fn a_summary_that_does_not_check_out_is_not_used_and_the_whole_tree_is_read() {
    let s = repository("cache-tree");
    let cache = s.dir.parent().map(|p| p.join("cache")).unwrap_or_default();
    let cache_arg = cache.to_string_lossy().into_owned();
    let args = ["--commit", "HEAD", "--index-cache", cache_arg.as_str()];
    let stats = |s: &Scratch| {
        let with: Vec<&str> = args.iter().copied().chain(["--stats"]).collect();
        index(s, &with, &[])
    };
    // The parent's tree summarised, then the change indexed warm from it.
    index(
        &s,
        &["--commit", "HEAD~1", "--index-cache", &cache_arg],
        &[],
    );
    assert_eq!(stats(&s)["tree"], "warm");
    let full = index(&s, &["--commit", "HEAD", "--no-index-cache"], &[]);
    assert_eq!(index(&s, &args, &[]), full);
    let kept = summaries(&cache);
    assert!(!kept.is_empty(), "no summary kept");
    let originals: Vec<Vec<u8>> = kept
        .iter()
        .map(|p| std::fs::read(p).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    // A flipped byte in the last block (the manifests, which the resolver
    // reads while the index is built), then one in every block: the head
    // (at the end, with its length after it) still checks out, a block
    // read does not.
    let blocks_end = |bytes: &[u8]| {
        let tail: [u8; 8] = bytes[bytes.len() - 8..].try_into().unwrap_or_default();
        bytes.len() - 8 - u64::from_le_bytes(tail) as usize
    };
    let last = |bytes: &mut Vec<u8>| {
        let end = blocks_end(bytes);
        bytes[end - 1] ^= 0x20;
    };
    let spread = |bytes: &mut Vec<u8>| {
        for at in (8..blocks_end(bytes)).step_by(61) {
            bytes[at] ^= 0x20;
        }
    };
    for corrupt in [&last as &dyn Fn(&mut Vec<u8>), &spread] {
        for (path, bytes) in kept.iter().zip(&originals) {
            let mut bad = bytes.clone();
            corrupt(&mut bad);
            std::fs::write(path, bad).unwrap_or_else(|e| panic!("{e}"));
        }
        let out = revu_command(&s.dir, Some(&s.hostile))
            .arg("index")
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(
            stderr.contains("checksum does not match")
                && stderr.contains("the code index reads the whole tree"),
            "{stderr}"
        );
        let got: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got, full, "the index read whole is the full one");
    }
}

#[test]
fn the_cache_goes_where_the_environment_says_or_nowhere() {
    let s = repository("cache-where");
    let root = s.dir.parent().map(Path::to_path_buf).unwrap_or_default();
    let (env_dir, xdg) = (root.join("from-env"), root.join("xdg"));
    let out = revu_command(&s.dir, Some(&s.hostile))
        .env("REVU_INDEX_CACHE", &env_dir)
        .args(["index", "--commit", "HEAD"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    assert!(!entries(&env_dir).is_empty(), "REVU_INDEX_CACHE");
    let out = revu_command(&s.dir, Some(&s.hostile))
        .env_remove("REVU_INDEX_CACHE")
        .env("XDG_CACHE_HOME", &xdg)
        .args(["index", "--commit", "HEAD"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    assert!(
        !entries(&xdg.join("revu/index")).is_empty(),
        "XDG_CACHE_HOME"
    );
    let off = root.join("off");
    let out = revu_command(&s.dir, Some(&s.hostile))
        .env("REVU_INDEX_CACHE", &off)
        .env("REVU_NO_INDEX_CACHE", "true")
        .args(["index", "--commit", "HEAD", "--stats"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stats: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_eq!(stats["cache"], Value::Null, "{stats}");
    assert!(!off.exists(), "REVU_NO_INDEX_CACHE");
}
