//! The phase moves of the store contract: a compare-and-set from the phase
//! a move leaves, with everything the move writes in the same step; and
//! a cancel racing a finish, of which exactly one wins.

use revu_domain::adjudication::ADJUDICATION_LANE;
use revu_domain::lane::{LaneKind, ReviewId};
use revu_domain::report::{Gate, Verdict};
use revu_domain::review::{ProgressEvent, ReviewPhase, Stage};
use revu_queue::{JobQueue, MoveOutcome, PhaseMove, QueueError, ReviewStore};
use revu_tests::queue_fixtures::{OrFail, job, move_to, record};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Barrier;

/// Cancels and finishes raced per backend.
const RACES: usize = 200;

fn verdict() -> ProgressEvent {
    ProgressEvent::Verdict {
        verdict: Verdict::Approve,
        gate: Gate::MergeReady,
    }
}

async fn events_of<B: ReviewStore>(b: &B, id: &ReviewId) -> Vec<ProgressEvent> {
    let read = b.read_events(id, "0", Duration::ZERO).await.or_fail();
    read.into_iter().map(|(_, e)| e).collect()
}

pub(super) async fn a_phase_moves_only_from_the_phase_it_leaves<B: JobQueue + ReviewStore>(b: B) {
    let id = ReviewId::new();
    let first = job(&id, "domain:a");
    let mut reviewing = record(&id);
    Arc::make_mut(&mut reviewing.plan).lanes = vec![first.lane.clone()];
    b.create_review(
        &reviewing,
        &Arc::default(),
        None,
        std::slice::from_ref(&first),
    )
    .await
    .or_fail();
    let stored = b.load_record(&id).await.or_fail();
    assert_eq!(stored.map(|r| r.phase), Some(ReviewPhase::Reviewing));

    // The move to adjudication: a grown plan, its lane dispatched, and
    // what watchers hear, all at once.
    let mut adjudication = job(&id, ADJUDICATION_LANE);
    adjudication.lane.kind = LaneKind::Adjudication;
    let mut adjudicating = reviewing.in_phase(ReviewPhase::Adjudicating);
    Arc::make_mut(&mut adjudicating.plan)
        .lanes
        .push(adjudication.lane.clone());
    let events = [
        ProgressEvent::LaneDispatched {
            lane_id: ADJUDICATION_LANE.into(),
            attempt: 1,
        },
        ProgressEvent::StageStarted {
            stage: Stage::Adjudication,
        },
    ];
    let step = |from| PhaseMove {
        jobs: std::slice::from_ref(&adjudication),
        ..PhaseMove::new(from, &adjudicating, &events)
    };

    // From a phase the review is not in: nothing happens.
    let cancelled = reviewing.in_phase(ReviewPhase::Cancelled);
    let wrong = b
        .move_phase(PhaseMove::new(ReviewPhase::Grouping, &cancelled, &events))
        .await
        .or_fail();
    assert_eq!(
        wrong,
        MoveOutcome::Lost {
            current: Some(ReviewPhase::Reviewing)
        }
    );
    assert_eq!(b.load_record(&id).await.or_fail(), Some(reviewing.clone()));
    assert_eq!(
        b.active_reviews().await.or_fail(),
        std::slice::from_ref(&id)
    );
    assert!(events_of(&b, &id).await.is_empty());

    let moved = b.move_phase(step(ReviewPhase::Reviewing)).await.or_fail();
    assert_eq!(moved, MoveOutcome::Moved);
    assert_eq!(
        b.load_record(&id).await.or_fail(),
        Some(adjudicating.clone())
    );
    let attempts = b.lane_attempts(&id).await.or_fail();
    assert_eq!(attempts.get(ADJUDICATION_LANE).map(|a| a.awaited), Some(1));
    assert_eq!(b.job_backlog().await.or_fail().undelivered, 2);
    assert_eq!(events_of(&b, &id).await, events);

    // The same move again (a second coordinator): lost, nothing sent twice.
    let again = b.move_phase(step(ReviewPhase::Reviewing)).await.or_fail();
    assert_eq!(
        again,
        MoveOutcome::Lost {
            current: Some(ReviewPhase::Adjudicating)
        }
    );
    assert_eq!(b.job_backlog().await.or_fail().undelivered, 2);
    assert_eq!(events_of(&b, &id).await.len(), 2);

    // A move the table has no edge for is the caller's mistake.
    let back = reviewing.in_phase(ReviewPhase::Grouping);
    let refused = b
        .move_phase(PhaseMove::new(ReviewPhase::Adjudicating, &back, &[]))
        .await;
    assert!(
        matches!(refused, Err(QueueError::PhaseMove { .. })),
        "{refused:?}"
    );
    // A review the store does not hold is in no phase.
    let gone = record(&ReviewId::new()).in_phase(ReviewPhase::Cancelled);
    let lost = b
        .move_phase(PhaseMove::new(ReviewPhase::Reviewing, &gone, &[]))
        .await
        .or_fail();
    assert_eq!(lost, MoveOutcome::Lost { current: None });

    // A finish from anywhere but Finalizing stores no report.
    let early = b
        .finish_review(&adjudicating, "{}".into(), &[verdict()])
        .await
        .or_fail();
    assert_eq!(
        early,
        MoveOutcome::Lost {
            current: Some(ReviewPhase::Adjudicating)
        }
    );
    assert!(b.load_report(&id).await.or_fail().is_none());

    // Cancelled: no longer active, and nothing moves it again.
    let cancelled = move_to(&b, &adjudicating, ReviewPhase::Cancelled, &[]).await;
    assert!(b.active_reviews().await.or_fail().is_empty());
    let finalizing = cancelled.in_phase(ReviewPhase::Finalizing);
    let late = b
        .move_phase(PhaseMove::new(ReviewPhase::Adjudicating, &finalizing, &[]))
        .await
        .or_fail();
    assert_eq!(
        late,
        MoveOutcome::Lost {
            current: Some(ReviewPhase::Cancelled)
        }
    );
    let stored = b.load_record(&id).await.or_fail();
    assert_eq!(stored.map(|r| r.phase), Some(ReviewPhase::Cancelled));
}

