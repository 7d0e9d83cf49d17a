use super::*;
use crate::diff::model::Diff;
use crate::diff::sink::DiffBuilder;
use crate::diff::{DiffError, parse};
use proptest::prelude::*;
use std::path::Path;

fn fixtures() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "patch"))
        .collect();
    paths.sort();
    let mut all: Vec<Vec<u8>> = paths
        .iter()
        .map(|p| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect();
    // Every fixture in one diff: cuts then fall between unrelated files too.
    all.push(all.concat());
    all
}

fn in_segments(input: &[u8], min: usize) -> Result<Diff, DiffError> {
    let mut builder = DiffBuilder::default();
    walk_in_segments(input, min, &mut builder)?;
    Ok(builder.finish())
}

/// Hands out at most `step` bytes per read, like a pipe.
struct Trickle {
    data: Vec<u8>,
    at: usize,
    step: usize,
}

impl Read for Trickle {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let rest = self.data.get(self.at..).unwrap_or_default();
        let n = rest.len().min(out.len()).min(self.step);
        out.get_mut(..n)
            .unwrap_or_default()
            .copy_from_slice(rest.get(..n).unwrap_or_default());
        self.at += n;
        Ok(n)
    }
}

fn streamed(input: &[u8], step: usize, cutting: Cutting) -> Result<Diff, DiffError> {
    let mut builder = DiffBuilder::default();
    let reader = Trickle {
        data: input.to_vec(),
        at: 0,
        step,
    };
    match walk_reader(reader, cutting, &mut builder) {
        Ok(()) => Ok(builder.finish()),
        Err(ReadError::Diff(e)) => Err(e),
        Err(ReadError::Io(e)) => panic!("in-memory read failed: {e}"),
    }
}

#[test]
fn file_starts_are_found_only_at_line_starts() {
    let buf = b"diff --git a b\nx diff --git \ndiff --git c d\ndiff --gi";
    assert_eq!(next_file_start(buf, 0), Some(29));
    assert_eq!(next_file_start(buf, 29), Some(29));
    assert_eq!(next_file_start(buf, 30), None);
    assert_eq!(next_file_start(b"", 0), None);
}

#[test]
fn cutting_never_changes_the_result() {
    for (i, input) in fixtures().iter().enumerate() {
        let whole = parse(input);
        for min in [1, 2, 7, 64, 1000, 1 << 20] {
            assert_eq!(in_segments(input, min), whole, "fixture {i}, min {min}");
        }
    }
}

#[test]
fn streaming_never_changes_the_result() {
    for (i, input) in fixtures().iter().enumerate() {
        let whole = parse(input);
        for (step, chunk, window) in [(1, 1, 1), (3, 16, 8), (64, 100, 50), (4096, 1 << 20, 1)] {
            let cutting = Cutting { chunk, window };
            assert_eq!(
                streamed(input, step, cutting),
                whole,
                "fixture {i}, step {step}, chunk {chunk}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn cuts_anywhere_between_diffish_lines(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("diff --git a/x b/x\n"), Just("--- a/x\n"), Just("+++ b/x\n"),
                Just("@@ -1,2 +1 @@\n"), Just("@@ -0,0 +1 @@ f\n"), Just(" c\n"), Just("-r\n"),
                Just("+a\n"), Just("\\ No newline at end of file\n"), Just("\n"),
                Just("GIT binary patch\n"), Just("literal 3\n"), Just("HcmV?d00001\n"),
                Just("new file mode 120000\n"), Just("deleted file mode 100644\n"),
                Just("-- \n"), Just("diff --git a/y b/y\n"), Just("  \t\n"),
            ],
            0..40,
        ),
        min in 1usize..200,
        step in 1usize..50,
    ) {
        let input: String = parts.concat();
        let whole = parse(input.as_bytes());
        prop_assert_eq!(in_segments(input.as_bytes(), min), whole.clone());
        let cutting = Cutting { chunk: min, window: min / 2 + 1 };
        prop_assert_eq!(streamed(input.as_bytes(), step, cutting), whole);
    }
}
