//! `lore eval judge` against a fake OpenAI-compatible server on 127.0.0.1 and a judge
//! command: valid answers, an invalid answer then a valid one (retried with the error),
//! answers that stay invalid (recorded as failed, left out of the averages), a judge slower
//! than the timeout, and a command. The store is BM25-only (`embed: false`, `Mode::Fts`), so
//! no embedding model is needed. The JSONL and the summary are checked field by field.

use lore_core::{DataDir, StoreKind};
use lore_engine::{AddStore, Engine, EngineConfig, Mode, NoProgress};
use lore_eval::judge::{self, JudgeError, JudgeOptions, JudgeSettings};
use lore_llm::fake_server::{FakeLlm, Reply, Request};
use lore_llm::{LlmClient, LlmSettings};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

struct World {
    tmp: tempfile::TempDir,
    engine: Engine,
}

impl World {
    /// A store `code` of three files that all mention "retry", so every test query (they
    /// all contain "retry") finds exactly two results at limit 2.
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(
            src.join("backoff.rs"),
            "/// Delay before the next retry: doubles per attempt, capped.\n\
             pub fn compute_backoff(attempt: u32) -> u64 {\n    (100u64 << attempt.min(10)).min(30_000)\n}\n",
        )
        .unwrap();
        std::fs::write(
            src.join("config.rs"),
            "/// Reads the retry policy from the config text.\n\
             pub fn parse_config(text: &str) -> usize {\n    text.lines().filter(|l| l.starts_with(\"retry\")).count()\n}\n",
        )
        .unwrap();
        std::fs::write(
            src.join("README.md"),
            "# Client\n\n## Retry policy\n\nFailed calls retry with exponential backoff; \
             see compute_backoff.\n",
        )
        .unwrap();
        let mut engine = Engine::open_with(
            DataDir::new(tmp.path().join("data")),
            EngineConfig {
                embed: false,
                ..Default::default()
            },
        )
        .unwrap();
        engine
            .add_store(
                &AddStore {
                    name: "code".into(),
                    source: src.to_string_lossy().into_owned(),
                    kind: Some(StoreKind::Folder),
                    description: Some("a retrying client".into()),
                    ..Default::default()
                },
                &NoProgress,
            )
            .unwrap();
        World { tmp, engine }
    }

    fn out_dir(&self) -> PathBuf {
        self.tmp.path().join("runs")
    }

    fn options(&self, llm: LlmSettings, queries_file: Option<PathBuf>) -> JudgeOptions {
        JudgeOptions {
            settings: JudgeSettings {
                query_count: 3,
                search_limit: 2,
                mode: Mode::Fts,
                max_retries: 2,
                timeout: Duration::from_secs(10),
                llm,
                ..Default::default()
            },
            queries_file,
            limit_file_queries: false,
            out_dir: self.out_dir(),
        }
    }

    /// Writes a query set for `--queries-file`.
    fn queries_file(&self, queries: &[&str]) -> PathBuf {
        let p = self.tmp.path().join("queries.json");
        let list: Vec<Value> = queries
            .iter()
            .map(|q| json!({"query": q, "intent": "find-implementation"}))
            .collect();
        std::fs::write(&p, json!({ "queries": list }).to_string()).unwrap();
        p
    }
}

fn endpoint(server: &FakeLlm) -> LlmSettings {
    LlmSettings {
        url: Some(server.url()),
        model: Some("fake-judge".into()),
        ..Default::default()
    }
}

fn run(world: &World, opts: &JudgeOptions) -> Result<judge::JudgeReport, JudgeError> {
    let llm: LlmClient = opts.settings.client()?;
    judge::run(&world.engine, &llm, opts, &NoProgress)
}

/// A valid judge answer assessing ranks 1..=n.
fn answer(scores: [f64; 5], suggestions: &[&str], n: u32) -> String {
    json!({
        "scores": {"relevance": scores[0], "ranking": scores[1], "coverage": scores[2],
                   "snippetQuality": scores[3], "overall": scores[4]},
        "analysis": {"relevance": "mostly on topic", "ranking": "fine", "coverage": "partial",
                     "snippetQuality": "clear", "overall": "decent"},
        "suggestions": suggestions,
        "resultAssessments": (1..=n)
            .map(|r| json!({"rank": r, "source": format!("code:{r}"), "relevant": r == 1,
                            "note": "checked"}))
            .collect::<Vec<_>>(),
    })
    .to_string()
}

/// Which query a judge request is about.
fn asks_about(req: &Request, query: &str) -> bool {
    req.contents()
        .get(1)
        .is_some_and(|u| u.contains(&format!("Query: \"{query}\"")))
}

