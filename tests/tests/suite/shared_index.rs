//! The code index's cache shared through the coordinator, by `revu submit`
//! runners with caches of their own: a fresh runner reviewing through a
//! coordinator that holds the repository parses only what the fleet has
//! not seen, and builds the same index; an entry held corrupt, or another
//! blob's entry under a key, is rejected, parsed and replaced; one
//! tenant's entries never reach another; a coordinator that does not share
//! them leaves the review as it was, with a line on stderr. Needs git on
//! PATH.

use revu_coordinator::auth::token_digest;
use revu_tests::{Cluster, RedisServer, bin, git};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn write(dir: &Path, path: &str, text: &str) {
    let at = dir.join(path);
    if let Some(parent) = at.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(at, text).unwrap_or_else(|e| panic!("{e}"));
}

/// Modules calling `app.core.helper`.
const CALLERS: u32 = 10;
/// Uses the rename leaves stale: each caller's import and call.
const STALE_USES: u32 = 2 * CALLERS;

/// A scratch directory of this test process, emptied.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("revu-shared-index-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// A repository of a helper and ten modules calling it, in three commits:
/// the modules and the helper; a change to one module (`change`); the
/// helper renamed, its callers left as they were (`rename`).
struct Repo {
    dir: PathBuf,
    change: String,
    rename: String,
}

impl Repo {
    fn new(top: &Path) -> Repo {
        let dir = top.join("repo");
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        git(&dir, &["init", "-q"]);
        write(&dir, "app/__init__.py", "");
        write(&dir, "app/core.py", "def helper(x):\n    return x + 1\n");
        for i in 0..CALLERS {
            write(
                &dir,
                &format!("app/m{i}.py"),
                &format!(
                    "from app.core import helper\n\n\ndef f{i}(x):\n    return helper(x) * {i}\n"
                ),
            );
        }
        git(&dir, &["add", "-A"]);
        git(&dir, &["commit", "-q", "-m", "helper and callers"]);
        write(
            &dir,
            "app/m3.py",
            "from app.core import helper\n\n\ndef f3(x):\n    return helper(x) * 3 + 1\n",
        );
        git(&dir, &["commit", "-q", "-am", "one caller changes"]);
        let change = git(&dir, &["rev-parse", "HEAD"]);
        write(&dir, "app/core.py", "def assist(x):\n    return x + 1\n");
        git(&dir, &["commit", "-q", "-am", "rename the helper"]);
        let rename = git(&dir, &["rev-parse", "HEAD"]);
        Repo {
            dir,
            change,
            rename,
        }
    }

    /// The blob id of `path` at `rev`.
    fn blob(&self, rev: &str, path: &str) -> String {
        git(&self.dir, &["rev-parse", &format!("{rev}:{path}")])
    }
}

/// What one runner's `revu submit` said and printed.
#[derive(Debug)]
struct Run {
    /// From `code index: N files; N parsed; N of the N entries this
    /// machine lacked came from the fleet (N rejected); built in S s`, in
    /// that order (the time left out); none when the fleet was not asked.
    index: Option<[u64; 5]>,
    /// Entries sent to the fleet (0 when none were).
    sent: u64,
    stderr: String,
    report: Value,
}

impl Run {
    fn index(&self) -> [u64; 5] {
        self.index
            .unwrap_or_else(|| panic!("no code index line: {}", self.stderr))
    }

    fn parsed(&self) -> u64 {
        self.index()[1]
    }

    /// `[asked, fetched, rejected]`.
    fn fleet(&self) -> [u64; 3] {
        let [_, _, fetched, asked, rejected] = self.index();
        [asked, fetched, rejected]
    }
}

fn numbers(line: &str) -> Vec<u64> {
    line.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect()
}

