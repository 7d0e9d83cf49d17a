//! Each language family's lexical syntax, as far as telling code from
//! comments and strings needs: one table per family, read by one scanner
//! ([`super::scan`]).

use super::super::lang::Lang;

/// Where a comment marker starts a comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Where {
    Never,
    Anywhere,
    /// At the start of a word: the line's start or after whitespace (a
    /// shell's `#`, which `$#` or `a#b` is not; `//` in a Makefile, which
    /// `http://` is not).
    WordStart,
    /// Alone at the start of the line, followed by a space (`-- note`,
    /// not `--flag`).
    LineStart,
}

/// What a quote opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quote {
    Nothing,
    /// A string in which a backslash escapes the next byte.
    Escaped,
    /// A string without escapes (a shell's `'…'`).
    Literal,
    /// A string in which a doubled quote stands for one (SQL, YAML).
    Doubled,
    /// A character literal when one follows (`'a'`, `'\n'`), else code:
    /// a Rust lifetime, a Scala symbol, a stray apostrophe.
    Char,
}

/// What a backtick opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Backtick {
    Nothing,
    /// A raw string over any number of lines (Go).
    Raw,
    /// A template literal with `${…}` code in it (JavaScript).
    Template,
}

/// Prefixes that change what follows a quote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Prefixes {
    Nothing,
    /// `r`, `b`, `f`, `u` and pairs of them; docstrings.
    Python,
    /// `r#"…"#`, `br"…"`, `cr"…"`.
    Rust,
    /// `@"…"`, verbatim, where `""` is a quote.
    CSharp,
}

#[derive(Debug)]
pub(super) struct Grammar {
    /// `//` line comments.
    pub slashes: Where,
    /// `/* … */` block comments, and whether they nest.
    pub blocks: bool,
    pub nests: bool,
    pub hash: Where,
    pub dashes: Where,
    pub single: Quote,
    pub double: Quote,
    /// Whether a quoted string goes on past a line end (without a
    /// backslash there).
    pub spans: bool,
    pub backtick: Backtick,
    /// `"""…"""` (and `'''…'''` where `'` quotes strings).
    pub triple: bool,
    pub prefixes: Prefixes,
    /// A quote opens a string only where a value starts (after
    /// whitespace, `=`, `:`, a bracket or a comma), not inside a word
    /// such as `don't` in a YAML value or a Makefile.
    pub quotes_at_value: bool,
    /// A backslash outside strings escapes the next byte (a shell's
    /// `don\'t`).
    pub escapes_in_code: bool,
    /// `/…/` regex literals (JavaScript).
    pub regex: bool,
    /// `#[…]` is an attribute, not a comment (PHP 8).
    pub hash_attributes: bool,
    /// Ruby's `=begin` … `=end`.
    pub embedded_docs: bool,
    /// A shell's here-documents (`<<EOF`).
    pub heredocs: bool,
    /// The bytes the scanner stops at in code.
    pub special: [bool; 256],
}

const BASE: Grammar = Grammar {
    slashes: Where::Never,
    blocks: false,
    nests: false,
    hash: Where::Never,
    dashes: Where::Never,
    single: Quote::Nothing,
    double: Quote::Escaped,
    spans: false,
    backtick: Backtick::Nothing,
    triple: false,
    prefixes: Prefixes::Nothing,
    quotes_at_value: false,
    escapes_in_code: false,
    regex: false,
    hash_attributes: false,
    embedded_docs: false,
    heredocs: false,
    special: [false; 256],
};

/// C and the languages that write comments like it.
const C_LIKE: Grammar = Grammar {
    slashes: Where::Anywhere,
    blocks: true,
    single: Quote::Char,
    ..BASE
};