fn is_generation(req: &Request) -> bool {
    req.contents()
        .first()
        .is_some_and(|s| s.contains("You write search queries"))
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn is_utc(ts: &Value) -> bool {
    let s = ts.as_str().unwrap_or("");
    s.len() == 20 && s.ends_with('Z') && s.as_bytes()[10] == b'T' && s.starts_with("20")
}

const GENERATED: &str = r#"Here are the queries:
```json
{"queries": [
  {"query": "retry backoff", "intent": "find-implementation", "expectedContentTypes": ["function"]},
  {"query": "where is the retry policy parsed", "intent": "find-definition"},
  {"query": "Retry  Backoff", "intent": "find-implementation"},
  {"query": "retry docs", "intent": "find-documentation"}
]}
```"#;

#[test]
fn generated_queries_are_judged_and_recorded_field_by_field() {
    let world = World::new();
    let server = FakeLlm::start(|req, _| {
        if is_generation(req) {
            return Reply::Content(GENERATED.into());
        }
        Reply::Content(if asks_about(req, "retry backoff") {
            answer(
                [0.9, 0.8, 0.6, 0.7, 0.8],
                &["Boost symbol matches", "Show the signature"],
                2,
            )
        } else if asks_about(req, "where is the retry policy parsed") {
            answer([0.5, 0.4, 0.2, 0.9, 0.4], &["boost symbol  matches."], 2)
        } else {
            answer([0.7, 0.6, 0.4, 0.5, 0.6], &[], 2)
        })
    })
    .unwrap();
    let opts = world.options(endpoint(&server), None);
    let report = run(&world, &opts).unwrap();

    // The generation request: a sample of the store and the schema, some temperature.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 4, "one generation and three judge requests");
    let gen_prompt = &reqs[0].contents()[1];
    assert!(
        gen_prompt.contains("Write 3 search queries"),
        "{gen_prompt}"
    );
    assert!(gen_prompt.contains("## Store `code`: a retrying client"));
    assert!(gen_prompt.contains("compute_backoff") && gen_prompt.contains("README.md"));
    assert!(gen_prompt.contains("\"title\": \"GeneratedQueries\""));
    assert_eq!(reqs[0].body["temperature"], 0.7f32 as f64);
    assert_eq!(reqs[0].body["model"], "fake-judge");
    // Judge requests: deterministic, with the results and the answer schema.
    let judge_prompt = &reqs[1].contents()[1];
    assert_eq!(reqs[1].body["temperature"], 0.0);
    assert!(judge_prompt.contains("Query: \"retry backoff\""));
    assert!(judge_prompt.contains("Intent: find-implementation"));
    assert!(judge_prompt.contains("Expected content: function"));
    assert!(judge_prompt.contains("Search: mode fts, detail minimal, limit 2, 2 results"));
    assert!(
        judge_prompt.contains("\n{\"rank\":1,\"source\":\"code:"),
        "results as JSON lines: {judge_prompt}"
    );
    assert!(judge_prompt.contains("\"title\": \"JudgeAnswer\""));

    // The output file: <UTC timestamp>.jsonl, three query lines, then the summary.
    let name = report
        .out
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert_eq!(name.len(), "20261130T101500Z.jsonl".len(), "{name}");
    assert!(
        name.ends_with("Z.jsonl") && name.as_bytes()[8] == b'T',
        "{name}"
    );
    assert_eq!(report.out.parent().unwrap(), world.out_dir());
    let ls = lines(&report.out);
    assert_eq!(ls.len(), 4);

    let q1 = &ls[0];
    assert_eq!(q1["type"], "query");
    assert_eq!(q1["index"], 1);
    assert!(is_utc(&q1["timestamp"]), "{}", q1["timestamp"]);
    assert_eq!(q1["status"], "ok");
    assert_eq!(q1["query"], "retry backoff");
    assert_eq!(q1["queryIntent"], "find-implementation");
    assert_eq!(q1["expectedContentTypes"], json!(["function"]));
    assert_eq!(q1["searchMode"], "fts");
    assert_eq!(q1["resultCount"], 2);
    assert_eq!(
        q1["scores"],
        json!({"relevance": 0.9, "ranking": 0.8, "coverage": 0.6, "snippetQuality": 0.7, "overall": 0.8})
    );
    assert_eq!(q1["analysis"]["coverage"], "partial");
    assert_eq!(q1["analysis"]["snippetQuality"], "clear");
    assert_eq!(
        q1["suggestions"],
        json!(["Boost symbol matches", "Show the signature"])
    );
    // The design's `results`: the judge's verdict beside each result's source and score
    // as searched (not the source the judge wrote back).
    let verdicts = q1["results"].as_array().unwrap();
    assert_eq!(verdicts.len(), 2);
    for (i, v) in verdicts.iter().enumerate() {
        let hit = &q1["hits"][i];
        assert_eq!(
            (
                &v["rank"],
                &v["source"],
                &v["score"],
                &v["relevant"],
                &v["note"]
            ),
            (
                &hit["rank"],
                &hit["source"],
                &hit["score"],
                &json!(i == 0),
                &json!("checked")
            )
        );
    }
    assert_eq!(q1["attempts"], 1);
    assert!(q1["judgeMs"].is_u64());
    assert!(q1.get("error").is_none());
    let results = q1["hits"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r["rank"], i as u64 + 1);
        let score = r["score"].as_f64().unwrap();
        assert!(score > 0.0 && score <= 1.0, "{r}");
        let source = r["source"].as_str().unwrap();
        assert!(source.starts_with("code:"), "{source}");
        assert!(
            source.rsplit(':').next().unwrap().contains('-'),
            "lines: {source}"
        );
        assert!(!r["kind"].as_str().unwrap().is_empty());
        assert!(!r["preview"].as_str().unwrap().is_empty());
        assert_eq!(r["id"].as_str().unwrap().len(), 16);
    }
    // The duplicate ("Retry  Backoff") was dropped; the fourth query took its place.
    let asked: Vec<&str> = ls[..3]
        .iter()
        .map(|l| l["query"].as_str().unwrap())
        .collect();
    assert_eq!(
        asked,
        vec![
            "retry backoff",
            "where is the retry policy parsed",
            "retry docs"
        ]
    );
    assert!(ls[1].get("expectedContentTypes").is_none());
    assert_eq!(ls[2]["index"], 3);

    let s = &ls[3];
    assert_eq!(s["type"], "summary");
    assert!(is_utc(&s["timestamp"]));
    assert_eq!(s["totalQueries"], 3);
    assert_eq!(s["judgedQueries"], 3);
    assert_eq!(s["failedQueries"], 0);
    assert_eq!(
        s["averageScores"],
        json!({"relevance": 0.7, "ranking": 0.6, "coverage": 0.4, "snippetQuality": 0.7, "overall": 0.6})
    );
    assert_eq!(
        s["topIssues"],
        json!(["Boost symbol matches", "Show the signature"])
    );
    assert_eq!(
        s["topIssueCounts"],
        json!([
            {"suggestion": "Boost symbol matches", "count": 2},
            {"suggestion": "Show the signature", "count": 1}
        ])
    );
    assert_eq!(
        s["recommendedFocus"],
        "coverage: the weakest dimension, average 0.400"
    );
    assert_eq!(s["focusDimension"], "coverage");
    assert_eq!(s["searchMode"], "fts");
    assert_eq!(s["searchLimit"], 2);
    assert_eq!(s["detail"], "minimal");
    assert_eq!(s["stores"], json!(["code"]));
    assert_eq!(s["judge"], format!("model fake-judge at {}", server.url()));
    assert_eq!(s["queriesFrom"], "generated");
    // The returned report is the summary line.
    assert_eq!(serde_json::to_value(&report.summary).unwrap(), *s);

    // The generated set is saved; reusing it asks no new queries and judges the same ones.
    let saved = report.queries_out.clone().unwrap();
    assert!(saved.to_string_lossy().ends_with("Z.queries.json"));
    let again = run(
        &world,
        &world.options(endpoint(&server), Some(saved.clone())),
    )
    .unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 7, "three more judge requests, no generation");
    assert!(!reqs[4..].iter().any(is_generation));
    assert_ne!(again.out, report.out);
    assert!(again.queries_out.is_none());
    assert_eq!(again.summary.queries_from, saved.display().to_string());
    assert_eq!(again.summary.average_scores, report.summary.average_scores);
    // A run's JSONL works as a query set too.
    let from_jsonl = judge::read_queries_file(&report.out).unwrap();
    assert_eq!(from_jsonl.len(), 3);
    assert_eq!(from_jsonl[0].expected_content_types, vec!["function"]);
}

