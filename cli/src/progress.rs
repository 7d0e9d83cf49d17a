//! `revu submit`'s progress on stderr, from the `WatchReview` stream, and
//! the status line other progress displays draw with.
//!
//! On a terminal, one status line (lanes dispatched, running, done,
//! retried, faulted) is redrawn in place, and retries, faults and the
//! verdict get lines of their own above it. Anywhere else every event worth
//! telling is one plain line, so logs and CI output read top to bottom.

use revu_proto::v1 as pb;
use revu_proto::v1::review_event::Kind;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};

/// Where a lane is, as the events tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lane {
    Queued,
    Running,
    Done,
    Faulted,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Quiet,
    Lines,
    Redraw,
}

/// The progress display of one review.
#[derive(Debug)]
pub struct Progress<W> {
    screen: StatusLine<W>,
    mode: Mode,
    lanes: BTreeMap<String, Lane>,
    retried: usize,
}

/// A status line redrawn in place, with permanent lines written above it:
/// the terminal side of every progress display of the CLI.
#[derive(Debug)]
pub struct StatusLine<W> {
    out: W,
    /// Whether a status line is on screen, to be cleared before a line.
    shown: bool,
}

impl<W: Write> StatusLine<W> {
    pub fn new(out: W) -> Self {
        StatusLine { out, shown: false }
    }

    /// Draws `text` over the status line on screen.
    pub fn status(&mut self, text: &str) {
        let _ = write!(self.out, "\r\x1b[2Krevu: {text}");
        let _ = self.out.flush();
        self.shown = true;
    }

    /// A permanent line, above the status line when one is shown.
    pub fn line(&mut self, text: &str) {
        if self.shown {
            let _ = write!(self.out, "\r\x1b[2K");
            self.shown = false;
        }
        let _ = writeln!(self.out, "revu: {text}");
        let _ = self.out.flush();
    }

    /// Leaves the terminal on a fresh line.
    pub fn finish(&mut self) {
        if self.shown {
            let _ = writeln!(self.out);
            self.shown = false;
        }
        let _ = self.out.flush();
    }
}

impl Progress<std::io::Stderr> {
    /// Progress on stderr: redrawn on a terminal, lines elsewhere.
    pub fn stderr(quiet: bool) -> Self {
        let err = std::io::stderr();
        let terminal = err.is_terminal();
        Progress::new(err, quiet, terminal)
    }
}

impl<W: Write> Progress<W> {
    pub fn new(out: W, quiet: bool, terminal: bool) -> Self {
        let mode = match (quiet, terminal) {
            (true, _) => Mode::Quiet,
            (false, true) => Mode::Redraw,
            (false, false) => Mode::Lines,
        };
        Progress {
            screen: StatusLine::new(out),
            mode,
            lanes: BTreeMap::new(),
            retried: 0,
        }
    }

    /// A line of its own (a reconnection, say), unless quiet.
    pub fn note(&mut self, text: &str) {
        if self.mode != Mode::Quiet {
            self.line(text);
        }
    }

    /// The review the progress is about.
    pub fn review(&mut self, id: &str, existing: bool) {
        let note = if existing { " (existing)" } else { "" };
        self.line(&format!("review {id}{note}"));
    }

    /// Takes one event into account and shows it.
    pub fn event(&mut self, e: &pb::ReviewEvent) {
        let kind = Kind::try_from(e.kind).unwrap_or(Kind::Unspecified);
        let state = match kind {
            Kind::LaneDispatched => Some(Lane::Queued),
            Kind::LaneStarted => Some(Lane::Running),
            Kind::LaneFinished => Some(Lane::Done),
            Kind::LaneFaulted => Some(Lane::Faulted),
            Kind::LaneRetried => {
                self.retried += 1;
                Some(Lane::Queued)
            }
            _ => None,
        };
        if let Some(state) = state {
            self.lanes.insert(e.lane_id.clone(), state);
        }
        match self.mode {
            Mode::Quiet => {}
            Mode::Lines => {
                if let Some(line) = describe(e) {
                    self.line(&line);
                }
            }
            Mode::Redraw => {
                // Retries, faults and the verdict stay on screen, the final
                // counts too; the rest only moves the status line.
                if matches!(kind, Kind::Verdict | Kind::Cancelled) {
                    let counts = self.status_text();
                    self.line(&counts);
                }
                if matches!(
                    kind,
                    Kind::LaneRetried | Kind::LaneFaulted | Kind::Verdict | Kind::Cancelled
                ) && let Some(line) = describe(e)
                {
                    self.line(&line);
                }
                if !matches!(kind, Kind::Verdict | Kind::Cancelled) {
                    self.status();
                }
            }
        }
    }

    /// Leaves the terminal on a fresh line.
    pub fn finish(&mut self) {
        self.screen.finish();
    }

    fn count(&self, state: Lane) -> usize {
        self.lanes.values().filter(|s| **s == state).count()
    }

