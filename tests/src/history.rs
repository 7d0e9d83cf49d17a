//! The history checker of the soak: what every review went through, and
//! the invariants a CI fleet relies on.

use crate::client::kind;
use revu_proto::v1 as pb;
use revu_proto::v1::review_event::Kind;
use serde_json::Value;
use std::collections::BTreeMap;

/// One review's history: its submission, its events and its final state.
#[derive(Debug, Clone)]
pub struct ReviewHistory {
    pub id: String,
    pub final_state: i32,
    pub report: Value,
    pub events: Vec<pb::ReviewEvent>,
    /// Seconds from submission to the terminal state, as the client saw it.
    pub seconds: f64,
}

/// Figures of a run, for the record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub reviews: usize,
    pub lanes: usize,
    pub dispatches: usize,
    pub attempts_started: usize,
    pub retries: usize,
    pub faults: usize,
    pub max_review_seconds: f64,
    /// Lanes that started more than once (their worker died or stalled).
    pub lanes_rerun: usize,
    /// Longest time from a lane's first start to its last restart, in
    /// seconds: how long a killed worker's lane waited to be taken over.
    pub max_recovery_seconds: f64,
}

/// Milliseconds of a Redis stream id (`1700000000000-0`).
fn event_ms(e: &pb::ReviewEvent) -> Option<u64> {
    e.event_id.split('-').next()?.parse().ok()
}

/// Checks every invariant over `histories`; returns the figures, or every
/// violation found.
pub fn check(histories: &[ReviewHistory]) -> Result<Figures, Vec<String>> {
    let mut problems = Vec::new();
    let mut figures = Figures {
        reviews: histories.len(),
        ..Figures::default()
    };
    for h in histories {
        let id = &h.id;
        figures.max_review_seconds = figures.max_review_seconds.max(h.seconds);
        // Exactly one terminal state.
        if h.final_state != pb::ReviewState::Finished as i32 {
            problems.push(format!(
                "{id}: final state {} is not FINISHED",
                h.final_state
            ));
        }
        let verdicts = h.events.iter().filter(|e| kind(e) == Kind::Verdict).count();
        let cancels = h
            .events
            .iter()
            .filter(|e| kind(e) == Kind::Cancelled)
            .count();
        if verdicts + cancels != 1 {
            problems.push(format!("{id}: {verdicts} verdict and {cancels} cancel events; exactly one terminal event expected"));
        }
        // Every planned lane reported or faulted, once.
        let lanes = h.report["lanes"].as_array().cloned().unwrap_or_default();
        figures.lanes += lanes.len();
        let mut settled: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &h.events {
            match kind(e) {
                Kind::LaneFinished | Kind::LaneFaulted => {
                    *settled.entry(e.lane_id.as_str()).or_default() += 1
                }
                Kind::LaneDispatched => figures.dispatches += 1,
                Kind::LaneStarted => figures.attempts_started += 1,
                Kind::LaneRetried => figures.retries += 1,
                _ => {}
            }
        }
        for lane in &lanes {
            let lane_id = lane["id"].as_str().unwrap_or_default();
            let outcome = lane["outcome"].as_str().unwrap_or_default();
            match outcome {
                "COMPLETE" | "INCOMPLETE" => {}
                "PIPELINE-FAULT" => figures.faults += 1,
                other => problems.push(format!("{id}: lane {lane_id} ended {other:?}")),
            }
            match settled.get(lane_id) {
                Some(1) => {}
                Some(n) => problems.push(format!("{id}: lane {lane_id} settled {n} times")),
                None => problems.push(format!(
                    "{id}: lane {lane_id} never settled in the event log"
                )),
            }
        }
        if settled.len() != lanes.len() {
            problems.push(format!(
                "{id}: {} lanes settled but the report has {}",
                settled.len(),
                lanes.len()
            ));
        }
        let mut starts: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
        for e in h.events.iter().filter(|e| kind(e) == Kind::LaneStarted) {
            starts
                .entry(e.lane_id.as_str())
                .or_default()
                .extend(event_ms(e));
        }
        for times in starts.values().filter(|t| t.len() > 1) {
            figures.lanes_rerun += 1;
            let (first, last) = (times.iter().min(), times.iter().max());
            if let (Some(first), Some(last)) = (first, last) {
                let secs = last.saturating_sub(*first) as f64 / 1000.0;
                figures.max_recovery_seconds = figures.max_recovery_seconds.max(secs);
            }
        }
        let mut ids: Vec<&str> = lanes.iter().filter_map(|l| l["id"].as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() != lanes.len() {
            problems.push(format!("{id}: the report lists a lane twice"));
        }
    }
    if problems.is_empty() {
        Ok(figures)
    } else {
        Err(problems)
    }
}