#[test]
fn invalid_json_then_valid_is_retried_with_the_error() {
    let world = World::new();
    let server = FakeLlm::start(|req, _| {
        let retry = req.contents().len() > 2;
        Reply::Content(if asks_about(req, "retry backoff") && !retry {
            "The results look good overall, I'd say 0.8.".into()
        } else if asks_about(req, "retry backoff") {
            answer([0.8, 0.8, 0.8, 0.8, 0.8], &[], 2)
        } else {
            // Prose and a fence around valid JSON is accepted as is.
            format!(
                "Sure.\n```json\n{}\n```\nDone.",
                answer([0.4, 0.4, 0.4, 0.4, 0.4], &["x"], 2)
            )
        })
    })
    .unwrap();
    let qf = world.queries_file(&["retry backoff", "retry policy"]);
    let report = run(&world, &world.options(endpoint(&server), Some(qf))).unwrap();

    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let second = reqs[1].contents();
    assert_eq!(
        second.len(),
        4,
        "system, prompt, the invalid answer, the error"
    );
    assert_eq!(reqs[1].body["messages"][2]["role"], "assistant");
    assert_eq!(second[2], "The results look good overall, I'd say 0.8.");
    assert_eq!(reqs[1].body["messages"][3]["role"], "user");
    assert!(
        second[3].starts_with("That answer is not valid: the answer is not valid JSON"),
        "{}",
        second[3]
    );
    let ls = lines(&report.out);
    assert_eq!(ls.len(), 3);
    assert_eq!(
        (ls[0]["status"].as_str(), ls[0]["attempts"].as_u64()),
        (Some("ok"), Some(2))
    );
    assert_eq!(ls[0]["scores"]["overall"], 0.8);
    assert_eq!(
        (ls[1]["status"].as_str(), ls[1]["attempts"].as_u64()),
        (Some("ok"), Some(1))
    );
    assert_eq!(ls[2]["judgedQueries"], 2);
    assert_eq!(ls[2]["failedQueries"], 0);
    assert_eq!(ls[2]["averageScores"]["relevance"], 0.6);
    assert_eq!(
        ls[2]["queriesFrom"],
        world.tmp.path().join("queries.json").display().to_string()
    );
}

