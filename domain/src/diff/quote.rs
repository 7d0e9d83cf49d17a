//! Git's C-style path quoting (`"a/caf\303\251 \"x\""`).

use super::error::DiffErrorKind;

/// Decodes the quoted name at the start of `input` (which must begin with
/// `"`). Returns the raw name bytes and how many input bytes the quoted form
/// used, closing quote included.
pub(crate) fn unquote(input: &[u8]) -> Result<(Vec<u8>, usize), DiffErrorKind> {
    let bad = DiffErrorKind::InvalidQuotedPath;
    if input.first() != Some(&b'"') {
        return Err(bad);
    }
    let mut out = Vec::with_capacity(input.len());
    let mut i = 1;
    loop {
        let c = *input.get(i).ok_or(bad.clone())?;
        i += 1;
        match c {
            b'"' => return Ok((out, i)),
            b'\\' => {
                let e = *input.get(i).ok_or(bad.clone())?;
                i += 1;
                let byte = match e {
                    b'a' => 0x07,
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 0x0b,
                    b'\\' | b'"' => e,
                    // Git writes every byte it escapes numerically as
                    // exactly three octal digits, the first 0-3.
                    b'0'..=b'3' => {
                        let d1 = octal(input.get(i)).ok_or(bad.clone())?;
                        let d2 = octal(input.get(i + 1)).ok_or(bad.clone())?;
                        i += 2;
                        ((e - b'0') << 6) | (d1 << 3) | d2
                    }
                    _ => return Err(bad),
                };
                out.push(byte);
            }
            _ => out.push(c),
        }
    }
}

fn octal(b: Option<&u8>) -> Option<u8> {
    match b {
        Some(&d @ b'0'..=b'7') => Some(d - b'0'),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &[u8]) -> (Vec<u8>, usize) {
        unquote(s).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn plain_and_escapes() {
        assert_eq!(ok(b"\"a/x\" rest"), (b"a/x".to_vec(), 5));
        assert_eq!(ok(br#""a\tb\nc\\d\"e""#).0, b"a\tb\nc\\d\"e".to_vec());
        assert_eq!(ok(br#""\a\b\f\v\r""#).0, vec![7, 8, 12, 11, 13]);
    }

    #[test]
    fn octal_bytes() {
        assert_eq!(ok(br#""caf\303\251""#).0, "café".as_bytes().to_vec());
        assert_eq!(ok(br#""\377\000""#).0, vec![0xff, 0]);
    }

    #[test]
    fn rejects_bad_forms() {
        for bad in [
            &b"noquote"[..],
            b"\"unterminated",
            b"\"trailing\\",
            b"\"bad \\q escape\"",
            b"\"\\4xx\"",
            b"\"\\38\"",
            b"\"\\1\"",
            b"",
        ] {
            assert_eq!(
                unquote(bad),
                Err(DiffErrorKind::InvalidQuotedPath),
                "{bad:?}"
            );
        }
    }
}
