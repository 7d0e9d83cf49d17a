//! `revu eval`'s progress on stderr. On a terminal, a bar redrawn in place
//! (items done, the one under way); a skipped or failed item gets a line
//! of its own above it. Anywhere else, only those lines: logs keep what
//! needs reading and nothing per item besides.

use crate::progress::StatusLine;
use std::io::{IsTerminal, Write};

/// Cells of the bar.
const WIDTH: usize = 24;
/// Longest label shown beside it, in characters.
const LABEL: usize = 60;

#[derive(Debug)]
pub struct Bar<W> {
    screen: StatusLine<W>,
    terminal: bool,
    noun: &'static str,
    total: usize,
    done: usize,
}

impl Bar<std::io::Stderr> {
    /// A bar on stderr, drawn only when stderr is a terminal.
    pub fn stderr(noun: &'static str, total: usize) -> Self {
        let err = std::io::stderr();
        let terminal = err.is_terminal();
        Bar::new(err, terminal, noun, total)
    }
}

impl<W: Write> Bar<W> {
    pub fn new(out: W, terminal: bool, noun: &'static str, total: usize) -> Self {
        Bar {
            screen: StatusLine::new(out),
            terminal,
            noun,
            total,
            done: 0,
        }
    }

    /// Shows the item now under way.
    pub fn start(&mut self, label: &str) {
        if !self.terminal {
            return;
        }
        let filled = (self.done * WIDTH).checked_div(self.total).unwrap_or(0);
        let label = super::cut(label, LABEL);
        let text = format!(
            "[{}{}] {}/{} {} · {label}",
            "#".repeat(filled),
            ".".repeat(WIDTH - filled.min(WIDTH)),
            self.done,
            self.total,
            self.noun,
        );
        self.screen.status(&text);
    }

    /// One more item done.
    pub fn advance(&mut self) {
        self.done += 1;
    }

    /// A line of its own, terminal or not.
    pub fn note(&mut self, text: &str) {
        self.screen.line(text);
    }

    /// Leaves the terminal on a fresh line.
    pub fn finish(&mut self) {
        self.screen.finish();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn run(terminal: bool) -> String {
        let mut out = Vec::new();
        let mut bar = Bar::new(&mut out, terminal, "commits", 2);
        bar.start("abc1234 first");
        bar.advance();
        bar.start("def5678 second");
        bar.note("skipped def5678 second: empty");
        bar.advance();
        bar.finish();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn off_a_terminal_only_the_notes_are_written() {
        assert_eq!(run(false), "revu: skipped def5678 second: empty\n");
    }

    #[test]
    fn on_a_terminal_the_bar_is_redrawn_and_notes_stay_above_it() {
        let out = run(true);
        assert!(
            out.starts_with(
                "\r\x1b[2Krevu: [........................] 0/2 commits · abc1234 first"
            ),
            "{out:?}"
        );
        assert!(
            out.contains("\r\x1b[2Krevu: [############............] 1/2 commits · def5678 second"),
            "{out:?}"
        );
        assert!(
            out.ends_with("\r\x1b[2Krevu: skipped def5678 second: empty\n"),
            "{out:?}"
        );
    }
}
