//! The request bodies each family gets, and the answers and usage read
//! back from each protocol, plain and streamed.

use super::*;
use crate::engines::llm::family::{Family, MaxTokensField, ReasoningEffort};
use serde_json::json;

fn family() -> Family {
    Family {
        reasoning: false,
        max_tokens_field: MaxTokensField::MaxTokens,
        max_output_tokens: 256,
        temperature: Some(0.0),
        reasoning_effort: None,
        thinking_budget: None,
    }
}

fn prompt() -> Prompt {
    Prompt {
        system: "the method".into(),
        data: "<data>\nthe files\n</data>\n".into(),
        task: "Your lane: security.\n".into(),
    }
}

fn body(provider: Provider, family: &Family) -> Value {
    let schema = json!({"type": "object"});
    provider.body(&Request {
        model: "m",
        prompt: &prompt(),
        schema: &schema,
        family,
        stream: false,
    })
}

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
fn openai_bodies_carry_only_what_the_family_takes() {
    let plain = body(Provider::Openai, &family());
    assert_eq!(plain["max_tokens"], 256);
    assert_eq!(plain["temperature"], 0.0);
    assert!(plain.get("max_completion_tokens").is_none());
    assert!(plain.get("reasoning_effort").is_none());
    // Method first, then the shared data, then the lane's task.
    assert_eq!(plain["messages"][0]["content"], "the method");
    assert_eq!(
        plain["messages"][1]["content"],
        "<data>\nthe files\n</data>\nYour lane: security.\n"
    );
    let reasoning = Family {
        reasoning: true,
        max_tokens_field: MaxTokensField::MaxCompletionTokens,
        temperature: None,
        reasoning_effort: Some(ReasoningEffort::High),
        ..family()
    };
    let b = body(Provider::Openai, &reasoning);
    assert_eq!(b["max_completion_tokens"], 256);
    assert!(b.get("max_tokens").is_none());
    assert!(b.get("temperature").is_none());
    assert_eq!(b["reasoning_effort"], "high");
}

