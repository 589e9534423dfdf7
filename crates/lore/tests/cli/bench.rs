//! Issue 16, item 4: `lore bench` through the binary, on a small corpus: the first answer of
//! a store being added, the time to fully embedded, query latency per mode, `lore search` as
//! its own process with its peak memory, and the quantised vector scan's recall.

use crate::common::{Lore, fresh_database, write};
use serde_json::Value;

/// A small corpus of real-looking Rust and Python files.
fn corpus(lore: &Lore) -> std::path::PathBuf {
    let dir = lore.path("corpus");
    for i in 0..24 {
        write(
            &dir,
            &format!("src/module_{i}.rs"),
            format!(
                "//! Module {i}: reading configuration files line by line.\n\n\
                 use std::io::BufRead;\n\n\
                 /// Reads the lines of a configuration file and counts the settings.\n\
                 pub fn read_settings_{i}(path: &std::path::Path) -> std::io::Result<usize> {{\n\
                 \x20   let file = std::io::BufReader::new(std::fs::File::open(path)?);\n\
                 \x20   let mut n = 0;\n\
                 \x20   for line in file.lines() {{\n\
                 \x20       if line?.contains('=') {{\n\
                 \x20           n += {i} + 1;\n\
                 \x20       }}\n\
                 \x20   }}\n\
                 \x20   Ok(n)\n}}\n\n\
                 pub struct Retry{i} {{ pub attempts: u32 }}\n\n\
                 impl Retry{i} {{\n\
                 \x20   /// Waits twice as long after each failure.\n\
                 \x20   pub fn backoff(&self, attempt: u32) -> u64 {{ 100u64 << attempt.min({i}) }}\n}}\n"
            ),
        );
        write(
            &dir,
            &format!("py/handler_{i}.py"),
            format!(
                "def parse_arguments_{i}(argv):\n    \"\"\"Parses command line arguments.\"\"\"\n    \
                 return [a for a in argv if a.startswith('--')]\n\n\n\
                 def escape_html_{i}(text):\n    return text.replace('&', '&amp;').replace('<', '&lt;')\n"
            ),
        );
    }
    dir
}

fn bench(lore: &Lore, corpus: &std::path::Path, scratch: &std::path::Path) -> Value {
    bench_on(lore, &[], corpus, scratch)
}

fn bench_on(
    lore: &Lore,
    global: &[&str],
    corpus: &std::path::Path,
    scratch: &std::path::Path,
) -> Value {
    std::fs::create_dir_all(scratch).unwrap();
    let mut args = global.to_vec();
    args.extend_from_slice(&[
        "bench",
        "--corpus",
        corpus.to_str().unwrap(),
        "--max-files",
        "40",
        "--embed-chunks",
        "8",
        "--query-chunks",
        "10",
        "--query-repeats",
        "1",
        "--scan-sizes",
        "6000",
        "--scan-queries",
        "5",
        "--scratch",
        scratch.to_str().unwrap(),
    ]);
    lore.json(&args)
}

