//! End-to-end tests of the brain through the real binary: the CLI (`lore brain …`), REST
//! (`POST /api/brain/…` on `lore serve`, through a real HTTP client) and MCP (the official
//! Python SDK over stdio and streamable HTTP, `tests/mcp/brain_client.py`).
//!
//! Most run without the embedding model: the brain then indexes for keyword search and
//! `brain_query` falls back to it. The LLM is a scripted OpenAI-compatible server started
//! by the test (`lore_llm::fake_server`). Tests that need the model skip without
//! `LORE_MODEL_DIR`, and MCP tests skip without the Python `mcp` package, unless CI is set.

/// Whether `lore` keeps its catalog in PostgreSQL here (the `*_postgres` suites).
const ON_POSTGRES: bool = false;

mod common;

use common::serve::{Server, agent, mcp_client, post_with, python_mcp_or_skip};
use common::{Lore, files_under, one_error_line, run_command, write};
use lore_llm::fake_server::{FakeLlm, Reply};
use serde_json::{Value, json};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A one-page PDF showing "Quolls are carnivorous marsupials." (Helvetica), made by the
/// `tiny_pdf` helper of lore-brain's extract tests.
const QUOLLS_PDF: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/quolls.pdf");

/// A fake LLM: a document holding `GARBAGE-DOC` gets prose instead of JSON every time;
/// any other gets one concept page, "Quoll facts", quoting the document's text.
fn fake_llm() -> FakeLlm {
    FakeLlm::start(|req, _| {
        let prompt = req.last_content();
        if prompt.contains("GARBAGE-DOC") || prompt.contains("That answer is not valid") {
            return Reply::Content("Sure! Here are some lovely pages about quolls.".into());
        }
        let text = prompt
            .split_once("<<<\n")
            .and_then(|(_, rest)| rest.rsplit_once("\n>>>"))
            .map(|(t, _)| t.trim().to_string())
            .unwrap_or_default();
        let answer = json!({"pages": [{
            "title": "Quoll facts",
            "type": "concept",
            "content": format!("From the document: {text}")
        }]});
        Reply::Content(format!("Here you go:\n```json\n{answer}\n```"))
    })
    .expect("fake LLM")
}

fn brain_dir(lore: &Lore) -> PathBuf {
    lore.data().join("brain")
}

/// `lore --json --brain-dir BRAIN brain query QUERY --mode fts`.
fn query_brain_at(lore: &Lore, brain: &str, query: &str) -> Value {
    lore.json(&[
        "--brain-dir",
        brain,
        "brain",
        "query",
        query,
        "--mode",
        "fts",
    ])
}

