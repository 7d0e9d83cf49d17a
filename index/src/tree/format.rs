//! A summary's bytes. Little-endian throughout.
//!
//! ```text
//! magic "revutree"
//! the sections' blocks, section after section (below)
//! head:  layout u16 | extractor u32 | crate version (u8 length, bytes)
//!        | tree (u8 length, bytes) | max files u64 | max file bytes u64
//!        | skipped u64 | files u32
//!        | languages u8, each: language u8 (1 + its code) | files u64
//!          | with errors u64
//!        | Python top-level modules u32, each: name (u32 length, bytes)
//!          | roots u32, each (u32 length, bytes)
//!        | the directories of the sections, in the order below
//!          (`section` has their layout)
//!        | SHA-1 of the head [20]
//! head length u64
//!
//! The sections (each block written once full, so that writing a summary
//! holds only the directories):
//!   files      key path; value blob [20] | language u8 (0 for a
//!              manifest, else 1 + its code) | size u64 | errors u8
//!   dirs       key a directory; value the code files directly in it, u32s
//!   names      key a file name; value the code files of that name, u32s
//!   imports    per file: the files its imports resolve to, u32s
//!   importers  per file: the files whose imports resolve to it, u32s
//!   postings   key a name's key (u64, big-endian); value per file
//!              naming it: file u32 | mark u8 (its bits as
//!              [`super::Mark`] says, the file's language in the top four)
//!   manifests  key its kind ([`crate::resolve::manifest_kind`]), a zero
//!              byte, its path; value its text
//! ```
//!
//! Every length and index is checked as it is read: a summary that does
//! not decode is an error, never a panic, and never a wrong answer.

use super::section::{Section, Sink, Source, Writer};
use super::{StoredTree, Summary, TreeKey};
use crate::cache::entry::Stamp;
use crate::lang::Lang;
use crate::resolve::dir_of;
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const MAGIC: &[u8; 8] = b"revutree";
/// The layout's version: bumped with any change to it.
const LAYOUT: u16 = 4;
pub(super) const SUM: usize = 20;
/// Postings are built a sixteenth of the hashes at a time, so that the
/// pairs of a large tree are never all held at once.
const PASSES: u64 = 16;

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
    #[error("{0}")]
    Unreadable(String),
}

pub(super) struct Out(pub Vec<u8>);

impl Out {
    pub fn u8(&mut self, n: u8) {
        self.0.push(n);
    }
    fn u16(&mut self, n: u16) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }
    pub fn u32(&mut self, n: u32) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }
    pub fn u64(&mut self, n: u64) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }
    pub fn len(&mut self, n: usize) {
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
}

pub(super) fn lang_code(lang: Option<Lang>) -> u8 {
    lang.and_then(|l| Lang::ALL.iter().position(|&x| x == l))
        .and_then(|i| u8::try_from(i + 1).ok())
        .unwrap_or(0)
}

pub(super) fn lang_of(code: u8) -> Result<Option<Lang>, TreeError> {
    match code {
        0 => Ok(None),
        n => Lang::ALL
            .get(usize::from(n) - 1)
            .copied()
            .map(Some)
            .ok_or(TreeError::Malformed("an unknown language")),
    }
}

fn u32s_of(list: impl Iterator<Item = u32>) -> Vec<u8> {
    list.flat_map(u32::to_le_bytes).collect()
}

/// `summary` as the bytes of `key`'s summary.
pub fn encode(key: &TreeKey, summary: &Summary) -> Vec<u8> {
    let mut out = Vec::new();
    // Writing to memory does not fail.
    let _ = write(key, summary, &mut out);
    out
}

/// Writes `summary` as `key`'s summary to `out`.
pub fn write(key: &TreeKey, summary: &Summary, out: &mut dyn Write) -> std::io::Result<()> {
    let stamp = Stamp::current();
    let mut head = Out(Vec::new());
    head.u16(LAYOUT);
    head.u32(stamp.extractor);
    head.short(&stamp.crate_version);
    head.short(&key.tree);
    head.u64(key.max_files);
    head.u64(key.max_file_bytes);
    head.u64(summary.skipped);
    head.len(summary.files.len());
    let mut languages: BTreeMap<u8, (u64, u64)> = BTreeMap::new();
    for f in summary.files.iter().filter(|f| f.lang.is_some()) {
        let n = languages.entry(lang_code(f.lang)).or_default();
        n.0 += 1;
        n.1 += u64::from(f.has_errors);
    }
    head.u8(u8::try_from(languages.len()).unwrap_or(u8::MAX));
    for (code, (files, errors)) in languages {
        head.u8(code);
        head.u64(files);
        head.u64(errors);
    }
    head.len(summary.python.len());
    for (top, roots) in &summary.python {
        head.text(top);
        head.len(roots.len());
        for r in roots {
            head.text(r);
        }
    }
    let mut sink = Sink { out, at: 0 };
    sink.write(MAGIC)?;
    files(summary, &mut sink, &mut head)?;
    listings(summary, &mut sink, &mut head)?;
    graph(summary, &mut sink, &mut head)?;
    postings(summary, &mut sink, &mut head)?;
    manifests(summary, &mut sink, &mut head)?;
    let sum = sha1_smol::Sha1::from(&head.0).digest().bytes();
    head.0.extend_from_slice(&sum);
    sink.write(&head.0)?;
    sink.write(&(head.0.len() as u64).to_le_bytes())?;
    Ok(())
}

