//! A summary's bytes. Little-endian throughout.
//!
//! ```text
//! magic "revutree" | head length u64
//! head:  layout u16 | extractor u32 | crate version (u8 length, bytes)
//!        | tree (u8 length, bytes) | max files u64 | max file bytes u64
//!        | skipped u64
//!        | files u32, each: path (u32 length, bytes) | blob [20]
//!          | language u8 (0 for a manifest, else 1 + its code) | size u64
//!          | errors u8
//!        | manifests u32, each: file u32 | text (u32 length, bytes)
//!        | import offsets (files + 1) × u32 | imports × u32
//!        | bucket offsets (BUCKETS + 1) × u64, from the end of the head
//!        | SHA-1 of the head [20]
//! then per bucket (names by the top bits of their hash):
//!        keys u32 | keys × (hash u32 | start u32 | count u32)
//!        | file ids u32… | SHA-1 of the bucket [20]
//! ```
//!
//! Every length and index is checked as it is read: a summary that does
//! not decode is an error, never a panic, and never a wrong answer.

use super::{StoredTree, Summary, TreeFile, TreeKey};
use crate::cache::BlobId;
use crate::cache::entry::Stamp;
use crate::lang::Lang;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"revutree";
/// The layout's version: bumped with any change to it.
const LAYOUT: u16 = 1;
const SUM: usize = 20;
/// Postings are split by the top 12 bits of a name's hash.
const BUCKET_BITS: u32 = 12;
const BUCKETS: usize = 1 << BUCKET_BITS;

/// Why a summary is not used.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    #[error("tree summary {0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("tree summary: {0}")]
    Malformed(&'static str),
    #[error("tree summary: its checksum does not match its bytes")]
    Checksum,
    #[error("tree summary: written by another version, or for another tree or limits")]
    Foreign,
}

fn bucket_of(hash: u32) -> usize {
    (hash >> (32 - BUCKET_BITS)) as usize
}

struct Out(Vec<u8>);

impl Out {
    fn u8(&mut self, n: u8) {
        self.0.push(n);
    }
    fn u16(&mut self, n: u16) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }
    fn u32(&mut self, n: u32) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }
    fn u64(&mut self, n: u64) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
    fn short(&mut self, s: &str) {
        let b = &s.as_bytes()[..s.len().min(usize::from(u8::MAX))];
        self.u8(u8::try_from(b.len()).unwrap_or(u8::MAX));
        self.0.extend_from_slice(b);
    }
    fn text(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn sum_from(&mut self, start: usize) {
        let sum = sha1_smol::Sha1::from(&self.0[start..]).digest().bytes();
        self.0.extend_from_slice(&sum);
    }
}

fn lang_code(lang: Option<Lang>) -> u8 {
    lang.and_then(|l| Lang::ALL.iter().position(|&x| x == l))
        .and_then(|i| u8::try_from(i + 1).ok())
        .unwrap_or(0)
}

fn lang_of(code: u8) -> Result<Option<Lang>, TreeError> {
    match code {
        0 => Ok(None),
        n => Lang::ALL
            .get(usize::from(n) - 1)
            .copied()
            .map(Some)
            .ok_or(TreeError::Malformed("an unknown language")),
    }
}

/// `summary` as the bytes of `key`'s summary.
pub fn encode(key: &TreeKey, summary: &Summary) -> Vec<u8> {
    let stamp = Stamp::current();
    let mut out = Out(Vec::new());
    out.0.extend_from_slice(MAGIC);
    out.u64(0);
    let head = out.0.len();
    out.u16(LAYOUT);
    out.u32(stamp.extractor);
    out.short(&stamp.crate_version);
    out.short(&key.tree);
    out.u64(key.max_files);
    out.u64(key.max_file_bytes);
    out.u64(summary.skipped);
    out.len(summary.files.len());
    for f in &summary.files {
        out.text(&f.path);
        out.0.extend_from_slice(f.blob.as_bytes());
        out.u8(lang_code(f.lang));
        out.u64(f.size);
        out.u8(u8::from(f.has_errors));
    }
    out.len(summary.manifests.len());
    for (file, text) in &summary.manifests {
        out.u32(*file);
        out.text(text);
    }
    let mut at = 0u32;
    out.u32(0);
    for i in 0..summary.files.len() {
        let n = summary.imports.get(i).map_or(0, Vec::len);
        at = at.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        out.u32(at);
    }
    for i in 0..summary.files.len() {
        for &t in summary.imports.get(i).into_iter().flatten() {
            out.u32(t);
        }
    }
    let blocks = buckets(summary);
    let mut offset = 0u64;
    out.u64(0);
    for block in &blocks {
        offset += block.len() as u64;
        out.u64(offset);
    }
    out.sum_from(head);
    let head_len = (out.0.len() - head) as u64;
    out.0[MAGIC.len()..MAGIC.len() + 8].copy_from_slice(&head_len.to_le_bytes());
    for block in blocks {
        out.0.extend_from_slice(&block);
    }
    out.0
}

