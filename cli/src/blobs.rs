//! Blobs streamed out of one `git cat-file --batch`: the names go in on a
//! thread of their own, so that neither side of the pipe waits on the
//! other, and each blob comes out as it is read.

use crate::error::CliError;
use crate::source::git;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdout, Stdio};

/// One file's blob as read.
#[derive(Debug)]
pub enum Blob {
    Bytes(Vec<u8>),
    /// Larger than the limit: passed over, never held.
    TooLarge(u64),
    /// Not at that revision, or not a blob (a submodule's commit).
    Missing,
}

pub struct Blobs {
    child: Child,
    reader: BufReader<ChildStdout>,
    paths: VecDeque<String>,
    max_bytes: u64,
    writer: Option<std::thread::JoinHandle<()>>,
}

impl Blobs {
    /// The blobs of `paths`, each named to git as `spec(path)` (`REV:path`,
    /// `:path` for the index); blobs over `max_bytes` are passed over.
    pub fn open(
        top: &Path,
        paths: Vec<String>,
        spec: &dyn Fn(&str) -> String,
        max_bytes: u64,
    ) -> Result<Blobs, CliError> {
        let failed = |e: std::io::Error| CliError::Internal(format!("git cat-file: {e}"));
        let mut child = git(top)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(failed)?;
        let mut stdin = child
            .stdin
            .take()
            .ok_or_else(|| CliError::Internal("git cat-file: no stdin".into()))?;
        // A name with a newline cannot be asked for on one line.
        let paths: VecDeque<String> = paths.into_iter().filter(|p| !p.contains('\n')).collect();
        let names: Vec<String> = paths.iter().map(|p| format!("{}\n", spec(p))).collect();
        let writer = std::thread::spawn(move || {
            for name in names {
                if stdin.write_all(name.as_bytes()).is_err() {
                    break;
                }
            }
        });
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| CliError::Internal("git cat-file: no stdout".into()))?;
        Ok(Blobs {
            child,
            reader: BufReader::new(stdout),
            paths,
            max_bytes,
            writer: Some(writer),
        })
    }

    /// The next path and its blob.
    pub fn next_blob(&mut self) -> Option<std::io::Result<(String, Blob)>> {
        let path = self.paths.pop_front()?;
        Some(self.read_one().map(|blob| (path, blob)))
    }

    fn read_one(&mut self) -> std::io::Result<Blob> {
        let mut header = String::new();
        if self.reader.read_line(&mut header)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        // `<oid> blob <size>`, or `<name> missing`.
        let fields: Vec<&str> = header.split_whitespace().collect();
        let size = |s: &str| {
            s.parse::<u64>()
                .map_err(|_| std::io::Error::other(format!("a bad header {header:?}")))
        };
        match fields.as_slice() {
            [_, "blob", n] => {
                let n = size(n)?;
                if n > self.max_bytes {
                    self.pass(n)?;
                    return Ok(Blob::TooLarge(n));
                }
                let mut bytes = vec![0u8; usize::try_from(n).unwrap_or(0)];
                self.reader.read_exact(&mut bytes)?;
                self.pass(0)?;
                Ok(Blob::Bytes(bytes))
            }
            [_, _, n] => {
                let n = size(n)?;
                self.pass(n)?;
                Ok(Blob::Missing)
            }
            _ => Ok(Blob::Missing),
        }
    }

    /// Passes over `size` bytes and the newline after them.
    fn pass(&mut self, size: u64) -> std::io::Result<()> {
        std::io::copy(&mut (&mut self.reader).take(size + 1), &mut std::io::sink()).map(|_| ())
    }
}

impl Iterator for Blobs {
    type Item = (String, Vec<u8>);

    /// The blobs that are there and within the limit; on a read error, it
    /// says so and ends.
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.next_blob()? {
                Ok((path, Blob::Bytes(bytes))) => return Some((path, bytes)),
                Ok(_) => continue,
                Err(e) => {
                    eprintln!("revu: reading files from git: {e}; the rest is left out");
                    self.paths.clear();
                    return None;
                }
            }
        }
    }
}

impl Drop for Blobs {
    fn drop(&mut self) {
        // Stop git if it is still writing, then reap it.
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}
