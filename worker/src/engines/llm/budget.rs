//! Input budgets: counting a prompt's tokens, and fitting a lane that is
//! too large for one request into several that each fit.
//!
//! Tokens are counted with the model family's own tokenizer where revu
//! knows it (OpenAI's BPE encodings, by model name), and estimated
//! otherwise at one token per [`BYTES_PER_TOKEN`] bytes: source code runs
//! at about 3 to 4 bytes a token in the tokenizers of Claude, Llama, Qwen
//! and Mistral, so the estimate errs on the side of more tokens.
//!
//! The full files after the change go with the hunks when the whole lane
//! fits one request that way; otherwise the hunks alone. A lane over
//! budget is split by file, and a file too large for a request of its own
//! by hunk. A hunk that cannot fit even alone is left out and
//! named; the lane is then incomplete.

use super::prompt::{FileText, HunkText, Parts, Prompt};
use tiktoken_rs::CoreBPE;

/// Bytes per token of the estimate used when the model's tokenizer is not
/// known.
pub const BYTES_PER_TOKEN: usize = 3;

/// Tokens a request spends beyond its text: the chat template's role
/// markers, the structured-output instructions a server adds.
const REQUEST_OVERHEAD: u64 = 64;

/// How a model's tokens are counted.
#[derive(Clone, Copy)]
pub struct Counter {
    bpe: Option<&'static CoreBPE>,
    name: &'static str,
}

impl std::fmt::Debug for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl Counter {
    /// The model's own tokenizer when its name says which it is, else the
    /// estimate. The tokenizer's tables load on first use: call this off
    /// the async runtime.
    pub fn for_model(model: &str) -> Counter {
        use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};
        let Some(tokenizer) = get_tokenizer(model) else {
            return Counter::estimate();
        };
        let name = match tokenizer {
            Tokenizer::O200kBase => "o200k_base",
            Tokenizer::O200kHarmony => "o200k_harmony",
            Tokenizer::Cl100kBase => "cl100k_base",
            Tokenizer::P50kBase => "p50k_base",
            Tokenizer::P50kEdit => "p50k_edit",
            Tokenizer::R50kBase | Tokenizer::Gpt2 => "r50k_base",
        };
        match tiktoken_rs::bpe_for_tokenizer(tokenizer) {
            Ok(bpe) => Counter {
                bpe: Some(bpe),
                name,
            },
            Err(_) => Counter::estimate(),
        }
    }

    /// The byte-length estimate.
    pub fn estimate() -> Counter {
        Counter {
            bpe: None,
            name: "estimate (3 bytes a token)",
        }
    }

    /// How this counter counts, for the lane's checks.
    pub fn name(&self) -> &'static str {
        self.name
    }

    pub fn count(&self, text: &str) -> u64 {
        let n = match self.bpe {
            Some(bpe) => bpe.encode_ordinary(text).len(),
            None => text.len().div_ceil(BYTES_PER_TOKEN),
        };
        u64::try_from(n).unwrap_or(u64::MAX)
    }
}

/// The requests a lane is reviewed in, and what had to be left out.
#[derive(Debug, Clone)]
pub struct Fitted {
    /// Each request's prompt and its counted input tokens.
    pub requests: Vec<(Prompt, u64)>,
    /// Files or hunks no request could carry, as `path` or `path @@ … @@`.
    pub left_out: Vec<String>,
}

/// One request's share of the lane's files, being filled.
#[derive(Default)]
struct Bin {
    data: String,
    tokens: u64,
}

