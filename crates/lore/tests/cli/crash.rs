//! A writer killed with SIGKILL mid-index leaves a usable data dir, and a second writer is
//! refused while one runs.

use crate::common::{self, Lore, assert_first, write};
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

const FILES: usize = 400;

/// A token unique to file `i` that the tokenizer keeps whole (letters only, no stem suffix).
fn token(i: usize) -> String {
    let l = |n: usize| (b'a' + (n % 26) as u8) as char;
    format!("zz{}{}{}q", l(i / 676), l(i / 26), l(i))
}

fn write_corpus(dir: &Path) {
    for i in 0..FILES {
        write(
            dir,
            &format!("src/m{i:03}.rs"),
            format!(
                "/// Settles ledger entries of kind {t} for account group {i} and returns the\n\
                 /// running balance after fees, rounding half-cents towards the customer.\n\
                 pub fn settle_{t}(balance: i64, fee: i64) -> i64 {{\n    \
                 let net = balance - fee * {i};\n    if net < 0 {{ 0 }} else {{ net }}\n}}\n",
                t = token(i)
            ),
        );
    }
}

/// Waits until the store's BM25 folder exists (indexing has started), the child exits, or
/// `timeout` passes. True if indexing started while the child was still running.
fn wait_for_indexing(lore: &Lore, child: &mut Child, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        let started = std::fs::read_dir(lore.data().join("stores"))
            .map(|mut d| d.any(|e| e.is_ok_and(|e| e.path().join("fts").is_dir())))
            .unwrap_or(false);
        if started {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Waits until `child` holds the writer lock (its pid is in `writer.lock`).
fn wait_for_lock(lore: &Lore, child: &mut Child, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    let pid = child.id().to_string();
    while Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if std::fs::read_to_string(lore.data().join("writer.lock")).is_ok_and(|s| s.trim() == pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Waits until the file at `path` no longer holds `before` (or the child exits).
fn wait_for_change(path: &Path, before: &[u8], child: &mut Child, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if std::fs::read(path).is_ok_and(|now| now != before) {
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    false
}

/// Kills `child` with SIGKILL; false if it had already exited.
fn kill(child: &mut Child) -> bool {
    let running = child.try_wait().unwrap().is_none();
    if running {
        child.kill().unwrap();
    }
    child.wait().unwrap();
    running
}

fn check_complete(lore: &Lore) {
    let info = lore.json(&["store", "info", "big"]);
    assert_eq!(info["files"], FILES, "{info:#}");
    assert!(info["chunks"].as_u64().unwrap() >= FILES as u64, "{info:#}");
    assert_eq!(info["embedded"], info["chunks"], "{info:#}");
    assert!(info["indexed_at"].is_i64(), "{info:#}");
    for i in [0, 123, 399] {
        let resp = lore.search(&token(i), "fts", &[]);
        assert_first(&resp, &format!("src/m{i:03}.rs"));
        assert_eq!(
            resp["stores"][0]["changed_files"], 0,
            "{:#}",
            resp["stores"]
        );
    }
    assert_first(
        &lore.search(&format!("settle {}", token(42)), "hybrid", &[]),
        "src/m042.rs",
    );
}

#[test]
fn killed_indexer_leaves_a_recoverable_store_and_writers_are_exclusive() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let dir = lore.path("big");
    write_corpus(&dir);

    // 1. SIGKILL a `store add` a few seconds into indexing.
    let t0 = Instant::now();
    let mut child = lore.spawn(&["store", "add", "big", dir.to_str().unwrap()]);
    let started = wait_for_indexing(&lore, &mut child.0, Duration::from_secs(120));
    if started {
        std::thread::sleep(Duration::from_millis(3000));
    }
    let killed = kill(&mut child.0);
    eprintln!(
        "store add: {} after {:.1}s",
        if killed {
            "killed"
        } else {
            "had already finished"
        },
        t0.elapsed().as_secs_f64()
    );
    let stores = lore.json(&["store", "list"]);
    if stores.as_array().unwrap().is_empty() {
        // Killed before the store was created (indexing never started): add it now.
        assert!(!started);
        lore.json(&["store", "add", "big", dir.to_str().unwrap()]);
    } else {
        let info = lore.json(&["store", "info", "big"]);
        eprintln!(
            "after kill: {} files, {} chunks",
            info["files"], info["chunks"]
        );
        // Reading works on whatever was committed.
        let out = lore.run(&["--json", "search", &token(5), "--mode", "fts"]);
        assert_eq!(out.code, 0, "search after kill: {out:?}");
        assert!(out.json()["results"].is_array());
        let r = &lore.json(&["index"])[0];
        assert_eq!(r["files_seen"], FILES, "{r:#}");
        assert_eq!(r["deleted"], 0, "{r:#}");
    }
    check_complete(&lore);

    // 2. A second writer is refused while one runs.
    let meta = lore.store_dir("big").join("fts/meta.json");
    let meta_before = std::fs::read(&meta).unwrap();
    let mut full = lore.spawn(&["index", "--full"]);
    if wait_for_lock(&lore, &mut full.0, Duration::from_secs(120)) {
        let out = lore.run(&["index"]);
        let still_running = full.0.try_wait().unwrap().is_none();
        if out.code == 0 && !still_running {
            eprintln!("skipping lock check: `index --full` finished before the second writer ran");
        } else {
            assert_eq!(out.code, 1, "second writer: {out:?}");
            let err = common::one_error_line(&out.stderr, &["index"]);
            assert!(err.contains("another lore process"), "{err}");
            assert!(err.contains(&format!("pid {}", full.0.id())), "{err}");
        }
        // Reads are not blocked by the writer.
        let out = lore.run(&["search", &token(7), "--mode", "fts"]);
        assert_eq!(out.code, 0, "search during index: {out:?}");
    } else {
        eprintln!("skipping lock check: `index --full` finished before it was observed");
    }

    // 3. Kill the full rebuild too (at whatever point it has reached); an incremental
    //    run then finds everything intact.
    let killed = kill(&mut full.0);
    let bm25_committed = std::fs::read(&meta).unwrap() != meta_before;
    eprintln!(
        "index --full: {} (a batch was committed: {bm25_committed})",
        if killed { "killed" } else { "had finished" }
    );
    let args: &[&str] = &["index"];
    let r = &lore.json(args)[0];
    assert_eq!(r["files_seen"], FILES, "{r:#}");
    check_complete(&lore);
    eprintln!("crash test took {:.1}s", t0.elapsed().as_secs_f64());
}

#[test]
fn killed_full_rebuild_is_completed_by_the_next_index() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let dir = lore.path("big");
    write_corpus(&dir);
    lore.json(&["store", "add", "big", dir.to_str().unwrap()]);
    check_complete(&lore);

    // Kill `index --full` right after its first BM25 commit (meta.json rewritten), before
    // the catalog transaction of that batch lands: BM25 then holds only batch 1 (the rest
    // was deleted by `delete_all`), while the catalog still lists all 400 files unchanged.
    let meta = lore.store_dir("big").join("fts/meta.json");
    let before = std::fs::read(&meta).unwrap();
    let mut full = lore.spawn(&["index", "--full"]);
    let committed = wait_for_change(&meta, &before, &mut full.0, Duration::from_secs(120));
    assert!(
        kill(&mut full.0) && committed,
        "missed the window between the two commits"
    );
    let info = lore.json(&["store", "info", "big"]);
    eprintln!("catalog after kill: {} files", info["files"]);

    // The recovery a user would run: an incremental index, which must make BM25 whole again.
    lore.json(&["index"]);
    check_complete(&lore); // fails: src/m399.rs (second batch) is no longer in BM25
}

#[test]
fn a_killed_full_rebuild_keeps_the_old_index_searchable() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let dir = lore.path("big");
    write_corpus(&dir);
    lore.json(&["store", "add", "big", dir.to_str().unwrap()]);
    let before = lore.json(&["store", "info", "big"]);

    // Kill `index --full` right after its first catalog commit (the first frames in the
    // WAL beyond its 32-byte header): the last index must stay whole and searchable (it
    // used to commit "forget every file" first).
    let wal = lore.data().join("lore.db-wal");
    let wal_before = std::fs::read(&wal).unwrap_or_default();
    let mut full = lore.spawn(&["index", "--full"]);
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut committed = false;
    while !committed && Instant::now() < deadline && full.0.try_wait().unwrap().is_none() {
        committed = std::fs::read(&wal).is_ok_and(|w| w.len() > 32 && w != wal_before);
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(
        kill(&mut full.0) && committed,
        "`index --full` ended before it could be killed"
    );
    let info = lore.json(&["store", "info", "big"]);
    assert_eq!(info["files"], before["files"], "{info:#}");
    assert_eq!(info["chunks"], before["chunks"], "{info:#}");
    assert_first(&lore.search(&token(321), "fts", &[]), "src/m321.rs");

    // Recovery embeds nothing: every chunk still has its vector.
    let r = &lore.json(&["index"])[0];
    assert_eq!(r["embedded"], 0, "{r:#}");
    check_complete(&lore);
}
