//! The linters revu knows, what files each reads, how it is run and how
//! its output becomes findings. Only the bug- and security-finding rule
//! families run: formatting and style are what the review contract says
//! not to report.

use super::failure::NotJson;
use super::settings::ToolSpec;
use revu_domain::finding::{Dimension, Severity};
use serde_json::Value;

/// One problem a tool reported, before it is a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Raw {
    /// Path as the tool named it, relative to the scratch directory.
    pub file: String,
    pub line: u32,
    pub end_line: Option<u32>,
    /// The tool's code (`SC2086`, `S602`, `DL3007`).
    pub code: String,
    pub message: String,
    pub severity: Severity,
    pub dimension: Dimension,
    /// Where the tool documents the rule.
    pub url: Option<String>,
    pub fix: Option<String>,
}

/// How a tool's stdout is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Shellcheck,
    Ruff,
    Hadolint,
    Actionlint,
    Yamllint,
    Bandit,
    Sarif,
}

/// A linter: the files it reads and its command line.
#[derive(Debug, Clone)]
pub struct Tool {
    pub name: String,
    pub program: String,
    /// Arguments before the files.
    pub args: Vec<String>,
    pub globs: globset::GlobSet,
    pub format: Format,
    /// Exit codes that mean "ran, maybe with findings".
    pub ok_exits: &'static [i32],
}

fn globs(patterns: &[&str]) -> globset::GlobSet {
    let mut set = globset::GlobSetBuilder::new();
    for p in patterns {
        if let Ok(g) = globset::GlobBuilder::new(p)
            .literal_separator(false)
            .build()
        {
            set.add(g);
        }
    }
    set.build().unwrap_or_else(|_| globset::GlobSet::empty())
}

/// The built-in catalog, in the order lanes list them.
pub fn builtin() -> Vec<Tool> {
    let tool = |name: &str, args: &[&str], patterns: &[&str], format, ok_exits| Tool {
        name: name.to_owned(),
        program: name.to_owned(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        globs: globs(patterns),
        format,
        ok_exits,
    };
    vec![
        // Every level but `style`.
        tool(
            "shellcheck",
            &["--format=json1", "--severity=info", "--external-sources"],
            &["*.sh", "*.bash", "*.ksh", "*.bats"],
            Format::Shellcheck,
            &[0, 1],
        ),
        // flake8-bandit (S) and flake8-bugbear (B), nothing else.
        tool(
            "ruff",
            &[
                "check",
                "--isolated",
                "--no-cache",
                "--select",
                "S,B",
                // `assert` in tests is how tests are written; the rest are
                // audit checks that flag a construct wherever it stands, with
                // no sign of a defect: any subprocess call without a shell
                // (S603, S606) or by a bare name (S607), any import of
                // `pickle` or `subprocess` (S403, S404), any use of `random`
                // (S311).
                "--ignore",
                "S101,S311,S403,S404,S603,S606,S607",
                "--output-format",
                "json",
                "--exit-zero",
            ],
            &["*.py", "*.pyi"],
            Format::Ruff,
            &[0],
        ),
        // bandit's default test set, low-severity findings left out.
        tool(
            "bandit",
            &["--format", "json", "--quiet", "--severity-level", "medium"],
            &["*.py"],
            Format::Bandit,
            &[0, 1],
        ),
        tool(
            "hadolint",
            &[
                "--format",
                "json",
                "--no-fail",
                "--failure-threshold",
                "none",
            ],
            &[
                "Dockerfile",
                "*.Dockerfile",
                "Dockerfile.*",
                "*.dockerfile",
                "Containerfile",
            ],
            Format::Hadolint,
            &[0, 1],
        ),
        tool(
            "actionlint",
            &["-format", "{{json .}}", "-no-color"],
            &[".github/workflows/*.yml", ".github/workflows/*.yaml"],
            Format::Actionlint,
            &[0, 1],
        ),
        // Syntax errors and duplicate keys: what breaks a YAML file, not
        // how it is laid out.
        tool(
            "yamllint",
            &[
                "--format",
                "parsable",
                "--no-warnings",
                "--config-data",
                "{rules: {key-duplicates: enable}}",
            ],
            &["*.yml", "*.yaml"],
            Format::Yamllint,
            &[0, 1],
        ),
    ]
}

/// A tool added by `--lint-tool`.
pub fn configured(spec: &ToolSpec) -> Tool {
    let mut words = spec.command.split_whitespace().map(str::to_owned);
    let program = words.next().unwrap_or_default();
    let patterns: Vec<&str> = spec.globs.iter().map(String::as_str).collect();
    Tool {
        name: spec.name.clone(),
        program,
        args: words.collect(),
        globs: globs(&patterns),
        format: Format::Sarif,
        ok_exits: &[0, 1],
    }
}

impl Tool {
    /// Whether the tool reads `path` (matched whole, and by file name).
    pub fn reads(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        self.globs.is_match(path) || self.globs.is_match(name)
    }

    /// The problems in the tool's `stdout`, or why it cannot be read.
    pub fn parse(&self, stdout: &[u8]) -> Result<Vec<Raw>, NotJson> {
        if self.format == Format::Yamllint {
            return Ok(yamllint(&String::from_utf8_lossy(stdout)));
        }
        let text = String::from_utf8_lossy(stdout);
        if text.trim().is_empty() {
            return Ok(Vec::new());
        }
        let json: Value = serde_json::from_str(&text).map_err(NotJson)?;
        Ok(match self.format {
            Format::Shellcheck => shellcheck(&json),
            Format::Ruff => ruff(&json),
            Format::Hadolint => hadolint(&json),
            Format::Actionlint => actionlint(&json),
            Format::Bandit => bandit(&json),
            Format::Sarif => sarif(&json),
            Format::Yamllint => Vec::new(),
        })
    }
}

fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn number(v: &Value, key: &str) -> u32 {
    v.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0)
}

