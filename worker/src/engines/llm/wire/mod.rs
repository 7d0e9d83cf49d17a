//! The two wire protocols: OpenAI-compatible chat completions
//! (`POST {base}/chat/completions`, structured output by
//! `response_format: json_schema`; [`openai`]) and Anthropic Messages
//! (`POST {base}/v1/messages`, structured output by a tool; [`anthropic`]).
//!
//! A request is laid out for the providers' prompt caches: the method,
//! then the data the review's lanes share, then the lane's own task, so
//! that lanes of one review (and a lane's retries) repeat the longest
//! prefix they can. OpenAI caches such a prefix by itself; Anthropic
//! requests mark it with `cache_control` breakpoints.

mod anthropic;
mod openai;

use super::family::Family;
use super::prompt::Prompt;
use revu_domain::lane::Usage;
use revu_domain::usage::Tokens;
use serde_json::Value;

/// A successful response that does not carry an answer.
#[derive(Debug, thiserror::Error)]
pub enum Malformed {
    /// A part the protocol puts in every answer, named as the error says.
    #[error("the response has no {0}")]
    Missing(&'static str),
    #[error("the response's first choice has no message")]
    NoMessage,
    #[error("the response's message content is not text")]
    NotText,
    #[error("a streamed event is not JSON: {0}")]
    Event(#[source] serde_json::Error),
    #[error("the stream carried no events")]
    NoEvents,
    /// An `error` event: the server's message, as it said it.
    #[error("the stream ended in an error: {}", .0.as_deref().unwrap_or("no message"))]
    Stream(Option<String>),
}

/// Which protocol a model speaks.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// OpenAI and every server that speaks its chat completions API
    /// (Azure OpenAI, vLLM, llama.cpp's server, Ollama, LiteLLM).
    Openai,
    Anthropic,
}

/// Name of the tool (and of the schema) an answer comes in.
const TOOL: &str = "lane_report";

/// One request: the prompt, the schema of the answer, and what the model
/// takes beside them.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub model: &'a str,
    pub prompt: &'a Prompt,
    pub schema: &'a Value,
    pub family: &'a Family,
    /// Ask for server-sent events (read by [`Provider::answer_from_events`]).
    pub stream: bool,
}

/// What a model answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// The report: a JSON object when the server honoured the schema or the
    /// tool, else the text the model wrote (never its reasoning or
    /// thinking, which are read past).
    pub content: Content,
    /// The output hit the token limit (`finish_reason: length`,
    /// `stop_reason: max_tokens`).
    pub truncated: bool,
    /// Every input token, those read from or written to the cache included.
    pub input_tokens: Option<u64>,
    pub cached_input_tokens: u64,
    pub cache_write_tokens: u64,
    /// Every output token, reasoning included.
    pub output_tokens: Option<u64>,
    pub reasoning_tokens: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Json(Value),
    Text(String),
}

impl Default for Content {
    fn default() -> Self {
        Content::Text(String::new())
    }
}

impl Answer {
    /// The answer's tokens as a lane's usage of `model` (0 where the
    /// server reported none).
    pub fn usage(&self, model: &str) -> Usage {
        Usage {
            model: model.to_owned(),
            tokens: Tokens {
                input_tokens: self.input_tokens.unwrap_or(0),
                cached_input_tokens: self.cached_input_tokens,
                cache_write_tokens: self.cache_write_tokens,
                output_tokens: self.output_tokens.unwrap_or(0),
                reasoning_tokens: self.reasoning_tokens,
            },
            ..Usage::default()
        }
    }

    /// Cut at the limit before a word of the answer: the model spent the
    /// output budget reasoning or thinking.
    pub fn cut_while_reasoning(&self) -> bool {
        self.truncated && matches!(&self.content, Content::Text(t) if t.trim().is_empty())
    }
}

impl Provider {
    /// The request URL under `base` (as the providers' SDKs take it:
    /// `…/v1` for OpenAI-compatible servers, the root for Anthropic).
    pub fn url(self, base: &str) -> String {
        let base = base.trim_end_matches('/');
        match self {
            Provider::Openai => format!("{base}/chat/completions"),
            Provider::Anthropic => format!("{base}/v1/messages"),
        }
    }

    /// The headers that carry `key`.
    pub fn auth_headers(self, key: &str) -> Vec<(&'static str, String)> {
        match self {
            Provider::Openai => vec![("authorization", format!("Bearer {key}"))],
            Provider::Anthropic => vec![("x-api-key", key.to_owned())],
        }
    }

    /// Headers every request carries.
    pub fn fixed_headers(self) -> Vec<(&'static str, &'static str)> {
        match self {
            Provider::Openai => Vec::new(),
            Provider::Anthropic => vec![("anthropic-version", anthropic::VERSION)],
        }
    }

    /// The request body.
    pub fn body(self, request: &Request<'_>) -> Value {
        match self {
            Provider::Openai => openai::body(request),
            Provider::Anthropic => anthropic::body(request),
        }
    }

    /// Reads a successful response body; `Err` says what is missing.
    pub fn answer(self, body: &Value) -> Result<Answer, Malformed> {
        match self {
            Provider::Openai => openai::answer(body),
            Provider::Anthropic => anthropic::answer(body),
        }
    }

    /// Reads a streamed answer: the `data:` lines of its server-sent
    /// events, put together into what a plain response would have said.
    pub fn answer_from_events(self, text: &str) -> Result<Answer, Malformed> {
        let events = text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .filter(|d| !d.is_empty() && *d != "[DONE]")
            .map(serde_json::from_str::<Value>)
            .collect::<Result<Vec<Value>, _>>()
            .map_err(Malformed::Event)?;
        if events.is_empty() {
            return Err(Malformed::NoEvents);
        }
        match self {
            Provider::Openai => Ok(openai::stream(&events)),
            Provider::Anthropic => anthropic::stream(&events),
        }
    }
}

/// The field `name` of `value` as a count, if it is one.
fn count(value: Option<&Value>, name: &str) -> Option<u64> {
    value?.get(name).and_then(Value::as_u64)
}

/// The server's own words in an error response body, for the lane's
/// banner: `error.message` (both protocols), else the text, shortened.
pub fn error_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let message = parsed
        .as_ref()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .or_else(|| v.get("error"))
        })
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| body.trim().to_owned());
    let mut cut: String = message.chars().take(300).collect();
    if cut.len() < message.len() {
        cut.push('…');
    }
    cut
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
