#![allow(clippy::unwrap_used)]

use super::*;
use crate::engines::llm::prompt::{Definition, HunkText, SiteText};

fn hunk(label: &str, lines: usize) -> HunkText {
    HunkText {
        label: label.to_owned(),
        text: format!("{label}\n{}", "     1 + let x = 1;\n".repeat(lines)),
    }
}

fn parts(files: Vec<FileText>) -> Parts {
    Parts {
        system: "system".to_owned(),
        task: String::new(),
        context: String::new(),
        files,
        rejected: String::new(),
    }
}

fn file(path: &str, hunks: Vec<HunkText>) -> FileText {
    FileText {
        path: path.to_owned(),
        hunks,
        ..FileText::default()
    }
}

fn definition(name: &str, hunks: Vec<usize>, lines: usize) -> Definition {
    Definition {
        label: format!("function `{name}`"),
        name: name.to_owned(),
        hunks,
        text: format!(
            "#### function `{name}`\n{}",
            format!("     5   DEF {name}\n").repeat(lines)
        ),
    }
}

fn site(what: &str, lines: usize) -> SiteText {
    SiteText {
        text: format!(
            "#### {what}\n{}",
            format!("     9   {what}\n").repeat(lines)
        ),
    }
}

/// A file of one small hunk with a definition, a caller, a test and a
/// whole head, each of a known size.
fn rich(path: &str) -> FileText {
    let mut f = file(path, vec![hunk("@@ -1,1 +1,1 @@", 3)]);
    f.definitions = vec![definition("guarded", vec![0], 20)];
    f.callers = vec![site("CALLER", 10)];
    f.tests = vec![site("TEST", 10)];
    f.head = Some("     1   HEAD\n".repeat(200));
    f
}

fn user(fitted: &Fitted) -> String {
    fitted.requests.iter().map(|r| r.0.user()).collect()
}

/// The tokens of `p` with `files` (their hunks only) in one request.
fn hunks_only(p: &Parts) -> u64 {
    let data: String = p.files.iter().map(FileText::text).collect();
    let counter = Counter::estimate();
    counter.count(&p.system) + REQUEST_OVERHEAD + counter.count(&p.prompt(&data, None).user())
}

#[test]
fn a_lane_within_budget_is_one_request_with_all_its_context() {
    let p = parts(vec![rich("a.rs")]);
    let fitted = fit(&p, Counter::estimate(), 100_000);
    assert_eq!(fitted.requests.len(), 1);
    assert!(fitted.left_out.is_empty());
    let all = user(&fitted);
    assert!(!all.contains("requests; this is request"));
    assert!(all.contains("### Full file after the change: a.rs"));
    assert!(all.contains("CALLER") && all.contains("TEST"));
    // The whole file holds the definition: not shown twice.
    assert!(!all.contains("DEF guarded"), "{all}");
    assert_eq!(
        fitted.coverage.describe(),
        "context: 1 hunk, 1 enclosing definition, 1 caller snippet, 1 test snippet, \
         1 of 1 whole file (budget 100000)"
    );
}

#[test]
fn context_is_added_by_priority_while_it_fits() {
    let p = parts(vec![rich("a.rs")]);
    let counter = Counter::estimate();
    let base = hunks_only(&p);
    let cost = |text: &str| counter.count(text);
    let def = cost(&p.files[0].definitions[0].text) + cost(DEFINITIONS_HEADING);
    let caller = cost(&p.files[0].callers[0].text) + cost(CALLERS_HEADING);
    // Room for the definition and the caller, not the test nor the file.
    let budget = base + def + caller + 5;
    let fitted = fit(&p, counter, budget);
    assert_eq!(fitted.requests.len(), 1);
    assert!(fitted.requests[0].1 <= budget);
    let all = user(&fitted);
    assert!(
        all.contains("DEF guarded") && all.contains("CALLER"),
        "{all}"
    );
    assert!(!all.contains("TEST") && !all.contains("HEAD"), "{all}");
    assert_eq!(
        fitted.coverage.describe(),
        format!(
            "context: 1 hunk, 1 enclosing definition, 1 caller snippet, 0 of 1 test snippet, \
             0 of 1 whole file; left out: whole files of a.rs; test snippets of a.rs (1) \
             (budget {budget})"
        )
    );
    // Room for the definition only.
    let fitted = fit(&p, counter, base + def + 2);
    let all = user(&fitted);
    assert!(
        all.contains("DEF guarded") && !all.contains("CALLER"),
        "{all}"
    );
    // Room for the hunks only: nothing else, and nothing split.
    let fitted = fit(&p, counter, base);
    assert_eq!(fitted.requests.len(), 1);
    let all = user(&fitted);
    assert!(all.contains("@@ -1,1 +1,1 @@") && !all.contains("DEF guarded"));
    assert!(
        fitted
            .coverage
            .describe()
            .contains("0 of 1 enclosing definition")
    );
}

