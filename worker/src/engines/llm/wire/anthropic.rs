//! Anthropic Messages.
//!
//! The answer comes through a `lane_report` tool. The system message and
//! the data block end in `cache_control` breakpoints, so the tools, the
//! method and the data the review's lanes share are cached. With a
//! thinking budget the request carries `thinking` and no temperature, and
//! lets the model choose the tool (`tool_choice: auto`), since a thinking
//! model cannot be forced to one; its thinking blocks are read past.
//! Usage counts `input_tokens` apart from `cache_read_input_tokens` and
//! `cache_creation_input_tokens`; revu adds them up, and thinking is
//! billed, and counted, within `output_tokens`.

use super::{Answer, Content, Malformed, Request, TOOL, count};
use serde_json::{Value, json};

/// The Anthropic API version revu speaks.
pub(super) const VERSION: &str = "2023-06-01";

pub(super) fn body(request: &Request<'_>) -> Value {
    let (prompt, family) = (request.prompt, request.family);
    let cached = json!({"type": "ephemeral"});
    let mut user = vec![json!({"type": "text", "text": prompt.data, "cache_control": cached})];
    if !prompt.task.is_empty() {
        user.push(json!({"type": "text", "text": prompt.task}));
    }
    let tool_choice = if family.thinking_budget.is_some() {
        user.push(json!({"type": "text", "text": format!("Answer by calling the `{TOOL}` tool.")}));
        json!({"type": "auto"})
    } else {
        json!({"type": "tool", "name": TOOL})
    };
    let mut body = json!({
        "model": request.model,
        "max_tokens": family.max_output_tokens,
        "system": [{"type": "text", "text": prompt.system, "cache_control": cached}],
        "messages": [{"role": "user", "content": user}],
        "tools": [{
            "name": TOOL,
            "description": "The lane report: what was reviewed and checked, the findings, a summary.",
            "input_schema": request.schema,
        }],
        "tool_choice": tool_choice,
    });
    if let Some(t) = family.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(budget) = family.thinking_budget {
        body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
    }
    if request.stream {
        body["stream"] = json!(true);
    }
    body
}

pub(super) fn answer(body: &Value) -> Result<Answer, Malformed> {
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or(Malformed::Missing("content"))?;
    let tool = blocks.iter().find(|b| {
        kind(Some(b)) == Some("tool_use") && b.get("name").and_then(Value::as_str) == Some(TOOL)
    });
    let content = match tool.and_then(|b| b.get("input")) {
        Some(input) => Content::Json(input.clone()),
        // Servers that ignore tools answer in text; thinking is no answer.
        None => Content::Text(
            blocks
                .iter()
                .filter(|b| kind(Some(b)) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    };
    Ok(read_usage(
        body.get("usage"),
        Answer {
            content,
            truncated: body.get("stop_reason").and_then(Value::as_str) == Some("max_tokens"),
            ..Answer::default()
        },
    ))
}

/// Messages events: `message_start` (input usage), content blocks built
/// from `text_delta` and `input_json_delta` pieces (`thinking_delta`s
/// are read past), `message_delta` (the stop reason and output usage).
pub(super) fn stream(events: &[Value]) -> Result<Answer, Malformed> {
    let mut usage = json!({});
    let mut stop = None;
    let mut text = String::new();
    let mut tool_json: Option<String> = None;
    let mut in_tool = false;
    let mut merge = |u: Option<&Value>| {
        for (k, v) in u.and_then(Value::as_object).into_iter().flatten() {
            usage[k] = v.clone();
        }
    };
    for event in events {
        let field = |name: &str| event.get(name);
        match kind(Some(event)) {
            Some("message_start") => merge(event.pointer("/message/usage")),
            Some("content_block_start") => {
                let block = field("content_block");
                in_tool = kind(block) == Some("tool_use")
                    && block.and_then(|b| b.get("name")).and_then(Value::as_str) == Some(TOOL);
                if in_tool {
                    tool_json.get_or_insert_with(String::new);
                }
            }
            Some("content_block_delta") => {
                let delta = field("delta");
                let piece = |name: &str| delta.and_then(|d| d.get(name)).and_then(Value::as_str);
                match (kind(delta), piece("text"), piece("partial_json")) {
                    (Some("text_delta"), Some(t), _) => text.push_str(t),
                    (Some("input_json_delta"), _, Some(p)) if in_tool => {
                        if let Some(json) = tool_json.as_mut() {
                            json.push_str(p);
                        }
                    }
                    _ => {}
                }
            }
            Some("message_delta") => {
                if let Some(s) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    stop = Some(s.to_owned());
                }
                merge(field("usage"));
            }
            Some("error") => {
                let message = event.pointer("/error/message").and_then(Value::as_str);
                return Err(Malformed::Stream(message.map(str::to_owned)));
            }
            _ => {}
        }
    }
    // A tool input cut by the limit is no JSON yet: read what there is.
    let content = match tool_json.map(|j| serde_json::from_str::<Value>(&j).map_err(|_| j)) {
        Some(Ok(input)) => Content::Json(input),
        Some(Err(partial)) => Content::Text(partial),
        None => Content::Text(text),
    };
    Ok(read_usage(
        Some(&usage),
        Answer {
            content,
            truncated: stop.as_deref() == Some("max_tokens"),
            ..Answer::default()
        },
    ))
}

/// The `type` of a block, event or delta.
fn kind(value: Option<&Value>) -> Option<&str> {
    value?.get("type")?.as_str()
}

/// The answer with its token counts: with prompt caching, `input_tokens`
/// counts only what was neither read from nor written to the cache, which
/// come in fields of their own; revu's input is all three.
fn read_usage(usage: Option<&Value>, mut answer: Answer) -> Answer {
    let parts = [
        count(usage, "input_tokens"),
        count(usage, "cache_read_input_tokens"),
        count(usage, "cache_creation_input_tokens"),
    ];
    answer.input_tokens = parts
        .iter()
        .any(Option::is_some)
        .then(|| parts.iter().flatten().sum());
    answer.cached_input_tokens = parts[1].unwrap_or(0);
    answer.cache_write_tokens = parts[2].unwrap_or(0);
    answer.output_tokens = count(usage, "output_tokens");
    answer
}
