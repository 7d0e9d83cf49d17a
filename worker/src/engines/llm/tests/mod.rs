//! The `llm` engine against an in-test HTTP server on loopback that
//! answers each request with the next scripted response, or as a model
//! family's API does ([`families`]).

#![allow(clippy::unwrap_used)]

mod context;
mod families;
mod prompts;
mod server;

use super::*;
use revu_domain::bundle::ReviewBundle;
use revu_domain::finding::Dimension;
use revu_domain::lane::{LaneKind, LaneSpec};
use revu_domain::retry::Retryable;
use server::{Scripted, Server, ok, status};
use std::sync::{Arc, Mutex};

const PATCH: &[u8] = b"diff --git a/app.py b/app.py
--- a/app.py
+++ b/app.py
@@ -1,2 +1,2 @@
 import os
-x = 1
+x = eval(input())
";

fn input() -> LaneInput {
    let lane = LaneSpec {
        id: "specialist:security".into(),
        kind: LaneKind::Specialist {
            dimension: Dimension::Security,
        },
        engine: "llm".into(),
        files: vec!["app.py".into()],
        guidance: vec![],
    };
    crate::engines::patch_input(lane, PATCH, "")
}

fn engine(provider: Provider, server: &Server) -> LlmEngine {
    let base = match provider {
        Provider::Openai => format!("{}/v1", server.base),
        Provider::Anthropic => server.base.clone(),
    };
    let settings = LlmSettings {
        max_output_tokens: Some(256),
        timeout_secs: 30,
        ..LlmSettings::default()
    };
    LlmEngine::new(
        "llm",
        provider,
        &base,
        "smollm2",
        Some("sk-test-secret".into()),
        &settings,
    )
    .unwrap()
}

fn report_json() -> Value {
    json!({
        "reviewed": ["app.py"],
        "checks": ["untrusted input"],
        "findings": [{
            "severity": "BLOCKER", "file": "app.py", "line": 2,
            "summary": "eval of user input", "why": "runs any code the user types",
            "fix": "parse the value with int()", "confidence": 95, "dimension": "security"
        }],
        "summary": "One blocker: eval of input."
    })
}

fn openai_answer(content: &str, finish: &str) -> Value {
    json!({
        "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 200, "completion_tokens": 50},
    })
}

async fn review(engine: &LlmEngine) -> Result<EngineOutput, EngineError> {
    engine.review(input()).await
}

#[tokio::test]
async fn openai_findings_come_back_as_a_report_and_the_request_is_structured() {
    let server = Server::start(vec![ok(openai_answer(&report_json().to_string(), "stop"))]).await;
    let out = review(&engine(Provider::Openai, &server)).await.unwrap();
    let EngineOutput::Body(body) = out else {
        panic!("expected a report, got {out:?}");
    };
    assert_eq!(body.findings.len(), 1);
    assert_eq!(body.findings[0].rule, "llm:security");
    assert!(
        body.checks
            .contains(&"prompt review-v3+security-v1".to_owned())
    );
    let seen = server.requests();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].head.starts_with("post /v1/chat/completions "));
    assert!(
        seen[0]
            .head
            .contains("authorization: bearer sk-test-secret")
    );
    assert_eq!(seen[0].body["model"], "smollm2");
    assert_eq!(seen[0].body["response_format"]["type"], "json_schema");
    assert_eq!(seen[0].body["max_tokens"], 256);
    let user = seen[0].body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("     2 + x = eval(input())"), "{user}");
}

#[tokio::test]
async fn the_full_file_after_the_change_is_shown_when_the_review_carries_it() {
    let server = Server::start(vec![ok(openai_answer(&report_json().to_string(), "stop"))]).await;
    let mut lane = input();
    let mut review = ReviewBundle::clone(&lane.review.bundle);
    review.head_files.insert(
        "app.py".into(),
        b"import os\nx = eval(input())\nprint(x)\n".to_vec(),
    );
    lane.review = Arc::new(crate::engines::LoadedReview::new(
        review.into(),
        lane.review.diff.clone(),
    ));
    engine(Provider::Openai, &server)
        .review(lane)
        .await
        .unwrap();
    let user = server.requests()[0].body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        user.contains("## Full file after the change: app.py"),
        "{user}"
    );
    // Line 3 is in no hunk: only the full file shows it.
    assert!(user.contains("     3   print(x)"), "{user}");
}

