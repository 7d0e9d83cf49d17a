use super::super::lang::Lang;
use super::*;

/// Per line of `lines`, read as one file of `lang`: its code, its
/// strings' contents and its comments, each run's bytes end to end.
fn lex(lang: Lang, lines: &[&str]) -> Vec<(String, String, String)> {
    lex_with(Lexer::new(lang), lines)
}

/// [`lex`], by `lexer`.
pub(super) fn lex_with(mut lexer: Lexer, lines: &[&str]) -> Vec<(String, String, String)> {
    lines
        .iter()
        .map(|text| {
            let mut runs: Vec<Run> = Vec::new();
            lexer.line(text, &mut runs);
            let mut out = (String::new(), String::new(), String::new());
            let mut end = 0;
            for r in &runs {
                assert_eq!(r.from, end, "{text:?}: a gap or an overlap at {}", r.from);
                end = r.to;
                let part = &text[r.from..r.to];
                match r.class {
                    Class::Code => out.0.push_str(part),
                    Class::Str => out.1.push_str(part),
                    Class::Comment => out.2.push_str(part),
                }
            }
            assert_eq!(end, text.len(), "{text:?}: runs stop short");
            out
        })
        .collect()
}

fn code(lang: Lang, lines: &[&str]) -> Vec<String> {
    lex(lang, lines).into_iter().map(|l| l.0).collect()
}

fn strings(lang: Lang, lines: &[&str]) -> Vec<String> {
    lex(lang, lines).into_iter().map(|l| l.1).collect()
}

fn comments(lang: Lang, lines: &[&str]) -> Vec<String> {
    lex(lang, lines).into_iter().map(|l| l.2).collect()
}

#[test]
fn a_block_comment_spans_lines_without_leading_asterisks() {
    let lines = [
        "/**",
        "@example",
        "console.log(format(1));",
        "*/ export declare function format(x: number): string;",
    ];
    assert_eq!(
        code(Lang::JavaScript, &lines),
        [
            "",
            "",
            "",
            " export declare function format(x: number): string;"
        ]
    );
    assert_eq!(
        comments(Lang::JavaScript, &lines)[2],
        "console.log(format(1));"
    );
}

#[test]
fn rust_block_comments_nest_and_c_ones_do_not() {
    let lines = ["/* a /* b */ still.unwrap() */ x.unwrap();"];
    assert_eq!(code(Lang::Rust, &lines), [" x.unwrap();"]);
    assert_eq!(code(Lang::C, &lines), [" still.unwrap() */ x.unwrap();"]);
    let kotlin = ["/* /* */", "inside */ val x = 1"];
    assert_eq!(code(Lang::Kotlin, &kotlin), ["", " val x = 1"]);
}

#[test]
fn python_docstrings_are_comments_and_other_triple_quoted_strings_are_strings() {
    let lines = [
        "def f():",
        "    '''Example:",
        "    eval(x)'''",
        "    q = \"\"\"",
        "    SELECT 1",
        "    \"\"\"",
        "    r\"\"\"Raw docstring.\"\"\"",
        "    run(",
        "        \"\"\"an argument\"\"\",",
        "    )",
    ];
    let lexed = lex(Lang::Python, &lines);
    assert_eq!(lexed[1], ("    ".into(), "".into(), "'''Example:".into()));
    assert_eq!(lexed[2].2, "    eval(x)'''");
    assert_eq!(lexed[3].0, "    q = \"\"\"");
    assert_eq!(lexed[4], ("".into(), "    SELECT 1".into(), "".into()));
    assert_eq!(lexed[6].2, "r\"\"\"Raw docstring.\"\"\"");
    assert_eq!(lexed[8].1, "an argument");
}

#[test]
fn python_prefixes_escapes_and_continued_strings() {
    let lines = [
        r#"x = f"{a}#" + b'\'' + rb"\"" # note"#,
        r#"s = "open \"#,
        r#"still a string" + y"#,
        r#"t = "unclosed"#,
        "z = 1 # after",
    ];
    assert_eq!(
        code(Lang::Python, &lines),
        [
            r#"x = f"" + b'' + rb"" "#,
            r#"s = ""#,
            r#"" + y"#,
            r#"t = ""#,
            "z = 1 "
        ]
    );
    assert_eq!(comments(Lang::Python, &lines)[0], "# note");
}

