//! Input budgets: counting a prompt's tokens (what [`super::plan`] fills
//! requests with is counted here).
//!
//! Tokens are counted with the model family's own tokenizer where revu
//! knows it (OpenAI's BPE encodings, by model name), and estimated
//! otherwise at one token per [`BYTES_PER_TOKEN`] bytes: source code runs
//! at about 3 to 4 bytes a token in the tokenizers of Claude, Llama, Qwen
//! and Mistral, so the estimate errs on the side of more tokens.

use tiktoken_rs::CoreBPE;

/// Bytes per token of the estimate used when the model's tokenizer is not
/// known.
pub const BYTES_PER_TOKEN: usize = 3;

/// Tokens a request spends beyond its text: the chat template's role
/// markers, the structured-output instructions a server adds.
pub(super) const REQUEST_OVERHEAD: u64 = 64;

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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

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
}
