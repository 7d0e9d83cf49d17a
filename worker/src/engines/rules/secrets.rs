//! Secret values: telling real ones from placeholders, and masking them
//! before they reach a finding.

pub(crate) use revu_domain::redact::mask;

/// Whether an assigned literal is a placeholder or a reference rather than
/// a real secret.
pub(crate) fn is_placeholder(value: &str) -> bool {
    const WORDS: &[&str] = &[
        "changeme",
        "change_me",
        "change-me",
        "example",
        "placeholder",
        "your_",
        "your-",
        "xxx",
        "***",
        "...",
        "dummy",
        "fake",
        "sample",
        "redacted",
        "todo",
        "test",
        "replace",
        "environ",
        "process.env",
        "getenv",
        "secret_key_here",
    ];
    let lower = value.to_ascii_lowercase();
    let first = value.chars().next().unwrap_or(' ');
    value.chars().count() < 8
        || value.chars().any(char::is_whitespace)
        || value.chars().all(|c| c == first)
        || matches!(first, '$' | '%' | '/' | '.' | '~')
        || lower.starts_with("http")
        || (value.contains('{') && value.contains('}'))
        || (value.contains('<') && value.contains('>'))
        || value.contains("%(")
        || value.contains("%s")
        || value.contains("(?")
        || value.contains('\\')
        || is_identifier_without_digits(value)
        || value
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        || WORDS.iter().any(|w| lower.contains(w))
}

/// `"_RSAPrivateKey"`, `"challengePassword"`: a type or field name, not a
/// secret (real secrets nearly always contain digits or symbols).
fn is_identifier_without_digits(value: &str) -> bool {
    value
        .chars()
        .all(|c| c.is_ascii_alphabetic() || c == '_' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_four_characters_each_side_of_long_secrets() {
        assert_eq!(mask("AKIAIOSFODNN7EXAMPLE"), "AKIA************MPLE");
        let long = "x".repeat(60);
        assert_eq!(mask(&long).len(), 20);
    }

    #[test]
    fn placeholders_and_references_are_not_secrets() {
        for v in [
            "",
            "changeme",
            "${DB_PASSWORD}",
            "<token>",
            "xxxxxxxxxx",
            "DB_PASSWORD",
            "your_key_here",
            "_RSAPrivateKey",
            r"[^\W\d]\w*",
        ] {
            assert!(is_placeholder(v), "{v}");
        }
        assert!(!is_placeholder("s3cr3t-Pa55word!"));
    }

    #[test]
    fn masks_short_secrets_entirely() {
        assert_eq!(mask("hunter2hunter"), "*************");
        assert_eq!(mask("abc"), "********");
    }
}