/// `revu submit --commit REV` in the repository, with the index cache in
/// `cache`, as the tenant of `token` (if any), with `extra` flags.
fn runner(
    repo: &Repo,
    endpoint: &str,
    rev: &str,
    cache: &Path,
    token: Option<&str>,
    extra: &[&str],
) -> Run {
    let mut cmd = Command::new(bin("revu"));
    cmd.current_dir(&repo.dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("REVU_COORDINATOR")
        .env_remove("REVU_INDEX_CACHE")
        .env_remove("REVU_NO_INDEX_CACHE")
        .env_remove("REVU_NO_SHARED_INDEX_CACHE")
        .env_remove("REVU_TOKEN")
        .env_remove("GITHUB_EVENT_NAME")
        .args([
            "submit",
            "--format",
            "json",
            "--fail-on",
            "never",
            "--timeout",
            "120",
        ])
        .args(["--commit", rev, "--coordinator", endpoint, "--index-cache"])
        .arg(cache)
        .args(extra);
    if let Some(token) = token {
        cmd.env("REVU_TOKEN", token);
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("revu submit: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("report: {e}: {stderr}"));
    let line = |start: &str| {
        stderr
            .lines()
            .find_map(|l| l.strip_prefix(start))
            .map(numbers)
    };
    let index = line("revu: code index: ").map(|n| {
        <[u64; 5]>::try_from(n.get(..5).unwrap_or_default())
            .unwrap_or_else(|_| panic!("code index line: {stderr}"))
    });
    let sent = line("revu: sent the fleet ").map_or(0, |n| n.first().copied().unwrap_or(0));
    Run {
        index,
        sent,
        stderr,
        report,
    }
}

/// Keys a commit of the repository asks about: the changed file on both
/// sides, and the eleven other code files.
const KEYS: u64 = 13;

/// Runner A fills the fleet reviewing the first change; runner B, with an
/// empty cache, reviews the rename and parses only the renamed file, and
/// its index is the one a runner that shares nothing builds.
fn fresh_runner_parses_only_what_the_fleet_has_not_seen(coordinator_args: &[&str], name: &str) {
    let top = scratch(name);
    let repo = Repo::new(&top);
    let cluster = Cluster::start(RedisServer::start(), 1, coordinator_args);
    let endpoint = cluster.endpoint();

    let a = runner(
        &repo,
        &endpoint,
        &repo.change,
        &top.join("cache-a"),
        None,
        &[],
    );
    assert_eq!(a.fleet(), [KEYS, 0, 0], "{}", a.stderr);
    assert_eq!(a.parsed(), KEYS, "{}", a.stderr);
    assert_eq!(a.sent, KEYS, "{}", a.stderr);

    let b = runner(
        &repo,
        &endpoint,
        &repo.rename,
        &top.join("cache-b"),
        None,
        &[],
    );
    // Every entry but the renamed file's new content came from the fleet.
    assert_eq!(b.fleet(), [KEYS, KEYS - 1, 0], "{}", b.stderr);
    assert_eq!(b.parsed(), 1, "{}", b.stderr);
    assert_eq!(b.sent, 1, "{}", b.stderr);

    let alone = runner(
        &repo,
        &endpoint,
        &repo.rename,
        &top.join("cache-alone"),
        None,
        &["--no-shared-index-cache"],
    );
    assert_eq!(alone.index, None, "{}", alone.stderr);
    assert_eq!(b.report["code_index"], alone.report["code_index"]);
    assert_eq!(b.report["code_index"]["stale_uses"], u64::from(STALE_USES));
    let _ = std::fs::remove_dir_all(&top);
}

#[test]
fn a_fresh_runner_parses_only_what_the_fleet_in_redis_has_not_seen() {
    fresh_runner_parses_only_what_the_fleet_has_not_seen(&[], "redis");
}

#[test]
fn a_fresh_runner_parses_only_what_the_fleet_in_a_directory_has_not_seen() {
    let dir = scratch("store-dir");
    let dir_arg = dir.to_string_lossy().into_owned();
    fresh_runner_parses_only_what_the_fleet_has_not_seen(
        &["--shared-index-cache-dir", &dir_arg],
        "dir",
    );
    let stamps: Vec<String> = std::fs::read_dir(dir.join("open"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(stamps.len(), 1, "{stamps:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_entry_held_corrupt_or_under_another_blobs_key_is_rejected_parsed_and_replaced() {
    let top = scratch("corrupt");
    let repo = Repo::new(&top);
    let cluster = Cluster::start(RedisServer::start(), 1, &[]);
    let endpoint = cluster.endpoint();
    let a = runner(
        &repo,
        &endpoint,
        &repo.change,
        &top.join("cache-a"),
        None,
        &[],
    );
    assert_eq!(a.sent, KEYS, "{}", a.stderr);

    let client = redis::Client::open(cluster.redis.url.as_str()).unwrap_or_else(|e| panic!("{e}"));
    let mut conn = client.get_connection().unwrap_or_else(|e| panic!("{e}"));
    let entries = cluster.redis.layout().index_cache(None, "entries");
    let fields: Vec<String> = redis::cmd("HKEYS")
        .arg(&entries)
        .query(&mut conn)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        fields.len(),
        usize::try_from(KEYS).unwrap_or(0),
        "{fields:?}"
    );
    let field = |path: &str| {
        let blob = repo.blob(&repo.change, path);
        fields
            .iter()
            .find(|f| f.ends_with(&format!("/{blob}.python")))
            .cloned()
            .unwrap_or_else(|| panic!("no entry of {path} ({blob}): {fields:?}"))
    };
    let get = |conn: &mut redis::Connection, f: &str| -> Vec<u8> {
        redis::cmd("HGET")
            .arg(&entries)
            .arg(f)
            .query(conn)
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let (m5, m6, m8) = (field("app/m5.py"), field("app/m6.py"), field("app/m8.py"));
    let mut corrupt = get(&mut conn, &m5);
    let middle = corrupt.len() / 2;
    corrupt[middle] ^= 0x40;
    let foreign = get(&mut conn, &m8);
    for (f, bytes) in [(&m5, corrupt), (&m6, foreign)] {
        let () = redis::cmd("HSET")
            .arg(&entries)
            .arg(f)
            .arg(bytes)
            .query(&mut conn)
            .unwrap_or_else(|e| panic!("{e}"));
    }

    let b = runner(
        &repo,
        &endpoint,
        &repo.rename,
        &top.join("cache-b"),
        None,
        &[],
    );
    assert_eq!(b.fleet(), [KEYS, KEYS - 3, 2], "{}", b.stderr);
    // The renamed file, and the two whose entries were refused.
    assert_eq!(b.parsed(), 3, "{}", b.stderr);
    assert_eq!(b.sent, 3, "{}", b.stderr);
    assert_eq!(b.report["code_index"]["stale_uses"], u64::from(STALE_USES));

    // What B sent replaced them: the next fresh runner parses nothing.
    let c = runner(
        &repo,
        &endpoint,
        &repo.rename,
        &top.join("cache-c"),
        None,
        &[],
    );
    assert_eq!(c.fleet(), [KEYS, KEYS, 0], "{}", c.stderr);
    assert_eq!(c.parsed(), 0, "{}", c.stderr);
    assert_eq!(c.sent, 0, "{}", c.stderr);
    assert_eq!(b.report["code_index"], c.report["code_index"]);
    let _ = std::fs::remove_dir_all(&top);
}

#[test]
fn a_tenants_entries_are_never_served_to_another_tenant() {
    const ALPHA: &str = "alpha-token-shared-index";
    const BRAVO: &str = "bravo-token-shared-index";
    let top = scratch("tenants");
    let repo = Repo::new(&top);
    let tokens = top.join("tokens");
    write(
        &top,
        "tokens",
        &format!(
            "team-a {}\nteam-b {}\n",
            token_digest(ALPHA),
            token_digest(BRAVO)
        ),
    );
    let tokens_arg = tokens.to_string_lossy().into_owned();
    let cluster = Cluster::start(RedisServer::start(), 1, &["--tokens-file", &tokens_arg]);
    let endpoint = cluster.endpoint();

    let a = runner(
        &repo,
        &endpoint,
        &repo.change,
        &top.join("cache-a"),
        Some(ALPHA),
        &[],
    );
    assert_eq!(a.sent, KEYS, "{}", a.stderr);
    // Team B sees none of team A's entries, and builds its own.
    let b = runner(
        &repo,
        &endpoint,
        &repo.rename,
        &top.join("cache-b"),
        Some(BRAVO),
        &[],
    );
    assert_eq!(b.fleet(), [KEYS, 0, 0], "{}", b.stderr);
    assert_eq!(b.parsed(), KEYS, "{}", b.stderr);
    assert_eq!(b.sent, KEYS, "{}", b.stderr);
    // Team A sees its own, and not the renamed file team B sent.
    let a2 = runner(
        &repo,
        &endpoint,
        &repo.rename,
        &top.join("cache-a2"),
        Some(ALPHA),
        &[],
    );
    assert_eq!(a2.fleet(), [KEYS, KEYS - 1, 0], "{}", a2.stderr);
    assert_eq!(a2.parsed(), 1, "{}", a2.stderr);
    let _ = std::fs::remove_dir_all(&top);
}

#[test]
fn a_coordinator_that_does_not_share_entries_leaves_the_review_as_it_was() {
    let top = scratch("not-offered");
    let repo = Repo::new(&top);
    let cluster = Cluster::start(RedisServer::start(), 1, &["--no-shared-index-cache"]);
    let run = runner(
        &repo,
        &cluster.endpoint(),
        &repo.rename,
        &top.join("cache"),
        None,
        &[],
    );
    assert!(
        run.stderr
            .contains("the coordinator does not share code index cache entries")
            && run
                .stderr
                .contains("the code index is built from this machine's cache alone"),
        "{}",
        run.stderr
    );
    assert_eq!(run.index, None, "{}", run.stderr);
    assert_eq!(run.sent, 0, "{}", run.stderr);
    assert_eq!(
        run.report["code_index"]["stale_uses"],
        u64::from(STALE_USES)
    );
    let _ = std::fs::remove_dir_all(&top);
}