/// The score comes from the answer's final object, not a draft or a repeated schema before
/// it, and the line says which one was taken; a cut-off answer is called truncated.
#[test]
fn the_last_valid_json_of_an_answer_is_the_judgement() {
    let world = World::new();
    let server = FakeLlm::start(|req, _| {
        let retry = req.contents().len() > 2;
        Reply::Content(if asks_about(req, "retry backoff") {
            format!(
                "<think>A first draft: {}</think>\n{}",
                answer([0.1, 0.1, 0.1, 0.1, 0.1], &[], 2),
                answer([0.9, 0.9, 0.9, 0.9, 0.9], &[], 2)
            )
        } else if asks_about(req, "retry policy") {
            format!(
                "The schema: {{\"type\": \"object\", \"required\": [\"scores\"]}}\nMy answer: {}",
                answer([0.7, 0.7, 0.7, 0.7, 0.7], &[], 2)
            )
        } else if !retry {
            let whole = answer([0.5, 0.5, 0.5, 0.5, 0.5], &[], 2);
            whole[..whole.len() - 40].to_string()
        } else {
            answer([0.5, 0.5, 0.5, 0.5, 0.5], &[], 2)
        })
    })
    .unwrap();
    let qf = world.queries_file(&["retry backoff", "retry policy", "retry config"]);
    let report = run(&world, &world.options(endpoint(&server), Some(qf))).unwrap();
    let ls = lines(&report.out);
    assert_eq!(ls[0]["status"], "ok");
    assert_eq!(ls[0]["scores"]["relevance"], 0.9);
    assert_eq!(ls[0]["answerJson"], json!({"used": 2, "found": 2}));
    assert_eq!(
        (
            ls[1]["scores"]["relevance"].as_f64(),
            ls[1]["attempts"].as_u64()
        ),
        (Some(0.7), Some(1))
    );
    assert_eq!(ls[1]["answerJson"], json!({"used": 2, "found": 2}));
    // The truncated answer was retried with that said, then judged.
    assert_eq!(
        (ls[2]["status"].as_str(), ls[2]["attempts"].as_u64()),
        (Some("ok"), Some(2))
    );
    assert_eq!(ls[2]["answerJson"], json!({"used": 1, "found": 1}));
    let retried = server
        .requests()
        .into_iter()
        .find(|r| asks_about(r, "retry config") && r.contents().len() > 2)
        .unwrap();
    let said = &retried.contents()[3];
    assert!(
        said.contains("truncated") && !said.contains("missing field"),
        "{said}"
    );
}

/// A judge nobody answers: each query's attempts are spaced out, and after the first two
/// fail the run stops and says so in its summary instead of retrying every query.
#[test]
fn an_unreachable_judge_stops_the_run_after_two_queries() {
    let world = World::new();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let llm = LlmSettings {
        url: Some(format!("http://127.0.0.1:{port}/v1")),
        model: Some("nobody".into()),
        ..Default::default()
    };
    let qf = world.queries_file(&[
        "retry backoff",
        "retry policy",
        "retry config",
        "retry docs",
    ]);
    let t = Instant::now();
    let report = run(&world, &world.options(llm, Some(qf))).unwrap();
    // Two retries per query: pauses of 1 and 2 × RETRY_PAUSE, for two queries.
    assert!(
        t.elapsed() >= lore_llm::RETRY_PAUSE * 6,
        "{:?}",
        t.elapsed()
    );
    let s = &report.summary;
    assert_eq!(
        (s.total_queries, s.judged_queries, s.failed_queries),
        (4, 0, 2)
    );
    let stopped = s.stopped.as_deref().unwrap_or("");
    assert!(
        stopped.starts_with("stopped after 2 queries: the judge (model nobody at"),
        "{stopped}"
    );
    let ls = lines(&report.out);
    assert_eq!(ls.len(), 3, "two query lines and the summary");
    assert_eq!(
        (ls[0]["status"].as_str(), ls[0]["attempts"].as_u64()),
        (Some("failed"), Some(3))
    );
    assert!(
        ls[1]["error"]
            .as_str()
            .unwrap()
            .contains("cannot reach the LLM"),
        "{}",
        ls[1]
    );
    assert_eq!(ls[2]["stopped"], stopped);
}

/// The judged search is the agent's: lore infers the intent from the wording unless the
/// run asks for the generated one, and each line says which it ranked with.
#[test]
fn searches_infer_their_intent_unless_the_generated_one_is_asked_for() {
    let world = World::new();
    let server = FakeLlm::start(|_, _| Reply::Content(answer([0.5; 5], &[], 2))).unwrap();
    let qf = world.queries_file(&["retry backoff", "where is parse_config defined"]);
    let mut opts = world.options(endpoint(&server), Some(qf));
    let inferred = run(&world, &opts).unwrap();
    opts.settings.given_intent = true;
    let given = run(&world, &opts).unwrap();
    let (a, b) = (lines(&inferred.out), lines(&given.out));
    assert_eq!(a[0]["intentUsed"], Value::Null);
    assert_eq!(
        a[1]["intentUsed"],
        json!({"intent": "find-definition", "source": "inferred"})
    );
    for l in &b[..2] {
        assert_eq!(
            l["intentUsed"],
            json!({"intent": "find-implementation", "source": "given"})
        );
    }
    assert_eq!(a[2]["searchIntent"], "inferred");
    assert_eq!(b[2]["searchIntent"], "given");
}