#[tokio::test]
async fn anthropic_answers_through_the_forced_tool_or_in_text() {
    let tool = json!({
        "content": [{"type": "tool_use", "id": "t1", "name": "lane_report", "input": report_json()}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 300, "output_tokens": 80},
    });
    // A server that ignores tools answers in text, fenced.
    let text = json!({
        "content": [{"type": "text", "text": format!("```json\n{}\n```", report_json())}],
        "stop_reason": "end_turn",
    });
    let server = Server::start(vec![ok(tool), ok(text)]).await;
    let llm = engine(Provider::Anthropic, &server);
    for _ in 0..2 {
        let out = review(&llm).await.unwrap();
        assert!(
            matches!(&out, EngineOutput::Body(b) if b.findings.len() == 1),
            "{out:?}"
        );
    }
    let seen = server.requests();
    assert!(seen[0].head.starts_with("post /v1/messages "));
    assert!(seen[0].head.contains("x-api-key: sk-test-secret"));
    assert!(seen[0].head.contains("anthropic-version: 2023-06-01"));
    assert_eq!(seen[0].body["tool_choice"]["name"], "lane_report");
}

#[tokio::test]
async fn a_rate_limit_is_transient_and_carries_the_servers_wait() {
    let server = Server::start(vec![
        status(
            429,
            vec![("retry-after", "3".into())],
            r#"{"error":{"message":"slow down"}}"#,
        ),
        status(503, vec![("retry-after-ms", "1500".into())], "overloaded"),
    ])
    .await;
    let llm = engine(Provider::Openai, &server);
    let limited = review(&llm).await.unwrap_err();
    assert!(limited.is_transient());
    assert_eq!(limited.kind, FaultKind::RateLimited);
    assert_eq!(limited.wait, Some(Duration::from_secs(3)));
    assert!(
        limited.reason.contains("429: slow down"),
        "{}",
        limited.reason
    );
    let down = review(&llm).await.unwrap_err();
    assert!(down.is_transient());
    assert_eq!(down.wait, Some(Duration::from_millis(1500)));
}

#[tokio::test]
async fn a_refusal_is_permanent_with_the_servers_reason_and_no_key_in_it() {
    let server = Server::start(vec![status(
        401,
        vec![],
        r#"{"error":{"message":"Invalid API key provided"}}"#,
    )])
    .await;
    let llm = engine(Provider::Openai, &server);
    let refused = review(&llm).await.unwrap_err();
    assert!(!refused.is_transient());
    assert_eq!(refused.kind, FaultKind::Refused);
    assert!(refused.reason.contains("401: Invalid API key provided"));
    assert!(!refused.reason.contains("sk-test-secret"));
    assert!(!format!("{llm:?}").contains("sk-test-secret"));
}

/// Two files of about 1,500 estimated tokens each, the second with a hunk
/// that no request of 2,500 tokens can carry beside the system prompt.
const WIDE_PATCH: &str = "diff --git a/a.py b/a.py
--- a/a.py
+++ b/a.py
@@ -1,1 +1,2 @@
 import os
+A = 1
diff --git a/b.py b/b.py
--- a/b.py
+++ b/b.py
@@ -1,1 +1,2 @@
 import os
+B = 1
";

/// [`WIDE_PATCH`] with each file's added line padded to about `a` and
/// `b` bytes.
fn wide_input_of(a: usize, b: usize) -> LaneInput {
    let patch = WIDE_PATCH
        .replace("+A = 1", &format!("+A = '{}'", "a".repeat(a)))
        .replace("+B = 1", &format!("+B = '{}'", "b".repeat(b)));
    let lane = LaneSpec {
        id: "domain:core".into(),
        kind: LaneKind::Domain {
            domain: "core".into(),
        },
        engine: "llm".into(),
        files: vec!["a.py".into(), "b.py".into()],
        guidance: vec![],
    };
    crate::engines::patch_input(lane, patch.as_bytes(), "")
}

fn wide_input(filler: usize) -> LaneInput {
    wide_input_of(filler, filler)
}

fn budgeted(server: &Server, max_input_tokens: u64) -> LlmEngine {
    let settings = LlmSettings {
        max_output_tokens: Some(256),
        context_tokens: Some(max_input_tokens),
        timeout_secs: 30,
        ..LlmSettings::default()
    };
    LlmEngine::new(
        "llm",
        Provider::Openai,
        &format!("{}/v1", server.base),
        "smollm2",
        None,
        &settings,
    )
    .unwrap()
}

