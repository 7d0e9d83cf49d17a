//! The `llm` engine: a model reviews the lane over HTTP, through an
//! OpenAI-compatible chat completions API or Anthropic's Messages API.
//!
//! The model answers in the lane report's JSON Schema ([`reply::schema`]);
//! a server that ignores the schema is read tolerantly, and an answer that
//! still is not a report goes to the completeness gate as it is, which
//! lists what is wrong and sends it back once. An answer cut at the token
//! limit is never a clean lane: it reaches the gate marked incomplete.
//! Rate limits and server errors are transient and carry the server's
//! `Retry-After`; refusals (400, 401, 403, 404) are permanent with the
//! server's reason. Dropping the lane's future cancels the request.

pub mod prompt;
pub mod reply;
pub mod wire;

use super::{Engine, EngineError, EngineOutput, LaneInput, Review};
use revu_common::lane::{FaultKind, LaneKind};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;
use wire::{Content, Provider};

/// How a worker or `revu review` reaches a model; the `llm` engine is
/// offered when a provider is set.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize)]
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

    /// Most tokens one answer may take.
    #[arg(
        long = "llm-max-output-tokens",
        env = "REVU_LLM_MAX_OUTPUT_TOKENS",
        default_value_t = 2048
    )]
    pub max_output_tokens: u32,

    /// Seconds one request may take before it is abandoned (transient).
    #[arg(
        long = "llm-timeout-secs",
        env = "REVU_LLM_TIMEOUT_SECS",
        default_value_t = 120
    )]
    pub timeout_secs: u64,
}

impl LlmSettings {
    /// The engine these settings describe, or `None` when no provider is
    /// set. Reads the key file when one is named.
    pub async fn engine(&self) -> Result<Option<LlmEngine>, String> {
        let Some(provider) = self.provider else {
            return Ok(None);
        };
        let key = match (&self.api_key, &self.api_key_file) {
            (Some(key), _) => Some(key.trim().to_owned()),
            (None, Some(path)) => Some(
                tokio::fs::read_to_string(path)
                    .await
                    .map_err(|e| format!("--llm-api-key-file {}: {e}", path.display()))?
                    .trim()
                    .to_owned(),
            ),
            (None, None) => None,
        };
        let model = self
            .model
            .clone()
            .ok_or("--llm-model (REVU_LLM_MODEL) is needed with --llm-provider")?;
        let base = self.base_url.clone().unwrap_or_else(|| {
            match provider {
                Provider::Openai => "https://api.openai.com/v1",
                Provider::Anthropic => "https://api.anthropic.com",
            }
            .to_owned()
        });
        LlmEngine::new("llm", provider, &base, &model, key, self).map(Some)
    }
}

/// A model behind one of the two wire protocols.
pub struct LlmEngine {
    name: String,
    provider: Provider,
    url: String,
    model: String,
    key: Option<String>,
    max_output_tokens: u32,
    client: reqwest::Client,
}

impl std::fmt::Debug for LlmEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key stays out of every log line.
        f.debug_struct("LlmEngine")
            .field("name", &self.name)
            .field("provider", &self.provider)
            .field("url", &self.url)
            .field("model", &self.model)
            .field("key", &self.key.as_ref().map(|_| "<set>"))
            .finish_non_exhaustive()
    }
}