/// An answer that assesses some results only is accepted and the line names the others;
/// a runaway suggestion is cut in the line and the summary, and the line says so.
#[test]
fn partial_assessments_are_kept_and_runaway_text_is_cut() {
    let world = World::new();
    let huge = "z".repeat(3_000_000);
    let server = FakeLlm::start(move |req, _| {
        Reply::Content(if asks_about(req, "retry backoff") {
            answer([0.6; 5], &["rank docs lower"], 1)
        } else {
            answer([0.4; 5], &[huge.as_str()], 2)
        })
    })
    .unwrap();
    let qf = world.queries_file(&["retry backoff", "retry policy"]);
    let report = run(&world, &world.options(endpoint(&server), Some(qf))).unwrap();
    let ls = lines(&report.out);
    assert_eq!(
        (ls[0]["status"].as_str(), ls[0]["attempts"].as_u64()),
        (Some("ok"), Some(1))
    );
    assert_eq!(ls[0]["unassessedRanks"], json!([2]));
    assert!(ls[1].get("unassessedRanks").is_none());
    assert_eq!(ls[1]["cutFields"], json!(["suggestions[0]"]));
    let kept = ls[1]["suggestions"][0].as_str().unwrap();
    assert!(
        kept.ends_with("… [cut 2998000 characters]"),
        "{}",
        &kept[kept.len() - 40..]
    );
    let issue = ls[2]["topIssues"][1].as_str().unwrap();
    assert!(issue.len() < 2100, "{}", issue.len());
    assert!(std::fs::metadata(&report.out).unwrap().len() < 20_000);
}

#[test]
fn answers_that_stay_invalid_fail_the_query_and_are_left_out_of_averages() {
    let world = World::new();
    let server = FakeLlm::start(|req, _| {
        Reply::Content(if asks_about(req, "retry broken") {
            // Rank 3 is not among the two results.
            answer([0.1, 0.1, 0.1, 0.1, 0.1], &["never counted"], 3)
        } else if asks_about(req, "retry backoff") {
            answer([1.0, 0.5, 0.5, 0.5, 1.0], &[], 2)
        } else {
            answer([0.5, 0.5, 0.3, 0.5, 0.5], &[], 2)
        })
    })
    .unwrap();
    let qf = world.queries_file(&["retry backoff", "retry broken", "retry policy"]);
    let report = run(&world, &world.options(endpoint(&server), Some(qf))).unwrap();

    let broken = server
        .requests()
        .into_iter()
        .filter(|r| asks_about(r, "retry broken"))
        .collect::<Vec<_>>();
    assert_eq!(broken.len(), 3, "one try and max_retries = 2 retries");
    assert!(
        broken[2]
            .last_content()
            .contains("resultAssessments: rank 3 is not among the results (ranks 1 to 2)"),
        "{}",
        broken[2].last_content()
    );

    let ls = lines(&report.out);
    assert_eq!(ls.len(), 4);
    let f = &ls[1];
    assert_eq!(f["type"], "query");
    assert_eq!(f["index"], 2);
    assert_eq!(f["status"], "failed");
    assert_eq!(f["query"], "retry broken");
    assert_eq!(f["resultCount"], 2);
    assert_eq!(f["attempts"], 3);
    let err = f["error"].as_str().unwrap();
    assert!(
        err.contains("rank 3 is not among the results") && err.contains("gave up after 3 attempts"),
        "{err}"
    );
    for absent in ["scores", "analysis", "suggestions", "resultAssessments"] {
        assert!(f.get(absent).is_none(), "{absent} in a failed line");
    }
    assert_eq!(f["hits"].as_array().unwrap().len(), 2);

    let s = &ls[3];
    assert_eq!(s["totalQueries"], 3);
    assert_eq!(s["judgedQueries"], 2);
    assert_eq!(s["failedQueries"], 1);
    // Only the two judged queries count: no zeros from the failed one.
    assert_eq!(
        s["averageScores"],
        json!({"relevance": 0.75, "ranking": 0.5, "coverage": 0.4, "snippetQuality": 0.5, "overall": 0.75})
    );
    assert_eq!(s["topIssues"], json!([]));
    assert_eq!(s["focusDimension"], "coverage");
}

#[test]
fn a_judge_slower_than_the_timeout_fails_that_query_only() {
    let world = World::new();
    let server = FakeLlm::start(|req, _| {
        let ok = Reply::Content(answer([0.6, 0.6, 0.6, 0.6, 0.6], &[], 2));
        if asks_about(req, "retry slow") {
            Reply::Delayed(Duration::from_secs(3), Box::new(ok))
        } else {
            ok
        }
    })
    .unwrap();
    let qf = world.queries_file(&["retry slow", "retry backoff"]);
    let mut opts = world.options(endpoint(&server), Some(qf));
    opts.settings.timeout = Duration::from_secs(1);
    opts.settings.max_retries = 1;
    let t = Instant::now();
    let report = run(&world, &opts).unwrap();
    assert!(t.elapsed() < Duration::from_secs(6), "{:?}", t.elapsed());

    let ls = lines(&report.out);
    assert_eq!(ls[0]["status"], "failed");
    assert_eq!(ls[0]["attempts"], 2);
    let err = ls[0]["error"].as_str().unwrap();
    assert!(err.contains("did not answer within 1s"), "{err}");
    // The slow query was sent twice with the same conversation.
    let slow: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| asks_about(r, "retry slow"))
        .collect();
    assert_eq!(slow.len(), 2);
    assert_eq!(slow[0].contents(), slow[1].contents());
    assert_eq!(ls[1]["status"], "ok");
    assert_eq!(ls[2]["failedQueries"], 1);
    assert_eq!(ls[2]["judgedQueries"], 1);
    assert_eq!(ls[2]["averageScores"]["overall"], 0.6);
}

