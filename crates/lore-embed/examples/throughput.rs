//! Measures embedding throughput on ~256-token chunks for a few batch sizes.
//!
//! `LORE_MODEL_DIR=/path/to/model cargo run --release -p lore-embed --example throughput [N] [BATCH...]`

use std::time::Instant;

use lore_embed::Embedder;

// The same allocator as the `lore` binary, so the figures match what users get.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let dir = std::env::var_os("LORE_MODEL_DIR").expect("set LORE_MODEL_DIR");
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(64, |s| s.parse().unwrap());
    let mut batches: Vec<usize> = args.map(|s| s.parse().unwrap()).collect();
    if batches.is_empty() {
        batches = vec![8, 16, 32];
    }
    // Chunks of code-like text, each well past 256 tokens (so truncated to exactly 256).
    let texts: Vec<String> = (0..n)
        .map(|i| {
            (0..60)
                .map(|j| format!("let value_{j} = compute_{i}(x{j}, \"item {j}\");"))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut embedder = Embedder::load(std::path::Path::new(&dir)).expect("load model");
    embedder.embed(&refs[..2]).unwrap(); // warm-up
    for b in batches {
        embedder = embedder.with_batch_size(b).with_batch_tokens(b * 256);
        let start = Instant::now();
        let cpu_start = cpu_seconds();
        let out = embedder.embed(&refs).unwrap();
        let secs = start.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu_start;
        assert_eq!(out.len(), n);
        println!(
            "batch {b:>3}: {n} chunks of 256 tokens in {secs:.2}s = {:.1} chunks/s \
             ({cpu:.1} CPU-s, {:.2} cores busy, {:.1} chunks per CPU-second)",
            n as f64 / secs,
            cpu / secs,
            n as f64 / cpu
        );
    }
    embedder = embedder
        .with_batch_size(lore_embed::DEFAULT_BATCH_SIZE)
        .with_batch_tokens(lore_embed::DEFAULT_BATCH_TOKENS);
    let q = "how do I read a file into a string";
    let start = Instant::now();
    for _ in 0..20 {
        embedder.embed_query(q).unwrap();
    }
    println!(
        "query: {:.1} ms each",
        start.elapsed().as_secs_f64() * 1000.0 / 20.0
    );

    // Short texts (~16 tokens), as in query batches or small code units.
    let short: Vec<String> = (0..256)
        .map(|i| format!("fn handler_{i}(req: &Request) -> Result<Response, Error>"))
        .collect();
    let short: Vec<&str> = short.iter().map(String::as_str).collect();
    let start = Instant::now();
    let out = embedder.embed(&short).unwrap();
    assert_eq!(out.len(), short.len());
    println!(
        "short: {} texts of ~20 tokens with default batching = {:.1} texts/s",
        short.len(),
        short.len() as f64 / start.elapsed().as_secs_f64()
    );
}

/// User + system CPU time of this process (Linux `/proc/self/stat`, 100 ticks/s), else 0.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which is in parentheses): utime is the 12th, stime 13th.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}
