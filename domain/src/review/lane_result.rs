//! A settled lane: how it ended, with what each way of ending carries, and
//! its stored form.
//!
//! In code a lane's end is an enum ([`LaneEnd`]): a complete lane has its
//! report, an incomplete one the part of it that was kept and the banner
//! that says why, a faulted one its kind of fault and its banner, a
//! cancelled one nothing. Stored (a review's `lanes` hash), it keeps the
//! form it always had: the report's outcome name beside optional `body`,
//! `banner` and `fault` fields, so results stored before read back, and
//! results stored now read in an older coordinator.

use crate::lane::{CacheUse, FaultKind, LaneReportBody};
use crate::report::LaneOutcome;
use crate::usage::Usage;
use serde::{Deserialize, Serialize};

/// How a lane ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LaneEnd {
    /// Its report passed the completeness gate.
    Complete { body: LaneReportBody },
    /// Its report failed the gate twice, or its engine could not finish
    /// it; `body` is what could be kept, `banner` says why.
    Incomplete {
        body: LaneReportBody,
        banner: String,
    },
    /// No usable report: attempts or the deadline ran out, or the review
    /// could not be handled.
    PipelineFault { fault: FaultKind, banner: String },
    /// Not run: the review was cancelled.
    Cancelled,
}

/// The coordinator's settled account of one lane.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "StoredLaneResult")]
pub struct LaneResult {
    pub lane_id: String,
    pub end: LaneEnd,
    pub attempts: u32,
    /// What the lane spent on a model service, over all its attempts.
    pub usage: Option<Usage>,
    /// Whether its settling report came from the lane result cache.
    pub cache: Option<CacheUse>,
    pub worker: String,
    pub duration_ms: u64,
}

impl LaneResult {
    /// Lane `lane_id` ended `end` after `attempts`, with nothing else
    /// known of it (no usage, no worker).
    pub fn new(lane_id: impl Into<String>, end: LaneEnd, attempts: u32) -> Self {
        LaneResult {
            lane_id: lane_id.into(),
            end,
            attempts,
            usage: None,
            cache: None,
            worker: String::new(),
            duration_ms: 0,
        }
    }

    /// The outcome the report names.
    pub fn outcome(&self) -> LaneOutcome {
        match self.end {
            LaneEnd::Complete { .. } => LaneOutcome::Complete,
            LaneEnd::Incomplete { .. } => LaneOutcome::Incomplete,
            LaneEnd::PipelineFault { .. } => LaneOutcome::PipelineFault,
            LaneEnd::Cancelled => LaneOutcome::Cancelled,
        }
    }

    /// The lane's report, whole or as far as it was kept.
    pub fn body(&self) -> Option<&LaneReportBody> {
        match &self.end {
            LaneEnd::Complete { body } | LaneEnd::Incomplete { body, .. } => Some(body),
            LaneEnd::PipelineFault { .. } | LaneEnd::Cancelled => None,
        }
    }

    /// Why the lane did not complete, when it reported that far.
    pub fn banner(&self) -> Option<&str> {
        match &self.end {
            LaneEnd::Incomplete { banner, .. } | LaneEnd::PipelineFault { banner, .. } => {
                Some(banner)
            }
            LaneEnd::Complete { .. } | LaneEnd::Cancelled => None,
        }
    }

    /// The kind of fault of a faulted lane.
    pub fn fault(&self) -> Option<FaultKind> {
        match &self.end {
            LaneEnd::PipelineFault { fault, .. } => Some(*fault),
            _ => None,
        }
    }
}

/// A lane result as it is stored (read side).
#[derive(Deserialize)]
struct StoredLaneResult {
    lane_id: String,
    outcome: LaneOutcome,
    attempts: u32,
    #[serde(default)]
    body: Option<LaneReportBody>,
    #[serde(default)]
    banner: Option<String>,
    #[serde(default)]
    fault: Option<FaultKind>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    cache: Option<CacheUse>,
    #[serde(default)]
    worker: String,
    #[serde(default)]
    duration_ms: u64,
}

impl From<StoredLaneResult> for LaneResult {
    /// Fields an outcome does not use are dropped; one it uses but the
    /// stored result lacks reads as the coordinator always read it: an
    /// empty report, the banner `incomplete`, the default kind of fault.
    fn from(s: StoredLaneResult) -> Self {
        let end = match s.outcome {
            LaneOutcome::Complete => LaneEnd::Complete {
                body: s.body.unwrap_or_default(),
            },
            LaneOutcome::Incomplete => LaneEnd::Incomplete {
                body: s.body.unwrap_or_default(),
                banner: s.banner.unwrap_or_else(|| "incomplete".to_owned()),
            },
            LaneOutcome::PipelineFault => LaneEnd::PipelineFault {
                fault: s.fault.unwrap_or_default(),
                banner: s.banner.unwrap_or_default(),
            },
            LaneOutcome::Cancelled => LaneEnd::Cancelled,
        };
        LaneResult {
            lane_id: s.lane_id,
            end,
            attempts: s.attempts,
            usage: s.usage,
            cache: s.cache,
            worker: s.worker,
            duration_ms: s.duration_ms,
        }
    }
}

