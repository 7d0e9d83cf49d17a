//! Reading a `/metrics` endpoint the way Prometheus does, and looking up
//! samples in the text it returns.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// `GET {path}` from `addr` (`127.0.0.1:port`): the status code and body.
/// HTTP/1.0, so that the body is whole (never chunked) and ends with the
/// connection.
pub(crate) fn get(addr: &str, path: &str) -> Result<(u16, String), String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(|e| format!("timeout: {e}"))?;
    stream
        .write_all(format!("GET {path} HTTP/1.0\r\nhost: {addr}\r\n\r\n").as_bytes())
        .map_err(|e| format!("write: {e}"))?;
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .map_err(|e| format!("read: {e}"))?;
    let (head, body) = response
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("no header end in {response:?}"))?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("no status in {head:?}"))?;
    Ok((status, body.to_owned()))
}

/// The status code `GET {path}` gets from `addr`.
pub fn status(addr: &str, path: &str) -> Result<u16, String> {
    get(addr, path).map(|(status, _)| status)
}

/// `GET /metrics` from `addr` (`127.0.0.1:port`); the response body.
pub fn scrape(addr: &str) -> Result<String, String> {
    match get(addr, "/metrics")? {
        (200, body) => Ok(body),
        (status, _) => Err(format!("unexpected status {status}")),
    }
}

/// The labels of a sample line, in order.
fn labels(line: &str) -> Vec<(String, String)> {
    let Some(open) = line.find('{') else {
        return Vec::new();
    };
    let Some(close) = line.rfind('}') else {
        return Vec::new();
    };
    line[open + 1..close]
        .split("\",")
        .filter_map(|pair| pair.split_once("=\""))
        .map(|(k, v)| (k.trim().to_owned(), v.trim_end_matches('"').to_owned()))
        .collect()
}

/// The value of the sample `name` whose labels include all of `wanted`.
/// Several matches are summed (a subset of labels selects a sum).
pub fn sample(body: &str, name: &str, wanted: &[(&str, &str)]) -> Option<f64> {
    let mut total = None;
    for line in body.lines().filter(|l| !l.starts_with('#')) {
        let metric = line.split(['{', ' ']).next().unwrap_or("");
        if metric != name {
            continue;
        }
        let have = labels(line);
        let matches = wanted
            .iter()
            .all(|(k, v)| have.iter().any(|(hk, hv)| hk == k && hv == v));
        if !matches {
            continue;
        }
        let value = line
            .rsplit(' ')
            .next()
            .and_then(|v| v.parse::<f64>().ok())?;
        total = Some(total.unwrap_or(0.0) + value);
    }
    total
}

/// Metric names a text exposition declares, as the samples are named:
/// counters with `_total`, histograms with `_bucket`, `_sum` and `_count`.
pub fn declared_names(body: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in body.lines() {
        let mut parts = line.split_whitespace();
        if parts.next() != Some("#") || parts.next() != Some("TYPE") {
            continue;
        }
        let (Some(name), Some(kind)) = (parts.next(), parts.next()) else {
            continue;
        };
        match kind {
            // OpenMetrics names the family, the classic format the sample.
            "counter" if name.ends_with("_total") => names.push(name.to_owned()),
            "counter" => names.push(format!("{name}_total")),
            "histogram" => {
                for suffix in ["_bucket", "_sum", "_count"] {
                    names.push(format!("{name}{suffix}"));
                }
            }
            _ => names.push(name.to_owned()),
        }
    }
    names
}