/// Each bucket's bytes, its checksum included.
fn buckets(summary: &Summary) -> Vec<Vec<u8>> {
    // (hash, file) pairs, bucket by bucket, a slice of the buckets at a
    // time so that the pairs of a large tree are never all held at once.
    const PASSES: usize = 16;
    let per_pass = BUCKETS / PASSES;
    let mut blocks = Vec::with_capacity(BUCKETS);
    for pass in 0..PASSES {
        let range = pass * per_pass..(pass + 1) * per_pass;
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for (file, names) in summary.names.iter().enumerate() {
            let file = u32::try_from(file).unwrap_or(u32::MAX);
            pairs.extend(
                names
                    .iter()
                    .filter(|&&h| range.contains(&bucket_of(h)))
                    .map(|&h| (h, file)),
            );
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut at = 0;
        for bucket in range {
            let end = at + pairs[at..].partition_point(|p| bucket_of(p.0) == bucket);
            blocks.push(bucket_block(&pairs[at..end]));
            at = end;
        }
    }
    blocks
}

fn bucket_block(pairs: &[(u32, u32)]) -> Vec<u8> {
    let mut keys: Vec<(u32, u32, u32)> = Vec::new();
    for (i, &(h, _)) in pairs.iter().enumerate() {
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        match keys.last_mut() {
            Some(k) if k.0 == h => k.2 += 1,
            _ => keys.push((h, i, 1)),
        }
    }
    let mut out = Out(Vec::with_capacity(
        4 + keys.len() * 12 + pairs.len() * 4 + SUM,
    ));
    out.len(keys.len());
    for (h, start, count) in keys {
        out.u32(h);
        out.u32(start);
        out.u32(count);
    }
    for &(_, file) in pairs {
        out.u32(file);
    }
    out.sum_from(0);
    out.0
}

/// Fields read front to back, each checked against what is left.
struct In<'b> {
    rest: &'b [u8],
}

