//! How a worker or `revu review` is told about a model server: the `llm`
//! flags, and the engines they describe.

use super::family::{self, Family, MaxTokensField, ReasoningEffort, ReasoningModels};
use super::prompts::PromptSet;
use super::wire::Provider;
use super::{LlmEngine, LlmSetupError, price};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// How a worker or `revu review` reaches a model; the `llm` engine is
/// offered when a provider is set.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize)]
pub struct LlmSettings {
    /// Wire protocol of the model server: `openai` (OpenAI and any
    /// compatible server: Azure OpenAI, vLLM, llama.cpp, Ollama, LiteLLM)
    /// or `anthropic`. Offers the `llm` engine.
    #[arg(long = "llm-provider", env = "REVU_LLM_PROVIDER", value_enum)]
    pub provider: Option<Provider>,

    /// Base URL as the provider's SDK takes it: `…/v1` for OpenAI-compatible
    /// servers, the server root for Anthropic [default: the provider's
    /// public API].
    #[arg(long = "llm-base-url", env = "REVU_LLM_BASE_URL")]
    pub base_url: Option<String>,

    /// Model name.
    #[arg(long = "llm-model", env = "REVU_LLM_MODEL")]
    pub model: Option<String>,

    /// API key. Prefer the variable or `--llm-api-key-file`: a flag shows
    /// in the process list. Never logged or printed.
    #[arg(long = "llm-api-key", env = "REVU_LLM_API_KEY", hide_env_values = true)]
    #[serde(skip)]
    pub api_key: Option<String>,

    /// A file holding the API key (e.g. a mounted secret).
    #[arg(long = "llm-api-key-file", env = "REVU_LLM_API_KEY_FILE")]
    pub api_key_file: Option<PathBuf>,

    /// Most tokens one answer may take, reasoning or thinking included
    /// [default: 2048; 16384 for a reasoning model; with
    /// --llm-thinking-budget, the budget and 2048].
    #[arg(long = "llm-max-output-tokens", env = "REVU_LLM_MAX_OUTPUT_TOKENS")]
    pub max_output_tokens: Option<u32>,

