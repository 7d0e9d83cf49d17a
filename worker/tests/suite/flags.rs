//! The worker binary's flags and their environment fallbacks.

use std::process::Command;

fn worker() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_revu-worker"));
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("REVU_") {
            cmd.env_remove(key);
        }
    }
    cmd
}

/// The configuration `cmd --dump-config` prints; panics if it fails.
fn dump_config(cmd: &mut Command) -> serde_json::Value {
    let out = cmd
        .arg("--dump-config")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn dump_config_shows_flags_with_env_fallbacks() {
    let config = dump_config(
        worker()
            .env("REVU_REDIS_URL", "redis://127.0.0.1:6999")
            .arg("--concurrency")
            .arg("8"),
    );
    assert_eq!(config["redis"], "redis://127.0.0.1:6999");
    assert_eq!(config["concurrency"], 8);
}

#[test]
fn zero_concurrency_is_refused() {
    let out = worker()
        .arg("--concurrency")
        .arg("0")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--concurrency"));
}

#[test]
fn exec_engines_come_from_a_variable_one_per_line_or_from_a_config_file() {
    let config = dump_config(worker().env(
        "REVU_EXEC_ENGINE",
        "lint=python3 lint.py --rules a,b\nsec=semgrep --json",
    ));
    assert_eq!(
        config["exec_engines"],
        serde_json::json!(["lint=python3 lint.py --rules a,b", "sec=semgrep --json"])
    );

    let dir = std::env::temp_dir().join(format!("revu-worker-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let file = dir.join("revu.toml");
    std::fs::write(
        &file,
        "concurrency = 16\nlease_secs = 5\nexec_engines = [\"lint=tool --json\"]\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let config = dump_config(
        worker()
            .arg("--config")
            .arg(&file)
            .arg("--lease-secs")
            .arg("7"),
    );
    assert_eq!(config["concurrency"], 16);
    assert_eq!(config["lease_secs"], 7);
    assert_eq!(
        config["exec_engines"],
        serde_json::json!(["lint=tool --json"])
    );
}

#[test]
fn the_llm_engine_is_configured_by_flags_and_variables_and_its_key_never_printed() {
    let config = dump_config(
        worker()
            .env("REVU_LLM_PROVIDER", "anthropic")
            .env("REVU_LLM_MODEL", "claude-test")
            .env("REVU_LLM_API_KEY", "sk-never-printed")
            .arg("--llm-base-url")
            .arg("http://127.0.0.1:9/"),
    );
    assert_eq!(config["llm"]["provider"], "anthropic");
    assert_eq!(config["llm"]["model"], "claude-test");
    assert_eq!(config["llm"]["base_url"], "http://127.0.0.1:9/");
    assert!(!config.to_string().contains("sk-never-printed"), "{config}");
    let help = worker()
        .arg("--help")
        .env("REVU_LLM_API_KEY", "sk-never-printed")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("REVU_LLM_API_KEY_FILE"), "{help}");
    assert!(!help.contains("sk-never-printed"), "{help}");
}
