//! The judge of `revu eval corpus --judge ENGINE`: an llm engine asked,
//! once per case, which findings describe which expectation's
//! description. The prompt is a versioned file (`cli/prompts/judge-v1.md`);
//! the descriptions and findings travel fenced as data, numbered, and the
//! answer comes in a JSON Schema (`{"matches": [{"golden", "finding",
//! "reasoning"}]}`). The judge only pairs: whether a pair counts (files,
//! severity) is [`super::scoring`]'s to say.

use super::scoring::{Expectation, JudgeInfo, Judged};
use crate::error::CliError;
use revu_domain::finding::Finding;
use revu_domain::lane::Usage;
use revu_domain::retry::{Retry, RetryPolicy};
use revu_worker::engines::llm::{LlmEngine, LlmSettings};
use revu_worker::engines::{Engine, Meter};
use serde_json::{Value, json};
use std::fmt::Write;
use std::time::Duration;

/// The version of the judge's prompt, recorded in the scores.
pub const JUDGE_PROMPT_VERSION: &str = "judge-v1";
const SYSTEM: &str = include_str!("../../../prompts/judge-v1.md");

/// Attempts per case; a rate limit's wait is honoured up to [`MOST_WAIT`].
const RETRY: RetryPolicy = RetryPolicy {
    max_attempts: 3,
    base_delay_ms: 1_000,
    max_delay_ms: 30_000,
};
const MOST_WAIT: Duration = Duration::from_secs(120);

/// An llm engine that pairs findings with descriptions.
#[derive(Debug)]
pub struct Judge {
    engine: LlmEngine,
    runtime: tokio::runtime::Runtime,
}

/// What the judge said of one case.
#[derive(Debug, Default)]
pub struct Verdict {
    /// The pairs, by expectation and finding index; `None` when the judge
    /// gave no answer it could be held to.
    pub judged: Option<Judged>,
    pub error: Option<String>,
    /// What its requests spent; `None` when it sent none.
    pub usage: Option<Usage>,
}

impl Judge {
    /// The engine `name` of the llm settings; exit 2 when there is none.
    pub fn new(settings: &LlmSettings, name: &str) -> Result<Judge, CliError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| CliError::Internal(format!("starting the judge's runtime: {e}")))?;
        let engines = runtime
            .block_on(settings.engines())
            .map_err(|e| CliError::Input(format!("--judge {name}: {e}")))?;
        if engines.is_empty() {
            return Err(CliError::Input(format!(
                "--judge {name}: no llm engine is set up: give --llm-provider and --llm-model \
                 (and --llm-engine NAME=MODEL for another model)"
            )));
        }
        let names: Vec<String> = engines.iter().map(|e| e.name().to_owned()).collect();
        let engine = engines
            .into_iter()
            .find(|e| e.name() == name)
            .ok_or_else(|| {
                CliError::Input(format!(
                    "--judge {name}: not an llm engine (the llm engines are {})",
                    names.join(", ")
                ))
            })?;
        Ok(Judge { engine, runtime })
    }

    pub fn info(&self) -> JudgeInfo {
        JudgeInfo {
            engine: self.engine.name().to_owned(),
            model: self.engine.model().unwrap_or_default().to_owned(),
            prompt: JUDGE_PROMPT_VERSION,
        }
    }

    /// Which of `findings` describe which of `expectations` that carry a
    /// description. Sends nothing when there is nothing to pair.
    pub fn judge(&self, expectations: &[Expectation], findings: &[Finding]) -> Verdict {
        let described: Vec<usize> = expectations
            .iter()
            .enumerate()
            .filter(|(_, e)| e.description.is_some())
            .map(|(i, _)| i)
            .collect();
        if described.is_empty() || findings.is_empty() {
            return Verdict {
                judged: Some(Judged::new()),
                ..Verdict::default()
            };
        }
        let user = message(expectations, &described, findings);
        let meter = Meter::default();
        let answer =
            self.runtime
                .block_on(self.ask(&user, &meter, described.len(), findings.len()));
        let usage = meter.total();
        match answer {
            Ok(pairs) => Verdict {
                judged: Some(
                    pairs
                        .into_iter()
                        .map(|((g, f), why)| ((described[g], f), why))
                        .collect(),
                ),
                error: None,
                usage,
            },
            Err(why) => Verdict {
                judged: None,
                error: Some(why),
                usage,
            },
        }
    }

    /// The request, retried on transient failures and on answers that do
    /// not read; the pairs by golden and finding index (0-based).
    async fn ask(
        &self,
        user: &str,
        meter: &Meter,
        goldens: usize,
        findings: usize,
    ) -> Result<Judged, String> {
        let schema = schema();
        let mut attempt = 1;
        loop {
            let failed = match self.engine.ask_json(SYSTEM, user, &schema, meter).await {
                Ok(answer) if answer.truncated => {
                    return Err(
                        "the judge's answer was cut at the output token limit: raise \
                         --llm-max-output-tokens"
                            .to_owned(),
                    );
                }
                Ok(answer) => match answer.value.as_ref().map(|v| pairs(v, goldens, findings)) {
                    Some(Ok(pairs)) => return Ok(pairs),
                    Some(Err(why)) => (Retry::Transient, why, None),
                    None => (
                        Retry::Transient,
                        "the judge answered with something that is not JSON".to_owned(),
                        None,
                    ),
                },
                Err(e) => (e.retry, e.reason.clone(), e.wait),
            };
            let (retry, why, wait) = failed;
            if !RETRY.allows_another(attempt, retry) {
                return Err(format!("{why} (after {attempt} attempt(s))"));
            }
            let pause = RETRY
                .delay(attempt)
                .max(wait.unwrap_or_default().min(MOST_WAIT));
            tokio::time::sleep(pause).await;
            attempt += 1;
        }
    }
}

