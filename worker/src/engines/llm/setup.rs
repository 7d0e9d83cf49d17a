//! Why the LLM settings make no engine, named by their flags: reported at
//! startup, before any lane is taken.

use super::family::FamilyError;
use super::price::PriceError;
use super::prompts::PromptsError;
use std::path::PathBuf;

/// Settings that make no LLM engine.
#[derive(Debug, thiserror::Error)]
pub enum LlmSetupError {
    #[error("--llm-engine needs --llm-provider")]
    EngineWithoutProvider,
    #[error("--llm-model (REVU_LLM_MODEL) is needed with --llm-provider")]
    NoModel,
    #[error("--llm-api-key-file {path}: {source}")]
    KeyFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Prices(#[from] PriceError),
    /// Reading the price table stopped before it ended.
    #[error("--llm-prices: {0}")]
    PricesTask(#[source] tokio::task::JoinError),
    /// A file of `--llm-prompts` that replaces no prompt.
    #[error(transparent)]
    Prompts(#[from] PromptsError),
    /// Reading the prompt directory stopped before it ended.
    #[error("--llm-prompts: {0}")]
    PromptsTask(#[source] tokio::task::JoinError),
    /// Model flags no engine can take.
    #[error(transparent)]
    Flags(#[from] FamilyError),
    /// Model flags engine `name`'s model does not take.
    #[error("engine {name} ({model}): {source}")]
    Model {
        name: String,
        model: String,
        #[source]
        source: FamilyError,
    },
    #[error("engine {name} is configured twice")]
    Twice { name: String },
    #[error("engine {name}: HTTP client: {source}")]
    Client {
        name: String,
        #[source]
        source: reqwest::Error,
    },
}
