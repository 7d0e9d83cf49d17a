//! One cache entry as it lies on disk: a header that says what it is the
//! facts of and who wrote them, the payload ([`super::codec`]), and a
//! SHA-1 of everything before it.
//!
//! ```text
//! magic "revufcts" | layout u16 | extractor u32 | crate version (u8 length, bytes)
//! | language u8 | blob id [20] | blob size u64 | payload length u32 | payload
//! | SHA-1 of all the above [20]
//! ```
//!
//! An entry is used only when every field agrees with what was asked for
//! and the checksum holds; anything else is a [`Rejection`], and the
//! caller reads the file again.

use super::BlobId;
use super::codec;
use crate::extract::FileFacts;
use crate::lang::Lang;

const MAGIC: &[u8; 8] = b"revufcts";
const CHECKSUM: usize = 20;

/// Who wrote an entry: the entry layout, the extractor's version and the
/// crate's. An entry of another writer is never used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    pub layout: u16,
    pub extractor: u32,
    pub crate_version: String,
}

impl Stamp {
    /// This build's.
    pub fn current() -> Stamp {
        Stamp {
            layout: super::LAYOUT,
            extractor: crate::extract::EXTRACTOR_VERSION,
            crate_version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// `<crate version>-x<extractor>-l<layout>` (`0.1.0-x1-l1`): the writer
/// an entry shared between machines is exchanged under, so that builds
/// of different versions never trade entries.
impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}-x{}-l{}",
            self.crate_version, self.extractor, self.layout
        )
    }
}

/// Why an entry was not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    #[error("shorter than its header says (truncated)")]
    Truncated,
    #[error("its checksum does not match its bytes")]
    Checksum,
    #[error("not a facts entry")]
    Magic,
    #[error("written by another version")]
    Foreign,
    #[error("the facts of another blob")]
    WrongBlob,
    #[error("the facts of another language")]
    WrongLanguage,
    #[error("its payload does not decode: {0}")]
    Malformed(#[from] codec::Malformed),
}

/// The facts of blob `blob` read as `lang`, as an entry's bytes.
pub fn seal(stamp: &Stamp, lang: Lang, blob: BlobId, size: u64, facts: &FileFacts) -> Vec<u8> {
    let payload = codec::encode(facts);
    let version = stamp.crate_version.as_bytes();
    let version = &version[..version.len().min(usize::from(u8::MAX))];
    let mut out = Vec::with_capacity(payload.len() + 80);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&stamp.layout.to_le_bytes());
    out.extend_from_slice(&stamp.extractor.to_le_bytes());
    out.push(u8::try_from(version.len()).unwrap_or(u8::MAX));
    out.extend_from_slice(version);
    out.push(lang_code(lang));
    out.extend_from_slice(blob.as_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(
        &u32::try_from(payload.len())
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    out.extend_from_slice(&payload);
    let sum = sha1_smol::Sha1::from(&out).digest().bytes();
    out.extend_from_slice(&sum);
    out
}

/// The facts an entry holds, keeping the definitions and references whose
/// name `want` accepts, and the blob's size; checked against `stamp`,
/// `lang` and `blob` first.
pub fn open(
    bytes: &[u8],
    stamp: &Stamp,
    lang: Lang,
    blob: BlobId,
    want: &dyn Fn(&str) -> bool,
    marks: Option<&mut Vec<crate::tree::Mark>>,
) -> Result<(FileFacts, u64), Rejection> {
    let body_len = bytes
        .len()
        .checked_sub(CHECKSUM)
        .ok_or(Rejection::Truncated)?;
    let (body, sum) = bytes.split_at(body_len);
    let mut r = Fields { rest: body };
    if r.take(MAGIC.len())? != MAGIC {
        return Err(Rejection::Magic);
    }
    let layout = u16::from_le_bytes(r.array()?);
    let extractor = u32::from_le_bytes(r.array()?);
    let version_len = usize::from(r.array::<1>()?[0]);
    let version = r.take(version_len)?;
    let [code] = r.array()?;
    let id: [u8; 20] = r.array()?;
    let size = u64::from_le_bytes(r.array()?);
    let payload_len = usize::try_from(u32::from_le_bytes(r.array()?)).unwrap_or(usize::MAX);
    if r.rest.len() != payload_len {
        return Err(Rejection::Truncated);
    }
    if sha1_smol::Sha1::from(body).digest().bytes() != sum {
        return Err(Rejection::Checksum);
    }
    if layout != stamp.layout
        || extractor != stamp.extractor
        || version != stamp.crate_version.as_bytes()
    {
        return Err(Rejection::Foreign);
    }
    if code != lang_code(lang) {
        return Err(Rejection::WrongLanguage);
    }
    if id != *blob.as_bytes() {
        return Err(Rejection::WrongBlob);
    }
    let facts = codec::decode(r.rest, want, marks)?;
    Ok((facts, size))
}

fn lang_code(lang: Lang) -> u8 {
    Lang::ALL
        .iter()
        .position(|&l| l == lang)
        .and_then(|i| u8::try_from(i).ok())
        .unwrap_or(u8::MAX)
}

/// The header's fields, front to back.
struct Fields<'b> {
    rest: &'b [u8],
}

impl<'b> Fields<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8], Rejection> {
        if self.rest.len() < n {
            return Err(Rejection::Truncated);
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Rejection> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
}