type Written = std::io::Result<()>;

fn files(summary: &Summary, sink: &mut Sink<'_>, head: &mut Out) -> Written {
    let mut w = Writer::new(128, true, sink);
    for f in &summary.files {
        let mut value = Out(Vec::with_capacity(30));
        value.0.extend_from_slice(f.blob.as_bytes());
        value.u8(lang_code(f.lang));
        value.u64(f.size);
        value.u8(u8::from(f.has_errors));
        w.push(sink, f.path.as_bytes(), &value.0)?;
    }
    w.finish(sink, head)
}

/// The code files by directory and by file name.
fn listings(summary: &Summary, sink: &mut Sink<'_>, head: &mut Out) -> Written {
    let mut dirs: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    let mut names: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for (i, f) in summary.files.iter().enumerate() {
        if f.lang.is_none() {
            continue;
        }
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        dirs.entry(dir_of(&f.path)).or_default().push(i);
        let name = f.path.rsplit('/').next().unwrap_or(&f.path);
        names.entry(name).or_default().push(i);
    }
    for map in [dirs, names] {
        let mut w = Writer::new(128, true, sink);
        for (k, ids) in map {
            w.push(sink, k.as_bytes(), &u32s_of(ids.into_iter()))?;
        }
        w.finish(sink, head)?;
    }
    Ok(())
}

/// Each file's imports, then each file's importers.
fn graph(summary: &Summary, sink: &mut Sink<'_>, head: &mut Out) -> Written {
    let n = summary.files.len();
    let mut imports = Writer::new(256, false, sink);
    let mut importers: Vec<Vec<u32>> = vec![Vec::new(); n];
    for i in 0..n {
        let list = summary.imports.get(i).map_or(&[][..], Vec::as_slice);
        imports.push(sink, &[], &u32s_of(list.iter().copied()))?;
        for &t in list {
            if let Some(to) = importers.get_mut(t as usize) {
                to.push(u32::try_from(i).unwrap_or(u32::MAX));
            }
        }
    }
    imports.finish(sink, head)?;
    let mut reverse = Writer::new(256, false, sink);
    for list in importers {
        reverse.push(sink, &[], &u32s_of(list.into_iter()))?;
    }
    reverse.finish(sink, head)
}

fn postings(summary: &Summary, sink: &mut Sink<'_>, head: &mut Out) -> Written {
    let mut w = Writer::new(256, true, sink);
    let span = (u64::MAX >> 4) / PASSES + 1;
    for pass in 0..PASSES {
        let low = pass * span;
        let high = low.saturating_add(span - 1);
        let mut pairs: Vec<(u64, u32, u8)> = Vec::new();
        for (file, marks) in summary.names.iter().enumerate() {
            let lang = summary.files.get(file).map_or(0, |f| lang_code(f.lang));
            let file = u32::try_from(file).unwrap_or(u32::MAX);
            pairs.extend(
                marks
                    .iter()
                    .filter(|&&m| (low..=high).contains(&super::key_of(m)))
                    .map(|&m| (super::key_of(m), file, super::bits_of(m) | (lang << 4))),
            );
        }
        pairs.sort_unstable();
        let mut at = 0;
        while at < pairs.len() {
            let key = pairs[at].0;
            let end = at + pairs[at..].partition_point(|p| p.0 == key);
            let mut value = Vec::with_capacity((end - at) * 5);
            for &(_, file, mark) in &pairs[at..end] {
                value.extend_from_slice(&file.to_le_bytes());
                value.push(mark);
            }
            w.push(sink, &key.to_be_bytes(), &value)?;
            at = end;
        }
    }
    w.finish(sink, head)
}

/// The manifests keyed by their kind and path, so that the manifests of
/// one kind are read together.
fn manifests(summary: &Summary, sink: &mut Sink<'_>, head: &mut Out) -> Written {
    let mut keyed: Vec<(Vec<u8>, &str)> = summary
        .manifests
        .iter()
        .filter_map(|(i, text)| {
            let path = &summary.files.get(*i as usize)?.path;
            let kind = crate::resolve::manifest_kind(path)?;
            Some((manifest_key(kind, path), text.as_str()))
        })
        .collect();
    keyed.sort();
    let mut w = Writer::new(32, true, sink);
    for (key, text) in keyed {
        w.push(sink, &key, text.as_bytes())?;
    }
    w.finish(sink, head)
}

