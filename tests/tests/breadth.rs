//! Breadth on a held-out corpus (`tests/breadth/`): every file reviewed
//! as an added file, once with the built-in rules alone (the offline
//! default) and once with the linters on PATH. Recall (defect lines with a
//! finding) and trap hits (findings on safe spellings) are printed per
//! language; the built-in rules must keep each language's recall at its
//! floor and hit no trap.

use revu_tests::bin;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The least recall of the built-in rules per language.
const FLOOR: f64 = 0.8;

/// One marked line of the corpus.
#[derive(Debug)]
struct Case {
    file: String,
    line: u32,
    defect: bool,
    id: String,
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("breadth")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p.file_name().is_some_and(|n| n != "README.md") {
            out.push(p);
        }
    }
}

/// The patch adding every corpus file, and its marked lines.
fn patch_and_cases() -> (String, Vec<Case>) {
    let root = corpus();
    let mut all = Vec::new();
    files(&root, &mut all);
    let mut patch = String::new();
    let mut cases = Vec::new();
    for path in all {
        let rel = path
            .strip_prefix(&root)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let lines: Vec<&str> = text.lines().collect();
        patch.push_str(&format!(
            "diff --git a/{rel} b/{rel}\nnew file mode 100644\n--- /dev/null\n+++ b/{rel}\n@@ -0,0 +1,{} @@\n",
            lines.len()
        ));
        for (i, line) in lines.iter().enumerate() {
            patch.push('+');
            patch.push_str(line);
            patch.push('\n');
            if let Some(mark) = line.split("revu-breadth: ").nth(1) {
                let mut words = mark.split_whitespace();
                let kind = words.next().unwrap_or_default();
                cases.push(Case {
                    file: rel.clone(),
                    line: u32::try_from(i + 2).unwrap_or(u32::MAX),
                    defect: kind == "defect",
                    id: words.next().unwrap_or_default().to_owned(),
                });
            }
        }
    }
    (patch, cases)
}

/// `(file, line)` of every finding of a review of `patch`.
fn review(patch: &Path, extra: &[&str]) -> Vec<(String, u32, String)> {
    let out = Command::new(bin("revu"))
        .args([
            "review",
            "--format",
            "json",
            "--skip-files",
            "none",
            "--diff",
        ])
        .arg(patch)
        .args(extra)
        .output()
        .unwrap_or_else(|e| panic!("revu review: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("report: {e}: {stderr}"));
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f["file"].as_str().unwrap_or_default().to_owned(),
                u32::try_from(f["line"].as_u64().unwrap_or(0)).unwrap_or(0),
                f["rule"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    defects: usize,
    found: usize,
    traps: usize,
    trap_hits: usize,
}

fn tally(cases: &[Case], found: &[(String, u32, String)]) -> BTreeMap<String, Tally> {
    tally_of(&cases.iter().collect::<Vec<_>>(), found)
}

fn tally_of(cases: &[&Case], found: &[(String, u32, String)]) -> BTreeMap<String, Tally> {
    let mut by_lang: BTreeMap<String, Tally> = BTreeMap::new();
    for c in cases.iter().copied() {
        let lang = c.file.split('/').next().unwrap_or_default().to_owned();
        let t = by_lang.entry(lang).or_default();
        let hit = found.iter().any(|(f, l, _)| *f == c.file && *l == c.line);
        if c.defect {
            t.defects += 1;
            t.found += usize::from(hit);
        } else {
            t.traps += 1;
            t.trap_hits += usize::from(hit);
        }
    }
    by_lang
}

fn print(what: &str, by_lang: &BTreeMap<String, Tally>) {
    eprintln!("breadth, {what}:");
    eprintln!("  language      recall        trap hits");
    let mut all = Tally::default();
    for (lang, t) in by_lang {
        eprintln!(
            "  {lang:<12}  {:>2}/{:<2} {:>5.2}   {}/{}",
            t.found,
            t.defects,
            t.found as f64 / t.defects.max(1) as f64,
            t.trap_hits,
            t.traps
        );
        all.defects += t.defects;
        all.found += t.found;
        all.traps += t.traps;
        all.trap_hits += t.trap_hits;
    }
    eprintln!(
        "  {:<12}  {:>2}/{:<2} {:>5.2}   {}/{}",
        "all",
        all.found,
        all.defects,
        all.found as f64 / all.defects.max(1) as f64,
        all.trap_hits,
        all.traps
    );
}

#[test]
fn the_built_in_rules_find_the_common_defect_classes_of_every_language() {
    let (patch, cases) = patch_and_cases();
    assert!(cases.iter().filter(|c| c.defect).count() >= 60, "{cases:?}");
    let path = std::env::temp_dir().join(format!("revu-breadth-{}.patch", std::process::id()));
    std::fs::write(&path, &patch).unwrap_or_else(|e| panic!("{e}"));

    let offline = review(&path, &["--linters", "off"]);
    let built_in = tally(&cases, &offline);
    // The `holdout` files were written after the rules, to spellings the
    // rules were not tuned on; they are counted apart too.
    let (held, tuned): (Vec<&Case>, Vec<&Case>) = cases
        .iter()
        .partition(|c| c.file.to_ascii_lowercase().contains("holdout"));
    print(
        "built-in rules (--linters off), tuned files",
        &tally_of(&tuned, &offline),
    );
    print(
        "built-in rules (--linters off), holdout files",
        &tally_of(&held, &offline),
    );
    print("built-in rules (--linters off), all", &built_in);
    let linted = review(&path, &[]);
    print(
        "built-in rules and the linters on PATH, all",
        &tally(&cases, &linted),
    );
    let _ = std::fs::remove_file(&path);

    let missed: Vec<String> = cases
        .iter()
        .filter(|c| c.defect)
        .filter(|c| !offline.iter().any(|(f, l, _)| *f == c.file && *l == c.line))
        .map(|c| format!("{}:{} {}", c.file, c.line, c.id))
        .collect();
    let trapped: Vec<String> = cases
        .iter()
        .filter(|c| !c.defect)
        .flat_map(|c| {
            offline
                .iter()
                .filter(move |(f, l, _)| *f == c.file && *l == c.line)
                .map(move |(_, _, rule)| format!("{}:{} {} ({rule})", c.file, c.line, c.id))
        })
        .collect();
    eprintln!("missed by the built-in rules: {missed:#?}");
    assert!(trapped.is_empty(), "safe spellings reported: {trapped:#?}");
    for (lang, t) in &built_in {
        let recall = t.found as f64 / t.defects.max(1) as f64;
        assert!(
            recall >= FLOOR,
            "{lang}: recall {recall:.2} below {FLOOR}; missed: {missed:#?}"
        );
    }
}
