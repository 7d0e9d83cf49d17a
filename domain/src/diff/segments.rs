//! Reading a diff in segments, so a very large diff never has to sit in
//! memory whole: each segment ends right before a `diff --git` line, where
//! the reader's state is small (see [`Walker`]), and reading the segments
//! in order gives exactly what reading the whole diff gives.
//!
//! From a stream, one thread reads and cuts segments while the caller's
//! thread parses the previous one, and segment buffers are reused, so the
//! read costs little more than the copy out of the page cache.

use super::error::ReadError;
use super::lines::find_newline;
use super::parse::Walker;
use super::sink::Sink;
use std::io::Read;
use std::sync::mpsc;

const FILE_START: &[u8] = b"diff --git ";
/// Segment buffers in use at most: one being read into, one queued, one
/// being parsed.
const POOL: usize = 3;

/// How a stream is cut into segments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cutting {
    /// Bytes read at a time; a segment is at least this long (or the rest
    /// of the diff).
    pub chunk: usize,
    /// How far back from the end of a fresh chunk a cut is looked for
    /// first: a bound on the search's cost, which the reading thread pays.
    pub window: usize,
}

impl Cutting {
    pub const DEFAULT: Cutting = Cutting {
        chunk: 1 << 20,
        window: 64 << 10,
    };
}

/// The start of the first `diff --git ` line at or after `from` (never 0:
/// a segment is never empty). Only lines whose first 11 bytes are in `buf`
/// are considered.
pub(crate) fn next_file_start(buf: &[u8], from: usize) -> Option<usize> {
    let mut pos = from.max(1);
    // Each turn moves `pos` past one more newline.
    loop {
        let newline = pos - 1 + find_newline(buf.get(pos - 1..)?)?;
        let start = newline + 1;
        if buf.get(start..)?.starts_with(FILE_START) {
            return Some(start);
        }
        pos = start + 1;
    }
}

#[cfg(test)]
/// Reads a whole in-memory diff in segments of at least `min` bytes: what
/// the streaming reader does, without the thread. Tests use it to check
/// that cutting never changes the result.
pub(crate) fn walk_in_segments<S: Sink>(
    input: &[u8],
    min: usize,
    sink: &mut S,
) -> Result<(), super::error::DiffError> {
    let mut walker = Walker::default();
    let mut rest = input;
    // Each turn consumes a non-empty segment.
    while let Some(cut) = next_file_start(rest, min) {
        let (segment, tail) = rest.split_at(cut);
        walker.segment(segment, true, sink)?;
        rest = tail;
    }
    walker.segment(rest, false, sink)?;
    walker.finish()
}

/// One cut segment, or the read error that ended the stream.
type Message = std::io::Result<(Vec<u8>, bool)>;

/// Reads a diff from `reader` in segments, reporting it to `sink`, with
/// the same result as reading it whole. The reading thread is not waited
/// for when the diff turns out to be invalid.
pub(crate) fn walk_reader<R, S>(reader: R, cutting: Cutting, sink: &mut S) -> Result<(), ReadError>
where
    R: Read + Send + 'static,
    S: Sink,
{
    // At most one segment queued: one is parsed while the next is read.
    let (segments, received) = mpsc::sync_channel::<Message>(1);
    let (spare, spares) = mpsc::channel::<Vec<u8>>();
    let reading = std::thread::Builder::new()
        .name("revu-diff-reader".into())
        .spawn(move || cut_segments(reader, cutting, &segments, &spares))
        .map_err(ReadError::Io)?;
    let mut walker = Walker::default();
    // Ends when the reading thread has sent the last segment.
    for message in &received {
        let (segment, more_follows) = message.map_err(ReadError::Io)?;
        walker.segment(&segment, more_follows, sink)?;
        if !more_follows {
            break;
        }
        // The thread may have stopped already; the buffer is then dropped.
        let _ = spare.send(segment);
    }
    drop(received);
    // A reading thread that panicked has sent no last segment, and the
    // loop above would have stopped early: report it rather than half a diff.
    if reading.join().is_err() {
        return Err(ReadError::Io(std::io::Error::other(
            "diff reader thread panicked",
        )));
    }
    walker.finish()?;
    Ok(())
}

/// The reading thread: reads chunks, cuts a segment off whenever a file
/// start shows up near the end of what was read, and sends it on. Stops
/// at the end of the input, on a read error, or when nobody listens.
fn cut_segments<R: Read>(
    mut reader: R,
    cutting: Cutting,
    segments: &mpsc::SyncSender<Message>,
    spares: &mpsc::Receiver<Vec<u8>>,
) {
    let mut buf: Vec<u8> = Vec::new();
    let mut made = 1;
    // Positions before this hold no file start worth cutting at.
    let mut searched = 0;
    // Each turn reads one chunk; the input's end ends the loop.
    loop {
        let chunk = u64::try_from(cutting.chunk).unwrap_or(u64::MAX);
        let read = match reader.by_ref().take(chunk).read_to_end(&mut buf) {
            Ok(n) => n,
            Err(e) => {
                let _ = segments.send(Err(e));
                return;
            }
        };
        if read == 0 {
            let _ = segments.send(Ok((buf, false)));
            return;
        }
        if buf.len() < cutting.chunk {
            continue;
        }
        // Near the end first: small files put a file start there. Once that
        // failed (a file larger than a chunk), everything read since is
        // searched, so a segment never grows much past its largest file.
        let from = if searched > 0 {
            searched
        } else {
            buf.len().saturating_sub(cutting.window)
        };
        let Some(cut) = next_file_start(&buf, from) else {
            // A line start before this had all 11 bytes of a header in view.
            searched = buf.len().saturating_sub(FILE_START.len());
            continue;
        };
        // A bounded pool: fresh buffers cost a page fault per page, while
        // a returned one already has its pages (large single-file patches
        // make segments of tens of megabytes).
        let mut next = match spares.try_recv() {
            Ok(spare) => spare,
            Err(_) if made < POOL => {
                made += 1;
                Vec::new()
            }
            Err(_) => match spares.recv() {
                Ok(spare) => spare,
                Err(_) => return,
            },
        };
        next.clear();
        next.extend_from_slice(buf.get(cut..).unwrap_or_default());
        buf.truncate(cut);
        if segments.send(Ok((buf, true))).is_err() {
            return;
        }
        buf = next;
        searched = 0;
    }
}

#[cfg(test)]
#[path = "segments_tests.rs"]
mod tests;
