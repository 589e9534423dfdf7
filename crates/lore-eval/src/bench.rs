//! `lore bench`: indexing and query speed (filled in below).

use clap::Args;
use lore_engine::{Engine, Progress};

#[derive(Args, Debug)]
pub struct BenchArgs {}

pub fn run(_engine: &mut Engine, _args: &BenchArgs, _json: bool, _progress: &dyn Progress) -> anyhow::Result<()> {
    anyhow::bail!("bench is not built yet")
}