impl LlmEngine {
    pub fn new(
        name: &str,
        provider: Provider,
        base: &str,
        model: &str,
        key: Option<String>,
        settings: &LlmSettings,
    ) -> Result<Self, String> {
        install_tls_provider();
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(settings.timeout_secs.max(1)))
            .build()
            .map_err(|e| format!("engine {name}: HTTP client: {e}"))?;
        Ok(LlmEngine {
            name: name.to_owned(),
            provider,
            url: provider.url(base),
            model: model.to_owned(),
            key,
            max_output_tokens: settings.max_output_tokens.max(1),
            client,
        })
    }

    async fn run(&self, input: LaneInput) -> Result<EngineOutput, EngineError> {
        let input_meter = input.meter.clone();
        let kind = input.job.lane.kind.clone();
        let schema = reply::schema(
            (kind == LaneKind::Adjudication).then_some(input.job.candidates.len()),
            self.max_output_tokens,
        );
        // Building the prompt of a wide lane is CPU work: off the runtime.
        let prompt = tokio::task::spawn_blocking(move || prompt::build(&input))
            .await
            .map_err(|e| {
                EngineError::transient(FaultKind::Crash, format!("building the prompt: {e}"))
            })?;
        let body = self
            .provider
            .body(&self.model, &prompt, &schema, self.max_output_tokens);
        let mut request = self.client.post(&self.url).json(&body);
        for (name, value) in self.provider.fixed_headers() {
            request = request.header(name, value);
        }
        if let Some(key) = &self.key {
            for (name, value) in self.provider.auth_headers(key) {
                request = request.header(name, value);
            }
        }
        let sent = std::time::Instant::now();
        let meter = input_meter;
        let answered = async {
            let response = request.send().await?;
            let status = response.status();
            let retry_after = retry_after(response.headers());
            Ok::<_, reqwest::Error>((status, retry_after, response.text().await?))
        }
        .await;
        let (status, retry_after, text) = match answered {
            Ok(answered) => answered,
            Err(e) => {
                meter.record(&self.model, 0, 0, sent.elapsed());
                return Err(self.unreachable(&e));
            }
        };
        if !status.is_success() {
            meter.record(&self.model, 0, 0, sent.elapsed());
            return Err(self.refused(status.as_u16(), &text, retry_after));
        }
        let json: Value = serde_json::from_str(&text).map_err(|e| {
            meter.record(&self.model, 0, 0, sent.elapsed());
            EngineError::transient(
                FaultKind::BadReport,
                format!("{} answered with a body that is not JSON: {e}", self.url),
            )
        })?;
        let answer = self.provider.answer(&json);
        let tokens = answer
            .as_ref()
            .map(|a| (a.input_tokens.unwrap_or(0), a.output_tokens.unwrap_or(0)))
            .unwrap_or_default();
        meter.record(&self.model, tokens.0, tokens.1, sent.elapsed());
        let answer = answer.map_err(|e| {
            EngineError::transient(FaultKind::BadReport, format!("{}: {e}", self.url))
        })?;
        tracing::info!(
            gen_ai.system = self.system(),
            gen_ai.request.model = %self.model,
            gen_ai.usage.input_tokens = answer.input_tokens,
            gen_ai.usage.output_tokens = answer.output_tokens,
            truncated = answer.truncated,
            "model answered"
        );
        let parsed = match &answer.content {
            Content::Json(v) => Some(v.clone()),
            Content::Text(t) => reply::read_json(t),
        };
        if answer.truncated {
            let mut partial = parsed.filter(Value::is_object).unwrap_or_else(|| json!({}));
            partial[INCOMPLETE] = json!(format!(
                "the answer was cut at the output token limit ({} tokens)",
                self.max_output_tokens
            ));
            return Ok(EngineOutput::Raw(partial));
        }
        match parsed {
            // Prose: the gate says it is not a report.
            None => Ok(EngineOutput::Raw(Value::String(match answer.content {
                Content::Text(t) => t,
                Content::Json(v) => v.to_string(),
            }))),
            Some(value) => Ok(match reply::to_report(value, &self.name) {
                Ok(mut report) => {
                    report
                        .checks
                        .push(format!("prompt {}", prompt::PROMPT_VERSION));
                    EngineOutput::Body(report)
                }
                Err(value) => EngineOutput::Raw(value),
            }),
        }
    }

    /// `gen_ai.system` of the OpenTelemetry GenAI conventions.
    fn system(&self) -> &'static str {
        match self.provider {
            Provider::Openai => "openai",
            Provider::Anthropic => "anthropic",
        }
    }

    /// A request that got no answer: transient.
    fn unreachable(&self, e: &reqwest::Error) -> EngineError {
        let kind = if e.is_timeout() {
            FaultKind::Timeout
        } else {
            FaultKind::EngineError
        };
        EngineError::transient(kind, format!("{}: {e}", self.url))
    }

    /// An error status: rate limits and server errors are transient,
    /// refusals permanent, each with the server's own words.
    fn refused(&self, status: u16, body: &str, retry_after: Option<Duration>) -> EngineError {
        let reason = format!(
            "{} answered {status}: {}",
            self.url,
            wire::error_message(body)
        );
        let error = match status {
            429 => EngineError::transient(FaultKind::RateLimited, reason),
            500 | 502 | 503 | 504 | 529 => EngineError::transient(FaultKind::EngineError, reason),
            400..=499 => EngineError::permanent(FaultKind::Refused, reason),
            _ => EngineError::transient(FaultKind::EngineError, reason),
        };
        match retry_after {
            Some(after) if error.transient => error.retry_after(after),
            _ => error,
        }
    }
}

/// The section of a lane report that says the engine could not finish it
/// (the completeness gate's `incomplete`).
const INCOMPLETE: &str = "incomplete";

impl Engine for LlmEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn review(&self, input: LaneInput) -> Review<'_> {
        Box::pin(self.run(input))
    }
}

/// How long the server asked to wait: `retry-after-ms`, `Retry-After`
/// (seconds), or the `x-ratelimit-reset-*` durations (`1s`, `6m0s`,
/// `20ms`); the longest of them.
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let mut waits = Vec::new();
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        waits.push(Duration::from_secs_f64(ms.max(0.0) / 1000.0));
    }
    if let Some(secs) = text("retry-after").and_then(|v| v.trim().parse::<f64>().ok()) {
        waits.push(Duration::from_secs_f64(secs.max(0.0)));
    }
    for name in ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"] {
        if let Some(d) = text(name).and_then(go_duration) {
            waits.push(d);
        }
    }
    waits.into_iter().max()
}

/// A duration as OpenAI's rate-limit headers write it: `1s`, `6m0s`,
/// `20ms`, `1h2m3.5s`.
fn go_duration(text: &str) -> Option<Duration> {
    let mut total = 0.0f64;
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let value: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        total += value * scale;
        rest = &rest[unit..];
    }
    Some(Duration::from_secs_f64(total))
}

/// reqwest is built without a TLS crypto provider: ring is the process's.
fn install_tls_provider() {
    // `Err` means one is installed already, which is all that is needed.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

#[cfg(test)]
mod tests;
