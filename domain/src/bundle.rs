//! The review bundle: everything a lane needs besides its job.

use crate::code_index::CodeIndex;
use crate::diff::{Diff, DiffError};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// Stored once per review; lane jobs carry only a reference to it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewBundle {
    /// The diff exactly as submitted. Stored beside the JSON part as raw
    /// bytes, since a diff need not be UTF-8.
    #[serde(skip)]
    pub diff: Patch,
    /// Head-side contents of changed files, byte-exact, when the client
    /// sent them. Stored beside the JSON part, once per distinct content,
    /// under its digest ([`ReviewBundle::head_digests`]).
    #[serde(skip)]
    pub head_files: BTreeMap<String, Vec<u8>>,
    /// Path → SHA-256 of its head contents, in the stored JSON part.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub heads: BTreeMap<String, String>,
    /// Head files as text inside the JSON part, as bundles stored before
    /// the contents moved out by digest carry them; read, never written.
    #[serde(default, rename = "head_files", skip_serializing)]
    pub legacy_head_files: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub intent: String,
    /// Where the intent came from, in the order its parts are joined.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intent_sources: Vec<crate::intent::IntentSource>,
    /// The repo's `REVIEW.md`, when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conventions: Option<String>,
    /// The repo's `revu.toml`, when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo_config: Option<String>,
    /// `REVIEW.md` files below the root, by their directory (`pkg/api`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub nested_conventions: BTreeMap<String, String>,
    /// The repo's `CODEOWNERS`, when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codeowners: Option<OwnersFile>,
    /// The client's code index of the change, when it built one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_index: Option<CodeIndex>,
    /// [`ReviewBundle::diff`] parsed, once per process: never stored.
    #[serde(skip)]
    pub parsed: ParsedDiff,
}

/// A head file a bundle names whose contents storage did not return.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("head file {path} (sha256 {digest}) is not stored")]
pub struct MissingHead {
    pub path: String,
    pub digest: String,
}

/// A `CODEOWNERS` file and where it was found (`.github/CODEOWNERS`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnersFile {
    pub path: String,
    pub text: String,
}

/// The smallest diff whose work (checking that it is text, parsing it
/// beside its planning in the embedded mode, freeing its review) is worth
/// a thread of its own, off the async runtime: below it, the work takes
/// less than starting a thread.
pub const APART_MIN_BYTES: usize = 256 * 1024;

/// A diff's bytes, held as text when they are UTF-8 (almost always) so
/// that its parsed lines can be views of it rather than copies. Cloning
/// shares it.
#[derive(Clone)]
pub struct Patch(PatchBytes);

#[derive(Clone)]
enum PatchBytes {
    Text(Arc<String>),
    Bytes(Arc<Vec<u8>>),
}

impl Patch {
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            PatchBytes::Text(text) => text.as_bytes(),
            PatchBytes::Bytes(bytes) => bytes,
        }
    }

    /// Parses it: lines of a diff that is text are views of it.
    pub fn parse(&self) -> Result<Diff, DiffError> {
        match &self.0 {
            PatchBytes::Text(text) => crate::diff::parse_text(text),
            PatchBytes::Bytes(bytes) => crate::diff::parse(bytes),
        }
    }
}

/// Two patches are equal when their bytes are.
impl PartialEq for Patch {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Patch {}

impl Default for Patch {
    fn default() -> Self {
        Patch(PatchBytes::Bytes(Arc::default()))
    }
}

impl From<Vec<u8>> for Patch {
    fn from(bytes: Vec<u8>) -> Self {
        match String::from_utf8(bytes) {
            Ok(text) => Patch(PatchBytes::Text(Arc::new(text))),
            Err(e) => Patch(PatchBytes::Bytes(Arc::new(e.into_bytes()))),
        }
    }
}

impl std::ops::Deref for Patch {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl std::fmt::Debug for Patch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Patch({} bytes)", self.len())
    }
}

/// A bundle's diff, parsed by whoever reads it first and shared by every
/// reader of the same bundle (in one process, the lanes and the verdict of
/// a review hold one parsed copy). A cache: it takes no part in equality.
#[derive(Debug, Clone, Default)]
pub struct ParsedDiff(OnceLock<Result<Arc<Diff>, DiffError>>);

impl PartialEq for ParsedDiff {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for ParsedDiff {}

/// The SHA-256 of `bytes`, in hex: a head file's name in storage.
pub fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl ReviewBundle {
    /// The diff parsed: the first call parses it, later ones share that.
    pub fn parsed_diff(&self) -> Result<Arc<Diff>, DiffError> {
        self.parsed
            .0
            .get_or_init(|| self.diff.parse().map(Arc::new))
            .clone()
    }

    /// The head file at `path` as text (invalid UTF-8 shown as U+FFFD).
    pub fn head_text(&self, path: &str) -> Option<Cow<'_, str>> {
        self.head_files
            .get(path)
            .map(|bytes| String::from_utf8_lossy(bytes))
    }

