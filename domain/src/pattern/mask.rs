//! A line's adjacent byte pairs as a set of bits, worked out once per line
//! and read by every pattern that looks at the line: a needle whose pairs
//! are not all in the set is not in the line, which a few instructions
//! tell where a search would read the whole line. The pairs are compared
//! without ASCII case, so one set serves needles of either kind.

/// The pairs of adjacent bytes a line holds, each hashed to one of 64
/// bits, letters folded to lowercase; and whether it has a byte past
/// ASCII. A mask that holds more serves the line too: one mask serves a
/// line as written and with its string literals blanked
/// ([`LineMask::with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineMask {
    pairs: u64,
    past_ascii: bool,
}

/// What a line's [`LineMask`] must hold for a needle to be in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Need(u64);

/// Per byte, its value with ASCII letters folded to lowercase and every
/// byte past ASCII as one, as a 7-bit code.
const CODE: [u8; 256] = {
    let mut table = [0x7F; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = (b as u8).to_ascii_lowercase();
        b += 1;
    }
    table
};

/// The bits of the pairs of `bytes`: each pair `a`, `b` (codes) is bit
/// `47a + b` mod 64.
fn pairs(bytes: &[u8]) -> u64 {
    let Some((&first, rest)) = bytes.split_first() else {
        return 0;
    };
    let mut prev = u32::from(CODE[usize::from(first)]);
    let mut set = 0u64;
    for &b in rest {
        let code = u32::from(CODE[usize::from(b)]);
        set |= 1 << ((prev * 47 + code) & 63);
        prev = code;
    }
    set
}

impl LineMask {
    /// The mask of a line not read: it turns nothing away.
    pub const ALL: LineMask = LineMask {
        pairs: u64::MAX,
        past_ascii: true,
    };

    /// The mask of `text`.
    pub fn of(text: &str) -> LineMask {
        LineMask {
            pairs: pairs(text.as_bytes()),
            past_ascii: !text.is_ascii(),
        }
    }

    /// The mask of both this line and `text` (the line with its string
    /// literals blanked, whose quotes meet).
    pub fn with(self, text: &str) -> LineMask {
        LineMask {
            pairs: self.pairs | pairs(text.as_bytes()),
            past_ascii: self.past_ascii || !text.is_ascii(),
        }
    }

    /// Whether the line may hold a needle of need `need`.
    pub(super) fn may_hold(self, need: Need) -> bool {
        self.pairs & need.0 == need.0
    }

    /// Whether the line has a byte past ASCII (where Unicode case folding
    /// can match an ASCII letter: the Kelvin sign, the long s).
    pub(super) fn past_ascii(self) -> bool {
        self.past_ascii
    }
}

impl Need {
    /// What a line needs to hold `needle` (compared with or without
    /// case: the pairs are folded either way). A needle of one byte has
    /// no pair, and needs nothing.
    pub(super) fn of(needle: &[u8]) -> Need {
        Need(pairs(needle))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_holds_the_pairs_of_what_it_holds() {
        let line = LineMask::of("    return requests.get(url, Verify=False)");
        for needle in ["verify", "VERIFY", "get(", "=False", "r", "", "n "] {
            assert!(line.may_hold(Need::of(needle.as_bytes())), "{needle}");
        }
        assert!(!line.may_hold(Need::of(b"select")));
        assert!(LineMask::ALL.may_hold(Need::of(b"select")));
        // Bytes past ASCII are one code: a needle of them is never missed.
        assert!(LineMask::of("café").may_hold(Need::of("fé".as_bytes())));
        assert!(LineMask::of("caf\u{17F}").may_hold(Need::of("fé".as_bytes())));
        assert!(LineMask::of("é").past_ascii() && !LineMask::of("e").past_ascii());
        // Blanking a literal brings its quotes together.
        let (text, code) = (r#"f("a") + g"#, r#"f("") + g"#);
        assert!(!LineMask::of(text).may_hold(Need::of(br#""""#)));
        assert!(LineMask::of(text).with(code).may_hold(Need::of(br#""""#)));
        assert!(LineMask::of(text).with(code).may_hold(Need::of(br#"("a"#)));
    }
}
