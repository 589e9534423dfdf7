//! lore measuring itself. `labeled`: nDCG/MRR/recall on BEIR-layout sets through the real
//! pipeline (files on disk → store → search). `bench`: indexing and query speed.
//! Both drive [`lore_engine::Engine`] only.

pub mod bench;
pub mod cli;
pub mod labeled;
pub mod metrics;
