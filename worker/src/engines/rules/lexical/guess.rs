//! What the lexer guesses at a line whose state it does not know: a
//! hunk's first line read without its file, which may sit inside a string
//! or a docstring opened above the hunk.
//!
//! Quotes are then read as closing at their line's end, as a quote that
//! closes a string opened above would otherwise open one that runs on (a
//! Rust raw string's `r#"`, which nothing else reads like, still spans).
//! The first triple quote is taken for the closing one of a string opened
//! above when it reads like one: prose before it, or punctuation after it
//! (`""")`), or alone on its line after a line that opens no block (a
//! docstring opens after a `def` or `class` line's `:`, a text block
//! after `=` or `(`).

use super::grammar::Prefixes;
use super::scan::{Step, Walk};
use super::{Class, Mode, Sink};

impl<S: Sink> Walk<'_, '_, S> {
    /// The triple quote `q` at `i`, after `before` on its line, read as
    /// closing a string opened above the hunk, if it is the first while
    /// guessing and reads like a closing one.
    pub(super) fn closes_above(&mut self, i: usize, q: u8, before: &[u8]) -> Option<Step> {
        if !self.st.guessing || std::mem::replace(&mut self.st.tripled, true) {
            return None;
        }
        let after = self.b.get(i + 3..).unwrap_or_default();
        if after.windows(3).any(|w| w == [q, q, q]) {
            return None;
        }
        let blank = |t: &[u8]| t.iter().all(u8::is_ascii_whitespace);
        let python = self.g.prefixes == Prefixes::Python;
        let closes = if blank(before) {
            // Alone at the start of its line: in Python a docstring opens
            // after a block's `:`, or with its text after it.
            match after.trim_ascii_start().first() {
                None => !python || self.st.colon == Some(false),
                Some(c) => !python || b"),;].%+".contains(c),
            }
        } else {
            !opens_value(before)
        };
        if !closes {
            return None;
        }
        // A Python string that runs over lines is most often a docstring.
        Some(if python {
            Step::Enter {
                from: 0,
                to: i + 3,
                class: Class::Comment,
                mode: Mode::Code,
            }
        } else {
            Step::Inline {
                from: 0,
                to: i,
                end: i + 3,
            }
        })
    }

    /// Python: notes whether the line's code ends with `:`, which opens a
    /// block (a docstring may open the next line).
    pub(super) fn note_colon(&mut self) {
        let code = &self.b[..self.comment_at.unwrap_or(self.b.len())];
        if let Some(&last) = code.iter().rev().find(|c| !c.is_ascii_whitespace()) {
            self.st.colon = Some(last == b':');
        }
    }
}

/// Whether code ending in `before` is where a string value opens: after
/// `=`, a bracket, a comma, an operator, `return`.
fn opens_value(before: &[u8]) -> bool {
    let code = before.trim_ascii_end();
    let Some(&last) = code.last() else {
        return true;
    };
    let keyword = |w: &[u8]| {
        code.strip_suffix(w).is_some_and(|rest| {
            !rest
                .last()
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        })
    };
    b"=([{,:+%*".contains(&last)
        || [&b"return"[..], b"yield", b"else", b"in", b"and", b"or"]
            .into_iter()
            .any(keyword)
}

#[cfg(test)]
mod tests {
    use super::super::super::lang::Lang;
    use super::super::Lexer;
    use super::super::tests::lex_with;

    /// Each line's code, lexed from a state not known.
    fn guessed_code(lang: Lang, lines: &[&str]) -> Vec<String> {
        let lexed = lex_with(Lexer::guessing(lang), lines);
        lexed.into_iter().map(|(code, _, _)| code).collect()
    }

    #[test]
    fn a_hunk_opening_inside_a_docstring_closes_it_rather_than_opening_one() {
        let alone = [
            "            those are the ones that run.",
            "        \"\"\"",
            "        return lines",
            "    def render_str(self, text, *, style, justify, overflow, emoji, markup):",
        ];
        let code = guessed_code(Lang::Python, &alone);
        assert_eq!(code[2], "        return lines");
        assert_eq!(code[3], alone[3]);
        let trailing = ["    Returns the thing.\"\"\"", "    eval(x)"];
        assert_eq!(guessed_code(Lang::Python, &trailing)[1], "    eval(x)");
    }

    #[test]
    fn a_guessed_hunk_still_opens_docstrings_after_a_def_and_strings_after_an_assignment() {
        let lines = [
            "def f():",
            "    \"\"\"",
            "    eval(x)",
            "    \"\"\"",
            "    q = \"\"\"",
            "    SELECT 1",
            "    \"\"\"",
            "    y = 2",
        ];
        assert_eq!(
            guessed_code(Lang::Python, &lines),
            [
                "def f():",
                "    ",
                "",
                "",
                "    q = \"\"\"",
                "",
                "\"\"\"",
                "    y = 2"
            ]
        );
        let java = ["    SELECT *", "    \"\"\";", "int x = 1;"];
        assert_eq!(
            guessed_code(Lang::Java, &java),
            ["    SELECT *", "\"\"\";", "int x = 1;"]
        );
    }

    #[test]
    fn a_guessed_hunk_reads_quotes_as_closing_at_the_line_end() {
        let rust = [
            "    and the rest of a long help text.\",",
            "let v = cfg.get().unwrap();",
            "let r = r#\"raw",
            "still raw \"#; x.unwrap();",
        ];
        assert_eq!(
            guessed_code(Lang::Rust, &rust),
            [
                "    and the rest of a long help text.\"",
                "let v = cfg.get().unwrap();",
                "let r = r#\"",
                "\"#; x.unwrap();"
            ]
        );
    }
}