/// Runs `lore` with `stdin` piped in.
fn run_with_stdin(lore: &Lore, args: &[&str], stdin: &str) -> common::Out {
    let mut cmd = lore.command(args);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn lore");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().expect("lore output");
    common::Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn cli_write_and_query_keep_notes_inside_knowledge() {
    let lore = Lore::without_model();
    let brain = brain_dir(&lore);
    let w = lore.json(&[
        "brain",
        "write",
        "# Platypus venom\n\nMale platypuses have venomous spurs.",
        "--filename",
        "zoology/platypus",
        "--type",
        "fact",
        "--domain",
        "zoology",
    ]);
    assert_eq!(w["path"], "knowledge/zoology/platypus.md", "{w}");
    assert_eq!(w["created"], true);
    assert_eq!(w["indexed"]["added"], 1, "{w}");
    assert_eq!(
        std::fs::read_to_string(brain.join("knowledge/zoology/platypus.md")).unwrap(),
        "---\ntype: fact\ndomain: zoology\n---\n\n# Platypus venom\n\nMale platypuses have venomous spurs.\n"
    );

    // Found at once, by keywords (no model here), with path, title, snippet and score.
    let q = lore.json(&["brain", "query", "venomous spurs", "--mode", "fts"]);
    let hit = &q["results"][0];
    assert_eq!(hit["path"], "knowledge/zoology/platypus.md", "{q}");
    assert_eq!(hit["title"], "Platypus venom");
    assert!(hit["snippet"].as_str().unwrap().contains("venomous"), "{q}");
    assert!(hit["score"].as_f64().unwrap() > 0.0);
    let q = lore.json(&["brain", "query", "platypus"]);
    assert_eq!(q["mode"], "fts", "{q}");
    assert!(
        q["note"].as_str().unwrap().contains("lore model fetch"),
        "{q}"
    );
    let text = lore.ok(&["brain", "query", "platypus"]);
    assert!(text.contains("knowledge/zoology/platypus.md") && text.contains("Platypus venom"));

    // Content from stdin, a timestamped default name.
    let out = run_with_stdin(&lore, &["--json", "brain", "write"], "Echidnas lay eggs.\n");
    assert_eq!(out.code, 0, "{out:?}");
    let w: Value = serde_json::from_str(&out.stdout).unwrap();
    let name = w["path"]
        .as_str()
        .unwrap()
        .strip_prefix("knowledge/")
        .unwrap();
    // 2026-11-30-101500-auto.md
    assert_eq!(name.len(), "2026-11-30-101500-auto.md".len(), "{name}");
    assert!(
        name.ends_with("-auto.md") && name.as_bytes()[10] == b'-',
        "{name}"
    );

    // Escapes and empty content: exit 1, one error line, nothing written anywhere.
    let outside = lore.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, brain.join("knowledge/link")).unwrap();
    let before = files_under(lore.root());
    let abs = outside.join("abs.md").display().to_string();
    for bad in [
        "../x.md",
        "../../escape",
        "a/../../x.md",
        abs.as_str(),
        "link/x.md",
        "link/new/x.md",
    ] {
        let err = lore.fails(&["brain", "write", "nope", "--filename", bad], 1);
        assert!(err.contains("knowledge/"), "{bad}: {err}");
    }
    assert!(lore.fails(&["brain", "write", ""], 1).contains("empty"));
    assert!(lore.fails(&["brain", "write", "  \n"], 1).contains("empty"));
    let err = lore.fails(&["brain", "write", "x", "--type", "a\nb"], 1);
    assert!(err.contains("`type`"), "{err}");
    assert_eq!(
        files_under(lore.root()),
        before,
        "a refused write changed files"
    );
    assert!(files_under(&outside).is_empty());

    // The brain is a store of kind brain; its name is reserved; it can be re-indexed.
    let stores = lore.json(&["store", "list"]);
    assert_eq!(stores[0]["name"], "brain", "{stores}");
    assert_eq!(stores[0]["kind"], "brain", "{stores}");
    assert_eq!(stores[0]["files"], 2, "{stores}");
    let folder = lore.path("folder");
    write(&folder, "a.md", "# A\n");
    let err = lore.fails(&["store", "add", "brain", folder.to_str().unwrap()], 1);
    assert!(err.contains("built in"), "{err}");
    // A note written by hand is indexed with the next write (or `lore index brain`).
    write(
        &brain,
        "knowledge/by-hand.md",
        "# Wombats\n\nCube-shaped droppings.\n",
    );
    lore.ok(&["brain", "write", "Another note.", "--filename", "another"]);
    let q = lore.json(&["brain", "query", "cube-shaped droppings", "--mode", "fts"]);
    assert_eq!(q["results"][0]["path"], "knowledge/by-hand.md", "{q}");

    // --brain-dir and LORE_BRAIN_DIR move the brain; the store follows.
    let elsewhere = lore.path("elsewhere");
    let dir = elsewhere.to_str().unwrap();
    lore.ok(&[
        "--brain-dir",
        dir,
        "brain",
        "write",
        "Numbats eat termites.",
        "--filename",
        "numbat",
    ]);
    assert!(elsewhere.join("knowledge/numbat.md").is_file());
    let q = query_brain_at(&lore, dir, "termites");
    assert_eq!(q["results"][0]["path"], "knowledge/numbat.md", "{q}");
    let from_env = lore.path("from-env");
    let mut cmd = lore.command(&["brain", "write", "Dingoes howl.", "--filename", "dingo"]);
    cmd.env("LORE_BRAIN_DIR", &from_env);
    let out = run_command(&mut cmd, Duration::from_secs(120));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(from_env.join("knowledge/dingo.md").is_file());
    let q = query_brain_at(&lore, from_env.to_str().unwrap(), "howl");
    assert_eq!(q["results"][0]["path"], "knowledge/dingo.md", "{q}");
}