#[test]
fn bench_reports_the_first_answer_the_search_process_and_the_scan() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let corpus = corpus(&lore);
    let scratch = lore.path("scratch");
    let r = bench(&lore, &corpus, &scratch);

    let f = &r["first_answer"];
    assert_eq!(f["embeddings"], true, "{f:#}");
    let chunks = f["corpus"]["chunks"].as_u64().unwrap();
    assert!(chunks >= 40, "{f:#}");
    let first = f["first_fts_answer_ms"].as_f64().unwrap();
    // A store this small embeds within the default budget: measured, not estimated.
    let done = f["fully_embedded_ms"].as_f64().expect("fully embedded");
    assert!(first > 0.0 && first <= done, "{f:#}");
    assert_eq!(f["embedded_chunks"].as_u64(), Some(chunks), "{f:#}");
    assert!(f["embedding_chunks_per_s"].as_f64().unwrap() > 0.0, "{f:#}");
    assert!(f.get("fully_embedded_estimate_s").is_none(), "{f:#}");

    let modes: Vec<&str> = r["queries"]["modes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["latency"]["samples"].as_u64() > Some(0))
        .map(|m| m["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["fts", "vector", "hybrid"], "{:#}", r["queries"]);

    // `lore search` as its own process, once per mode, with what it found and held.
    let procs = r["search_processes"].as_array().unwrap();
    assert_eq!(procs.len(), 3, "{procs:#?}");
    for p in procs {
        assert!(p["results"].as_u64().unwrap() > 0, "{p:#}");
        let rss = p["peak_rss_bytes"].as_u64().unwrap();
        // More than an empty process, less than the whole machine.
        assert!(rss > 5_000_000 && rss < 4_000_000_000, "{p:#}");
    }

    // Past the exact-scan threshold, the int8 scan with f32 rescoring finds the exact top 10.
    let scan = &r["scan"][0];
    assert_eq!(scan["vectors"], 6000, "{scan:#}");
    assert!(scan["recall_at_10"].as_f64().unwrap() >= 0.99, "{scan:#}");
    assert!(
        scan["snapshot_bytes"].as_u64().unwrap() > 6000 * 384 * 4,
        "{scan:#}"
    );

    // The scratch folder goes when the bench ends; the corpus is only read.
    assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(corpus.join("src")).unwrap().count(), 24);
}

#[test]
fn without_a_model_the_first_answer_is_keyword_only_and_vector_modes_are_skipped() {
    let lore = Lore::without_model();
    let corpus = corpus(&lore);
    let r = bench(&lore, &corpus, &lore.path("scratch"));
    let f = &r["first_answer"];
    assert_eq!(f["embeddings"], false, "{f:#}");
    assert!(f["first_fts_answer_ms"].as_f64().unwrap() > 0.0, "{f:#}");
    assert!(f.get("fully_embedded_ms").is_none(), "{f:#}");
    let modes = r["queries"]["modes"].as_array().unwrap();
    assert!(
        modes[0]["latency"]["samples"].as_u64() > Some(0),
        "{modes:#?}"
    );
    assert!(modes[1]["skipped"].is_string(), "{modes:#?}");
    assert_eq!(r["search_processes"].as_array().unwrap().len(), 1);
}

#[test]
fn with_a_database_the_queries_run_on_both_backends_side_by_side() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let Some(url) = fresh_database("bench") else {
        return;
    };
    let corpus = corpus(&lore);
    let r = bench_on(&lore, &["--database", &url], &corpus, &lore.path("scratch"));
    let pg = &r["postgres"];
    assert!(
        !pg["database"].as_str().unwrap().contains(":lore@"),
        "{pg:#}"
    );
    // Every chunk of the query store (the corpus's, plus its files' summary chunks).
    assert!(
        pg["chunks"].as_u64() >= r["queries"]["corpus"]["chunks"].as_u64(),
        "{pg:#}"
    );
    assert!(pg["import_secs"].as_f64().unwrap() > 0.0, "{pg:#}");
    // The synthetic vectors went along: vector search on PostgreSQL has rows to scan.
    assert_eq!(pg["vectors"], pg["chunks"], "{pg:#}");
    // Reading the database, then the read copy a server keeps.
    for timed in ["modes", "copy_modes"] {
        for (embedded, on_pg) in r["queries"]["modes"]
            .as_array()
            .unwrap()
            .iter()
            .zip(pg[timed].as_array().unwrap())
        {
            assert_eq!(embedded["mode"], on_pg["mode"]);
            assert!(on_pg["latency"]["p50_ms"].as_f64().unwrap() > 0.0, "{pg:#}");
        }
        assert_eq!(pg[timed].as_array().unwrap().len(), 3, "{pg:#}");
    }
    assert!(pg["copy_secs"].as_f64().unwrap() > 0.0, "{pg:#}");
    // The bench's store is gone from the database: a second run finds it free.
    let stores = lore.json(&["--database", &url, "store", "list"]);
    assert!(!stores.to_string().contains("\"bench\""), "{stores:#}");
}
