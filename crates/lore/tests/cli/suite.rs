// The cli suite itself, included by `cli.rs` (the embedded catalog) and
// `cli_postgres.rs` (PostgreSQL), whose roots set `ON_POSTGRES` and `mod common`.

#[path = "bad_input.rs"]
mod bad_input;
#[path = "code.rs"]
mod code;
#[path = "db.rs"]
mod db;
#[path = "deps.rs"]
mod deps;
#[path = "endpoint.rs"]
mod endpoint;
#[path = "grep.rs"]
mod grep;
#[path = "crash.rs"]
mod crash;
#[path = "project.rs"]
mod project;
#[path = "reach.rs"]
mod reach;
#[path = "units.rs"]
mod units;
#[path = "web.rs"]
mod web;

use common::fixture::{DEBOUNCE_TS, EDIT_RS, GEO_GO, INVOICE_PY, README_MD};
use common::{Lore, assert_first, git, line_of, now_secs, paths, write};
use serde_json::Value;

fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// Checks the JSON of a hit for a unit that runs from the line holding `first` to the end
/// of `content`.
#[track_caller]
fn assert_unit(hit: &Value, path: &str, content: &str, first: &str, kind: &str, symbol: &str) {
    assert_eq!(hit["path"], path, "{hit:#}");
    assert_eq!(hit["store"], "proj", "{hit:#}");
    assert_eq!(hit["kind"], kind, "{hit:#}");
    assert_eq!(hit["symbol"], symbol, "{hit:#}");
    assert_eq!(
        hit["start_line"],
        line_of(content, first),
        "start_line of {path}: {hit:#}"
    );
    assert_eq!(
        hit["end_line"],
        content.lines().count() as u64,
        "end_line of {path}: {hit:#}"
    );
    let id = hit["id"].as_str().expect("id");
    assert!(
        id.len() == 16 && id.chars().all(|c| c.is_ascii_hexdigit()),
        "id {id:?}"
    );
    let score = hit["score"].as_f64().expect("score");
    assert!(score > 0.0 && score <= 1.0 + 1e-6, "score {score}");
    // Minimal detail: why it matched and what it costs, no code.
    assert!(
        hit["reason"].as_str().is_some_and(|s| !s.is_empty()),
        "{hit:#}"
    );
    assert!(
        hit["estimated_tokens"].as_u64().is_some_and(|t| t > 0),
        "{hit:#}"
    );
}

/// Checks an index report's added, changed and deleted counts.
#[track_caller]
fn assert_counts(r: &Value, [added, changed, deleted]: [u64; 3]) {
    let got = [&r["added"], &r["changed"], &r["deleted"]].map(|v| v.as_u64().expect("count"));
    assert_eq!(
        got,
        [added, changed, deleted],
        "added/changed/deleted: {r:#}"
    );
}