#[test]
fn cli_ingest_raw_plans_merges_and_refuses_bad_pages() {
    let lore = Lore::without_model();
    let brain = brain_dir(&lore);
    let pages = json!({"source": "field-notes.md", "pages": [
        {"title": "Monotremes", "type": "concept", "content": "Mammals that lay eggs."},
        {"title": "Field kit", "type": "tool", "content": "Gloves for handling platypuses."}
    ]});
    let file = lore.path("pages.json");
    std::fs::write(&file, pages.to_string()).unwrap();
    let f = file.to_str().unwrap();

    let dry = lore.json(&["brain", "ingest-raw", f, "--dry-run"]);
    assert_eq!(dry["dry_run"], true);
    assert_eq!(
        dry["pages"],
        json!(["wiki/concepts/monotremes.md", "wiki/tools/field-kit.md"])
    );
    assert!(files_under(&brain).is_empty(), "{:?}", files_under(&brain));
    let real = lore.json(&["brain", "ingest-raw", f]);
    assert_eq!(real["pages"], dry["pages"]);
    assert_eq!(real["created"], 2);
    let page = std::fs::read_to_string(brain.join("wiki/concepts/monotremes.md")).unwrap();
    assert!(
        page.starts_with(
            "---\ntitle: Monotremes\ntype: concept\nsources:\n  - field-notes.md\nupdated: "
        ),
        "{page}"
    );

    // The same title from another source: merged, with a warning on stderr.
    let out = run_with_stdin(
        &lore,
        &["brain", "ingest-raw", "-", "--source", "second-trip.md"],
        r#"[{"title": "monotremes", "type": "concepts", "content": "Echidnas too."}]"#,
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("warning: wiki/concepts/monotremes.md already exists"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("1 merged"), "{}", out.stdout);
    let page = std::fs::read_to_string(brain.join("wiki/concepts/monotremes.md")).unwrap();
    assert!(
        page.contains("  - second-trip.md") && page.contains("## From second-trip.md ("),
        "{page}"
    );
    let q = lore.json(&["brain", "query", "echidnas", "--mode", "fts"]);
    assert_eq!(
        q["results"][0]["path"], "wiki/concepts/monotremes.md",
        "{q}"
    );

    let before = files_under(lore.root());
    for (body, needle) in [
        (
            json!({"source": "", "pages": pages["pages"]}),
            "`source` is empty",
        ),
        (json!({"source": "s", "pages": []}), "`pages` is empty"),
        (
            json!({"source": "s", "pages": [{"title": "X", "type": "poem", "content": "c"}]}),
            "unknown page type",
        ),
        (
            json!({"source": "s", "pages": [{"title": "X", "type": "tool"}]}),
            "not valid JSON",
        ),
    ] {
        let out = run_with_stdin(&lore, &["brain", "ingest-raw"], &body.to_string());
        assert_eq!(out.code, 1, "{body}: {out:?}");
        let err = one_error_line(&out.stderr, &["brain", "ingest-raw"]);
        assert!(err.contains(needle), "{body}: {err}");
    }
    assert_eq!(files_under(lore.root()), before);
}

#[test]
fn cli_ingest_needs_one_input_and_an_llm_and_writes_nothing_on_garbage() {
    let lore = Lore::without_model();
    let brain = brain_dir(&lore);
    let doc = lore.path("doc.md");
    std::fs::write(&doc, "Quolls hunt at night.").unwrap();
    let d = doc.to_str().unwrap();

    // Mutual exclusion, before anything else.
    let err = lore.fails(
        &["brain", "ingest", d, "--content", "x", "--source", "s"],
        1,
    );
    assert!(err.contains("not both"), "{err}");
    assert!(lore.fails(&["brain", "ingest"], 1).contains("`path`"));
    assert!(
        lore.fails(&["brain", "ingest", "--content", "x"], 1)
            .contains("`source` is required")
    );
    // No LLM configured: a clear error.
    let out = lore.run(&["brain", "ingest", d]);
    assert_eq!(out.code, 1, "{out:?}");
    let err = one_error_line(&out.stderr, &["brain", "ingest"]);
    assert!(
        err.contains("no LLM configured: set LORE_LLM_URL and LORE_LLM_MODEL"),
        "{err}"
    );
    assert!(files_under(&brain).is_empty());

    let llm = fake_llm();
    let ingest = |args: &[&str]| {
        let mut cmd = lore.command(args);
        cmd.env("LORE_LLM_URL", llm.url())
            .env("LORE_LLM_MODEL", "fake");
        run_command(&mut cmd, Duration::from_secs(120))
    };
    // Garbage from the LLM: retried, reported (exit 3), nothing written.
    let out = ingest(&[
        "brain",
        "ingest",
        "--content",
        "GARBAGE-DOC",
        "--source",
        "g.md",
    ]);
    assert_eq!(out.code, 3, "{out:?}");
    let err = one_error_line(&out.stderr, &["brain", "ingest"]);
    assert!(
        err.contains("nothing was written") && err.contains("gave up after 3 attempts"),
        "{err}"
    );
    assert!(files_under(&brain).is_empty(), "{:?}", files_under(&brain));
    let garbage_calls = llm.requests().len();
    assert_eq!(garbage_calls, 3);

    // A dry run asks the LLM but writes nothing.
    let out = ingest(&["--json", "brain", "ingest", "doc.md", "--dry-run"]);
    assert_eq!(out.code, 0, "{out:?}");
    let dry: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        dry["pages"],
        json!(["wiki/concepts/quoll-facts.md"]),
        "{dry}"
    );
    assert_eq!(dry["source"], "doc.md");
    assert!(files_under(&brain).is_empty());

    // Markdown by path, HTML as content, PDF by path: pages written and searchable.
    let out = ingest(&["--json", "brain", "ingest", "doc.md"]);
    assert_eq!(out.code, 0, "{out:?}");
    let done: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(done["format"], "markdown");
    assert_eq!(done["created"], 1, "{done}");
    let html = "<html><head><style>p{color:red}</style><script>var secret=1;</script></head>\
                <body><p>Quolls have <b>spots</b>.</p></body></html>";
    let out = ingest(&[
        "--json",
        "brain",
        "ingest",
        "--content",
        html,
        "--source",
        "quolls.html",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let done: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(done["format"], "html");
    assert_eq!(done["merged"], 1, "{done}");
    let prompt = llm.requests().last().unwrap().last_content();
    assert!(
        prompt.contains("Quolls have **spots**.")
            && !prompt.contains("secret")
            && !prompt.contains("color"),
        "{prompt}"
    );
    std::fs::copy(QUOLLS_PDF, lore.path("quolls.pdf")).unwrap();
    let out = ingest(&["--json", "brain", "ingest", "quolls.pdf"]);
    assert_eq!(out.code, 0, "{out:?}");
    let done: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(done["format"], "pdf", "{done}");
    let prompt = llm.requests().last().unwrap().last_content();
    assert!(
        prompt.contains("Quolls are carnivorous marsupials."),
        "{prompt}"
    );
    let page = std::fs::read_to_string(brain.join("wiki/concepts/quoll-facts.md")).unwrap();
    for source in ["doc.md", "quolls.html", "quolls.pdf"] {
        assert!(page.contains(&format!("  - {source}")), "{page}");
    }
    let q = lore.json(&["brain", "query", "carnivorous marsupials", "--mode", "fts"]);
    assert_eq!(
        q["results"][0]["path"], "wiki/concepts/quoll-facts.md",
        "{q}"
    );

    // A file that is not a PDF inside: a clear input error.
    std::fs::write(lore.path("broken.pdf"), b"%PDF-1.4\nnot really").unwrap();
    let out = ingest(&["brain", "ingest", "broken.pdf"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(one_error_line(&out.stderr, &["brain"]).contains("cannot read text from the PDF"));
}

#[test]
fn cli_session_log_validates_ids_and_concurrent_processes_keep_lines_whole() {
    let lore = Lore::without_model();
    let brain = brain_dir(&lore);
    for bad in ["../x", "a/b", ".hidden", "a b"] {
        let err = lore.fails(&["brain", "log", bad, "--message", "m"], 1);
        assert!(err.contains("invalid session_id"), "{err}");
    }
    assert!(!brain.join("sessions").exists() || files_under(&brain).is_empty());
    let logged = lore.json(&[
        "brain",
        "log",
        "s1",
        "--skill",
        "review",
        "--phase",
        "plan",
        "--project-root",
        "/p",
        "--final-status",
        "ok",
        "--file-path",
        "src/a.rs",
        "--model-used",
        "m",
        "--duration-ms",
        "1200",
        "--message",
        "first",
    ]);
    assert_eq!(logged["path"], "sessions/s1.jsonl");
    let line: Value = serde_json::from_str(
        std::fs::read_to_string(brain.join("sessions/s1.jsonl"))
            .unwrap()
            .trim(),
    )
    .unwrap();
    for (k, v) in [
        ("skill", json!("review")),
        ("phase", json!("plan")),
        ("project_root", json!("/p")),
        ("final_status", json!("ok")),
        ("file_path", json!("src/a.rs")),
        ("model_used", json!("m")),
        ("duration_ms", json!(1200)),
        ("message", json!("first")),
        ("session_id", json!("s1")),
    ] {
        assert_eq!(line[k], v, "{k}: {line}");
    }
    assert!(line["timestamp"].as_str().unwrap().ends_with('Z'));

    // 8 writers, each its own processes, appending at once.
    const WRITERS: usize = 8;
    const LINES: usize = 25;
    let started = Instant::now();
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let lore = &lore;
            s.spawn(move || {
                for i in 0..LINES {
                    let msg = format!("{i}:{}", "z".repeat((w * 811 + i * 97) % 5000));
                    lore.ok(&[
                        "brain",
                        "log",
                        "shared",
                        "--skill",
                        &format!("w{w}"),
                        "--message",
                        &msg,
                    ]);
                }
            });
        }
    });
    eprintln!("{} CLI appends in {:?}", WRITERS * LINES, started.elapsed());
    let text = std::fs::read_to_string(brain.join("sessions/shared.jsonl")).unwrap();
    let mut next = [0usize; WRITERS];
    for line in text.lines() {
        let v: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("torn line ({e}): {line}"));
        let w: usize = v["skill"].as_str().unwrap()[1..].parse().unwrap();
        let (i, fill) = v["message"].as_str().unwrap().split_once(':').unwrap();
        assert_eq!(i.parse::<usize>().unwrap(), next[w]);
        assert_eq!(fill.len(), (w * 811 + next[w] * 97) % 5000);
        next[w] += 1;
    }
    assert_eq!(next, [LINES; WRITERS]);
    // Session logs are not searched.
    assert!(lore.json(&["store", "list"]).as_array().unwrap().is_empty());
}

