//! The two wire protocols: OpenAI-compatible chat completions
//! (`POST {base}/chat/completions`, structured output by
//! `response_format: json_schema`) and Anthropic Messages
//! (`POST {base}/v1/messages`, structured output by a forced tool).

use super::prompt::Prompt;
use serde_json::{Value, json};

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

/// The Anthropic API version revu speaks.
const ANTHROPIC_VERSION: &str = "2023-06-01";
/// Name of the tool an Anthropic model answers through.
const TOOL: &str = "lane_report";

/// What a model answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The report: a JSON object when the server honoured the schema or the
    /// tool, else the text the model wrote.
    pub content: Content,
    /// The output hit the token limit (`finish_reason: length`,
    /// `stop_reason: max_tokens`).
    pub truncated: bool,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Json(Value),
    Text(String),
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
            Provider::Anthropic => vec![("anthropic-version", ANTHROPIC_VERSION)],
        }
    }

    /// The request body, asking for an answer in `schema`.
    pub fn body(self, model: &str, prompt: &Prompt, schema: &Value, max_tokens: u32) -> Value {
        match self {
            Provider::Openai => json!({
                "model": model,
                "temperature": 0,
                "max_tokens": max_tokens,
                "messages": [
                    {"role": "system", "content": prompt.system},
                    {"role": "user", "content": prompt.user},
                ],
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": TOOL, "strict": true, "schema": schema},
                },
            }),
            Provider::Anthropic => json!({
                "model": model,
                "temperature": 0,
                "max_tokens": max_tokens,
                "system": prompt.system,
                "messages": [{"role": "user", "content": prompt.user}],
                "tools": [{
                    "name": TOOL,
                    "description": "The lane report: what was reviewed and checked, the findings, a summary.",
                    "input_schema": schema,
                }],
                "tool_choice": {"type": "tool", "name": TOOL},
            }),
        }
    }

    /// Reads a successful response body; `Err` says what is missing.
    pub fn answer(self, body: &Value) -> Result<Answer, String> {
        match self {
            Provider::Openai => {
                let choice = body
                    .pointer("/choices/0")
                    .ok_or("the response has no choices")?;
                let text = choice
                    .pointer("/message/content")
                    .and_then(Value::as_str)
                    .ok_or("the response's first choice has no message content")?;
                Ok(Answer {
                    content: Content::Text(text.to_owned()),
                    truncated: choice.get("finish_reason").and_then(Value::as_str)
                        == Some("length"),
                    input_tokens: body.pointer("/usage/prompt_tokens").and_then(Value::as_u64),
                    output_tokens: body
                        .pointer("/usage/completion_tokens")
                        .and_then(Value::as_u64),
                })
            }
            Provider::Anthropic => {
                let blocks = body
                    .get("content")
                    .and_then(Value::as_array)
                    .ok_or("the response has no content")?;
                let tool = blocks.iter().find(|b| {
                    b.get("type").and_then(Value::as_str) == Some("tool_use")
                        && b.get("name").and_then(Value::as_str) == Some(TOOL)
                });
                let content = match tool.and_then(|b| b.get("input")) {
                    Some(input) => Content::Json(input.clone()),
                    // Servers that ignore tools answer in text.
                    None => Content::Text(
                        blocks
                            .iter()
                            .filter_map(|b| b.get("text").and_then(Value::as_str))
                            .collect::<Vec<_>>()
                            .join("\n"),
                    ),
                };
                Ok(Answer {
                    content,
                    truncated: body.get("stop_reason").and_then(Value::as_str)
                        == Some("max_tokens"),
                    input_tokens: anthropic_input_tokens(body),
                    output_tokens: body.pointer("/usage/output_tokens").and_then(Value::as_u64),
                })
            }
        }
    }
}

/// Every input token of an Anthropic answer: with prompt caching,
/// `input_tokens` counts only what was neither read from nor written to the
/// cache, which come in fields of their own.
fn anthropic_input_tokens(body: &Value) -> Option<u64> {
    let usage = body.get("usage")?;
    let field = |name: &str| usage.get(name).and_then(Value::as_u64);
    let parts = [
        field("input_tokens"),
        field("cache_read_input_tokens"),
        field("cache_creation_input_tokens"),
    ];
    parts
        .iter()
        .any(Option::is_some)
        .then(|| parts.iter().flatten().sum())
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
mod tests {
    use super::*;

    #[test]
    fn urls_follow_the_sdks_base_url_conventions() {
        assert_eq!(
            Provider::Openai.url("http://127.0.0.1:8080/v1/"),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
        assert_eq!(
            Provider::Anthropic.url("https://api.anthropic.com"),
            "https://api.anthropic.com/v1/messages"
        );
    }

    #[test]
    fn truncation_and_usage_are_read_from_both_protocols() {
        let openai = json!({
            "choices": [{"message": {"content": "{\"a\":"}, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 64},
        });
        let a = Provider::Openai.answer(&openai).unwrap();
        assert!(a.truncated);
        assert_eq!((a.input_tokens, a.output_tokens), (Some(120), Some(64)));
        let anthropic = json!({
            "content": [{"type": "tool_use", "name": "lane_report", "input": {"summary": "x"}}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 5},
        });
        let a = Provider::Anthropic.answer(&anthropic).unwrap();
        assert!(!a.truncated);
        assert_eq!(a.content, Content::Json(json!({"summary": "x"})));
        let text_only =
            json!({"content": [{"type": "text", "text": "hello"}], "stop_reason": "max_tokens"});
        let a = Provider::Anthropic.answer(&text_only).unwrap();
        assert!(a.truncated);
        assert_eq!(a.content, Content::Text("hello".into()));
    }

    #[test]
    fn error_messages_are_the_servers_own_words() {
        assert_eq!(
            error_message(r#"{"error":{"message":"Invalid API key","type":"auth"}}"#),
            "Invalid API key"
        );
        assert_eq!(error_message("upstream down\n"), "upstream down");
    }
}