#[test]
fn folder_store_finds_the_right_file_in_every_mode() {
    let Some((lore, proj)) = Lore::with_project_or_skip() else {
        return;
    };
    let before = now_secs();

    let added = lore.json(&["store", "add", "proj", s(&proj)]);
    assert_eq!(added["store"]["name"], "proj");
    assert_eq!(added["store"]["kind"], "folder");
    let report = &added["report"];
    assert_eq!(report["files_seen"], 5, "{report:#}");
    assert_eq!(report["added"], 5, "{report:#}");
    assert_eq!(report["skipped"], serde_json::json!([]), "{report:#}");
    assert!(
        report["chunks_written"].as_u64().unwrap() >= 5,
        "{report:#}"
    );

    // BM25 on an identifier, with every JSON field checked.
    let resp = lore.search("levenshtein_distance", "fts", &[]);
    assert_eq!(resp["detail"], "minimal", "{resp:#}");
    assert_eq!(resp["intent"]["intent"], "find-definition", "{resp:#}");
    assert_eq!(resp["intent"]["inferred"], true, "{resp:#}");
    assert!(
        resp["estimated_tokens"].as_u64().is_some_and(|t| t > 0),
        "{resp:#}"
    );
    assert!(resp["results"][0].get("snippet").is_none(), "{resp:#}");
    assert_eq!(
        resp["results"][0]["summary"],
        "Computes the Levenshtein edit distance between two words: the fewest single-character insertions, deletions or substitutions that turn one into the other.",
        "{resp:#}"
    );
    let resp = lore.search("levenshtein_distance", "fts", &["--detail", "contextual"]);
    assert_first(&resp, "src/edit.rs");
    let hit = &resp["results"][0];
    assert_unit(
        hit,
        "src/edit.rs",
        EDIT_RS,
        "/// Computes the Levenshtein",
        "function",
        "levenshtein_distance",
    );
    assert_eq!(hit["language"], "rust");
    assert!(
        hit["signature"]
            .as_str()
            .is_some_and(|s| s.contains("fn levenshtein_distance(a: &str, b: &str) -> usize")),
        "{hit:#}"
    );
    assert!(
        hit["snippet"]
            .as_str()
            .unwrap()
            .contains("levenshtein_distance"),
        "{hit:#}"
    );
    assert_eq!(hit["signals"]["bm25_rank"], 1, "{hit:#}");
    assert!(hit["signals"]["bm25_score"].as_f64().unwrap() > 0.0);
    assert!(
        hit["signals"].get("vector_rank").is_none(),
        "fts used vectors: {hit:#}"
    );
    assert_eq!(resp["mode"], "fts");
    assert_eq!(resp["query"], "levenshtein_distance");
    assert!(
        resp["elapsed_ms"].as_f64().is_some_and(|ms| ms >= 0.0),
        "{resp:#}"
    );
    let stores = resp["stores"].as_array().unwrap();
    assert_eq!(stores.len(), 1, "{resp:#}");
    assert_eq!(stores[0]["store"], "proj");
    let indexed_at = stores[0]["indexed_at"].as_i64().expect("indexed_at");
    assert!(
        (before..=now_secs()).contains(&indexed_at),
        "indexed_at {indexed_at}"
    );
    assert_eq!(stores[0]["changed_files"], 0, "{resp:#}");

    let resp = lore.search("WEBHOOK_SIGNING_SECRET", "fts", &["--detail", "contextual"]);
    assert_first(&resp, "README.md");
    let hit = &resp["results"][0];
    assert_eq!(hit["kind"], "section", "{hit:#}");
    assert_eq!(hit["language"], "markdown", "{hit:#}");
    assert_eq!(
        hit["start_line"],
        line_of(README_MD, "## Configuring the webhook secret")
    );
    assert_eq!(hit["end_line"], README_MD.lines().count() as u64, "{hit:#}");
    assert!(
        hit["headings"]
            .as_array()
            .is_some_and(|h| h.iter().any(|h| h == "Configuring the webhook secret")),
        "{hit:#}"
    );
    assert!(
        hit["snippet"]
            .as_str()
            .unwrap()
            .contains("WEBHOOK_SIGNING_SECRET"),
        "{hit:#}"
    );

    // Vector and hybrid on descriptions in words.
    let cases: [(&str, &str, &str, &str, &str, &str); 4] = [
        (
            "distance between two GPS positions on the globe",
            "geo/geo.go",
            GEO_GO,
            "// HaversineKm returns",
            "function",
            "HaversineKm",
        ),
        (
            "sum the invoice line items and add sales tax",
            "billing/invoice.py",
            INVOICE_PY,
            "def parse_invoice_total",
            "function",
            "parse_invoice_total",
        ),
        (
            "wait until the user stops typing before sending a search request",
            "web/debounce.ts",
            DEBOUNCE_TS,
            "/**",
            "function",
            "debounceKeystrokes",
        ),
        (
            "minimum number of character edits to turn one word into another",
            "src/edit.rs",
            EDIT_RS,
            "/// Computes the Levenshtein",
            "function",
            "levenshtein_distance",
        ),
    ];
    for (query, path, content, first, kind, symbol) in cases {
        for mode in ["vector", "hybrid"] {
            let resp = lore.search(query, mode, &["--detail", "contextual"]);
            assert_eq!(resp["mode"], mode);
            assert_first(&resp, path);
            let hit = &resp["results"][0];
            assert_unit(hit, path, content, first, kind, symbol);
            let cos = hit["signals"]["vector_score"].as_f64();
            assert!(
                cos.is_some_and(|c| c > 0.0 && c <= 1.0 + 1e-6),
                "{mode}: {hit:#}"
            );
            if mode == "vector" {
                assert_eq!(hit["signals"]["vector_rank"], 1, "{hit:#}");
                assert!(hit["signals"].get("bm25_rank").is_none(), "{hit:#}");
            }
            assert_eq!(resp["stores"][0]["changed_files"], 0);
        }
    }

    // One result per file by default, and --limit caps the list.
    let resp = lore.search("function", "hybrid", &["--limit", "3"]);
    let got = paths(&resp);
    assert!(got.len() <= 3, "{got:?}");
    let mut dedup = got.clone();
    dedup.sort();
    dedup.dedup();
    assert_eq!(dedup.len(), got.len(), "a file appears twice: {got:?}");

    // Text output names store:path:lines and reports timing on stderr.
    let out = lore.run(&["search", "levenshtein_distance", "--mode", "fts"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("proj:src/edit.rs:"), "{}", out.stdout);
    assert!(out.stderr.contains("results in"), "{}", out.stderr);
}

#[test]
fn incremental_index_picks_up_changes_and_deletions() {
    let Some((lore, proj)) = Lore::with_project_or_skip() else {
        return;
    };
    lore.json(&["store", "add", "proj", s(&proj)]);

    // Change one file, delete another, add a third.
    let edited = format!(
        "{EDIT_RS}\n/// Converts a temperature from degrees Fahrenheit to degrees Celsius.\n\
         pub fn fahrenheit_to_celsius(f: f64) -> f64 {{\n    (f - 32.0) * 5.0 / 9.0\n}}\n"
    );
    write(&proj, "src/edit.rs", &edited);
    std::fs::remove_file(proj.join("geo/geo.go")).unwrap();
    write(
        &proj,
        "ops/backup.py",
        "def rotate_nightly_backups(folder, keep_days=7):\n    \
         \"\"\"Delete backup archives older than a week from the folder.\"\"\"\n    \
         return [p for p in folder.iterdir() if p.stat().st_mtime > keep_days]\n",
    );

    let resp = lore.search("levenshtein_distance", "fts", &[]);
    assert_eq!(
        resp["stores"][0]["changed_files"], 3,
        "{:#}",
        resp["stores"]
    );

    let reports = lore.json(&["index"]);
    let r = &reports[0];
    assert_eq!(reports.as_array().unwrap().len(), 1, "{reports:#}");
    assert_eq!(r["store"], "proj");
    assert_eq!(r["files_seen"], 5, "{r:#}");
    assert_eq!(r["added"], 1, "{r:#}");
    assert_eq!(r["changed"], 1, "{r:#}");
    assert_eq!(r["deleted"], 1, "{r:#}");
    assert_eq!(r["unchanged"], 3, "{r:#}");
    // Only the new and edited files' new chunks went through the model.
    let embedded = r["embedded"].as_u64().unwrap();
    assert!(
        embedded > 0 && embedded <= r["chunks_written"].as_u64().unwrap(),
        "{r:#}"
    );

    let resp = lore.search("fahrenheit_to_celsius", "fts", &[]);
    assert_first(&resp, "src/edit.rs");
    let hit = &resp["results"][0];
    assert_eq!(hit["symbol"], "fahrenheit_to_celsius", "{hit:#}");
    assert_eq!(
        hit["start_line"],
        line_of(&edited, "/// Converts a temperature")
    );
    assert_eq!(hit["end_line"], edited.lines().count() as u64);
    assert_eq!(resp["stores"][0]["changed_files"], 0);
    assert_first(
        &lore.search(
            "convert a temperature from fahrenheit into celsius",
            "hybrid",
            &[],
        ),
        "src/edit.rs",
    );
    assert_first(
        &lore.search("rotate_nightly_backups", "fts", &[]),
        "ops/backup.py",
    );
    assert_first(
        &lore.search("remove old backup archives", "vector", &[]),
        "ops/backup.py",
    );
    // The old content of the changed file is still found, the deleted file is gone.
    assert_first(
        &lore.search("levenshtein_distance", "fts", &[]),
        "src/edit.rs",
    );
    for mode in ["fts", "vector", "hybrid"] {
        let resp = lore.search(
            "HaversineKm great-circle distance latitude longitude",
            mode,
            &[],
        );
        assert!(
            !paths(&resp).contains(&"geo/geo.go".to_string()),
            "{mode}: deleted file still found: {:?}",
            paths(&resp)
        );
    }

    // Nothing to do the second time.
    let r = &lore.json(&["index"])[0];
    assert_counts(r, [0, 0, 0]);
    assert_eq!(r["unchanged"], 5, "{r:#}");
    assert_eq!(r["chunks_written"], 0, "{r:#}");

    // Same bytes, new mtime: seen as stale, then re-stamped without re-chunking.
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(&proj, "README.md", README_MD);
    let resp = lore.search("WEBHOOK_SIGNING_SECRET", "fts", &[]);
    assert_eq!(
        resp["stores"][0]["changed_files"], 1,
        "{:#}",
        resp["stores"]
    );
    let r = &lore.json(&["index", "proj"])[0];
    assert_counts(r, [0, 0, 0]);
    assert_eq!(r["chunks_written"], 0, "{r:#}");
    assert_eq!(r["unchanged"], 5, "{r:#}");
    let resp = lore.search("WEBHOOK_SIGNING_SECRET", "fts", &[]);
    assert_eq!(
        resp["stores"][0]["changed_files"], 0,
        "{:#}",
        resp["stores"]
    );

    // --full re-indexes every file.
    let info = lore.json(&["store", "info", "proj"]);
    let r = &lore.json(&["index", "--full"])[0];
    assert_eq!(r["files_seen"], 5, "{r:#}");
    assert_eq!(
        r["reanalyzed"], 5,
        "--full did not re-read every file: {r:#}"
    );
    assert_eq!(r["chunks_written"], info["chunks"], "{r:#} vs {info:#}");
    // … but embeds nothing again: every chunk's content already had its vector.
    assert_eq!(r["embedded"], 0, "{r:#}");
    let after = lore.json(&["store", "info", "proj"]);
    assert_eq!(after["files"], 5, "{after:#}");
    assert_eq!(after["chunks"], info["chunks"], "{after:#}");
    assert_eq!(after["embedded"], after["chunks"], "{after:#}");
    assert_first(
        &lore.search("fahrenheit_to_celsius", "hybrid", &[]),
        "src/edit.rs",
    );
    assert_first(
        &lore.search("rotate_nightly_backups", "fts", &[]),
        "ops/backup.py",
    );
}

#[test]
fn repo_store_clones_and_syncs() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let origin = lore.path("origin");
    write(&origin, "src/edit.rs", EDIT_RS);
    write(&origin, "README.md", README_MD);
    git(&origin, &["init", "-q", "-b", "main"]);
    git(&origin, &["add", "."]);
    git(&origin, &["commit", "-q", "-m", "first"]);

    let added = lore.json(&["store", "add", "r", s(&origin), "--type", "repo"]);
    assert_eq!(added["store"]["kind"], "repo", "{added:#}");
    assert_eq!(added["report"]["added"], 2, "{added:#}");
    let root = added["store"]["root"].as_str().unwrap().to_string();
    assert!(
        root.starts_with(s(&lore.data())),
        "clone outside the data dir: {root}"
    );
    assert_first(
        &lore.search("levenshtein_distance", "fts", &["--stores", "r"]),
        "src/edit.rs",
    );
    assert_first(
        &lore.search("webhook signing secret for HMAC", "hybrid", &[]),
        "README.md",
    );

    // A new commit upstream is invisible until `lore sync`.
    write(
        &origin,
        "queue/drain.go",
        "package queue\n\n// DrainPriorityQueue pops every job in priority order and runs it.\n\
         func DrainPriorityQueue(q *Queue) {\n\tfor q.Len() > 0 {\n\t\tq.Pop().Run()\n\t}\n}\n",
    );
    git(&origin, &["add", "."]);
    git(&origin, &["commit", "-q", "-m", "second"]);
    let resp = lore.search("DrainPriorityQueue", "fts", &[]);
    assert!(paths(&resp).is_empty(), "found before sync: {resp:#}");

    let reports = lore.json(&["sync", "r"]);
    let r = &reports[0];
    assert_counts(r, [1, 0, 0]);
    assert_first(
        &lore.search("DrainPriorityQueue", "fts", &[]),
        "queue/drain.go",
    );
    assert_first(
        &lore.search("run all jobs by priority", "vector", &[]),
        "queue/drain.go",
    );

    // An unreachable repo fails cleanly and leaves no store behind.
    let repos_before = std::fs::read_dir(lore.data().join("repos"))
        .unwrap()
        .count();
    let err = lore.fails(
        &[
            "store",
            "add",
            "bad",
            "file:///nonexistent/x.git",
            "--type",
            "repo",
        ],
        1,
    );
    assert!(err.contains("git clone failed"), "{err}");
    let names: Vec<Value> = lore
        .json(&["store", "list"])
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].clone())
        .collect();
    assert_eq!(names, ["r"]);
    assert_eq!(
        std::fs::read_dir(lore.data().join("repos"))
            .unwrap()
            .count(),
        repos_before,
        "a failed clone left files in repos/"
    );

    // Removing a repo store deletes its clone, not the origin.
    lore.json(&["store", "remove", "r"]);
    assert!(
        !std::path::Path::new(&root).exists(),
        "clone {root} survived removal"
    );
    assert!(origin.join(".git").is_dir() && origin.join("queue/drain.go").is_file());
}

