//! The "Walkthrough" section: the synthesis lane's account of the change
//! and its line per file. Absent when the review has no synthesis step;
//! marked as the lane's words, which decide nothing.

use super::{cell, code, inline};
use revu_domain::report::Report;
use std::fmt::{self, Write};

pub(super) fn write(out: &mut String, r: &Report) -> fmt::Result {
    let Some(w) = &r.walkthrough else {
        return Ok(());
    };
    writeln!(out, "## Walkthrough\n")?;
    writeln!(
        out,
        "_Written by the synthesis lane (engine {}); it has no say over the findings or the verdict._\n",
        code(&w.engine)
    )?;
    // Paragraphs stay paragraphs; nothing in one can open a heading, a
    // list or a table.
    for paragraph in w.text.split("\n\n").map(inline).filter(|p| !p.is_empty()) {
        writeln!(out, "{}\n", escape_lead(&paragraph))?;
    }
    if !w.files.is_empty() {
        writeln!(out, "| File | Change |\n|---|---|")?;
        for f in &w.files {
            writeln!(
                out,
                "| {} | {} |",
                cell(&code(&f.path)),
                cell(&inline(&f.note))
            )?;
        }
        writeln!(out)?;
    }
    if let Some(note) = &w.note {
        writeln!(out, "Note: {}\n", inline(note))?;
    }
    Ok(())
}

/// A paragraph that would start a Markdown block (`#`, `>`, `-`, `|`, a
/// numbered item) gets its opening mark escaped.
fn escape_lead(paragraph: &str) -> String {
    if paragraph.starts_with(['#', '>', '-', '*', '+', '|', '=', '<']) {
        return format!("\\{paragraph}");
    }
    let digits = paragraph.bytes().take_while(u8::is_ascii_digit).count();
    match paragraph[digits..].chars().next() {
        Some('.' | ')') if digits > 0 => {
            format!("{}\\{}", &paragraph[..digits], &paragraph[digits..])
        }
        _ => paragraph.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::escape_lead;

    #[test]
    fn a_paragraph_cannot_open_a_block() {
        assert_eq!(escape_lead("# Title"), "\\# Title");
        assert_eq!(escape_lead("1. first"), "1\\. first");
        assert_eq!(
            escape_lead("The change adds a parser."),
            "The change adds a parser."
        );
    }
}