/// A lane result as it is stored (write side), borrowed from the result:
/// a lane's report is written without being copied.
#[derive(Serialize)]
struct StoredLaneResultRef<'a> {
    lane_id: &'a str,
    outcome: LaneOutcome,
    attempts: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    body: Option<&'a LaneReportBody>,
    #[serde(skip_serializing_if = "Option::is_none")]
    banner: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fault: Option<FaultKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<&'a Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache: Option<CacheUse>,
    worker: &'a str,
    duration_ms: u64,
}

impl Serialize for LaneResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        StoredLaneResultRef {
            lane_id: &self.lane_id,
            outcome: self.outcome(),
            attempts: self.attempts,
            body: self.body(),
            banner: self.banner(),
            fault: self.fault(),
            usage: self.usage.as_ref(),
            cache: self.cache,
            worker: &self.worker,
            duration_ms: self.duration_ms,
        }
        .serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> LaneReportBody {
        LaneReportBody {
            summary: "clean".into(),
            ..LaneReportBody::default()
        }
    }

    #[test]
    fn each_end_answers_for_what_it_carries() {
        let complete = LaneResult::new("a", LaneEnd::Complete { body: body() }, 1);
        assert_eq!(complete.outcome(), LaneOutcome::Complete);
        assert_eq!(complete.body(), Some(&body()));
        assert_eq!((complete.banner(), complete.fault()), (None, None));
        let incomplete = LaneEnd::Incomplete {
            body: body(),
            banner: "cut".into(),
        };
        let incomplete = LaneResult::new("a", incomplete, 2);
        assert_eq!(incomplete.outcome(), LaneOutcome::Incomplete);
        assert_eq!(incomplete.body(), Some(&body()));
        assert_eq!(incomplete.banner(), Some("cut"));
        let fault = LaneEnd::PipelineFault {
            fault: FaultKind::Timeout,
            banner: "late".into(),
        };
        let fault = LaneResult::new("a", fault, 3);
        assert_eq!(fault.outcome(), LaneOutcome::PipelineFault);
        assert_eq!(fault.body(), None);
        assert_eq!(
            (fault.banner(), fault.fault()),
            (Some("late"), Some(FaultKind::Timeout))
        );
        let cancelled = LaneResult::new("a", LaneEnd::Cancelled, 1);
        assert_eq!(cancelled.outcome(), LaneOutcome::Cancelled);
        assert_eq!((cancelled.body(), cancelled.banner()), (None, None));
    }

    #[test]
    fn every_end_reads_back_as_it_was_written() {
        for end in [
            LaneEnd::Complete { body: body() },
            LaneEnd::Incomplete {
                body: body(),
                banner: "cut".into(),
            },
            LaneEnd::PipelineFault {
                fault: FaultKind::NoEngine,
                banner: "no worker".into(),
            },
            LaneEnd::Cancelled,
        ] {
            let result = LaneResult::new("domain:a", end, 2);
            let json = serde_json::to_string(&result).unwrap_or_default();
            let back: Result<LaneResult, _> = serde_json::from_str(&json);
            assert_eq!(back.ok(), Some(result), "{json}");
        }
    }

    #[test]
    fn fields_an_outcome_lacks_read_as_they_always_did() {
        let read = |json: &str| serde_json::from_str::<LaneResult>(json).ok();
        let bare = read(r#"{"lane_id":"a","outcome":"COMPLETE","attempts":1}"#);
        assert_eq!(
            bare.map(|r| r.end),
            Some(LaneEnd::Complete {
                body: LaneReportBody::default()
            })
        );
        let fault = read(r#"{"lane_id":"a","outcome":"PIPELINE-FAULT","attempts":3}"#);
        assert_eq!(
            fault.map(|r| r.end),
            Some(LaneEnd::PipelineFault {
                fault: FaultKind::default(),
                banner: String::new()
            })
        );
        let incomplete = read(r#"{"lane_id":"a","outcome":"INCOMPLETE","attempts":2}"#);
        assert_eq!(
            incomplete.as_ref().and_then(|r| r.banner()),
            Some("incomplete")
        );
    }
}
