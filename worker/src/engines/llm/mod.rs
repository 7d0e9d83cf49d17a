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

pub mod budget;
pub mod price;
pub mod prompt;
pub mod reply;
pub mod wire;

use super::{Engine, EngineError, EngineOutput, LaneInput, Meter, Review};
use revu_common::lane::{FaultKind, LaneKind, LaneReportBody};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;
use tracing::Instrument;
use wire::{Content, Provider};

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

    /// Most tokens one answer may take.
    #[arg(
        long = "llm-max-output-tokens",
        env = "REVU_LLM_MAX_OUTPUT_TOKENS",
        default_value_t = defaults().max_output_tokens
    )]
    pub max_output_tokens: u32,

    /// Most input tokens one request may carry (the prompt, counted with
    /// the model's tokenizer where known, else estimated): a lane over it
    /// is reviewed in several requests, split by file, then by hunk.
    #[arg(
        long = "llm-max-input-tokens",
        env = "REVU_LLM_MAX_INPUT_TOKENS",
        default_value_t = defaults().max_input_tokens
    )]
    pub max_input_tokens: u64,

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

    /// Seconds one request may take before it is abandoned (transient).
    #[arg(
        long = "llm-timeout-secs",
        env = "REVU_LLM_TIMEOUT_SECS",
        default_value_t = defaults().timeout_secs
    )]
    pub timeout_secs: u64,
}

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
            max_output_tokens: 2048,
            max_input_tokens: 32_000,
            engines: Vec::new(),
            prices: None,
            stream: false,
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

