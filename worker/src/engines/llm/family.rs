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
    #[error("--llm-reasoning-models {pattern:?}: {reason}")]
    Pattern { pattern: String, reason: String },
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
                .map_err(|e| FamilyError::Pattern {
                    pattern: pattern.to_owned(),
                    reason: e.kind().to_string(),
                })?;
            set.add(glob);
        }
        let built = |set: GlobSetBuilder| {
            set.build().map_err(|e| FamilyError::Pattern {
                pattern: patterns.join(","),
                reason: e.to_string(),
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
mod tests {
    use super::*;

    fn settings() -> LlmSettings {
        LlmSettings::default()
    }

    fn resolve(provider: Provider, base: &str, model: &str, s: &LlmSettings) -> Family {
        let patterns = ReasoningModels::parse(&s.reasoning_models).unwrap();
        Family::resolve(provider, base, model, s, &patterns).unwrap()
    }

    #[test]
    fn the_default_patterns_name_openais_reasoning_families() {
        let r = ReasoningModels::parse(&[]).unwrap();
        for model in [
            "o1",
            "o3-mini",
            "o4-mini-2025-04-16",
            "gpt-5",
            "gpt-5-mini",
            "GPT-5-nano",
            "openai/gpt-5.1",
        ] {
            assert!(r.matches(model), "{model}");
        }
        for model in [
            "gpt-4.1-mini",
            "gpt-4o",
            "gpt-5-chat-latest",
            "claude-opus-4-1",
            "qwen3",
        ] {
            assert!(!r.matches(model), "{model}");
        }
        let own = ReasoningModels::parse(&["default".into(), "prod-review*".into()]).unwrap();
        assert!(own.matches("prod-reviewer") && own.matches("o3"));
        let none = ReasoningModels::parse(&["none".into()]).unwrap();
        assert!(!none.matches("gpt-5"));
        assert!(matches!(
            ReasoningModels::parse(&["o[1".into()]),
            Err(FamilyError::Pattern { .. })
        ));
    }

    #[test]
    fn reasoning_models_get_max_completion_tokens_and_no_temperature() {
        let s = LlmSettings {
            reasoning_effort: Some(ReasoningEffort::High),
            ..settings()
        };
        let f = resolve(
            Provider::Openai,
            "https://api.openai.com/v1",
            "gpt-5-mini",
            &s,
        );
        assert!(f.reasoning);
        assert_eq!(f.max_tokens_field, MaxTokensField::MaxCompletionTokens);
        assert_eq!(f.temperature, None);
        assert_eq!(f.reasoning_effort, Some(ReasoningEffort::High));
        assert_eq!(f.max_output_tokens, REASONING_OUTPUT_TOKENS);
        // Behind any server: the model refuses max_tokens wherever it runs.
        let proxied = resolve(Provider::Openai, "http://gateway:4000/v1", "o4-mini", &s);
        assert_eq!(
            proxied.max_tokens_field,
            MaxTokensField::MaxCompletionTokens
        );
        // A plain model beside it keeps its temperature and gets no effort.
        let plain = resolve(
            Provider::Openai,
            "https://api.openai.com/v1",
            "gpt-4.1-mini",
            &s,
        );
        assert_eq!(plain.temperature, Some(0.0));
        assert_eq!(plain.reasoning_effort, None);
        assert_eq!(plain.max_output_tokens, ANSWER_TOKENS);
        assert_eq!(plain.max_tokens_field, MaxTokensField::MaxCompletionTokens);
    }

    #[test]
    fn the_field_follows_the_server_unless_set() {
        let s = settings();
        for (base, field) in [
            (
                "https://api.openai.com/v1",
                MaxTokensField::MaxCompletionTokens,
            ),
            (
                "https://x.openai.azure.com/openai/v1",
                MaxTokensField::MaxCompletionTokens,
            ),
            ("http://127.0.0.1:8080/v1", MaxTokensField::MaxTokens),
            ("http://vllm:8000/v1", MaxTokensField::MaxTokens),
        ] {
            assert_eq!(
                resolve(Provider::Openai, base, "qwen", &s).max_tokens_field,
                field,
                "{base}"
            );
        }
        let set = LlmSettings {
            max_tokens_field: Some(MaxTokensField::MaxCompletionTokens),
            temperature: Some(0.3),
            ..settings()
        };
        let f = resolve(Provider::Openai, "http://vllm:8000/v1", "qwen", &set);
        assert_eq!(f.max_tokens_field, MaxTokensField::MaxCompletionTokens);
        assert_eq!(f.temperature, Some(0.3));
    }

    #[test]
    fn thinking_is_met_by_construction_or_refused_with_the_flag() {
        let s = LlmSettings {
            thinking_budget: Some(4096),
            ..settings()
        };
        let f = resolve(
            Provider::Anthropic,
            "https://api.anthropic.com",
            "claude-sonnet-4-5",
            &s,
        );
        assert_eq!(f.thinking_budget, Some(4096));
        assert_eq!(f.temperature, None);
        assert_eq!(f.max_output_tokens, 4096 + ANSWER_TOKENS);
        assert_eq!(f.answer_tokens(), ANSWER_TOKENS);
        let refused = |s: LlmSettings, provider: Provider| {
            let patterns = ReasoningModels::parse(&[]).unwrap();
            Family::resolve(provider, "http://x", "m", &s, &patterns).unwrap_err()
        };
        let over = LlmSettings {
            max_output_tokens: Some(4096),
            ..s.clone()
        };
        assert_eq!(
            refused(over, Provider::Anthropic),
            FamilyError::ThinkingOverOutput {
                budget: 4096,
                max: 4096
            }
        );
        let small = LlmSettings {
            thinking_budget: Some(512),
            ..settings()
        };
        assert_eq!(
            refused(small, Provider::Anthropic),
            FamilyError::ThinkingTooSmall(512)
        );
        let warm = LlmSettings {
            temperature: Some(0.0),
            ..s.clone()
        };
        assert!(
            refused(warm, Provider::Anthropic)
                .to_string()
                .contains("leave the flag out")
        );
        assert_eq!(
            refused(s, Provider::Openai),
            FamilyError::ThinkingNeedsAnthropic
        );
        let effort = LlmSettings {
            reasoning_effort: Some(ReasoningEffort::Low),
            ..settings()
        };
        assert_eq!(
            refused(effort, Provider::Anthropic),
            FamilyError::EffortNeedsOpenai
        );
        let hot = LlmSettings {
            temperature: Some(1.5),
            ..settings()
        };
        assert!(
            refused(hot, Provider::Anthropic)
                .to_string()
                .contains("from 0 to 1")
        );
    }
}