impl<'b> In<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8], TreeError> {
        if self.rest.len() < n {
            return Err(TreeError::Malformed("cut short"));
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], TreeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
    fn u8(&mut self) -> Result<u8, TreeError> {
        Ok(self.array::<1>()?[0])
    }
    fn u32(&mut self) -> Result<u32, TreeError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, TreeError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn count(&mut self) -> Result<usize, TreeError> {
        let n = self.u32()? as usize;
        // Nothing counted can be smaller than a byte.
        if n > self.rest.len() {
            return Err(TreeError::Malformed("a count larger than the summary"));
        }
        Ok(n)
    }
    fn short(&mut self) -> Result<&'b [u8], TreeError> {
        let n = usize::from(self.u8()?);
        self.take(n)
    }
    fn text(&mut self) -> Result<String, TreeError> {
        let n = self.count()?;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| TreeError::Malformed("a text not UTF-8"))
    }
    fn u32s(&mut self, n: usize) -> Result<Vec<u32>, TreeError> {
        let b = self.take(n.checked_mul(4).ok_or(TreeError::Malformed("too long"))?)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

/// Reads the head of the summary at `path`, checked against `key`.
pub fn open(path: &Path, key: &TreeKey) -> Result<StoredTree, TreeError> {
    let io = |e| TreeError::Io(path.to_path_buf(), e);
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut front = [0u8; 16];
    file.read_exact(&mut front).map_err(io)?;
    if &front[..8] != MAGIC {
        return Err(TreeError::Malformed("not a tree summary"));
    }
    let head_len = u64::from_le_bytes(front[8..].try_into().unwrap_or_default());
    let total = file.metadata().map_err(io)?.len();
    if head_len > total.saturating_sub(16) || head_len < SUM as u64 {
        return Err(TreeError::Malformed("cut short"));
    }
    let mut head = vec![0u8; usize::try_from(head_len).unwrap_or(usize::MAX)];
    file.read_exact(&mut head).map_err(io)?;
    let (body, sum) = head.split_at(head.len() - SUM);
    if sha1_smol::Sha1::from(body).digest().bytes() != sum {
        return Err(TreeError::Checksum);
    }
    let mut r = In { rest: body };
    let stamp = Stamp::current();
    let layout = u16::from_le_bytes(r.array()?);
    let extractor = r.u32()?;
    let version = r.short()?;
    let tree = r.short()?;
    let (max_files, max_file_bytes) = (r.u64()?, r.u64()?);
    if layout != LAYOUT
        || extractor != stamp.extractor
        || version != stamp.crate_version.as_bytes()
        || tree != key.tree.as_bytes()
        || max_files != key.max_files
        || max_file_bytes != key.max_file_bytes
    {
        return Err(TreeError::Foreign);
    }
    let skipped = r.u64()?;
    let n = r.count()?;
    let mut files = Vec::with_capacity(n);
    for _ in 0..n {
        let path = r.text()?;
        let blob = BlobId::from_bytes(r.array()?);
        let lang = lang_of(r.u8()?)?;
        let size = r.u64()?;
        let has_errors = r.u8()? != 0;
        files.push(TreeFile {
            path,
            blob,
            lang,
            size,
            has_errors,
        });
    }
    let m = r.count()?;
    let mut manifests = Vec::with_capacity(m);
    for _ in 0..m {
        let file = r.u32()?;
        if file as usize >= n {
            return Err(TreeError::Malformed("a manifest names no file"));
        }
        manifests.push((file, r.text()?));
    }
    let offsets = r.u32s(n + 1)?;
    if offsets.first() != Some(&0) || offsets.windows(2).any(|w| w[0] > w[1]) {
        return Err(TreeError::Malformed("import offsets out of order"));
    }
    let imports = r.u32s(offsets.last().copied().unwrap_or(0) as usize)?;
    if imports.iter().any(|&t| t as usize >= n) {
        return Err(TreeError::Malformed("an import names no file"));
    }
    let mut bounds = Vec::with_capacity(BUCKETS + 1);
    for _ in 0..=BUCKETS {
        bounds.push(r.u64()?);
    }
    if !r.rest.is_empty() || bounds.windows(2).any(|w| w[0] > w[1]) {
        return Err(TreeError::Malformed("bucket offsets out of order"));
    }
    let base = 16 + head_len;
    if bounds.last().is_none_or(|&end| base + end != total) {
        return Err(TreeError::Malformed("postings cut short"));
    }
    Ok(StoredTree {
        files,
        manifests,
        skipped,
        offsets,
        imports,
        postings: Postings {
            path: path.to_path_buf(),
            base,
            bounds,
        },
    })
}

/// Where each bucket of postings lies in the summary's file.
#[derive(Debug)]
pub struct Postings {
    path: PathBuf,
    /// Where the first bucket starts.
    base: u64,
    bounds: Vec<u64>,
}

impl Postings {
    /// For each of `hashes` (sorted) that has postings, its files.
    pub fn lookup(&self, hashes: &[u32]) -> Result<Vec<Vec<u32>>, TreeError> {
        let io = |e| TreeError::Io(self.path.clone(), e);
        let mut file = std::fs::File::open(&self.path).map_err(io)?;
        let mut out = Vec::new();
        let mut at = 0;
        while at < hashes.len() {
            let bucket = bucket_of(hashes[at]);
            let end = at + hashes[at..].partition_point(|&h| bucket_of(h) == bucket);
            let (Some(&from), Some(&to)) = (self.bounds.get(bucket), self.bounds.get(bucket + 1))
            else {
                return Err(TreeError::Malformed("no such bucket"));
            };
            let len = usize::try_from(to - from).map_err(|_| TreeError::Malformed("too long"))?;
            if len < 4 + SUM {
                return Err(TreeError::Malformed("a bucket cut short"));
            }
            let mut block = vec![0u8; len];
            file.seek(SeekFrom::Start(self.base + from)).map_err(io)?;
            file.read_exact(&mut block).map_err(io)?;
            let (body, sum) = block.split_at(len - SUM);
            if sha1_smol::Sha1::from(body).digest().bytes() != sum {
                return Err(TreeError::Checksum);
            }
            let mut r = In { rest: body };
            let keys = r.count()?;
            let mut table = Vec::with_capacity(keys);
            for _ in 0..keys {
                table.push((r.u32()?, r.u32()? as usize, r.u32()? as usize));
            }
            let ids = r.u32s(r.rest.len() / 4)?;
            for &h in &hashes[at..end] {
                if let Ok(k) = table.binary_search_by_key(&h, |k| k.0) {
                    let (_, start, count) = table[k];
                    let got = ids
                        .get(start..start.saturating_add(count))
                        .ok_or(TreeError::Malformed("a posting out of range"))?;
                    out.push(got.to_vec());
                }
            }
            at = end;
        }
        Ok(out)
    }
}
