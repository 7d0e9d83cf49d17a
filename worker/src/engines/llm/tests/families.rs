//! The engine against servers that answer as each model family's API
//! does: OpenAI's reasoning models refusing `max_tokens` and any
//! temperature but the default in its words, and counting reasoning and
//! cached tokens; Anthropic models thinking before they answer, refusing
//! what a thinking request may not carry, and reading and writing a
//! prompt cache. (The command-line tests hold a whole review to a server
//! that refuses as OpenAI does.)

use super::server::{Scripted, Seen, Server, ok, status};
use super::*;
use crate::engines::llm::family::{FamilyError, MaxTokensField, ReasoningEffort};
use revu_domain::lane::Usd;
use revu_domain::retry::Retryable;

fn openai_error(message: &str, param: &str, code: &str) -> Scripted {
    let body = json!({"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}});
    status(400, vec![], &body.to_string())
}

/// A report as OpenAI's API answers it, `reasoning` of its `completion`
/// output tokens spent reasoning (all of them: cut before any answer) and
/// `cached` of its 2,000 input tokens read from the prompt cache.
fn openai_answer_of(completion: u64, reasoning: u64, cached: u64) -> Scripted {
    let cut = completion == reasoning;
    let content = if cut {
        Value::Null
    } else {
        json!(report_json().to_string())
    };
    ok(json!({
        "choices": [{"message": {"role": "assistant", "content": content},
            "finish_reason": if cut { "length" } else { "stop" }}],
        "usage": {
            "prompt_tokens": 2000, "completion_tokens": completion,
            "prompt_tokens_details": {"cached_tokens": cached},
            "completion_tokens_details": {"reasoning_tokens": reasoning},
        },
    }))
}

fn openai_engine(server: &Server, model: &str, settings: LlmSettings) -> LlmEngine {
    let settings = LlmSettings {
        timeout_secs: 30,
        ..settings
    };
    let base = format!("{}/v1", server.base);
    LlmEngine::new("llm", Provider::Openai, &base, model, None, &settings).unwrap()
}

#[tokio::test]
async fn a_reasoning_model_gets_what_it_takes_and_its_reasoning_is_counted() {
    let server = Server::start(vec![openai_answer_of(900, 700, 1536)]).await;
    let settings = LlmSettings {
        reasoning_effort: Some(ReasoningEffort::High),
        ..LlmSettings::default()
    };
    let mut llm = openai_engine(&server, "gpt-5-mini", settings);
    llm.price = Some(price::Price {
        cached_input_per_mtok: Some(0.025),
        ..price::Price::new(0.25, 2.0)
    });
    let input = input();
    let meter = input.meter.clone();
    let out = llm.review(input).await.unwrap();
    assert!(
        matches!(&out, EngineOutput::Body(b) if b.findings.len() == 1),
        "{out:?}"
    );
    let sent = &server.requests()[0].body;
    assert_eq!(
        sent["max_completion_tokens"],
        family::REASONING_OUTPUT_TOKENS
    );
    assert!(sent.get("max_tokens").is_none(), "{sent}");
    assert!(sent.get("temperature").is_none(), "{sent}");
    assert_eq!(sent["reasoning_effort"], "high");
    let usage = meter.total().unwrap();
    assert_eq!(
        (
            usage.tokens.input_tokens,
            usage.tokens.cached_input_tokens,
            usage.tokens.output_tokens,
            usage.tokens.reasoning_tokens
        ),
        (2000, 1536, 900, 700)
    );
    // 464 input tokens at $0.25/M, 1,536 cached at $0.025/M, 900 output
    // (reasoning included) at $2/M.
    assert_eq!(usage.cost_usd, Some(Usd(116_000 + 38_400 + 1_800_000)));
}

#[tokio::test]
async fn a_refused_parameter_is_named_with_the_flag_that_changes_it() {
    // What OpenAI answers a reasoning model asked with max_tokens, then
    // with a temperature.
    let server = Server::start(vec![
        openai_error(
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            "max_tokens",
            "unsupported_parameter",
        ),
        openai_error(
            "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
            "temperature",
            "unsupported_value",
        ),
    ])
    .await;
    let forced = LlmSettings {
        max_tokens_field: Some(MaxTokensField::MaxTokens),
        ..LlmSettings::default()
    };
    let refused = openai_engine(&server, "o3", forced)
        .review(input())
        .await
        .unwrap_err();
    assert!(!refused.is_transient());
    assert_eq!(refused.kind, FaultKind::Refused);
    assert!(
        refused.reason.contains("refusing parameter max_tokens")
            && refused
                .reason
                .contains("--llm-max-tokens-field max_completion_tokens"),
        "{}",
        refused.reason
    );
    // A reasoning model the patterns do not name gets a temperature.
    let unnamed = LlmSettings {
        reasoning_models: vec!["none".into()],
        max_tokens_field: Some(MaxTokensField::MaxCompletionTokens),
        ..LlmSettings::default()
    };
    let refused = openai_engine(&server, "o3", unnamed)
        .review(input())
        .await
        .unwrap_err();
    assert!(
        refused.reason.contains("refusing parameter temperature")
            && refused.reason.contains("--llm-reasoning-models"),
        "{}",
        refused.reason
    );
}

#[tokio::test]
async fn a_plain_model_keeps_its_temperature_and_gets_no_effort() {
    let server = Server::start(vec![openai_answer_of(100, 0, 0)]).await;
    let settings = LlmSettings {
        temperature: Some(0.2),
        ..LlmSettings::default()
    };
    let out = openai_engine(&server, "gpt-4.1-mini", settings)
        .review(input())
        .await
        .unwrap();
    assert!(matches!(out, EngineOutput::Body(_)), "{out:?}");
    let sent = &server.requests()[0].body;
    assert_eq!(sent["temperature"], 0.2);
    // Not OpenAI's own host: the field every server knows.
    assert_eq!(sent["max_tokens"], family::ANSWER_TOKENS);
    assert!(sent.get("reasoning_effort").is_none());
}

#[tokio::test]
async fn a_lane_cut_while_reasoning_is_incomplete_with_that_reason() {
    let server = Server::start(vec![openai_answer_of(512, 512, 0)]).await;
    let settings = LlmSettings {
        max_output_tokens: Some(512),
        reasoning_effort: Some(ReasoningEffort::Medium),
        ..LlmSettings::default()
    };
    let out = openai_engine(&server, "o4-mini", settings)
        .review(input())
        .await
        .unwrap();
    let EngineOutput::Raw(body) = out else {
        panic!("a lane cut while reasoning read as complete: {out:?}");
    };
    let why = body["incomplete"].as_str().unwrap_or_default();
    assert!(
        why.contains("output token limit (512 tokens) while the model was still reasoning (512 reasoning tokens)")
            && why.contains("--llm-reasoning-effort"),
        "{why}"
    );
}

/// What Anthropic's API answers a request: refusals of what a thinking
/// request may not carry, as it words them; else thinking (which reads
/// like JSON, and is no answer), then `answer`, with a prompt cache that
/// is written by the first request and read by the next.
fn anthropic_api(seen: &Seen, requests: usize, answer: Option<Value>) -> Scripted {
    let body = &seen.body;
    let refuse = |message: &str| {
        let body = json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}});
        status(400, vec![], &body.to_string())
    };
    if let Some(budget) = body
        .pointer("/thinking/budget_tokens")
        .and_then(Value::as_u64)
    {
        if body.get("temperature").is_some() {
            return refuse("`temperature` may only be set to 1 when thinking is enabled.");
        }
        if body.pointer("/tool_choice/type") == Some(&json!("tool")) {
            return refuse("Thinking may not be enabled when tool_choice forces tool use.");
        }
        if budget < 1024 || Some(budget) >= body["max_tokens"].as_u64() {
            return refuse(
                "thinking.budget_tokens: Input should be at least 1024 and below max_tokens",
            );
        }
    }
    let (read, write) = if requests == 0 { (0, 1800) } else { (1800, 0) };
    let mut content = vec![
        json!({"type": "thinking", "thinking": "{\"findings\": []} would be wrong here", "signature": "c2ln"}),
    ];
    let stop = match answer {
        Some(input) => {
            content.push(
                json!({"type": "tool_use", "id": "t1", "name": "lane_report", "input": input}),
            );
            "tool_use"
        }
        None => "max_tokens",
    };
    ok(json!({
        "content": content,
        "stop_reason": stop,
        "usage": {"input_tokens": 200, "cache_read_input_tokens": read,
                  "cache_creation_input_tokens": write, "output_tokens": 1500},
    }))
}

