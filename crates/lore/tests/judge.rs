//! `lore eval judge` and `lore eval compare` through the real binary: clear errors without an
//! LLM, stores or valid files (no model needed), and a whole run with a judge command (needs
//! the embedding model to index; skipped without it).

/// Whether `lore` keeps its catalog in PostgreSQL here (the `*_postgres` suites).
const ON_POSTGRES: bool = false;

mod common;

use common::{Lore, one_error_line, run_command, write};
use lore_llm::fake_server::{FakeLlm, Reply};
use serde_json::{Value, json};
use std::time::Duration;

#[test]
fn judge_fails_clearly_without_an_llm_stores_or_a_valid_config() {
    let lore = Lore::without_model();
    assert_eq!(
        lore.fails(&["eval", "judge"], 1),
        "error: no LLM configured: set LORE_LLM_URL and LORE_LLM_MODEL, or pass --judge-cmd"
    );
    // `lore.command` removes every LORE_LLM_ variable; this sets one of them.
    let mut c = lore.command(&["eval", "judge"]);
    c.env("LORE_LLM_URL", "http://127.0.0.1:9/v1");
    let out = run_command(&mut c, Duration::from_secs(300));
    assert_eq!(out.code, 1);
    assert!(
        one_error_line(&out.stderr, &[]).contains("LORE_LLM_URL is set but LORE_LLM_MODEL is not"),
        "{}",
        out.stderr
    );
    assert_eq!(
        lore.fails(&["eval", "judge", "--judge-cmd", "cat"], 1),
        "error: there are no stores yet; add one with `lore store add NAME PATH`"
    );
    write(
        lore.root(),
        "judge.toml",
        "query_count = 5\nquery_cont = 3\n",
    );
    let cfg = lore.path("judge.toml");
    let e = lore.fails(&["eval", "judge", "--config", cfg.to_str().unwrap()], 1);
    assert!(
        e.contains("judge.toml line 2: unknown field `query_cont`"),
        "{e}"
    );
    let e = lore.fails(
        &["eval", "judge", "--judge-cmd", "cat", "--queries", "0"],
        1,
    );
    assert_eq!(e, "error: query_count must be between 1 and 500");
}

/// A run that judged nothing exits non-zero and says why, after writing its file.
#[test]
fn judge_exits_non_zero_when_nothing_was_judged() {
    let lore = Lore::without_model();
    let src = lore.path("proj");
    write(
        &src,
        "retry.rs",
        "/// Retries with backoff.\npub fn retry() {}\n",
    );
    lore.ok(&[
        "store",
        "add",
        "proj",
        src.to_str().unwrap(),
        "--embed",
        "none",
    ]);
    write(
        lore.root(),
        "queries.json",
        json!({"queries": [{"query": "retry backoff", "intent": "find-implementation"},
                           {"query": "retry", "intent": "find-definition"}]})
        .to_string(),
    );
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let out_dir = lore.path("runs");
    let qf = lore.path("queries.json");
    let mut c = lore.command(&[
        "eval",
        "judge",
        "--queries-file",
        qf.to_str().unwrap(),
        "--out-dir",
        out_dir.to_str().unwrap(),
        "--max-retries",
        "0",
    ]);
    c.env("LORE_LLM_URL", format!("http://127.0.0.1:{port}/v1"))
        .env("LORE_LLM_MODEL", "nobody");
    let out = run_command(&mut c, Duration::from_secs(300));
    assert_eq!(out.code, 1, "{}", out.stderr);
    let e = one_error_line(&out.stderr, &[]);
    assert!(
        e.starts_with("error: no query was judged (stopped after 2 queries: the judge"),
        "{e}"
    );
    let run_file = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    assert!(
        e.ends_with(&format!("the errors are in {}", run_file.display())),
        "{e}"
    );
    let text = std::fs::read_to_string(&run_file).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(
        (last["type"].as_str(), last["judgedQueries"].as_u64()),
        (Some("summary"), Some(0))
    );
}

