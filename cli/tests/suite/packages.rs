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

/// A monorepo: a Cargo workspace of two crates, an npm package, a Python
/// directory whose `pyproject.toml` only configures a tool, and a README.
/// The last commit changes a file in each; `revu_toml`, when given, is in
/// the first.
fn monorepo(revu_toml: Option<&str>) -> Scratch {
    let repo = Scratch::new("monorepo");
    if let Some(text) = revu_toml {
        repo.write("revu.toml", text);
    }
    repo.write("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n");
    for name in ["api", "core"] {
        repo.write(
            &format!("crates/{name}/Cargo.toml"),
            &format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\n"),
        );
        repo.write(
            &format!("crates/{name}/src/lib.rs"),
            "pub fn one() -> u32 {\n    1\n}\n",
        );
    }
    repo.write("packages/web/package.json", "{\"name\": \"@acme/web\"}\n");
    repo.write("packages/web/src/app.ts", "export const one = 1;\n");
    repo.write("tools/pyproject.toml", "[tool.ruff]\nline-length = 99\n");
    repo.write("tools/x.py", "ONE = 1\n");
    repo.write("README.md", "# acme\n");
    repo.commit("base");
    repo.write("crates/api/src/lib.rs", "pub fn one() -> u32 {\n    2\n}\n");
    repo.write(
        "crates/core/src/lib.rs",
        "pub fn one() -> u32 {\n    3\n}\n",
    );
    repo.write("packages/web/src/app.ts", "export const one = 2;\n");
    repo.write("tools/x.py", "ONE = 2\n");
    repo.write("README.md", "# acme, the monorepo\n");
    repo.commit("change");
    repo
}

/// The ids of the domain lanes of a JSON report, with their file counts.
fn domain_lanes(report: &serde_json::Value) -> Vec<(String, u64)> {
    let mut lanes: Vec<(String, u64)> = report["lanes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|l| l["kind"] == "domain")
        .map(|l| {
            (
                l["id"].as_str().unwrap_or_default().to_owned(),
                l["files"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    lanes.sort();
    lanes
}

fn lanes(expected: &[(&str, u64)]) -> Vec<(String, u64)> {
    expected
        .iter()
        .map(|(id, n)| ((*id).to_owned(), *n))
        .collect()
}

#[test]
fn a_change_across_packages_gets_a_domain_lane_per_package() {
    let repo = monorepo(None);
    // From the commit, and from the work tree (the same change staged).
    let committed = json(&review(&repo, "json"));
    let expected = lanes(&[
        ("domain:core", 1),
        ("domain:crates/api", 1),
        ("domain:crates/core", 1),
        ("domain:docs", 1),
        ("domain:packages/web", 1),
    ]);
    assert_eq!(domain_lanes(&committed), expected);
    let files = committed["facts"]["files"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let slice_of = |path: &str| {
        files
            .iter()
            .find(|f| f["path"] == path)
            .map(|f| f["slice"].clone())
            .unwrap_or_else(|| panic!("{path} not in the facts: {files:?}"))
    };
    assert_eq!(slice_of("crates/api/src/lib.rs"), "crates/api");
    assert_eq!(slice_of("tools/x.py"), "core");

    repo.git(&["reset", "-q", "--soft", "HEAD~1"]);
    let out = repo.review(&["--staged", "--fail-on", "never", "--linters", "off"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(domain_lanes(&scratch::report(&out)), expected);
}

#[test]
fn revu_toml_turns_package_slices_off() {
    let repo = monorepo(Some("[grouping]\npackages = false\n"));
    let report = json(&review(&repo, "json"));
    assert_eq!(
        domain_lanes(&report),
        lanes(&[("domain:api", 1), ("domain:core", 3), ("domain:docs", 1)])
    );
}
