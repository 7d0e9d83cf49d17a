//! How the linters run: on or off, which lines their findings may cite,
//! how long each may take, and tools added by configuration.

use serde::{Deserialize, Serialize};

/// Linter settings, on the worker and on `revu review` alike.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize)]
pub struct LintSettings {
    /// Run the linters found on PATH (shellcheck, ruff, bandit, hadolint,
    /// actionlint, yamllint and any `--lint-tool`) on each domain lane's
    /// changed files, beside the built-in rules: `on` or `off`.
    #[arg(long, env = "REVU_LINTERS", default_value = "on", value_parser = parse_switch, action = clap::ArgAction::Set)]
    pub linters: bool,

    /// Which of a linter's findings are kept, as reviewdog's filter modes
    /// name them: `added` (on added lines), `diff_context` (on any line the
    /// diff shows), `file` (anywhere in a changed file) or `nofilter`.
    #[arg(long, env = "REVU_LINT_FILTER_MODE", default_value = "added", value_parser = parse_mode)]
    pub lint_filter_mode: FilterMode,

    /// Seconds one linter may run on a lane before it is killed (and the
    /// lane's checks say so).
    #[arg(long, env = "REVU_LINT_TIMEOUT_SECS", default_value_t = crate::config::defaults::LINT_TIMEOUT_SECS)]
    pub lint_timeout_secs: u64,

    /// Another linter, as `NAME:GLOB[,GLOB…]=COMMAND`: run on the changed
    /// files matching a glob (their paths appended to COMMAND), it writes
    /// SARIF 2.1.0 on stdout; its rule ids read `NAME:RULE`. Repeatable
    /// (in the variable, one per line).
    #[arg(long = "lint-tool", env = "REVU_LINT_TOOL", value_delimiter = '\n', value_parser = parse_tool)]
    pub lint_tools: Vec<ToolSpec>,

    /// The environment linters and exec engines run with.
    #[command(flatten)]
    #[serde(flatten)]
    pub env: crate::engines::command_env::CommandEnv,
}

impl Default for LintSettings {
    fn default() -> Self {
        LintSettings {
            linters: true,
            lint_filter_mode: FilterMode::Added,
            lint_timeout_secs: 60,
            lint_tools: Vec::new(),
            env: crate::engines::command_env::CommandEnv::default(),
        }
    }
}

/// reviewdog's filter modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterMode {
    Added,
    DiffContext,
    File,
    Nofilter,
}

impl FilterMode {
    pub fn as_str(self) -> &'static str {
        match self {
            FilterMode::Added => "added",
            FilterMode::DiffContext => "diff_context",
            FilterMode::File => "file",
            FilterMode::Nofilter => "nofilter",
        }
    }
}

/// `--lint-tool NAME:GLOB[,GLOB…]=COMMAND`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ToolSpec {
    pub name: String,
    pub globs: Vec<String>,
    pub command: String,
}

impl TryFrom<String> for ToolSpec {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        parse_tool(&s)
    }
}

impl From<ToolSpec> for String {
    fn from(t: ToolSpec) -> String {
        format!("{}:{}={}", t.name, t.globs.join(","), t.command)
    }
}

fn parse_switch(s: &str) -> Result<bool, String> {
    match s {
        "on" | "true" | "1" => Ok(true),
        "off" | "false" | "0" => Ok(false),
        _ => Err(format!("{s:?} is not on or off")),
    }
}

fn parse_mode(s: &str) -> Result<FilterMode, String> {
    match s {
        "added" => Ok(FilterMode::Added),
        "diff_context" => Ok(FilterMode::DiffContext),
        "file" => Ok(FilterMode::File),
        "nofilter" => Ok(FilterMode::Nofilter),
        _ => Err(format!(
            "{s:?} is not a filter mode (added, diff_context, file, nofilter)"
        )),
    }
}

fn parse_tool(s: &str) -> Result<ToolSpec, String> {
    let shape = || format!("{s:?} is not NAME:GLOB[,GLOB…]=COMMAND");
    let (head, command) = s.split_once('=').ok_or_else(shape)?;
    let (name, globs) = head.split_once(':').ok_or_else(shape)?;
    let named = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if !named {
        return Err(format!(
            "linter name {name:?}: use lowercase letters, digits, - and _"
        ));
    }
    let globs: Vec<String> = globs
        .split(',')
        .map(str::trim)
        .filter(|g| !g.is_empty())
        .map(str::to_owned)
        .collect();
    for g in &globs {
        globset::Glob::new(g).map_err(|e| format!("linter {name}: glob {g:?}: {e}"))?;
    }
    if globs.is_empty() || command.trim().is_empty() {
        return Err(shape());
    }
    Ok(ToolSpec {
        name: name.to_owned(),
        globs,
        command: command.trim().to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_is_named_with_its_globs_and_command() {
        let t = parse_tool("semgrep:*.py,**/*.js=semgrep --sarif --quiet");
        assert_eq!(
            t,
            Ok(ToolSpec {
                name: "semgrep".into(),
                globs: vec!["*.py".into(), "**/*.js".into()],
                command: "semgrep --sarif --quiet".into(),
            })
        );
        assert!(parse_tool("semgrep=semgrep").is_err());
        assert!(parse_tool("Semgrep:*.py=x").is_err());
        assert!(parse_tool("x:[=y").is_err());
        assert_eq!(parse_mode("diff_context"), Ok(FilterMode::DiffContext));
        assert!(parse_mode("context").is_err());
    }
}