    /// Path → digest of each head file, and each distinct content once by
    /// digest: what storage keeps beside the JSON part.
    pub fn head_digests(&self) -> (BTreeMap<String, String>, BTreeMap<String, &[u8]>) {
        let heads: BTreeMap<String, String> = self
            .head_files
            .iter()
            .map(|(path, bytes)| (path.clone(), digest(bytes)))
            .collect();
        let mut blobs = BTreeMap::new();
        for (path, d) in &heads {
            if let Some(bytes) = self.head_files.get(path) {
                blobs.insert(d.clone(), bytes.as_slice());
            }
        }
        (heads, blobs)
    }

    /// After loading the JSON part: the digests each path needs, and the
    /// legacy text moved into [`ReviewBundle::head_files`].
    pub fn wanted_heads(&mut self) -> Vec<String> {
        for (path, text) in std::mem::take(&mut self.legacy_head_files) {
            self.head_files.insert(path, text.into_bytes());
        }
        let mut wanted: Vec<String> = self.heads.values().cloned().collect();
        wanted.sort();
        wanted.dedup();
        wanted
    }

    /// Puts loaded contents back under their paths; a digest storage did
    /// not return is named in the error.
    pub fn put_heads(&mut self, blobs: &BTreeMap<String, Vec<u8>>) -> Result<(), MissingHead> {
        for (path, d) in &self.heads {
            let bytes = blobs.get(d).ok_or_else(|| MissingHead {
                path: path.clone(),
                digest: d.clone(),
            })?;
            self.head_files.insert(path.clone(), bytes.clone());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_keeps_its_bytes_and_parses_as_text_or_not() {
        let text = b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\xc3\xa9\n".to_vec();
        let mut latin1 = text.clone();
        latin1.truncate(latin1.len() - 3);
        latin1.extend_from_slice(b"\xe9\n");
        for (bytes, added) in [(&text, "b\u{e9}"), (&latin1, "b\u{fffd}")] {
            let patch = Patch::from(bytes.clone());
            assert_eq!(patch.as_bytes(), bytes.as_slice());
            let diff = patch.parse().unwrap_or_else(|e| panic!("{e}"));
            let lines: Vec<(u32, &str)> = diff.files.iter().flat_map(|f| f.added_lines()).collect();
            assert_eq!(lines, [(1, added)]);
        }
        assert_eq!(Patch::default(), Patch::from(Vec::new()), "equal by bytes");
        assert_ne!(Patch::from(text), Patch::from(latin1));
    }

    #[test]
    fn head_files_are_stored_once_per_content_and_come_back_byte_exact() {
        let latin1 = vec![b'c', b'a', b'f', 0xe9, b'\n'];
        let mut bundle = ReviewBundle::default();
        bundle.head_files.insert("a.txt".into(), latin1.clone());
        bundle.head_files.insert("b.txt".into(), latin1.clone());
        bundle.head_files.insert("c.txt".into(), b"x\n".to_vec());
        let (heads, blobs) = bundle.head_digests();
        let stored: BTreeMap<String, Vec<u8>> =
            blobs.into_iter().map(|(d, b)| (d, b.to_vec())).collect();
        assert_eq!(stored.len(), 2, "two paths, one content");
        let mut json_part = bundle.clone();
        json_part.heads = heads;
        let json = serde_json::to_string(&json_part).unwrap_or_default();
        assert!(!json.contains("head_files"), "{json}");
        let mut loaded: ReviewBundle = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(loaded.wanted_heads().len(), 2);
        assert_eq!(loaded.put_heads(&stored), Ok(()));
        assert_eq!(loaded.head_files, bundle.head_files);
        assert_eq!(loaded.head_text("a.txt").as_deref(), Some("caf\u{fffd}\n"));
        let mut missing = loaded.clone();
        missing.head_files.clear();
        let err = missing.put_heads(&BTreeMap::new());
        assert!(
            err.as_ref()
                .is_err_and(|e| missing.heads.get(&e.path) == Some(&e.digest)),
            "{err:?}"
        );
        assert!(
            err.is_err_and(|e| e.to_string().ends_with(") is not stored")),
            "the path and digest named"
        );
    }

    #[test]
    fn a_bundle_stored_with_text_heads_still_loads_them() {
        let old = r#"{"head_files":{"a.py":"x = 1\n"},"intent":"i"}"#;
        let mut loaded: ReviewBundle = serde_json::from_str(old).unwrap_or_default();
        assert!(loaded.wanted_heads().is_empty());
        assert_eq!(
            loaded.head_files.get("a.py").map(Vec::as_slice),
            Some(&b"x = 1\n"[..])
        );
    }
}
