//! A request refused for one of its parameters (`max_tokens` where a
//! model wants `max_completion_tokens`, a temperature a reasoning model
//! does not take, …), told as the parameter and the flag that changes it
//! rather than as an opaque refusal.
//!
//! OpenAI names the parameter in `error.param` (with `code`
//! `unsupported_parameter` or `unsupported_value`) and in its message
//! (`Unsupported parameter: 'max_tokens' is not supported with this
//! model.`); Anthropic and compatible servers lead their message with it
//! (`` `temperature` may only be set to 1 when thinking is enabled``,
//! `thinking.budget_tokens: Input should be …`).

use super::family::Family;
use serde_json::Value;

/// The parameters revu sends that a flag decides, by the name a server
/// gives them.
const PARAMETERS: [&str; 7] = [
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "reasoning_effort",
    "thinking",
    "budget_tokens",
    "stream_options",
];

/// The request parameter an error body says was refused, when it is one
/// a flag decides.
pub fn refused_parameter(body: &str) -> Option<&'static str> {
    let parsed: Value = serde_json::from_str(body).ok()?;
    let error = parsed.get("error").unwrap_or(&parsed);
    let param = error.get("param").and_then(Value::as_str);
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let named = param
        .into_iter()
        .chain(quoted(message))
        .chain(leading(message));
    for name in named {
        // `thinking.budget_tokens`, `messages[0].temperature`: the last part.
        let last = name
            .rsplit(['.', ']'])
            .find(|p| !p.is_empty())
            .unwrap_or(name);
        if let Some(known) = PARAMETERS.iter().find(|p| **p == last) {
            return Some(known);
        }
    }
    None
}

/// The first name in quotes or backticks after the words OpenAI uses for
/// an unsupported parameter or value.
fn quoted(message: &str) -> Option<&str> {
    let lower = message.to_ascii_lowercase();
    let at = [
        "unsupported parameter",
        "unsupported value",
        "unrecognized request argument",
    ]
    .iter()
    .find_map(|w| lower.find(w))?;
    let rest = &message[at..];
    let rest = rest.split_once(':').map_or(rest, |(_, r)| r).trim_start();
    let rest = rest.trim_start_matches(['\'', '`', '"']);
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(rest.len());
    Some(&rest[..end]).filter(|n| !n.is_empty())
}

/// The name a message starts with: `` `temperature` may … `` or
/// `thinking.budget_tokens: Input …`.
fn leading(message: &str) -> Option<&str> {
    let rest = message.trim_start().trim_start_matches('`');
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_.[]".contains(c)))
        .unwrap_or(rest.len());
    let follows = rest[end..].chars().next();
    matches!(follows, Some('`' | ':')).then_some(&rest[..end])
}

/// What to set so that `param` goes as the server wants it, for an
/// engine whose requests `family` shapes.
pub fn remedy(param: &str, family: &Family) -> String {
    match param {
        "max_tokens" => "the server wants max_completion_tokens: set \
                         --llm-max-tokens-field max_completion_tokens"
            .to_owned(),
        "max_completion_tokens" => {
            "the server wants max_tokens: set --llm-max-tokens-field max_tokens".to_owned()
        }
        "temperature" if family.thinking_budget.is_some() => {
            "a thinking model takes no temperature: leave out --llm-temperature".to_owned()
        }
        "temperature" => "the model takes no temperature (a reasoning model?): name it in \
                          --llm-reasoning-models, which sends none, or set --llm-temperature \
                          to one it takes"
            .to_owned(),
        "reasoning_effort" => "the model takes no reasoning effort: leave out \
                               --llm-reasoning-effort, or take the model out of \
                               --llm-reasoning-models"
            .to_owned(),
        "thinking" | "budget_tokens" => "the model does not think as asked: change or leave \
                                         out --llm-thinking-budget"
            .to_owned(),
        "stream_options" => {
            "the server does not stream as asked: leave out --llm-stream".to_owned()
        }
        other => format!("the server refused {other}"),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_refused_parameter_is_read_from_each_servers_words() {
        let openai = r#"{"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}"#;
        assert_eq!(refused_parameter(openai), Some("max_tokens"));
        let value = r#"{"error": {"message": "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", "type": "invalid_request_error", "param": null, "code": "unsupported_value"}}"#;
        assert_eq!(refused_parameter(value), Some("temperature"));
        let unknown =
            r#"{"error": {"message": "Unrecognized request argument supplied: reasoning_effort"}}"#;
        assert_eq!(refused_parameter(unknown), Some("reasoning_effort"));
        let anthropic = r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "`temperature` may only be set to 1 when thinking is enabled."}}"#;
        assert_eq!(refused_parameter(anthropic), Some("temperature"));
        let budget = r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "thinking.budget_tokens: Input should be greater than or equal to 1024"}}"#;
        assert_eq!(refused_parameter(budget), Some("budget_tokens"));
        // Refusals of something no flag decides stay as the server said.
        let key = r#"{"error": {"message": "Invalid API key provided", "param": null}}"#;
        assert_eq!(refused_parameter(key), None);
        assert_eq!(refused_parameter("<html>bad gateway</html>"), None);
        let messages = r#"{"error": {"message": "messages: at least one message is required"}}"#;
        assert_eq!(refused_parameter(messages), None);
    }

    #[test]
    fn each_parameter_names_the_flag_that_changes_it() {
        let family = Family {
            reasoning: false,
            max_tokens_field: super::super::family::MaxTokensField::MaxTokens,
            max_output_tokens: 2048,
            temperature: Some(0.0),
            reasoning_effort: None,
            thinking_budget: None,
        };
        for (param, flag) in [
            ("max_tokens", "--llm-max-tokens-field max_completion_tokens"),
            ("max_completion_tokens", "--llm-max-tokens-field max_tokens"),
            ("temperature", "--llm-reasoning-models"),
            ("reasoning_effort", "--llm-reasoning-effort"),
            ("budget_tokens", "--llm-thinking-budget"),
        ] {
            assert!(remedy(param, &family).contains(flag), "{param}");
        }
    }
}
