//! Where the revu binaries and examples are.
//!
//! `cargo test --workspace` builds every binary of the workspace (each
//! binary's package has integration tests of its own), next to the test
//! executables' `deps/` directory. `REVU_BIN_DIR` overrides the location.

use std::path::PathBuf;

/// Path of the revu binary `name`; panics with a how-to when it is missing.
pub fn bin(name: &str) -> PathBuf {
    let dir = match std::env::var_os("REVU_BIN_DIR") {
        Some(d) => PathBuf::from(d),
        None => std::env::current_exe()
            .ok()
            .and_then(|exe| {
                exe.parent()
                    .and_then(|deps| deps.parent())
                    .map(PathBuf::from)
            })
            .unwrap_or_else(|| PathBuf::from("target/debug")),
    };
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "{} not found: build the binaries first (`cargo build --workspace --bins`) \
         or set REVU_BIN_DIR to the directory that holds them",
        path.display()
    );
    path
}

/// Path of a file under the repository's `examples/`.
pub fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("examples")
        .join(name)
}

/// A command line that runs the fault engine in `mode` (see
/// `tests/engines/fault_engine.py`), for `--exec-engine NAME=…`.
pub fn fault_engine(mode: &str) -> String {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("engines")
        .join("fault_engine.py");
    format!("python3 {} {mode}", script.display())
}

/// Runs `revu submit --quiet --format json` of the example
/// `secret-and-unwrap.patch` to `endpoint`, with `args` and `env` added
/// and none of the caller's coordinator, token or CA settings.
pub fn submit_example(endpoint: &str, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    std::process::Command::new(bin("revu"))
        .args(["submit", "--quiet", "--format", "json", "--timeout", "120"])
        .arg("--diff")
        .arg(example("secret-and-unwrap.patch"))
        .arg("--coordinator")
        .arg(endpoint)
        .args(args)
        .env_remove("REVU_COORDINATOR")
        .env_remove("REVU_TOKEN")
        .env_remove("REVU_CA_CERT")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("running revu submit: {e}"))
}