/// The schema of the judge's answer.
fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "matches": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "golden": {"type": "integer"},
                        "finding": {"type": "integer"},
                        "reasoning": {"type": "string"}
                    },
                    "required": ["golden", "finding", "reasoning"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["matches"],
        "additionalProperties": false
    })
}

/// The pairs of an answer, 0-based; numbers outside the lists are passed
/// over (a pair the judge made up names nothing to score).
fn pairs(answer: &Value, goldens: usize, findings: usize) -> Result<Judged, String> {
    let list = answer["matches"]
        .as_array()
        .ok_or("the judge's answer has no `matches` list")?;
    let mut out = Judged::new();
    for m in list {
        let index = |key: &str, of: usize| {
            m[key]
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| (1..=of).contains(n))
                .map(|n| n - 1)
        };
        if let (Some(g), Some(f)) = (index("golden", goldens), index("finding", findings)) {
            let why = m["reasoning"].as_str().unwrap_or_default().to_owned();
            out.entry((g, f)).or_insert(why);
        } else {
            tracing::warn!(pair = %m, "the judge named a pair outside the lists");
        }
    }
    Ok(out)
}

/// The data fence cannot be closed from inside the data.
fn fenced(text: &str) -> String {
    text.replace("</data>", "</ data>")
}

/// The user message: the described expectations and the findings,
/// numbered, fenced as data, then the question.
fn message(expectations: &[Expectation], described: &[usize], findings: &[Finding]) -> String {
    let mut out = String::from("<data>\nKnown problems:\n\n");
    for (n, &i) in described.iter().enumerate() {
        let e = &expectations[i];
        let place = match (&e.file, e.lines) {
            (Some(_), Some(_)) => format!(" (at {})", e.citation()),
            (Some(file), None) => format!(" (in {file})"),
            (None, _) => String::new(),
        };
        let _ = writeln!(
            out,
            "[G{}]{place}\n{}\n",
            n + 1,
            fenced(e.description.as_deref().unwrap_or_default().trim())
        );
    }
    out.push_str("Findings of the review:\n\n");
    for (n, f) in findings.iter().enumerate() {
        let _ = writeln!(
            out,
            "[F{}] {} · {} · {} · {}\nSummary: {}\nWhy: {}\n",
            n + 1,
            fenced(&f.citation()),
            f.severity,
            f.dimension,
            fenced(&f.rule),
            fenced(&f.summary),
            fenced(&f.why)
        );
    }
    out.push_str("</data>\n\n");
    let _ = writeln!(
        out,
        "Pair each known problem (G1 to G{}) with every finding (F1 to F{}) that describes \
         the same defect, and answer in the JSON form the instructions give.",
        described.len(),
        findings.len()
    );
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_reads_as_pairs_and_numbers_outside_the_lists_are_passed_over() {
        let answer = json!({"matches": [
            {"golden": 1, "finding": 2, "reasoning": "same race"},
            {"golden": 3, "finding": 1, "reasoning": "made up"},
            {"golden": 0, "finding": 1, "reasoning": "not a number of the list"}
        ]});
        let got = pairs(&answer, 2, 2).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[&(0, 1)], "same race");
        assert!(pairs(&json!({"pairs": []}), 1, 1).is_err());
    }
}