/// The estimated tokens of the system prompt, which every request repeats.
fn system_tokens() -> u64 {
    let parts = prompt::parts(&wide_input(1), &PromptSet::default());
    budget::Counter::estimate().count(&parts.system)
}

/// The estimated tokens every request of a wide lane repeats: the system
/// prompt and the lane's task (its hunts).
fn repeated_tokens() -> u64 {
    let parts = prompt::parts(&wide_input(1), &PromptSet::default());
    system_tokens() + budget::Counter::estimate().count(&parts.task)
}

fn finding_on(file: &str, line: u32) -> Value {
    json!({
        "reviewed": [file], "checks": ["quoting"],
        "findings": [{
            "severity": "IMPORTANT", "file": file, "line": line,
            "summary": format!("long literal in {file}"), "why": "hard to read",
            "fix": "move it to a file", "confidence": 80, "dimension": "design"
        }],
        "summary": format!("{file} reviewed.")
    })
}

#[tokio::test]
async fn a_lane_over_the_input_budget_is_split_by_file_and_the_answers_merged() {
    let server = Server::start(vec![
        ok(openai_answer(&finding_on("a.py", 2).to_string(), "stop")),
        ok(openai_answer(&finding_on("b.py", 2).to_string(), "stop")),
    ])
    .await;
    // Each file fits a request beside the system prompt; both do not.
    let budget = repeated_tokens() + 1_200;
    let engine = budgeted(&server, budget);
    let out = engine.review(wide_input(2_400)).await.unwrap();
    let EngineOutput::Body(body) = out else {
        panic!("expected a complete report, got {out:?}");
    };
    let seen = server.requests();
    assert_eq!(seen.len(), 2, "one request per file");
    for (request, file) in seen.iter().zip(["a.py", "b.py"]) {
        let user = request.body["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains(&format!("## File: {file}\n")), "{user}");
        assert!(user.contains("reviewed in 2 requests"), "{user}");
        let sent = budget::Counter::estimate().count(user) + system_tokens();
        assert!(sent <= budget, "a request of {sent} tokens over {budget}");
    }
    let files: Vec<&str> = body.findings.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(files, ["a.py", "b.py"]);
    assert_eq!(body.reviewed, ["a.py", "b.py"]);
    assert!(
        body.checks
            .iter()
            .any(|c| c.starts_with("2 requests within")),
        "{:?}",
        body.checks
    );
    assert_eq!(engine.max_input_tokens, budget);
}

#[tokio::test]
async fn what_no_request_can_carry_is_named_and_the_lane_is_incomplete() {
    let server = Server::start(vec![ok(openai_answer(
        &finding_on("a.py", 2).to_string(),
        "stop",
    ))])
    .await;
    let budget = repeated_tokens() + 1_200;
    let engine = budgeted(&server, budget);
    // b.py's one hunk is larger than any request may be.
    let out = engine.review(wide_input_of(2_400, 9_000)).await.unwrap();
    let EngineOutput::Raw(body) = out else {
        panic!("a lane with a hunk left out read as complete: {out:?}");
    };
    let why = body["incomplete"].as_str().unwrap_or_default();
    assert!(why.contains("b.py @@ -1,1 +1,2 @@"), "{why}");
    assert!(
        why.contains(&format!("input budget of {budget} tokens")),
        "{why}"
    );
    assert_eq!(body["findings"][0]["file"], "a.py", "{body}");
    assert_eq!(server.requests().len(), 1);
}

/// A ledger in memory, as the review store keeps it.
#[derive(Debug, Default)]
struct CountingLedger(Mutex<i64>);

impl crate::engines::Ledger for CountingLedger {
    fn charge(&self, tokens: i64) -> crate::engines::Charge<'_> {
        let mut total = self.0.lock().unwrap();
        *total += tokens;
        let now = u64::try_from(*total).unwrap_or(0);
        Box::pin(async move { Ok(now) })
    }
}