#[test]
fn rest_routes_and_the_single_writer() {
    let lore = Lore::without_model();
    let brain = brain_dir(&lore);
    let llm = fake_llm();
    let llm_url = llm.url();
    // The file ingested by path is in the test's root, which the server may read.
    let root = lore.root().display().to_string();
    let server = Server::start_with(
        &lore,
        &["--addr", "127.0.0.1:0", "--no-watch", "--allow-path", &root],
        &[("LORE_LLM_URL", &llm_url), ("LORE_LLM_MODEL", "fake")],
    );
    let a = agent();
    let api = |p: &str| server.api(&format!("/api/brain/{p}"));

    let (status, w) = post_with(
        &a,
        &api("write"),
        &json!({"content": "Bilbies have big ears.", "filename": "bilby", "type": "fact"}),
    );
    assert_eq!(status, 200, "{w}");
    assert_eq!(w["path"], "knowledge/bilby.md");
    let (status, q) = post_with(
        &a,
        &api("query"),
        &json!({"query": "big ears", "limit": "2"}),
    );
    assert_eq!(status, 200, "{q}");
    assert_eq!(q["results"][0]["path"], "knowledge/bilby.md", "{q}");
    assert_eq!(q["results"][0]["title"], "bilby");

    // The server is the writer: a CLI write fails naming it, and writes nothing; reads and
    // session logs still work from the CLI.
    let before = files_under(&brain);
    let err = lore.fails(&["brain", "write", "from the CLI", "--filename", "cli"], 1);
    assert!(
        err.contains("lore serve (pid") && err.contains(&server.url),
        "{err}"
    );
    let pages = lore.path("pages.json");
    std::fs::write(
        &pages,
        r#"{"source": "cli", "pages": [{"title": "T", "type": "tool", "content": "c"}]}"#,
    )
    .unwrap();
    let err = lore.fails(&["brain", "ingest-raw", pages.to_str().unwrap()], 1);
    assert!(err.contains("lore serve (pid"), "{err}");
    let dry = lore.json(&["brain", "ingest-raw", pages.to_str().unwrap(), "--dry-run"]);
    assert_eq!(dry["pages"], json!(["wiki/tools/t.md"]), "{dry}");
    assert_eq!(files_under(&brain), before);
    let q = lore.json(&["brain", "query", "bilbies", "--mode", "fts"]);
    assert_eq!(q["results"][0]["path"], "knowledge/bilby.md");
    lore.ok(&["brain", "log", "cli-session", "--message", "while serving"]);
    let before = files_under(&brain);

    // Refused writes: 400, nothing written.
    for body in [
        json!({"content": ""}),
        json!({"content": "x", "filename": "../escape.md"}),
        json!({"content": "x", "filename": "/tmp/escape.md"}),
        json!({"content": "x", "filename": "a/../../escape.md"}),
        json!({"content": ["not", "text"]}),
    ] {
        let (status, e) = post_with(&a, &api("write"), &body);
        assert_eq!(status, 400, "{body}: {e}");
        assert!(e["error"].is_string(), "{e}");
    }
    for (route, body, needle) in [
        (
            "ingest-raw",
            json!({"source": "", "pages": [{"title": "T", "type": "tool", "content": "c"}]}),
            "`source`",
        ),
        ("ingest-raw", json!({"source": "s", "pages": []}), "`pages`"),
        (
            "ingest-raw",
            json!({"source": "s", "pages": [{"title": "T", "type": "poem", "content": "c"}]}),
            "unknown page type",
        ),
        (
            "ingest",
            json!({"path": "/x.md", "content": "c", "source": "s"}),
            "not both",
        ),
        ("ingest", json!({}), "`path`"),
        ("ingest", json!({"path": "relative.md"}), "absolute"),
        (
            "ingest-path",
            json!({"content": "c", "source": "s"}),
            "takes `path`",
        ),
        ("log", json!({"session_id": "../x"}), "invalid session_id"),
        ("query", json!({"query": ""}), "`query`"),
    ] {
        let (status, e) = post_with(&a, &api(route), &body);
        assert_eq!(status, 400, "{route} {body}: {e}");
        assert!(
            e["error"].as_str().unwrap().contains(needle),
            "{route} {body}: {e}"
        );
    }
    assert_eq!(files_under(&brain), before);

    // ingest-raw: a dry run writes nothing, then a write and a merge.
    let pages = json!([{"title": "Bilby", "type": "concept", "content": "A desert marsupial."}]);
    let (status, dry) = post_with(
        &a,
        &api("ingest-raw"),
        &json!({"source": "s1", "pages": pages, "dry_run": true}),
    );
    assert_eq!(status, 200, "{dry}");
    assert_eq!(dry["pages"], json!(["wiki/concepts/bilby.md"]));
    assert_eq!(files_under(&brain), before);
    let (status, _) = post_with(
        &a,
        &api("ingest-raw"),
        &json!({"source": "s1", "pages": pages}),
    );
    assert_eq!(status, 200);
    let (_, merged) = post_with(
        &a,
        &api("ingest-raw"),
        &json!({"source": "s2", "pages": [{"title": "Bilby", "type": "concept", "content": "Also called rabbit-eared bandicoot."}]}),
    );
    assert_eq!(merged["merged"], 1, "{merged}");
    assert!(
        merged["warnings"][0]
            .as_str()
            .unwrap()
            .contains("already exists")
    );

    // ingest through the fake LLM: content, a path, and garbage (500, nothing written).
    let (status, done) = post_with(
        &a,
        &api("ingest"),
        &json!({"content": "Quolls have spots.", "source": "q.md"}),
    );
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["pages"], json!(["wiki/concepts/quoll-facts.md"]));
    let page = lore.path("page.html");
    std::fs::write(&page, "<h1>Numbats</h1><p>Numbats eat termites.</p>").unwrap();
    let (status, done) = post_with(
        &a,
        &api("ingest-path"),
        &json!({"path": page.display().to_string(), "dry_run": true}),
    );
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["format"], "html");
    assert_eq!(done["dry_run"], true);
    let before = files_under(&brain);
    let (status, e) = post_with(
        &a,
        &api("ingest"),
        &json!({"content": "GARBAGE-DOC", "source": "g.md"}),
    );
    assert_eq!(status, 500, "{e}");
    assert!(
        e["error"].as_str().unwrap().contains("nothing was written"),
        "{e}"
    );
    assert_eq!(files_under(&brain), before);

    // 8 concurrent HTTP writers x 500 session lines: all whole.
    let started = Instant::now();
    std::thread::scope(|s| {
        for w in 0..8 {
            let api = &api;
            s.spawn(move || {
                let a = agent();
                for i in 0..500 {
                    let body = json!({"session_id": "http-run", "skill": format!("w{w}"),
                        "message": format!("{i}:{}", "h".repeat((w * 613 + i * 59) % 4000)), "duration_ms": i});
                    let (status, r) = post_with(&a, &api("log"), &body);
                    assert_eq!(status, 200, "{r}");
                }
            });
        }
    });
    eprintln!("4000 REST session_log calls in {:?}", started.elapsed());
    let text = std::fs::read_to_string(brain.join("sessions/http-run.jsonl")).unwrap();
    let mut next = [0usize; 8];
    for line in text.lines() {
        let v: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("torn line ({e}): {line}"));
        let w: usize = v["skill"].as_str().unwrap()[1..].parse().unwrap();
        let (i, fill) = v["message"].as_str().unwrap().split_once(':').unwrap();
        let i: usize = i.parse().unwrap();
        assert_eq!(fill.len(), (w * 613 + i * 59) % 4000);
        assert_eq!(v["duration_ms"], i);
        next[w] += 1;
    }
    assert_eq!(next, [500; 8]);
    drop(server);

    // Without an LLM configured, ingest is a 400 that says what to set.
    let other = Lore::without_model();
    let server = Server::no_watch(&other, &[]);
    let (status, e) = post_with(
        &a,
        &server.api("/api/brain/ingest"),
        &json!({"content": "c", "source": "s"}),
    );
    assert_eq!(status, 400, "{e}");
    assert!(
        e["error"].as_str().unwrap().contains("no LLM configured"),
        "{e}"
    );
}

