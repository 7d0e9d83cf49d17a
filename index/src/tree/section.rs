//! A section of a summary: records (a key, then a value) in blocks of a
//! fixed count. A section's directory (in the summary's head) gives where
//! each block lies, its SHA-1 and, for a keyed section, its first key; a
//! block is read and checked the first time it is asked for, so that a use
//! of the summary reads what it asks about, not the tree.
//!
//! ```text
//! directory: records u32 | per block u32 | blocks u32 | keyed u8
//!            | start u64 (from the start of the file)
//!            | block ends (blocks) × u64 (from the section's start)
//!            | if keyed: first keys (blocks) × (u32 length, bytes)
//!            | SHA-1s (blocks) × [20]
//! block:     records u32 | record ends × u32 | records' bytes
//! record:    key length u32 | key | value
//! ```

use super::format::{In, Out, SUM, TreeError};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// The summary's file, and the first failure to read it.
#[derive(Debug)]
pub(super) struct Source {
    pub path: PathBuf,
    pub file: std::fs::File,
    pub failed: Mutex<Option<String>>,
}

impl Source {
    pub fn fail(&self, e: &TreeError) {
        if let Ok(mut failed) = self.failed.lock()
            && failed.is_none()
        {
            *failed = Some(e.to_string());
        }
    }
}

/// Where blocks are written as they fill, and how far it is.
pub(super) struct Sink<'w> {
    pub out: &'w mut dyn Write,
    pub at: u64,
}

impl Sink<'_> {
    pub fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)?;
        self.at += bytes.len() as u64;
        Ok(())
    }
}

/// Records written block by block, each block to the sink once full:
/// only the directory is held.
pub(super) struct Writer {
    per_block: usize,
    keyed: bool,
    records: u32,
    start: u64,
    ends: Vec<u64>,
    fences: Vec<Vec<u8>>,
    sums: Vec<[u8; SUM]>,
    /// The block being filled: where each record ends, and the records.
    open: Vec<u32>,
    bytes: Vec<u8>,
}

impl Writer {
    /// A section starting where `sink` is.
    pub fn new(per_block: usize, keyed: bool, sink: &Sink<'_>) -> Writer {
        Writer {
            per_block: per_block.max(1),
            keyed,
            records: 0,
            start: sink.at,
            ends: Vec::new(),
            fences: Vec::new(),
            sums: Vec::new(),
            open: Vec::new(),
            bytes: Vec::new(),
        }
    }

    /// Adds a record: keys must come in increasing byte order.
    pub fn push(&mut self, sink: &mut Sink<'_>, key: &[u8], value: &[u8]) -> std::io::Result<()> {
        if self.open.is_empty() && self.keyed {
            self.fences.push(key.to_vec());
        }
        let len = u32::try_from(key.len()).unwrap_or(u32::MAX);
        self.bytes.extend_from_slice(&len.to_le_bytes());
        self.bytes.extend_from_slice(key);
        self.bytes.extend_from_slice(value);
        self.open
            .push(u32::try_from(self.bytes.len()).unwrap_or(u32::MAX));
        self.records = self.records.saturating_add(1);
        if self.open.len() == self.per_block {
            self.flush(sink)?;
        }
        Ok(())
    }

    fn flush(&mut self, sink: &mut Sink<'_>) -> std::io::Result<()> {
        if self.open.is_empty() {
            return Ok(());
        }
        let mut out = Out(Vec::with_capacity(
            4 + self.open.len() * 4 + self.bytes.len(),
        ));
        out.len(self.open.len());
        for &e in &self.open {
            out.u32(e);
        }
        out.0.extend_from_slice(&self.bytes);
        self.sums
            .push(sha1_smol::Sha1::from(&out.0).digest().bytes());
        sink.write(&out.0)?;
        self.ends.push(sink.at - self.start);
        self.open.clear();
        self.bytes.clear();
        Ok(())
    }

