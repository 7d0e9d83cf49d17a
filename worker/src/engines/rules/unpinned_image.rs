use super::table::{Files, is_dockerfile};
use super::pattern::{Pattern, pattern};
use super::scope::{HeadLine, each_head_line};
use super::meta::{Example, RuleMeta};
use super::{Message, Reads, Rule, RuleContext, finding, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};
use std::collections::HashSet;

static FROM: Pattern = pattern!(r"(?i)^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?\s*$");
static IMAGE: Pattern = pattern!(r#"^\s*(?:-\s*)?image:\s*["']?([^\s"'#]+)["']?\s*(?:#.*)?$"#);

/// Why `reference` (an image as written) is not pinned, if it is not.
fn unpinned(reference: &str) -> Option<&'static str> {
    if reference.contains('$') || reference.contains("{{") || reference.contains('@') {
        return None;
    }
    let name = reference.rsplit('/').next().unwrap_or(reference);
    match name.split_once(':') {
        None => Some("no tag"),
        Some((_, "latest")) => Some("`latest`"),
        Some(_) => None,
    }
}

/// The `unpinned-image` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct UnpinnedImage;

/// The `unpinned-image` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-OPS-004",
    name: "unpinned-image",
    dimension: Dimension::Operability,
    severity: Severity::Important,
    confidence: 85,
    languages: &["Dockerfile", "YAML"],
    catches: "Flags container images that name no version: a Dockerfile `FROM` without a tag or \
              with `:latest` (not `scratch`, a build stage or an `ARG`), and a manifest's \
              `image:` likewise. The class of hadolint's DL3006/DL3007 and checkov's \
              CKV_K8S_14.",
    why: "The image behind `latest` changes without a change here: a build or a rollout then \
          runs code nobody reviewed, and a rollback does not bring back what ran before.",
    example: Example {
        path: "Dockerfile",
        code: "FROM python:latest",
        context: "",
    },
    instead: "a version tag, best with its digest: `FROM python:3.12.3-slim@sha256:…`.",
};

impl Rule for UnpinnedImage {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
    fn reads(&self) -> Reads {
        Reads::CodeAndStrings
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let path = patch.path();
            let docker = is_dockerfile(path);
            if !docker && !Files::Yaml.covers(path) {
                continue;
            }
            // Build stages named so far may be used as images.
            let mut stages: HashSet<String> = HashSet::new();
            let production: HashSet<u32> = ctx.production_lines(patch).iter().map(|&(n, _)| n).collect();
            for HeadLine { line, text, .. } in patch.hunks.iter().flat_map(each_head_line) {
                let image = if docker {
                    let Some(c) = FROM.captures(text) else { continue };
                    let image = c[1].to_owned();
                    let known_stage = stages.contains(&image.to_ascii_lowercase());
                    if let Some(stage) = c.get(2) {
                        stages.insert(stage.as_str().to_ascii_lowercase());
                    }
                    if known_stage || image.eq_ignore_ascii_case("scratch") {
                        continue;
                    }
                    image
                } else {
                    let Some(c) = IMAGE.captures(text) else { continue };
                    c[1].to_owned()
                };
                let Some(why_not) = unpinned(&image) else { continue };
                if !production.contains(&line) {
                    continue;
                }
                let msg = Message {
                    summary: format!("Image `{image}` is not pinned ({why_not})."),
                    why: "The image behind it changes without a change here: builds and rollouts \
                          run code nobody reviewed, and a rollback does not bring back what ran."
                        .into(),
                    fix: "Name a version tag, best with its digest (`python:3.12.3-slim@sha256:…`)."
                        .into(),
                };
                out.push(finding(self, path, line, BlastRadius::Service, msg));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_images_without_a_version() {
        let change = [
            added_file(
                "Dockerfile",
                &[
                    "FROM golang:1.22 AS build",
                    "FROM build",
                    "FROM alpine",
                    "FROM python:latest",
                    "FROM scratch",
                    "FROM ${BASE}",
                ],
            ),
            added_file(
                "k8s/d.yaml",
                &["      image: example/api:latest", "      image: example/api:1.2.3", "      image: \"{{ .Values.image }}\""],
            ),
        ];
        let found = run(&UnpinnedImage, &change);
        assert_eq!(
            cited(&found),
            vec![("Dockerfile", 3), ("Dockerfile", 4), ("k8s/d.yaml", 1)]
        );
        assert_well_formed(&UnpinnedImage, &found);
    }
}
