//! Grouping: changed files into domain slices by surface path patterns.
//!
//! The first domain whose globs match a path takes the file; unmatched files
//! go to `core`. Slices larger than `max_files` split into `name#2`, `name#3`, …
//! A repository's `revu.toml` may put its own domains in front of the
//! defaults (or replace them); see `crate::conventions::repo_config`.

use globset::{Glob, GlobSet, GlobSetBuilder};

/// A named set of path globs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainRule {
    pub name: String,
    pub globs: Vec<String>,
}

/// The default domains, in matching order.
pub fn default_domains() -> Vec<DomainRule> {
    let d = |name: &str, globs: &[&str]| DomainRule {
        name: name.to_owned(),
        globs: globs.iter().map(|g| (*g).to_owned()).collect(),
    };
    vec![
        d(
            "tests",
            &[
                "tests/**",
                "**/tests/**",
                "**/test/**",
                "**/__tests__/**",
                "**/*_test.*",
                "**/test_*.py",
                "**/*.test.*",
                "**/*.spec.*",
                "**/*_spec.rb",
            ],
        ),
        d(
            "docs",
            &["docs/**", "doc/**", "**/*.md", "**/*.rst", "**/*.adoc"],
        ),
        d(
            "infra",
            &[
                ".github/**",
                ".gitlab-ci.yml",
                ".circleci/**",
                ".ci/**",
                "deploy/**",
                "helm/**",
                "k8s/**",
                "terraform/**",
                "**/*.tf",
                "**/Dockerfile",
                "**/docker-compose*.yml",
            ],
        ),
        d(
            "data",
            &[
                "**/migrations/**",
                "**/migrate/**",
                "**/alembic/**",
                "**/*.sql",
                "db/**",
            ],
        ),
        d(
            "auth",
            &[
                "**/auth/**",
                "**/*auth*",
                "**/login*",
                "**/session*",
                "**/permissions/**",
            ],
        ),
        d(
            "api",
            &[
                "api/**",
                "**/api/**",
                "proto/**",
                "**/*.proto",
                "**/openapi*",
                "**/*.graphql",
            ],
        ),
        d(
            "build",
            &[
                "**/Cargo.toml",
                "Cargo.lock",
                "**/package.json",
                "**/package-lock.json",
                "**/yarn.lock",
                "**/go.mod",
                "**/go.sum",
                "**/requirements*.txt",
                "**/pyproject.toml",
                "**/Makefile",
                "**/build.rs",
                "**/pom.xml",
                "**/*.gradle",
            ],
        ),
        d(
            "frontend",
            &[
                "**/*.tsx",
                "**/*.jsx",
                "**/*.css",
                "**/*.scss",
                "**/*.vue",
                "**/*.svelte",
                "web/**",
                "frontend/**",
                "ui/**",
            ],
        ),
    ]
}

/// Name of the domain that takes files no rule matches.
pub const FALLBACK_DOMAIN: &str = "core";

pub use revu_common::lane::Slice;

/// A glob that does not compile.
#[derive(Debug, thiserror::Error)]
#[error("domain {domain}: glob {glob:?}: {source}")]
pub struct GroupingError {
    pub domain: String,
    pub glob: String,
    pub source: globset::Error,
}

/// Compiled domain rules.
#[derive(Debug, Clone)]
pub struct Grouper {
    domains: Vec<(String, GlobSet)>,
    max_files: usize,
}

impl Grouper {
    pub fn new(rules: &[DomainRule], max_files: usize) -> Result<Self, GroupingError> {
        let mut domains = Vec::with_capacity(rules.len());
        for rule in rules {
            let mut set = GlobSetBuilder::new();
            for glob in &rule.globs {
                let compiled = Glob::new(glob).map_err(|source| GroupingError {
                    domain: rule.name.clone(),
                    glob: glob.clone(),
                    source,
                })?;
                set.add(compiled);
            }
            let set = set.build().map_err(|source| GroupingError {
                domain: rule.name.clone(),
                glob: String::new(),
                source,
            })?;
            domains.push((rule.name.clone(), set));
        }
        Ok(Grouper {
            domains,
            max_files: max_files.max(1),
        })
    }

    /// Files per slice before a slice splits.
    pub fn max_files(&self) -> usize {
        self.max_files
    }

    /// The same domains with another slice size.
    pub fn with_max_files(mut self, max_files: usize) -> Self {
        self.max_files = max_files.max(1);
        self
    }

    /// The domain a path belongs to.
    pub fn domain_of(&self, path: &str) -> &str {
        self.domains
            .iter()
            .find(|(_, set)| set.is_match(path))
            .map(|(name, _)| name.as_str())
            .unwrap_or(FALLBACK_DOMAIN)
    }

    /// The deterministic proposal: slices in domain order, files in diff order.
    pub fn propose(&self, files: &[String]) -> Vec<Slice> {
        // A name may appear twice (a repo domain extending a default one):
        // its files form one domain, placed where the name first appears.
        let mut order: Vec<&str> = Vec::with_capacity(self.domains.len() + 1);
        for name in self
            .domains
            .iter()
            .map(|(n, _)| n.as_str())
            .chain([FALLBACK_DOMAIN])
        {
            if !order.contains(&name) {
                order.push(name);
            }
        }
        let mut slices = Vec::new();
        for domain in order {
            let members: Vec<String> = files
                .iter()
                .filter(|f| self.domain_of(f) == domain)
                .cloned()
                .collect();
            for (i, chunk) in members.chunks(self.max_files).enumerate() {
                slices.push(Slice {
                    name: if i == 0 {
                        domain.to_owned()
                    } else {
                        format!("{domain}#{}", i + 1)
                    },
                    domain: domain.to_owned(),
                    files: chunk.to_vec(),
                });
            }
        }
        slices
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn grouper(max: usize) -> Grouper {
        Grouper::new(&default_domains(), max).unwrap()
    }

    #[test]
    fn paths_land_in_their_surface_domain() {
        let g = grouper(40);
        assert_eq!(g.domain_of("src/auth/login.rs"), "auth");
        assert_eq!(g.domain_of("db/migrations/001_init.sql"), "data");
        assert_eq!(g.domain_of(".github/workflows/ci.yml"), "infra");
        assert_eq!(g.domain_of("README.md"), "docs");
        assert_eq!(g.domain_of("tests/e2e.rs"), "tests");
        assert_eq!(g.domain_of("Cargo.toml"), "build");
        assert_eq!(g.domain_of("src/lib.rs"), "core");
    }

    #[test]
    fn large_domains_split_into_numbered_slices() {
        let files: Vec<String> = (0..5).map(|i| format!("src/m{i}.rs")).collect();
        let slices = grouper(2).propose(&files);
        let names: Vec<&str> = slices.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["core", "core#2", "core#3"]);
        assert_eq!(slices.iter().map(|s| s.files.len()).sum::<usize>(), 5);
    }
}