    /// The request field that bounds the answer on an OpenAI-compatible
    /// server: `max_completion_tokens` or `max_tokens` [default:
    /// max_completion_tokens on OpenAI's and Azure OpenAI's APIs and for
    /// reasoning models, max_tokens elsewhere].
    #[arg(
        long = "llm-max-tokens-field",
        env = "REVU_LLM_MAX_TOKENS_FIELD",
        value_enum
    )]
    pub max_tokens_field: Option<MaxTokensField>,

    /// Sampling temperature, sent to models that take one: not to
    /// reasoning models, nor with a thinking budget [default: 0].
    #[arg(long = "llm-temperature", env = "REVU_LLM_TEMPERATURE")]
    pub temperature: Option<f64>,

    /// How hard OpenAI's reasoning models reason: low, medium or high
    /// (`reasoning_effort`; sent to reasoning models only) [default: the
    /// model's].
    #[arg(
        long = "llm-reasoning-effort",
        env = "REVU_LLM_REASONING_EFFORT",
        value_enum
    )]
    pub reasoning_effort: Option<ReasoningEffort>,

    /// Which models are reasoning models (no temperature,
    /// `max_completion_tokens`, `reasoning_effort`): name patterns, `*` for
    /// any text, `!` in front to exclude; `default` for the built-in ones,
    /// `none` for no model [default: o1*,o3*,o4*,gpt-5*,!gpt-5*-chat*].
    #[arg(
        long = "llm-reasoning-models",
        env = "REVU_LLM_REASONING_MODELS",
        value_delimiter = ',',
        value_name = "PATTERNS"
    )]
    #[serde(default)]
    pub reasoning_models: Vec<String>,

    /// Anthropic extended thinking: most tokens the model thinks before it
    /// answers (1024 or more, below --llm-max-output-tokens). No
    /// temperature is sent with it.
    #[arg(
        long = "llm-thinking-budget",
        env = "REVU_LLM_THINKING_BUDGET",
        value_name = "TOKENS"
    )]
    pub thinking_budget: Option<u32>,

    /// Most input tokens one request may carry (the prompt, counted with
    /// the model's tokenizer where known, else estimated), filled by
    /// priority: the lane's hunks, the definitions around them, callers
    /// and tests, whole files. A lane whose hunks do not fit is reviewed
    /// in several requests, split by file, then by hunk [default: 32000].
    #[arg(
        long = "llm-context-tokens",
        env = "REVU_LLM_CONTEXT_TOKENS",
        value_name = "TOKENS"
    )]
    pub context_tokens: Option<u64>,

    /// The older name of --llm-context-tokens, which wins when both are
    /// set.
    #[arg(
        long = "llm-max-input-tokens",
        env = "REVU_LLM_MAX_INPUT_TOKENS",
        value_name = "TOKENS"
    )]
    pub max_input_tokens: Option<u64>,

    /// More engines on the same server, each a name and a model:
    /// `light=gpt-4.1-nano` offers engine `light` (lanes choose it with
    /// `--lane-engine`).
    #[arg(long = "llm-engine", env = "REVU_LLM_ENGINES", value_delimiter = ',', value_parser = parse_named_model)]
    #[serde(default)]
    pub engines: Vec<NamedModel>,

    /// A price table (TOML, dollars per million tokens by model) for the
    /// lanes' `cost_usd`.
    #[arg(long = "llm-prices", env = "REVU_LLM_PRICES")]
    pub prices: Option<PathBuf>,

    /// Ask for answers as server-sent events (`stream: true`), for servers
    /// and proxies that close a connection idle too long.
    #[arg(long = "llm-stream", env = "REVU_LLM_STREAM")]
    #[serde(default)]
    pub stream: bool,

    /// A directory of prompts that replace the built-in ones for this
    /// deployment, each named after the prompt it replaces: review.md (the
    /// method, the system message of every review lane), correctness.md,
    /// security.md, performance.md, design.md, testing.md, operability.md
    /// (a dimension's hunts), domain.md (a slice's hunts), adjudicate.md,
    /// group.md, synthesize.md. A prompt without a file stays built in; a
    /// replaced one is recorded as `<name>@<hash of its text>`.
    #[arg(long = "llm-prompts", env = "REVU_LLM_PROMPTS", value_name = "DIR")]
    pub prompts: Option<PathBuf>,

    /// Seconds one request may take before it is abandoned (transient).
    #[arg(
        long = "llm-timeout-secs",
        env = "REVU_LLM_TIMEOUT_SECS",
        default_value_t = defaults().timeout_secs
    )]
    pub timeout_secs: u64,
}

/// The input budget of one request when neither flag sets it.
pub const DEFAULT_CONTEXT_TOKENS: u64 = 32_000;

fn defaults() -> LlmSettings {
    LlmSettings::default()
}

/// The one place the defaults are written; the flags show them.
impl Default for LlmSettings {
    fn default() -> Self {
        LlmSettings {
            provider: None,
            base_url: None,
            model: None,
            api_key: None,
            api_key_file: None,
            max_output_tokens: None,
            max_tokens_field: None,
            temperature: None,
            reasoning_effort: None,
            reasoning_models: Vec::new(),
            thinking_budget: None,
            context_tokens: None,
            max_input_tokens: None,
            engines: Vec::new(),
            prices: None,
            stream: false,
            prompts: None,
            timeout_secs: 120,
        }
    }
}

/// `--llm-engine NAME=MODEL`: another engine on the configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedModel {
    pub name: String,
    pub model: String,
}

impl Serialize for NamedModel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}={}", self.name, self.model))
    }
}

impl<'de> Deserialize<'de> for NamedModel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_named_model(&s).map_err(serde::de::Error::custom)
    }
}

pub(super) fn parse_named_model(s: &str) -> Result<NamedModel, String> {
    let (name, model) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?}: expected NAME=MODEL, e.g. light=gpt-4.1-nano"))?;
    let (name, model) = (name.trim(), model.trim());
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        return Err(format!(
            "engine name {name:?} must be a-z, 0-9, '-' and '_'"
        ));
    }
    if model.is_empty() {
        return Err(format!("engine {name} names no model"));
    }
    Ok(NamedModel {
        name: name.to_owned(),
        model: model.to_owned(),
    })
}

impl LlmSettings {
    /// Most input tokens one request may carry: `--llm-context-tokens`,
    /// else its older name `--llm-max-input-tokens`, else the default.
    pub fn context_tokens(&self) -> u64 {
        self.context_tokens
            .or(self.max_input_tokens)
            .unwrap_or(DEFAULT_CONTEXT_TOKENS)
    }

