//! A pattern's literal guard: strings of which every match of the pattern
//! contains at least one, read off its syntax tree ([`revu_needles`]; for
//! the program's own patterns, when it is built). A line that holds none
//! of them cannot match, so the rules skip the regex for it, and a pattern
//! no line of the review gets past is never compiled: on a small change,
//! compiling the rules' patterns was most of the work, and then reading
//! their syntax trees and building their searches for needles.
//!
//! The guard only ever admits more than the pattern: a line it turns away
//! cannot match. Where the tree gives no literal every match needs (a
//! pattern of classes and repetitions alone), it admits every line.

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use memchr::memmem;
use revu_needles::{Needle, needles};
use std::sync::OnceLock;

use super::mask::{LineMask, Need};

/// Needles past which one automaton searches for them all at once (below
/// it, building the automaton costs more than searching for each).
const FEW: usize = 4;

/// One way of looking for needles in a line.
#[derive(Debug, Clone)]
enum Find {
    Exact(Box<memmem::Finder<'static>>),
    /// Compared without ASCII case; the bytes are lowercase, and `at` is
    /// the offset of the byte looked for first (the rarest in code).
    Folded {
        bytes: Vec<u8>,
        at: usize,
    },
    Many(AhoCorasick),
}

impl Find {
    fn folded(bytes: &[u8]) -> Find {
        let bytes = bytes.to_ascii_lowercase();
        let at = (0..bytes.len())
            .min_by_key(|&i| commonness(bytes[i]))
            .unwrap_or(0);
        Find::Folded { bytes, at }
    }

    fn in_(&self, hay: &[u8]) -> bool {
        match self {
            Find::Exact(finder) => finder.find(hay).is_some(),
            Find::Folded { bytes, at } => {
                let Some(&rare) = bytes.get(*at) else {
                    return true;
                };
                let (tail, width) = (bytes.len() - at, bytes.len());
                memchr::memchr2_iter(rare, rare.to_ascii_uppercase(), hay).any(|i| {
                    i >= *at
                        && hay
                            .get(i - at..i + tail)
                            .is_some_and(|w| w.len() == width && w.eq_ignore_ascii_case(bytes))
                })
            }
            Find::Many(ac) => ac.is_match(hay),
        }
    }
}

/// How common a byte is in source code, roughly (higher is more common):
/// a folded needle is looked for by its rarest byte, so that a search for
/// `select` stops at each `t` rather than at each `e`.
fn commonness(b: u8) -> u8 {
    const LETTERS: &[u8] = b"etaoinsrlcdhupmfgbywvkxjqz";
    match b {
        b' ' => 255,
        b'a'..=b'z' => LETTERS
            .iter()
            .position(|&l| l == b)
            .map_or(0, |i| 200 - 6 * i as u8),
        b'_' | b'.' | b'(' | b')' | b',' | b'"' | b'\'' | b'=' | b':' => 150,
        b'0'..=b'9' => 90,
        _ => 60,
    }
}

/// How `needles` are looked for: `None` when an automaton cannot be
/// built.
fn finds(needles: &[Needle]) -> Option<Vec<Find>> {
    let mut finds = Vec::new();
    for fold in [false, true] {
        let wanted: Vec<&[u8]> = needles
            .iter()
            .filter(|n| n.fold == fold)
            .map(|n| n.bytes.as_slice())
            .collect();
        if wanted.len() > FEW {
            // A contiguous NFA, not a DFA: it builds in a fraction of the
            // time, and is searched only on lines past the mask.
            let ac = AhoCorasick::builder()
                .ascii_case_insensitive(fold)
                .kind(Some(AhoCorasickKind::ContiguousNFA))
                .build(wanted)
                .ok()?;
            finds.push(Find::Many(ac));
        } else if fold {
            finds.extend(wanted.iter().map(|n| Find::folded(n)));
        } else {
            finds.extend(
                wanted
                    .iter()
                    .map(|n| Find::Exact(Box::new(memmem::Finder::new(n).into_owned()))),
            );
        }
    }
    Some(finds)
}

/// The needles, looked for one by one when they are few, else in one
/// pass per kind (exact, and without ASCII case).
#[derive(Debug, Clone)]
struct Searcher {
    /// Per needle, what a line's [`LineMask`] needs to hold it.
    needs: Vec<Need>,
    needles: Vec<Needle>,
    /// How the needles are looked for, built for the first line that gets
    /// past the mask (on a small change, most patterns see none); `None`
    /// when an automaton cannot be built, and every such line is admitted.
    finds: OnceLock<Option<Vec<Find>>>,
    /// A folded needle holds `k` or `s`, whose Unicode case folds leave
    /// ASCII (the Kelvin sign, the long s): a line with non-ASCII bytes
    /// is admitted without a search.
    unicode_folds: bool,
}

impl Searcher {
    fn new(needles: Vec<Needle>) -> Searcher {
        let unicode_folds = needles.iter().any(|n| {
            n.fold
                && n.bytes
                    .iter()
                    .any(|b| matches!(b, b'k' | b's' | b'K' | b'S'))
        });
        Searcher {
            needs: needles.iter().map(|n| Need::of(&n.bytes)).collect(),
            needles,
            finds: OnceLock::new(),
            unicode_folds,
        }
    }