/// Runs brain_client.py; returns its measurements.
fn brain_client(lore: &Lore, args: &[&str], env: &[(&str, &str)]) -> Value {
    mcp_client(lore, "brain_client.py", args, env)
}

#[test]
fn mcp_brain_tools_over_stdio_with_the_python_sdk() {
    if !python_mcp_or_skip() {
        return;
    }
    let llm = fake_llm();
    let url = llm.url();
    for (llm_flag, env) in [
        (
            "fake",
            vec![("LORE_LLM_URL", url.as_str()), ("LORE_LLM_MODEL", "fake")],
        ),
        ("none", vec![]),
    ] {
        let lore = Lore::without_model();
        // A brain dir of its own (outside the data dir), given with --brain-dir.
        let brain = lore.path("agent-brain");
        let data = lore.data();
        std::fs::create_dir_all(&data).unwrap();
        let mut env = env.clone();
        env.push(("LORE_DATA_DIR", data.to_str().unwrap()));
        let m = brain_client(
            &lore,
            &[
                "stdio",
                common::BIN,
                data.to_str().unwrap(),
                "--brain-dir",
                brain.to_str().unwrap(),
                "--llm",
                llm_flag,
            ],
            &env,
        );
        eprintln!("stdio ({llm_flag}): {m}");
        // The CLI sees what the MCP server wrote.
        let q = query_brain_at(&lore, brain.to_str().unwrap(), "platypus");
        assert_eq!(
            q["results"][0]["path"], "knowledge/zoology/platypus.md",
            "{q}"
        );
    }
}

