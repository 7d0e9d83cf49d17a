//! Recognising a string built from code at runtime (formatting,
//! interpolation or concatenation) on one line, across languages.

use super::pattern::{Pattern, pattern};

static F_STRING: Pattern = pattern!(r#"(?:^|[^\w])(?:[fF][rRbB]?|[rR][fF])(?:"[^"]*\{|'[^']*\{)"#);
static TEMPLATE: Pattern = pattern!(r"`[^`]*\$\{");
static CSHARP: Pattern = pattern!(r#"\$@?"[^"]*\{"#);
static RUBY: Pattern = pattern!(r#""[^"]*#\{"#);
static PERCENT: Pattern = pattern!(r#"["']\s*%\s*(?:\(|[A-Za-z_][\w.]*\s*(?:[),;\]]|$))"#);
static CONCAT: Pattern =
    pattern!(r#"["']\s*\+\s*[\w(]|[\w)\]]\s*\+\s*["']|["']\s*\.\s*\$\w|\$\w+\s*\.\s*["']"#);

/// How `line` builds a string at runtime, as a noun phrase for a summary
/// (`"an f-string"`), or `None` if it does not visibly do so.
pub(crate) fn interpolation(line: &str) -> Option<&'static str> {
    let found = if line.contains("format!(") {
        "`format!`"
    } else if line.contains("Sprintf(") {
        "`fmt.Sprintf`"
    } else if line.contains("String.format(") {
        "`String.format`"
    } else if line.contains(".format(") {
        "`str.format`"
    } else if F_STRING.is_match(line) {
        "an f-string"
    } else if TEMPLATE.is_match(line) {
        "a template literal"
    } else if CSHARP.is_match(line) {
        "an interpolated string"
    } else if RUBY.is_match(line) {
        "string interpolation"
    } else if PERCENT.is_match(line) {
        "`%` formatting"
    } else if CONCAT.is_match(line) {
        "string concatenation"
    } else {
        return None;
    };
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_each_construct() {
        let cases = [
            (r#"q = f"SELECT * FROM t WHERE id = {uid}""#, "an f-string"),
            (
                r#"q = "SELECT * FROM t WHERE id = %s" % uid"#,
                "`%` formatting",
            ),
            (
                r#"q = "SELECT * FROM t WHERE id = {}".format(uid)"#,
                "`str.format`",
            ),
            (
                r#"q = "SELECT * FROM t WHERE id = " + uid"#,
                "string concatenation",
            ),
            (
                r#"let q = format!("DELETE FROM t WHERE id = {id}");"#,
                "`format!`",
            ),
            (
                "db.query(`SELECT * FROM t WHERE id = ${id}`)",
                "a template literal",
            ),
            (
                r#"$q = "SELECT * FROM t WHERE id = " . $id;"#,
                "string concatenation",
            ),
        ];
        for (line, want) in cases {
            assert_eq!(interpolation(line), Some(want), "{line}");
        }
    }

    #[test]
    fn placeholders_and_plain_literals_are_not_interpolation() {
        for line in [
            r#"cur.execute("SELECT * FROM t WHERE id = %s", (uid,))"#,
            r#"cur.execute("SELECT * FROM t WHERE name = '%s'")"#,
            r#"db.query("SELECT * FROM t WHERE id = $1", [id])"#,
            "const total = a + b;",
        ] {
            assert_eq!(interpolation(line), None, "{line}");
        }
    }
}
