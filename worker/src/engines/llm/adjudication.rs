//! The requests of an adjudication lane too large for one: each request
//! decides only its own candidates.
//!
//! A review lane too large for one request is split by file, and every
//! request may report what it finds. An adjudication lane cannot be split
//! that way: every request would be shown, and would decide, every
//! candidate, and the merged decisions would decide each candidate as
//! many times as there are requests, which the completeness gate rightly
//! refuses. So the candidates are split instead: grouped by the file they
//! cite, groups packed into requests that fit the budget, each request
//! showing its candidates' files and listing its candidates by their index
//! in the lane, which its answer's schema allows and requires once each.

use super::budget::Counter;
use super::plan;
use super::prompt::{FileText, Parts, Prompt, candidates_section};
use revu_domain::finding::Finding;
use std::collections::BTreeMap;

/// One request of an adjudication lane.
#[derive(Debug)]
pub(super) struct Request {
    pub prompt: Prompt,
    pub tokens: u64,
    /// The candidates it decides, by index in the lane's list.
    pub decides: Vec<usize>,
}

/// The requests deciding `candidates` (the lane's list), which `parts`
/// shows; and what no request could carry.
pub(super) fn plan(
    parts: &Parts,
    candidates: &[Finding],
    counter: Counter,
    budget: u64,
) -> (Vec<Request>, Vec<String>) {
    let all: Vec<usize> = (0..candidates.len()).collect();
    let whole = plan::fit(parts, counter, budget);
    if whole.requests.len() <= 1 {
        let requests = whole
            .requests
            .into_iter()
            .map(|(prompt, tokens)| Request {
                prompt,
                tokens,
                decides: all.clone(),
            })
            .collect();
        return (requests, whole.left_out);
    }
    let full = candidates_section(candidates.iter().enumerate());
    let shown = |group: &[usize], files: Vec<FileText>| Parts {
        context: parts.context.replacen(
            &full,
            &candidates_section(group.iter().map(|&i| (i, &candidates[i]))),
            1,
        ),
        files,
        ..parts.clone()
    };
    let mut requests = Vec::new();
    let mut left_out = Vec::new();
    let mut pack: Vec<usize> = Vec::new();
    for group in by_file(candidates) {
        let mut tried = pack.clone();
        tried.extend(&group);
        if !pack.is_empty()
            && single(
                &shown(&tried, files_of(parts, candidates, &tried)),
                counter,
                budget,
            )
            .is_some()
        {
            pack = tried;
            continue;
        }
        if !pack.is_empty() {
            let p = shown(&pack, files_of(parts, candidates, &pack));
            push(
                &mut requests,
                &mut left_out,
                &p,
                std::mem::take(&mut pack),
                counter,
                budget,
            );
        }
        pack = group;
    }
    if !pack.is_empty() {
        let p = shown(&pack, files_of(parts, candidates, &pack));
        push(&mut requests, &mut left_out, &p, pack, counter, budget);
    }
    (requests, left_out)
}

/// `parts` as one request, if it fits.
fn single(parts: &Parts, counter: Counter, budget: u64) -> Option<(Prompt, u64)> {
    let fitted = plan::fit(parts, counter, budget);
    match <[_; 1]>::try_from(fitted.requests) {
        Ok([one]) if fitted.left_out.is_empty() => Some(one),
        _ => None,
    }
}

/// Adds the request deciding `decides`, shown by `parts`. A group of one
/// file too large for one request goes in its first request, what the
/// others would have shown named as left out.
fn push(
    requests: &mut Vec<Request>,
    left_out: &mut Vec<String>,
    parts: &Parts,
    decides: Vec<usize>,
    counter: Counter,
    budget: u64,
) {
    let fitted = plan::fit(parts, counter, budget);
    let mut split = fitted.requests.into_iter();
    left_out.extend(fitted.left_out);
    if split.len() > 1 {
        left_out.push(format!(
            "part of {} (candidates {} decided on the part of the file one request holds)",
            parts
                .files
                .iter()
                .map(|f| f.path.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            decides
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some((prompt, tokens)) = split.next() {
        requests.push(Request {
            prompt,
            tokens,
            decides,
        });
    }
}

/// Candidate indices grouped by the file they cite, in first-cited order.
fn by_file(candidates: &[Finding]) -> Vec<Vec<usize>> {
    let mut order: Vec<&str> = Vec::new();
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, c) in candidates.iter().enumerate() {
        let group = groups.entry(c.file.as_str()).or_default();
        if group.is_empty() {
            order.push(c.file.as_str());
        }
        group.push(i);
    }
    order
        .into_iter()
        .filter_map(|file| groups.remove(file))
        .collect()
}

/// The lane's files the candidates `group` cite, whole: what the planner
/// shows of a file (enclosing definitions, callers) refers to its hunks.
fn files_of(parts: &Parts, candidates: &[Finding], group: &[usize]) -> Vec<FileText> {
    parts
        .files
        .iter()
        .filter(|file| group.iter().any(|&i| candidates[i].file == file.path))
        .cloned()
        .collect()
}
