//! OpenAI chat completions, as OpenAI and compatible servers speak it.
//!
//! The bound on the answer goes in the field the engine's family names
//! (`max_completion_tokens` or `max_tokens`); `temperature` and
//! `reasoning_effort` only where the model takes them. Usage counts
//! cached input (`prompt_tokens_details.cached_tokens`) and reasoning
//! (`completion_tokens_details.reasoning_tokens`) within `prompt_tokens`
//! and `completion_tokens`, as revu does.

use super::{Answer, Content, Malformed, Request, TOOL, count};
use serde_json::{Value, json};

pub(super) fn body(request: &Request<'_>) -> Value {
    let (prompt, family) = (request.prompt, request.family);
    let mut body = json!({
        "model": request.model,
        "messages": [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user()},
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": TOOL, "strict": true, "schema": request.schema},
        },
    });
    body[family.max_tokens_field.as_str()] = json!(family.max_output_tokens);
    if let Some(t) = family.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(effort) = family.reasoning_effort {
        body["reasoning_effort"] = json!(effort.as_str());
    }
    if request.stream {
        body["stream"] = json!(true);
        // The token counts come in a last chunk, only when asked.
        body["stream_options"] = json!({"include_usage": true});
    }
    body
}

pub(super) fn answer(body: &Value) -> Result<Answer, Malformed> {
    let choice = body
        .pointer("/choices/0")
        .ok_or(Malformed::Missing("choices"))?;
    let message = choice.get("message").ok_or(Malformed::NoMessage)?;
    // A reasoning model cut while reasoning has no content (`null`); a
    // refusal comes in a field of its own.
    let text = match (message.get("content"), message.get("refusal")) {
        (Some(Value::String(text)), _) if !text.is_empty() => text.clone(),
        (_, Some(Value::String(refusal))) => refusal.clone(),
        (Some(Value::String(_) | Value::Null) | None, _) => String::new(),
        (Some(_), _) => return Err(Malformed::NotText),
    };
    let mut answer = Answer {
        content: Content::Text(text),
        truncated: choice.get("finish_reason").and_then(Value::as_str) == Some("length"),
        ..Answer::default()
    };
    read_usage(body.get("usage"), &mut answer);
    Ok(answer)
}

/// Chat completion chunks: `choices[0].delta.content` pieces (reasoning
/// pieces some servers send apart are read past), the last
/// `finish_reason`, and `usage` in the final chunk.
pub(super) fn stream(events: &[Value]) -> Answer {
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
            usage = event.get("usage");
        }
    }
    let mut answer = Answer {
        content: Content::Text(text),
        truncated: finish.as_deref() == Some("length"),
        ..Answer::default()
    };
    read_usage(usage, &mut answer);
    answer
}

fn read_usage(usage: Option<&Value>, answer: &mut Answer) {
    answer.input_tokens = count(usage, "prompt_tokens");
    answer.output_tokens = count(usage, "completion_tokens");
    let details = |name: &str| usage.and_then(|u| u.get(name));
    answer.cached_input_tokens =
        count(details("prompt_tokens_details"), "cached_tokens").unwrap_or(0);
    answer.reasoning_tokens =
        count(details("completion_tokens_details"), "reasoning_tokens").unwrap_or(0);
}
