//! What goes wrong loading a configuration, and settings that cannot work
//! together, each named by its flag or its key in the file.

/// Errors loading a configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(transparent)]
    Args(#[from] clap::Error),
    #[error("reading config file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("config file {path}: {source}")]
    File {
        path: String,
        #[source]
        source: FileError,
    },
}

/// What is wrong with the contents of a config file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// TOML that does not parse, at `line` when the parser says where.
    /// Said in one line: the parser's own text quotes the file over several.
    #[error("{}{}", line.map(|l| format!("line {l}: ")).unwrap_or_default(), error.message().trim())]
    Toml {
        line: Option<usize>,
        error: toml::de::Error,
    },
    #[error("not a table of settings")]
    NotATable,
    /// TOML that parsed but has no JSON form.
    #[error(transparent)]
    Convert(serde_json::Error),
    /// The configuration itself (not the file) does not serialize to a
    /// table: a bug in its type.
    #[error("configuration does not serialize to a table")]
    Shape(#[source] Option<serde_json::Error>),
    /// A key the configuration does not have, with its path and the keys
    /// beside it.
    #[error("unknown setting `{}` (known here: {})", .path.join("."), .known.join(", "))]
    Unknown {
        path: Vec<String>,
        known: Vec<String>,
    },
    /// A value the setting at `path` does not take.
    #[error("`{}`: {source}", .path.join("."))]
    Value {
        path: Vec<String>,
        #[source]
        source: serde_json::Error,
    },
}

/// A setting that cannot work, named by its flag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    /// A count or a time that must be positive.
    #[error("{flag} must be at least 1")]
    Zero { flag: &'static str },
    #[error("{flag} must be between {min} and {max}")]
    Range {
        flag: &'static str,
        min: u64,
        max: u64,
    },
    /// A flag that means something only beside another (`needs` names it,
    /// or them).
    #[error("{flag} needs {needs}")]
    Needs {
        flag: &'static str,
        needs: &'static str,
    },
}

impl SettingError {
    /// `Err` naming `flag` when `value` is zero.
    pub fn positive(flag: &'static str, value: u64) -> Result<(), SettingError> {
        if value == 0 {
            return Err(SettingError::Zero { flag });
        }
        Ok(())
    }
}