/// A manifest's key: its kind, a zero byte, its path.
pub(super) fn manifest_key(kind: &str, path: &str) -> Vec<u8> {
    let mut key = kind.as_bytes().to_vec();
    key.push(0);
    key.extend_from_slice(path.as_bytes());
    key
}

/// Fields read front to back, each checked against what is left.
pub(super) struct In<'b> {
    pub rest: &'b [u8],
}

impl<'b> In<'b> {
    pub fn take(&mut self, n: usize) -> Result<&'b [u8], TreeError> {
        if self.rest.len() < n {
            return Err(TreeError::Malformed("cut short"));
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(head)
    }
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], TreeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
    pub fn u8(&mut self) -> Result<u8, TreeError> {
        Ok(self.array::<1>()?[0])
    }
    pub fn u32(&mut self) -> Result<u32, TreeError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> Result<u64, TreeError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    pub fn count(&mut self) -> Result<usize, TreeError> {
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
    pub fn u32s(&mut self, n: usize) -> Result<Vec<u32>, TreeError> {
        let b = self.take(n.checked_mul(4).ok_or(TreeError::Malformed("too long"))?)?;
        Ok(super::section::u32s(b).collect())
    }
}

/// Reads the head of the summary at `path`, checked against `key`.
pub fn open(path: &Path, key: &TreeKey) -> Result<StoredTree, TreeError> {
    let io = |e| TreeError::Io(path.to_path_buf(), e);
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut magic = [0u8; 8];
    file.read_exact(&mut magic).map_err(io)?;
    if &magic != MAGIC {
        return Err(TreeError::Malformed("not a tree summary"));
    }
    let total = file.metadata().map_err(io)?.len();
    if total < 16 + SUM as u64 {
        return Err(TreeError::Malformed("cut short"));
    }
    let mut tail = [0u8; 8];
    file.seek(SeekFrom::Start(total - 8)).map_err(io)?;
    file.read_exact(&mut tail).map_err(io)?;
    let head_len = u64::from_le_bytes(tail);
    if head_len > total - 16 || head_len < SUM as u64 {
        return Err(TreeError::Malformed("cut short"));
    }
    // Where the blocks end and the head starts.
    let blocks_end = total - 8 - head_len;
    let mut head = vec![0u8; usize::try_from(head_len).unwrap_or(usize::MAX)];
    file.seek(SeekFrom::Start(blocks_end)).map_err(io)?;
    file.read_exact(&mut head).map_err(io)?;
    let (body, sum) = head.split_at(head.len() - SUM);
    if sha1_smol::Sha1::from(body).digest().bytes() != sum {
        return Err(TreeError::Checksum);
    }
    let mut r = In { rest: body };
    let stamp = Stamp::current();
    let layout = u16::from_le_bytes(r.array()?);
    if layout != LAYOUT {
        return Err(TreeError::Foreign);
    }
    let extractor = r.u32()?;
    let version = r.short()?;
    let tree = r.short()?;
    let (max_files, max_file_bytes) = (r.u64()?, r.u64()?);
    if extractor != stamp.extractor
        || version != stamp.crate_version.as_bytes()
        || tree != key.tree.as_bytes()
        || max_files != key.max_files
        || max_file_bytes != key.max_file_bytes
    {
        return Err(TreeError::Foreign);
    }
    let skipped = r.u64()?;
    let n = r.u32()? as usize;
    let mut languages = Vec::new();
    for _ in 0..r.u8()? {
        let lang = lang_of(r.u8()?)?.ok_or(TreeError::Malformed("a language of no code"))?;
        languages.push((lang, r.u64()?, r.u64()?));
    }
    let tops = r.count()?;
    let mut python = Vec::with_capacity(tops);
    for _ in 0..tops {
        let top = r.text()?;
        let k = r.count()?;
        let roots = (0..k).map(|_| r.text()).collect::<Result<Vec<_>, _>>()?;
        python.push((top, roots));
    }
    let mut section = || Section::read(&mut r, blocks_end);
    let files = section()?;
    let dirs = section()?;
    let names = section()?;
    let imports = section()?;
    let importers = section()?;
    let postings = section()?;
    let manifests = section()?;
    if !r.rest.is_empty() {
        return Err(TreeError::Malformed(
            "bytes after the sections' directories",
        ));
    }
    if files.len() != n || imports.len() != n || importers.len() != n {
        return Err(TreeError::Malformed("sections of another count of files"));
    }
    Ok(StoredTree {
        src: Source {
            path: path.to_path_buf(),
            file,
            failed: Mutex::new(None),
        },
        skipped,
        languages,
        python,
        files,
        dirs,
        names,
        imports,
        importers,
        postings,
        manifests,
    })
}
