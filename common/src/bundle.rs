//! The review bundle: everything a lane needs besides its job.

use crate::code_index::CodeIndex;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Stored once per review; lane jobs carry only a reference to it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewBundle {
    /// The diff exactly as submitted. Stored beside the JSON part as raw
    /// bytes, since a diff need not be UTF-8.
    #[serde(skip)]
    pub diff: Vec<u8>,
    /// Head-side contents of changed files, when the client sent them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub head_files: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub intent: String,
    /// The repo's `REVIEW.md`, when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conventions: Option<String>,
    /// The repo's `revu.toml`, when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo_config: Option<String>,
    /// The client's code index of the change, when it built one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_index: Option<CodeIndex>,
}
