//! `pattern!`: a regex of the program's own, checked and read for its
//! needles when the program is built.
//!
//! `pattern!(r"\bfoo\(")` (or `pattern!(concat!(r"…", r"…"))`) is a
//! `revu_domain::pattern::Pattern` whose guard's needles
//! ([`revu_needles`]) were worked out here: a run of the program then only
//! builds the search for them, where reading a pattern's syntax tree took
//! most of what a small review costs. A pattern that does not parse (as
//! the regex crate reads it: word classes ASCII, everything else Unicode)
//! fails the build, where at run time it would only disable what uses it.

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{LitByteStr, LitStr, Macro, Token};

/// The pattern as written: a string literal, or `concat!` of several.
struct Source {
    text: String,
    span: Span,
}

impl Parse for Source {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(LitStr) {
            let lit: LitStr = input.parse()?;
            // A trailing comma, as rustfmt leaves after a long argument.
            let _: Option<Token![,]> = input.parse()?;
            return Ok(Source {
                text: lit.value(),
                span: lit.span(),
            });
        }
        let mac: Macro = input.parse()?;
        if !mac.path.is_ident("concat") {
            return Err(syn::Error::new_spanned(
                &mac.path,
                "pattern!: expected a string literal or concat!(…) of string literals",
            ));
        }
        let parts = mac.parse_body_with(Punctuated::<LitStr, Token![,]>::parse_terminated)?;
        let _: Option<Token![,]> = input.parse()?;
        Ok(Source {
            text: parts.iter().map(LitStr::value).collect(),
            span: mac.span(),
        })
    }
}

/// A `revu_domain::pattern::Pattern` with its guard's needles worked out
/// now; a compile error if the pattern does not parse.
#[proc_macro]
pub fn pattern(input: TokenStream) -> TokenStream {
    let source = syn::parse_macro_input!(input as Source);
    expand(&source).into()
}

fn expand(source: &Source) -> proc_macro2::TokenStream {
    let read = revu_needles::ascii_classes(&source.text);
    if let Err(err) = regex_syntax::Parser::new().parse(&read) {
        return syn::Error::new(source.span, format!("pattern!: does not parse: {err}"))
            .to_compile_error();
    }
    let needles = match revu_needles::needles(&read) {
        Some(all) => {
            let each = all.iter().map(|needle| {
                let bytes = LitByteStr::new(&needle.bytes, source.span);
                let fold = needle.fold;
                quote!((#bytes as &[u8], #fold))
            });
            quote!(::core::option::Option::Some(&[#(#each),*]))
        }
        None => quote!(::core::option::Option::None),
    };
    let text = LitStr::new(&source.text, source.span);
    quote!(::revu_domain::pattern::Pattern::prepared(#text, #needles))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(input: &str) -> String {
        match syn::parse_str::<Source>(input) {
            Ok(source) => expand(&source).to_string(),
            Err(err) => format!("refused: {err}"),
        }
    }

    #[test]
    fn a_pattern_carries_its_needles() {
        let out = expanded(r#"r"\b(todo|unimplemented)!\(""#);
        assert!(out.contains("Pattern :: prepared"), "{out}");
        assert!(out.contains(r#"b"todo!(" as & [u8] , false"#), "{out}");
        assert!(out.contains(r#"b"unimplemented!(""#), "{out}");
        let folded = expanded(r#"r"(?i)\bselect\s+\*", "#);
        assert!(folded.contains(r#"b"select" as & [u8] , true"#), "{folded}");
        let open = expanded(r#"r"[A-Z]{3}\d+""#);
        assert!(open.contains("Option :: None"), "{open}");
    }

    #[test]
    fn concat_joins_its_literals() {
        let out = expanded(r#"concat!(r"\bfoo", "bar\x5C(",)"#);
        assert!(out.contains(r#"b"foobar(""#), "{out}");
        assert!(out.contains(r#""\\bfoobar\\(""#), "{out}");
    }

    #[test]
    fn what_is_not_a_pattern_is_a_compile_error() {
        let broken = expanded(r#""(unclosed""#);
        assert!(broken.contains("compile_error"), "{broken}");
        assert!(broken.contains("does not parse"), "{broken}");
        assert!(expanded(r#"format!("x")"#).starts_with("refused"));
        assert!(expanded("42").starts_with("refused"));
    }
}
