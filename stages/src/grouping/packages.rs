//! Slices that follow the repository's packages: the files of each package
//! form its own slices (split past the slice size), named by its
//! directory; the files outside every package are grouped by surface as
//! before.

use super::Grouper;
use crate::cover::MAX_SLICE_NAME;
use revu_domain::lane::Slice;
use revu_domain::packages::{Package, package_of};
use std::collections::{BTreeMap, HashSet};

impl Grouper {
    /// The deterministic proposal for a repository with `packages`: a
    /// package's files in its own slices (packages in directory order,
    /// files in diff order), then the rest by surface ([`Grouper::propose`]).
    pub fn propose_in(&self, files: &[String], packages: &[Package]) -> Vec<Slice> {
        if packages.is_empty() {
            return self.propose(files);
        }
        let mut by_package: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        let mut rest = Vec::new();
        for file in files {
            match package_of(file, packages) {
                Some(p) => by_package
                    .entry(p.dir.as_str())
                    .or_default()
                    .push(file.clone()),
                None => rest.push(file.clone()),
            }
        }
        let surface = self.propose(&rest);
        let mut taken: HashSet<String> = surface.iter().map(|s| s.name.clone()).collect();
        let mut slices = Vec::with_capacity(by_package.len() + surface.len());
        for (dir, members) in by_package {
            let name = unique(slice_name(dir), &mut taken);
            for (i, chunk) in members.chunks(self.max_files()).enumerate() {
                let part = if i == 0 {
                    name.clone()
                } else {
                    unique(format!("{name}#{}", i + 1), &mut taken)
                };
                slices.push(Slice {
                    name: part,
                    domain: name.clone(),
                    files: chunk.to_vec(),
                });
            }
        }
        slices.extend(surface);
        slices
    }
}

/// A package's slice name: its directory, or as many of its last parts as
/// fit a lane id (with room for a `#n` part number and a `pkg:` prefix),
/// with any character a lane id cannot hold as `-` (`@scope` is `-scope`).
fn slice_name(dir: &str) -> String {
    let dir: String = dir
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_./".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    let dir = dir.as_str();
    let room = MAX_SLICE_NAME - 12;
    if dir.len() <= room {
        return dir.to_owned();
    }
    let mut name = String::new();
    for part in dir.rsplit('/') {
        let longer = if name.is_empty() {
            part.len()
        } else {
            part.len() + 1 + name.len()
        };
        if longer > room {
            break;
        }
        name = if name.is_empty() {
            part.to_owned()
        } else {
            format!("{part}/{name}")
        };
    }
    if name.is_empty() {
        // One part longer than a lane id allows: its end.
        let cut = dir.len() - room;
        let start = (cut..dir.len())
            .find(|&i| dir.is_char_boundary(i))
            .unwrap_or(dir.len());
        name = dir[start..].to_owned();
    }
    name
}

/// `name`, else `pkg:name` (a package named like a surface domain), else
/// `pkg:name:2`, `pkg:name:3`...: the first not yet taken, taken now.
fn unique(name: String, taken: &mut HashSet<String>) -> String {
    let mut candidate = name.clone();
    let mut n = 1;
    while taken.contains(&candidate) {
        candidate = if n == 1 {
            format!("pkg:{name}")
        } else {
            format!("pkg:{name}:{n}")
        };
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::grouping::default_domains;

    fn pkg(dir: &str) -> Package {
        Package {
            dir: dir.into(),
            manifest: "Cargo.toml".into(),
        }
    }

    fn names(slices: &[Slice]) -> Vec<(&str, Vec<&str>)> {
        slices
            .iter()
            .map(|s| {
                (
                    s.name.as_str(),
                    s.files.iter().map(String::as_str).collect(),
                )
            })
            .collect()
    }

    fn files(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|p| (*p).to_owned()).collect()
    }

    #[test]
    fn a_change_across_three_packages_is_three_slices_and_the_rest_by_surface() {
        let g = Grouper::new(&default_domains(), 40).unwrap();
        let change = files(&[
            "crates/api/src/auth.rs",
            "packages/web/src/app.ts",
            "README.md",
            "crates/core/src/lib.rs",
            "crates/api/tests/login.rs",
            ".github/workflows/ci.yml",
        ]);
        let packages = [pkg("crates/api"), pkg("crates/core"), pkg("packages/web")];
        let slices = g.propose_in(&change, &packages);
        assert_eq!(
            names(&slices),
            [
                (
                    "crates/api",
                    vec!["crates/api/src/auth.rs", "crates/api/tests/login.rs"]
                ),
                ("crates/core", vec!["crates/core/src/lib.rs"]),
                ("packages/web", vec!["packages/web/src/app.ts"]),
                ("docs", vec!["README.md"]),
                ("infra", vec![".github/workflows/ci.yml"]),
            ]
        );
        assert_eq!(slices[0].domain, "crates/api");
        // Every file in exactly one slice.
        let mut covered: Vec<&String> = slices.iter().flat_map(|s| &s.files).collect();
        covered.sort();
        let mut all: Vec<&String> = change.iter().collect();
        all.sort();
        assert_eq!(covered, all);
    }

    #[test]
    fn without_packages_the_proposal_is_by_surface() {
        let g = Grouper::new(&default_domains(), 40).unwrap();
        let change = files(&["src/lib.rs", "docs/x.md"]);
        assert_eq!(g.propose_in(&change, &[]), g.propose(&change));
    }

    #[test]
    fn a_large_package_splits_and_names_never_clash() {
        let g = Grouper::new(&default_domains(), 2).unwrap();
        let change = files(&["docs/a.ts", "docs/b.ts", "docs/c.ts", "README.md"]);
        // A package whose directory is named like a surface domain.
        let slices = g.propose_in(&change, &[pkg("docs")]);
        let got: Vec<&str> = slices.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(got, ["pkg:docs", "pkg:docs#2", "docs"]);
    }

    #[test]
    fn long_package_directories_keep_their_last_parts() {
        let dir = format!(
            "{}/services/billing-gateway",
            "very-long-directory-name".repeat(3)
        );
        assert_eq!(slice_name(&dir), "services/billing-gateway");
        let one = "x".repeat(100);
        assert_eq!(slice_name(&one).len(), MAX_SLICE_NAME - 12);
        assert_eq!(slice_name("packages/@acme/ui kit"), "packages/-acme/ui-kit");
        assert_eq!(slice_name("crates/api"), "crates/api");
    }
}