#[test]
fn store_remove_deletes_the_index_not_the_source() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let proj = lore.path("proj");
    write(
        &proj,
        "notes.md",
        "# Notes\n\nThe quarterly zebra census happens in March.\n",
    );
    lore.json(&["store", "add", "proj", s(&proj)]);
    assert_eq!(lore.json(&["store", "list"]).as_array().unwrap().len(), 1);
    let store_dir = lore.store_dir("proj");
    // On PostgreSQL a folder store keeps nothing in the data dir.
    assert!(store_dir.is_dir() || common::on_postgres());

    let removed = lore.json(&["store", "remove", "proj"]);
    assert_eq!(removed["removed"], "proj");
    assert_eq!(lore.json(&["store", "list"]), serde_json::json!([]));
    assert!(
        !store_dir.exists(),
        "{} survived removal",
        store_dir.display()
    );
    assert_eq!(
        std::fs::read_to_string(proj.join("notes.md")).unwrap(),
        "# Notes\n\nThe quarterly zebra census happens in March.\n"
    );
    let err = lore.fails(&["search", "zebra", "--mode", "fts"], 1);
    assert!(err.contains("lore store add"), "{err}");
    lore.fails(&["store", "info", "proj"], 2);
    // The name is free again.
    lore.json(&["store", "add", "proj", s(&proj)]);
    assert_first(&lore.search("zebra census", "fts", &[]), "notes.md");
}

