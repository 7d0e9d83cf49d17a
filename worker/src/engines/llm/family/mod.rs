//! What a model takes in a request, decided once per engine from its
//! provider, its server and its model name, so that every request is one
//! the model accepts:
//!
//! - OpenAI's reasoning models (the o1, o3, o4 and gpt-5 families) refuse
//!   `max_tokens` and any `temperature` but the default: they get
//!   `max_completion_tokens`, no temperature, and `reasoning_effort` when
//!   one is asked for. Which models are reasoning models is a list of name
//!   patterns an operator can replace (`--llm-reasoning-models`), since
//!   compatible servers and Azure deployments name models as they like.
//! - Other models on an OpenAI-compatible server get the configured
//!   temperature and the field that bounds the answer: OpenAI's and Azure
//!   OpenAI's APIs take `max_completion_tokens` for every model; llama.cpp,
//!   vLLM, Ollama and other servers know `max_tokens` (some only it).
//! - Anthropic models get `max_tokens`; with a thinking budget, `thinking`
//!   and no temperature, the budget 1024 or more and below `max_tokens`.
//!
//! Reasoning and thinking spend output tokens: the output limit covers them
//! and the answer, which is why a reasoning model's default limit is
//! larger and a thinking model's is its budget plus room for the answer.

use super::settings::LlmSettings;
use super::wire::Provider;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// Output tokens an answer gets when nothing else says: the room of a
/// plain model's answer, and what a thinking budget is topped up with.
pub const ANSWER_TOKENS: u32 = 2048;
/// Output limit of a reasoning model when nothing else says: room to
/// reason and to answer.
pub const REASONING_OUTPUT_TOKENS: u32 = 16_384;
/// Smallest thinking budget Anthropic takes.
pub const MIN_THINKING_BUDGET: u32 = 1024;
/// Temperature of a model that takes one when nothing else says.
pub const TEMPERATURE: f64 = 0.0;

/// The name patterns of OpenAI's reasoning models. The gpt-5 chat models
/// do not reason.
pub const REASONING_MODELS: [&str; 5] = ["o1*", "o3*", "o4*", "gpt-5*", "!gpt-5*-chat*"];

/// The request field that bounds the answer on an OpenAI-compatible server.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    /// What OpenAI takes for every model, and its reasoning models only.
    #[value(name = "max_completion_tokens")]
    MaxCompletionTokens,
    /// What llama.cpp, vLLM, Ollama and older servers know.
    #[value(name = "max_tokens")]
    MaxTokens,
}

impl MaxTokensField {
    pub fn as_str(self) -> &'static str {
        match self {
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
            MaxTokensField::MaxTokens => "max_tokens",
        }
    }
}

/// How hard an OpenAI reasoning model reasons (`reasoning_effort`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningEffort {
    Low,
    Medium,
    High,
}

impl ReasoningEffort {
    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningEffort::Low => "low",
            ReasoningEffort::Medium => "medium",
            ReasoningEffort::High => "high",
        }
    }
}

/// Why the model flags do not make a request a model accepts.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FamilyError {
    #[error(
        "--llm-thinking-budget is for --llm-provider anthropic (OpenAI's reasoning models take --llm-reasoning-effort)"
    )]
    ThinkingNeedsAnthropic,
    #[error(
        "--llm-reasoning-effort is for --llm-provider openai (Anthropic models think with --llm-thinking-budget)"
    )]
    EffortNeedsOpenai,
    #[error("--llm-max-tokens-field max_completion_tokens: Anthropic's API knows only max_tokens")]
    FieldNeedsOpenai,
    #[error(
        "--llm-thinking-budget {0}: Anthropic takes a thinking budget of {MIN_THINKING_BUDGET} tokens or more"
    )]
    ThinkingTooSmall(u32),
    #[error(
        "--llm-thinking-budget {budget} must be below --llm-max-output-tokens {max}: the answer follows the thinking within it"
    )]
    ThinkingOverOutput { budget: u32, max: u32 },
    #[error(
        "--llm-temperature {0}: a model thinking (--llm-thinking-budget) takes no temperature; leave the flag out"
    )]
    TemperatureWithThinking(f64),
    #[error("--llm-temperature {value}: {provider} takes a temperature from 0 to {max}")]
    Temperature {
        value: f64,
        provider: &'static str,
        max: f64,
    },
    /// A pattern that does not compile; said by the kind of its error,
    /// since the error's own text repeats the pattern.
    #[error("--llm-reasoning-models {pattern:?}: {}", .error.kind())]
    Pattern {
        pattern: String,
        error: globset::Error,
    },
    #[error(
        "--llm-reasoning-effort {effort}: no engine's model is a reasoning model ({models}); name it in --llm-reasoning-models"
    )]
    EffortWithoutReasoning {
        effort: &'static str,
        models: String,
    },
}