    fn finds(&self) -> Option<&[Find]> {
        self.finds.get_or_init(|| finds(&self.needles)).as_deref()
    }

    fn found_in(&self, hay: &[u8]) -> bool {
        (self.unicode_folds && !hay.is_ascii())
            || self
                .finds()
                .is_none_or(|finds| finds.iter().any(|f| f.in_(hay)))
    }

    /// Whether a line of mask `mask` may hold a needle (or, with
    /// `unicode_folds`, a byte past ASCII).
    fn may_be_in(&self, mask: LineMask) -> bool {
        (self.unicode_folds && mask.past_ascii())
            || self.needs.iter().any(|&need| mask.may_hold(need))
    }
}

/// What a line needs before a pattern can match it.
#[derive(Debug, Clone)]
pub struct Guard(Option<Searcher>);

impl Guard {
    /// Admits every line.
    pub const OPEN: Guard = Guard(None);

    /// The guard of `pattern` (as the regex crate will compile it); open
    /// when it does not parse (compiling it will say why).
    pub fn of(pattern: &str) -> Guard {
        Guard(needles(pattern).map(Searcher::new))
    }

    /// The guard of needles worked out when the program was built
    /// ([`crate::pattern::pattern!`]): each its bytes and whether ASCII case
    /// is ignored; none, open.
    pub fn prepared(needles: Option<&[(&[u8], bool)]>) -> Guard {
        Guard(needles.map(|all| {
            Searcher::new(
                all.iter()
                    .map(|&(bytes, fold)| Needle {
                        bytes: bytes.to_vec(),
                        fold,
                    })
                    .collect(),
            )
        }))
    }

    /// Whether the guard admits every line.
    pub fn is_open(&self) -> bool {
        self.0.is_none()
    }

    /// Whether `text` may hold a match.
    pub fn admits(&self, text: &str) -> bool {
        self.0
            .as_ref()
            .is_none_or(|searcher| searcher.found_in(text.as_bytes()))
    }

    /// [`Guard::admits`], told the [`LineMask`] of `text` (or one that
    /// holds more, [`LineMask::with`]): a line that lacks a pair of adjacent
    /// bytes of each needle is turned away without being read.
    pub fn admits_line(&self, text: &str, mask: LineMask) -> bool {
        self.0
            .as_ref()
            .is_none_or(|searcher| searcher.may_be_in(mask) && searcher.found_in(text.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small generator of patterns and lines over a few bytes, so that
    /// the lines often match.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }

        fn pick<'a>(&mut self, of: &[&'a str]) -> &'a str {
            of[self.next(of.len())]
        }

        fn part(&mut self, depth: usize) -> String {
            let leaf = [
                "a", "b", "k", "s_", "ab", "-", "A", "[ab]", "[kb]", "[as-]", "[a-k]", "[^a]",
                r"\w", r"\b", "^", r"x\sy",
            ];
            if depth == 0 || self.next(3) == 0 {
                return self.pick(&leaf).to_owned();
            }
            match self.next(5) {
                0 => format!("(?:{}|{})", self.run(depth - 1), self.run(depth - 1)),
                1 => format!("(?:{})?", self.run(depth - 1)),
                2 => format!("(?:{})+", self.run(depth - 1)),
                3 => format!("({})", self.run(depth - 1)),
                _ => format!("(?:{}){{2}}", self.part(depth - 1)),
            }
        }

        fn run(&mut self, depth: usize) -> String {
            let n = 1 + self.next(4);
            (0..n).map(|_| self.part(depth)).collect()
        }

        fn line(&mut self) -> String {
            let n = self.next(14);
            (0..n)
                .map(|_| {
                    self.pick(&[
                        "a", "b", "k", "s", "_", "-", "A", "K", "S", " ", "\u{17F}", "\u{212A}",
                        "x", "y", "\u{A0}",
                    ])
                })
                .collect()
        }
    }

    #[test]
    fn generated_patterns_never_turn_away_a_line_they_match() {
        let mut g = Gen(0x9E37_79B9_7F4A_7C15);
        let (mut matched, mut guarded) = (0, 0);
        for _ in 0..600 {
            let body = g.run(3);
            let pattern = if g.next(3) == 0 {
                format!("(?i){body}")
            } else {
                body
            };
            let Ok(re) = regex::Regex::new(&pattern) else {
                continue;
            };
            let guard = Guard::of(&pattern);
            guarded += usize::from(!guard.is_open());
            for _ in 0..20 {
                let line = g.line();
                if re.is_match(&line) {
                    matched += 1;
                    assert!(guard.admits(&line), "{pattern} turned away {line:?}");
                    assert!(
                        guard.admits_line(&line, LineMask::of(&line)),
                        "{pattern} turned away {line:?} by its mask"
                    );
                }
            }
        }
        assert!(
            matched > 1500 && guarded > 300,
            "{matched} matches, {guarded} guards"
        );
    }