    /// `lanes: 5 dispatched · 1 running · 3 done · 1 retried · 0 faulted`
    fn status_text(&self) -> String {
        format!(
            "lanes: {} dispatched · {} running · {} done · {} retried · {} faulted",
            self.lanes.len(),
            self.count(Lane::Running),
            self.count(Lane::Done),
            self.retried,
            self.count(Lane::Faulted),
        )
    }

    fn status(&mut self) {
        let text = self.status_text();
        self.screen.status(&text);
    }

    /// A permanent line, above the status line when one is shown.
    fn line(&mut self, text: &str) {
        if self.mode != Mode::Quiet {
            self.screen.line(text);
        }
    }
}

/// One progress line per event; `None` for events not worth a line.
fn describe(e: &pb::ReviewEvent) -> Option<String> {
    Some(match Kind::try_from(e.kind).ok()? {
        Kind::LaneDispatched => format!("lane {} dispatched (attempt {})", e.lane_id, e.attempt),
        Kind::LaneStarted => format!("lane {} running on {}", e.lane_id, e.worker),
        Kind::LaneRetried => format!(
            "lane {} retried (attempt {}): {}",
            e.lane_id, e.attempt, e.reason
        ),
        Kind::LaneFinished => format!("lane {} done: {} finding(s)", e.lane_id, e.findings),
        Kind::LaneFaulted => format!("lane {} FAULTED: {}", e.lane_id, e.reason),
        Kind::Verdict => format!("verdict {} · {}", e.verdict, e.gate),
        Kind::Cancelled => "review cancelled".to_owned(),
        Kind::StageStarted | Kind::StageFinished | Kind::Unspecified => return None,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ev(kind: Kind, lane: &str, attempt: u32) -> pb::ReviewEvent {
        pb::ReviewEvent {
            kind: kind as i32,
            lane_id: lane.to_owned(),
            attempt,
            worker: "w1".to_owned(),
            reason: "outage".to_owned(),
            verdict: "APPROVE".to_owned(),
            gate: "NEEDS-HUMAN".to_owned(),
            ..Default::default()
        }
    }

    fn story() -> Vec<pb::ReviewEvent> {
        vec![
            ev(Kind::StageFinished, "", 0),
            ev(Kind::LaneDispatched, "domain:api", 1),
            ev(Kind::LaneDispatched, "specialist:security", 1),
            ev(Kind::LaneStarted, "domain:api", 1),
            ev(Kind::LaneStarted, "specialist:security", 1),
            ev(Kind::LaneRetried, "domain:api", 2),
            ev(Kind::LaneDispatched, "domain:api", 2),
            ev(Kind::LaneFinished, "specialist:security", 1),
            ev(Kind::LaneFaulted, "domain:api", 2),
            ev(Kind::Verdict, "", 0),
        ]
    }

    fn run(quiet: bool, terminal: bool) -> String {
        let mut out = Vec::new();
        let mut p = Progress::new(&mut out, quiet, terminal);
        p.review("r1", false);
        for e in story() {
            p.event(&e);
        }
        p.finish();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn off_a_terminal_every_event_is_a_plain_line() {
        let out = run(false, false);
        assert!(!out.contains('\r') && !out.contains('\x1b'), "{out:?}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 10, "{out}");
        assert_eq!(lines[0], "revu: review r1");
        assert_eq!(
            lines[5],
            "revu: lane domain:api retried (attempt 2): outage"
        );
        assert_eq!(lines[8], "revu: lane domain:api FAULTED: outage");
        assert_eq!(lines[9], "revu: verdict APPROVE · NEEDS-HUMAN");
    }

    #[test]
    fn on_a_terminal_the_status_line_is_redrawn_and_retries_faults_stay() {
        let out = run(false, true);
        // Permanent lines, each starting after a cleared status line.
        let permanent: Vec<&str> = out
            .split('\n')
            .filter_map(|l| l.rsplit("\x1b[2K").next())
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(
            permanent,
            [
                "revu: review r1",
                "revu: lane domain:api retried (attempt 2): outage",
                "revu: lane domain:api FAULTED: outage",
                "revu: lanes: 2 dispatched · 0 running · 1 done · 1 retried · 1 faulted",
                "revu: verdict APPROVE · NEEDS-HUMAN",
            ],
            "{out:?}"
        );
        assert!(out.contains(
            "\r\x1b[2Krevu: lanes: 2 dispatched · 2 running · 0 done · 0 retried · 0 faulted"
        ));
        assert!(out.contains(
            "\r\x1b[2Krevu: lanes: 2 dispatched · 0 running · 1 done · 1 retried · 1 faulted"
        ));
        assert!(out.ends_with('\n'));
    }

    #[test]
    fn quiet_prints_nothing() {
        assert_eq!(run(true, true), "");
        assert_eq!(run(true, false), "");
    }
}
