//! Facts straight from the bytes of a diff, for inputs too large to hold
//! as a [`crate::diff::Diff`]: a line's text is looked at while the reader
//! passes it (only in migrations, for the destructive-migration signal) and
//! never stored, so memory grows with files, hunks and added lines, not
//! with the patch text.

use super::signals::{Surface, drops_data, is_migration_path, signals_of};
use super::{Facts, FileFacts, HunkFacts};
use crate::diff::{
    BodyLine, Cutting, DiffError, FilePatch, FileStatus, HunkHeader, LineKind, ReadError, Sink,
    walk, walk_reader,
};
use std::io::Read;

impl Facts {
    /// The facts of the diff in `input`, equal to
    /// `Facts::from_diff(&parse(input)?)` (and failing with the same error),
    /// in one pass and without keeping line text.
    pub fn scan(input: &[u8]) -> Result<Facts, DiffError> {
        let mut sink = FactsSink::default();
        walk(input, &mut sink)?;
        Ok(sink.finish())
    }

    /// [`Facts::scan`] of a diff read from a stream, which is never held
    /// whole: memory grows with the facts and with the largest single
    /// file's patch, not with the whole patch text, and reading overlaps
    /// parsing (on a second thread).
    pub fn read<R: Read + Send + 'static>(reader: R) -> Result<Facts, ReadError> {
        let mut sink = FactsSink::default();
        walk_reader(reader, Cutting::DEFAULT, &mut sink)?;
        Ok(sink.finish())
    }
}

#[derive(Debug, Default)]
struct FactsSink {
    files: Vec<FileFacts>,
    /// Per file: an added line drops data (looked for in migrations only).
    adds_drop: Vec<bool>,
    /// The current file is a migration, so its added lines are read.
    in_migration: bool,
}

impl FactsSink {
    fn current(&mut self) -> Option<&mut FileFacts> {
        self.files.last_mut()
    }

    fn finish(self) -> Facts {
        let FactsSink {
            files, adds_drop, ..
        } = self;
        let signals = signals_of(files.iter().zip(&adds_drop).map(|(f, &adds_drop)| Surface {
            path: &f.path,
            status: f.status,
            adds_drop,
        }));
        Facts::assemble(files, signals)
    }
}

impl Sink for FactsSink {
    fn file(&mut self, file: FilePatch, completes_type_change: bool) {
        match self.files.last_mut() {
            Some(prev) if completes_type_change => {
                prev.status = FileStatus::TypeChanged;
                file.path().clone_into(&mut prev.path);
            }
            _ => {
                let old_path = match file.status {
                    FileStatus::Renamed | FileStatus::Copied => file.old_path.clone(),
                    _ => None,
                };
                self.files.push(FileFacts {
                    path: file.path().to_owned(),
                    old_path,
                    status: file.status,
                    binary: false,
                    added: 0,
                    removed: 0,
                    hunks: Vec::new(),
                });
                self.adds_drop.push(false);
            }
        }
        self.in_migration = is_migration_path(file.path());
    }

    fn binary(&mut self, _size: Option<u64>) {
        if let Some(f) = self.current() {
            f.binary = true;
        }
    }

    fn hunk(&mut self, h: &HunkHeader<'_>) {
        if let Some(f) = self.current() {
            f.hunks.push(HunkFacts {
                old_start: h.old_start,
                old_lines: h.old_lines,
                new_start: h.new_start,
                new_lines: h.new_lines,
                added_lines: Vec::new(),
            });
        }
    }

    fn line(&mut self, line: BodyLine<'_>) {
        let drops = self.in_migration && line.kind == LineKind::Added && drops_data(line.text);
        if drops && let Some(flag) = self.adds_drop.last_mut() {
            *flag = true;
        }
        let Some(f) = self.files.last_mut() else {
            return;
        };
        match line.kind {
            LineKind::Added => {
                f.added = f.added.saturating_add(1);
                if let (Some(h), Some(n)) = (f.hunks.last_mut(), line.new_line) {
                    h.added_lines.push(n);
                }
            }
            LineKind::Removed => f.removed = f.removed.saturating_add(1),
            LineKind::Context => {}
        }
    }

    fn no_newline(&mut self) {}
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
