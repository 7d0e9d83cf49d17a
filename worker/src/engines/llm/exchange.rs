//! One request to the model server and its answer: the HTTP exchange,
//! the client span the GenAI conventions describe, what the request
//! spent on the lane's meter, and the errors a failed request becomes.

use super::{LlmEngine, prompt, refusal, retry_after, wire};
use crate::engines::{EngineError, Meter};
use revu_domain::lane::{FaultKind, Usage};
use revu_domain::retry::Retryable;
use serde_json::Value;
use std::time::Duration;
use tracing::Instrument;

/// A model's answer to [`LlmEngine::ask_json`].
#[derive(Debug, Clone, PartialEq)]
pub struct JsonAnswer {
    /// The answer, when it reads as JSON.
    pub value: Option<Value>,
    /// The answer was cut at the output token limit.
    pub truncated: bool,
}

impl LlmEngine {
    /// One request and its answer; what it spent goes on `meter`, and on
    /// the span of the request as the GenAI conventions name it.
    pub(super) async fn ask(
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
            gen_ai.request.max_tokens = self.family.max_output_tokens,
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

    /// One request made outside any lane (the scoring judge of `revu eval
    /// corpus` asks through it): `system` as the system message, `user` as
    /// the user message (the caller fences its data), the answer asked for
    /// in `schema` and read as JSON where it is JSON. What it spent goes on
    /// `meter`, answered or not.
    pub async fn ask_json(
        &self,
        system: &str,
        user: &str,
        schema: &Value,
        meter: &Meter,
    ) -> Result<JsonAnswer, EngineError> {
        let prompt = prompt::Prompt {
            system: system.to_owned(),
            data: user.to_owned(),
            task: String::new(),
        };
        let answer = self.ask(&prompt, schema, meter).await?;
        let value = match answer.content {
            wire::Content::Json(v) => Some(v),
            wire::Content::Text(t) => super::reply::read_json(&t),
        };
        Ok(JsonAnswer {
            value,
            truncated: answer.truncated,
        })
    }

    async fn exchange(
        &self,
        prompt: &prompt::Prompt,
        schema: &Value,
        meter: &Meter,
    ) -> Result<wire::Answer, EngineError> {
        let body = self.provider.body(&wire::Request {
            model: &self.model,
            prompt,
            schema,
            family: &self.family,
            stream: self.stream,
        });
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
        // Every request counts, answered or not.
        let record = |tokens: Usage| meter.record(tokens, sent.elapsed(), &self.price);
        let nothing = || Usage {
            model: self.model.clone(),
            ..Usage::default()
        };
        // A request that failed counts by its fault class too.
        let fail = |error: EngineError| {
            record(nothing());
            meter.failed(error.kind);
            error
        };
        let (status, retry_after, text) = match answered {
            Ok(answered) => answered,
            Err(e) => return Err(fail(self.unreachable(&e))),
        };
        if !status.is_success() {
            return Err(fail(self.refused(status.as_u16(), &text, retry_after)));
        }
        let answer = if self.stream {
            self.provider.answer_from_events(&text)
        } else {
            let json: Value = serde_json::from_str(&text).map_err(|e| {
                fail(EngineError::transient(
                    FaultKind::BadReport,
                    format!("{} answered with a body that is not JSON: {e}", self.url),
                ))
            })?;
            self.provider.answer(&json)
        };
        let answer = match answer {
            Ok(answer) => {
                record(answer.usage(&self.model));
                answer
            }
            Err(e) => {
                return Err(fail(EngineError::transient(
                    FaultKind::BadReport,
                    format!("{}: {e}", self.url),
                )));
            }
        };
        tracing::info!(
            gen_ai.system = self.system(),
            gen_ai.request.model = %self.model,
            gen_ai.usage.input_tokens = answer.input_tokens,
            gen_ai.usage.output_tokens = answer.output_tokens,
            cached_input_tokens = answer.cached_input_tokens,
            reasoning_tokens = answer.reasoning_tokens,
            truncated = answer.truncated,
            "model answered"
        );
        Ok(answer)
    }

    /// `gen_ai.system` of the OpenTelemetry GenAI conventions.
    fn system(&self) -> &'static str {
        match self.provider {
            wire::Provider::Openai => "openai",
            wire::Provider::Anthropic => "anthropic",
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
    /// refusals permanent, each with the server's own words; a refusal of
    /// a parameter a flag decides also names the parameter and the flag.
    fn refused(&self, status: u16, body: &str, retry_after: Option<Duration>) -> EngineError {
        let words = wire::error_message(body);
        let parameter = matches!(status, 400 | 422)
            .then(|| refusal::refused_parameter(body))
            .flatten();
        let reason = match parameter {
            Some(param) => format!(
                "{} answered {status}, refusing parameter {param}: {words} ({})",
                self.url,
                refusal::remedy(param, &self.family)
            ),
            None => format!("{} answered {status}: {words}", self.url),
        };
        let error = match status {
            429 => EngineError::transient(FaultKind::RateLimited, reason),
            500 | 502 | 503 | 504 | 529 => EngineError::transient(FaultKind::EngineError, reason),
            400..=499 => EngineError::permanent(FaultKind::Refused, reason),
            _ => EngineError::transient(FaultKind::EngineError, reason),
        };
        match retry_after {
            Some(after) if error.is_transient() => error.waiting(after),
            _ => error,
        }
    }
}
