//! A lane's life cycle as the coordinator sees it, and what one report does
//! to it: the whole transition table in one pure function.
//!
//! ```text
//!              report of the awaited attempt
//! Awaiting(n) ──────────────────────────────┬─ passes the gate ───────────► Settled(Complete)
//!     ▲                                      ├─ fails it, first time ──────► Awaiting(n+1), sent back n
//!     │                                      ├─ fails it again ────────────► Settled(Incomplete)
//!     │                                      ├─ failed, policy allows ─────► Awaiting(n+1) after backoff
//!     └──────────────────────────────────────┴─ failed, no retry left ─────► Settled(PipelineFault)
//! ```
//!
//! A report of an older attempt, of a settled lane, or a second copy of the
//! report the gate already sent back is discarded. The store applies each
//! transition atomically and only from the state it was computed from
//! (`settle_lane` at most once, `advance_and_dispatch` only from attempt
//! `n`), so two coordinators computing the same transition apply it once.

use revu_domain::lane::{FaultKind, LaneReportBody};
use revu_domain::retry::{Retry, RetryPolicy};
use revu_domain::review::LaneAttempts;
use std::time::Duration;

/// Where one lane of a running review is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LaneState {
    /// Attempt `attempt` is on the queue or running. `sent_back` is the
    /// attempt the completeness gate rejected, if it did (once per lane).
    Awaiting {
        attempt: u32,
        sent_back: Option<u32>,
    },
    /// The lane has its result; every later report is a duplicate.
    Settled,
}

/// A report of the awaited attempt, as the gate and the worker judged it.
#[derive(Debug)]
pub(super) enum Reported {
    /// The report passed the completeness gate.
    Passed(LaneReportBody),
    /// The report failed the gate; `salvaged` is what could be kept of it.
    /// `unfinished` when the engine itself said it could not finish the
    /// lane (its answer was cut at a token limit): sending it back would
    /// only repeat that.
    FailedGate {
        problems: Vec<String>,
        salvaged: LaneReportBody,
        unfinished: bool,
    },
    /// The engine produced no report; `retry_after` is how long its
    /// service asked to be left alone, if it did.
    Failed {
        reason: String,
        retry: Retry,
        kind: FaultKind,
        retry_after: Option<Duration>,
    },
}

/// What a report does to its lane.
#[derive(Debug, PartialEq)]
pub(super) enum Transition {
    /// Nothing: the report is stale or a duplicate.
    Discard(&'static str),
    Complete(LaneReportBody),
    /// Kept with a banner after the gate rejected it twice.
    Incomplete {
        body: LaneReportBody,
        why: String,
    },
    /// The gate sends the report back once: attempt `n + 1`, at once.
    SendBack {
        problems: Vec<String>,
    },
    /// The engine failed and the policy allows attempt `n + 1`, after the
    /// policy's backoff or the engine's `retry_after`, whichever is longer.
    Retry {
        delay: Duration,
        reason: String,
        kind: FaultKind,
    },
    /// The engine failed and no attempt is left.
    Fault {
        why: String,
        kind: FaultKind,
    },
}

impl LaneState {
    /// The state of a lane from what the store holds of it.
    pub(super) fn of(attempts: Option<&LaneAttempts>, settled: bool) -> Self {
        if settled {
            return LaneState::Settled;
        }
        let recorded = attempts.copied().unwrap_or_default();
        LaneState::Awaiting {
            // Every dispatched lane has its first attempt recorded; a
            // missing record reads as that first attempt.
            attempt: recorded.awaited.max(1),
            sent_back: recorded.gate_rejected,
        }
    }

    /// Whether a report of `attempt` is to be looked at at all; stale and
    /// duplicate reports are discarded before their body is checked.
    pub(super) fn admits(self, attempt: u32) -> Result<(), &'static str> {
        match self {
            LaneState::Settled => Err("lane already settled"),
            LaneState::Awaiting {
                attempt: awaited, ..
            } if attempt < awaited => Err("stale attempt"),
            LaneState::Awaiting {
                sent_back: Some(rejected),
                ..
            } if rejected == attempt => Err("gate rejection already sent back"),
            LaneState::Awaiting { .. } => Ok(()),
        }
    }