    /// Writes the last block, then the directory to `head`.
    pub fn finish(mut self, sink: &mut Sink<'_>, head: &mut Out) -> std::io::Result<()> {
        self.flush(sink)?;
        head.u32(self.records);
        head.len(self.per_block);
        head.len(self.ends.len());
        head.u8(u8::from(self.keyed));
        head.u64(self.start);
        for &end in &self.ends {
            head.u64(end);
        }
        if self.keyed {
            for f in &self.fences {
                head.len(f.len());
                head.0.extend_from_slice(f);
            }
        }
        for sum in &self.sums {
            head.0.extend_from_slice(sum);
        }
        Ok(())
    }
}

/// One block read back.
#[derive(Debug, Default)]
pub(super) struct Block {
    bytes: Vec<u8>,
    /// Where each record ends in `bytes`.
    ends: Vec<u32>,
}

impl Block {
    fn decode(raw: Vec<u8>) -> Result<Block, TreeError> {
        let mut r = In { rest: &raw };
        let n = r.count()?;
        let ends = r.u32s(n)?;
        let at = raw.len() - r.rest.len();
        let bytes = raw[at..].to_vec();
        let mut from = 0usize;
        for &e in &ends {
            let e = e as usize;
            if e < from + 4 || e > bytes.len() {
                return Err(TreeError::Malformed("a record out of its block"));
            }
            let key = u32::from_le_bytes([
                bytes[from],
                bytes[from + 1],
                bytes[from + 2],
                bytes[from + 3],
            ]) as usize;
            if key > e - from - 4 {
                return Err(TreeError::Malformed("a key longer than its record"));
            }
            from = e;
        }
        if from != bytes.len() {
            return Err(TreeError::Malformed("bytes after a block's records"));
        }
        Ok(Block { bytes, ends })
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Record `j`'s key and value (checked when the block was read).
    pub fn record(&self, j: usize) -> (&[u8], &[u8]) {
        let from = match j {
            0 => 0,
            j => self.ends.get(j - 1).map_or(0, |&e| e as usize),
        };
        let end = self.ends.get(j).map_or(from, |&e| e as usize);
        let rec = self.bytes.get(from..end).unwrap_or_default();
        let Some((len, rest)) = rec.split_first_chunk::<4>() else {
            return (&[], &[]);
        };
        let len = (u32::from_le_bytes(*len) as usize).min(rest.len());
        rest.split_at(len)
    }
}

/// A section read back: its directory, and its blocks as they are read.
#[derive(Debug)]
pub(super) struct Section {
    records: usize,
    per_block: usize,
    start: u64,
    bounds: Vec<u64>,
    fences: Vec<Vec<u8>>,
    sums: Vec<[u8; SUM]>,
    blocks: Vec<OnceLock<Block>>,
}

impl Section {
    /// The directory of a section from the head; `total` is where the
    /// blocks end in the file.
    pub fn read(r: &mut In<'_>, total: u64) -> Result<Section, TreeError> {
        let records = r.u32()? as usize;
        let per_block = r.u32()? as usize;
        let blocks = r.count()?;
        let keyed = r.u8()? != 0;
        let start = r.u64()?;
        let mut bounds = Vec::with_capacity(blocks + 1);
        bounds.push(0);
        for _ in 0..blocks {
            bounds.push(r.u64()?);
        }
        let mut fences = Vec::new();
        if keyed {
            for _ in 0..blocks {
                let n = r.count()?;
                fences.push(r.take(n)?.to_vec());
            }
        }
        let mut sums = Vec::with_capacity(blocks);
        for _ in 0..blocks {
            sums.push(r.array()?);
        }
        let end = bounds.last().copied().unwrap_or(0);
        if bounds.windows(2).any(|w| w[0] > w[1])
            || start.checked_add(end).is_none_or(|e| e > total)
        {
            return Err(TreeError::Malformed("a section out of the summary"));
        }
        if per_block == 0 || records.div_ceil(per_block) != blocks {
            return Err(TreeError::Malformed("a section's count of blocks"));
        }
        if fences.windows(2).any(|w| w[0] >= w[1]) {
            return Err(TreeError::Malformed("a section's keys out of order"));
        }
        Ok(Section {
            records,
            per_block,
            start,
            bounds,
            fences,
            sums,
            blocks: (0..blocks).map(|_| OnceLock::new()).collect(),
        })
    }