#[test]
fn mcp_brain_tools_over_http_with_the_python_sdk() {
    if !python_mcp_or_skip() {
        return;
    }
    let lore = Lore::without_model();
    let llm = fake_llm();
    let url = llm.url();
    let server = Server::no_watch(&lore, &[("LORE_LLM_URL", &url), ("LORE_LLM_MODEL", "fake")]);
    let brain = brain_dir(&lore);
    let m = brain_client(
        &lore,
        &[
            "http",
            &server.api("/mcp"),
            "--brain-dir",
            brain.to_str().unwrap(),
            "--llm",
            "fake",
        ],
        &[],
    );
    eprintln!("http: {m}");
}

/// With the embedding model: a note written is found by a hybrid query in the same second —
/// through the CLI (two processes, each loading the model), REST and MCP on a server.
#[test]
fn write_then_hybrid_query_finds_the_note_in_the_same_second() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let t0 = Instant::now();
    lore.ok(&[
        "brain",
        "write",
        "The kakapo is a flightless nocturnal parrot.",
        "--filename",
        "kakapo",
    ]);
    let q = lore.json(&["brain", "query", "which parrot cannot fly"]);
    let cli = t0.elapsed();
    assert_eq!(q["mode"], "hybrid", "{q}");
    assert_eq!(q["results"][0]["path"], "knowledge/kakapo.md", "{q}");
    eprintln!("CLI: write + hybrid query (two processes) in {cli:?}");

    let server = Server::no_watch(&lore, &[]);
    let a = agent();
    let api = |p: &str| server.api(&format!("/api/brain/{p}"));
    // Warm the model once.
    post_with(&a, &api("query"), &json!({"query": "warm up"}));
    let mut worst = Duration::ZERO;
    for (i, (note, query)) in [
        (
            "Tuataras have a third eye on top of their heads.",
            "reptile with a parietal eye",
        ),
        (
            "Axolotls regrow lost limbs.",
            "animal that can regrow its legs",
        ),
        (
            "Cassowaries have a casque on their head.",
            "which bird has a casque",
        ),
    ]
    .iter()
    .enumerate()
    {
        let t0 = Instant::now();
        let (status, w) = post_with(
            &a,
            &api("write"),
            &json!({"content": note, "filename": format!("n{i}")}),
        );
        assert_eq!(status, 200, "{w}");
        assert_eq!(w["indexed"]["embedded"], true, "{w}");
        let (_, q) = post_with(&a, &api("query"), &json!({"query": query, "limit": 1}));
        let took = t0.elapsed();
        assert_eq!(q["mode"], "hybrid");
        assert_eq!(
            q["results"][0]["path"],
            format!("knowledge/n{i}.md"),
            "{query}: {q}"
        );
        eprintln!(
            "REST: write -> found by hybrid query in {took:?} (write {} ms indexing)",
            w["indexed"]["elapsed_ms"]
        );
        worst = worst.max(took);
    }
    assert!(
        worst < Duration::from_secs(1),
        "write -> found took {worst:?}"
    );

    if python_mcp_or_skip() {
        let m = brain_client(
            &lore,
            &[
                "http",
                &server.api("/mcp"),
                "--brain-dir",
                brain_dir(&lore).to_str().unwrap(),
            ],
            &[],
        );
        eprintln!("MCP over HTTP with the model: {m}");
        assert_eq!(m["query_mode"], "hybrid", "{m}");
        assert!(m["write_to_found_ms"].as_f64().unwrap() < 1000.0, "{m}");
    }
}