/// A query that failed in one run moves no headline delta: the deltas are over the queries
/// both runs judged, the other is listed apart, and differing settings are warned about.
#[test]
fn compare_pairs_queries_and_warns_about_differing_settings() {
    let lore = Lore::without_model();
    let scores = |v: f64| json!({"relevance": v, "ranking": v, "coverage": v, "snippetQuality": v, "overall": v});
    let summary = |mode: &str| {
        json!({"type": "summary", "timestamp": "2026-12-01T00:00:00Z", "mode": mode,
               "detail": "minimal", "searchLimit": 10, "stores": ["proj"],
               "judge": "model m at http://127.0.0.1:1/v1", "searchIntent": "inferred"})
    };
    write(
        lore.root(),
        "a.jsonl",
        [
            json!({"type": "query", "status": "ok", "query": "retry backoff", "scores": scores(0.5)}),
            json!({"type": "query", "status": "ok", "query": "parse config", "scores": scores(0.25)}),
            summary("hybrid"),
        ]
        .map(|l| format!("{l}\n"))
        .concat(),
    );
    write(
        lore.root(),
        "b.jsonl",
        [
            json!({"type": "query", "status": "ok", "query": "retry backoff", "scores": scores(0.5)}),
            json!({"type": "query", "status": "failed", "query": "parse config", "error": "timeout"}),
            summary("fts"),
        ]
        .map(|l| format!("{l}\n"))
        .concat(),
    );
    let (a, b) = (lore.path("a.jsonl"), lore.path("b.jsonl"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let cmp = lore.json(&["eval", "compare", a, b]);
    assert_eq!(cmp["paired"], 1);
    assert_eq!(cmp["averages"][0]["delta"], 0.0);
    assert_eq!(cmp["a"]["averageScores"]["relevance"], 0.375);
    assert_eq!(cmp["judgedInOne"], json!(["parse config"]));
    assert_eq!(cmp["warnings"], json!(["mode differs: A hybrid, B fts"]));
    assert_eq!(cmp["b"]["searchLimit"], 10);
    let text = lore.ok(&["eval", "compare", a, b]);
    for want in [
        "(hybrid, minimal, limit 10, stores proj, intent inferred, judge model m at",
        "warning: mode differs: A hybrid, B fts",
        "paired over the 1 queries judged in both runs (1 judged in one run only, listed below)",
        "relevance          0.500   0.500  +0.000",
        "judged in one run only: parse config",
    ] {
        assert!(text.contains(want), "{want:?} missing from\n{text}");
    }
}

#[test]
fn compare_fails_clearly_on_missing_or_garbled_files() {
    let lore = Lore::without_model();
    write(
        lore.root(),
        "a.jsonl",
        format!(
            "{}\n",
            json!({"type": "query", "status": "ok", "query": "q",
                   "scores": {"relevance": 1, "ranking": 1, "coverage": 1, "snippetQuality": 1, "overall": 1}})
        ),
    );
    write(
        lore.root(),
        "b.jsonl",
        "{\"type\": \"query\", \"query\": \"q\"}\nnot json\n",
    );
    let a = lore.path("a.jsonl");
    let a = a.to_str().unwrap();
    let e = lore.fails(&["eval", "compare", a, "missing.jsonl"], 2);
    assert_eq!(e, "error: missing.jsonl does not exist");
    let e = lore.fails(&["eval", "compare", a, "b.jsonl"], 1);
    assert!(
        e.starts_with("error: b.jsonl line 2: not a JSON record"),
        "{e}"
    );
}

#[test]
fn judge_with_a_command_then_compare_two_runs() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let src = lore.path("proj");
    write(
        &src,
        "retry.rs",
        "/// Waits longer after each failed attempt.\npub fn retry_backoff(attempt: u32) -> u64 {\n    100 << attempt\n}\n",
    );
    write(
        &src,
        "config.rs",
        "/// Reads the retry limit from the config.\npub fn retry_limit(text: &str) -> usize {\n    text.len()\n}\n",
    );
    write(
        &src,
        "README.md",
        "# Client\n\n## Retries\n\nFailed calls are retried with backoff.\n",
    );
    lore.ok(&["store", "add", "proj", src.to_str().unwrap()]);

    let answer = json!({
        "scores": {"relevance": 0.75, "ranking": 0.5, "coverage": 0.25, "snippetQuality": 1, "overall": 0.5},
        "analysis": {"relevance": "a", "ranking": "b", "coverage": "c", "snippetQuality": "d", "overall": "e"},
        "suggestions": ["Rank definitions first"],
        "resultAssessments": [
            {"rank": 1, "source": "x", "relevant": true},
            {"rank": 2, "source": "y", "relevant": false, "note": "unrelated"}
        ]
    });
    write(lore.root(), "answer.json", answer.to_string());
    write(
        lore.root(),
        "judge.sh",
        format!(
            "#!/bin/sh\ncat > /dev/null\ncat '{}'\n",
            lore.path("answer.json").display()
        ),
    );
    write(
        lore.root(),
        "queries.json",
        json!({"queries": [
            {"query": "retry backoff", "intent": "find-implementation"},
            {"query": "how many retries are allowed", "intent": "find-definition"}
        ]})
        .to_string(),
    );
    let judge_cmd = format!("sh '{}'", lore.path("judge.sh").display());
    let runs = lore.path("runs");
    let args = [
        "eval",
        "judge",
        "--judge-cmd",
        judge_cmd.as_str(),
        "--queries-file",
        "queries.json",
        "--limit",
        "2",
        "--out-dir",
        runs.to_str().unwrap(),
    ];
    let first = lore.json(&args);
    assert_eq!(first["type"], "summary");
    assert_eq!(first["totalQueries"], 2);
    assert_eq!(first["judgedQueries"], 2);
    assert_eq!(first["failedQueries"], 0);
    assert_eq!(first["searchMode"], "hybrid");
    assert_eq!(first["stores"], json!(["proj"]));
    assert_eq!(first["averageScores"]["coverage"], 0.25);
    assert_eq!(first["focusDimension"], "coverage");
    assert_eq!(first["topIssues"], json!(["Rank definitions first"]));
    assert_eq!(
        first["topIssueCounts"],
        json!([{"suggestion": "Rank definitions first", "count": 2}])
    );
    let out_a = first["out"].as_str().unwrap().to_string();
    let lines: Vec<Value> = std::fs::read_to_string(&out_a)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["query"], "retry backoff");
    assert_eq!(lines[0]["resultCount"], 2);
    assert_eq!(lines[2]["type"], "summary");

    // Text mode: the table and where the results are.
    let text = lore.ok(&args);
    assert!(text.contains("judged 2 of 2 queries (0 failed)"), "{text}");
    assert!(text.contains("coverage           0.250"), "{text}");
    assert!(text.contains("recommended focus: coverage"), "{text}");
    let out_b = text
        .lines()
        .find_map(|l| l.strip_prefix("per-query results: "))
        .unwrap()
        .to_string();
    assert_ne!(out_a, out_b);

    let cmp = lore.json(&["eval", "compare", &out_a, &out_b]);
    assert_eq!(cmp["averages"][2]["dimension"], "coverage");
    assert_eq!(cmp["averages"][2]["delta"], 0.0);
    assert_eq!(cmp["queries"].as_array().unwrap().len(), 2);
    assert_eq!(cmp["onlyInA"], json!([]));
    let text = lore.ok(&["eval", "compare", &out_a, &out_b]);
    assert!(
        text.contains("relevance          0.750   0.750  +0.000"),
        "{text}"
    );
}