#[test]
fn template_literals_read_their_expressions_as_code() {
    let lines = [
        "el.innerHTML = `<b>${user.name}</b> ${items.map(i => `<i>${i}</i>`).join(\"\")}",
        "and ${ { a: 1 }.a } more`; // done",
    ];
    assert_eq!(
        code(Lang::JavaScript, &lines),
        [
            "el.innerHTML = `${user.name}${items.map(i => `${i}`).join(\"\")}",
            "${ { a: 1 }.a }`; "
        ]
    );
    assert_eq!(comments(Lang::JavaScript, &lines)[1], "// done");
}

#[test]
fn slashes_and_hashes_inside_strings_are_not_comments() {
    let js = [r#"const u = "http://example.org/#top"; // real"#];
    assert_eq!(code(Lang::JavaScript, &js), [r#"const u = ""; "#]);
    assert_eq!(strings(Lang::JavaScript, &js), ["http://example.org/#top"]);
    let py = ["color = '#fff'  # white"];
    assert_eq!(code(Lang::Python, &py), ["color = ''  "]);
    let sh = [r#"echo "$# args" '#' ${#list[@]} # count"#];
    assert_eq!(code(Lang::Shell, &sh), [r#"echo "" '' ${#list[@]} "#]);
    let make = ["\tcurl -o out http://example.org/x.sh # fetch"];
    assert_eq!(
        code(Lang::Other, &make),
        ["\tcurl -o out http://example.org/x.sh "]
    );
}

#[test]
fn an_apostrophe_in_a_comment_or_a_word_opens_no_string() {
    let js = ["// don't do this", "x.innerHTML = html;"];
    assert_eq!(code(Lang::JavaScript, &js), ["", "x.innerHTML = html;"]);
    let py = ["# it's fine", "eval(x)"];
    assert_eq!(code(Lang::Python, &py), ["", "eval(x)"]);
    let yaml = [
        "description: Don't run as root # really",
        "privileged: true",
    ];
    assert_eq!(
        code(Lang::Config, &yaml),
        ["description: Don't run as root ", "privileged: true"]
    );
    let go = ["// it's", "fmt.Println('a', '\\n', \"b\")"];
    assert_eq!(code(Lang::Go, &go), ["", "fmt.Println('', '', \"\")"]);
}

#[test]
fn rust_lifetimes_chars_raw_and_byte_strings() {
    let lines = [
        "fn f<'a>(s: &'a str) -> char { 'a' }",
        r##"let r = r#"a "quoted" // not a comment"#; let b = b'\'';"##,
        r##"let m = br"x\"; let c = '\u{1F600}'; let e = 'é';"##,
        "#[cfg(test)] let s = \"spans",
        "lines\".unwrap();",
    ];
    assert_eq!(
        code(Lang::Rust, &lines),
        [
            "fn f<'a>(s: &'a str) -> char { '' }",
            r##"let r = r#""#; let b = b'';"##,
            r#"let m = br""; let c = ''; let e = '';"#,
            "#[cfg(test)] let s = \"",
            "\".unwrap();"
        ]
    );
}

#[test]
fn go_raw_strings_and_c_preprocessor_lines() {
    let go = [
        "q := `SELECT *",
        "FROM t // not a comment`",
        "x := 1 // note",
    ];
    assert_eq!(code(Lang::Go, &go), ["q := `", "`", "x := 1 "]);
    let c = ["#include <stdio.h> /* io */", "char q = '\"';"];
    assert_eq!(code(Lang::C, &c), ["#include <stdio.h> ", "char q = '';"]);
}

#[test]
fn java_text_blocks_and_csharp_verbatim_strings() {
    let java = [
        "String q = \"\"\"",
        "    SELECT \"x\" // no comment",
        "    \"\"\"; // comment",
    ];
    assert_eq!(
        code(Lang::Java, &java),
        ["String q = \"\"\"", "", "\"\"\"; "]
    );
    let cs = [r#"var p = @"C:\dir\"; var q = @"say ""hi"" // x"; // y"#];
    assert_eq!(code(Lang::CSharp, &cs), [r#"var p = @""; var q = @""; "#]);
}

#[test]
fn sql_dashes_and_doubled_quotes() {
    let sql = [
        "SELECT 'it''s -- not a comment' FROM t -- a comment",
        "/* DROP TABLE users; */ DELETE FROM t;",
    ];
    assert_eq!(
        code(Lang::Sql, &sql),
        ["SELECT '' FROM t ", " DELETE FROM t;"]
    );
}

#[test]
fn php_attributes_ruby_embedded_docs_and_shell_escapes() {
    let php = ["#[Route('/')] # comment", "$x = 'a # b'; // c"];
    assert_eq!(code(Lang::Php, &php), ["#[Route('')] ", "$x = ''; "]);
    let ruby = ["=begin", "eval(x)", "=end", "y = \"#{z}\" # c"];
    assert_eq!(code(Lang::Ruby, &ruby), ["", "", "", "y = \"\" "]);
    let sh = [r#"echo don\'t # c"#, "rm -rf \"$DIR/\"*"];
    assert_eq!(code(Lang::Shell, &sh), [r#"echo don\'t "#, "rm -rf \"\"*"]);
}

#[test]
fn a_shell_here_document_is_a_string_up_to_its_word() {
    let sh = [
        "cat <<-'EOF' > notes.txt # write",
        "Don't forget: rm -rf \"$DIR/\"",
        "\tEOF",
        "echo 'done' # it's over",
        "x=$((1 << 2)); cat <<< \"$y\"",
    ];
    assert_eq!(
        code(Lang::Shell, &sh),
        [
            "cat <<-'EOF' > notes.txt ",
            "",
            "\tEOF",
            "echo '' ",
            "x=$((1 << 2)); cat <<< \"\""
        ]
    );
    assert_eq!(
        strings(Lang::Shell, &sh)[1],
        "Don't forget: rm -rf \"$DIR/\""
    );
}

#[test]
fn regex_literals_hold_no_strings_or_comments() {
    let js = [r#"s.replace(/"/g, "'").split(/\/\//); x = a / b / c; // d"#];
    assert_eq!(
        code(Lang::JavaScript, &js),
        [r#"s.replace(//g, "").split(//); x = a / b / c; "#]
    );
}

#[test]
fn strings_that_do_not_span_lines_end_at_the_line() {
    let js = ["x = 'unterminated", "eval(y)"];
    assert_eq!(code(Lang::JavaScript, &js), ["x = '", "eval(y)"]);
    let php = ["<p>Don't have an account?</p>", "<?php var_dump($x); ?>"];
    assert_eq!(code(Lang::Php, &php), ["<p>Don'", "<?php var_dump($x); ?>"]);
}

#[test]
fn a_head_file_gives_the_state_at_a_hunk() {
    let head = "fn a() {}\n/*\nstill.unwrap()\n*/\nfn b() {}\n";
    let mut cursor = HeadCursor::new(Lang::Rust, head);
    assert_eq!(cursor.state_at(1), State::default());
    let inside = cursor.state_at(3);
    let mut lexer = Lexer::at(Lang::Rust, inside);
    let mut runs: Vec<Run> = Vec::new();
    lexer.line("still.unwrap()", &mut runs);
    assert_eq!(
        runs,
        [Run {
            class: Class::Comment,
            from: 0,
            to: 14
        }]
    );
    assert_eq!(cursor.state_at(5), State::default());
    assert_eq!(cursor.state_at(99), State::default());
}

#[test]
fn every_language_covers_every_line_whole() {
    let lines = [
        "",
        "'",
        "\"",
        "`",
        "\\",
        "/",
        "#",
        "--",
        "'''",
        "r#\"",
        "\"#",
        "${",
        "}",
        "*/",
        "/*",
        "'é",
        "'\\u{",
        "=begin",
        "@\"",
        "x = 'é' + \"ü\" // ☃ /* ✓",
    ];
    for lang in [
        Lang::Rust,
        Lang::Python,
        Lang::Go,
        Lang::JavaScript,
        Lang::Java,
        Lang::Kotlin,
        Lang::Ruby,
        Lang::CSharp,
        Lang::C,
        Lang::Swift,
        Lang::Php,
        Lang::Scala,
        Lang::Shell,
        Lang::Sql,
        Lang::Config,
        Lang::Other,
    ] {
        // `lex` checks that the runs cover each line in order.
        lex(lang, &lines);
        let mut reversed = lines;
        reversed.reverse();
        lex(lang, &reversed);
    }
}
