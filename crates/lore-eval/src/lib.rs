//! lore measuring itself. `labeled`: nDCG/MRR/recall on BEIR-layout sets through the real
//! pipeline (files on disk → store → search). `intents`: MRR of queries labeled per intent.
//! `tokens`: tokens per result at each detail level. `judge`: an LLM grades search results
//! on generated queries; `compare` sets two judge runs side by side. `locate`: task →
//! files and units on real issues, each at its repository's base commit. All drive
//! [`lore_engine::Engine`] only and take plain options: the flags live in the `lore` binary.

pub mod compare;
pub mod feedback;
pub mod history;
pub mod intents;
mod jsonl;
pub mod judge;
pub mod labeled;
pub mod locate;
pub mod metrics;
pub mod runs;
pub mod tokens;
