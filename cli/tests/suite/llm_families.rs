//! `revu review --engine llm` against a server that answers as OpenAI's
//! API does for each model family: its reasoning models (o-series,
//! gpt-5) refuse `max_tokens` and any temperature but the default, other
//! models refuse `reasoning_effort`; answers count reasoning tokens; and a
//! prompt cache serves the longest prefix a request shares with an earlier
//! one, as OpenAI's automatic cache does.

use crate::model_server;

use model_server::{Server, outcomes, report, review_model, serve_with};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

/// Whether OpenAI serves `model` as a reasoning model.
fn reasons(model: &str) -> bool {
    ["o1", "o3", "o4", "gpt-5"]
        .iter()
        .any(|f| model.starts_with(f))
}

fn refusal(message: &str, param: &str, code: &str) -> (u16, String) {
    let body = json!({"error": {"message": message, "type": "invalid_request_error",
        "param": param, "code": code}});
    (400, body.to_string())
}

/// Output tokens of every answer, and of them the reasoning of a
/// reasoning model.
const COMPLETION_TOKENS: u64 = 300;
const REASONING_TOKENS: u64 = 200;

/// The cache counts in blocks of this many tokens, from this many up.
const CACHE_BLOCK: u64 = 128;
const CACHE_MIN: u64 = 1024;

/// What the server's cache has seen: every prompt so far, as the tokens
/// it counts (4 bytes a token).
type Cache = Arc<Mutex<Vec<String>>>;

/// The prompt as OpenAI's cache sees it: the schema, then the messages.
fn cached_text(body: &Value) -> String {
    let mut text = body["response_format"].to_string();
    for m in body["messages"].as_array().into_iter().flatten() {
        text.push_str(m["content"].as_str().unwrap_or_default());
    }
    text
}

