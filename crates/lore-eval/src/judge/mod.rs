//! `lore eval judge`: an LLM grades lore's search results. Queries are generated from a
//! sample of the stores' content (or read from a saved set), each one is searched through
//! [`Engine::search`](lore_engine::Engine::search), and the judge scores the result list on
//! five dimensions, with analysis, suggestions and a verdict per result. The judge sees each
//! result's preview as the search returned it and the start of its unit's code (read through
//! [`Engine::context`](lore_engine::Engine::context), whatever the detail). One JSON line per
//! query is appended to `<out-dir>/<UTC timestamp>.jsonl` as soon as it is judged, then a
//! summary line.
//!
//! The judge must answer JSON matching `schemas/judge-answer.schema.json` (derived from
//! [`JudgeAnswer`]; the generated queries from [`GeneratedQueries`]). Both `overall`s may be
//! left out (the seed's schema has no `analysis.overall`); without `scores.overall` the line
//! records the mean of the other four with `overallComputed: true`, and the summary counts
//! such queries. An invalid answer is retried with the error; a query whose answers stay
//! invalid is recorded as failed and left out of the averages.

mod answer;
mod prompt;
mod queries;
mod record;
mod run;
mod settings;
mod summary;

pub use answer::{
    Analysis, DIMENSIONS, GENERATED_QUERIES_SCHEMA, GeneratedQueries, GeneratedQuery,
    JUDGE_ANSWER_SCHEMA, JudgeAnswer, JudgeScores, ResultAssessment, Scores,
    generated_queries_schema, judge_answer_schema, validate_answer,
};
pub use prompt::{CODE_MAX_CHARS, CODE_MAX_LINES, bounded_code, generation_prompt, judge_prompt};
pub use queries::read_queries_file;
pub use record::ResultView;
pub use run::{JudgeOptions, JudgeReport, run};
pub use settings::{JudgeSettings, parse_detail, parse_mode};
pub use summary::{Issue, Summary, average};

use lore_engine::{EngineError, ExitKind};
use lore_llm::LlmError;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// Bad configuration or input files.
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The LLM cannot be used at all (not configured, wrong key, command missing).
    #[error(transparent)]
    Llm(LlmError),
    #[error("cannot generate queries: {0}")]
    Generation(LlmError),
    #[error("judging stopped at query {index}: {source}")]
    Stopped {
        index: usize,
        #[source]
        source: LlmError,
    },
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
}

impl JudgeError {
    /// How the command should end (see [`ExitKind`]).
    pub fn exit_kind(&self) -> ExitKind {
        match self {
            JudgeError::Input(_) => ExitKind::Input,
            JudgeError::Engine(e) => e.kind(),
            JudgeError::Llm(LlmError::NotConfigured { .. } | LlmError::Config(_)) => {
                ExitKind::Input
            }
            _ => ExitKind::Internal,
        }
    }
}

fn io_err(what: impl std::fmt::Display, path: &Path) -> impl FnOnce(std::io::Error) -> JudgeError {
    let what = format!("{what} {}", path.display());
    move |e| JudgeError::Io(what, e)
}