#[cfg(unix)]
#[test]
fn a_judge_command_gets_the_prompt_on_stdin() {
    let world = World::new();
    let dir = world.tmp.path().join("judge-cmd");
    std::fs::create_dir_all(&dir).unwrap();
    let answer_file = dir.join("answer.txt");
    std::fs::write(
        &answer_file,
        format!(
            "Here is my evaluation:\n```json\n{}\n```\n",
            answer([0.3, 0.6, 0.9, 0.6, 0.5], &["Index README sections"], 2)
        ),
    )
    .unwrap();
    let log = dir.join("prompts.log");
    let script = dir.join("judge.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat >> '{log}'\necho '=====' >> '{log}'\ncat '{answer}'\n",
            log = log.display(),
            answer = answer_file.display()
        ),
    )
    .unwrap();
    let command = format!("sh '{}'", script.display());
    let llm = LlmSettings {
        command: Some(command.clone()),
        // A configured endpoint is ignored when a command is given.
        url: Some("http://127.0.0.1:9/v1".into()),
        model: Some("unused".into()),
        ..Default::default()
    };
    let qf = world.queries_file(&["retry backoff", "retry policy"]);
    let report = run(&world, &world.options(llm, Some(qf))).unwrap();

    let prompts = std::fs::read_to_string(&log).unwrap();
    let prompts: Vec<&str> = prompts.split("=====\n").filter(|p| !p.is_empty()).collect();
    assert_eq!(prompts.len(), 2);
    assert!(prompts[0].starts_with("You are a strict and consistent evaluator"));
    assert!(prompts[0].contains("Query: \"retry backoff\""));
    assert!(prompts[1].contains("Query: \"retry policy\""));
    assert!(prompts[0].contains("\"title\": \"JudgeAnswer\""));

    let ls = lines(&report.out);
    assert_eq!(ls.len(), 3);
    for l in &ls[..2] {
        assert_eq!(l["status"], "ok");
        assert_eq!(l["scores"]["coverage"], 0.9);
        assert_eq!(l["suggestions"], json!(["Index README sections"]));
    }
    let s = &ls[2];
    assert_eq!(s["judge"], format!("command `{command}`"));
    assert_eq!(s["topIssues"], json!(["Index README sections"]));
    assert_eq!(
        s["topIssueCounts"],
        json!([{"suggestion": "Index README sections", "count": 2}])
    );
    assert_eq!(s["focusDimension"], "relevance");
    assert_eq!(s["judgedQueries"], 2);
}

#[test]
fn fatal_llm_errors_stop_the_run() {
    let world = World::new();
    let server = FakeLlm::start(|_, _| Reply::Status(401, "invalid api key".into())).unwrap();
    let qf = world.queries_file(&["retry backoff", "retry policy"]);
    let e = run(&world, &world.options(endpoint(&server), Some(qf))).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("judging stopped at query 1: the LLM endpoint"),
        "{e}"
    );
    assert!(e.to_string().contains("HTTP 401: invalid api key"), "{e}");
    assert_eq!(server.requests().len(), 1);

    // Nothing configured: one clear line before any work.
    let opts = world.options(LlmSettings::default(), None);
    let e = opts.settings.client().unwrap_err();
    assert_eq!(
        e.to_string(),
        "no LLM configured: set LORE_LLM_URL and LORE_LLM_MODEL, or pass --judge-cmd"
    );
    assert_eq!(e.exit_kind(), lore_engine::ExitKind::Input);
}

#[test]
fn bad_inputs_are_clear_errors() {
    let world = World::new();
    let server = FakeLlm::start(|_, _| Reply::Content("{}".into())).unwrap();
    let mut opts = world.options(endpoint(&server), None);
    opts.settings.stores = vec!["nope".into()];
    let e = run(&world, &opts).unwrap_err();
    assert_eq!(e.exit_kind(), lore_engine::ExitKind::NotFound, "{e}");

    let bad = world.tmp.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"query\": \"ok\"}\n{\"query\": \n").unwrap();
    let e = judge::read_queries_file(&bad).unwrap_err().to_string();
    assert!(e.contains("bad.jsonl: line 2 is not JSON"), "{e}");
    let empty = world.tmp.path().join("empty.json");
    std::fs::write(&empty, "{\"queries\": []}").unwrap();
    let e = judge::read_queries_file(&empty).unwrap_err().to_string();
    assert!(e.ends_with("holds no queries"), "{e}");
    let e = judge::read_queries_file(&world.tmp.path().join("missing.json")).unwrap_err();
    assert!(e.to_string().starts_with("cannot read queries file"), "{e}");
    assert_eq!(server.requests().len(), 0);

    // Generation that never yields enough queries fails with the reason.
    let server = FakeLlm::start(|_, _| {
        Reply::Content("{\"queries\": [{\"query\": \"retry\", \"intent\": \"x\"}]}".into())
    })
    .unwrap();
    let mut opts = world.options(endpoint(&server), None);
    opts.settings.max_retries = 1;
    let e = run(&world, &opts).unwrap_err().to_string();
    assert!(
        e.starts_with(
            "cannot generate queries: it holds 1 distinct non-empty queries; 3 are needed"
        ),
        "{e}"
    );
    assert_eq!(server.requests().len(), 2);
    assert!(
        !world.out_dir().exists(),
        "no output file before queries exist"
    );
}