#[tokio::test]
async fn the_review_token_cap_stops_requests_and_says_what_was_not_sent() {
    let server = Server::start(vec![
        ok(openai_answer(&finding_on("a.py", 2).to_string(), "stop")),
        ok(openai_answer(&finding_on("b.py", 2).to_string(), "stop")),
    ])
    .await;
    let budget = repeated_tokens() + 1_200;
    let engine = budgeted(&server, budget);
    let mut input = wide_input(2_400);
    let ledger = Arc::new(CountingLedger::default());
    // Room for the first request (reserved at its estimate, about 950
    // tokens over the system prompt and the task, plus the output limit of 256; then
    // charged what the server reported, 250), not for a second on top.
    let mut job = (*input.job).clone();
    job.token_cap = Some(budget + 156);
    input.job = Arc::new(job);
    input.ledger = Some(ledger.clone());
    let meter = input.meter.clone();
    let out = engine.review(input).await.unwrap();
    let EngineOutput::Raw(body) = out else {
        panic!("a capped lane read as complete: {out:?}");
    };
    let why = body["incomplete"].as_str().unwrap_or_default();
    assert!(why.contains("token cap of"), "{why}");
    assert!(
        why.contains("1 of 2 request(s) of this lane not sent"),
        "{why}"
    );
    assert_eq!(server.requests().len(), 1, "no request past the cap");
    // The ledger holds what the one answer reported: 200 in, 50 out.
    assert_eq!(*ledger.0.lock().unwrap(), 250);
    assert_eq!(meter.total().map(|u| u.requests), Some(1));
}

/// A ledger whose store fails as `error` makes it.
#[derive(Debug)]
struct FailingLedger(fn() -> revu_queue::QueueError);

impl crate::engines::Ledger for FailingLedger {
    fn charge(&self, _tokens: i64) -> crate::engines::Charge<'_> {
        let error = (self.0)();
        Box::pin(async move { Err(error) })
    }
}

#[tokio::test]
async fn a_ledger_that_fails_is_retried_as_its_store_says() {
    let server = Server::start(vec![]).await;
    let engine = budgeted(&server, repeated_tokens() + 1_200);
    for (error, retry) in [
        (
            (|| revu_queue::QueueError::Closed) as fn() -> _,
            revu_domain::retry::Retry::Transient,
        ),
        (
            || revu_queue::QueueError::BadEntry("x".into()),
            revu_domain::retry::Retry::Permanent,
        ),
    ] {
        let mut input = wide_input(2_400);
        let mut job = (*input.job).clone();
        job.token_cap = Some(1_000_000);
        input.job = Arc::new(job);
        input.ledger = Some(Arc::new(FailingLedger(error)));
        let err = engine.review(input).await.unwrap_err();
        assert_eq!(err.retry(), retry, "{err}");
        assert!(err.reason.starts_with("token ledger: "), "{err}");
    }
    assert!(server.requests().is_empty(), "nothing asked unreserved");
}

#[tokio::test]
async fn a_priced_model_records_what_its_tokens_cost() {
    let server = Server::start(vec![ok(openai_answer(&report_json().to_string(), "stop"))]).await;
    let mut engine = engine(Provider::Openai, &server);
    engine.price = Some(price::Price::new(1.0, 4.0));
    let input = input();
    let meter = input.meter.clone();
    engine.review(input).await.unwrap();
    let usage = meter.total().unwrap();
    // 200 input tokens at $1/M and 50 output at $4/M: $0.0004.
    assert_eq!(usage.cost_usd, Some(revu_domain::lane::Usd(400_000)));
}

#[tokio::test]
async fn named_engines_share_the_server_with_a_model_each() {
    let settings = LlmSettings {
        provider: Some(Provider::Openai),
        base_url: Some("http://127.0.0.1:9/v1".into()),
        model: Some("big-model".into()),
        engines: vec![parse_named_model("light=small-model").unwrap()],
        ..LlmSettings::default()
    };
    let engines = settings.engines().await.unwrap();
    let named: Vec<(&str, &str)> = engines
        .iter()
        .map(|e| (e.name.as_str(), e.model.as_str()))
        .collect();
    assert_eq!(named, [("llm", "big-model"), ("light", "small-model")]);
    assert!(parse_named_model("Light=x").is_err());
    assert!(parse_named_model("light").is_err());
    let twice = LlmSettings {
        engines: vec![parse_named_model("llm=other").unwrap()],
        ..settings
    };
    let err = twice.engines().await.unwrap_err();
    assert!(
        matches!(&err, LlmSetupError::Twice { name } if name == "llm"),
        "{err}"
    );
    assert_eq!(err.to_string(), "engine llm is configured twice");
}

