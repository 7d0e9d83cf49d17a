//! Go modules of the repository: each `go.mod`'s module path names its
//! directory, and a `replace` (in a `go.mod` or `go.work`) with a local
//! directory names that one. A `go.work`'s `use` lists directories whose
//! own `go.mod` is read anyway.

use super::{join, normalize};

/// The (module path, directory) pairs a `go.mod` or `go.work` in `dir`
/// gives.
pub(super) fn modules(dir: &str, text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut in_replace = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or_default().trim();
        if in_replace {
            if line == ")" {
                in_replace = false;
            } else {
                out.extend(replacement(dir, line));
            }
        } else if let Some(module) = line.strip_prefix("module ") {
            let module = module.trim().trim_matches('"');
            if !module.is_empty() {
                out.push((module.to_owned(), dir.to_owned()));
            }
        } else if let Some(rest) = line.strip_prefix("replace") {
            let rest = rest.trim();
            if rest == "(" {
                in_replace = true;
            } else {
                out.extend(replacement(dir, rest));
            }
        }
    }
    out
}

/// `example.com/money [v1] => ../money`: the module and its local
/// directory; `None` for a replacement by another module.
fn replacement(dir: &str, line: &str) -> Option<(String, String)> {
    let (from, to) = line.split_once("=>")?;
    let module = from.split_whitespace().next()?.trim_matches('"');
    let target = to.split_whitespace().next()?.trim_matches('"');
    if !(target.starts_with("./") || target.starts_with("../")) {
        return None;
    }
    Some((module.to_owned(), normalize(&join(dir, target))?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_lines_and_local_replacements_are_read() {
        let gomod = "module example.com/acme/api // the api\n\ngo 1.22\n\nrequire example.com/acme/money v0.0.0\n\nreplace example.com/acme/money => ../money\nreplace (\n\tgolang.org/x/net v1.0.0 => golang.org/x/net v1.2.0\n\texample.com/acme/fx => ./third/fx\n)\n";
        assert_eq!(
            modules("services/api", gomod),
            vec![
                ("example.com/acme/api".to_owned(), "services/api".to_owned()),
                (
                    "example.com/acme/money".to_owned(),
                    "services/money".to_owned()
                ),
                (
                    "example.com/acme/fx".to_owned(),
                    "services/api/third/fx".to_owned()
                ),
            ]
        );
        assert!(modules("", "garbage\n=>\nreplace =>").is_empty());
    }
}
