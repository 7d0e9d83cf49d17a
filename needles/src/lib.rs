//! The literals a regex's matches hold, read off its syntax tree: strings
//! of which every match contains at least one ("needles"). A text that
//! holds none of them cannot match, so a caller can skip the regex for it,
//! and need not even compile a pattern no text gets past.
//!
//! The reading only ever errs on the side of more: a needle set is never
//! stricter than the pattern. Where the tree gives no literal every match
//! needs (a pattern of classes and repetitions alone), there is none.
//!
//! Its own crate so that the build (`revu-macros`) and the running program
//! (`revu-domain`) read a pattern the same way.

use regex_syntax::hir::{Class, Hir, HirKind};

/// Most needles a pattern is read as; past it, it has none (so many
/// alternatives cost more to look for than the regex).
const MOST_LITERALS: usize = 32;

/// One literal a match contains: its bytes, and whether ASCII case is to
/// be ignored (a `(?i)` run of letters).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Needle {
    pub bytes: Vec<u8>,
    pub fold: bool,
}

impl Needle {
    /// Whether every text that holds `other` holds this needle.
    pub fn within(&self, other: &Needle) -> bool {
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

/// The needles of `pattern` (as written: ASCII word classes are the
/// caller's, [`ascii_classes`]), if it has any.
pub fn needles(pattern: &str) -> Option<Vec<Needle>> {
    // Read without Unicode (tables cost more than the rest of the
    // reading): ASCII case folding and classes. Literals stay exact; a
    // letter whose Unicode folds leave ASCII never joins a folded run
    // ([`case_pair`]), so the needles stay looser than the regex.
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

/// The characters of a class of at most [`MOST_CLASS`] ASCII ones, none
/// of them white space, each a string of its own. `k` and `s` are compared without case: read
/// without Unicode, `(?i)[kx]` does not show that the regex also matches
/// the Kelvin sign (and `s` the long s), and a folded needle with either
/// letter has the guard admit every line past ASCII.
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
    // White space too: read without Unicode, `\s` is the six ASCII
    // spaces, where the regex also matches the others (U+00A0 and so on).
    let spaces = |&(a, b): &(u32, u32)| (a..=b).any(|c| c == 0x20 || (0x09..=0x0D).contains(&c));
    if count as usize > MOST_CLASS
        || ranges.iter().any(|&(_, b)| b > 0x7F)
        || ranges.iter().any(spaces)
    {
        return None;
    }
    Some(
        ranges
            .into_iter()
            .flat_map(|(a, b)| a..=b)
            .filter_map(|c| u8::try_from(c).ok())
            .map(|c| Needle {
                bytes: vec![c],
                fold: matches!(c, b'k' | b'K' | b's' | b'S'),
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

/// `pattern` with `\w`, `\W`, `\d`, `\D`, `\b` and `\B` made ASCII-only;
/// every other escape (`\\w` is a backslash and a `w`) left as written.
pub fn ascii_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('W') => out.push_str("[^0-9A-Za-z_]"),
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('b') => out.push_str("(?-u:\\b)"),
            Some('B') => out.push_str("(?-u:\\B)"),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_classes_and_boundaries_become_ascii_and_other_escapes_stay() {
        assert_eq!(ascii_classes(r"\bfoo\w+"), r"(?-u:\b)foo[0-9A-Za-z_]+");
        assert_eq!(ascii_classes(r"a\\w\.b"), r"a\\w\.b");
        assert_eq!(
            ascii_classes(r"\d\D\W\B"),
            r"[0-9][^0-9][^0-9A-Za-z_](?-u:\B)"
        );
        assert_eq!(ascii_classes("trailing\\"), "trailing\\");
    }

    fn read(pattern: &str) -> Option<Vec<(String, bool)>> {
        needles(pattern).map(|n| {
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
            read(r"\b((?:std::)?thread::sleep)\("),
            Some(vec![lit("thread::sleep(")])
        );
        assert_eq!(
            read(r"\b(todo|unimplemented)!\("),
            Some(vec![lit("todo!("), lit("unimplemented!(")])
        );
        assert_eq!(
            read(r"\.(unwrap\(\)|expect\()"),
            Some(vec![lit(".expect("), lit(".unwrap()")])
        );
        assert_eq!(read(r#""(?:[^"\\]|\\.)*""#), Some(vec![lit("\"")]));
    }

    #[test]
    fn case_insensitive_letters_are_folded() {
        assert_eq!(
            read(r"(?i)\bselect\s+(?:distinct\s+)?(?:\w+\.)?\*\s+from\b"),
            Some(vec![("select".to_owned(), true)])
        );
    }

    #[test]
    fn small_classes_alternations_and_options_multiply_with_their_neighbours() {
        // A common prefix lifted out of the branches (`gh[oprsu]_`) is read back
        // into whole strings.
        assert_eq!(
            read(r"\b(?:ghp|gho|ghu)_[A-Za-z0-9]{36}"),
            Some(vec![lit("gho_"), lit("ghp_"), lit("ghu_")])
        );
        // Each way through the run, not the longest literal in it (`test`
        // would admit any line about tests).
        assert_eq!(
            read(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
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
            read(r"sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"),
            Some(vec![lit("sk-")])
        );
        // A run that would be too many strings ends there.
        assert_eq!(
            read(r"[a-h][a-h]x[0-9]"),
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
        assert_eq!(read(r"(?:ab)?\d+"), None);
    }
}
