//! Languages by file extension, what counts as a comment line in each, and
//! a line's code with its string literals blanked.

use revu_domain::paths::file_name;
use std::borrow::Cow;

/// The language family of a file, as far as the rules need to know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Rust,
    Python,
    Go,
    /// JavaScript and TypeScript, with or without JSX.
    JavaScript,
    Java,
    Kotlin,
    Ruby,
    CSharp,
    /// C and C++.
    C,
    Swift,
    Php,
    Scala,
    Shell,
    Sql,
    /// YAML, TOML, INI, `.env` and similar key-value files.
    Config,
    Other,
}

impl Lang {
    /// The language of `path`, by extension (and a few well-known names).
    pub(crate) fn of(path: &str) -> Lang {
        let name = file_name(path);
        if name == ".env" || name.starts_with(".env.") || name == "Dockerfile" {
            return Lang::Config;
        }
        let Some(dot) = memchr::memrchr(b'.', name.as_bytes()) else {
            return Lang::Other;
        };
        let ext = name.get(dot + 1..).unwrap_or_default();
        // Lowered on the stack: this runs for every rule on every file.
        let mut buf = [0u8; 16];
        let Some(lower) = buf.get_mut(..ext.len()) else {
            return Lang::Other;
        };
        lower.copy_from_slice(ext.as_bytes());
        lower.make_ascii_lowercase();
        match std::str::from_utf8(lower).unwrap_or_default() {
            "rs" => Lang::Rust,
            "py" | "pyi" => Lang::Python,
            "go" => Lang::Go,
            "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" | "mts" | "cts" => Lang::JavaScript,
            "java" => Lang::Java,
            "kt" | "kts" => Lang::Kotlin,
            "rb" | "rake" => Lang::Ruby,
            "cs" => Lang::CSharp,
            "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => Lang::C,
            "swift" => Lang::Swift,
            "php" => Lang::Php,
            "scala" | "sc" => Lang::Scala,
            "sh" | "bash" | "zsh" => Lang::Shell,
            "sql" => Lang::Sql,
            "yml" | "yaml" | "toml" | "ini" | "cfg" | "conf" | "env" | "properties" => Lang::Config,
            _ => Lang::Other,
        }
    }

    /// Whether files of this language are program source (what a test
    /// would cover).
    pub(crate) fn is_source(self) -> bool {
        !matches!(self, Lang::Shell | Lang::Sql | Lang::Config | Lang::Other)
    }

    /// Whether `text` (one line) is only a comment in this language.
    pub(crate) fn is_comment(self, text: &str) -> bool {
        let t = trim_start(text);
        let slashes = t.starts_with("//")
            || t.starts_with("/*")
            || t.starts_with("* ")
            || t.starts_with("*/")
            || t == "*";
        match self {
            Lang::Python | Lang::Ruby | Lang::Shell | Lang::Config => t.starts_with('#'),
            Lang::Sql => t.starts_with("--") || t.starts_with("/*"),
            Lang::Php => slashes || t.starts_with('#'),
            Lang::Other => slashes || t.starts_with('#') || t.starts_with("--"),
            _ => slashes,
        }
    }

    /// `text` with the content of its string literals removed (`"…"` →
    /// `""`), so that a pattern matches code rather than text about code.
    /// Single quotes delimit strings except in Rust (lifetimes, chars).
    pub(crate) fn code_only(self, text: &str) -> Cow<'_, str> {
        blank_strings(text, self != Lang::Rust)
    }
}

/// `text` without its leading whitespace, as [`str::trim_start`] gives it,
/// but skipping the spaces and tabs of an indent a byte at a time: the
/// rules ask this of every added line, and few lines start with any
/// other whitespace.
pub(crate) fn trim_start(text: &str) -> &str {
    let indent = text
        .bytes()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    let rest = text.get(indent..).unwrap_or_default();
    match rest.as_bytes().first() {
        Some(&b) if !b.is_ascii() || b <= b' ' => rest.trim_start(),
        _ => rest,
    }
}