#[test]
fn judge_accepts_the_seed_schema_and_sees_the_code_at_minimal_detail() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let src = lore.path("proj");
    // No doc comments: at minimal detail these results have no preview of their own.
    write(
        &src,
        "jitter.rs",
        "pub fn jitter_delay(base: u64, seed: u64) -> u64 {\n    base + seed % 97\n}\n",
    );
    write(
        &src,
        "table.rs",
        "pub fn jitter_table(seed: u64) -> Vec<u64> {\n    vec![seed, seed * 2]\n}\n",
    );
    lore.ok(&["store", "add", "proj", src.to_str().unwrap()]);
    // The seed's evaluation schema: analysis without overall; scores without it too.
    let seed_answer = json!({
        "scores": {"relevance": 0.75, "ranking": 0.5, "coverage": 0.25, "snippetQuality": 0.5},
        "analysis": {"relevance": "a", "ranking": "b", "coverage": "c", "snippetQuality": "d"},
        "suggestions": [],
        "resultAssessments": [
            {"rank": 1, "source": "x", "relevant": true},
            {"rank": 2, "source": "y", "relevant": true}
        ]
    })
    .to_string();
    let server = FakeLlm::start(move |_, _| Reply::Content(seed_answer.clone())).unwrap();
    write(
        lore.root(),
        "queries.json",
        json!({"queries": [{"query": "jitter delay", "intent": "find-definition"}]}).to_string(),
    );
    let runs = lore.path("runs");
    let mut c = lore.command(&[
        "--json",
        "eval",
        "judge",
        "--queries-file",
        "queries.json",
        "--limit",
        "2",
        "--mode",
        "fts",
        "--out-dir",
        runs.to_str().unwrap(),
    ]);
    c.env("LORE_LLM_URL", server.url())
        .env("LORE_LLM_MODEL", "fake-judge");
    let out = run_command(&mut c, Duration::from_secs(300));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let summary = out.json();
    assert_eq!(summary["judgedQueries"], 1, "{summary}");
    assert_eq!(summary["failedQueries"], 0);
    assert_eq!(summary["overallComputed"], 1);
    assert_eq!(summary["detail"], "minimal");
    assert_eq!(
        summary["averageScores"]["overall"], 0.5,
        "the mean of the four"
    );

    let reqs = server.requests();
    assert_eq!(reqs.len(), 1, "accepted at the first answer");
    let prompt = &reqs[0].contents()[1];
    assert!(prompt.contains("detail minimal"), "{prompt}");
    assert!(
        prompt.contains(r#""code":"pub fn jitter_delay(base: u64, seed: u64) -> u64 {\n    base + seed % 97\n}""#),
        "{prompt}"
    );
}
