//! Grouping: changed files into domain slices by surface path patterns.
//!
//! The first domain whose globs match a path takes the file; unmatched files
//! go to `core`. Slices larger than `max_files` split into `name#2`, `name#3`, …
//! A repository's `revu.toml` may put its own domains in front of the
//! defaults (or replace them); see `crate::conventions::repo_config`.
//! Where the client names the repository's packages, each package's files
//! form slices of their own first ([`Grouper::propose_in`]).

mod packages;

use globset::{Candidate, Glob, GlobSet, GlobSetBuilder};
use memchr::memmem;
use std::sync::OnceLock;

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

pub use revu_domain::lane::Slice;

/// A glob that does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("domain {domain}: glob {glob:?}: {source}")]
pub struct GroupingError {
    pub domain: String,
    pub glob: String,
    pub source: globset::Error,
}

/// Compiled domain rules.
#[derive(Debug, Clone)]
pub struct Grouper {
    domains: Vec<Domain>,
    max_files: usize,
}

/// One domain: its globs, checked when the grouper is made and compiled
/// into a set the first time a path could match one of them.
#[derive(Debug, Clone)]
struct Domain {
    name: String,
    globs: Vec<Glob>,
    /// Per glob, a literal every path it matches contains (`None`: the
    /// glob is too rich to tell), with its searcher built once. A path
    /// holding none of them cannot be in the domain, so most reviews never
    /// compile most domains' globs.
    needles: Vec<Option<memmem::Finder<'static>>>,
    set: OnceLock<Option<GlobSet>>,
}

impl Domain {
    fn may_match(&self, path: &str) -> bool {
        self.needles
            .iter()
            .any(|n| n.as_ref().is_none_or(|n| n.find(path.as_bytes()).is_some()))
    }

    fn is_match(&self, path: &Candidate<'_>) -> bool {
        let set = self.set.get_or_init(|| {
            let mut set = GlobSetBuilder::new();
            for glob in &self.globs {
                set.add(glob.clone());
            }
            set.build()
                .inspect_err(|err| {
                    tracing::error!(domain = %self.name, %err, "domain globs do not compile; domain matches nothing");
                })
                .ok()
        });
        set.as_ref().is_some_and(|set| set.is_match_candidate(path))
    }
}

/// The longest literal part of `glob` (its separators trimmed, since
/// `**/` may match nothing), when it has only `*` and `?` wildcards.
fn needle(glob: &str) -> Option<String> {
    if glob.contains(['[', '{', '\\']) {
        return None;
    }
    glob.split(['*', '?'])
        .map(|piece| piece.trim_matches('/'))
        .max_by_key(|piece| piece.len())
        .filter(|piece| !piece.is_empty())
        .map(str::to_owned)
}

impl Grouper {
    pub fn new(rules: &[DomainRule], max_files: usize) -> Result<Self, GroupingError> {
        let mut domains = Vec::with_capacity(rules.len());
        for rule in rules {
            let mut globs = Vec::with_capacity(rule.globs.len());
            for glob in &rule.globs {
                globs.push(Glob::new(glob).map_err(|source| GroupingError {
                    domain: rule.name.clone(),
                    glob: glob.clone(),
                    source,
                })?);
            }
            domains.push(Domain {
                name: rule.name.clone(),
                needles: rule
                    .globs
                    .iter()
                    .map(|g| needle(g).map(|n| memmem::Finder::new(n.as_bytes()).into_owned()))
                    .collect(),
                globs,
                set: OnceLock::new(),
            });
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
        // The path as the glob sets read it, made once for every domain
        // whose literals it holds.
        let mut candidate = None;
        self.domains
            .iter()
            .find(|d| {
                d.may_match(path)
                    && d.is_match(candidate.get_or_insert_with(|| Candidate::new(path)))
            })
            .map_or(FALLBACK_DOMAIN, |d| d.name.as_str())
    }

    /// The deterministic proposal: slices in domain order, files in diff order.
    pub fn propose(&self, files: &[String]) -> Vec<Slice> {
        // A name may appear twice (a repo domain extending a default one):
        // its files form one domain, placed where the name first appears.
        let mut order: Vec<&str> = Vec::with_capacity(self.domains.len() + 1);
        for name in self
            .domains
            .iter()
            .map(|d| d.name.as_str())
            .chain([FALLBACK_DOMAIN])
        {
            if !order.contains(&name) {
                order.push(name);
            }
        }
        // Each file's domain, worked out once.
        let of: Vec<&str> = files.iter().map(|f| self.domain_of(f)).collect();
        let mut slices = Vec::new();
        for domain in order {
            let members: Vec<String> = files
                .iter()
                .zip(&of)
                .filter(|&(_, d)| *d == domain)
                .map(|(f, _)| f.clone())
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

    #[test]
    fn a_glob_needle_is_in_every_path_the_glob_matches() {
        let paths = [
            "tests/a.rs",
            "pkg/tests/b.py",
            "x/test/y",
            "web/__tests__/c.js",
            "go/x_test.go",
            "app/test_views.py",
            "ui/a.test.ts",
            "ui/a.spec.js",
            "spec/m_spec.rb",
            "docs/i.md",
            "doc/x",
            "README.md",
            "a/b.rst",
            "c.adoc",
            ".github/workflows/ci.yml",
            ".gitlab-ci.yml",
            ".circleci/config.yml",
            ".ci/run",
            "deploy/helm/v.yaml",
            "helm/c",
            "k8s/d.yaml",
            "terraform/main.tf",
            "infra/x.tf",
            "svc/Dockerfile",
            "Dockerfile",
            "docker-compose.prod.yml",
            "app/migrations/0001.py",
            "db/migrate/x.rb",
            "alembic/versions/a.py",
            "q.sql",
            "db/seed.rb",
            "src/auth/login.rs",
            "oauth.py",
            "login.html",
            "web/session_store.go",
            "api/permissions/p.py",
            "Cargo.toml",
            "src/lib.rs",
            "a*b/c",
            "",
        ];
        for rule in default_domains() {
            for glob in &rule.globs {
                let matcher = Glob::new(glob).unwrap().compile_matcher();
                for path in paths {
                    if let (true, Some(n)) = (matcher.is_match(path), needle(glob)) {
                        assert!(path.contains(&n), "{glob} matches {path} without {n}");
                    }
                }
            }
        }
        assert_eq!(needle("**/tests/**").as_deref(), Some("tests"));
        assert_eq!(needle("src/{a,b}/**"), None);
        assert_eq!(needle("**"), None);
    }

    #[test]
    fn domains_that_cannot_match_are_never_compiled() {
        let g = grouper(40);
        assert_eq!(g.domain_of("src/lib.rs"), "core");
        let compiled: Vec<&str> = g
            .domains
            .iter()
            .filter(|d| d.set.get().is_some())
            .map(|d| d.name.as_str())
            .collect();
        assert!(compiled.is_empty(), "compiled {compiled:?}");
        assert_eq!(g.domain_of("docs/guide.md"), "docs");
        assert!(g.domains.iter().any(|d| d.set.get().is_some()));
    }
}
