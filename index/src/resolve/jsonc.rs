//! JSON as `tsconfig.json` writes it: `//` and `/* */` comments and
//! trailing commas are allowed. Strict JSON (`package.json`) reads the same.

use serde_json::Value;

/// The value of `text`; `None` when it is not JSON even so.
pub(crate) fn parse(text: &str) -> Option<Value> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Ok(v) = serde_json::from_str(text) {
        return Some(v);
    }
    serde_json::from_str(&strip(text)).ok()
}

/// `text` without its comments and trailing commas; strings kept as they
/// are.
fn strip(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                out.extend_from_slice(&bytes[start..i]);
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i = (i + 2).min(bytes.len());
                out.push(b' ');
            }
            b'}' | b']' => {
                // A comma before the closing bracket, blanks between.
                let mut j = out.len();
                while j > 0 && out[j - 1].is_ascii_whitespace() {
                    j -= 1;
                }
                if j > 0 && out[j - 1] == b',' {
                    out[j - 1] = b' ';
                }
                out.push(bytes[i]);
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_are_tolerated_and_strings_kept() {
        let text = r#"{
            // the aliases
            "compilerOptions": {
                "baseUrl": ".", /* here */
                "paths": { "@app/*": ["src/*",], "a//b": ["x/*y"], },
            },
        }"#;
        let v = parse(text);
        let paths = v.as_ref().map(|v| &v["compilerOptions"]["paths"]);
        assert_eq!(paths.map(|p| p["@app/*"][0].clone()), Some("src/*".into()));
        assert_eq!(paths.map(|p| p["a//b"][0].clone()), Some("x/*y".into()));
        assert_eq!(
            parse("{ \"a\": \"\\\"//\" }").map(|v| v["a"].clone()),
            Some("\"//".into())
        );
    }

    #[test]
    fn what_is_not_json_is_nothing() {
        assert_eq!(parse("{ \"a\": "), None);
        assert_eq!(parse("not json"), None);
        assert_eq!(parse("\"unterminated"), None);
    }
}