/// Which model names are reasoning models: a name matching a pattern and
/// no `!` pattern. Matched without the provider prefix some gateways put
/// in front (`openai/gpt-5-mini`) and without regard to case.
#[derive(Debug, Clone)]
pub struct ReasoningModels {
    include: GlobSet,
    exclude: GlobSet,
}

impl ReasoningModels {
    /// The patterns of `--llm-reasoning-models`: none given, or `default`
    /// among them, means [`REASONING_MODELS`]; `none` means no model.
    pub fn parse(patterns: &[String]) -> Result<ReasoningModels, FamilyError> {
        let mut all: Vec<&str> = Vec::new();
        let given: Vec<&str> = patterns
            .iter()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .collect();
        if given.is_empty() {
            all.extend(REASONING_MODELS);
        }
        for pattern in given {
            match pattern {
                "default" => all.extend(REASONING_MODELS),
                "none" => {}
                _ => all.push(pattern),
            }
        }
        let (mut include, mut exclude) = (GlobSetBuilder::new(), GlobSetBuilder::new());
        for pattern in all {
            let (set, glob) = match pattern.strip_prefix('!') {
                Some(rest) => (&mut exclude, rest),
                None => (&mut include, pattern),
            };
            let glob = GlobBuilder::new(glob)
                .case_insensitive(true)
                .build()
                .map_err(|error| FamilyError::Pattern {
                    pattern: pattern.to_owned(),
                    error,
                })?;
            set.add(glob);
        }
        let built = |set: GlobSetBuilder| {
            set.build().map_err(|error| FamilyError::Pattern {
                pattern: patterns.join(","),
                error,
            })
        };
        Ok(ReasoningModels {
            include: built(include)?,
            exclude: built(exclude)?,
        })
    }

    pub fn matches(&self, model: &str) -> bool {
        let name = model.rsplit('/').next().unwrap_or(model);
        self.include.is_match(name) && !self.exclude.is_match(name)
    }
}

/// What one engine's requests carry beside the prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    /// An OpenAI reasoning model.
    pub reasoning: bool,
    /// The field `max_output_tokens` goes in (OpenAI-compatible servers).
    pub max_tokens_field: MaxTokensField,
    /// Most output tokens of one answer, reasoning or thinking included.
    pub max_output_tokens: u32,
    /// `None`: the request carries no temperature.
    pub temperature: Option<f64>,
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Anthropic extended thinking: most tokens the model thinks.
    pub thinking_budget: Option<u32>,
}