#[test]
fn anthropic_bodies_mark_the_shared_prefix_and_think_by_the_rules() {
    let b = body(Provider::Anthropic, &family());
    assert_eq!(b["max_tokens"], 256);
    assert_eq!(b["temperature"], 0.0);
    assert_eq!(b["system"][0]["text"], "the method");
    assert_eq!(b["system"][0]["cache_control"]["type"], "ephemeral");
    let user = &b["messages"][0]["content"];
    assert_eq!(user[0]["text"], "<data>\nthe files\n</data>\n");
    assert_eq!(user[0]["cache_control"]["type"], "ephemeral");
    assert_eq!(user[1]["text"], "Your lane: security.\n");
    assert!(user[1].get("cache_control").is_none());
    assert_eq!(
        b["tool_choice"],
        json!({"type": "tool", "name": "lane_report"})
    );
    assert!(b.get("thinking").is_none());
    let thinking = Family {
        max_output_tokens: 4096,
        temperature: None,
        thinking_budget: Some(2048),
        ..family()
    };
    let b = body(Provider::Anthropic, &thinking);
    assert_eq!(
        b["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    assert_eq!(b["max_tokens"], 4096);
    assert!(b.get("temperature").is_none());
    // A thinking model cannot be forced to a tool.
    assert_eq!(b["tool_choice"], json!({"type": "auto"}));
}

#[test]
fn truncation_and_usage_are_read_from_both_protocols() {
    let openai = json!({
        "choices": [{"message": {"content": "{\"a\":"}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 64},
    });
    let a = Provider::Openai.answer(&openai).unwrap();
    assert!(a.truncated && !a.cut_while_reasoning());
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
fn reasoning_and_cached_tokens_are_counted_within_their_totals() {
    let openai = json!({
        "choices": [{"message": {"content": null}, "finish_reason": "length"}],
        "usage": {
            "prompt_tokens": 2000, "completion_tokens": 256,
            "prompt_tokens_details": {"cached_tokens": 1536},
            "completion_tokens_details": {"reasoning_tokens": 256},
        },
    });
    let a = Provider::Openai.answer(&openai).unwrap();
    assert!(a.cut_while_reasoning());
    let u = a.usage("gpt-5-mini").tokens;
    assert_eq!(
        (
            u.input_tokens,
            u.cached_input_tokens,
            u.output_tokens,
            u.reasoning_tokens
        ),
        (2000, 1536, 256, 256)
    );
    // Thinking is read past, never taken for the answer.
    let anthropic = json!({
        "content": [
            {"type": "thinking", "thinking": "Let me look at the eval call…", "signature": "sig"},
            {"type": "redacted_thinking", "data": "xyz"},
        ],
        "stop_reason": "max_tokens",
        "usage": {"input_tokens": 50, "cache_read_input_tokens": 1000,
                  "cache_creation_input_tokens": 200, "output_tokens": 4096},
    });
    let a = Provider::Anthropic.answer(&anthropic).unwrap();
    assert!(a.cut_while_reasoning(), "{a:?}");
    let u = a.usage("claude").tokens;
    assert_eq!(
        (u.input_tokens, u.cached_input_tokens, u.cache_write_tokens),
        (1250, 1000, 200)
    );
    let answered = json!({
        "content": [
            {"type": "thinking", "thinking": "{\"not\": \"this\"}", "signature": "sig"},
            {"type": "text", "text": "{\"summary\": \"x\"}"},
        ],
        "stop_reason": "end_turn",
    });
    let a = Provider::Anthropic.answer(&answered).unwrap();
    assert_eq!(a.content, Content::Text("{\"summary\": \"x\"}".into()));
}

#[test]
fn streamed_answers_read_as_plain_ones_on_both_protocols() {
    let openai = concat!(
        "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"{\\\"a\\\"\"}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\": 1}\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":5,",
        "\"prompt_tokens_details\":{\"cached_tokens\":8},\"completion_tokens_details\":{\"reasoning_tokens\":3}}}\n\n",
        "data: [DONE]\n\n",
    );
    let a = Provider::Openai.answer_from_events(openai).unwrap();
    assert_eq!(a.content, Content::Text("{\"a\": 1}".into()));
    assert!(!a.truncated);
    assert_eq!((a.input_tokens, a.output_tokens), (Some(12), Some(5)));
    assert_eq!((a.cached_input_tokens, a.reasoning_tokens), (8, 3));
    let anthropic = [
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 30, "cache_read_input_tokens": 10, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "the answer is {\"no\": 1}"}}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t", "name": "lane_report", "input": {}}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"summary\": "}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "\"x\"}"}}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
    ];
    let events: String = anthropic
        .iter()
        .map(|e| format!("event: x\ndata: {e}\n\n"))
        .collect();
    let a = Provider::Anthropic.answer_from_events(&events).unwrap();
    assert_eq!(a.content, Content::Json(json!({"summary": "x"})));
    assert_eq!((a.input_tokens, a.output_tokens), (Some(40), Some(9)));
    assert_eq!(a.cached_input_tokens, 10);
    // Cut by the limit: the partial tool input comes back as text.
    let cut = format!(
        "data: {}\ndata: {}\ndata: {}\n",
        anthropic[3],
        anthropic[4],
        json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 256}})
    );
    let a = Provider::Anthropic.answer_from_events(&cut).unwrap();
    assert!(a.truncated);
    assert_eq!(a.content, Content::Text("{\"summary\": ".into()));
    // Cut while thinking: no answer at all.
    let thinking = format!(
        "data: {}\ndata: {}\ndata: {}\n",
        anthropic[1],
        anthropic[2],
        json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 4096}})
    );
    let a = Provider::Anthropic.answer_from_events(&thinking).unwrap();
    assert!(a.cut_while_reasoning(), "{a:?}");
    assert!(matches!(
        Provider::Openai.answer_from_events("data: {not json\n"),
        Err(Malformed::Event(_))
    ));
    assert!(matches!(
        Provider::Openai.answer_from_events(": keep-alive\n"),
        Err(Malformed::NoEvents)
    ));
    let failed = Provider::Anthropic
        .answer_from_events(r#"data: {"type": "error", "error": {"message": "overloaded"}}"#)
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        failed.as_deref(),
        Some("the stream ended in an error: overloaded")
    );
    let none = Provider::Openai.answer(&json!({"id": "x"})).err();
    assert_eq!(
        none.map(|e| e.to_string()).as_deref(),
        Some("the response has no choices")
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