fn items<'a>(v: &'a Value, key: Option<&str>) -> impl Iterator<Item = &'a Value> {
    key.map_or(Some(v), |k| v.get(k))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// `--format=json1`: `{"comments": [{file, line, endLine, level, code, message}]}`.
fn shellcheck(json: &Value) -> Vec<Raw> {
    items(json, Some("comments"))
        .map(|c| {
            let code = format!("SC{}", number(c, "code"));
            Raw {
                file: text(c, "file"),
                line: number(c, "line"),
                end_line: Some(number(c, "endLine")).filter(|e| *e > number(c, "line")),
                url: Some(format!("https://www.shellcheck.net/wiki/{code}")),
                code,
                message: text(c, "message"),
                severity: match text(c, "level").as_str() {
                    "error" => Severity::Important,
                    _ => Severity::Suggestion,
                },
                dimension: Dimension::Correctness,
                fix: None,
            }
        })
        .collect()
}

/// `--format json`: `{"results": [{filename, line_number, line_range,
/// test_id, issue_severity, issue_text, more_info}]}`. Every one is an
/// IMPORTANT security finding, HIGH or MEDIUM alike: a BLOCKER must survive
/// a check that could disprove it (is the input reachable from outside?),
/// which a pattern match cannot make, so a linter never blocks alone.
fn bandit(json: &Value) -> Vec<Raw> {
    items(json, Some("results"))
        .map(|r| {
            let line = number(r, "line_number");
            let last = items(r, Some("line_range"))
                .filter_map(Value::as_u64)
                .filter_map(|n| u32::try_from(n).ok())
                .max();
            Raw {
                file: text(r, "filename"),
                line,
                end_line: last.filter(|l| *l > line),
                code: text(r, "test_id"),
                message: text(r, "issue_text"),
                severity: Severity::Important,
                dimension: Dimension::Security,
                url: r
                    .get("more_info")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                fix: None,
            }
        })
        .collect()
}

