//! Conventions that follow packages, as a user runs them on a git
//! repository: a `REVIEW.md` in a subdirectory applies to the files below
//! it, and `CODEOWNERS` names the owners of a BLOCKER's file in the JSON,
//! the Markdown and the SARIF.

use crate::scratch;

use scratch::Scratch;

/// A repository whose last commit adds the same weak hash under
/// `pkg/experimental/` and `other/`, and a live key under `pkg/`.
fn repository() -> Scratch {
    let repo = Scratch::new("packages");
    repo.write(
        ".github/CODEOWNERS",
        "* @acme/all\n/pkg/ @acme/pkg-team alice@example.test\n",
    );
    repo.write(
        "pkg/REVIEW.md",
        "## Severity Overrides\n\n- in `experimental/**`: at most SUGGESTION\n",
    );
    repo.write("other/base.py", "X = 1\n");
    repo.commit("base");
    let weak = "import hashlib\n\n\ndef digest(password):\n    return hashlib.md5(password.encode()).hexdigest()\n";
    repo.write("pkg/experimental/x.py", weak);
    repo.write("other/x.py", weak);
    repo.write(
        "pkg/payments.py",
        "client = Client(api_key=\"sk_live_4eC39HqLyjWDarjtT1zdp7dc\")\n",
    );
    repo.commit("change");
    repo
}

/// The review of the last commit in `format`.
fn review(repo: &Scratch, format: &str) -> String {
    let out = scratch::revu_command(&repo.dir, Some(&repo.hostile))
        .args([
            "review",
            "--commit",
            "HEAD",
            "--fail-on",
            "never",
            "--linters",
            "off",
        ])
        .args(["--format", format])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "revu review --format {format}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn a_nested_review_md_caps_its_own_files_and_owners_follow_blockers() {
    let repo = repository();
    let report = json(&review(&repo, "json"));
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    let severity_in = |file: &str| {
        findings
            .iter()
            .find(|f| f["rule"] == "RV-SEC-008" && f["file"] == file)
            .map(|f| f["severity"].clone())
            .unwrap_or_else(|| panic!("no weak hash finding in {file}: {findings:?}"))
    };
    assert_eq!(severity_in("pkg/experimental/x.py"), "SUGGESTION");
    assert_eq!(severity_in("other/x.py"), "IMPORTANT");
    assert_eq!(
        report["conventions"]["overrides_applied"][0]["convention"],
        "pkg/REVIEW.md:3"
    );
    assert_eq!(
        report["conventions"]["nested_review_md"][0]["name"],
        "pkg/REVIEW.md"
    );
    assert_eq!(
        report["conventions"]["codeowners"]["name"],
        ".github/CODEOWNERS"
    );

    let blocker = findings
        .iter()
        .find(|f| f["severity"] == "BLOCKER")
        .unwrap_or_else(|| panic!("no BLOCKER: {findings:?}"));
    assert_eq!(blocker["file"], "pkg/payments.py");
    let owners = serde_json::json!(["@acme/pkg-team", "alice@example.test"]);
    assert_eq!(blocker["owners"], owners);
    assert!(
        findings
            .iter()
            .filter(|f| f["severity"] != "BLOCKER")
            .all(|f| f.get("owners").is_none()),
        "only BLOCKERs name owners: {findings:?}"
    );
    assert_eq!(report["owners"][0]["file"], "pkg/payments.py");
    assert_eq!(report["owners"][0]["owners"], owners);
    assert_eq!(
        report["owners"][0]["because"],
        serde_json::json!(["blocker"])
    );

    let markdown = review(&repo, "md");
    assert!(
        markdown.contains("  - owners: `@acme/pkg-team`, `alice@example.test`"),
        "{markdown}"
    );
    assert!(markdown.contains("## Owners to ask"), "{markdown}");

    let sarif = json(&review(&repo, "sarif"));
    let results = sarif["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let result = results
        .iter()
        .find(|r| r["properties"]["severity"] == "BLOCKER")
        .unwrap_or_else(|| panic!("no BLOCKER result: {results:?}"));
    assert_eq!(result["properties"]["owners"], owners);
}
