//! The environment an external command (an exec engine, a linter) runs
//! with: an allow-list, never the worker's whole environment, which holds
//! the Redis URL, model API keys and whatever else the process was given.

use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What every command gets, when the worker has it: enough to find
/// programs, write scratch files and read text in the right locale.
pub const BASE: &[&str] = &[
    "PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "LOGNAME",
];

/// Further variables to pass, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args, Serialize, Deserialize)]
pub struct CommandEnv {
    /// A variable exec engines and linters get from the worker's
    /// environment besides PATH, HOME, LANG, LC_ALL, LC_CTYPE, TZ, TMPDIR,
    /// USER and LOGNAME; nothing else is passed. Repeatable (in the
    /// variable, comma-separated).
    #[arg(
        long = "exec-env",
        env = "REVU_EXEC_ENV",
        value_delimiter = ',',
        value_name = "NAME"
    )]
    pub exec_env: Vec<String>,
}

impl CommandEnv {
    /// The names passed, the base ones first.
    pub fn names(&self) -> Arc<[String]> {
        BASE.iter()
            .map(|n| (*n).to_owned())
            .chain(self.exec_env.iter().map(|n| n.trim().to_owned()))
            .filter(|n| !n.is_empty())
            .collect()
    }
}

/// Gives `cmd` only the variables named in `names`, with the worker's
/// values.
pub fn restrict(cmd: &mut tokio::process::Command, names: &[String]) {
    cmd.env_clear();
    for name in names {
        if let Some(value) = std::env::var_os(name) {
            cmd.env(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_command_sees_the_allowed_variables_and_nothing_else() {
        let names = CommandEnv {
            exec_env: vec!["REVU_TEST_PASSED".into()],
        }
        .names();
        let mut cmd = tokio::process::Command::new("env");
        cmd.env("REVU_TEST_PASSED", "yes")
            .env("REVU_TEST_SECRET", "no");
        // The values come from the worker's own environment.
        let mine: Vec<String> = names.iter().cloned().collect();
        restrict(&mut cmd, &mine);
        let out = cmd
            .output()
            .await
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        let seen = out.unwrap_or_default();
        assert!(!seen.contains("REVU_TEST_SECRET"), "{seen}");
        assert!(seen.contains("PATH="), "{seen}");
        for line in seen.lines() {
            let name = line.split('=').next().unwrap_or_default();
            assert!(names.iter().any(|n| n == name), "{name} passed: {seen}");
        }
    }
}
