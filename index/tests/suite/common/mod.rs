//! Small repositories indexed before and after a change.

use revu_domain::code_index::CodeIndex;
use revu_index::{ChangeInput, Indexer, Options, SnippetPlan};

/// A repository before and after a change: (path, base, head); `None` for
/// a side the file does not have. Unchanged files have equal sides.
pub fn index(files: &[(&str, Option<&str>, Option<&str>)]) -> CodeIndex {
    let mut diff = String::new();
    let mut change = ChangeInput::default();
    let mut rest = Vec::new();
    for (path, base, head) in files {
        if base == head {
            rest.push((
                path.to_string(),
                head.unwrap_or_default().as_bytes().to_vec(),
            ));
            continue;
        }
        let (old, new) = (base.unwrap_or_default(), head.unwrap_or_default());
        let text = similar::TextDiff::from_lines(old, new);
        let from = if base.is_some() {
            format!("a/{path}")
        } else {
            "/dev/null".into()
        };
        let to = if head.is_some() {
            format!("b/{path}")
        } else {
            "/dev/null".into()
        };
        diff.push_str(&format!("diff --git a/{path} b/{path}\n"));
        if base.is_none() {
            diff.push_str("new file mode 100644\n");
        }
        if head.is_none() {
            diff.push_str("deleted file mode 100644\n");
        }
        diff.push_str(
            &text
                .unified_diff()
                .context_radius(3)
                .header(&from, &to)
                .to_string(),
        );
        if let Some(b) = base {
            change.base.insert(path.to_string(), b.as_bytes().to_vec());
        }
        if let Some(h) = head {
            change.head.insert(path.to_string(), h.as_bytes().to_vec());
        }
    }
    change.diff = match revu_domain::diff::parse(diff.as_bytes()) {
        Ok(d) => d,
        Err(e) => panic!("the test's diff does not parse: {e}\n{diff}"),
    };
    let mut indexer = Indexer::new(change, Options::default());
    indexer.scan(rest.iter().cloned());
    let mut index = indexer.finish();
    // The files the snippets still need, read again as a client does.
    let mut plan = SnippetPlan::of(&index);
    for (path, text) in &rest {
        plan.read(path, text);
    }
    plan.apply(&mut index);
    index
}