#[test]
fn context_returns_the_whole_unit_across_processes_until_it_changes() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let proj = lore.path("ctx");
    let source = "use std::fmt;\n\n/// Sums the pelican weights.\npub fn sum_pelican_weights(w: &[u32]) -> u32 {\n    w.iter().sum()\n}\n\npub fn other() {}\n";
    write(&proj, "lib.rs", source);
    lore.json(&["store", "add", "ctx", s(&proj)]);
    let resp = lore.search("sum_pelican_weights", "fts", &[]);
    let id = resp["results"][0]["id"].as_str().unwrap().to_string();

    // A new process reads the unit from the index.
    let c = lore.json(&["context", &id]);
    assert_eq!(c["path"], "lib.rs");
    assert_eq!(c["symbol"], "sum_pelican_weights");
    assert_eq!(c["start_line"], 3);
    assert_eq!(c["end_line"], 6);
    assert_eq!(c["doc"], "Sums the pelican weights.");
    assert!(c["content"].as_str().unwrap().contains("w.iter().sum()"));
    let outline: Vec<&str> = c["outline"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o["symbol"].as_str())
        .collect();
    assert!(outline.contains(&"other"), "{c:#}");

    // After the unit changes and is re-indexed, the old id is stale.
    write(
        &proj,
        "lib.rs",
        source.replace("w.iter().sum()", "w.iter().copied().sum()"),
    );
    // Issue 29, item 10: before re-indexing, every answer showing the file says it changed,
    // in its JSON (the same words in each).
    let changed = "ctx: lib.rs changed since indexing";
    let said = |v: &serde_json::Value| {
        v["warnings"]
            .as_array()
            .is_some_and(|w| w.iter().any(|w| w.as_str().is_some_and(|w| w.contains(changed))))
    };
    let found = lore.search("sum_pelican_weights", "fts", &[]);
    assert!(said(&found), "{found:#}");
    let unit = lore.json(&["context", &id]);
    assert!(said(&unit), "{unit:#}");
    let def = lore.json(&["graph", "definition", "sum_pelican_weights"]);
    assert!(said(&def), "{def:#}");
    let out = lore.run(&["context", &id]);
    assert!(out.stderr.contains(changed), "{}", out.stderr);
    assert!(out.stderr.contains("run `lore index ctx`"), "{}", out.stderr);
    // While a run indexes the store, the warning says so instead of asking for another run.
    let catalog = match lore.database() {
        Some(url) => lore_index::Catalog::connect(url, &lore_index::PgOptions::default()),
        None => lore_index::Catalog::open(&lore.data().join("lore.db")),
    }
    .unwrap();
    let store = catalog.store("ctx").unwrap().unwrap();
    let other = "another-machine:4242";
    assert!(
        catalog
            .take_store_lease(store.id, lore_index::Lease::Index, other, 60)
            .unwrap()
            .is_none()
    );
    let found = lore.search("sum_pelican_weights", "fts", &[]);
    let warning = found["warnings"].to_string();
    assert!(warning.contains(changed), "{found:#}");
    assert!(warning.contains(&format!("indexing the store now ({other})")), "{found:#}");
    assert!(warning.contains("a run is indexing it now"), "{found:#}");
    assert!(!warning.contains("run `lore index"), "{found:#}");
    assert_eq!(found["stores"][0]["indexing"], other, "{found:#}");
    catalog
        .release_store_lease(store.id, lore_index::Lease::Index, other)
        .unwrap();
    lore.json(&["index"]);
    let fresh = lore.search("sum_pelican_weights", "fts", &[]);
    let unit = lore.json(&["context", fresh["results"][0]["id"].as_str().unwrap()]);
    assert!(unit.get("warnings").is_none(), "{unit:#}");
    let err = lore.fails(&["context", &id], 2);
    assert!(err.contains("search again"), "{err}");
    // Issue 29, item 10: an id that never existed is not blamed on a changed index.
    let err = lore.fails(&["context", "0123456789abcdef"], 2);
    assert!(err.contains("no result with id 0123456789abcdef"), "{err}");
    assert!(!err.contains("changed since"), "{err}");
    let err = lore.fails(&["context", "not-an-id"], 1);
    assert!(err.contains("not a result id"), "{err}");
}

