//! The `llm` engine: a model reviews the lane over HTTP, through an
//! OpenAI-compatible chat completions API or Anthropic's Messages API.
//!
//! The model answers in the lane report's JSON Schema ([`reply::schema`]);
//! a server that ignores the schema is read tolerantly, and an answer that
//! still is not a report goes to the completeness gate as it is, which
//! lists what is wrong and sends it back once. An answer cut at the token
//! limit is never a clean lane: it reaches the gate marked incomplete,
//! saying so when the model spent the limit reasoning before it answered.
//! Each request carries what the model's family takes ([`family`]).
//! Rate limits and server errors are transient and carry the server's
//! `Retry-After`; refusals (400, 401, 403, 404) are permanent with the
//! server's reason, and the flag to change when a parameter was refused.
//! Dropping the lane's future cancels the request.

mod adjudication;
pub mod budget;
mod consumers;
mod context;
mod exchange;
pub mod family;
mod merge;
pub mod phase;
pub mod plan;
pub mod price;
pub mod prompt;
pub mod prompts;
pub mod rate_limit;
mod refusal;
pub mod reply;
mod settings;
mod setup;
pub mod wire;

pub use exchange::JsonAnswer;
use merge::{INCOMPLETE, Merged, Part, signed};
pub use rate_limit::retry_after;
pub use settings::{LlmSettings, NamedModel};
pub use setup::LlmSetupError;
#[cfg(test)]
use {rate_limit::go_duration, settings::parse_named_model};

use super::{Engine, EngineError, EngineOutput, LaneInput, Meter, Review};
use family::Family;
use prompts::PromptSet;
use revu_domain::lane::FaultKind;
use revu_domain::retry::{Retry, Retryable};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use wire::{Content, Provider};

