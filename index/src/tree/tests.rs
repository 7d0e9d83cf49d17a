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
    let names = |list: &[(&str, u8)]| hashed(list.iter().copied());
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
            names(&[("main", 1), ("helper", NAMED)]),
            vec![],
            names(&[("helper", 1 | NAMED | FAR), ("Util", 2)]),
            names(&[("render", NAMED)]),
        ],
        python: vec![("app".into(), vec!["a".into()])],
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

/// Every answer `tree` gives about `summary`'s paths and names.
fn answers(tree: &StoredTree) -> String {
    let mut out = format!(
        "skipped {} languages {:?} python {:?}\n",
        tree.skipped, tree.languages, tree.python
    );
    for i in 0..tree.len() {
        let row = tree.file(i);
        out += &format!(
            "{i}: {row:?} {:?} {:?}\n",
            tree.imports_of(i),
            tree.importers_of(i)
        );
        if let Some(row) = row {
            out += &format!(
                "find {:?} in_dir {:?}\n",
                tree.find(row.path),
                tree.in_dir(crate::resolve::dir_of(row.path))
            );
        }
    }
    for name in [
        "main", "helper", "Util", "render", "nowhere", "app.py", "util.py",
    ] {
        out += &format!("{name}: {:?} {:?}\n", tree.postings(name), tree.named(name));
    }
    for dir in ["", "a", "b", "c", "d"] {
        out += &format!("{dir}: {:?}\n", tree.in_dir(dir));
    }
    let mut dirs = Vec::new();
    tree.each_dir(|d, ids| dirs.push((d.to_owned(), ids)));
    out += &format!("{dirs:?} {:?}\n", tree.manifests());
    out
}

#[test]
fn a_summary_reads_back_as_written_and_answers_by_name() {
    let summary = sample();
    let (path, got) = stored(&format::encode(&key(), &summary), "back");
    let tree = got.unwrap_or_else(|e| panic!("{e}"));
    for (i, f) in summary.files.iter().enumerate() {
        let row = tree.file(i).unwrap_or_else(|| panic!("no file {i}"));
        assert_eq!(
            (row.path, row.blob, row.lang, row.size, row.has_errors),
            (f.path.as_str(), f.blob, f.lang, f.size, f.has_errors)
        );
        assert_eq!(tree.find(&f.path), Some(i as u32));
    }
    assert_eq!(
        tree.manifests(),
        [(
            "a/pyproject.toml".to_owned(),
            "[project]\nname = \"a\"\n".to_owned()
        )]
    );
    assert_eq!(tree.skipped, 5);
    assert_eq!(
        tree.languages,
        [(Lang::Python, 2, 1), (Lang::TypeScript, 1, 0)]
    );
    assert_eq!(tree.python, summary.python);
    for (i, imports) in summary.imports.iter().enumerate() {
        assert_eq!(tree.imports_of(i), imports.as_slice(), "{i}");
    }
    assert_eq!(tree.importers_of(2), [0, 3]);
    assert_eq!(tree.importers_of(0), [3]);
    assert_eq!(
        tree.in_dir("a"),
        Some(vec![0]),
        "a manifest is no code file"
    );
    assert_eq!(tree.in_dir("d"), None);
    assert_eq!(tree.named("util.py"), [2]);
    let py = Some(Lang::Python);
    assert_eq!(
        tree.postings("helper"),
        [(0, NAMED, py), (2, 1 | NAMED | FAR, py)]
    );
    assert_eq!(
        tree.postings("render"),
        [(3, NAMED, Some(Lang::TypeScript))]
    );
    assert_eq!(tree.postings("Util"), [(2, 2, py)]);
    assert!(tree.postings("nowhere").is_empty());
    assert_eq!(tree.failed(), None);
    let _ = std::fs::remove_file(path);
}

/// The offsets worth changing or cutting at: the magic, a spread of the
/// sections' blocks, and every byte of the head and of its length.
fn offsets(bytes: &[u8]) -> impl Iterator<Item = usize> {
    let total = bytes.len();
    let tail: [u8; 8] = bytes[total - 8..].try_into().unwrap_or_default();
    let head = total - 8 - u64::from_le_bytes(tail) as usize;
    (0..8).chain((8..head).step_by(3)).chain(head..total)
}

#[test]
fn a_changed_byte_anywhere_is_refused_or_changes_no_answer() {
    let bytes = format::encode(&key(), &sample());
    let (path, good) = stored(&bytes, "good");
    let answer = answers(&good.unwrap_or_else(|e| panic!("{e}")));
    let _ = std::fs::remove_file(path);
    let mut caught = 0;
    for at in offsets(&bytes) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x20;
        let (path, got) = stored(&bad, "bad");
        // The head is checked whole when opened, a block when read.
        match got {
            Ok(tree) => {
                let got = answers(&tree);
                match tree.failed() {
                    Some(_) => caught += 1,
                    None => assert_eq!(got, answer, "byte {at} changed, another answer"),
                }
            }
            Err(_) => caught += 1,
        }
        let _ = std::fs::remove_file(path);
    }
    assert_eq!(
        caught,
        offsets(&bytes).count(),
        "every byte is read by some answer"
    );
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
        assert!(got.is_err(), "cut at {len}, and read");
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
