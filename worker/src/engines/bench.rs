//! Engines for measuring the pipeline itself (`revu bench`): `noop`
//! answers every lane at once with an empty complete report, and
//! `sleep:MS` does the same after MS milliseconds, a simulated slow
//! engine that waits on a timer, holding no thread.

use super::{Engine, EngineOutput, LaneInput, Review};
use revu_domain::lane::LaneReportBody;
use std::time::Duration;

/// The name of the engine that answers at once.
pub const NOOP: &str = "noop";

#[derive(Debug)]
pub struct BenchEngine {
    name: String,
    delay: Duration,
}

impl BenchEngine {
    pub fn noop() -> Self {
        BenchEngine {
            name: NOOP.to_owned(),
            delay: Duration::ZERO,
        }
    }

    /// `sleep:{ms}`.
    pub fn sleep(ms: u64) -> Self {
        BenchEngine {
            name: format!("sleep:{ms}"),
            delay: Duration::from_millis(ms),
        }
    }
}

impl Engine for BenchEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn review(&self, input: LaneInput) -> Review<'_> {
        Box::pin(async move {
            if !self.delay.is_zero() {
                tokio::time::sleep(self.delay).await;
            }
            Ok(EngineOutput::Body(LaneReportBody {
                reviewed: input.job.lane.files.clone(),
                checks: vec![self.name.clone()],
                summary: format!("{}: nothing reviewed, by design.", self.name),
                ..LaneReportBody::default()
            }))
        })
    }
}
