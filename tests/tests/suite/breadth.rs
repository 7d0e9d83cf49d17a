//! Breadth on a held-out corpus (`tests/breadth/`), scored by `revu eval
//! corpus`: every marked file reviewed as an added file, once with the
//! built-in rules alone (the offline default) and once with the linters on
//! PATH. Recall (defect lines with a finding) and trap hits (findings on
//! safe spellings) are printed per language; the built-in rules must keep
//! each language's recall at its floor and hit no trap.

use revu_tests::bin;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The least recall of the built-in rules per language.
const FLOOR: f64 = 0.8;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("breadth")
}

/// `revu eval corpus` of the breadth corpus, as JSON.
fn score(extra: &[&str]) -> Value {
    let out = Command::new(bin("revu"))
        .args(["eval", "corpus"])
        .arg(corpus())
        .args(["--format", "json", "--skip-files", "none"])
        .args(extra)
        .output()
        .unwrap_or_else(|e| panic!("revu eval corpus: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("scores: {e}: {stderr}"))
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    defects: u64,
    found: u64,
    traps: u64,
    trap_hits: u64,
}

fn items<'a>(scored: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    scored[key].as_array().into_iter().flatten()
}

/// The scores per language of the defects and traps in files that
/// `keep` keeps, from each one's own result.
fn tally_of(scored: &Value, keep: &dyn Fn(&str) -> bool) -> BTreeMap<String, Tally> {
    let mut by_lang: BTreeMap<String, Tally> = BTreeMap::new();
    let lang = |v: &Value| v["language"].as_str().unwrap_or_default().to_owned();
    let kept = |v: &&Value| keep(v["file"].as_str().unwrap_or_default());
    for e in items(scored, "expectations").filter(kept) {
        let t = by_lang.entry(lang(e)).or_default();
        t.defects += 1;
        t.found += u64::from(e["matched"] == true);
    }
    for trap in items(scored, "traps").filter(kept) {
        let t = by_lang.entry(lang(trap)).or_default();
        t.traps += 1;
        t.trap_hits += u64::from(trap["hit_by"].as_array().is_some_and(|h| !h.is_empty()));
    }
    by_lang
}

/// The scores per language as `revu eval` counts them.
fn tally(scored: &Value) -> BTreeMap<String, Tally> {
    let count = |t: &Value, key: &str| t[key].as_u64().unwrap_or(0);
    scored["by_language"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(lang, t)| {
            let tally = Tally {
                defects: count(t, "expectations"),
                found: count(t, "matched"),
                traps: count(t, "traps"),
                trap_hits: count(t, "traps_hit"),
            };
            (lang.clone(), tally)
        })
        .filter(|(_, t)| t.defects + t.traps > 0)
        .collect()
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

fn holdout(file: &str) -> bool {
    file.to_ascii_lowercase().contains("holdout")
}

#[test]
fn the_built_in_rules_find_the_common_defect_classes_of_every_language() {
    let offline = score(&["--linters", "off"]);
    let defects = offline["overall"]["expectations"].as_u64().unwrap_or(0);
    assert!(defects >= 60, "{:#}", offline["overall"]);
    let built_in = tally(&offline);
    // The `holdout` files were written after the rules, to spellings the
    // rules were not tuned on; they are counted apart too.
    print(
        "built-in rules (--linters off), tuned files",
        &tally_of(&offline, &|f| !holdout(f)),
    );
    print(
        "built-in rules (--linters off), holdout files",
        &tally_of(&offline, &holdout),
    );
    print("built-in rules (--linters off), all", &built_in);
    let linted = score(&[]);
    print(
        "built-in rules and the linters on PATH, all",
        &tally(&linted),
    );

    let cite = |v: &Value| {
        format!(
            "{}:{} {}",
            v["file"].as_str().unwrap_or_default(),
            v["first"],
            v["id"].as_str().unwrap_or_default()
        )
    };
    let missed: Vec<String> = items(&offline, "expectations")
        .filter(|e| e["matched"] == false)
        .map(cite)
        .collect();
    let trapped: Vec<String> = items(&offline, "traps")
        .flat_map(|t| {
            let at = cite(t);
            t["hit_by"]
                .as_array()
                .into_iter()
                .flatten()
                .map(move |f| format!("{at} ({})", f["rule"].as_str().unwrap_or_default()))
        })
        .collect();
    eprintln!("missed by the built-in rules: {missed:#?}");
    assert!(trapped.is_empty(), "safe spellings reported: {trapped:#?}");
    assert_eq!(offline["overall"]["traps_hit"], 0);
    for lang in built_in.keys() {
        // `null` for a language with nothing to find.
        let Some(recall) = offline["by_language"][lang]["recall"].as_f64() else {
            continue;
        };
        assert!(
            recall >= FLOOR,
            "{lang}: recall {recall:.2} below {FLOOR}; missed: {missed:#?}"
        );
    }
}