/// A Claude engine thinking 1,024 tokens at most, as `settings` say
/// otherwise; `Err` says why the flags are refused.
fn thinking_engine(server: &Server, settings: LlmSettings) -> Result<LlmEngine, LlmSetupError> {
    let settings = LlmSettings {
        thinking_budget: Some(1024),
        timeout_secs: 30,
        ..settings
    };
    let model = "claude-sonnet-4-5";
    LlmEngine::new(
        "llm",
        Provider::Anthropic,
        &server.base,
        model,
        None,
        &settings,
    )
}

fn lane(dimension: Dimension) -> LaneInput {
    let spec = LaneSpec {
        id: format!("specialist:{dimension}"),
        kind: LaneKind::Specialist { dimension },
        engine: "llm".into(),
        files: vec!["app.py".into()],
        guidance: vec![],
    };
    crate::engines::patch_input(spec, PATCH, "Read x from stdin.")
}

#[tokio::test]
async fn anthropic_thinking_is_read_past_and_the_shared_prefix_is_cached() {
    let mut answered = 0;
    let server = Server::answering(move |seen| {
        let answer = anthropic_api(seen, answered, Some(report_json()));
        answered += 1;
        Some(answer)
    })
    .await;
    let mut llm = thinking_engine(&server, LlmSettings::default()).unwrap();
    llm.price = Some(price::Price {
        cached_input_per_mtok: Some(0.30),
        cache_write_per_mtok: Some(3.75),
        ..price::Price::new(3.0, 15.0)
    });
    let mut costs = Vec::new();
    for dimension in [Dimension::Security, Dimension::Testing] {
        let input = lane(dimension);
        let meter = input.meter.clone();
        let out = llm.review(input).await.unwrap();
        let EngineOutput::Body(body) = out else {
            panic!("{dimension}: expected a report, got {out:?}");
        };
        // The tool's report, not the thinking that looked like JSON.
        assert_eq!(body.findings.len(), 1, "{dimension}");
        costs.push(meter.total().unwrap());
    }
    let seen = server.requests();
    let (first, second) = (&seen[0].body, &seen[1].body);
    assert_eq!(first["thinking"]["budget_tokens"], 1024);
    assert_eq!(first["max_tokens"], 1024 + family::ANSWER_TOKENS);
    // The method and the data are the same for both lanes and end in
    // cache breakpoints; only the task after them differs.
    assert_eq!(first["system"], second["system"]);
    assert_eq!(first["system"][0]["cache_control"]["type"], "ephemeral");
    let (a, b) = (
        &first["messages"][0]["content"],
        &second["messages"][0]["content"],
    );
    assert_eq!(a[0], b[0]);
    assert_eq!(a[0]["cache_control"]["type"], "ephemeral");
    assert_ne!(a[1], b[1]);
    // Written once, then read: 2,000 input tokens each.
    assert_eq!(
        (
            costs[0].tokens.input_tokens,
            costs[0].tokens.cache_write_tokens
        ),
        (2000, 1800)
    );
    assert_eq!(
        (
            costs[1].tokens.input_tokens,
            costs[1].tokens.cached_input_tokens
        ),
        (2000, 1800)
    );
    // 200 plain at $3/M plus 1,800 written at $3.75/M, or read at $0.30/M;
    // 1,500 output (thinking included) at $15/M.
    assert_eq!(
        costs[0].cost_usd,
        Some(Usd(600_000 + 6_750_000 + 22_500_000))
    );
    assert_eq!(costs[1].cost_usd, Some(Usd(600_000 + 540_000 + 22_500_000)));
}