fn parse_named_model(s: &str) -> Result<NamedModel, String> {
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
    /// The engines these settings describe: `llm` with `--llm-model`, and
    /// one per `--llm-engine`; none when no provider is set.
    pub async fn engines(&self) -> Result<Vec<LlmEngine>, String> {
        let Some(first) = self.engine().await? else {
            if !self.engines.is_empty() {
                return Err("--llm-engine needs --llm-provider".to_owned());
            }
            return Ok(Vec::new());
        };
        let mut all = Vec::new();
        for named in &self.engines {
            if named.name == first.name || all.iter().any(|e: &LlmEngine| e.name == named.name) {
                return Err(format!("engine {} is configured twice", named.name));
            }
            all.push(first.named(&named.name, &named.model));
        }
        all.insert(0, first);
        Ok(all)
    }

    /// The `llm` engine, or `None` when no provider is set. Reads the key
    /// file and the price table when they are named.
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
        let prices = match &self.prices {
            Some(path) => {
                let path = path.clone();
                tokio::task::spawn_blocking(move || price::PriceTable::load(&path))
                    .await
                    .map_err(|e| format!("--llm-prices: {e}"))??
            }
            None => price::PriceTable::default(),
        };
        let mut engine = LlmEngine::new("llm", provider, &base, &model, key, self)?;
        engine.price = prices.get(&model);
        engine.prices = prices;
        Ok(Some(engine))
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
    max_input_tokens: u64,
    stream: bool,
    /// The price of `model`, if the table has it.
    price: Option<price::Price>,
    prices: price::PriceTable,
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
            max_input_tokens: settings.max_input_tokens.max(1),
            stream: settings.stream,
            price: None,
            prices: price::PriceTable::default(),
            client,
        })
    }

    /// The same server and settings as engine `name` with `model`.
    fn named(&self, name: &str, model: &str) -> LlmEngine {
        LlmEngine {
            name: name.to_owned(),
            provider: self.provider,
            url: self.url.clone(),
            model: model.to_owned(),
            key: self.key.clone(),
            max_output_tokens: self.max_output_tokens,
            max_input_tokens: self.max_input_tokens,
            stream: self.stream,
            price: self.prices.get(model),
            prices: self.prices.clone(),
            client: self.client.clone(),
        }
    }

    async fn run(&self, input: LaneInput) -> Result<EngineOutput, EngineError> {
        let kind = input.job.lane.kind.clone();
        let schema = reply::schema(
            (kind == LaneKind::Adjudication).then_some(input.job.candidates.len()),
            self.max_output_tokens,
        );
        let cap = input.job.token_cap;
        let ledger = input.ledger.clone();
        let meter = input.meter.clone();
        // Building and counting the prompt of a wide lane is CPU work (and
        // the first count loads a tokenizer): off the runtime.
        let (model, budget) = (self.model.clone(), self.max_input_tokens);
        let (fitted, counter) = tokio::task::spawn_blocking(move || {
            let counter = budget::Counter::for_model(&model);
            (
                budget::fit(&prompt::parts(&input), counter, budget),
                counter,
            )
        })
        .await
        .map_err(|e| {
            EngineError::transient(FaultKind::Crash, format!("building the prompt: {e}"))
        })?;
        let parts = fitted.requests.len();
        let mut merged = Merged::default();
        if !fitted.left_out.is_empty() {
            merged.unfinished.push(format!(
                "left out, each too large for one request within the input budget of {budget} \
                 tokens: {}",
                fitted.left_out.join(", ")
            ));
        }
        for (index, (prompt, tokens)) in fitted.requests.iter().enumerate() {
            let reserved = tokens.saturating_add(u64::from(self.max_output_tokens));
            if let (Some(cap), Some(ledger)) = (cap, &ledger) {
                let total = ledger.charge(signed(reserved)).await.map_err(|e| {
                    EngineError::transient(FaultKind::EngineError, format!("token ledger: {e}"))
                })?;
                if total > cap {
                    let _ = ledger.charge(-signed(reserved)).await;
                    merged.unfinished.push(format!(
                        "the review's token cap of {cap} is spent ({} used): {} of {parts} \
                         request(s) of this lane not sent",
                        total.saturating_sub(reserved),
                        parts - index
                    ));
                    break;
                }
            }
            let answer = self.ask(prompt, &schema, &meter).await;
            if let (Some(_), Some(ledger)) = (cap, &ledger) {
                let used = answer
                    .as_ref()
                    .map(|a| a.input_tokens.unwrap_or(*tokens) + a.output_tokens.unwrap_or(0))
                    .unwrap_or(0);
                let _ = ledger.charge(signed(used) - signed(reserved)).await;
            }
            let answer = answer?;
            let part = (parts > 1).then_some(index + 1);
            match self.read(answer, part) {
                Part::Report(body) => merged.add(body),
                Part::Cut(partial) if parts == 1 && merged.unfinished.is_empty() => {
                    return Ok(EngineOutput::Raw(partial));
                }
                Part::Cut(partial) => {
                    if let Ok(body) = reply::to_report(partial.clone(), &self.name) {
                        merged.add(body);
                    }
                    merged.unfinished.push(
                        partial[INCOMPLETE]
                            .as_str()
                            .unwrap_or("an answer was cut")
                            .to_owned(),
                    );
                }
                // Not a report: the gate says what is wrong and sends the
                // lane back once.
                Part::Other(value) => return Ok(EngineOutput::Raw(value)),
            }
        }
        merged
            .checks
            .push(format!("prompt {}", prompt::PROMPT_VERSION));
        if parts > 1 {
            merged.checks.push(format!(
                "{parts} requests within {budget} input tokens ({})",
                counter.name()
            ));
        }
        Ok(merged.output())
    }

    /// One request and its answer; what it spent goes on `meter`, and on
    /// the span of the request as the GenAI conventions name it.
    async fn ask(
        &self,
        prompt: &prompt::Prompt,
        schema: &Value,
        meter: &Meter,
    ) -> Result<wire::Answer, EngineError> {
        let span = tracing::info_span!(
            "chat",
            otel.name = %format!("chat {}", self.model),
            otel.kind = "client",
            gen_ai.operation.name = "chat",
            gen_ai.system = self.system(),
            gen_ai.request.model = %self.model,
            gen_ai.request.max_tokens = self.max_output_tokens,
            gen_ai.response.finish_reasons = tracing::field::Empty,
            gen_ai.usage.input_tokens = tracing::field::Empty,
            gen_ai.usage.output_tokens = tracing::field::Empty,
            error.type = tracing::field::Empty,
        );
        let asked = self
            .exchange(prompt, schema, meter)
            .instrument(span.clone())
            .await;
        match &asked {
            Ok(answer) => {
                if let Some(n) = answer.input_tokens {
                    span.record("gen_ai.usage.input_tokens", n);
                }
                if let Some(n) = answer.output_tokens {
                    span.record("gen_ai.usage.output_tokens", n);
                }
                let finish = if answer.truncated { "length" } else { "stop" };
                span.record("gen_ai.response.finish_reasons", finish);
            }
            Err(e) => {
                span.record("error.type", e.kind.label());
            }
        }
        asked
    }

    async fn exchange(
        &self,
        prompt: &prompt::Prompt,
        schema: &Value,
        meter: &Meter,
    ) -> Result<wire::Answer, EngineError> {
        let body = self.provider.body(
            &self.model,
            prompt,
            schema,
            self.max_output_tokens,
            self.stream,
        );
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
        let answered = async {
            let response = request.send().await?;
            let status = response.status();
            let retry_after = retry_after(response.headers());
            Ok::<_, reqwest::Error>((status, retry_after, response.text().await?))
        }
        .await;
        let record = |input: u64, output: u64| {
            meter.record(&self.model, input, output, sent.elapsed(), &self.price);
        };
        let (status, retry_after, text) = match answered {
            Ok(answered) => answered,
            Err(e) => {
                record(0, 0);
                return Err(self.unreachable(&e));
            }
        };
        if !status.is_success() {
            record(0, 0);
            return Err(self.refused(status.as_u16(), &text, retry_after));
        }
        let answer = if self.stream {
            self.provider.answer_from_events(&text)
        } else {
            let json: Value = serde_json::from_str(&text).map_err(|e| {
                record(0, 0);
                EngineError::transient(
                    FaultKind::BadReport,
                    format!("{} answered with a body that is not JSON: {e}", self.url),
                )
            })?;
            self.provider.answer(&json)
        };
        let tokens = answer
            .as_ref()
            .map(|a| (a.input_tokens.unwrap_or(0), a.output_tokens.unwrap_or(0)))
            .unwrap_or_default();
        record(tokens.0, tokens.1);
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
        Ok(answer)
    }

    /// What one answer is: a report, a report cut at the output limit
    /// (with the `incomplete` section that says so), or something else.
    fn read(&self, answer: wire::Answer, part: Option<usize>) -> Part {
        let parsed = match &answer.content {
            Content::Json(v) => Some(v.clone()),
            Content::Text(t) => reply::read_json(t),
        };
        if answer.truncated {
            let mut partial = parsed.filter(Value::is_object).unwrap_or_else(|| json!({}));
            let whose = part.map(|k| format!(" of part {k}")).unwrap_or_default();
            partial[INCOMPLETE] = json!(format!(
                "the answer{whose} was cut at the output token limit ({} tokens)",
                self.max_output_tokens
            ));
            return Part::Cut(partial);
        }
        match parsed {
            None => Part::Other(Value::String(match answer.content {
                Content::Text(t) => t,
                Content::Json(v) => v.to_string(),
            })),
            Some(value) => match reply::to_report(value, &self.name) {
                Ok(report) => Part::Report(report),
                Err(value) => Part::Other(value),
            },
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

/// What one request of a lane gave.
enum Part {
    Report(LaneReportBody),
    /// Cut at the output limit: what could be read, marked incomplete.
    Cut(Value),
    /// Not a lane report at all.
    Other(Value),
}

/// The lane report assembled from the answers of its requests.
#[derive(Default)]
struct Merged {
    reviewed: Vec<String>,
    checks: Vec<String>,
    findings: Vec<revu_common::finding::Finding>,
    summaries: Vec<String>,
    decisions: Vec<revu_common::adjudication::Decision>,
    /// Why the lane is not complete, if it is not.
    unfinished: Vec<String>,
}

impl Merged {
    fn add(&mut self, body: LaneReportBody) {
        for item in body.reviewed {
            if !self.reviewed.contains(&item) {
                self.reviewed.push(item);
            }
        }
        for item in body.checks {
            if !self.checks.contains(&item) {
                self.checks.push(item);
            }
        }
        for f in body.findings {
            let same = |g: &revu_common::finding::Finding| {
                (&g.file, g.line, &g.summary) == (&f.file, f.line, &f.summary)
            };
            if !self.findings.iter().any(same) {
                self.findings.push(f);
            }
        }
        if !body.summary.trim().is_empty() {
            self.summaries.push(body.summary);
        }
        self.decisions.extend(body.decisions);
    }

    /// A complete report, or one marked incomplete for the gate to settle.
    fn output(self) -> EngineOutput {
        let body = LaneReportBody {
            reviewed: self.reviewed,
            checks: self.checks,
            findings: self.findings,
            summary: self.summaries.join(" "),
            decisions: self.decisions,
        };
        if self.unfinished.is_empty() {
            return EngineOutput::Body(body);
        }
        let mut raw = serde_json::to_value(&body).unwrap_or_else(|_| json!({}));
        raw[INCOMPLETE] = json!(self.unfinished.join("; "));
        EngineOutput::Raw(raw)
    }
}

/// A token count as a ledger change.
fn signed(tokens: u64) -> i64 {
    i64::try_from(tokens).unwrap_or(i64::MAX)
}

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