/// `g` with the bytes its scanner stops at worked out: those that may
/// open a comment or a string, end a line that continues, or count a
/// bracket.
const fn with_special(mut g: Grammar) -> Grammar {
    let python = matches!(g.prefixes, Prefixes::Python);
    let stops: [(bool, &[u8]); 11] = [
        (true, b"\\"),
        (
            !matches!(g.slashes, Where::Never) || g.blocks || g.regex,
            b"/",
        ),
        (!matches!(g.hash, Where::Never), b"#"),
        (!matches!(g.dashes, Where::Never), b"-"),
        (!matches!(g.single, Quote::Nothing), b"'"),
        (!matches!(g.double, Quote::Nothing), b"\""),
        (!matches!(g.backtick, Backtick::Nothing), b"`"),
        (python, b"()[]{}"),
        (matches!(g.backtick, Backtick::Template), b"{}"),
        (g.embedded_docs, b"="),
        (g.heredocs, b"<"),
    ];
    let mut i = 0;
    while i < stops.len() {
        let (on, bytes) = stops[i];
        let mut j = 0;
        while on && j < bytes.len() {
            g.special[bytes[j] as usize] = true;
            j += 1;
        }
        i += 1;
    }
    g
}

static RUST: Grammar = with_special(Grammar {
    nests: true,
    spans: true,
    prefixes: Prefixes::Rust,
    ..C_LIKE
});
static JAVASCRIPT: Grammar = with_special(Grammar {
    single: Quote::Escaped,
    backtick: Backtick::Template,
    regex: true,
    ..C_LIKE
});
static GO: Grammar = with_special(Grammar {
    backtick: Backtick::Raw,
    ..C_LIKE
});
static C: Grammar = with_special(C_LIKE);
/// Java: `"""` text blocks.
static TEXT_BLOCKS: Grammar = with_special(Grammar {
    triple: true,
    ..C_LIKE
});
static CSHARP: Grammar = with_special(Grammar {
    triple: true,
    prefixes: Prefixes::CSharp,
    ..C_LIKE
});
/// Kotlin, Scala, Swift: text blocks, and block comments nest.
static NESTING_TEXT_BLOCKS: Grammar = with_special(Grammar {
    triple: true,
    nests: true,
    ..C_LIKE
});
/// PHP: strings may span lines, but are read as closing at the line's
/// end, as an apostrophe in a template's HTML would otherwise swallow the
/// code after it.
static PHP: Grammar = with_special(Grammar {
    hash: Where::Anywhere,
    hash_attributes: true,
    single: Quote::Escaped,
    ..C_LIKE
});
static PYTHON: Grammar = with_special(Grammar {
    hash: Where::Anywhere,
    single: Quote::Escaped,
    triple: true,
    prefixes: Prefixes::Python,
    ..BASE
});
static RUBY: Grammar = with_special(Grammar {
    hash: Where::Anywhere,
    single: Quote::Escaped,
    spans: true,
    embedded_docs: true,
    ..BASE
});
static SHELL: Grammar = with_special(Grammar {
    hash: Where::WordStart,
    single: Quote::Literal,
    spans: true,
    escapes_in_code: true,
    heredocs: true,
    ..BASE
});
static SQL: Grammar = with_special(Grammar {
    blocks: true,
    dashes: Where::Anywhere,
    single: Quote::Doubled,
    double: Quote::Doubled,
    spans: true,
    ..BASE
});
/// YAML, TOML, INI, `.env`, Dockerfiles.
static CONFIG: Grammar = with_special(Grammar {
    hash: Where::WordStart,
    single: Quote::Doubled,
    triple: true,
    quotes_at_value: true,
    ..BASE
});
/// Whatever else: Makefiles, Terraform, Markdown. Only what cannot be
/// taken for something else is read as a comment.
static OTHER: Grammar = with_special(Grammar {
    slashes: Where::WordStart,
    hash: Where::WordStart,
    dashes: Where::LineStart,
    single: Quote::Escaped,
    quotes_at_value: true,
    ..BASE
});

/// The grammar of `lang`.
pub(super) fn of(lang: Lang) -> &'static Grammar {
    match lang {
        Lang::Rust => &RUST,
        Lang::Python => &PYTHON,
        Lang::Go => &GO,
        Lang::JavaScript => &JAVASCRIPT,
        Lang::Java => &TEXT_BLOCKS,
        Lang::CSharp => &CSHARP,
        Lang::Kotlin | Lang::Scala | Lang::Swift => &NESTING_TEXT_BLOCKS,
        Lang::C => &C,
        Lang::Php => &PHP,
        Lang::Ruby => &RUBY,
        Lang::Shell => &SHELL,
        Lang::Sql => &SQL,
        Lang::Config => &CONFIG,
        Lang::Other => &OTHER,
    }
}