/// An answer in the seed's evaluation schema: `analysis` holds relevance, ranking, coverage
/// and snippetQuality only; `scores.overall` only when `overall` is given.
fn seed_answer(scores: [f64; 4], overall: Option<f64>, n: u32) -> String {
    let mut a = json!({
        "scores": {"relevance": scores[0], "ranking": scores[1], "coverage": scores[2],
                   "snippetQuality": scores[3]},
        "analysis": {"relevance": "on topic", "ranking": "fine", "coverage": "partial",
                     "snippetQuality": "thin"},
        "suggestions": ["Show code at minimal detail"],
        "resultAssessments": (1..=n)
            .map(|r| json!({"rank": r, "source": format!("code:{r}"), "relevant": true}))
            .collect::<Vec<_>>(),
    });
    if let Some(o) = overall {
        a["scores"]["overall"] = json!(o);
    }
    a.to_string()
}

#[test]
fn answers_in_the_seed_schema_are_accepted_and_a_missing_overall_is_computed() {
    let world = World::new();
    let server = FakeLlm::start(|req, _| {
        Reply::Content(if asks_about(req, "retry backoff") {
            // Exactly the seed's schema: no analysis.overall.
            seed_answer([0.9, 0.8, 0.6, 0.7], Some(0.8), 2)
        } else {
            // No overall at all.
            seed_answer([0.5, 0.4, 0.2, 0.3], None, 2)
        })
    })
    .unwrap();
    let qf = world.queries_file(&["retry backoff", "retry policy"]);
    let report = run(&world, &world.options(endpoint(&server), Some(qf))).unwrap();

    assert_eq!(
        server.requests().len(),
        2,
        "each accepted at the first answer"
    );
    let ls = lines(&report.out);
    assert_eq!(ls.len(), 3);
    let (given, computed, s) = (&ls[0], &ls[1], &ls[2]);
    for l in [given, computed] {
        assert_eq!(l["status"], "ok", "{l}");
        assert_eq!(l["attempts"], 1);
        assert!(l.get("error").is_none());
        assert!(l["analysis"].get("overall").is_none());
        assert_eq!(l["analysis"]["snippetQuality"], "thin");
    }
    assert_eq!(
        given["scores"],
        json!({"relevance": 0.9, "ranking": 0.8, "coverage": 0.6, "snippetQuality": 0.7, "overall": 0.8})
    );
    assert!(given.get("overallComputed").is_none());
    // Left out: the mean of the four, and the line says so.
    assert_eq!(
        computed["scores"],
        json!({"relevance": 0.5, "ranking": 0.4, "coverage": 0.2, "snippetQuality": 0.3, "overall": 0.35})
    );
    assert_eq!(computed["overallComputed"], true);

    assert_eq!(s["judgedQueries"], 2);
    assert_eq!(s["failedQueries"], 0);
    assert_eq!(s["overallComputed"], 1);
    // The computed overall stays out of the overall average: that is the judge's own 0.8.
    assert_eq!(
        s["averageScores"],
        json!({"relevance": 0.7, "ranking": 0.6, "coverage": 0.4, "snippetQuality": 0.5, "overall": 0.8})
    );
    assert_eq!(s["focusDimension"], "coverage");
    // `lore eval compare` reads the same averages back from the query lines.
    let cmp = lore_eval::compare::compare(
        &lore_eval::compare::read_run(&report.out).unwrap(),
        &lore_eval::compare::read_run(&report.out).unwrap(),
    );
    assert_eq!(cmp.a.average_scores, report.summary.average_scores);
}

/// The judge's prompt line of the result whose source holds `path`.
fn prompt_result(prompt: &str, path: &str) -> Value {
    prompt
        .lines()
        .filter(|l| l.starts_with("{\"rank\":"))
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["source"].as_str().unwrap().contains(path))
        .unwrap_or_else(|| panic!("no result from {path} in:\n{prompt}"))
}