/// Input tokens of `text` served from `cache`: the longest prefix it
/// shares with an earlier prompt, in whole blocks, from the minimum up.
fn cached_tokens(cache: &Cache, text: &str) -> u64 {
    let Ok(mut seen) = cache.lock() else {
        return 0;
    };
    let shared = seen
        .iter()
        .map(|earlier| {
            earlier
                .bytes()
                .zip(text.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        })
        .max()
        .unwrap_or(0);
    seen.push(text.to_owned());
    let tokens = shared as u64 / 4;
    if tokens < CACHE_MIN {
        0
    } else {
        tokens / CACHE_BLOCK * CACHE_BLOCK
    }
}

/// What OpenAI's chat completions API answers `request`.
fn openai(request: &str, cache: &Cache) -> (u16, String) {
    let body: Value = serde_json::from_str(request).unwrap_or_default();
    let model = body["model"].as_str().unwrap_or_default();
    if reasons(model) {
        if body.get("max_tokens").is_some() {
            return refusal(
                "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
                "max_tokens",
                "unsupported_parameter",
            );
        }
        if body
            .get("temperature")
            .is_some_and(|t| t.as_f64() != Some(1.0))
        {
            return refusal(
                "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
                "temperature",
                "unsupported_value",
            );
        }
    } else if body.get("reasoning_effort").is_some() {
        return refusal(
            "Unrecognized request argument supplied: reasoning_effort",
            "reasoning_effort",
            "unsupported_parameter",
        );
    }
    let text = cached_text(&body);
    let prompt_tokens = (text.len() as u64).div_ceil(4);
    let cached = cached_tokens(cache, &text);
    let reasoning = if reasons(model) { REASONING_TOKENS } else { 0 };
    let content = if request.contains("writing the walkthrough") {
        json!({"walkthrough": "The change adds a billing client.", "file_notes": [],
            "summary": "walkthrough"})
    } else {
        json!({"reviewed": ["src/billing/client.rs"], "checks": ["reading"],
            "findings": [], "summary": "nothing to raise"})
    };
    let answer = json!({
        "choices": [{"message": {"role": "assistant", "content": content.to_string()},
            "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens, "completion_tokens": COMPLETION_TOKENS,
            "prompt_tokens_details": {"cached_tokens": cached},
            "completion_tokens_details": {"reasoning_tokens": reasoning},
        },
    });
    (200, answer.to_string())
}

fn openai_server() -> Server {
    let cache = Cache::default();
    serve_with("", move |request| openai(request, &cache))
}

/// Reviews `secret-and-unwrap.patch` (a domain lane and two specialist
/// lanes) with `model` and `extra` flags; asserts that no lane faulted.
fn review(server: &Server, model: &str, extra: &[&str]) -> Value {
    review_patch(server, "secret-and-unwrap.patch", model, extra)
}

/// Like [`review`], of `patch` (an example's name or a path).
fn review_patch(server: &Server, patch: &str, model: &str, extra: &[&str]) -> Value {
    let out = review_model(server, patch, model, extra);
    let r = report(&out);
    let outcomes = outcomes(&r);
    assert!(
        !outcomes.is_empty() && outcomes.iter().all(|o| o == "COMPLETE"),
        "{outcomes:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    r
}

#[test]
fn a_reasoning_model_reviews_every_lane_with_max_completion_tokens() {
    let server = openai_server();
    let r = review(&server, "gpt-5-mini", &[]);
    let bodies = server.bodies();
    assert_eq!(
        bodies.len(),
        r["lanes"].as_array().map_or(0, Vec::len),
        "one request a lane"
    );
    for body in &bodies {
        assert!(body.get("max_completion_tokens").is_some(), "{body}");
        assert!(body.get("max_tokens").is_none(), "{body}");
        assert!(body.get("temperature").is_none(), "{body}");
        assert!(body.get("reasoning_effort").is_none(), "{body}");
    }
    for lane in r["lanes"].as_array().into_iter().flatten() {
        let usage = &lane["usage"];
        assert_eq!(usage["reasoning_tokens"], REASONING_TOKENS, "{lane}");
        assert_eq!(usage["output_tokens"], COMPLETION_TOKENS, "{lane}");
    }
    assert_eq!(
        r["usage"]["reasoning_tokens"].as_u64(),
        Some(REASONING_TOKENS * bodies.len() as u64),
        "{}",
        r["usage"]
    );
}

#[test]
fn reasoning_effort_goes_to_the_reasoning_model_and_temperature_to_the_other() {
    let server = openai_server();
    let flags = [
        "--llm-reasoning-effort",
        "high",
        "--llm-temperature",
        "0.3",
        "--llm-engine",
        "light=gpt-4.1-mini",
        "--synthesize",
        "light",
    ];
    review(&server, "gpt-5-mini", &flags);
    let bodies = server.bodies();
    let (reasoning, plain): (Vec<&Value>, Vec<&Value>) = bodies
        .iter()
        .partition(|b| b["model"].as_str().is_some_and(reasons));
    assert!(!reasoning.is_empty() && plain.len() == 1, "{bodies:?}");
    for body in reasoning {
        assert_eq!(body["reasoning_effort"], "high", "{body}");
        assert!(body.get("temperature").is_none(), "{body}");
        assert!(body.get("max_tokens").is_none(), "{body}");
    }
    let light = plain[0];
    assert_eq!(light["model"], "gpt-4.1-mini");
    assert_eq!(light["temperature"], 0.3, "{light}");
    assert!(light.get("reasoning_effort").is_none(), "{light}");
}

/// US dollars per million tokens of the price table the cost is read at.
const INPUT: u64 = 2;
const CACHED: f64 = 0.5;
const OUTPUT: u64 = 8;

#[test]
fn a_later_lane_costs_less_by_its_cached_share_at_the_configured_prices() {
    let server = openai_server();
    let dir = std::env::temp_dir().join(format!("revu-prices-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let prices = dir.join("prices.toml");
    std::fs::write(
        &prices,
        format!(
            "[models.\"gpt-5-mini\"]\ninput_per_mtok = {INPUT}.0\n\
             cached_input_per_mtok = {CACHED}\noutput_per_mtok = {OUTPUT}.0\n"
        ),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", prices.display()));
    // A change large enough that what its lanes share is over the
    // cache's minimum.
    let patch = dir.join("rates.patch");
    let lines: String = (0..150)
        .map(|i| format!("+    (\"plan-{i:03}\", {}),\n", i * 10))
        .collect();
    std::fs::write(
        &patch,
        format!(
            "diff --git a/src/billing/rates.rs b/src/billing/rates.rs\nnew file mode 100644\n\
             --- /dev/null\n+++ b/src/billing/rates.rs\n@@ -0,0 +1,152 @@\n\
             +pub const RATES: &[(&str, u32)] = &[\n{lines}+];\n"
        ),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", patch.display()));
    // One lane at a time, so that which one came first is the plan's order.
    let flags = ["--llm-prices", &prices.to_string_lossy(), "--workers", "1"];
    let r = review_patch(&server, &patch.to_string_lossy(), "gpt-5-mini", &flags);
    let _ = std::fs::remove_dir_all(&dir);
    let lanes: Vec<&Value> = r["lanes"].as_array().into_iter().flatten().collect();
    let first = lanes
        .iter()
        .find(|l| l["usage"]["cached_input_tokens"].is_null())
        .unwrap_or_else(|| panic!("no lane read nothing from the cache: {lanes:?}"));
    let later: Vec<&&Value> = lanes
        .iter()
        .filter(|l| l["usage"]["cached_input_tokens"].as_u64() > Some(0))
        .collect();
    assert_eq!(
        later.len(),
        lanes.len() - 1,
        "every later lane hit the cache"
    );
    let tokens = |l: &Value, kind: &str| l["usage"][kind].as_u64().unwrap_or(0);
    // Nanodollars: tokens × dollars per million × 1000.
    let nanos = |l: &Value| (l["usage"]["cost_usd"].as_f64().unwrap_or(-1.0) * 1e9).round() as i64;
    let full = |l: &Value| {
        (tokens(l, "input_tokens") * INPUT * 1000 + tokens(l, "output_tokens") * OUTPUT * 1000)
            as i64
    };
    assert_eq!(nanos(first), full(first), "{first}");
    for lane in later {
        let cached = tokens(lane, "cached_input_tokens");
        // The cached share, priced at the cached price instead of the
        // input price: that much less than the same tokens uncached.
        let share = (cached as f64 * (INPUT as f64 - CACHED) * 1000.0) as i64;
        assert!(cached * 2 > tokens(lane, "input_tokens"), "{lane}");
        assert_eq!(nanos(lane), full(lane) - share, "{lane}");
        assert!(nanos(lane) < nanos(first), "{lane} against {first}");
    }
    let total: i64 = lanes.iter().map(|l| nanos(l)).sum();
    let review_cost = (r["usage"]["cost_usd"].as_f64().unwrap_or(-1.0) * 1e9).round() as i64;
    assert_eq!(review_cost, total, "{}", r["usage"]);
}
