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

    /// The request body, asking for an answer in `schema`; with `stream`,
    /// as server-sent events (read by [`Provider::answer_from_events`]).
    pub fn body(
        self,
        model: &str,
        prompt: &Prompt,
        schema: &Value,
        max_tokens: u32,
        stream: bool,
    ) -> Value {
        let mut body = self.plain_body(model, prompt, schema, max_tokens);
        if stream {
            body["stream"] = json!(true);
            if self == Provider::Openai {
                // The token counts come in a last chunk, only when asked.
                body["stream_options"] = json!({"include_usage": true});
            }
        }
        body
    }

    fn plain_body(self, model: &str, prompt: &Prompt, schema: &Value, max_tokens: u32) -> Value {
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

impl Provider {
    /// Reads a streamed answer: the `data:` lines of its server-sent
    /// events, put together into what a plain response would have said.
    pub fn answer_from_events(self, text: &str) -> Result<Answer, String> {
        let events = text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .filter(|d| !d.is_empty() && *d != "[DONE]")
            .map(serde_json::from_str::<Value>)
            .collect::<Result<Vec<Value>, _>>()
            .map_err(|e| format!("a streamed event is not JSON: {e}"))?;
        if events.is_empty() {
            return Err("the stream carried no events".to_owned());
        }
        match self {
            Provider::Openai => Ok(openai_stream(&events)),
            Provider::Anthropic => anthropic_stream(&events),
        }
    }
}

/// Chat completion chunks: `choices[0].delta.content` pieces, the last
/// `finish_reason`, and `usage` in the final chunk.
fn openai_stream(events: &[Value]) -> Answer {
    let mut text = String::new();
    let mut finish = None;
    let mut usage = None;
    for event in events {
        if let Some(piece) = event
            .pointer("/choices/0/delta/content")
            .and_then(Value::as_str)
        {
            text.push_str(piece);
        }
        if let Some(f) = event
            .pointer("/choices/0/finish_reason")
            .and_then(Value::as_str)
        {
            finish = Some(f.to_owned());
        }
        if event.get("usage").is_some_and(Value::is_object) {
            usage = event.get("usage").cloned();
        }
    }
    let count = |name: &str| {
        usage
            .as_ref()
            .and_then(|u| u.get(name))
            .and_then(Value::as_u64)
    };
    Answer {
        content: Content::Text(text),
        truncated: finish.as_deref() == Some("length"),
        input_tokens: count("prompt_tokens"),
        output_tokens: count("completion_tokens"),
    }
}

/// Messages events: `message_start` (input usage), content blocks built
/// from `text_delta` and `input_json_delta` pieces, `message_delta` (the
/// stop reason and output usage).
fn anthropic_stream(events: &[Value]) -> Result<Answer, String> {
    let mut usage = json!({});
    let mut stop = None;
    let mut text = String::new();
    let mut tool_json: Option<String> = None;
    let mut in_tool = false;
    for event in events {
        let field = |name: &str| event.get(name);
        match field("type").and_then(Value::as_str) {
            Some("message_start") => {
                if let Some(u) = event.pointer("/message/usage").and_then(Value::as_object) {
                    for (k, v) in u {
                        usage[k] = v.clone();
                    }
                }
            }
            Some("content_block_start") => {
                let block = field("content_block");
                in_tool = block.and_then(|b| b.get("type")).and_then(Value::as_str)
                    == Some("tool_use")
                    && block.and_then(|b| b.get("name")).and_then(Value::as_str) == Some(TOOL);
                if in_tool {
                    tool_json.get_or_insert_with(String::new);
                }
            }
            Some("content_block_delta") => {
                let delta = field("delta");
                if let Some(piece) = delta.and_then(|d| d.get("text")).and_then(Value::as_str) {
                    text.push_str(piece);
                }
                if in_tool
                    && let (Some(piece), Some(json)) = (
                        delta
                            .and_then(|d| d.get("partial_json"))
                            .and_then(Value::as_str),
                        tool_json.as_mut(),
                    )
                {
                    json.push_str(piece);
                }
            }
            Some("message_delta") => {
                if let Some(s) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    stop = Some(s.to_owned());
                }
                if let Some(u) = field("usage").and_then(Value::as_object) {
                    for (k, v) in u {
                        usage[k] = v.clone();
                    }
                }
            }
            Some("error") => {
                return Err(format!(
                    "the stream ended in an error: {}",
                    event
                        .pointer("/error/message")
                        .and_then(Value::as_str)
                        .unwrap_or("no message")
                ));
            }
            _ => {}
        }
    }
    let truncated = stop.as_deref() == Some("max_tokens");
    // A tool input cut by the limit is no JSON yet: read what there is.
    let content = match tool_json.map(|j| serde_json::from_str::<Value>(&j).map_err(|_| j)) {
        Some(Ok(input)) => Content::Json(input),
        Some(Err(partial)) => Content::Text(partial),
        None => Content::Text(text),
    };
    let body = json!({"usage": usage});
    Ok(Answer {
        content,
        truncated,
        input_tokens: anthropic_input_tokens(&body),
        output_tokens: body.pointer("/usage/output_tokens").and_then(Value::as_u64),
    })
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
    fn streamed_answers_read_as_plain_ones_on_both_protocols() {
        let openai = concat!(
            "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"{\\\"a\\\"\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\": 1}\"},\"finish_reason\":\"stop\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5}}\n\n",
            "data: [DONE]\n\n",
        );
        let a = Provider::Openai.answer_from_events(openai).unwrap();
        assert_eq!(a.content, Content::Text("{\"a\": 1}".into()));
        assert!(!a.truncated);
        assert_eq!((a.input_tokens, a.output_tokens), (Some(12), Some(5)));
        let anthropic = [
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 30, "cache_read_input_tokens": 10, "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "lane_report", "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"summary\": "}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "\"x\"}"}}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
        ];
        let events: String = anthropic
            .iter()
            .map(|e| format!("event: x\ndata: {e}\n\n"))
            .collect();
        let a = Provider::Anthropic.answer_from_events(&events).unwrap();
        assert_eq!(a.content, Content::Json(json!({"summary": "x"})));
        assert_eq!((a.input_tokens, a.output_tokens), (Some(40), Some(9)));
        // Cut by the limit: the partial tool input comes back as text.
        let cut = format!(
            "data: {}\ndata: {}\ndata: {}\n",
            anthropic[1],
            anthropic[2],
            json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 256}})
        );
        let a = Provider::Anthropic.answer_from_events(&cut).unwrap();
        assert!(a.truncated);
        assert_eq!(a.content, Content::Text("{\"summary\": ".into()));
        assert!(
            Provider::Openai
                .answer_from_events("data: {not json\n")
                .is_err()
        );
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