#[tokio::test]
async fn a_lane_cut_while_thinking_is_incomplete_and_bad_thinking_flags_are_refused() {
    let server = Server::answering(|seen| Some(anthropic_api(seen, 0, None))).await;
    let out = thinking_engine(&server, LlmSettings::default())
        .unwrap()
        .review(input())
        .await
        .unwrap();
    let EngineOutput::Raw(body) = out else {
        panic!("a lane cut while thinking read as complete: {out:?}");
    };
    let why = body["incomplete"].as_str().unwrap_or_default();
    assert!(
        why.contains("while the model was still reasoning")
            && why.contains("--llm-thinking-budget"),
        "{why}"
    );
    for (settings, refused) in [
        (
            LlmSettings {
                max_output_tokens: Some(1024),
                ..LlmSettings::default()
            },
            "must be below --llm-max-output-tokens 1024",
        ),
        (
            LlmSettings {
                temperature: Some(0.0),
                ..LlmSettings::default()
            },
            "takes no temperature",
        ),
    ] {
        let made = thinking_engine(&server, settings).map(drop);
        assert!(
            made.as_ref().is_err_and(
                |e| matches!(e, LlmSetupError::Model { .. }) && e.to_string().contains(refused)
            ),
            "{refused}: {made:?}"
        );
    }
}

#[tokio::test]
async fn reasoning_effort_for_no_reasoning_model_is_refused_at_startup() {
    let settings = LlmSettings {
        provider: Some(Provider::Openai),
        model: Some("gpt-4.1".into()),
        reasoning_effort: Some(ReasoningEffort::High),
        ..LlmSettings::default()
    };
    let refused = settings.engines().await.unwrap_err();
    assert!(
        matches!(
            refused,
            LlmSetupError::Flags(FamilyError::EffortWithoutReasoning { .. })
        ),
        "{refused:?}"
    );
    assert!(
        refused
            .to_string()
            .contains("no engine's model is a reasoning model (gpt-4.1)"),
        "{refused}"
    );
    // With a reasoning engine beside it, the plain one just gets none.
    let mixed = LlmSettings {
        engines: vec![parse_named_model("deep=o3").unwrap()],
        ..settings
    };
    let engines = mixed.engines().await.unwrap();
    let efforts: Vec<_> = engines.iter().map(|e| e.family.reasoning_effort).collect();
    assert_eq!(efforts, [None, Some(ReasoningEffort::High)]);
}
