//! lore measuring itself. `labeled`: nDCG/MRR/recall on BEIR-layout sets through the real
//! pipeline (files on disk → store → search). `judge`: an LLM grades search results on
//! generated queries; `compare` sets two judge runs side by side. `bench`: indexing and
//! query speed. All drive [`lore_engine::Engine`] only.

pub mod bench;
pub mod cli;
pub mod compare;
pub mod intents;
pub mod judge;
pub mod labeled;
pub mod metrics;
pub mod tokens;