impl Family {
    /// What `model` on `provider` at `base` takes, by `settings`.
    pub fn resolve(
        provider: Provider,
        base: &str,
        model: &str,
        settings: &LlmSettings,
        reasoning_models: &ReasoningModels,
    ) -> Result<Family, FamilyError> {
        let openai = provider == Provider::Openai;
        match (
            provider,
            settings.thinking_budget,
            settings.reasoning_effort,
        ) {
            (Provider::Openai, Some(_), _) => return Err(FamilyError::ThinkingNeedsAnthropic),
            (Provider::Anthropic, _, Some(_)) => return Err(FamilyError::EffortNeedsOpenai),
            _ => {}
        }
        let reasoning = openai && reasoning_models.matches(model);
        let max_tokens_field = match (provider, settings.max_tokens_field) {
            (Provider::Anthropic, Some(MaxTokensField::MaxCompletionTokens)) => {
                return Err(FamilyError::FieldNeedsOpenai);
            }
            (Provider::Anthropic, _) => MaxTokensField::MaxTokens,
            (Provider::Openai, Some(field)) => field,
            (Provider::Openai, None) if reasoning || openai_api(base) => {
                MaxTokensField::MaxCompletionTokens
            }
            (Provider::Openai, None) => MaxTokensField::MaxTokens,
        };
        let thinking_budget = settings.thinking_budget;
        let max_output_tokens = match (settings.max_output_tokens, thinking_budget) {
            (Some(max), Some(budget)) if budget >= max => {
                return Err(FamilyError::ThinkingOverOutput { budget, max });
            }
            (Some(max), _) => max.max(1),
            (None, Some(budget)) => budget.saturating_add(ANSWER_TOKENS),
            (None, None) if reasoning => REASONING_OUTPUT_TOKENS,
            (None, None) => ANSWER_TOKENS,
        };
        if let Some(budget) = thinking_budget.filter(|b| *b < MIN_THINKING_BUDGET) {
            return Err(FamilyError::ThinkingTooSmall(budget));
        }
        let temperature = match (settings.temperature, thinking_budget) {
            (Some(t), Some(_)) => return Err(FamilyError::TemperatureWithThinking(t)),
            (_, Some(_)) => None,
            (Some(t), None) => Some(check_temperature(provider, t)?),
            (None, None) => Some(TEMPERATURE),
        }
        // A reasoning model takes only its default temperature.
        .filter(|_| !reasoning);
        Ok(Family {
            reasoning,
            max_tokens_field,
            max_output_tokens,
            temperature,
            reasoning_effort: settings.reasoning_effort.filter(|_| reasoning),
            thinking_budget,
        })
    }

    /// Output tokens left for the answer once the model has thought.
    pub fn answer_tokens(&self) -> u32 {
        self.max_output_tokens
            .saturating_sub(self.thinking_budget.unwrap_or(0))
            .max(1)
    }

    /// What the requests carry, for the lane result cache's key: another
    /// request shape may give another answer.
    pub fn identity(&self) -> String {
        let mut out = format!(
            "{}={}",
            self.max_tokens_field.as_str(),
            self.max_output_tokens
        );
        if let Some(t) = self.temperature {
            out.push_str(&format!("/temperature={t}"));
        }
        if let Some(effort) = self.reasoning_effort {
            out.push_str(&format!("/effort={}", effort.as_str()));
        }
        if let Some(budget) = self.thinking_budget {
            out.push_str(&format!("/thinking={budget}"));
        }
        out
    }
}

/// `--llm-reasoning-effort` asks for something: some engine must reason.
pub fn check_effort(
    settings: &LlmSettings,
    engines: &[(&str, &Family)],
) -> Result<(), FamilyError> {
    match settings.reasoning_effort {
        Some(effort) if !engines.iter().any(|(_, f)| f.reasoning) => {
            Err(FamilyError::EffortWithoutReasoning {
                effort: effort.as_str(),
                models: engines
                    .iter()
                    .map(|(model, _)| *model)
                    .collect::<Vec<_>>()
                    .join(", "),
            })
        }
        _ => Ok(()),
    }
}

fn check_temperature(provider: Provider, value: f64) -> Result<f64, FamilyError> {
    let (name, max) = match provider {
        Provider::Openai => ("openai", 2.0),
        Provider::Anthropic => ("anthropic", 1.0),
    };
    if (0.0..=max).contains(&value) {
        Ok(value)
    } else {
        Err(FamilyError::Temperature {
            value,
            provider: name,
            max,
        })
    }
}

/// Whether `base` is OpenAI's own API or Azure OpenAI's, which take
/// `max_completion_tokens` for every model.
fn openai_api(base: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(base) else {
        return false;
    };
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    host == "api.openai.com"
        || host.ends_with(".openai.azure.com")
        || host.ends_with(".cognitiveservices.azure.com")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