/// Which move won one race, as the store says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Winner {
    Finish,
    Cancel,
}

/// A cancel and a finish of one finalizing review, started at once on
/// two tasks, [`RACES`] times: exactly one move is made, the other is
/// told the phase the first moved to, and the stored phase, the last
/// event watchers hear and the report all say the same. Both orders are
/// tried (which task is spawned first alternates), and each side must
/// win at least once.
pub(super) async fn cancel_and_finish_race_and_exactly_one_wins<B: JobQueue + ReviewStore>(b: B) {
    let mut wins = [0usize; 2];
    for race in 0..RACES {
        let id = ReviewId::new();
        let created = record(&id);
        b.create_review(&created, &Arc::default(), None, &[])
            .await
            .or_fail();
        let finalizing = move_to(&b, &created, ReviewPhase::Finalizing, &[]).await;
        let start = Arc::new(Barrier::new(2));
        let finish = {
            let (b, record, start) = (b.clone(), finalizing.clone(), Arc::clone(&start));
            move || async move {
                start.wait().await;
                b.finish_review(&record, "{\"verdict\":\"APPROVE\"}".into(), &[verdict()])
                    .await
            }
        };
        let cancel = {
            let (b, record, start) = (b.clone(), finalizing.clone(), Arc::clone(&start));
            move || async move {
                start.wait().await;
                let cancelled = record.in_phase(ReviewPhase::Cancelled);
                b.move_phase(PhaseMove::new(
                    record.phase,
                    &cancelled,
                    &[ProgressEvent::Cancelled],
                ))
                .await
            }
        };
        let (finished, cancelled) = if race % 2 == 0 {
            let f = tokio::spawn(finish());
            let c = tokio::spawn(cancel());
            (f.await, c.await)
        } else {
            let c = tokio::spawn(cancel());
            let f = tokio::spawn(finish());
            (f.await, c.await)
        };
        let finished = finished.or_fail().or_fail();
        let cancelled = cancelled.or_fail().or_fail();
        let winner = match (finished, cancelled) {
            (
                MoveOutcome::Moved,
                MoveOutcome::Lost {
                    current: Some(ReviewPhase::Finished),
                },
            ) => Winner::Finish,
            (
                MoveOutcome::Lost {
                    current: Some(ReviewPhase::Cancelled),
                },
                MoveOutcome::Moved,
            ) => Winner::Cancel,
            other => panic!("race {race}: not exactly one winner: {other:?}"),
        };
        wins[winner as usize] += 1;
        let phase = b.load_record(&id).await.or_fail().map(|r| r.phase);
        let report = b.load_report(&id).await.or_fail();
        let events = events_of(&b, &id).await;
        let last: Vec<&ProgressEvent> = events.iter().filter(|e| e.is_final()).collect();
        match winner {
            Winner::Finish => {
                assert_eq!(phase, Some(ReviewPhase::Finished), "race {race}");
                assert!(report.is_some(), "race {race}: finished without a report");
                assert_eq!(last, [&verdict()], "race {race}");
            }
            Winner::Cancel => {
                assert_eq!(phase, Some(ReviewPhase::Cancelled), "race {race}");
                assert_eq!(report, None, "race {race}: a cancelled review's report");
                assert_eq!(last, [&ProgressEvent::Cancelled], "race {race}");
            }
        }
        assert!(
            !b.active_reviews().await.or_fail().contains(&id),
            "race {race}: still active"
        );
    }
    eprintln!(
        "{RACES} races: finish won {}, cancel won {}",
        wins[Winner::Finish as usize],
        wins[Winner::Cancel as usize]
    );
    assert!(
        wins.iter().all(|w| *w > 0),
        "one side never won in {RACES} races: {wins:?}"
    );
}