/// `text` with every quoted run (`"…"`, and `'…'` when `single`; a
/// backslash escapes the next character) made `""`, scanning left to
/// right as the regex `"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'` replaces its
/// matches: a quote that never closes is left as it is and the scan goes
/// on after it. Borrowed when there is nothing to blank.
fn blank_strings(text: &str, single: bool) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let next_quote = |from: usize| {
        let rest = bytes.get(from..)?;
        let found = if single {
            memchr::memchr2(b'"', b'\'', rest)
        } else {
            memchr::memchr(b'"', rest)
        };
        found.map(|i| from + i)
    };
    let mut out: Option<String> = None;
    // `text[..copied]` is in `out` (blanked where it had strings).
    let mut copied = 0;
    let mut from = 0;
    while let Some(open) = next_quote(from) {
        let quote = bytes.get(open).copied().unwrap_or_default();
        let Some(end) = closing(bytes, open + 1, quote) else {
            from = open + 1;
            continue;
        };
        let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
        o.push_str(text.get(copied..open).unwrap_or_default());
        o.push_str("\"\"");
        copied = end;
        from = end;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(text.get(copied..).unwrap_or_default());
            Cow::Owned(o)
        }
    }
}

/// Where the string that `quote` opened before `from` ends (just past its
/// closing quote), if it closes in `bytes`.
fn closing(bytes: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut at = from;
    loop {
        match *bytes.get(at)? {
            b if b == quote => return Some(at + 1),
            // The escaped character is skipped; a multi-byte one is
            // walked byte by byte after this, and none of its bytes is a
            // quote or a backslash.
            b'\\' => {
                bytes.get(at + 1)?;
                at += 2;
            }
            _ => at += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_follows_the_extension() {
        assert_eq!(Lang::of("src/main.rs"), Lang::Rust);
        assert_eq!(Lang::of("web/App.TSX"), Lang::JavaScript);
        assert_eq!(Lang::of("deploy/.env.production"), Lang::Config);
        assert_eq!(Lang::of("Makefile"), Lang::Other);
        assert!(Lang::Go.is_source());
        assert!(!Lang::Sql.is_source());
    }

    #[test]
    fn trim_start_is_the_standard_one() {
        for text in [
            "",
            "x",
            "    x = 1",
            "\t\t  y",
            "   ",
            "\u{3000}wide space",
            "  \u{a0}nbsp",
            " \r\n",
            "\x0bvertical tab",
            "  é",
        ] {
            assert_eq!(trim_start(text), text.trim_start(), "{text:?}");
        }
    }

    #[test]
    fn comments_depend_on_the_language() {
        assert!(Lang::Rust.is_comment("    // x.unwrap()"));
        assert!(!Lang::Rust.is_comment("#[cfg(test)]"));
        assert!(Lang::Python.is_comment("  # eval(x)"));
        assert!(!Lang::C.is_comment("*ptr = 0;"));
        assert!(Lang::Sql.is_comment("-- DROP TABLE users;"));
    }

    #[test]
    fn code_only_blanks_string_literals() {
        assert_eq!(
            Lang::Rust.code_only(r#"f("a.unwrap()", 'a', x)"#),
            r#"f("", 'a', x)"#
        );
        assert_eq!(Lang::Python.code_only(r#"g('x\'y', "z")"#), r#"g("", "")"#);
    }

    #[test]
    fn blanking_is_what_the_quoted_run_regex_replaces() {
        use super::super::pattern::{Pattern, pattern};
        static DOUBLE: Pattern = pattern!(r#""(?:[^"\\]|\\.)*""#);
        static EITHER: Pattern = pattern!(r#""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'"#);
        let lines = [
            "",
            "no strings here",
            r#"a"b'c'"#,
            r#"x = "unterminated"#,
            r#"x = 'it"s' + "q'uo\"te" + 'é' + "ü\é""#,
            r#"f("a\\", "b") \"#,
            r#"'\'"#,
            r#""\""#,
            r#""""#,
            r#"s = 'x' \\ '''doc''' """y""""#,
            r#"println!("{}", 'a'); let r = "\\" ; "#,
        ];
        for line in lines {
            for (lang, pattern) in [(Lang::Rust, &DOUBLE), (Lang::Python, &EITHER)] {
                let want = pattern
                    .regex()
                    .map(|re| re.replace_all(line, "\"\"").into_owned())
                    .unwrap_or_else(|| panic!("compiles"));
                assert_eq!(lang.code_only(line), want, "{lang:?} {line:?}");
            }
        }
        assert!(matches!(Lang::Go.code_only("no quotes"), Cow::Borrowed(_)));
    }
}
