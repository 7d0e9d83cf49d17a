//! TLS everywhere: the coordinator's gRPC port (server certificates
//! reloaded on change, mutual TLS with client certificates as tenants),
//! `revu submit` checking the certificate, coordinator and workers on a
//! Redis that listens for TLS only, with an ACL user, and the metrics
//! endpoint over HTTPS.

use revu_coordinator::auth::certificate_digest;
use revu_tests::bins::submit_example;
use revu_tests::certs::{Ca, Pair};
use revu_tests::{Cluster, RedisServer, bin};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("revu-tls-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

fn arg(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// `revu submit` of the example to `endpoint` with `args`.
fn submit(endpoint: &str, args: &[&str]) -> Output {
    submit_example(endpoint, args, &[])
}

/// Asserts `revu submit` printed a report and exited 0 or 1.
fn served(out: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{what}: exit {:?}: {stderr}",
        out.status.code()
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{what}: no report on stdout ({e}): {stderr}"));
    assert!(report["verdict"].is_string(), "{what}: {report}");
}

/// Asserts `revu submit` exited 3 with one line saying `says`.
fn refused(out: &Output, what: &str, says: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{what}: {stderr}");
    assert!(
        stderr.contains(says),
        "{what}: expected {says:?} in {stderr}"
    );
    assert_eq!(
        stderr.trim().lines().count(),
        1,
        "{what}: one line: {stderr}"
    );
}

#[test]
fn the_coordinator_serves_tls_and_submit_trusts_only_the_right_ca() {
    let dir = scratch("server");
    let ca = Ca::new(&dir, "first");
    let other = Ca::new(&dir, "second");
    let server = ca.server("coordinator");
    let (cert, key) = (arg(&server.cert), arg(&server.key));
    let cluster = Cluster::start(
        RedisServer::start(),
        1,
        &["--tls-cert", &cert, "--tls-key", &key],
    );
    let https = format!("https://{}", cluster.addr);
    let http = format!("http://{}", cluster.addr);

    served(
        &submit(&https, &["--ca-cert", &arg(&ca.pem)]),
        "the right CA",
    );
    refused(
        &submit(&https, &["--ca-cert", &arg(&other.pem)]),
        "a wrong CA",
        "not trusted",
    );
    refused(&submit(&http, &[]), "plaintext to the TLS port", "TLS");

    // A renewed certificate, from another CA, is served without a restart.
    let renewed = other.server("renewed");
    for (from, to) in [(&renewed.cert, &server.cert), (&renewed.key, &server.key)] {
        std::fs::copy(from, to).unwrap_or_else(|e| panic!("renewing: {e}"));
    }
    let started = Instant::now();
    loop {
        let out = submit(&https, &["--ca-cert", &arg(&other.pem)]);
        if out.status.code() != Some(3) {
            served(&out, "after the renewal");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the renewed certificate was not served within 20 s: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    refused(
        &submit(&https, &["--ca-cert", &arg(&ca.pem)]),
        "the old CA after the renewal",
        "not trusted",
    );
    drop(cluster);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mutual_tls_refuses_clients_without_a_certificate_and_a_listed_one_is_a_tenant() {
    let dir = scratch("mutual");
    let ca = Ca::new(&dir, "fleet");
    let server = ca.server("coordinator");
    let ci = ca.client("ci-runner");
    let stranger = Ca::new(&dir, "stranger").client("stranger");
    let tokens = dir.join("tokens");
    std::fs::write(
        &tokens,
        format!("team-ci {}\n", certificate_digest(&ci.der)),
    )
    .unwrap_or_else(|e| panic!("tokens: {e}"));
    let cluster = Cluster::start(
        RedisServer::start(),
        1,
        &[
            "--tls-cert",
            &arg(&server.cert),
            "--tls-key",
            &arg(&server.key),
            "--tls-client-ca",
            &arg(&ca.pem),
            "--tokens-file",
            &arg(&tokens),
        ],
    );
    let https = format!("https://{}", cluster.addr);
    let trust = arg(&ca.pem);
    let as_holder = |pair: &Pair| {
        let (cert, key) = (arg(&pair.cert), arg(&pair.key));
        submit(
            &https,
            &[
                "--ca-cert",
                &trust,
                "--client-cert",
                &cert,
                "--client-key",
                &key,
            ],
        )
    };
    // The listed certificate is tenant team-ci: no token needed.
    served(&as_holder(&ci), "a listed client certificate");
    refused(
        &submit(&https, &["--ca-cert", &trust]),
        "no client certificate",
        "requires a client certificate",
    );
    refused(
        &as_holder(&stranger),
        "a certificate of another CA",
        "did not accept the client certificate",
    );
    // A certificate of the CA that the tokens file does not list passes
    // the handshake but names no tenant.
    let unlisted = ca.client("unlisted");
    let out = as_holder(&unlisted);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unlisted certificate: {stderr}"
    );
    assert!(stderr.contains("unauthenticated"), "{stderr}");
    drop(cluster);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn coordinator_and_workers_review_over_rediss_with_an_acl_user() {
    let dir = scratch("redis");
    let ca = Ca::new(&dir, "data");
    let redis_cert = ca.server("redis");
    let client = ca.client("revu");
    let password = dir.join("redis-password");
    std::fs::write(&password, "s3cret-pw\n").unwrap_or_else(|e| panic!("password: {e}"));
    let redis = RedisServer::start_tls(
        &[
            "--tls-cert-file",
            &arg(&redis_cert.cert),
            "--tls-key-file",
            &arg(&redis_cert.key),
            "--tls-ca-cert-file",
            &arg(&ca.pem),
            "--tls-auth-clients",
            "yes",
            // The default user off: only the ACL user gets in.
            "--user",
            "default",
            "off",
            "--user",
            "revu",
            "on",
            ">s3cret-pw",
            // Only the keys under the test's prefix, no dangerous commands:
            // what docs/security.md tells operators to grant.
            "~revu-test-*",
            "~{revu-test-*",
            "+@all",
            "-@dangerous",
        ],
        |port| format!("rediss://revu@127.0.0.1:{port}"),
    );
    let access = [
        "--redis-ca-cert".to_owned(),
        arg(&ca.pem),
        "--redis-client-cert".to_owned(),
        arg(&client.cert),
        "--redis-client-key".to_owned(),
        arg(&client.key),
        "--redis-password-file".to_owned(),
        arg(&password),
    ];
    let access: Vec<&str> = access.iter().map(String::as_str).collect();
    let mut cluster = Cluster::start_coordinator_only(redis, &access);
    cluster.add_worker(&access);
    served(&submit(&cluster.endpoint(), &[]), "a review over rediss://");

    // Without the CA, the coordinator refuses the Redis certificate.
    let out = Command::new(bin("revu-coordinator"))
        .args(["--listen", "127.0.0.1:0", "--redis", &cluster.redis.url])
        .env_remove("REVU_REDIS_CA_CERT")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("running revu-coordinator: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("connecting to redis"), "{stderr}");
    drop(cluster);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `GET path` over HTTPS from `addr`, trusting only `ca`.
async fn https_get(addr: &str, ca: &Path, path: &str) -> Result<String, String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    revu_runtime::tls::install_crypto_provider();
    let roots = revu_runtime::tls::read_roots("CA", ca).map_err(|e| e.to_string())?;
    let config = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| e.to_string())?;
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").map_err(|e| e.to_string())?;
    let mut stream = connector
        .connect(name, tcp)
        .await
        .map_err(|e| e.to_string())?;
    stream
        .write_all(format!("GET {path} HTTP/1.1\r\nhost: x\r\n\r\n").as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut out = String::new();
    // A server that closes without TLS close_notify ends the read with an
    // error after the whole answer: keep what came.
    let _ = stream.read_to_string(&mut out).await;
    Ok(out)
}

#[test]
fn the_metrics_endpoint_serves_https_with_its_own_certificate() {
    let dir = scratch("metrics");
    let ca = Ca::new(&dir, "ops");
    let pair = ca.server("metrics");
    let (cert, key) = (arg(&pair.cert), arg(&pair.key));
    let mut cluster = Cluster::start_coordinator_only(RedisServer::start(), &[]);
    let worker = cluster.add_worker(&[
        "--metrics-listen",
        "127.0.0.1:0",
        "--metrics-tls-cert",
        &cert,
        "--metrics-tls-key",
        &key,
    ]);
    let addr = cluster.workers[worker].announced("metrics serving");
    let rt = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("runtime: {e}"));
    let got = rt
        .block_on(https_get(&addr, &ca.pem, "/metrics"))
        .unwrap_or_else(|e| panic!("https /metrics: {e}"));
    assert!(got.starts_with("HTTP/1.1 200 OK"), "{got}");
    assert!(got.contains("revu_worker_lanes_running"), "{got}");
    // Plain HTTP to the TLS port gets no metrics.
    let plain = revu_tests::scrape::scrape(&addr);
    assert!(
        plain
            .as_ref()
            .map_or(true, |body| !body.contains("revu_worker_lanes_running")),
        "{plain:?}"
    );
    // Another CA's clients do not trust it.
    let other = Ca::new(&dir, "elsewhere");
    let refused = rt.block_on(https_get(&addr, &other.pem, "/metrics"));
    assert!(refused.is_err(), "{refused:?}");
    drop(cluster);
    let _ = std::fs::remove_dir_all(&dir);
}
