//! A pattern's literal guard: strings of which every match of the pattern
//! contains at least one, read off its syntax tree. A line that holds
//! none of them cannot match, so the rules skip the regex for it, and a
//! pattern no line of the review gets past is never compiled: on a small
//! change, compiling the rules' patterns was most of the work.
//!
//! The guard only ever admits more than the pattern: a line it turns away
//! cannot match. Where the tree gives no literal every match needs (a
//! pattern of classes and repetitions alone), it admits every line.

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use memchr::memmem;
use regex_syntax::hir::{Class, Hir, HirKind};

use super::mask::{LineMask, Need};

/// Most literals a guard keeps; past it, a guard admits every line (so
/// many alternatives cost more to look for than the regex).
const MOST_LITERALS: usize = 32;

/// One literal a match contains: its bytes, and whether ASCII case is to
/// be ignored (a `(?i)` run of letters).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Needle {
    bytes: Vec<u8>,
    fold: bool,
}

impl Needle {
    /// Whether every text that holds `other` holds this needle.
    fn within(&self, other: &Needle) -> bool {
        if self.bytes.is_empty() {
            return true;
        }
        if other.fold && !self.fold {
            return false;
        }
        other.bytes.windows(self.bytes.len()).any(|w| {
            if self.fold {
                w.eq_ignore_ascii_case(&self.bytes)
            } else {
                w == self.bytes.as_slice()
            }
        })
    }
}

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

/// The needles, looked for one by one when they are few, else in one
/// pass per kind (exact, and without ASCII case).
#[derive(Debug, Clone)]
struct Searcher {
    /// Per needle, what a line's [`LineMask`] needs to hold it.
    needs: Vec<Need>,
    finds: Vec<Find>,
    /// A folded needle holds `k` or `s`, whose Unicode case folds leave
    /// ASCII (the Kelvin sign, the long s): a line with non-ASCII bytes
    /// is admitted without a search.
    unicode_folds: bool,
}