/// Browsing: the CLI and REST list every note, page and session log with their fields and
/// read one whole; names outside the brain are refused before any file is opened.
#[test]
fn brain_files_are_listed_and_read_by_cli_and_rest() {
    let lore = Lore::without_model();
    lore.ok(&[
        "brain",
        "write",
        "# Retry with backoff\n\nDouble the pause. <script>alert(1)</script>",
        "--filename",
        "net/retry",
        "--type",
        "insight",
        "--domain",
        "http",
    ]);
    lore.ok(&[
        "brain",
        "log",
        "s-1",
        "--phase",
        "plan",
        "--message",
        "started",
    ]);
    lore.ok(&[
        "brain",
        "log",
        "s-1",
        "--phase",
        "done",
        "--final-status",
        "ok",
    ]);
    write(
        &brain_dir(&lore),
        "wiki/concepts/fusion.md",
        "---\ntitle: Fusion\ntype: concept\nsources:\n  - a.md\nupdated: 2026-01-02T03:04:05Z\n---\nBM25 and vectors.\n",
    );
    std::fs::write(lore.root().join("secret.md"), "not the brain's").unwrap();

    let listing = lore.json(&["brain", "list"]);
    let files = listing["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().filter_map(|f| f["path"].as_str()).collect();
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        [
            "knowledge/net/retry.md",
            "sessions/s-1.jsonl",
            "wiki/concepts/fusion.md"
        ]
    );
    assert_eq!(paths.len(), 3, "{listing}");
    let note = files.iter().find(|f| f["area"] == "knowledge").unwrap();
    assert_eq!(note["title"], "Retry with backoff");
    assert_eq!(note["type"], "insight");
    assert_eq!(note["domain"], "http");
    assert_eq!(
        paths.last(),
        Some(&"wiki/concepts/fusion.md"),
        "oldest last"
    );

    let shown = lore.ok(&["brain", "show", "knowledge/net/retry.md"]);
    assert!(
        shown.starts_with("type: insight\ndomain: http\n"),
        "{shown}"
    );
    assert!(
        shown.contains("<script>alert(1)</script>"),
        "shown as written: {shown}"
    );
    let log = lore.json(&["brain", "show", "sessions/s-1.jsonl"]);
    assert_eq!(log["events"][0]["phase"], "plan", "{log}");
    assert_eq!(log["events"][1]["final_status"], "ok", "{log}");
    let err = lore.fails(&["brain", "show", "../secret.md"], 1);
    assert!(err.contains("knowledge/, wiki/ or sessions/"), "{err}");
    let err = lore.fails(&["brain", "show", "knowledge/../../secret.md"], 1);
    assert!(err.contains("`..`"), "{err}");
    let missing = lore.run(&["brain", "show", "knowledge/none.md"]);
    assert_ne!(missing.code, 0);
    assert!(
        missing.stderr.contains("lore brain list"),
        "{}",
        missing.stderr
    );

    let server = Server::no_watch(&lore, &[]);
    let a = agent();
    let get = |p: &str| common::serve::answer(a.get(&server.api(p)).call());
    let (status, rest) = get("/api/brain/files");
    assert_eq!(status, 200, "{rest}");
    assert_eq!(rest["files"], listing["files"]);
    let (status, page) = get("/api/brain/files/wiki/concepts/fusion.md");
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["title"], "Fusion");
    assert_eq!(page["sources"], json!(["a.md"]));
    assert_eq!(page["body"], "BM25 and vectors.\n");
    assert_eq!(page["frontmatter"][0], json!(["title", "Fusion"]));
    let (status, err) = get("/api/brain/files/knowledge/none.md");
    assert_eq!(status, 404, "{err}");
    let (status, err) = get("/api/brain/files/knowledge/..%2F..%2Fsecret.md");
    assert_eq!(status, 400, "{err}");
    assert!(!err.to_string().contains("not the brain's"), "{err}");
}
