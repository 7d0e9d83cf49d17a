//! `GIT binary patch` payloads: checked line by line and skipped.

use super::error::{DiffError, DiffErrorKind};
use super::lines::Lines;

/// Skips the blocks after a `GIT binary patch` line (already consumed): a
/// forward `literal N` / `delta N` block and an optional reverse one, each
/// ended by a blank line. Returns N when the forward block is a literal,
/// which is then the new file's size.
pub(crate) fn skip_binary_patch(lines: &mut Lines<'_>) -> Result<Option<u64>, DiffError> {
    let forward = match lines.peek() {
        Some(line) => block_header(line.trimmed()).ok_or(line.error(corrupt()))?,
        None => return Err(lines.eof_error(corrupt())),
    };
    lines.next();
    skip_data(lines)?;
    // The reverse block is optional, as in `git apply`.
    if let Some(line) = lines.peek()
        && block_header(line.trimmed()).is_some()
    {
        lines.next();
        skip_data(lines)?;
    }
    Ok(match forward {
        Block::Literal(n) => Some(n),
        Block::Delta(_) => None,
    })
}

fn corrupt() -> DiffErrorKind {
    DiffErrorKind::CorruptBinaryPatch
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Literal(u64),
    Delta(u64),
}

fn block_header(b: &[u8]) -> Option<Block> {
    let (make, n): (fn(u64) -> Block, _) = if let Some(n) = b.strip_prefix(b"literal ") {
        (Block::Literal, n)
    } else {
        (Block::Delta, b.strip_prefix(b"delta ")?)
    };
    if n.is_empty() || !n.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: u64 = 0;
    for d in n {
        v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    Some(make(v))
}

/// Base85 data lines up to a blank line (or the end of input).
fn skip_data(lines: &mut Lines<'_>) -> Result<(), DiffError> {
    loop {
        let Some(line) = lines.peek() else {
            // The next segment starts with a `diff --git` line, which is
            // not base85: read whole, the diff fails right there.
            if lines.more_follows() {
                return Err(lines.eof_error(corrupt()));
            }
            return Ok(());
        };
        let b = line.trimmed();
        lines.next();
        if b.is_empty() {
            return Ok(());
        }
        if !data_line_ok(b) {
            return Err(line.error(corrupt()));
        }
    }
}

/// Git's check: a length letter (`A`-`Z` = 1-26, `a`-`z` = 27-52) then
/// groups of five base85 digits holding that many bytes, padded by at most
/// three.
fn data_line_ok(b: &[u8]) -> bool {
    let Some((&len_char, data)) = b.split_first() else {
        return false;
    };
    let len = match len_char {
        b'A'..=b'Z' => usize::from(len_char - b'A') + 1,
        b'a'..=b'z' => usize::from(len_char - b'a') + 27,
        _ => return false,
    };
    if data.is_empty() || data.len() % 5 != 0 {
        return false;
    }
    let max = data.len() / 5 * 4;
    len <= max && len + 4 > max && data.iter().all(|&c| is_base85(c))
}

fn is_base85(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&()*+-;<=>?@^_`{|}~".contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &[u8]) -> (Result<Option<u64>, DiffError>, Option<usize>) {
        let mut lines = Lines::new(input);
        let got = skip_binary_patch(&mut lines);
        (got, lines.next().map(|l| l.number))
    }

    #[test]
    fn literal_with_reverse() {
        let input = b"literal 12\nPcmZ?wa&WKO4Gqa}1Xckn\n\nliteral 0\nHcmV?d00001\n\nnext\n";
        let (got, next) = run(input);
        assert_eq!(got, Ok(Some(12)));
        assert_eq!(next, Some(7));
    }

    #[test]
    fn delta_forward_has_no_size_and_eof_ends_block() {
        let (got, next) = run(b"delta 5\nHcmV?d00001\n");
        assert_eq!(got, Ok(None));
        assert_eq!(next, None);
    }

    #[test]
    fn missing_reverse_is_fine() {
        let (got, next) = run(b"literal 0\nHcmV?d00001\n\ndiff --git a/x b/x\n");
        assert_eq!(got, Ok(Some(0)));
        assert_eq!(next, Some(4));
    }

    #[test]
    fn corrupt_shapes() {
        for bad in [
            &b"literal\n"[..],
            b"literal x\n",
            b"literal 99999999999999999999999\n",
            b"nothing\n",
            b"",
            b"literal 1\nHcmV\n",
            b"literal 1\nzcmV?d00001\n",
            b"literal 1\n1cmV?d\n",
            b"literal 1\nHcmV \"d00001\n",
        ] {
            let (got, _) = run(bad);
            let kind = got.map_err(|e| e.kind);
            assert_eq!(kind, Err(DiffErrorKind::CorruptBinaryPatch), "{bad:?}");
        }
    }

    #[test]
    fn data_line_rules() {
        assert!(data_line_ok(b"HcmV?d00001"));
        assert!(data_line_ok(b"AcmV?d"));
        assert!(data_line_ok(b"DcmV?d"));
        assert!(!data_line_ok(b"EcmV?d"));
    }
}
