//! What the release before review phases stored, read by this one: the
//! fixtures in `fixtures/stored` were written by that release's own types
//! (review records, and lane results from before a lane's end was an
//! enum).

use revu_domain::lane::FaultKind;
use revu_domain::report::LaneOutcome;
use revu_domain::review::{LaneEnd, LaneResult, ReviewPhase, ReviewRecord};
use serde_json::Value;
use std::path::Path;

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/stored")
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn decode<T: serde::de::DeserializeOwned>(name: &str) -> T {
    serde_json::from_str(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn a_record_stored_before_phases_reads_in_the_phase_its_fields_imply() {
    for (name, phase) in [
        ("record-grouping", ReviewPhase::Grouping),
        ("record-reviewing", ReviewPhase::Reviewing),
        ("record-adjudicating", ReviewPhase::Adjudicating),
        ("record-cancelled", ReviewPhase::Cancelled),
        ("record-finished", ReviewPhase::Finished),
    ] {
        let record: ReviewRecord = decode(name);
        assert_eq!(record.phase, phase, "{name}");
    }
}

#[test]
fn a_record_is_written_as_before_with_its_phase_beside_the_old_state() {
    for name in ["record-grouping", "record-reviewing", "record-finished"] {
        let old: Value = decode(name);
        let record: ReviewRecord = decode(name);
        let mut written = serde_json::to_value(&record).unwrap_or_default();
        let phase = written
            .as_object_mut()
            .and_then(|fields| fields.remove("phase"));
        assert_eq!(phase, Some(Value::from(record.phase.as_str())), "{name}");
        assert_eq!(written, old, "{name}: only the phase is new");
    }
    // Stored, the phase is the record's whatever the old fields imply,
    // and `state` still says what a reader of the old field expects.
    let record: ReviewRecord = decode("record-reviewing");
    for phase in ReviewPhase::ALL {
        let moved = record.in_phase(phase);
        let json = serde_json::to_value(&moved).unwrap_or_default();
        assert_eq!(
            json["state"],
            serde_json::to_value(phase.state()).unwrap_or_default()
        );
        let back: ReviewRecord = serde_json::from_value(json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, moved);
    }
}

#[test]
fn a_lane_result_stored_as_options_reads_as_the_end_its_outcome_names() {
    let complete: LaneResult = decode("result-complete");
    let LaneEnd::Complete { body } = &complete.end else {
        panic!("{complete:?}");
    };
    assert_eq!(body.findings.len(), 1);
    assert_eq!(complete.usage.as_ref().map(|u| u.requests), Some(2));

    let incomplete: LaneResult = decode("result-incomplete");
    let LaneEnd::Incomplete { body, banner } = &incomplete.end else {
        panic!("{incomplete:?}");
    };
    assert!(body.summary.is_empty());
    assert!(banner.starts_with("report failed the completeness gate twice"));

    let fault: LaneResult = decode("result-fault");
    assert_eq!(
        fault.end,
        LaneEnd::PipelineFault {
            fault: FaultKind::Timeout,
            banner: "failed 3 attempt(s), last: lane timed out after 120 s".into(),
        }
    );
    let cancelled: LaneResult = decode("result-cancelled");
    assert_eq!(cancelled.end, LaneEnd::Cancelled);
    assert_eq!(cancelled.outcome(), LaneOutcome::Cancelled);
}

#[test]
fn a_lane_result_is_stored_in_the_form_it_had() {
    for name in [
        "result-complete",
        "result-incomplete",
        "result-fault",
        "result-cancelled",
    ] {
        let old: Value = decode(name);
        let result: LaneResult = decode(name);
        let written = serde_json::to_value(&result).unwrap_or_default();
        assert_eq!(written, old, "{name}");
    }
}
