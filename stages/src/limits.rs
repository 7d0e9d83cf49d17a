//! A review's input limits. A request past one is refused with the limit
//! named, its value, and the flag that raises it, before any of it is
//! stored; nothing accepted before is touched.

/// A request (or a worker's report) past one of the limits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} is {value}, past the limit of {limit}; raise it with {flag}")]
pub struct LimitExceeded {
    /// What was measured, with its unit: `diff bytes`, `changed files`.
    pub what: String,
    pub value: u64,
    pub limit: u64,
    pub flag: &'static str,
}

/// `Err` when `value` is past `limit`.
pub fn within(
    what: impl FnOnce() -> String,
    value: usize,
    limit: usize,
    flag: &'static str,
) -> Result<(), LimitExceeded> {
    if value <= limit {
        return Ok(());
    }
    Err(LimitExceeded {
        what: what(),
        value: u64::try_from(value).unwrap_or(u64::MAX),
        limit: u64::try_from(limit).unwrap_or(u64::MAX),
        flag,
    })
}

#[cfg(test)]
mod tests {
    use super::within;

    #[test]
    fn a_limit_is_inclusive_and_its_error_names_the_flag() {
        assert!(within(|| "diff bytes".into(), 10, 10, "--max-diff-bytes").is_ok());
        let err = within(|| "diff bytes".into(), 11, 10, "--max-diff-bytes")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("diff bytes is 11, past the limit of 10; raise it with --max-diff-bytes")
        );
    }
}
