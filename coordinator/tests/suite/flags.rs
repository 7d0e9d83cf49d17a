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
        coordinator()
            .env("REVU_LISTEN", "127.0.0.1:6001")
            .env("REVU_REDIS_URL", "redis://127.0.0.1:6999")
            .arg("--lane-attempts")
            .arg("5"),
    );
    assert_eq!(config["listen"], "127.0.0.1:6001");
    assert_eq!(config["redis"], "redis://127.0.0.1:6999");
    assert_eq!(config["review"]["lane_attempts"], 5);
}

#[test]
fn finished_reviews_are_kept_a_week_unless_told_otherwise() {
    let config = dump_config(&mut coordinator());
    assert_eq!(config["review_retention_secs"], 7 * 24 * 60 * 60);
    let config = dump_config(coordinator().env("REVU_REVIEW_RETENTION_SECS", "3600"));
    assert_eq!(config["review_retention_secs"], 3600);
    let config = dump_config(coordinator().args(["--review-retention-secs", "0"]));
    assert_eq!(config["review_retention_secs"], 0);
}

#[test]
fn dump_config_masks_the_redis_password_and_shows_access_settings() {
    let config = dump_config(
        coordinator()
            .env("REVU_REDIS_URL", "redis://ci:hunter2@redis.internal:6379/0")
            .env("REVU_TOKENS_FILE", "/etc/revu/tokens")
            .env("REVU_TENANT_SUBMISSIONS_PER_MINUTE", "60"),
    );
    assert_eq!(config["redis"], "redis://ci:***@redis.internal:6379/0");
    assert!(!config.to_string().contains("hunter2"));
    assert_eq!(config["access"]["tokens_file"], "/etc/revu/tokens");
    assert_eq!(config["access"]["tenant_submissions_per_minute"], 60);
    assert_eq!(config["access"]["allow_unauthenticated"], false);
}

#[test]
fn the_shared_index_cache_is_kept_in_redis_within_its_limits_unless_told_otherwise() {
    let config = dump_config(&mut coordinator());
    let shared = &config["index_cache"];
    assert_eq!(shared["no_shared_index_cache"], false);
    assert_eq!(shared["shared_index_cache_dir"], serde_json::Value::Null);
    assert_eq!(shared["shared_index_cache_max_bytes"], 256 * 1024 * 1024);
    assert_eq!(shared["shared_index_cache_max_age_secs"], 7 * 24 * 60 * 60);
    let config = dump_config(
        coordinator()
            .env("REVU_SHARED_INDEX_CACHE_DIR", "/var/cache/revu-index")
            .env("REVU_SHARED_INDEX_CACHE_MAX_AGE_SECS", "86400")
            .args(["--shared-index-cache-max-bytes", "1048576"]),
    );
    let shared = &config["index_cache"];
    assert_eq!(shared["shared_index_cache_dir"], "/var/cache/revu-index");
    assert_eq!(shared["shared_index_cache_max_bytes"], 1_048_576);
    assert_eq!(shared["shared_index_cache_max_age_secs"], 86_400);
    let config = dump_config(coordinator().env("REVU_NO_SHARED_INDEX_CACHE", "true"));
    assert_eq!(config["index_cache"]["no_shared_index_cache"], true);
    for flag in [
        "--shared-index-cache-max-bytes",
        "--shared-index-cache-max-age-secs",
    ] {
        let out = coordinator()
            .args([flag, "0"])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!out.status.success());
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains(flag), "{said}");
    }
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

/// A config file in a fresh scratch directory.
fn config_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "revu-coordinator-flags-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join("revu.toml");
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path
}

#[test]
fn config_file_sits_under_env_and_flags() {
    let file = config_file(
        "layers",
        "listen = \"127.0.0.1:7001\"\nkey_prefix = \"from-file\"\n\n[review]\nlane_attempts = 6\nmax_inflight = 7\nreview_timeout_secs = 9\nlane_engines = [\"specialist:*=exec-lint\"]\n",
    );
    let config = dump_config(
        coordinator()
            .env("REVU_CONFIG", &file)
            .env("REVU_LANE_ATTEMPTS", "4")
            .env("REVU_ENGINE_RETRY", "llm=5:2000,exec-lint=2")
            .arg("--max-inflight")
            .arg("8"),
    );
    // The file over the defaults.
    assert_eq!(config["listen"], "127.0.0.1:7001");
    assert_eq!(config["key_prefix"], "from-file");
    assert_eq!(config["review"]["review_timeout_secs"], 9);
    assert_eq!(
        config["review"]["lane_engines"],
        serde_json::json!(["specialist:*=exec-lint"])
    );
    // The environment over the file, flags over both.
    assert_eq!(config["review"]["lane_attempts"], 4);
    assert_eq!(config["review"]["max_inflight"], 8);
    // A repeatable flag's variable, comma-separated.
    assert_eq!(
        config["review"]["engine_retries"],
        serde_json::json!(["llm=5:2000", "exec-lint=2:500"])
    );
    // What the file sets is still validated.
    let zero = config_file("zero", "[review]\nlane_attempts = 0\n");
    let out = coordinator()
        .arg("--config")
        .arg(&zero)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--lane-attempts"));
}

#[test]
fn config_file_errors_name_the_file_and_the_setting() {
    let cases = [
        (
            "unknown",
            "[review]\nlane_atempts = 3\n",
            "unknown setting `review.lane_atempts`",
        ),
        (
            "type",
            "[review]\nlane_attempts = \"many\"\n",
            "`review.lane_attempts`",
        ),
        ("syntax", "listen = \n", "revu.toml"),
        (
            "engine",
            "[review]\nlane_engines = [\"nolane\"]\n",
            "is not LANE=ENGINE",
        ),
    ];
    for (name, text, expected) in cases {
        let file = config_file(name, text);
        let out = coordinator()
            .arg("--config")
            .arg(&file)
            .arg("--dump-config")
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}: accepted");
        assert!(stderr.contains(expected), "{name}: {stderr}");
        assert!(stderr.contains("revu.toml"), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
    }
    let out = coordinator()
        .arg("--config")
        .arg("/nonexistent/revu.toml")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/revu.toml"));
}