    /// The transition a report of `attempt` asks for.
    pub(super) fn on_report(
        self,
        attempt: u32,
        reported: Reported,
        policy: &RetryPolicy,
    ) -> Transition {
        if let Err(why) = self.admits(attempt) {
            return Transition::Discard(why);
        }
        let sent_back = match self {
            LaneState::Awaiting { sent_back, .. } => sent_back,
            LaneState::Settled => return Transition::Discard("lane already settled"),
        };
        match reported {
            Reported::Passed(body) => Transition::Complete(body),
            Reported::FailedGate {
                problems,
                unfinished: false,
                ..
            } if sent_back.is_none() => Transition::SendBack { problems },
            Reported::FailedGate {
                problems,
                salvaged,
                unfinished,
            } => Transition::Incomplete {
                body: salvaged,
                why: if unfinished {
                    format!("report incomplete: {}", problems.join("; "))
                } else {
                    format!(
                        "report failed the completeness gate twice: {}",
                        problems.join("; ")
                    )
                },
            },
            Reported::Failed {
                reason,
                retry,
                kind,
                retry_after,
            } => {
                if policy.allows_another(attempt, retry) {
                    Transition::Retry {
                        delay: policy.delay(attempt).max(retry_after.unwrap_or_default()),
                        reason,
                        kind,
                    }
                } else if retry == Retry::Transient {
                    Transition::Fault {
                        why: format!("failed {attempt} attempt(s), last: {reason}"),
                        kind,
                    }
                } else {
                    Transition::Fault {
                        why: format!("permanent failure on attempt {attempt}: {reason}"),
                        kind,
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: RetryPolicy = RetryPolicy {
        max_attempts: 3,
        base_delay_ms: 0,
        max_delay_ms: 0,
    };

    fn awaiting(attempt: u32, sent_back: Option<u32>) -> LaneState {
        LaneState::Awaiting { attempt, sent_back }
    }

    fn body() -> LaneReportBody {
        LaneReportBody {
            summary: "clean".into(),
            ..LaneReportBody::default()
        }
    }

    fn failed_gate() -> Reported {
        Reported::FailedGate {
            problems: vec!["missing summary".into()],
            salvaged: LaneReportBody::default(),
            unfinished: false,
        }
    }

    fn failed(transient: bool) -> Reported {
        Reported::Failed {
            reason: "boom".into(),
            retry: Retry::when(transient),
            kind: FaultKind::Timeout,
            retry_after: None,
        }
    }

    #[test]
    fn the_state_comes_from_the_stored_attempts() {
        let recorded = LaneAttempts {
            awaited: 2,
            gate_rejected: Some(1),
        };
        assert_eq!(LaneState::of(Some(&recorded), false), awaiting(2, Some(1)));
        assert_eq!(LaneState::of(None, false), awaiting(1, None));
        assert_eq!(LaneState::of(Some(&recorded), true), LaneState::Settled);
    }

    #[test]
    fn a_passing_report_completes_the_lane() {
        let t = awaiting(1, None).on_report(1, Reported::Passed(body()), &POLICY);
        assert_eq!(t, Transition::Complete(body()));
    }

    #[test]
    fn stale_and_settled_reports_are_discarded_before_anything_else() {
        let t = awaiting(2, None).on_report(1, Reported::Passed(body()), &POLICY);
        assert_eq!(t, Transition::Discard("stale attempt"));
        let t = LaneState::Settled.on_report(3, failed(true), &POLICY);
        assert_eq!(t, Transition::Discard("lane already settled"));
    }

    #[test]
    fn the_gate_sends_a_lane_back_once_then_keeps_it_incomplete() {
        let first = awaiting(1, None).on_report(1, failed_gate(), &POLICY);
        assert_eq!(
            first,
            Transition::SendBack {
                problems: vec!["missing summary".into()]
            }
        );
        // A second copy of the report that was sent back changes nothing.
        let copy = awaiting(2, Some(1)).on_report(1, failed_gate(), &POLICY);
        assert_eq!(copy, Transition::Discard("stale attempt"));
        let same_attempt = awaiting(1, Some(1)).on_report(1, failed_gate(), &POLICY);
        assert_eq!(
            same_attempt,
            Transition::Discard("gate rejection already sent back")
        );
        let second = awaiting(2, Some(1)).on_report(2, failed_gate(), &POLICY);
        assert!(
            matches!(&second, Transition::Incomplete { why, .. } if why.contains("twice: missing summary")),
            "{second:?}"
        );
    }

    #[test]
    fn a_report_its_engine_could_not_finish_is_kept_incomplete_at_once() {
        let cut = Reported::FailedGate {
            problems: vec!["the engine could not finish the lane: cut".into()],
            salvaged: LaneReportBody::default(),
            unfinished: true,
        };
        let t = awaiting(1, None).on_report(1, cut, &POLICY);
        assert!(
            matches!(&t, Transition::Incomplete { why, .. } if why.starts_with("report incomplete: ")),
            "{t:?}"
        );
    }

    #[test]
    fn transient_failures_retry_until_the_policy_runs_out() {
        for attempt in 1..POLICY.max_attempts {
            let t = awaiting(attempt, None).on_report(attempt, failed(true), &POLICY);
            assert!(matches!(t, Transition::Retry { .. }), "{attempt}: {t:?}");
        }
        let last = POLICY.max_attempts;
        let t = awaiting(last, None).on_report(last, failed(true), &POLICY);
        assert_eq!(
            t,
            Transition::Fault {
                why: "failed 3 attempt(s), last: boom".into(),
                kind: FaultKind::Timeout,
            }
        );
    }

    #[test]
    fn a_retry_waits_out_the_engine_s_retry_after() {
        let rate_limited = Reported::Failed {
            reason: "429".into(),
            retry: Retry::Transient,
            kind: FaultKind::EngineError,
            retry_after: Some(Duration::from_secs(7)),
        };
        let t = awaiting(1, None).on_report(1, rate_limited, &POLICY);
        assert!(
            matches!(t, Transition::Retry { delay, .. } if delay == Duration::from_secs(7)),
            "{t:?}"
        );
    }

    #[test]
    fn a_permanent_failure_faults_at_once() {
        let t = awaiting(1, None).on_report(1, failed(false), &POLICY);
        assert_eq!(
            t,
            Transition::Fault {
                why: "permanent failure on attempt 1: boom".into(),
                kind: FaultKind::Timeout,
            }
        );
    }

    #[test]
    fn a_gate_rejected_lane_may_still_retry_an_engine_failure() {
        let t = awaiting(2, Some(1)).on_report(2, failed(true), &POLICY);
        assert!(matches!(t, Transition::Retry { .. }), "{t:?}");
    }
}
