//! The coordinator binary's flags and their environment fallbacks.

use std::process::Command;

fn coordinator() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_revu-coordinator"));
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("REVU_") {
            cmd.env_remove(key);
        }
    }
    cmd
}

#[test]
fn dump_config_shows_flags_with_env_fallbacks() {
    let out = coordinator()
        .env("REVU_LISTEN", "127.0.0.1:6001")
        .env("REVU_REDIS_URL", "redis://127.0.0.1:6999")
        .arg("--lane-attempts")
        .arg("5")
        .arg("--dump-config")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config["listen"], "127.0.0.1:6001");
    assert_eq!(config["redis"], "redis://127.0.0.1:6999");
    assert_eq!(config["review"]["lane_attempts"], 5);
}

#[test]
fn invalid_settings_are_refused_with_the_flag_named() {
    let out = coordinator()
        .arg("--lane-attempts")
        .arg("0")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--lane-attempts"));
}

#[test]
fn unreachable_redis_fails_fast_with_the_url() {
    let out = coordinator()
        .arg("--redis")
        .arg("redis://127.0.0.1:1")
        .arg("--listen")
        .arg("127.0.0.1:0")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("redis://127.0.0.1:1"));
}
