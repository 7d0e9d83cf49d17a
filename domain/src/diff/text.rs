//! A hunk line's text as a view into a buffer the whole diff shares: the
//! patch itself when it is UTF-8, so a parsed diff holds no copy of the
//! lines it reads.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A line's content: `len` bytes from `start` of a shared buffer. Cloning
/// it shares the buffer.
#[derive(Clone, Default)]
pub struct LineText {
    buf: Arc<String>,
    start: u32,
    len: u32,
}

impl LineText {
    /// The text at `start..start + len` of `buf`; `None` when that is not
    /// a whole-character range of it or does not fit the offsets' width.
    pub(crate) fn view(buf: &Arc<String>, start: usize, len: usize) -> Option<LineText> {
        let end = start.checked_add(len)?;
        buf.get(start..end)?;
        Some(LineText {
            buf: Arc::clone(buf),
            start: u32::try_from(start).ok()?,
            len: u32::try_from(len).ok()?,
        })
    }

    /// A text to be found at `start..start + len` of a chunk still being
    /// filled: `placeholder` until [`LineText::seal`]ed into the chunk.
    pub(crate) fn unsealed(placeholder: &Arc<String>, start: usize, len: usize) -> LineText {
        LineText {
            buf: Arc::clone(placeholder),
            start: u32::try_from(start).unwrap_or(u32::MAX),
            len: u32::try_from(len).unwrap_or(0),
        }
    }

    /// A text made by [`LineText::unsealed`] with `placeholder` becomes the
    /// same range of `buf`; any other stays as it is.
    pub(crate) fn seal(&mut self, placeholder: &Arc<String>, buf: &Arc<String>) {
        if Arc::ptr_eq(&self.buf, placeholder) {
            *self = LineText::view(buf, self.start as usize, self.len as usize).unwrap_or_default();
        }
    }

    pub fn as_str(&self) -> &str {
        let start = self.start as usize;
        self.buf
            .get(start..start + self.len as usize)
            .unwrap_or_default()
    }
}

impl Deref for LineText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for LineText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for LineText {
    fn from(text: &str) -> Self {
        LineText::from(text.to_owned())
    }
}

impl From<String> for LineText {
    /// A text of its own (tests and synthesized lines; a parsed diff
    /// shares one buffer). Text past 4 GiB is cut at a character boundary.
    fn from(text: String) -> Self {
        let mut len = text.len().min(u32::MAX as usize);
        while !text.is_char_boundary(len) {
            len -= 1;
        }
        LineText {
            buf: Arc::new(text),
            start: 0,
            len: u32::try_from(len).unwrap_or(u32::MAX),
        }
    }
}

impl fmt::Debug for LineText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for LineText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for LineText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for LineText {}

impl std::hash::Hash for LineText {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for LineText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for LineText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for LineText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_reads_its_range_and_compares_by_content() {
        let buf = Arc::new("+fn a() {}\n+é\n".to_owned());
        let a = LineText::view(&buf, 1, 9).unwrap_or_default();
        assert_eq!(a, "fn a() {}");
        assert_eq!(a, LineText::from("fn a() {}"));
        assert_eq!(a.len(), 9);
        assert_eq!(format!("{a}|{a:?}"), "fn a() {}|\"fn a() {}\"");
        // Not a character boundary, past the end: no view.
        assert!(LineText::view(&buf, 13, 1).is_none());
        assert!(LineText::view(&buf, 14, 9).is_none());
        assert_eq!(LineText::view(&buf, 12, 2).unwrap_or_default(), "é");
    }
}
