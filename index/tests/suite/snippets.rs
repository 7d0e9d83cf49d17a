//! The lines around the sites of changed symbols, their test uses and
//! the stale uses of a change, as the index carries them.

use crate::common::index;
use revu_domain::code_index::{CodeIndex, Site, Snippet, Symbol};

const MODELS_BEFORE: &str = "def greet(user):\n    return 'hi ' + user\n\n\ndef part(user):\n    return user\n\n\ndef old_name(user):\n    return user\n";
const MODELS_AFTER: &str =
    "def greet(user):\n    return 'hello ' + user\n\n\ndef part(user):\n    return user\n";
const VIEWS: &str = "from app.models import greet, part, old_name\n\n\ndef show(u):\n    label = part(u)\n    text = greet(label)\n    return text\n\n\ndef legacy(u):\n    return old_name(u)\n";
const TEST_MODELS: &str = "from app.models import greet\n\n\ndef test_greet():\n    assert greet('a') == 'hello a'\n    assert greet('b') == 'hello b'\n";

fn models() -> CodeIndex {
    index(&[
        ("app/__init__.py", Some(""), Some("")),
        ("app/models.py", Some(MODELS_BEFORE), Some(MODELS_AFTER)),
        ("app/views.py", Some(VIEWS), Some(VIEWS)),
        ("tests/test_models.py", Some(TEST_MODELS), Some(TEST_MODELS)),
    ])
}

fn symbol<'a>(index: &'a CodeIndex, name: &str) -> &'a Symbol {
    index.files["app/models.py"]
        .symbols
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no symbol {name}: {index:#?}"))
}

fn snippet(first_line: u32, lines: &[&str]) -> Snippet {
    Snippet {
        first_line,
        lines: lines.iter().map(|l| (*l).to_owned()).collect(),
    }
}

#[test]
fn a_changed_symbols_callers_and_tests_carry_the_lines_around_them() {
    let index = models();
    let greet = symbol(&index, "greet");
    assert!(greet.changed, "{greet:#?}");
    let views = greet
        .sites
        .iter()
        .find(|s| s.file == "app/views.py")
        .unwrap_or_else(|| panic!("{greet:#?}"));
    assert_eq!(views.line, 6);
    assert_eq!(
        views.snippet,
        snippet(
            4,
            &[
                "def show(u):",
                "    label = part(u)",
                "    text = greet(label)",
                "    return text",
                "",
            ]
        )
    );
    assert_eq!(greet.tests, vec!["tests/test_models.py".to_owned()]);
    // One site per test file: its first use, clamped at the file's end.
    assert_eq!(
        greet.test_sites,
        vec![Site {
            file: "tests/test_models.py".into(),
            line: 5,
            snippet: snippet(
                3,
                &[
                    "",
                    "def test_greet():",
                    "    assert greet('a') == 'hello a'",
                    "    assert greet('b') == 'hello b'",
                ]
            ),
        }]
    );
    assert!(
        greet.sites.iter().all(|s| !s.snippet.is_empty()),
        "{greet:#?}"
    );
}

#[test]
fn an_unchanged_symbol_carries_no_lines_and_a_stale_use_does() {
    let index = models();
    let part = symbol(&index, "part");
    assert!(!part.changed);
    assert_eq!(part.sites.len(), 1, "{part:#?}");
    assert!(part.sites.iter().all(|s| s.snippet.is_empty()), "{part:#?}");
    assert!(part.test_sites.is_empty());
    let json = serde_json::to_value(part).unwrap_or_else(|e| panic!("{e}"));
    assert!(json.get("test_sites").is_none(), "{json}");
    assert!(json["sites"][0].get("snippet").is_none(), "{json}");
    // The import names it too, and its lines start at the file's top.
    let stale: Vec<&Site> = index
        .omissions
        .iter()
        .filter(|o| o.symbol == "old_name")
        .map(|o| &o.site)
        .collect();
    let lines: Vec<(&str, u32, u32)> = stale
        .iter()
        .map(|s| (s.file.as_str(), s.line, s.snippet.first_line))
        .collect();
    assert_eq!(
        lines,
        vec![("app/views.py", 1, 1), ("app/views.py", 11, 9)],
        "{:#?}",
        index.omissions
    );
    let stale = stale[1];
    assert_eq!(
        stale.snippet,
        snippet(9, &["", "def legacy(u):", "    return old_name(u)"])
    );
}

#[test]
fn a_caller_in_a_changed_file_takes_its_lines_from_the_changed_text() {
    let views_after = VIEWS.replace("text = greet(label)", "text = greet(label).strip()");
    let index = index(&[
        ("app/__init__.py", Some(""), Some("")),
        ("app/models.py", Some(MODELS_BEFORE), Some(MODELS_AFTER)),
        ("app/views.py", Some(VIEWS), Some(&views_after)),
    ]);
    let greet = symbol(&index, "greet");
    let site = greet
        .sites
        .iter()
        .find(|s| s.file == "app/views.py")
        .unwrap_or_else(|| panic!("{greet:#?}"));
    assert_eq!(site.snippet.lines[2], "    text = greet(label).strip()");
}
