//! Throughput of the diff reader: `Facts::scan` (what `revu facts` runs)
//! against the full `parse` + `Facts::from_diff` (what the review pipeline
//! runs), on a synthetic many-file diff and, when `REVU_BENCH_PATCH` names
//! one, on a real patch such as the largest of the generated corpus
//! (`tests/corpus/build-corpus.sh`). Whole-process figures against git are
//! measured by `tests/corpus/bench-vs-git.sh`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use revu_domain::diff::parse;
use revu_domain::facts::Facts;
use std::fmt::Write as _;
use std::hint::black_box;

/// A diff shaped like a release-to-release change: `files` files, each
/// with a few hunks of context, removed and added lines of source-like
/// length, plus renames, binary files and new files every so often.
fn synthetic(files: usize) -> Vec<u8> {
    let mut out = String::new();
    for i in 0..files {
        let path = format!("src/module_{}/file_{i}.rs", i % 97);
        match i % 50 {
            0 => {
                let _ = write!(
                    out,
                    "diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n\
                     Binary files a/{path} and b/{path} differ\n"
                );
                continue;
            }
            1 => {
                let _ = write!(
                    out,
                    "diff --git a/old/{path} b/{path}\nsimilarity index 91%\n\
                     rename from old/{path}\nrename to {path}\nindex 1111111..2222222 100644\n\
                     --- a/old/{path}\n+++ b/{path}\n"
                );
            }
            _ => {
                let _ = write!(
                    out,
                    "diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n\
                     --- a/{path}\n+++ b/{path}\n"
                );
            }
        }
        for h in 0..4u32 {
            let start = 10 + h * 60;
            let _ = writeln!(out, "@@ -{start},9 +{start},11 @@ fn item_{h}() {{");
            for l in 0..3 {
                let _ = writeln!(
                    out,
                    "     let context_{l} = compute(value, {l}); // unchanged"
                );
            }
            for l in 0..3 {
                let _ = writeln!(out, "-    let removed_{l} = old_call(argument, {l});");
            }
            for l in 0..5 {
                let _ = writeln!(out, "+    let added_{l} = new_call(argument, {l}).await?;");
            }
            for l in 0..3 {
                let _ = writeln!(out, "     trailing_context({l});");
            }
        }
    }
    out.into_bytes()
}

fn bench_inputs() -> Vec<(String, Vec<u8>)> {
    let mut inputs = vec![
        ("synthetic-200-files".to_owned(), synthetic(200)),
        ("synthetic-20000-files".to_owned(), synthetic(20_000)),
    ];
    if let Ok(path) = std::env::var("REVU_BENCH_PATCH") {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        inputs.push(("REVU_BENCH_PATCH".to_owned(), bytes));
    }
    inputs
}

fn facts(c: &mut Criterion) {
    let mut group = c.benchmark_group("facts");
    group.sample_size(10);
    for (name, input) in bench_inputs() {
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.bench_with_input(BenchmarkId::new("scan", &name), &input, |b, input| {
            b.iter(|| Facts::scan(black_box(input)).unwrap());
        });
        group.bench_with_input(
            BenchmarkId::new("parse+from_diff", &name),
            &input,
            |b, input| b.iter(|| Facts::from_diff(&parse(black_box(input)).unwrap())),
        );
        let facts = Facts::scan(&input).unwrap();
        group.bench_with_input(BenchmarkId::new("json", &name), &facts, |b, facts| {
            b.iter(|| {
                let mut sink = std::io::sink();
                serde_json::to_writer_pretty(&mut sink, black_box(facts)).unwrap();
            });
        });
    }
    group.finish();
}

criterion_group!(benches, facts);
criterion_main!(benches);