/// The judge sees each result as the agent received it at the run's detail, and the start
/// of its unit where that view does not hold it.
#[test]
fn the_judge_sees_what_the_agent_received_and_the_units_code() {
    let mut world = World::new();
    // No doc comments: at minimal detail these results carry no preview of their own.
    let bare = world.tmp.path().join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::write(
        bare.join("jitter.rs"),
        "pub fn jitter_delay(base: u64, seed: u64) -> u64 {\n    \
         base + seed.wrapping_mul(6364136223846793005) % 97\n}\n",
    )
    .unwrap();
    let steps: String = (1..=60)
        .map(|i| format!("    t.push(step_{i:02}(seed));\n"))
        .collect();
    std::fs::write(
        bare.join("table.rs"),
        format!("pub fn jitter_table(seed: u64) -> Vec<u64> {{\n    let mut t = Vec::new();\n{steps}    t\n}}\n"),
    )
    .unwrap();
    world
        .engine
        .add_store(
            &AddStore {
                name: "bare".into(),
                source: bare.to_string_lossy().into_owned(),
                kind: Some(StoreKind::Folder),
                ..Default::default()
            },
            &NoProgress,
        )
        .unwrap();
    let server = FakeLlm::start(|_, _| Reply::Content(answer([0.5; 5], &[], 2))).unwrap();
    let qf = world.queries_file(&["jitter delay table"]);
    let mut opts = world.options(endpoint(&server), Some(qf));
    opts.settings.stores = vec!["bare".into()];
    let report = run(&world, &opts).unwrap();
    assert_eq!(report.summary.detail, "minimal");
    assert_eq!(report.summary.judged_queries, 1);

    let reqs = server.requests();
    let prompt = &reqs[0].contents()[1];
    assert!(prompt.contains("Search: mode fts, detail minimal, limit 2, 2 results"));
    // The short unit whole, though lore showed no preview for it.
    let short = prompt_result(prompt, "bare:jitter.rs:");
    assert!(prompt.contains("exactly as the agent received it at detail minimal"));
    // The agent's minimal view: name and signature, no code (no doc comment, no summary).
    let agent = &short["agent"];
    assert_eq!(agent["symbol"], "jitter_delay");
    assert_eq!(
        agent["signature"],
        "pub fn jitter_delay(base: u64, seed: u64) -> u64"
    );
    assert!(
        agent.get("snippet").is_none() && agent.get("full").is_none(),
        "{agent}"
    );
    assert_eq!(
        short["code"],
        "pub fn jitter_delay(base: u64, seed: u64) -> u64 {\n    \
         base + seed.wrapping_mul(6364136223846793005) % 97\n}"
    );
    // The long one bounded: its first 40 lines, then how many were cut.
    let long = prompt_result(prompt, "bare:table.rs:");
    let code = long["code"].as_str().unwrap();
    assert!(code.starts_with("pub fn jitter_table(seed: u64) -> Vec<u64> {\n"));
    assert!(
        code.contains("    t.push(step_38(seed));\n… (cut: 24 more lines)"),
        "{code}"
    );
    assert!(!code.contains("step_39"), "{code}");
    assert_eq!(code.lines().count(), judge::CODE_MAX_LINES + 1);
    // The run file keeps the preview as lore showed it, not the code (the id leads to it).
    let ls = lines(&report.out);
    for r in ls[0]["hits"].as_array().unwrap() {
        assert!(
            r.get("code").is_none() && r.get("agentView").is_none(),
            "{r}"
        );
    }

    // At full detail the agent gets the whole unit: that is what the judge sees, no
    // separate code.
    opts.settings.detail = lore_engine::Detail::Full;
    run(&world, &opts).unwrap();
    let reqs = server.requests();
    let prompt = &reqs.last().unwrap().contents()[1];
    assert!(prompt.contains("exactly as the agent received it at detail full"));
    let short = prompt_result(prompt, "bare:jitter.rs:");
    assert!(short.get("code").is_none(), "{short}");
    let full = short["agent"]["full"]["content"].as_str().unwrap_or("");
    assert!(
        full.contains("wrapping_mul(6364136223846793005)"),
        "{short}"
    );
}

#[test]
fn committed_schemas_match_the_types() {
    // Regenerate with: LORE_UPDATE_SCHEMAS=1 cargo test -p lore-eval --test judge committed_schemas
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    for (file, generated, compiled_in) in [
        (
            "judge-answer.schema.json",
            judge::judge_answer_schema(),
            judge::JUDGE_ANSWER_SCHEMA,
        ),
        (
            "generated-queries.schema.json",
            judge::generated_queries_schema(),
            judge::GENERATED_QUERIES_SCHEMA,
        ),
    ] {
        let path = dir.join(file);
        if std::env::var_os("LORE_UPDATE_SCHEMAS").is_some() {
            std::fs::write(&path, &generated).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            committed, generated,
            "{file} is stale; regenerate it with LORE_UPDATE_SCHEMAS=1 cargo test -p lore-eval --test judge committed_schemas"
        );
        assert_eq!(compiled_in, committed);
    }
    let schema: Value = serde_json::from_str(judge::JUDGE_ANSWER_SCHEMA).unwrap();
    assert_eq!(
        schema["required"],
        json!(["scores", "analysis", "suggestions", "resultAssessments"])
    );
    let rel = &schema["properties"]["scores"]["properties"]["relevance"];
    assert_eq!(
        (rel["minimum"].as_f64(), rel["maximum"].as_f64()),
        (Some(0.0), Some(1.0))
    );
    // The seed's schema is accepted: `overall` is asked for but never required.
    let four = json!(["relevance", "ranking", "coverage", "snippetQuality"]);
    assert_eq!(schema["properties"]["scores"]["required"], four);
    assert_eq!(schema["properties"]["analysis"]["required"], four);
    let overall = &schema["properties"]["scores"]["properties"]["overall"];
    assert_eq!(
        (overall["minimum"].as_f64(), overall["maximum"].as_f64()),
        (Some(0.0), Some(1.0))
    );
}
