//! Which added lines change what a program does: the production lines of
//! a file ([`super::scope::production_lines`]: no comments, docstrings or
//! test code) less those that change nothing a test could see: imports,
//! version strings, and lines that only re-state a removed line of their
//! hunk in another form (re-indented, re-wrapped, a comment or a type
//! annotation added or changed).

use super::lang::{Lang, trim_start};
use super::pattern::{Pattern, pattern};
use super::scope::production_lines;
use revu_domain::diff::{FilePatch, LineKind};
use std::collections::HashMap;

/// `__version__ = "1.2.3"`, `VERSION = '2.0'`, `version: "0.4.1"`,
/// `const Version = "v1.2"`: a release number, not behaviour.
static VERSION: Pattern = pattern!(
    r#"(?i)^\s*(?:(?:pub\s+)?(?:const|static|let|var|export\s+const)\s+)?_*version_*\s*(?::\s*&?'?\w*\s*)?[:=]\s*["'`]v?\d+(?:\.\d+)*[-+.\w]*["'`]\s*[;,]?\s*$"#
);

/// The lines of an import or a module declaration, in the languages whose
/// imports stand on lines of their own.
fn is_import(lang: Lang, text: &str) -> bool {
    let t = trim_start(text);
    match lang {
        Lang::Python => {
            t.starts_with("import ") || (t.starts_with("from ") && t.contains(" import "))
        }
        Lang::JavaScript => {
            t.starts_with("import ")
                || t.starts_with("import{")
                || (t.starts_with("export ") && t.contains(" from "))
        }
        Lang::Go => t.starts_with("import ") || is_quoted_path(t),
        Lang::Rust => {
            t.starts_with("use ") || t.starts_with("pub use ") || t.starts_with("extern crate ")
        }
        Lang::Java | Lang::Kotlin | Lang::Scala => {
            t.starts_with("import ") || t.starts_with("package ")
        }
        _ => false,
    }
}

/// A Go import block's line: `"fmt"` or `alias "example.com/x"`.
fn is_quoted_path(t: &str) -> bool {
    let t = t.trim_end();
    let path = t.rsplit_once(' ').map_or(t, |(_, p)| p);
    path.len() > 2
        && path.starts_with('"')
        && path.ends_with('"')
        && !path[1..path.len() - 1].contains('"')
}

/// The line with its trailing comment, whitespace and (on a Python `def`)
/// type annotations taken out: two lines that read the same this way do
/// the same thing.
fn normal(lang: Lang, text: &str) -> String {
    let code = lang.code_only(text);
    let cut = match lang {
        Lang::Python | Lang::Ruby | Lang::Shell | Lang::Config => code.find('#'),
        Lang::Other | Lang::Sql => None,
        _ => code.find("//"),
    };
    // The original text up to the comment: the blanking keeps offsets up
    // to the first string, so cut the original only when no string comes
    // before the comment.
    let kept = match cut {
        Some(at) if text.get(..at) == code.get(..at) => text.get(..at).unwrap_or(text),
        _ => text,
    };
    let mut out: String = kept.chars().filter(|c| !c.is_whitespace()).collect();
    if lang == Lang::Python && (out.starts_with("def") || out.starts_with("asyncdef")) {
        out = without_annotations(&out);
    }
    out
}

/// A Python signature without its annotations: `def f(x:int=1)->str:` →
/// `def f(x=1):`.
fn without_annotations(sig: &str) -> String {
    let mut out = String::with_capacity(sig.len());
    let mut depth = 0i32;
    let mut skipping = false;
    let mut chars = sig.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '(' | '[' | '{' => {
                depth += 1;
                if !skipping {
                    out.push(c);
                }
            }
            ')' | ']' | '}' => {
                if depth == 1 && c == ')' {
                    skipping = false;
                }
                depth -= 1;
                if !skipping {
                    out.push(c);
                }
            }
            ':' if depth == 1 => skipping = true,
            ',' | '=' if depth == 1 => {
                skipping = false;
                out.push(c);
            }
            '-' if depth == 0 && chars.peek() == Some(&'>') => {
                // The return annotation runs to the closing colon.
                for rest in chars.by_ref() {
                    if rest == ':' {
                        break;
                    }
                }
                out.push(':');
            }
            _ if !skipping => out.push(c),
            _ => {}
        }
    }
    out
}

/// The added production lines of `patch` that change behaviour.
pub(crate) fn behaviour_lines(patch: &FilePatch) -> Vec<(u32, &str)> {
    let lang = Lang::of(patch.path());
    let mut removed: HashMap<(usize, String), usize> = HashMap::new();
    let mut hunk_of: HashMap<u32, usize> = HashMap::new();
    for (h, hunk) in patch.hunks.iter().enumerate() {
        for l in &hunk.lines {
            match l.kind() {
                LineKind::Removed => {
                    *removed.entry((h, normal(lang, &l.text))).or_default() += 1;
                }
                LineKind::Added => {
                    if let Some(n) = l.new_line() {
                        hunk_of.insert(n, h);
                    }
                }
                LineKind::Context => {}
            }
        }
    }
    production_lines(patch)
        .into_iter()
        .filter(|&(line, text)| {
            if text.trim().is_empty() || is_import(lang, text) || VERSION.is_match(text) {
                return false;
            }
            let h = hunk_of.get(&line).copied().unwrap_or(usize::MAX);
            match removed.get_mut(&(h, normal(lang, text))) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    false
                }
                _ => true,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{added_file, modified};
    use super::*;

    fn lines(p: &FilePatch) -> Vec<u32> {
        behaviour_lines(p).iter().map(|l| l.0).collect()
    }

    #[test]
    fn comments_pragmas_annotations_and_versions_change_no_behaviour() {
        let p = modified(
            "src/app/core.py",
            10,
            &[
                ('-', "    value = compute(x)"),
                (
                    '+',
                    "    value = compute(x)  # pyright: ignore[reportGeneralTypeIssues]",
                ),
                ('-', "def handle(request, timeout=None):"),
                (
                    '+',
                    "def handle(request: Request, timeout: float | None = None) -> Response:",
                ),
                ('-', "__version__ = \"1.4.2\""),
                ('+', "__version__ = \"1.4.3\""),
                ('+', "from typing import TYPE_CHECKING"),
                ('-', "    return   call(a,b)"),
                ('+', "    return call("),
                ('+', "        a, b"),
                ('+', "    )"),
            ],
        );
        // Re-wrapping one call over three lines is the one line it leaves
        // unmatched per piece: they read differently apart.
        assert_eq!(lines(&p), vec![14, 15, 16]);
        let q = modified(
            "src/app/core.py",
            10,
            &[('-', "    return a + b"), ('+', "    return a - b")],
        );
        assert_eq!(lines(&q), vec![10]);
    }

    #[test]
    fn imports_and_go_import_blocks_are_not_behaviour() {
        let go = modified(
            "svc/main.go",
            3,
            &[
                (' ', "import ("),
                ('+', "\t\"strings\""),
                ('+', "\tyml \"gopkg.in/yaml.v3\""),
            ],
        );
        assert!(lines(&go).is_empty());
        let js = added_file(
            "web/a.ts",
            &["import { x } from './x';", "export const y = x + 1;"],
        );
        assert_eq!(lines(&js), vec![2]);
    }

    #[test]
    fn signatures_lose_only_their_annotations() {
        assert_eq!(
            without_annotations("def f(x:int=1,*,y:dict[str,int]={},**kw:Any)->list[str]:"),
            "def f(x=1,*,y={},**kw):"
        );
        assert_eq!(without_annotations("def g(a,b):"), "def g(a,b):");
    }
}
