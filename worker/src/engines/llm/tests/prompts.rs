//! `--llm-prompts`: the operator's prompts reach the model, and the
//! report and the cache name them.

use super::*;

#[tokio::test]
async fn an_operator_prompt_is_sent_and_named_in_checks_and_cache_identity() {
    let server = Server::start(vec![ok(openai_answer(&report_json().to_string(), "stop"))]).await;
    let dir = std::env::temp_dir().join(format!("revu-llm-prompts-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    let house = "## Security\n### Hunt: house query helper\nEvery query goes through db.q().\n";
    std::fs::write(dir.join("security.md"), house).unwrap();
    let settings = LlmSettings {
        provider: Some(Provider::Openai),
        base_url: Some(format!("{}/v1", server.base)),
        model: Some("smollm2".into()),
        max_output_tokens: Some(256),
        prompts: Some(dir.clone()),
        ..LlmSettings::default()
    };
    let engines = settings.engines().await.unwrap();
    let builtin = LlmSettings {
        prompts: None,
        ..settings.clone()
    };
    let builtin = builtin.engines().await.unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_ne!(engines[0].cache_identity(), builtin[0].cache_identity());

    let out = engines[0].review(input()).await.unwrap();
    let EngineOutput::Body(body) = out else {
        panic!("expected a report, got {out:?}");
    };
    let check = body
        .checks
        .iter()
        .find(|c| c.starts_with("prompt "))
        .unwrap();
    let hash = check
        .strip_prefix("prompt review-v3+security@")
        .unwrap_or_else(|| panic!("{check}"));
    assert_eq!(hash.len(), 12, "{check}");
    assert!(hash.chars().all(|c| c.is_ascii_hexdigit()), "{check}");
    let seen = server.requests();
    let user = seen[0].body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("### Hunt: house query helper"), "{user}");
    assert!(!user.contains("### Hunt: injection sinks"), "{user}");
    let system = seen[0].body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("## The method"), "{system}");
}

#[tokio::test]
async fn a_prompt_directory_with_a_stray_file_stops_the_setup() {
    let dir = std::env::temp_dir().join(format!("revu-llm-prompts-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a prompt").unwrap();
    let settings = LlmSettings {
        provider: Some(Provider::Openai),
        base_url: Some("http://127.0.0.1:9/v1".into()),
        model: Some("smollm2".into()),
        prompts: Some(dir.clone()),
        ..LlmSettings::default()
    };
    let err = settings.engines().await.unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(err, LlmSetupError::Prompts(_)), "{err}");
    let message = err.to_string();
    assert!(message.contains("notes.txt: names no prompt"), "{message}");
    assert!(message.contains("security.md"), "{message}");
}