#[tokio::test]
async fn streamed_answers_make_the_same_report_on_both_protocols() {
    let report = report_json().to_string();
    let (head, tail) = report.split_at(report.len() / 2);
    let openai: String = [
        json!({"choices": [{"delta": {"role": "assistant", "content": head}}]}),
        json!({"choices": [{"delta": {"content": tail}, "finish_reason": "stop"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 200, "completion_tokens": 50}}),
    ]
    .iter()
    .map(|e| format!("data: {e}\n\n"))
    .chain(["data: [DONE]\n\n".to_owned()])
    .collect();
    let anthropic: String = [
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 300, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t1", "name": "lane_report", "input": {}}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": head}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": tail}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 80}}),
        json!({"type": "message_stop"}),
    ]
    .iter()
    .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
    .collect();
    for (provider, events, tokens) in [
        (Provider::Openai, openai, (200, 50)),
        (Provider::Anthropic, anthropic, (300, 80)),
    ] {
        let server = Server::start(vec![status(200, vec![], &events)]).await;
        let mut engine = engine(provider, &server);
        engine.stream = true;
        let input = input();
        let meter = input.meter.clone();
        let out = engine.review(input).await.unwrap();
        let EngineOutput::Body(body) = out else {
            panic!("{provider:?}: expected a report, got {out:?}");
        };
        assert_eq!(body.findings.len(), 1, "{provider:?}");
        assert_eq!(server.requests()[0].body["stream"], true, "{provider:?}");
        let usage = meter.total().unwrap();
        assert_eq!(
            (usage.tokens.input_tokens, usage.tokens.output_tokens),
            tokens,
            "{provider:?}"
        );
    }
}

#[tokio::test]
async fn an_answer_cut_at_the_token_limit_is_marked_incomplete() {
    let cut = openai_answer(
        r#"{"reviewed": ["app.py"], "checks": [], "findings": [{"sev"#,
        "length",
    );
    let server = Server::start(vec![ok(cut)]).await;
    let out = review(&engine(Provider::Openai, &server)).await.unwrap();
    let EngineOutput::Raw(body) = out else {
        panic!("a cut answer read as a report: {out:?}");
    };
    assert!(
        body["incomplete"]
            .as_str()
            .is_some_and(|s| s.contains("output token limit")),
        "{body}"
    );
}

#[tokio::test]
async fn prose_and_off_schema_answers_go_to_the_gate_as_they_are() {
    let server = Server::start(vec![
        ok(openai_answer(
            "The change looks good to me, approve!",
            "stop",
        )),
        ok(openai_answer(r#"{"findings": "none"}"#, "stop")),
    ])
    .await;
    let llm = engine(Provider::Openai, &server);
    let prose = review(&llm).await.unwrap();
    assert!(
        matches!(prose, EngineOutput::Raw(Value::String(_))),
        "{prose:?}"
    );
    let off = review(&llm).await.unwrap();
    assert_eq!(off, EngineOutput::Raw(json!({"findings": "none"})));
}

#[tokio::test]
async fn dropping_the_lane_cancels_the_request_in_flight() {
    let server = Server::start(vec![Scripted {
        delay: Duration::from_secs(30),
        ..ok(openai_answer(&report_json().to_string(), "stop"))
    }])
    .await;
    let llm = engine(Provider::Openai, &server);
    let lane = review(&llm);
    tokio::select! {
        out = lane => panic!("a 30 s answer came early: {out:?}"),
        () = server.arrived.notified() => {}
    }
    // The lane's future is gone: the server sees the connection close.
    tokio::time::timeout(Duration::from_secs(10), server.hung_up.notified())
        .await
        .unwrap_or_else(|_| panic!("the request was not cancelled"));
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn waits_are_read_from_every_rate_limit_header() {
    let mut h = reqwest::header::HeaderMap::new();
    h.insert("x-ratelimit-reset-requests", "6m0s".parse().unwrap());
    h.insert("retry-after", "2".parse().unwrap());
    assert_eq!(retry_after(&h), Some(Duration::from_secs(360)));
    assert_eq!(go_duration("20ms"), Some(Duration::from_millis(20)));
    assert_eq!(
        go_duration("1h2m3.5s"),
        Some(Duration::from_secs_f64(3723.5))
    );
    assert_eq!(go_duration("soon"), None);
}
