//! The stages are pure by construction, not by convention: neither they nor
//! the domain crate they read link an async runtime, a queue client or a
//! network stack, whatever else the workspace builds.

use std::process::Command;

/// Crates whose presence would mean the stages reach the runtime.
const RUNTIME: &[&str] = &["tokio", "redis", "tonic", "hyper", "h2", "mio", "reqwest"];

/// The names of the crates `package` links in a normal (non-dev) build.
fn linked(package: &str) -> Vec<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(&cargo)
        .args([
            "tree", "--locked", "-e", "normal", "--prefix", "none", "-p", package,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("running {cargo:?} tree: {e}"));
    assert!(
        out.status.success(),
        "cargo tree -p {package} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

#[test]
fn the_stages_and_the_domain_link_no_runtime() {
    for package in ["revu-stages", "revu-domain"] {
        let crates = linked(package);
        assert!(
            crates.iter().any(|c| c == package),
            "{package} missing from its own tree: {crates:?}"
        );
        let runtime: Vec<&String> = crates
            .iter()
            .filter(|c| RUNTIME.contains(&c.as_str()))
            .collect();
        assert!(runtime.is_empty(), "{package} links {runtime:?}");
    }
}