#[test]
fn a_shared_brain_keeps_both_sides_of_a_conflict_and_doctor_says_so() {
    if !ON_POSTGRES {
        return;
    }
    let a = Lore::without_model();
    if a.database().is_none() {
        return;
    }
    let b = a.replica();
    let (dir_a, dir_b) = (a.data().join("brain"), b.data().join("brain"));
    let kiwi = "knowledge/kiwi.md";
    a.json(&["brain", "write", "# Kiwi\n\nKiwis are flightless.", "--filename", "kiwi"]);
    // B's dir is behind the shared brain until it syncs: doctor says so, and the repair
    // it names brings the note over.
    let doctor = b.run(&["doctor", "brain"]);
    assert_eq!(doctor.code, 1, "{doctor:?}");
    assert!(doctor.stdout.contains("1 of the 1 shared notes"), "{doctor:?}");
    b.ok(&["index", "brain"]);
    assert!(std::fs::read_to_string(dir_b.join(kiwi)).unwrap().contains("flightless"));
    b.ok(&["doctor", "brain"]);

    // The same note edited by hand on both machines: the first shared wins, the other
    // machine keeps its edit beside it, unindexed, and doctor points at it.
    write(&dir_a, kiwi, "# Kiwi\n\nKiwis are nocturnal.\n");
    write(&dir_b, kiwi, "# Kiwi\n\nKiwis have long beaks.\n");
    a.ok(&["index", "brain"]);
    b.ok(&["index", "brain"]);
    assert!(std::fs::read_to_string(dir_b.join(kiwi)).unwrap().contains("nocturnal"));
    let aside = format!("{kiwi}.conflict-");
    let copies: Vec<String> = common::files_under(&dir_b)
        .into_iter()
        .filter(|f| f.starts_with(&aside))
        .collect();
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert!(std::fs::read_to_string(dir_b.join(&copies[0])).unwrap().contains("long beaks"));
    let doctor = b.ok(&["doctor", "brain"]);
    assert!(doctor.contains(&copies[0]), "{doctor}");
    for lore in [&a, &b] {
        let q = lore.json(&["brain", "query", "nocturnal", "--mode", "fts"]);
        assert_eq!(q["results"][0]["path"], kiwi, "{q}");
        let q = lore.json(&["brain", "query", "beaks", "--mode", "fts"]);
        assert_eq!(q["results"].as_array().map(Vec::len), Some(0), "{q}");
    }
    assert!(!common::files_under(&dir_a).iter().any(|f| f.contains(".conflict-")));
}