impl Searcher {
    /// `None` when an automaton cannot be built (the guard then admits
    /// every line).
    fn new(needles: &[Needle]) -> Option<Searcher> {
        let mut finds = Vec::new();
        for fold in [false, true] {
            let wanted: Vec<&[u8]> = needles
                .iter()
                .filter(|n| n.fold == fold)
                .map(|n| n.bytes.as_slice())
                .collect();
            if wanted.len() > FEW {
                // A contiguous NFA, not a DFA: built once per pattern in
                // every run, where a DFA took most of a small review's
                // guards, and searched only on lines past the mask.
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
        let unicode_folds = needles.iter().any(|n| {
            n.fold
                && n.bytes
                    .iter()
                    .any(|b| matches!(b, b'k' | b's' | b'K' | b'S'))
        });
        Some(Searcher {
            needs: needles.iter().map(|n| Need::of(&n.bytes)).collect(),
            finds,
            unicode_folds,
        })
    }

    fn found_in(&self, hay: &[u8]) -> bool {
        (self.unicode_folds && !hay.is_ascii()) || self.finds.iter().any(|f| f.in_(hay))
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
        Guard(needles(pattern).as_deref().and_then(Searcher::new))
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

/// The needles of `pattern`, if it has any.
fn needles(pattern: &str) -> Option<Vec<Needle>> {
    // Read without Unicode (tables cost more than the rest of the
    // guard): ASCII case folding and classes. Literals stay exact; a
    // letter whose Unicode folds leave ASCII never joins a folded run
    // ([`case_pair`]), so the guard stays looser than the regex.
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(pattern)
        .ok()?;
    // ASCII needles only: a byte above 0x7F read without Unicode
    // (`\xE9`) is not how the text spells that character.
    required(&hir)
        .filter(|needles| !needles.is_empty() && needles.iter().all(|n| n.bytes.is_ascii()))
}

/// Literals of which every match of `hir` contains one, if there are.
fn required(hir: &Hir) -> Option<Vec<Needle>> {
    match hir.kind() {
        HirKind::Literal(lit) if !lit.0.is_empty() => Some(vec![Needle {
            bytes: lit.0.to_vec(),
            fold: false,
        }]),
        HirKind::Repetition(rep) if rep.min >= 1 => required(&rep.sub),
        HirKind::Capture(cap) => required(&cap.sub),
        HirKind::Concat(subs) => concat(subs),
        HirKind::Alternation(subs) => branches(subs, required, MOST_LITERALS).map(|mut all| {
            all.dedup();
            all
        }),
        _ => None,
    }
}

/// Most strings a part of a concatenation is read as (a small class, an
/// alternation of literals, and their products with the parts beside
/// them); past it, the run of strings ends there.
const MOST_EXACT: usize = 16;

/// Most characters of a class read as that many strings (`[prs]k_` is
/// `pk_`, `rk_` and `sk_`).
const MOST_CLASS: usize = 8;

/// What `read` makes of each branch of an alternation, together; none if
/// a branch gives none or they come to more than `most`.
fn branches(
    subs: &[Hir],
    read: fn(&Hir) -> Option<Vec<Needle>>,
    most: usize,
) -> Option<Vec<Needle>> {
    let mut all = Vec::new();
    for sub in subs {
        all.extend(read(sub)?);
        if all.len() > most {
            return None;
        }
    }
    Some(all)
}

/// The best requirement of a concatenation: the longest run of adjacent
/// parts that each match one of a few strings (literals, ASCII letters
/// that `(?i)` made classes, small classes and alternations of such),
/// read as the strings of every way through the run, or the best
/// requirement of one of its parts.
fn concat(subs: &[Hir]) -> Option<Vec<Needle>> {
    let mut best: Option<Vec<Needle>> = None;
    let mut consider = |candidate: Option<Vec<Needle>>| {
        if let Some(candidate) = candidate
            && best.as_ref().is_none_or(|b| score(&candidate) > score(b))
        {
            best = Some(candidate);
        }
    };
    let mut run = vec![Needle::default()];
    for sub in subs {
        if let Some(strings) = exact(sub) {
            run = match cross(&run, &strings) {
                Some(longer) => longer,
                None => {
                    consider(finished(std::mem::take(&mut run)));
                    strings
                }
            };
            continue;
        }
        consider(finished(std::mem::replace(
            &mut run,
            vec![Needle::default()],
        )));
        consider(required(sub));
    }
    consider(finished(run));
    best
}

/// Every string `hir` matches, when they are few: a literal, an ASCII
/// letter in both cases, a small class, an alternation, concatenation or
/// option of such. An assertion (`\b`, `^`) matches the empty string: it
/// adds no text to a match.
fn exact(hir: &Hir) -> Option<Vec<Needle>> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(vec![Needle::default()]),
        HirKind::Literal(_) | HirKind::Class(_) => match piece(hir) {
            Some((bytes, fold)) => Some(vec![Needle { bytes, fold }]),
            None => class_strings(hir),
        },
        HirKind::Capture(cap) => exact(&cap.sub),
        HirKind::Repetition(rep) if rep.max == Some(1) && rep.min <= 1 => {
            let mut strings = exact(&rep.sub)?;
            if rep.min == 0 {
                strings.push(Needle::default());
            }
            Some(strings)
        }
        HirKind::Concat(subs) => subs.iter().try_fold(vec![Needle::default()], |run, sub| {
            cross(&run, &exact(sub)?)
        }),
        HirKind::Alternation(subs) => branches(subs, exact, MOST_EXACT),
        _ => None,
    }
}

/// The characters of a class of at most [`MOST_CLASS`] ASCII ones, each
/// a string of its own.
fn class_strings(hir: &Hir) -> Option<Vec<Needle>> {
    let ranges: Vec<(u32, u32)> = match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        HirKind::Class(Class::Bytes(class)) => class
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        _ => return None,
    };
    let count: u32 = ranges.iter().map(|(a, b)| b - a + 1).sum();
    if count as usize > MOST_CLASS || ranges.iter().any(|&(_, b)| b > 0x7F) {
        return None;
    }
    Some(
        ranges
            .into_iter()
            .flat_map(|(a, b)| a..=b)
            .filter_map(|c| u8::try_from(c).ok())
            .map(|c| Needle {
                bytes: vec![c],
                fold: false,
            })
            .collect(),
    )
}

/// Each of `run` followed by each of `next`, unless that makes more than
/// [`MOST_EXACT`] strings. A string with a part compared without case is
/// compared without case as a whole (it then admits more, never less).
fn cross(run: &[Needle], next: &[Needle]) -> Option<Vec<Needle>> {
    if run.len() * next.len() > MOST_EXACT {
        return None;
    }
    Some(
        run.iter()
            .flat_map(|a| {
                next.iter().map(move |b| Needle {
                    bytes: [a.bytes.as_slice(), &b.bytes].concat(),
                    fold: a.fold || b.fold,
                })
            })
            .collect(),
    )
}

/// A run's strings as a requirement: none if one of them is empty (the
/// run can match nothing), and without a string that holds another (a
/// line that holds it holds the other too).
fn finished(mut run: Vec<Needle>) -> Option<Vec<Needle>> {
    if run.is_empty() || run.iter().any(|n| n.bytes.is_empty()) {
        return None;
    }
    run.sort_by(|a, b| a.bytes.len().cmp(&b.bytes.len()).then(a.cmp(b)));
    run.dedup();
    let mut kept: Vec<Needle> = Vec::with_capacity(run.len());
    for needle in run {
        if !kept.iter().any(|k| k.within(&needle)) {
            kept.push(needle);
        }
    }
    Some(kept)
}

/// A part of a concatenation that is one string: a literal, or one ASCII
/// letter in both cases (`(?i)e` is `[Ee]`, lowered and compared without
/// case). A class with a third member (`(?i)k` also matches the Kelvin
/// sign) is not one.
fn piece(hir: &Hir) -> Option<(Vec<u8>, bool)> {
    match hir.kind() {
        HirKind::Literal(lit) => Some((lit.0.to_vec(), false)),
        HirKind::Class(Class::Unicode(class)) => {
            case_pair(class.ranges().iter().map(|r| (r.start(), r.end())))
        }
        HirKind::Class(Class::Bytes(class)) => case_pair(
            class
                .ranges()
                .iter()
                .map(|r| (char::from(r.start()), char::from(r.end()))),
        ),
        _ => None,
    }
}

/// `[Aa]`, a class of these ranges: one ASCII letter in both cases.
/// Unicode `(?i)` also matches `k` and `s` with the Kelvin sign and the
/// long s, which an ASCII reading of the pattern does not show: a guard
/// whose folded needles hold them admits every line that is not ASCII
/// ([`Searcher::unicode_folds`]).
fn case_pair(ranges: impl Iterator<Item = (char, char)>) -> Option<(Vec<u8>, bool)> {
    let chars: Vec<char> = ranges.flat_map(|(a, b)| a..=b).take(3).collect();
    match chars[..] {
        [a, b] if a.is_ascii_alphabetic() && a != b && a.eq_ignore_ascii_case(&b) => {
            Some((vec![a.to_ascii_lowercase() as u8], true))
        }
        _ => None,
    }
}

/// How much a requirement narrows: its shortest literal's length (longer
/// literals are rarer), then exact case over folded, then fewer literals.
fn score(needles: &[Needle]) -> (usize, bool, std::cmp::Reverse<usize>) {
    let shortest = needles.iter().map(|n| n.bytes.len()).min().unwrap_or(0);
    let exact = needles.iter().all(|n| !n.fold);
    (shortest, exact, std::cmp::Reverse(needles.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needles(pattern: &str) -> Option<Vec<(String, bool)>> {
        super::needles(pattern).map(|n| {
            n.into_iter()
                .map(|n| (String::from_utf8_lossy(&n.bytes).into_owned(), n.fold))
                .collect()
        })
    }

    fn lit(s: &str) -> (String, bool) {
        (s.to_owned(), false)
    }

    #[test]
    fn literals_come_from_the_longest_run_or_every_branch() {
        assert_eq!(
            needles(r"\b((?:std::)?thread::sleep)\("),
            Some(vec![lit("thread::sleep(")])
        );
        assert_eq!(
            needles(r"\b(todo|unimplemented)!\("),
            Some(vec![lit("todo!("), lit("unimplemented!(")])
        );
        assert_eq!(
            needles(r"\.(unwrap\(\)|expect\()"),
            Some(vec![lit(".expect("), lit(".unwrap()")])
        );
        assert_eq!(needles(r#""(?:[^"\\]|\\.)*""#), Some(vec![lit("\"")]));
    }

    #[test]
    fn small_classes_alternations_and_options_multiply_with_their_neighbours() {
        // A common prefix lifted out of the branches (`gh[oprsu]_`) is read back
        // into whole strings.
        assert_eq!(
            needles(r"\b(?:ghp|gho|ghu)_[A-Za-z0-9]{36}"),
            Some(vec![lit("gho_"), lit("ghp_"), lit("ghu_")])
        );
        // Each way through the run, not the longest literal in it (`test`
        // would admit any line about tests).
        assert_eq!(
            needles(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
            Some(vec![
                lit("rk_live_"),
                lit("rk_test_"),
                lit("sk_live_"),
                lit("sk_test_")
            ])
        );
        // An option adds the empty string; a string that holds another
        // one is dropped.
        assert_eq!(
            needles(r"sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"),
            Some(vec![lit("sk-")])
        );
        // A run that would be too many strings ends there.
        assert_eq!(
            needles(r"[a-h][a-h]x[0-9]"),
            Some(vec![
                lit("ax"),
                lit("bx"),
                lit("cx"),
                lit("dx"),
                lit("ex"),
                lit("fx"),
                lit("gx"),
                lit("hx")
            ])
        );
        // Run through an option alone, a part may match nothing.
        assert_eq!(needles(r"(?:ab)?\d+"), None);
        let g = Guard::of(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}");
        assert!(!g.admits("No test was added"));
        assert!(g.admits("key rk_test_0123456789abcdef"));
    }

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
                "a", "b", "k", "s_", "ab", "-", "A", "[ab]", "[a-k]", "[^a]", r"\w", r"\b", "^",
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
        assert_eq!(
            needles(r"(?i)\bselect\s+(?:distinct\s+)?(?:\w+\.)?\*\s+from\b"),
            Some(vec![("select".to_owned(), true)])
        );
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