    /// The engines these settings describe: `llm` with `--llm-model`, and
    /// one per `--llm-engine`; none when no provider is set.
    pub async fn engines(&self) -> Result<Vec<LlmEngine>, LlmSetupError> {
        let Some(first) = self.engine().await? else {
            if !self.engines.is_empty() {
                return Err(LlmSetupError::EngineWithoutProvider);
            }
            return Ok(Vec::new());
        };
        let reasoning = ReasoningModels::parse(&self.reasoning_models)?;
        let base = self.base(first.provider);
        let mut all = Vec::new();
        for named in &self.engines {
            if named.name == first.name || all.iter().any(|e: &LlmEngine| e.name == named.name) {
                return Err(LlmSetupError::Twice {
                    name: named.name.clone(),
                });
            }
            let family = Family::resolve(first.provider, &base, &named.model, self, &reasoning)
                .map_err(|source| LlmSetupError::Model {
                    name: named.name.clone(),
                    model: named.model.clone(),
                    source,
                })?;
            all.push(first.named(&named.name, &named.model, family));
        }
        all.insert(0, first);
        let families: Vec<(&str, &Family)> =
            all.iter().map(|e| (e.model.as_str(), &e.family)).collect();
        family::check_effort(self, &families)?;
        Ok(all)
    }

    /// The base URL of `provider`'s server: the one set, else its public API.
    fn base(&self, provider: Provider) -> String {
        self.base_url.clone().unwrap_or_else(|| {
            match provider {
                Provider::Openai => "https://api.openai.com/v1",
                Provider::Anthropic => "https://api.anthropic.com",
            }
            .to_owned()
        })
    }

    /// The `llm` engine, or `None` when no provider is set. Reads the key
    /// file, the price table and the prompt directory when they are named.
    async fn engine(&self) -> Result<Option<LlmEngine>, LlmSetupError> {
        let Some(provider) = self.provider else {
            return Ok(None);
        };
        let key = match (&self.api_key, &self.api_key_file) {
            (Some(key), _) => Some(key.trim().to_owned()),
            (None, Some(path)) => Some(
                tokio::fs::read_to_string(path)
                    .await
                    .map_err(|source| LlmSetupError::KeyFile {
                        path: path.clone(),
                        source,
                    })?
                    .trim()
                    .to_owned(),
            ),
            (None, None) => None,
        };
        let model = self.model.clone().ok_or(LlmSetupError::NoModel)?;
        let base = self.base(provider);
        let prices = match &self.prices {
            Some(path) => {
                let path = path.clone();
                tokio::task::spawn_blocking(move || price::PriceTable::load(&path))
                    .await
                    .map_err(LlmSetupError::PricesTask)??
            }
            None => price::PriceTable::default(),
        };
        let prompts = match &self.prompts {
            Some(dir) => {
                let dir = dir.clone();
                tokio::task::spawn_blocking(move || PromptSet::load(&dir))
                    .await
                    .map_err(LlmSetupError::PromptsTask)??
            }
            None => PromptSet::default(),
        };
        let mut engine = LlmEngine::new("llm", provider, &base, &model, key, self)?;
        engine.price = prices.get(&model);
        engine.prices = prices;
        // Read once; every engine of these settings shares it.
        engine.prompts = Arc::new(prompts);
        Ok(Some(engine))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Flags {
        #[command(flatten)]
        llm: LlmSettings,
    }

    fn budget(args: &[&str]) -> u64 {
        let flags = Flags::try_parse_from(std::iter::once("revu").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{e}"));
        flags.llm.context_tokens()
    }

    #[test]
    fn the_input_budget_takes_its_new_name_and_its_old_one() {
        assert_eq!(budget(&[]), DEFAULT_CONTEXT_TOKENS);
        assert_eq!(budget(&["--llm-context-tokens", "9000"]), 9000);
        assert_eq!(budget(&["--llm-max-input-tokens", "7000"]), 7000);
        let both = [
            "--llm-max-input-tokens",
            "7000",
            "--llm-context-tokens",
            "9000",
        ];
        assert_eq!(budget(&both), 9000, "the newer name wins");
    }
}