/// `--output-format json`: `[{code, message, filename, location: {row}, url}]`.
fn ruff(json: &Value) -> Vec<Raw> {
    items(json, None)
        .map(|d| {
            let code = text(d, "code");
            let security = code.starts_with('S');
            Raw {
                file: text(d, "filename"),
                line: d.get("location").map_or(0, |l| number(l, "row")),
                end_line: d
                    .get("end_location")
                    .map(|l| number(l, "row"))
                    .filter(|e| *e > d.get("location").map_or(0, |l| number(l, "row"))),
                url: d.get("url").and_then(Value::as_str).map(str::to_owned),
                message: text(d, "message"),
                severity: if security {
                    Severity::Important
                } else {
                    Severity::Suggestion
                },
                dimension: if security {
                    Dimension::Security
                } else {
                    Dimension::Correctness
                },
                fix: d
                    .get("fix")
                    .and_then(|f| f.get("message"))
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                code,
            }
        })
        .collect()
}

/// `--format json`: `[{file, line, code, level, message}]`, style left out.
fn hadolint(json: &Value) -> Vec<Raw> {
    items(json, None)
        .filter(|d| text(d, "level") != "style")
        .map(|d| {
            let code = text(d, "code");
            Raw {
                file: text(d, "file"),
                line: number(d, "line"),
                end_line: None,
                url: code
                    .starts_with("DL")
                    .then(|| format!("https://github.com/hadolint/hadolint/wiki/{code}")),
                code,
                message: text(d, "message"),
                severity: match text(d, "level").as_str() {
                    "error" => Severity::Important,
                    _ => Severity::Suggestion,
                },
                dimension: Dimension::Operability,
                fix: None,
            }
        })
        .collect()
}

/// `-format '{{json .}}'`: `[{message, filepath, line, kind}]`.
fn actionlint(json: &Value) -> Vec<Raw> {
    items(json, None)
        .map(|d| Raw {
            file: text(d, "filepath"),
            line: number(d, "line"),
            end_line: None,
            code: text(d, "kind"),
            message: text(d, "message"),
            severity: Severity::Important,
            dimension: Dimension::Operability,
            url: Some("https://github.com/rhysd/actionlint/blob/main/docs/checks.md".to_owned()),
            fix: None,
        })
        .collect()
}

/// `--format parsable`: `file:line:column: [level] message (rule)`.
fn yamllint(out: &str) -> Vec<Raw> {
    out.lines()
        .filter_map(|l| {
            let mut parts = l.splitn(4, ':');
            let (file, line, _col, rest) =
                (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
            let rest = rest.trim();
            let (level, message) = rest.strip_prefix('[')?.split_once(']')?;
            let message = message.trim();
            let (message, rule) = match message.rsplit_once(" (") {
                Some((m, r)) if r.ends_with(')') => (m, r.trim_end_matches(')')),
                _ => (message, "syntax"),
            };
            Some(Raw {
                file: file.to_owned(),
                line: line.parse().ok()?,
                end_line: None,
                code: rule.to_owned(),
                message: message.to_owned(),
                severity: if level == "error" {
                    Severity::Important
                } else {
                    Severity::Suggestion
                },
                dimension: Dimension::Correctness,
                url: Some(format!(
                    "https://yamllint.readthedocs.io/en/stable/rules.html#module-yamllint.rules.{}",
                    rule.replace('-', "_")
                )),
                fix: None,
            })
        })
        .collect()
}

/// SARIF 2.1.0: each result's `ruleId`, `level`, message and first
/// physical location.
fn sarif(json: &Value) -> Vec<Raw> {
    items(json, Some("runs"))
        .flat_map(|run| items(run, Some("results")))
        .filter_map(|r| {
            let location = r
                .get("locations")?
                .as_array()?
                .first()?
                .get("physicalLocation")?;
            let file = location.get("artifactLocation")?.get("uri")?.as_str()?;
            let region = location.get("region");
            let line = region.map_or(0, |g| number(g, "startLine"));
            Some(Raw {
                file: file.trim_start_matches("file://").to_owned(),
                line,
                end_line: region.map(|g| number(g, "endLine")).filter(|e| *e > line),
                code: text(r, "ruleId"),
                message: r
                    .get("message")
                    .map(|m| text(m, "text"))
                    .unwrap_or_default(),
                severity: match text(r, "level").as_str() {
                    "error" => Severity::Important,
                    _ => Severity::Suggestion,
                },
                dimension: Dimension::Correctness,
                url: None,
                fix: None,
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