    #[test]
    fn case_insensitive_letters_are_folded() {
        let g = Guard::of(r"(?i)\bselect\s+\*");
        assert!(g.admits("x = SeLeCt * from t"));
        assert!(!g.admits("x = selec * from t"));
        // Looked for by its rarest byte (`c`), then compared around it,
        // at either end of the line.
        assert!(g.admits("SELECT") && g.admits("xselect") && g.admits("selectx"));
        assert!(!g.admits("ELECT") && !g.admits("selet") && !g.admits("c") && !g.admits(""));
        // `s` folds to the long s in Unicode: a line that is not ASCII
        // is admitted without a search.
        assert!(g.admits("\u{17F}elect"));
        let no_s = Guard::of(r"(?i)\bupdate\s+");
        assert!(!no_s.admits("é updat"));
    }

    #[test]
    fn many_needles_are_looked_for_at_once() {
        let exact = Guard::of(r"\b(alpha|beta|gamma|delta|omega|zeta)\(");
        assert!(exact.admits("x = omega(1)"));
        assert!(!exact.admits("x = OMEGA(1) + theta(2)"));
        let folded = Guard::of(r"(?i)(?:alpha|beta|gamma|delta|omega)_id");
        assert!(folded.admits("OMEGA_ID = 3"));
        assert!(!folded.admits("theta_id = 3"));
    }

    #[test]
    fn a_line_mask_turns_away_only_what_the_search_would() {
        let patterns = [
            r"\bverify\s*=\s*False\b",
            r"(?i)\bselect\s+\*",
            r"\b(alpha|beta|gamma|delta|omega|zeta)\(",
            r"(?i)secret",
            r"[A-Z]{3}\d+",
        ];
        let lines = [
            "get(u, verify=False)",
            "get(u, verify=True)",
            "x = SeLeCt * from t",
            "x = omega(1)",
            "eta = 2",
            "\u{17F}ecret",
            "ABC123 \u{7F}",
            "",
        ];
        for pattern in patterns {
            let guard = Guard::of(pattern);
            for line in lines {
                let mask = LineMask::of(line);
                assert_eq!(
                    guard.admits_line(line, mask),
                    guard.admits(line),
                    "{pattern} on {line:?}"
                );
                // One mask serves the line and the line blanked.
                let blanked = line.replace("True", "");
                let both = mask.with(&blanked);
                assert!(!guard.admits(&blanked) || guard.admits_line(&blanked, both));
                assert_eq!(guard.admits_line(line, both), guard.admits(line));
            }
        }
        assert!(!Guard::of(r"\bverify\(").admits_line("verify(", LineMask::of("ver")));
        assert!(!Guard::of(r"AKIA[0-9A-Z]{16}").admits_line("AKA", LineMask::of("AKA")));
        assert!(Guard::of(r"(?i)akia").admits_line("AKIA", LineMask::of("AKIA")));
        // A folded `s` matches the long s: a line past ASCII gets past.
        let line = "\u{17F}elect *";
        assert!(Guard::of(r"(?i)select").admits_line(line, LineMask::of(line)));
    }

    #[test]
    fn a_pattern_without_a_required_literal_admits_everything() {
        assert!(Guard::of(r"[A-Z]{3}\d+").is_open());
        assert!(Guard::of(r"a?b*").is_open());
        assert!(Guard::of(r"foo|\w+").is_open());
        assert!(Guard::of("(unclosed").is_open());
        assert!(Guard::OPEN.admits("") && Guard::OPEN.is_open());
    }

    #[test]
    fn the_guard_never_turns_away_a_line_the_pattern_matches() {
        let cases = [
            (r"\b(dbg!)\(|\b(e?println!)\(\s*", "    eprintln!(  \"x\")"),
            (
                r"(?i)aws_?secret(?:_?access)?_?key",
                "AWS_SECRET_ACCESS_KEY",
            ),
            (r"^\s*use\s+([\w:]+)::\*\s*;", "  use std::io::*;"),
            (r"(?i)k", "\u{212A}"),
            (r"(?i)password", "PAſSWORD"),
            (r"(?i)secret", "\u{17F}ecret"),
            (r"(?i)token", "to\u{212A}en = 1"),
            (r"caf\x{e9}", "café"),
            // Unicode white space, which `\s` read as ASCII does not show.
            (r"foo\sbar", "foo\u{A0}bar"),
            (r"(?i)[kx]ey", "\u{212A}EY"),
        ];
        for (pattern, line) in cases {
            let re = regex::Regex::new(pattern).unwrap_or_else(|e| panic!("{e}"));
            assert!(re.is_match(line), "{pattern} on {line}");
            assert!(
                Guard::of(pattern).admits(line),
                "{pattern} turned away {line}"
            );
        }
    }
}
