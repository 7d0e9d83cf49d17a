//! The rules engine's identity for the lane result cache: a digest of what
//! the rules are. It covers every rule's catalogue entry and what it reads,
//! in order, and the source of the rules (their patterns, their logic and
//! the helpers they share), digested when the program is built
//! (`worker/build.rs`). A changed rule is another engine, whose lanes
//! never reuse a report of the one before it.

use super::{Example, Rule, RuleMeta};
use sha2::{Digest, Sha256};

/// The SHA-256 of the rules' source, from the build.
const SOURCE: &str = env!("RULES_SOURCE_SHA256");

/// The SHA-256 (hex) of what decides the findings of `rules`.
pub(crate) fn digest(rules: &[Box<dyn Rule>]) -> String {
    let mut h = Sha256::new();
    // Each part with its length first, so that no two lists of parts
    // digest alike.
    let mut part = |bytes: &[u8]| {
        h.update(u64::try_from(bytes.len()).unwrap_or(u64::MAX).to_le_bytes());
        h.update(bytes);
    };
    part(b"revu-rules-v1");
    part(SOURCE.as_bytes());
    for rule in rules {
        // Taken apart field by field: a field added to the entry does not
        // build until it is digested too.
        let RuleMeta {
            code,
            name,
            dimension,
            severity,
            confidence,
            languages,
            catches,
            why,
            example:
                Example {
                    path,
                    code: lines,
                    context,
                },
            instead,
        } = *rule.meta();
        for text in [code, name, dimension.as_str(), severity.as_str()] {
            part(text.as_bytes());
        }
        part(&[confidence]);
        part(&languages.len().to_le_bytes());
        for language in languages {
            part(language.as_bytes());
        }
        for text in [catches, why, path, lines, context, instead] {
            part(text.as_bytes());
        }
        part(rule.reads().as_str().as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::super::all_rules;
    use super::super::testing::altered;
    use super::*;
    use revu_domain::finding::Severity;

    #[test]
    fn the_digest_is_the_same_for_the_same_rules() {
        assert_eq!(digest(&all_rules()), digest(&all_rules()));
        assert_eq!(digest(&all_rules()), digest(&altered(3, |m| m)));
        assert_eq!(digest(&all_rules()).len(), 64);
    }

    #[test]
    fn any_change_to_one_rules_entry_changes_the_digest() {
        let before = digest(&all_rules());
        type Change = fn(RuleMeta) -> RuleMeta;
        let changes: [(&str, Change); 6] = [
            ("why", |m| RuleMeta {
                why: "reworded",
                ..m
            }),
            ("severity", |m| RuleMeta {
                severity: Severity::Suggestion,
                ..m
            }),
            ("confidence", |m| RuleMeta {
                confidence: m.confidence - 1,
                ..m
            }),
            ("languages", |m| RuleMeta {
                languages: &["Rust", "Go"],
                ..m
            }),
            ("example", |m| RuleMeta {
                example: Example {
                    code: "another line",
                    ..m.example
                },
                ..m
            }),
            ("instead", |m| RuleMeta {
                instead: "something else",
                ..m
            }),
        ];
        for (field, change) in changes {
            assert_ne!(digest(&altered(7, change)), before, "{field}");
        }
    }

    #[test]
    fn the_order_of_the_rules_is_part_of_it() {
        let mut rules = all_rules();
        rules.swap(0, 1);
        assert_ne!(digest(&rules), digest(&all_rules()));
    }

    #[test]
    fn the_source_of_the_rules_is_a_sha256() {
        assert_eq!(SOURCE.len(), 64);
        assert!(SOURCE.chars().all(|c| c.is_ascii_hexdigit()));
    }
}
