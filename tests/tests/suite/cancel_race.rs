//! A cancel racing a review's finalization, through the coordinator, on
//! both backends: whichever move wins, the other changes nothing, and the
//! cancel's answer, the stored phase, the last event watchers hear and the
//! report all say the same.

use revu_coordinator::config::ReviewSettings;
use revu_coordinator::service::{Coordinator, Submission};
use revu_domain::lane::{LaneReportBody, ReviewId};
use revu_domain::review::{LaneEnd, LaneResult, ProgressEvent, ReviewPhase, ReviewState, Stage};
use revu_queue::memory::MemoryBackend;
use revu_queue::{JobQueue, ReviewStore};
use revu_tests::RedisServer;
use revu_tests::queue_fixtures::{OrFail, redis_backend};
use revu_tests::scenario::example_diff;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Barrier;

/// Reviews per backend, a quarter in each of the ways [`Start`] lists.
const RACES: usize = 80;

/// How the cancel and the finalization of one review start.
#[derive(Debug, Clone, Copy)]
enum Start {
    /// The cancel, then the finalization: the cancel wins.
    CancelFirst,
    /// The finalization, then the cancel: the finalization wins.
    FinalizeFirst,
    /// Both at once, on two threads.
    Together,
    /// Both on two threads, the cancel this far behind (0 to 4 ms: about
    /// how long a finalization takes), so that some land while the
    /// report is being written.
    CancelBehind(Duration),
}

impl Start {
    fn of(race: usize) -> Self {
        match race % 4 {
            0 => Start::CancelFirst,
            1 => Start::FinalizeFirst,
            2 => Start::Together,
            _ => Start::CancelBehind(Duration::from_micros(
                u64::try_from(race / 4 * 200).unwrap_or(0),
            )),
        }
    }
}

/// Every lane of `id` settled clean, as gathering would have settled
/// them, without finalizing: the sweep that finalizes it is one side of
/// the race.
async fn settle_all_clean<B: ReviewStore>(backend: &B, id: &ReviewId) {
    let record = backend.load_record(id).await.or_fail();
    let record = record.unwrap_or_else(|| panic!("review {id} not stored"));
    for lane in &record.plan.lanes {
        let result = Arc::new(LaneResult {
            worker: "w".into(),
            duration_ms: 1,
            ..LaneResult::new(
                lane.id.clone(),
                LaneEnd::Complete {
                    body: LaneReportBody {
                        reviewed: lane.files.clone(),
                        checks: vec!["rules".into()],
                        summary: "clean".into(),
                        ..LaneReportBody::default()
                    },
                },
                1,
            )
        });
        let finished = ProgressEvent::LaneFinished {
            lane_id: lane.id.clone(),
            attempt: 1,
            findings: 0,
        };
        assert!(backend.settle_lane(id, &result, &finished).await.or_fail());
    }
}

/// Lets `time` pass, finer than the runtime's timer (a millisecond).
async fn wait(time: Duration) {
    let started = Instant::now();
    while started.elapsed() < time {
        tokio::task::yield_now().await;
    }
}

/// The cancel of review `id` and a sweep that finalizes it, on two tasks
/// let go together, the cancel `behind` later; what the cancel answered.
async fn race_at<B: JobQueue + ReviewStore>(
    coordinator: &Coordinator<B>,
    id: &ReviewId,
    behind: Duration,
) -> ReviewState {
    let start = Arc::new(Barrier::new(2));
    let finalize = {
        let (coordinator, start) = (coordinator.clone(), Arc::clone(&start));
        tokio::spawn(async move {
            start.wait().await;
            coordinator.sweep_once().await
        })
    };
    let cancel = {
        let (coordinator, id) = (coordinator.clone(), id.clone());
        tokio::spawn(async move {
            start.wait().await;
            wait(behind).await;
            coordinator.cancel(&id).await
        })
    };
    finalize.await.or_fail().or_fail();
    cancel.await.or_fail().or_fail()
}

async fn cancel_races_finalization<B: JobQueue + ReviewStore>(backend: B) {
    let coordinator = Coordinator::new(backend.clone(), ReviewSettings::default()).or_fail();
    let (mut cancelled, mut finished, mut while_finalizing) = (0, 0, 0);
    for race in 0..RACES {
        let submission = Submission {
            diff: example_diff("docs-only.patch"),
            ..Submission::default()
        };
        let id = coordinator.submit(submission).await.or_fail().0;
        settle_all_clean(&backend, &id).await;
        let answer = match Start::of(race) {
            Start::CancelFirst => {
                let answer = coordinator.cancel(&id).await.or_fail();
                coordinator.sweep_once().await.or_fail();
                answer
            }
            Start::FinalizeFirst => {
                coordinator.sweep_once().await.or_fail();
                coordinator.cancel(&id).await.or_fail()
            }
            Start::Together => race_at(&coordinator, &id, Duration::ZERO).await,
            Start::CancelBehind(behind) => race_at(&coordinator, &id, behind).await,
        };

        let record = backend.load_record(&id).await.or_fail();
        let phase = record.map(|r| r.phase);
        let report = backend.load_report(&id).await.or_fail();
        let status = coordinator.status(&id).await.or_fail();
        let events = backend
            .read_events(&id, "0", Duration::ZERO)
            .await
            .or_fail();
        let last: Vec<&ProgressEvent> = events
            .iter()
            .map(|(_, e)| e)
            .filter(|e| e.is_final())
            .collect();
        assert_eq!(status.state, answer, "race {race}");
        match answer {
            ReviewState::Cancelled => {
                cancelled += 1;
                // Finalization had begun: its finish was the move lost.
                let verify = ProgressEvent::StageStarted {
                    stage: Stage::Verify,
                };
                if events.iter().any(|(_, e)| *e == verify) {
                    while_finalizing += 1;
                }
                assert_eq!(phase, Some(ReviewPhase::Cancelled), "race {race}");
                assert_eq!(report, None, "race {race}: a cancelled review's report");
                assert_eq!(last, [&ProgressEvent::Cancelled], "race {race}");
            }
            ReviewState::Finished => {
                finished += 1;
                assert_eq!(phase, Some(ReviewPhase::Finished), "race {race}");
                assert!(report.is_some(), "race {race}: finished without a report");
                assert!(
                    matches!(last[..], [ProgressEvent::Verdict { .. }]),
                    "race {race}: {last:?}"
                );
            }
            ReviewState::Running => panic!("race {race}: a cancel left the review running"),
        }
        assert!(
            !backend.active_reviews().await.or_fail().contains(&id),
            "race {race}: still active"
        );
    }
    eprintln!(
        "{RACES} reviews, {} raced: cancel won {cancelled} ({while_finalizing} while \
         finalizing), finalization won {finished}",
        RACES / 2
    );
    assert!(
        cancelled > 0 && finished > 0,
        "one side never won: cancelled {cancelled}, finished {finished}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_a_cancel_racing_finalization_ends_one_way_only() {
    cancel_races_finalization(MemoryBackend::new()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_a_cancel_racing_finalization_ends_one_way_only() {
    let server = RedisServer::start();
    cancel_races_finalization(redis_backend(&server).await).await;
}
