//! What each family gets, by provider, server, model and flags.

use super::*;

fn settings() -> LlmSettings {
    LlmSettings::default()
}

fn resolve(provider: Provider, base: &str, model: &str, s: &LlmSettings) -> Family {
    let patterns = ReasoningModels::parse(&s.reasoning_models).unwrap();
    Family::resolve(provider, base, model, s, &patterns).unwrap()
}

#[test]
fn the_default_patterns_name_openais_reasoning_families() {
    let r = ReasoningModels::parse(&[]).unwrap();
    for model in [
        "o1",
        "o3-mini",
        "o4-mini-2025-04-16",
        "gpt-5",
        "gpt-5-mini",
        "GPT-5-nano",
        "openai/gpt-5.1",
    ] {
        assert!(r.matches(model), "{model}");
    }
    for model in [
        "gpt-4.1-mini",
        "gpt-4o",
        "gpt-5-chat-latest",
        "claude-opus-4-1",
        "qwen3",
    ] {
        assert!(!r.matches(model), "{model}");
    }
    let own = ReasoningModels::parse(&["default".into(), "prod-review*".into()]).unwrap();
    assert!(own.matches("prod-reviewer") && own.matches("o3"));
    let none = ReasoningModels::parse(&["none".into()]).unwrap();
    assert!(!none.matches("gpt-5"));
    assert!(matches!(
        ReasoningModels::parse(&["o[1".into()]),
        Err(FamilyError::Pattern { .. })
    ));
}

#[test]
fn reasoning_models_get_max_completion_tokens_and_no_temperature() {
    let s = LlmSettings {
        reasoning_effort: Some(ReasoningEffort::High),
        ..settings()
    };
    let f = resolve(
        Provider::Openai,
        "https://api.openai.com/v1",
        "gpt-5-mini",
        &s,
    );
    assert!(f.reasoning);
    assert_eq!(f.max_tokens_field, MaxTokensField::MaxCompletionTokens);
    assert_eq!(f.temperature, None);
    assert_eq!(f.reasoning_effort, Some(ReasoningEffort::High));
    assert_eq!(f.max_output_tokens, REASONING_OUTPUT_TOKENS);
    // Behind any server: the model refuses max_tokens wherever it runs.
    let proxied = resolve(Provider::Openai, "http://gateway:4000/v1", "o4-mini", &s);
    assert_eq!(
        proxied.max_tokens_field,
        MaxTokensField::MaxCompletionTokens
    );
    // A plain model beside it keeps its temperature and gets no effort.
    let plain = resolve(
        Provider::Openai,
        "https://api.openai.com/v1",
        "gpt-4.1-mini",
        &s,
    );
    assert_eq!(plain.temperature, Some(0.0));
    assert_eq!(plain.reasoning_effort, None);
    assert_eq!(plain.max_output_tokens, ANSWER_TOKENS);
    assert_eq!(plain.max_tokens_field, MaxTokensField::MaxCompletionTokens);
}

#[test]
fn the_field_follows_the_server_unless_set() {
    let s = settings();
    for (base, field) in [
        (
            "https://api.openai.com/v1",
            MaxTokensField::MaxCompletionTokens,
        ),
        (
            "https://x.openai.azure.com/openai/v1",
            MaxTokensField::MaxCompletionTokens,
        ),
        ("http://127.0.0.1:8080/v1", MaxTokensField::MaxTokens),
        ("http://vllm:8000/v1", MaxTokensField::MaxTokens),
    ] {
        assert_eq!(
            resolve(Provider::Openai, base, "qwen", &s).max_tokens_field,
            field,
            "{base}"
        );
    }
    let set = LlmSettings {
        max_tokens_field: Some(MaxTokensField::MaxCompletionTokens),
        temperature: Some(0.3),
        ..settings()
    };
    let f = resolve(Provider::Openai, "http://vllm:8000/v1", "qwen", &set);
    assert_eq!(f.max_tokens_field, MaxTokensField::MaxCompletionTokens);
    assert_eq!(f.temperature, Some(0.3));
}

#[test]
fn thinking_is_met_by_construction_or_refused_with_the_flag() {
    let s = LlmSettings {
        thinking_budget: Some(4096),
        ..settings()
    };
    let f = resolve(
        Provider::Anthropic,
        "https://api.anthropic.com",
        "claude-sonnet-4-5",
        &s,
    );
    assert_eq!(f.thinking_budget, Some(4096));
    assert_eq!(f.temperature, None);
    assert_eq!(f.max_output_tokens, 4096 + ANSWER_TOKENS);
    assert_eq!(f.answer_tokens(), ANSWER_TOKENS);
    let refused = |s: LlmSettings, provider: Provider| {
        let patterns = ReasoningModels::parse(&[]).unwrap();
        Family::resolve(provider, "http://x", "m", &s, &patterns).unwrap_err()
    };
    let over = LlmSettings {
        max_output_tokens: Some(4096),
        ..s.clone()
    };
    assert_eq!(
        refused(over, Provider::Anthropic),
        FamilyError::ThinkingOverOutput {
            budget: 4096,
            max: 4096
        }
    );
    let small = LlmSettings {
        thinking_budget: Some(512),
        ..settings()
    };
    assert_eq!(
        refused(small, Provider::Anthropic),
        FamilyError::ThinkingTooSmall(512)
    );
    let warm = LlmSettings {
        temperature: Some(0.0),
        ..s.clone()
    };
    assert!(
        refused(warm, Provider::Anthropic)
            .to_string()
            .contains("leave the flag out")
    );
    assert_eq!(
        refused(s, Provider::Openai),
        FamilyError::ThinkingNeedsAnthropic
    );
    let effort = LlmSettings {
        reasoning_effort: Some(ReasoningEffort::Low),
        ..settings()
    };
    assert_eq!(
        refused(effort, Provider::Anthropic),
        FamilyError::EffortNeedsOpenai
    );
    let hot = LlmSettings {
        temperature: Some(1.5),
        ..settings()
    };
    assert!(
        refused(hot, Provider::Anthropic)
            .to_string()
            .contains("from 0 to 1")
    );
}