/// A model behind one of the two wire protocols.
pub struct LlmEngine {
    name: String,
    provider: Provider,
    url: String,
    model: String,
    key: Option<String>,
    /// What the model takes beside the prompt, the output limit included.
    family: Family,
    max_input_tokens: u64,
    stream: bool,
    /// The price of `model`, if the table has it.
    price: Option<price::Price>,
    prices: price::PriceTable,
    /// What the lanes are told, read once at setup.
    prompts: Arc<PromptSet>,
    /// The linters whose findings review lanes are shown, when on.
    linters: Option<Arc<super::lint::Linters>>,
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
            .field("family", &self.family)
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
    ) -> Result<Self, LlmSetupError> {
        install_tls_provider();
        let reasoning = family::ReasoningModels::parse(&settings.reasoning_models)?;
        let family =
            Family::resolve(provider, base, model, settings, &reasoning).map_err(|source| {
                LlmSetupError::Model {
                    name: name.to_owned(),
                    model: model.to_owned(),
                    source,
                }
            })?;
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(settings.timeout_secs.max(1)))
            .build()
            .map_err(|source| LlmSetupError::Client {
                name: name.to_owned(),
                source,
            })?;
        Ok(LlmEngine {
            name: name.to_owned(),
            provider,
            url: provider.url(base),
            model: model.to_owned(),
            key,
            family,
            max_input_tokens: settings.context_tokens().max(1),
            stream: settings.stream,
            price: None,
            prices: price::PriceTable::default(),
            prompts: Arc::new(PromptSet::default()),
            linters: None,
            client,
        })
    }

    /// The engine showing each review lane what `linters` find in its
    /// files (run once per review in a process, whichever engine's lanes
    /// report them).
    pub fn with_linters(mut self, linters: Option<Arc<super::lint::Linters>>) -> Self {
        self.linters = linters;
        self
    }

    /// The same server and settings as engine `name` with `model`, which
    /// takes what `family` says.
    fn named(&self, name: &str, model: &str, family: Family) -> LlmEngine {
        LlmEngine {
            name: name.to_owned(),
            provider: self.provider,
            url: self.url.clone(),
            model: model.to_owned(),
            key: self.key.clone(),
            family,
            max_input_tokens: self.max_input_tokens,
            stream: self.stream,
            price: self.prices.get(model),
            prices: self.prices.clone(),
            prompts: self.prompts.clone(),
            linters: self.linters.clone(),
            client: self.client.clone(),
        }
    }

    async fn run(&self, input: LaneInput) -> Result<EngineOutput, EngineError> {
        let kind = input.job.lane.kind.clone();
        if !kind.reviews() {
            return self.run_phase(input).await;
        }
        let adjudicating = kind.adjudicates();
        if let Some(linters) = self.linters.as_ref().filter(|_| !adjudicating) {
            linters.run_once(&input).await;
        }
        let spend = Spend::of(&input);
        let rule = revu_domain::finding::model_rule(&input.job.lane.id);
        // Building and counting the prompt of a wide lane is CPU work (and
        // the first count loads a tokenizer): off the runtime.
        let (model, budget) = (self.model.clone(), self.max_input_tokens);
        let prompts = self.prompts.clone();
        let (requests, left_out, coverage, counter) = tokio::task::spawn_blocking(move || {
            let counter = budget::Counter::for_model(&model);
            let parts = prompt::parts(&input, &prompts);
            let (requests, left_out, coverage) = if adjudicating {
                let (requests, left_out) =
                    adjudication::plan(&parts, &input.job.candidates, counter, budget);
                (requests, left_out, None)
            } else {
                let fitted = plan::fit(&parts, counter, budget);
                let requests = fitted
                    .requests
                    .into_iter()
                    .map(|(prompt, tokens)| adjudication::Request {
                        prompt,
                        tokens,
                        decides: Vec::new(),
                    })
                    .collect();
                (requests, fitted.left_out, Some(fitted.coverage.describe()))
            };
            (requests, left_out, coverage, counter)
        })
        .await
        .map_err(|e| {
            EngineError::transient(FaultKind::Crash, format!("building the prompt: {e}"))
        })?;
        let parts = requests.len();
        let mut merged = Merged::default();
        if !left_out.is_empty() {
            merged.unfinished.push(format!(
                "left out, each too large for one request within the input budget of {budget} \
                 tokens: {}",
                left_out.join(", ")
            ));
        }
        for (index, request) in requests.iter().enumerate() {
            let schema = reply::schema(
                adjudicating.then_some(&request.decides[..]),
                self.family.answer_tokens(),
            );
            let answer = match self
                .ask_within_cap(&spend, &request.prompt, request.tokens, &schema)
                .await?
            {
                Asked::Answer(answer) => answer,
                Asked::CapSpent(why) => {
                    merged.unfinished.push(format!(
                        "{why}: {} of {parts} request(s) of this lane not sent",
                        parts - index
                    ));
                    break;
                }
            };
            let part = (parts > 1).then_some(index + 1);
            match self.read(answer, part, &rule) {
                Part::Report(body) => merged.add(body),
                Part::Cut(partial) if parts == 1 && merged.unfinished.is_empty() => {
                    return Ok(EngineOutput::Raw(partial));
                }
                Part::Cut(partial) => {
                    if let Ok(body) = reply::to_report(partial.clone(), &rule) {
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
            .push(format!("prompt {}", self.prompts.version(&kind)));
        merged.checks.extend(coverage);
        if parts > 1 {
            merged.checks.push(format!(
                "{parts} requests within {budget} input tokens ({})",
                counter.name()
            ));
        }
        Ok(merged.output())
    }

    /// One request of `tokens` input tokens, unless it would take the
    /// review past its token cap: the request's most (its input and the
    /// output limit) is reserved on the review's ledger first, and settled
    /// to what the server counted after.
    async fn ask_within_cap(
        &self,
        spend: &Spend,
        prompt: &prompt::Prompt,
        tokens: u64,
        schema: &Value,
    ) -> Result<Asked, EngineError> {
        // The output limit covers reasoning and thinking too.
        let reserved = tokens.saturating_add(u64::from(self.family.max_output_tokens));
        let ledger = spend.cap.zip(spend.ledger.as_ref());
        if let Some((cap, ledger)) = ledger {
            let total = ledger.charge(signed(reserved)).await.map_err(|e| {
                // The store says whether charging again may work.
                let why = format!("token ledger: {e}");
                match e.retry() {
                    Retry::Transient => EngineError::transient(FaultKind::EngineError, why),
                    Retry::Permanent => EngineError::permanent(FaultKind::EngineError, why),
                }
            })?;
            if total > cap {
                let _ = ledger.charge(-signed(reserved)).await;
                return Ok(Asked::CapSpent(CapSpent {
                    cap,
                    used: total.saturating_sub(reserved),
                }));
            }
        }
        let answer = self.ask(prompt, schema, &spend.meter).await;
        if let Some((_, ledger)) = ledger {
            let used = answer
                .as_ref()
                .map(|a| a.input_tokens.unwrap_or(tokens) + a.output_tokens.unwrap_or(0))
                .unwrap_or(0);
            let _ = ledger.charge(signed(used) - signed(reserved)).await;
        }
        answer.map(Asked::Answer)
    }

    /// A grouping or synthesis lane: one request, whose answer becomes a
    /// report without findings (see [`phase`]).
    async fn run_phase(&self, input: LaneInput) -> Result<EngineOutput, EngineError> {
        let kind = input.job.lane.kind.clone();
        let files = input.job.lane.files.clone();
        let schema = phase::schema(&kind, &files, self.family.answer_tokens());
        let spend = Spend::of(&input);
        let (model, budget) = (self.model.clone(), self.max_input_tokens);
        let prompts = self.prompts.clone();
        let (prompt, tokens) = tokio::task::spawn_blocking(move || {
            let counter = budget::Counter::for_model(&model);
            let prompt = phase::build(&input, &prompts, counter, budget);
            let tokens = counter.count(&prompt.system) + counter.count(&prompt.user());
            (prompt, tokens)
        })
        .await
        .map_err(|e| {
            EngineError::transient(FaultKind::Crash, format!("building the prompt: {e}"))
        })?;
        let answer = match self
            .ask_within_cap(&spend, &prompt, tokens, &schema)
            .await?
        {
            Asked::Answer(answer) => answer,
            Asked::CapSpent(why) => {
                return Ok(EngineOutput::Raw(
                    json!({ INCOMPLETE: format!("{why}: not sent") }),
                ));
            }
        };
        let cut = answer.truncated.then(|| self.cut_reason(&answer, None));
        let parsed = match answer.content {
            Content::Json(v) => v,
            Content::Text(t) => reply::read_json(&t).unwrap_or(Value::String(t)),
        };
        let mut body = phase::body(&kind, &self.prompts.version(&kind), parsed, &files);
        // Asking again with the same limit would only be cut again.
        if let Some(cut) = cut {
            if !body.is_object() {
                body = json!({});
            }
            body[INCOMPLETE] = json!(cut);
        }
        Ok(EngineOutput::Raw(body))
    }

    /// What one answer is: a report, a report cut at the output limit
    /// (with the `incomplete` section that says so), or something else.
    fn read(&self, answer: wire::Answer, part: Option<usize>, rule: &str) -> Part {
        let parsed = match &answer.content {
            Content::Json(v) => Some(v.clone()),
            Content::Text(t) => reply::read_json(t),
        };
        if answer.truncated {
            let mut partial = parsed.filter(Value::is_object).unwrap_or_else(|| json!({}));
            partial[INCOMPLETE] = json!(self.cut_reason(&answer, part));
            return Part::Cut(partial);
        }
        match parsed {
            None => Part::Other(Value::String(match answer.content {
                Content::Text(t) => t,
                Content::Json(v) => v.to_string(),
            })),
            Some(value) => match reply::to_report(value, rule) {
                Ok(report) => Part::Report(report),
                Err(value) => Part::Other(value),
            },
        }
    }

    /// Why an answer (of part `part`) cut at the output limit is
    /// incomplete; a model cut while still reasoning or thinking wrote no
    /// answer at all, and the flags that give it room are named.
    fn cut_reason(&self, answer: &wire::Answer, part: Option<usize>) -> String {
        let whose = part.map(|k| format!(" of part {k}")).unwrap_or_default();
        let limit = self.family.max_output_tokens;
        if !answer.cut_while_reasoning() {
            return format!("the answer{whose} was cut at the output token limit ({limit} tokens)");
        }
        let spent = match answer.reasoning_tokens {
            0 => String::new(),
            n => format!(" ({n} reasoning tokens)"),
        };
        let lower = match (self.family.reasoning_effort, self.family.thinking_budget) {
            (Some(_), _) => " or lower --llm-reasoning-effort",
            (_, Some(_)) => " or lower --llm-thinking-budget",
            _ => "",
        };
        format!(
            "the answer{whose} was cut at the output token limit ({limit} tokens) while the \
             model was still reasoning{spent}, before any answer: raise \
             --llm-max-output-tokens{lower}"
        )
    }
}

impl Engine for LlmEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn model(&self) -> Option<&str> {
        Some(&self.model)
    }

    /// The service, the model, what the requests carry (the output limit
    /// among it), the input budget and a digest of every prompt the engine
    /// can send, and the linters whose findings the lanes are shown: a new
    /// prompt (built in or the operator's), model, request shape or linter
    /// is another engine.
    fn cache_identity(&self) -> Option<String> {
        let linters = self
            .linters
            .as_ref()
            .map_or_else(|| "off".to_owned(), |l| l.identity());
        Some(format!(
            "llm/{}/{:?}/{}/{}/{}/in={}/prompts={}/{}/linters {linters}",
            env!("CARGO_PKG_VERSION"),
            self.provider,
            self.url,
            self.model,
            self.family.identity(),
            self.max_input_tokens,
            self.prompts.identity(),
            prompt::CONTEXT_VERSION,
        ))
    }

    fn review(&self, input: LaneInput) -> Review<'_> {
        Box::pin(self.run(input))
    }
}

/// What a lane's requests spend against: the review's token cap and its
/// ledger, and the meter of the lane.
struct Spend {
    cap: Option<u64>,
    ledger: Option<std::sync::Arc<dyn super::Ledger>>,
    meter: std::sync::Arc<Meter>,
}

impl Spend {
    fn of(input: &LaneInput) -> Spend {
        Spend {
            cap: input.job.token_cap,
            ledger: input.ledger.clone(),
            meter: input.meter.clone(),
        }
    }
}

/// A request's fate under the review's token cap.
enum Asked {
    Answer(wire::Answer),
    /// Not sent: the cap is spent.
    CapSpent(CapSpent),
}

/// The review's token cap, and what its lanes had used when a request
/// would have gone past it.
struct CapSpent {
    cap: u64,
    used: u64,
}

impl std::fmt::Display for CapSpent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the review's token cap of {} is spent ({} used)",
            self.cap, self.used
        )
    }
}

/// reqwest is built without a TLS crypto provider: ring is the process's.
fn install_tls_provider() {
    // `Err` means one is installed already, which is all that is needed.
    revu_runtime::tls::install_crypto_provider();
}

#[cfg(test)]
mod tests;