/// Fits `parts` into requests of at most `budget` input tokens each.
pub fn fit(parts: &Parts, counter: Counter, budget: u64) -> Fitted {
    // Every request repeats the system message: counted once.
    let system = counter.count(&parts.system) + REQUEST_OVERHEAD;
    let tokens_of = |prompt: &Prompt| system + counter.count(&prompt.user());
    // Full files too, where they fit beside the hunks in one request.
    if parts.files.iter().any(|f| f.head.is_some()) {
        let whole: String = parts.files.iter().map(FileText::text_with_head).collect();
        let single = parts.prompt(&whole, None);
        let tokens = tokens_of(&single);
        if tokens <= budget {
            return Fitted {
                requests: vec![(single, tokens)],
                left_out: Vec::new(),
            };
        }
    }
    let whole: String = parts.files.iter().map(FileText::text).collect();
    let single = parts.prompt(&whole, None);
    let single_tokens = tokens_of(&single);
    if single_tokens <= budget || parts.files.is_empty() {
        return Fitted {
            requests: vec![(single, single_tokens)],
            left_out: Vec::new(),
        };
    }
    // What a request of several parts spends before its share of files.
    let fixed = tokens_of(&parts.prompt("", Some((99, 99))));
    let room = budget.saturating_sub(fixed);
    let mut bins: Vec<Bin> = Vec::new();
    let mut left_out = Vec::new();
    let mut current = Bin::default();
    let place = |text: String, tokens: u64, current: &mut Bin, bins: &mut Vec<Bin>| {
        if current.tokens + tokens > room && !current.data.is_empty() {
            bins.push(std::mem::take(current));
        }
        current.data.push_str(&text);
        current.tokens += tokens;
    };
    for file in &parts.files {
        let text = file.text();
        let tokens = counter.count(&text);
        if tokens <= room {
            place(text, tokens, &mut current, &mut bins);
            continue;
        }
        // Too large for a request of its own: hunk by hunk, as many
        // consecutive hunks per request as fit.
        let mut run: Vec<HunkText> = Vec::new();
        let mut run_tokens = 0;
        let header = counter.count(&file.hunks_text(&[], true));
        for hunk in &file.hunks {
            let tokens = counter.count(&hunk.text);
            if header + tokens > room {
                left_out.push(format!("{} {}", file.path, hunk.label));
                continue;
            }
            if header + run_tokens + tokens > room {
                let text = file.hunks_text(&run, true);
                place(text, header + run_tokens, &mut current, &mut bins);
                run.clear();
                run_tokens = 0;
            }
            run.push(hunk.clone());
            run_tokens += tokens;
        }
        if !run.is_empty() {
            let text = file.hunks_text(&run, true);
            place(text, header + run_tokens, &mut current, &mut bins);
        }
    }
    if !current.data.is_empty() {
        bins.push(current);
    }
    let n = bins.len();
    let requests = bins
        .into_iter()
        .enumerate()
        .map(|(i, bin)| {
            let prompt = parts.prompt(&bin.data, (n > 1).then_some((i + 1, n)));
            let tokens = tokens_of(&prompt);
            (prompt, tokens)
        })
        .collect();
    Fitted { requests, left_out }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn hunk(label: &str, lines: usize) -> HunkText {
        HunkText {
            label: label.to_owned(),
            text: format!("{label}\n{}", "     1 + let x = 1;\n".repeat(lines)),
        }
    }

    fn parts(files: Vec<FileText>) -> Parts {
        Parts {
            system: "system".to_owned(),
            task: String::new(),
            context: String::new(),
            files,
        }
    }

    fn file(path: &str, hunks: Vec<HunkText>) -> FileText {
        FileText {
            path: path.to_owned(),
            hunks,
            head: None,
        }
    }

    #[test]
    fn openai_models_count_with_their_own_tokenizer_and_others_estimate() {
        assert_eq!(Counter::for_model("gpt-4o-mini").name(), "o200k_base");
        assert_eq!(Counter::for_model("gpt-4").name(), "cl100k_base");
        let other = Counter::for_model("claude-sonnet-4-5");
        assert_eq!(other.name(), Counter::estimate().name());
        assert_eq!(other.count("abcdefg"), 3);
        // A real tokenizer counts words, not bytes.
        let gpt = Counter::for_model("gpt-4o");
        assert!(gpt.count("hello world") <= 3);
    }

    #[test]
    fn a_lane_within_budget_is_one_request_without_a_part_note() {
        let p = parts(vec![file("a.rs", vec![hunk("@@ -1,1 +1,1 @@", 3)])]);
        let fitted = fit(&p, Counter::estimate(), 10_000);
        assert_eq!(fitted.requests.len(), 1);
        assert!(fitted.left_out.is_empty());
        assert!(!fitted.requests[0].0.user().contains("parts"));
    }

    #[test]
    fn full_files_go_along_only_while_the_lane_fits_one_request() {
        let mut with_head = file("a.rs", vec![hunk("@@ -1,1 +1,1 @@", 3)]);
        with_head.head = Some("     1   let x = 1;\n".repeat(300));
        let p = parts(vec![with_head]);
        let counter = Counter::estimate();
        let roomy = fit(&p, counter, 100_000);
        assert!(
            roomy.requests[0]
                .0
                .user()
                .contains("## Full file after the change: a.rs")
        );
        // Room for the hunks, not the file: the hunks alone, one request.
        let tight = fit(&p, counter, 400);
        assert_eq!(tight.requests.len(), 1);
        assert!(!tight.requests[0].0.user().contains("Full file"));
        assert!(tight.requests[0].0.user().contains("## File: a.rs"));
    }

    #[test]
    fn an_over_budget_lane_is_split_by_file_then_by_hunk_and_names_what_cannot_fit() {
        let small = |name: &str| file(name, vec![hunk("@@ -1,1 +1,1 @@", 10)]);
        let big = file(
            "big.rs",
            vec![
                hunk("@@ -1,1 +1,40 @@", 40),
                hunk("@@ -90,1 +90,40 @@", 40),
                hunk("@@ -500,1 +500,900 @@", 900),
            ],
        );
        let p = parts(vec![small("a.rs"), small("b.rs"), big]);
        let counter = Counter::estimate();
        let budget = 600;
        let fitted = fit(&p, counter, budget);
        assert_eq!(fitted.left_out, vec!["big.rs @@ -500,1 +500,900 @@"]);
        assert!(fitted.requests.len() >= 2, "{:?}", fitted.requests.len());
        for (prompt, tokens) in &fitted.requests {
            assert!(*tokens <= budget, "a request of {tokens} tokens");
            assert!(prompt.user().contains("parts; this is part"));
        }
        let all: String = fitted.requests.iter().map(|r| r.0.user()).collect();
        for shown in [
            "## File: a.rs",
            "## File: b.rs",
            "@@ -1,1 +1,40 @@",
            "@@ -90,1 +90,40 @@",
        ] {
            assert_eq!(all.matches(shown).count(), 1, "{shown} once");
        }
        assert!(!all.contains("@@ -500,1"));
        assert!(all.contains("## File: big.rs (some of its hunks"));
    }
}