    pub fn len(&self) -> usize {
        self.records
    }

    /// Block `b`, read and checked the first time; a block that cannot be
    /// read is empty, and the failure is kept in `src`.
    pub fn block<'s>(&'s self, src: &Source, b: usize) -> Option<&'s Block> {
        let cell = self.blocks.get(b)?;
        Some(cell.get_or_init(|| match self.load(src, b) {
            Ok(block) => block,
            Err(e) => {
                src.fail(&e);
                Block::default()
            }
        }))
    }

    fn load(&self, src: &Source, b: usize) -> Result<Block, TreeError> {
        let (Some(&from), Some(&to), Some(sum)) =
            (self.bounds.get(b), self.bounds.get(b + 1), self.sums.get(b))
        else {
            return Err(TreeError::Malformed("no such block"));
        };
        let len = usize::try_from(to - from).map_err(|_| TreeError::Malformed("too long"))?;
        let mut raw = vec![0u8; len];
        src.file
            .read_exact_at(&mut raw, self.start + from)
            .map_err(|e| TreeError::Io(src.path.clone(), e))?;
        if sha1_smol::Sha1::from(&raw).digest().bytes() != *sum {
            return Err(TreeError::Checksum);
        }
        let block = Block::decode(raw)?;
        let expected = if b + 1 == self.blocks.len() {
            self.records - b * self.per_block
        } else {
            self.per_block
        };
        if block.len() != expected {
            return Err(TreeError::Malformed("a block's count of records"));
        }
        Ok(block)
    }

    /// Record `i`'s key and value, by its place in the section.
    pub fn record<'s>(&'s self, src: &Source, i: usize) -> Option<(&'s [u8], &'s [u8])> {
        let block = self.block(src, i / self.per_block)?;
        let j = i % self.per_block;
        (j < block.len()).then(|| block.record(j))
    }

    /// Record `i`'s value.
    pub fn value<'s>(&'s self, src: &Source, i: usize) -> Option<&'s [u8]> {
        self.record(src, i).map(|r| r.1)
    }

    /// The place and value of the record keyed `key`.
    pub fn find<'s>(&'s self, src: &Source, key: &[u8]) -> Option<(usize, &'s [u8])> {
        let b = self.fences.partition_point(|f| f.as_slice() <= key);
        let b = b.checked_sub(1)?;
        let block = self.block(src, b)?;
        let (mut lo, mut hi) = (0, block.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match block.record(mid).0.cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return Some((b * self.per_block + mid, block.record(mid).1));
                }
            }
        }
        None
    }

    /// Every record, in order: every block is read.
    pub fn each<'s>(&'s self, src: &Source, mut f: impl FnMut(&'s [u8], &'s [u8])) {
        for b in 0..self.blocks.len() {
            if let Some(block) = self.block(src, b) {
                for j in 0..block.len() {
                    let (k, v) = block.record(j);
                    f(k, v);
                }
            }
        }
    }
}

impl Section {
    /// The records whose key starts with `prefix`, in order: only the
    /// blocks that may hold them are read.
    pub fn each_prefixed<'s>(
        &'s self,
        src: &Source,
        prefix: &[u8],
        mut f: impl FnMut(&'s [u8], &'s [u8]),
    ) {
        let first = self
            .fences
            .partition_point(|k| k.as_slice() < prefix)
            .saturating_sub(1);
        for b in first..self.blocks.len() {
            if self
                .fences
                .get(b)
                .is_some_and(|k| k.as_slice() > prefix && !k.starts_with(prefix))
            {
                break;
            }
            let Some(block) = self.block(src, b) else {
                break;
            };
            for j in 0..block.len() {
                let (k, v) = block.record(j);
                if k.starts_with(prefix) {
                    f(k, v);
                }
            }
        }
    }
}

/// A value of little-endian `u32`s.
pub(super) fn u32s(value: &[u8]) -> impl Iterator<Item = u32> + '_ {
    value
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}
