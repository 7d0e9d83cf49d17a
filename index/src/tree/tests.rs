//! A summary read back is the summary written, its postings answer by
//! name, and a summary that is not exactly what was asked for is refused.

use super::*;

fn blob(n: u8) -> BlobId {
    BlobId::from_bytes([n; 20])
}

fn sample() -> Summary {
    let file = |path: &str, n: u8, lang| TreeFile {
        path: path.into(),
        blob: blob(n),
        lang,
        size: u64::from(n) * 10,
        has_errors: n == 2,
    };
    let names = |list: &[&str]| {
        let mut h: Vec<u32> = list.iter().map(|n| name_hash(n)).collect();
        h.sort_unstable();
        h
    };
    Summary {
        files: vec![
            file("a/app.py", 1, Some(Lang::Python)),
            file("a/pyproject.toml", 3, None),
            file("b/util.py", 2, Some(Lang::Python)),
            file("c/web.ts", 4, Some(Lang::TypeScript)),
        ],
        manifests: vec![(1, "[project]\nname = \"a\"\n".into())],
        skipped: 5,
        imports: vec![vec![2], vec![], vec![], vec![0, 2]],
        names: vec![
            names(&["main", "helper"]),
            vec![],
            names(&["helper", "Util"]),
            names(&["render"]),
        ],
    }
}

fn key() -> TreeKey {
    TreeKey {
        tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904".into(),
        max_files: 100,
        max_file_bytes: 1000,
    }
}

fn stored(bytes: &[u8], name: &str) -> (PathBuf, Result<StoredTree, TreeError>) {
    let path = std::env::temp_dir().join(format!("revu-tree-{name}-{}", std::process::id()));
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
    let got = format::open(&path, &key());
    (path, got)
}

#[test]
fn a_summary_reads_back_as_written_and_answers_by_name() {
    let summary = sample();
    let (path, got) = stored(&format::encode(&key(), &summary), "back");
    let tree = got.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tree.files, summary.files);
    assert_eq!(tree.manifests, summary.manifests);
    assert_eq!(tree.skipped, 5);
    for (i, imports) in summary.imports.iter().enumerate() {
        assert_eq!(tree.imports_of(i), imports.as_slice(), "{i}");
    }
    let files = |names: &[&str]| {
        tree.files_naming(names.iter().copied())
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .collect::<Vec<u32>>()
    };
    assert_eq!(files(&["helper"]), [0, 2]);
    assert_eq!(files(&["render", "main"]), [0, 3]);
    assert_eq!(files(&["nowhere"]), Vec::<u32>::new());
    let _ = std::fs::remove_file(path);
}

/// The offsets worth changing or cutting at: every byte of the head, and
/// a spread of the postings (empty buckets are most of a small summary).
fn offsets(bytes: &[u8]) -> impl Iterator<Item = usize> {
    let head = 16 + u64::from_le_bytes(bytes[8..16].try_into().unwrap_or_default()) as usize;
    (0..head).chain((head..bytes.len()).step_by(11))
}

#[test]
fn a_changed_byte_anywhere_is_refused_or_changes_no_answer() {
    let bytes = format::encode(&key(), &sample());
    let all = ["main", "helper", "Util", "render", "nowhere"];
    let (path, good) = stored(&bytes, "good");
    let answer = good
        .and_then(|t| t.files_naming(all.iter().copied()))
        .unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_file(path);
    for at in offsets(&bytes) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x20;
        let (path, got) = stored(&bad, "bad");
        // The head is checked whole when opened, a bucket when read; a
        // bucket no name asks for is not read.
        if let Ok(tree) = got
            && let Ok(files) = tree.files_naming(all.iter().copied())
        {
            assert_eq!(files, answer, "byte {at} changed, another answer");
        }
        let _ = std::fs::remove_file(path);
    }
}

#[test]
fn a_summary_of_another_tree_limit_or_version_is_refused() {
    let summary = sample();
    for other in [
        TreeKey {
            tree: "0".repeat(40),
            ..key()
        },
        TreeKey {
            max_files: 99,
            ..key()
        },
        TreeKey {
            max_file_bytes: 999,
            ..key()
        },
    ] {
        let (path, got) = stored(&format::encode(&other, &summary), "foreign");
        assert!(matches!(got, Err(TreeError::Foreign)), "{other:?}");
        let _ = std::fs::remove_file(path);
    }
    let bytes = format::encode(&key(), &summary);
    for len in offsets(&bytes) {
        let (path, got) = stored(&bytes[..len], "cut");
        if let Ok(tree) = got {
            assert!(tree.files_naming(["helper"].into_iter()).is_err(), "{len}");
        }
        let _ = std::fs::remove_file(path);
    }
}

#[test]
fn only_the_latest_summaries_are_kept() {
    let dir = std::env::temp_dir().join(format!("revu-trees-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = TreeStore::in_cache(&dir);
    let summary = sample();
    for n in 0..MAX_TREES + 3 {
        let key = TreeKey {
            tree: format!("{n:040}"),
            ..key()
        };
        store.keep(&key, &summary).unwrap_or_else(|e| panic!("{e}"));
    }
    let kept = std::fs::read_dir(&store.dir).map_or(0, |d| d.count());
    assert_eq!(kept, MAX_TREES);
    let _ = std::fs::remove_dir_all(&dir);
}
