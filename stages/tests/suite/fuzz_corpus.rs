//! The fuzz targets' corpus (`fuzz/corpus/TARGET/`) and the inputs that
//! once crashed one (`fuzz/regressions/TARGET/`), run through the same
//! entry points on the stable toolchain, with the fuzzer's simplest
//! mutations of every seed (truncations and single-byte changes) besides:
//! a reader answers bad input with an error, never a panic.

use revu_stages::fuzzing::TARGETS;
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// The files of `dir`, sorted; none when it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Bytes a mutation writes: the ones parsers of these formats turn on.
const PROBES: &[u8] = b"\x00\xff\n\r\"{}[]-+@ \\:#=";

/// `seed` and up to 64 truncations and 64 one-byte changes of it, spread
/// evenly over the seed.
fn mutations(seed: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![seed.to_vec()];
    let n = seed.len();
    if n == 0 {
        return out;
    }
    let step = (n / 64).max(1);
    for (i, cut) in (0..n).step_by(step).enumerate() {
        out.push(seed[..cut].to_vec());
        let mut changed = seed.to_vec();
        changed[cut] = PROBES[i % PROBES.len()];
        out.push(changed);
    }
    out
}

#[test]
fn every_target_has_a_seed_corpus() {
    for (target, _) in TARGETS {
        let seeds = files(&fuzz_dir().join("corpus").join(target));
        assert!(
            !seeds.is_empty(),
            "fuzz/corpus/{target}/ has no seed: add the inputs the target reads"
        );
    }
}

#[test]
fn the_corpus_its_mutations_and_the_regressions_never_panic() {
    let mut runs = 0usize;
    for (target, run) in TARGETS {
        let corpus = files(&fuzz_dir().join("corpus").join(target));
        let regressions = files(&fuzz_dir().join("regressions").join(target));
        for path in corpus.iter().chain(&regressions) {
            let seed = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for input in mutations(&seed) {
                let outcome = std::panic::catch_unwind(|| run(&input));
                assert!(
                    outcome.is_ok(),
                    "{target} panicked on a mutation of {} ({} bytes)",
                    path.display(),
                    input.len()
                );
                runs += 1;
            }
        }
    }
    assert!(runs > 1000, "only {runs} inputs ran");
}
