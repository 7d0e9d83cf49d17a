//! Marked sources: corpus files whose lines say what a review should find
//! in them. A line holding `revu-eval: defect ID` says the next line is a
//! defect a review should report; `revu-eval: trap ID`, that the next line
//! is a safe spelling that must stay silent. Every marked file of a corpus
//! is reviewed in one change that adds them all, paths relative to the
//! corpus.

use super::scoring::{Expectation, Expected, Lines, Trap};
use crate::error::CliError;

pub const MARKER: &str = "revu-eval:";

/// Whether `bytes` hold a mark.
pub fn is_marked(bytes: &[u8]) -> bool {
    bytes.windows(MARKER.len()).any(|w| w == MARKER.as_bytes())
}

/// The change adding every marked file, and what its marks expect.
#[derive(Debug, Default)]
pub struct Marked {
    pub patch: Vec<u8>,
    pub expected: Expected,
    pub files: usize,
}

impl Marked {
    /// Adds one marked file, `path` relative to the corpus (`/`-separated).
    pub fn add(&mut self, path: &str, bytes: &[u8]) -> Result<(), CliError> {
        let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        let ends_with_newline = bytes.ends_with(b"\n");
        if ends_with_newline {
            lines.pop();
        }
        self.patch.extend_from_slice(
            format!(
                "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{} @@\n",
                lines.len()
            )
            .as_bytes(),
        );
        for (i, line) in lines.iter().enumerate() {
            self.patch.push(b'+');
            self.patch.extend_from_slice(line);
            self.patch.push(b'\n');
            if is_marked(line) {
                self.mark(path, i, lines.len(), line)?;
            }
        }
        if !ends_with_newline {
            self.patch
                .extend_from_slice(b"\\ No newline at end of file\n");
        }
        self.files += 1;
        Ok(())
    }

    /// Takes the mark on line `i` (0-based) of `lines` lines.
    fn mark(&mut self, path: &str, i: usize, lines: usize, line: &[u8]) -> Result<(), CliError> {
        let text = String::from_utf8_lossy(line);
        let after = text.split_once(MARKER).map_or("", |(_, after)| after);
        let mut words = after.split_whitespace();
        let kind = words.next().unwrap_or_default();
        let id = words.next().map(str::to_owned);
        let at = format!("{path}:{}", i + 1);
        if i + 1 >= lines {
            return Err(CliError::Input(format!(
                "{at}: a `{MARKER}` mark on the last line marks nothing"
            )));
        }
        let next =
            u32::try_from(i + 2).map_err(|_| CliError::Input(format!("{at}: too many lines")))?;
        let lines = Lines {
            first: next,
            last: next,
        };
        let file = path.to_owned();
        match kind {
            "defect" => self.expected.expectations.push(Expectation {
                file: Some(file),
                lines: Some(lines),
                severity: None,
                rule: None,
                class: None,
                id,
                description: None,
                golden_severity: None,
            }),
            "trap" => self.expected.traps.push(Trap {
                file,
                lines,
                rule: None,
                id,
            }),
            _ => {
                return Err(CliError::Input(format!(
                    "{at}: `{MARKER}` is followed by `defect ID` or `trap ID`, not {kind:?}"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_file_is_added_whole_and_its_marks_name_the_next_line() {
        let mut m = Marked::default();
        let text = "import os\n# revu-eval: defect B105\nPASSWORD = \"x\"\n# revu-eval: trap B105\nP = os.environ[\"P\"]";
        m.add("py/app.py", text.as_bytes()).unwrap();
        let patch = String::from_utf8(m.patch).unwrap();
        assert!(patch.starts_with(
            "diff --git a/py/app.py b/py/app.py\nnew file mode 100644\n--- /dev/null\n+++ b/py/app.py\n@@ -0,0 +1,5 @@\n+import os\n"
        ));
        assert!(patch.ends_with("+P = os.environ[\"P\"]\n\\ No newline at end of file\n"));
        let e = &m.expected.expectations[0];
        assert_eq!(
            (e.file.as_deref(), e.lines.map(|l| l.first), e.id.as_deref()),
            (Some("py/app.py"), Some(3), Some("B105"))
        );
        let t = &m.expected.traps[0];
        assert_eq!((t.lines.first, t.lines.last), (5, 5));
        let revu_diff = revu_domain::diff::parse(patch.as_bytes()).unwrap();
        assert_eq!(revu_diff.files[0].added(), 5);
    }

    #[test]
    fn a_mark_of_another_kind_or_on_the_last_line_is_an_error() {
        let mut m = Marked::default();
        let err = m.add("a.sh", b"# revu-eval: defekt X\necho\n").unwrap_err();
        assert!(err.to_string().starts_with("a.sh:1: "), "{err}");
        let err = m.add("b.sh", b"echo\n# revu-eval: trap X\n").unwrap_err();
        assert!(err.to_string().contains("b.sh:2: "), "{err}");
        assert_eq!(err.exit_code(), 2);
    }
}