#[test]
fn hunks_are_never_dropped_for_context_and_context_follows_its_file() {
    let mut a = rich("a.rs");
    a.hunks = vec![hunk("@@ -1,1 +1,40 @@", 40)];
    a.definitions = vec![definition("guarded", vec![0], 5)];
    let mut b = a.clone();
    b.path = "b.rs".to_owned();
    b.definitions = vec![definition("other", vec![0], 5)];
    let p = parts(vec![a, b]);
    let counter = Counter::estimate();
    // Both files' hunks do not fit one request; each fits beside its
    // definition in a request of its own.
    let one = hunks_only(&parts(vec![p.files[0].clone()]));
    let widest = PartNote {
        index: 999,
        of: 999,
        whole: 9999,
        some: 9999,
        files: 9999,
    };
    let note = counter.count(&p.prompt("", Some(widest)).user())
        - counter.count(&p.prompt("", None).user());
    let def = counter.count(&p.files[0].definitions[0].text) + counter.count(DEFINITIONS_HEADING);
    let budget = one + note + def + 10;
    assert!(hunks_only(&p) > budget, "the hunks together fit");
    let fitted = fit(&p, counter, budget);
    assert_eq!(fitted.requests.len(), 2);
    assert!(fitted.left_out.is_empty());
    for ((prompt, tokens), (path, def)) in fitted
        .requests
        .iter()
        .zip([("a.rs", "DEF guarded"), ("b.rs", "DEF other")])
    {
        assert!(*tokens <= budget, "{tokens} over {budget}");
        let user = prompt.user();
        assert!(user.contains(&format!("## File: {path}\n")), "{user}");
        assert!(user.contains(def), "{user}");
        assert!(user.contains("this is request"), "{}", prompt.task);
        assert!(!user.contains("Review only what"), "{user}");
    }
    assert!(
        fitted.requests[0]
            .0
            .task
            .contains("every hunk of 1 of the lane's 2 file(s)")
    );
    assert_eq!(fitted.coverage.hunks, (2, 2));
    assert_eq!(fitted.coverage.whole_files, (0, 2));
    // Less room than the hunks need: the hunks still all go, no context.
    let fitted = fit(&p, counter, one + note);
    let all = user(&fitted);
    assert!(!all.contains("DEF "), "{all}");
    assert_eq!(fitted.coverage.hunks, (2, 2));
    assert!(all.contains("## File: a.rs") && all.contains("## File: b.rs"));
}

#[test]
fn an_over_budget_lane_is_split_by_file_then_by_hunk_and_names_what_cannot_fit() {
    let small = |name: &str| file(name, vec![hunk("@@ -1,1 +1,1 @@", 10)]);
    let mut big = file(
        "big.rs",
        vec![
            hunk("@@ -1,1 +1,40 @@", 40),
            hunk("@@ -90,1 +90,40 @@", 40),
            hunk("@@ -500,1 +500,900 @@", 900),
        ],
    );
    // The definition of the second hunk goes with it.
    big.definitions = vec![definition("second", vec![1], 3)];
    let p = parts(vec![small("a.rs"), small("b.rs"), big]);
    let counter = Counter::estimate();
    let budget = 600;
    let fitted = fit(&p, counter, budget);
    assert_eq!(fitted.left_out, vec!["big.rs @@ -500,1 +500,900 @@"]);
    assert!(fitted.requests.len() >= 2, "{:?}", fitted.requests.len());
    for (prompt, tokens) in &fitted.requests {
        assert!(*tokens <= budget, "a request of {tokens} tokens");
        assert!(prompt.user().contains("requests; this is request"));
        let user = prompt.user();
        assert_eq!(
            user.contains("DEF second"),
            user.contains("@@ -90,1 +90,40 @@"),
            "{user}"
        );
    }
    let all = user(&fitted);
    for shown in [
        "## File: a.rs",
        "## File: b.rs",
        "@@ -1,1 +1,40 @@",
        "@@ -90,1 +90,40 @@",
    ] {
        assert_eq!(all.matches(shown).count(), 1, "{shown} once");
    }
    assert!(!all.contains("@@ -500,1"));
    assert!(all.contains("## File: big.rs (some of its hunks"));
    assert_eq!(fitted.coverage.hunks, (4, 5));
}
