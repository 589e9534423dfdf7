//! Query latency of an existing index, on either backend: the bench's 40 queries, warmed
//! once, then timed `REPEATS` times in each mode (p50/p95 in ms).
//!
//! `cargo run --release -p lore-bench --example latency -- DATA_DIR STORE [REPEATS] [DATABASE_URL]`

use lore_core::DataDir;
use lore_engine::Engine;

fn main() -> anyhow::Result<()> {
    // SAFETY: the first statement of main: the process has no other thread yet.
    unsafe { lore_engine::settle_threads() };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [data, store, rest @ ..] = &args[..] else {
        anyhow::bail!("usage: latency DATA_DIR STORE [REPEATS] [DATABASE_URL]");
    };
    let repeats = rest.first().map_or(Ok(3), |r| r.parse())?;
    let data = DataDir::new(data.as_str()).with_database(rest.get(1).map(String::as_str));
    let engine = Engine::open(data)?;
    for mode in lore_bench::store_latency(&engine, store, repeats)? {
        match mode.latency {
            Some(l) => println!(
                "{:<7} p50 {:>7.1} ms  p95 {:>7.1} ms  ({} searches)",
                mode.mode, l.p50_ms, l.p95_ms, l.samples
            ),
            None => println!(
                "{:<7} skipped: {}",
                mode.mode,
                mode.skipped.unwrap_or_default()
            ),
        }
    }
    // What every vector and hybrid search spends before it reaches an index.
    if let Ok(embedder) = engine.embedder(false, &lore_engine::NoProgress) {
        let mut ms = Vec::new();
        for q in lore_bench::QUERIES
            .iter()
            .cycle()
            .take(lore_bench::QUERIES.len() * repeats)
        {
            embedder.forget_queries();
            let started = std::time::Instant::now();
            embedder.embed_query(q)?;
            ms.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        ms.sort_by(f64::total_cmp);
        println!(
            "(of which the query's embedding: p50 {:.1} ms)",
            ms[ms.len() / 2]
        );
    }
    Ok(())
}