#[test]
fn workers_index_a_store_and_a_killed_workers_batch_is_finished_by_another() {
    if !ON_POSTGRES {
        return;
    }
    let coordinator = Lore::without_model();
    let Some(url) = coordinator.database().map(String::from) else {
        return;
    };
    // 130 files, one function each, unique words per file: three batches of at most 50.
    let proj = coordinator.path("proj");
    for i in 0..130 {
        write(
            &proj,
            &format!("src/m{i}.rs"),
            format!("/// Handles widget{i} frobnication.\npub fn widget{i}() -> u32 {{ {i} }}\n"),
        );
    }
    // A slow model: a batch's embedding takes seconds, long enough to kill its worker.
    let server = common::embeddings::FakeEmbeddings::start_slow(std::time::Duration::from_millis(1500));
    let with_model = |lore: &Lore, args: &[&str]| {
        let mut c = lore.command(args);
        c.env("LORE_EMBED_URL", server.url())
            .env("LORE_EMBED_MODEL", common::embeddings::MODEL)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        common::Spawned(c.spawn().expect("spawn lore"))
    };
    let (first, second) = (coordinator.replica(), coordinator.replica());
    coordinator.ok(&["db", "migrate"]);
    let mut doomed = with_model(&first, &["worker", "--lease", "2"]);
    let add = with_model(
        &coordinator,
        &["--workers", "only", "--json", "store", "add", "code", proj.to_str().unwrap()],
    );
    // Once the doomed worker holds a batch, kill -9 it mid-batch.
    let db = lore_index::Sql::postgres(&url, &lore_index::PgOptions::default()).unwrap();
    let pid = doomed.0.id().to_string();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let held = db
            .query(
                "SELECT holder FROM index_batches WHERE state = 'claimed'",
                &[],
                |r| r.text(0),
            )
            .unwrap();
        if held.iter().any(|h| h.contains(&format!(":{pid}:"))) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no batch claimed: {held:?}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    doomed.0.kill().unwrap();
    doomed.0.wait().unwrap();
    let _helper = with_model(&second, &["worker", "--lease", "2"]);
    // The killed worker's batch is claimed again once its lease ran out.
    loop {
        let again = db
            .query_int("SELECT COUNT(*) FROM index_batches WHERE attempts > 1", &[])
            .unwrap();
        if again > 0 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the killed worker's batch stayed its");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }

    let mut add = add;
    let status = common::wait_timeout(&mut add.0, std::time::Duration::from_secs(120)).expect("add finished");
    let mut out = String::new();
    std::io::Read::read_to_string(add.0.stdout.as_mut().unwrap(), &mut out).unwrap();
    assert!(status.success(), "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["report"]["added"], 130, "{report}");
    assert_eq!(report["report"]["chunks_written"], 130, "{report}");
    // The counts of a clean run: every file once, every chunk embedded, no batch left.
    let store = &coordinator.json(&["store", "list"])[0];
    assert_eq!((store["files"].as_u64(), store["chunks"].as_u64()), (Some(130), Some(130)), "{store}");
    let left = db
        .query_int("SELECT COUNT(*) FROM chunks WHERE embedding IS NULL", &[])
        .unwrap();
    assert_eq!(left, 0);
    assert_eq!(db.query_int("SELECT COUNT(*) FROM index_batches", &[]).unwrap(), 0);
    // Found by keyword on any replica.
    let hit = first.search("widget77 frobnication", "fts", &["--limit", "1"]);
    common::assert_first(&hit, "src/m77.rs");
}

#[test]
fn a_batch_no_worker_can_index_ends_the_run_with_the_reason() {
    if !ON_POSTGRES {
        return;
    }
    let coordinator = Lore::without_model();
    if coordinator.database().is_none() {
        return;
    }
    let proj = coordinator.path("proj");
    write(&proj, "src/a.rs", "pub fn alpha() -> u32 { 1 }\n");
    let server = common::embeddings::FakeEmbeddings::start();
    // The worker embeds with another model than the store is recorded with: each claim
    // fails, and the third ends the run.
    let worker = coordinator.replica();
    let mut c = worker.command(&["worker"]);
    c.env("LORE_EMBED_URL", server.url())
        .env("LORE_EMBED_MODEL", "another-model")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let _worker = common::Spawned(c.spawn().expect("spawn lore"));
    let out = coordinator
        .command(&["--workers", "only", "store", "add", "code", proj.to_str().unwrap()])
        .env("LORE_EMBED_URL", server.url())
        .env("LORE_EMBED_MODEL", common::embeddings::MODEL)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("failed 3 times") && err.contains("another-model"), "{err}");
}

#[test]
fn a_worker_on_another_machine_indexes_a_repository_from_its_own_clone() {
    if !ON_POSTGRES {
        return;
    }
    let coordinator = Lore::without_model();
    let Some(url) = coordinator.database().map(String::from) else {
        return;
    };
    let origin = coordinator.path("origin");
    write(&origin, "src/edit.rs", EDIT_RS);
    git(&origin, &["init", "-q", "-b", "main"]);
    git(&origin, &["add", "."]);
    git(&origin, &["commit", "-q", "-m", "first"]);
    coordinator.ok(&[
        "store", "add", "r", origin.to_str().unwrap(), "--type", "repo", "--embed", "none",
    ]);
    // The store's clone is on machine-a: a worker on another machine fetches the
    // repository into a clone of its own, at the commit the run indexes.
    let db = lore_index::Sql::postgres(&url, &lore_index::PgOptions::default()).unwrap();
    db.execute("UPDATE stores SET host = 'machine-a' WHERE name = 'r'", &[])
        .unwrap();
    write(
        &origin,
        "queue/drain.go",
        "package queue\n\n// DrainPriorityQueue pops every job in priority order.\n\
         func DrainPriorityQueue(q *Queue) {\n\tfor q.Len() > 0 {\n\t\tq.Pop().Run()\n\t}\n}\n",
    );
    git(&origin, &["add", "."]);
    git(&origin, &["commit", "-q", "-m", "second"]);
    let worker = coordinator.replica();
    let _worker = worker.spawn(&["worker"]);
    let reports = coordinator.json(&["--workers", "only", "sync", "r"]);
    assert_counts(&reports[0], [1, 0, 0]);
    let clones: Vec<_> = std::fs::read_dir(worker.data().join("repos"))
        .expect("the worker's clone")
        .collect();
    assert_eq!(clones.len(), 1);
    assert_first(&worker.search("DrainPriorityQueue", "fts", &[]), "queue/drain.go");
}

/// Issue 55, item 2: a worker on another machine whose copy of a store's folder is empty
/// (a share not mounted there) gives the batch back instead of finishing the run with no
/// files; a worker that sees the files then does it.
#[test]
fn a_worker_that_cannot_see_the_files_gives_the_batch_back() {
    if !ON_POSTGRES {
        return;
    }
    let coordinator = Lore::without_model();
    let Some(url) = coordinator.database().map(String::from) else {
        return;
    };
    let share = coordinator.path("share");
    write(&share, "src/edit.rs", EDIT_RS);
    write(&share, "src/more.rs", "pub fn tally_widgets() -> u32 { 7 }\n");
    coordinator.ok(&["store", "add", "f", share.to_str().unwrap(), "--embed", "none"]);
    // The store was added on machine-a; the workers here are another machine.
    let db = lore_index::Sql::postgres(&url, &lore_index::PgOptions::default()).unwrap();
    db.execute("UPDATE stores SET host = 'machine-a' WHERE name = 'f'", &[])
        .unwrap();
    let mut run = coordinator.spawn(&["--workers", "only", "index", "f", "--full"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while db.query_int("SELECT count(*) FROM index_batches", &[]).unwrap() == 0 {
        assert!(std::time::Instant::now() < deadline, "no batch was enqueued");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // The share unmounted here: an empty folder where the files were.
    let away = coordinator.path("share-away");
    std::fs::rename(&share, &away).unwrap();
    std::fs::create_dir_all(&share).unwrap();
    let unmounted = coordinator.replica();
    let out = unmounted.run(&["--json", "worker", "--until-idle"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["files"], 0, "{out:?}");
    // Its log says what it did: claimed the batch, gave it back and why, stopped.
    for line in ["worker started", "claimed batch", "gave back batch", "(a share not mounted here?)", "worker stopping"] {
        assert!(out.stderr.contains(line), "no {line:?} in the worker's log:\n{}", out.stderr);
    }
    assert!(
        db.query_int("SELECT count(*) FROM index_batches", &[]).unwrap() > 0,
        "the batch was taken as done with no files"
    );
    // Mounted again: another worker does it, and the run ends with the files.
    std::fs::remove_dir(&share).unwrap();
    std::fs::rename(&away, &share).unwrap();
    let mounted = coordinator.replica();
    let mut cmd = mounted.command(&["--json", "worker", "--until-idle"]);
    cmd.env("LORE_LOG_FORMAT", "json");
    let out = common::run_command(&mut cmd, std::time::Duration::from_secs(120));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["files"], 2, "{out:?}");
    // JSON log lines when asked: one object per event, with the batch's numbers.
    let events: Vec<serde_json::Value> = out
        .stderr
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let finished = events
        .iter()
        .find(|e| e["message"].as_str().is_some_and(|m| m.starts_with("finished batch")))
        .unwrap_or_else(|| panic!("no finished batch in {}", out.stderr));
    assert_eq!(finished["files"], 2, "{finished}");
    assert_eq!(finished["level"], "INFO", "{finished}");
    let status = common::wait_timeout(&mut run.0, std::time::Duration::from_secs(60));
    assert!(status.is_some_and(|s| s.success()), "the run did not end well");
    assert_first(&coordinator.search("tally_widgets", "fts", &[]), "src/more.rs");
}


/// Issue 55, item 5: the CLI on a data dir that has not synced the shared brain yet answers
/// from the shared brain (it brings its copy up to date first), not from an empty folder.
#[test]
fn a_fresh_data_dir_reads_the_shared_brain() {
    if !ON_POSTGRES {
        return;
    }
    let first = Lore::without_model();
    if first.database().is_none() {
        return;
    }
    first.ok(&["brain", "write", "Echidnas lay eggs.", "--filename", "echidna"]);
    let second = first.replica();
    let listed = second.json(&["brain", "list"]).to_string();
    assert!(listed.contains("knowledge/echidna.md"), "{listed}");
    let shown = second.json(&["brain", "show", "knowledge/echidna.md"]).to_string();
    assert!(shown.contains("Echidnas lay eggs."), "{shown}");
}
