//! The crash matrix: writers killed with SIGKILL at several points of `store add`, `index`,
//! `index --full`, a web store's `sync`, a server's index job and `brain ingest-raw`. After
//! each kill the store opens, `lore doctor` says healthy or names the repair (which then
//! makes it healthy), the command run again completes with the counts of a clean run, and
//! nothing outside the data dir changed. Kill points are observed on disk (a BM25 commit's
//! generation, WAL frames, a folder appearing, requests to the test site), never timed.
//! The matrix is printed as a table (`--nocapture`).

use crate::common::serve::{Server, get, post, wait_job};
use crate::common::site::Site;
use crate::common::{Lore, Spawned, assert_first, files_under, one_error_line, write};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Above one commit batch (200 files), so a run commits twice.
const FILES: usize = 210;
const WAIT: Duration = Duration::from_secs(120);

/// A token unique to file `i` that the tokenizer keeps whole (letters only, no stem suffix).
fn token(i: usize) -> String {
    let l = |n: usize| (b'a' + (n % 26) as u8) as char;
    format!("zz{}{}{}q", l(i / 676), l(i / 26), l(i))
}

/// One small function per file (one chunk each, cheap to embed); `version` changes the
/// body of the first `edited` files.
fn write_corpus(dir: &Path, edited: usize, version: u32) {
    for i in 0..FILES {
        let v = if i < edited { version } else { 0 };
        write(
            dir,
            &format!("src/m{i:03}.rs"),
            format!("pub fn {}() -> u32 {{ {} }}\n", token(i), i as u32 * 10 + v),
        );
    }
}

/// Polls `done` until it holds while `child` still runs (true), or the child exits or
/// `WAIT` passes (false).
fn wait_until(child: &mut Spawned, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        if done() {
            return child.0.try_wait().unwrap().is_none();
        }
        if child.0.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    false
}

/// Kills `child` with SIGKILL; false if it had already exited.
fn kill(child: &mut Spawned) -> bool {
    let running = child.0.try_wait().unwrap().is_none();
    if running {
        child.0.kill().unwrap();
    }
    child.0.wait().unwrap();
    running
}

/// The live BM25 folder of store `id` (`fts/CURRENT` names it).
fn live_fts(lore: &Lore, id: i64) -> Option<PathBuf> {
    let fts = lore.data().join(format!("stores/{id}/fts"));
    let name = std::fs::read_to_string(fts.join("CURRENT")).ok()?;
    Some(fts.join(name.trim()))
}

/// The catalog generation the live BM25 index's last commit was written for.
fn bm25_generation(lore: &Lore, id: i64) -> Option<i64> {
    let meta = std::fs::read_to_string(live_fts(lore, id)?.join("meta.json")).ok()?;
    let meta: Value = serde_json::from_str(&meta).ok()?;
    meta["payload"]
        .as_str()?
        .strip_prefix("generation ")?
        .parse()
        .ok()
}

/// Index folders under store `id`'s BM25 folder (the live one and any being built).
fn fts_builds(lore: &Lore, id: i64) -> usize {
    let fts = lore.data().join(format!("stores/{id}/fts"));
    std::fs::read_dir(fts)
        .map(|d| d.flatten().filter(|e| e.path().is_dir()).count())
        .unwrap_or(0)
}

/// The catalog's committed transactions in its WAL: the WAL's salt and how many of its
/// frames end a transaction (a frame of the current salt whose "size after commit" is set).
/// Frames a big transaction spills before it commits are not counted.
fn wal_commits(lore: &Lore) -> (u64, usize) {
    let wal = std::fs::read(lore.data().join("lore.db-wal")).unwrap_or_default();
    if wal.len() < 32 {
        return (0, 0);
    }
    let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let page = be32(&wal[8..12]) as usize;
    let salt = &wal[16..24];
    let mut commits = 0;
    let mut at = 32;
    while page > 0 && at + 24 + page <= wal.len() {
        let frame = &wal[at..at + 24];
        if &frame[8..16] != salt {
            break;
        }
        if be32(&frame[4..8]) != 0 {
            commits += 1;
        }
        at += 24 + page;
    }
    (u64::from_be_bytes(salt.try_into().unwrap()), commits)
}

/// Every file under the test's root outside the data dir (and the server logs), with a
/// hash of its content.
fn outside(lore: &Lore) -> BTreeMap<String, u64> {
    use std::hash::{Hash, Hasher};
    files_under(lore.root())
        .into_iter()
        .filter(|p| !p.starts_with("data/") && !p.starts_with("serve-"))
        .map(|p| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            std::fs::read(lore.root().join(&p))
                .unwrap_or_default()
                .hash(&mut h);
            (p, h.finish())
        })
        .collect()
}

/// `lore --json doctor`: healthy or not, and the report.
fn doctor(lore: &Lore) -> (bool, Value) {
    let out = lore.run(&["--json", "doctor"]);
    assert!(out.code == 0 || out.code == 1, "doctor failed: {out:?}");
    let report = out.json();
    assert_eq!(report["healthy"] == true, out.code == 0, "{report:#}");
    (out.code == 0, report)
}

/// Runs doctor; when it finds problems, runs each repair it names and checks that doctor
/// then says healthy. Returns what doctor said first and the repairs run.
fn heal(lore: &Lore) -> (String, String) {
    let (healthy, report) = doctor(lore);
    if healthy {
        return ("healthy".into(), "-".into());
    }
    let mut said = Vec::new();
    let mut repairs: Vec<String> = Vec::new();
    let problems = report["stores"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["problems"].as_array().unwrap().iter())
        .chain(report["problems"].as_array().into_iter().flatten());
    for p in problems {
        said.push(format!(
            "{}: {}",
            p["part"].as_str().unwrap(),
            p["problem"].as_str().unwrap()
        ));
        let repair = p["repair"].as_str().unwrap().to_string();
        if !repairs.contains(&repair) {
            repairs.push(repair);
        }
    }
    for repair in &repairs {
        let args: Vec<&str> = repair.split_whitespace().collect();
        assert_eq!(args[..2], ["lore", "index"], "unexpected repair {repair}");
        lore.ok(&args[1..]);
    }
    let (healthy, after) = doctor(lore);
    assert!(healthy, "still unhealthy after {repairs:?}: {after:#}");
    (said.join("; "), repairs.join(", "))
}

type Counts = (u64, u64, u64);

fn counts(lore: &Lore, store: &str) -> Counts {
    let info = lore.json(&["store", "info", store]);
    let n = |k: &str| info[k].as_u64().unwrap();
    (n("files"), n("chunks"), n("embedded"))
}

fn store_id(lore: &Lore, store: &str) -> i64 {
    lore.json(&["store", "info", store])["id"].as_i64().unwrap()
}

/// Every file's token is found first in its file.
fn searchable(lore: &Lore, store: &str) {
    for i in [0, 123, FILES - 1] {
        let resp = lore.search(&token(i), "fts", &["--stores", store]);
        assert_first(&resp, &format!("src/m{i:03}.rs"));
    }
}

/// One row of the matrix.
struct Row {
    command: String,
    point: &'static str,
    /// Where the kill landed, as seen on disk, or that the command had finished.
    landed: String,
    doctor: String,
    repair: String,
    rerun: String,
    counts: Counts,
    clean: Counts,
    secs: f64,
}

struct Matrix {
    rows: Vec<Row>,
}

impl Matrix {
    fn print(&self) {
        let mut t = String::from(
            "\n| command | kill point | the kill landed | doctor after the kill | repair run | \
             re-run | files/chunks/embedded (clean run) | outside data dir | s |\n\
             |---|---|---|---|---|---|---|---|---|\n",
        );
        for r in &self.rows {
            let c = |c: Counts| format!("{}/{}/{}", c.0, c.1, c.2);
            t.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | `{}` | {} ({}) | unchanged | {:.1} |\n",
                r.command,
                r.point,
                r.landed,
                r.doctor.replace('|', "/"),
                if r.repair == "-" {
                    "-".to_string()
                } else {
                    format!("`{}`", r.repair)
                },
                r.rerun,
                c(r.counts),
                c(r.clean),
                r.secs
            ));
        }
        eprintln!("{t}");
    }
}

/// Spawns `args`, kills it once `point` holds, checks the data dir and runs `rerun` (the
/// same command, or what a user runs to finish it); records a row.
#[allow(clippy::too_many_arguments)]
fn crash(
    lore: &Lore,
    matrix: &mut Matrix,
    args: &[&str],
    point: &'static str,
    at: impl FnMut() -> bool,
    during: impl FnOnce(&Lore, u32),
    landed: impl FnOnce(&Lore) -> String,
    rerun: &[&str],
    store: &str,
    clean: Counts,
) {
    let t0 = Instant::now();
    let before = outside(lore);
    let mut child = lore.spawn(args);
    let mut at = at;
    let reached = wait_until(&mut child, &mut at);
    if reached {
        during(lore, child.0.id());
    }
    let killed = kill(&mut child);
    let landed = if killed && reached {
        landed(lore)
    } else {
        "had finished".to_string()
    };
    // The data dir opens and reads.
    lore.json(&["store", "list"]);
    let (said, repair) = heal(lore);
    lore.ok(rerun);
    let (healthy, report) = doctor(lore);
    assert!(healthy, "{args:?} re-run: {report:#}");
    let got = counts(lore, store);
    assert_eq!(got, clean, "{args:?}: counts after the re-run");
    assert_eq!(
        outside(lore),
        before,
        "{args:?} changed files outside the data dir"
    );
    matrix.rows.push(Row {
        command: args
            .join(" ")
            .replace(&format!("{}/", lore.root().display()), ""),
        point,
        landed,
        doctor: said,
        repair,
        rerun: rerun
            .join(" ")
            .replace(&format!("{}/", lore.root().display()), ""),
        counts: got,
        clean,
        secs: t0.elapsed().as_secs_f64(),
    });
}

/// A docs site of `PAGES` pages (version `v`), fetched one at a time with a short delay.
const PAGES: usize = 12;

fn set_pages(site: &Site, v: u32) {
    let links: String = (0..PAGES)
        .map(|i| format!("<li><a href=\"p{i}.html\">page {i}</a></li>"))
        .collect();
    site.set(
        "/docs/",
        &format!("<html><head><title>Docs</title></head><body><main><h1>Docs</h1><ul>{links}</ul></main></body></html>"),
    );
    for i in 0..PAGES {
        site.set(
            &format!("/docs/p{i}.html"),
            &format!(
                "<html><head><title>Page {i}</title></head><body><main><h1>Page {i}</h1><p>The \
                 wombat feeder {} dispenses pellets at dawn, revision {v}. Refill the hopper \
                 weekly and check the motor.</p></main></body></html>",
                token(i)
            ),
        );
    }
}

fn brain_pages(n: usize) -> Value {
    let pages: Vec<Value> = (0..n)
        .map(|i| {
            json!({"title": format!("Marsupial {}", token(i)), "type": "concept",
                   "content": format!("The {} marsupial digs burrows and eats roots.", token(i))})
        })
        .collect();
    json!({"source": "field-notes.md", "pages": pages})
}

#[test]
fn crash_matrix() {
    if crate::common::on_postgres() {
        // Its crash points are read off the embedded backend's files (the WAL, BM25
        // folders); on PostgreSQL a killed indexer is the workers' test.
        return;
    }
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let t0 = Instant::now();
    let src = lore.path("big");
    write_corpus(&src, 0, 0);
    let src_s = src.to_str().unwrap().to_string();
    let mut m = Matrix { rows: Vec::new() };

    // The clean run every `store add` row is held to.
    lore.json(&["store", "add", "big", &src_s]);
    let clean_add = counts(&lore, "big");
    assert_eq!(clean_add, (FILES as u64, FILES as u64, FILES as u64));
    searchable(&lore, "big");

    // store add: killed once indexing started (BM25 folder made), before its first commit.
    let id = store_id(&lore, "big") + 1;
    crash(
        &lore,
        &mut m,
        &["store", "add", "big2", &src_s],
        "indexing started, nothing committed",
        || live_fts(&lore, id).is_some(),
        |l, pid| {
            // One writer: a second one is refused at once, naming the first; reads go on.
            let out = l.run(&["index", "big"]);
            assert_eq!(out.code, 1, "second writer: {out:?}");
            let err = one_error_line(&out.stderr, &["index"]);
            assert!(
                err.contains(&format!("another lore process (pid {pid})")),
                "{err}"
            );
            searchable(l, "big");
            assert!(doctor(l).1["stores"][0]["healthy"] == true);
        },
        |l| format!("{} files in the catalog", counts(l, "big2").0),
        &["index", "big2"],
        "big2",
        clean_add,
    );
    // store add: killed after its first batch's catalog commit (the WAL has a new commit
    // once BM25 holds batch 1), before the second batch's.
    let id = id + 1;
    // The WAL as last seen before BM25 held batch 1: the next commit is batch 1's.
    let (mut before_bm25, mut bm25_seen) = ((0, 0), false);
    crash(
        &lore,
        &mut m,
        &["store", "add", "big3", &src_s],
        "first batch committed",
        || {
            if !bm25_seen {
                let wal = wal_commits(&lore);
                bm25_seen = bm25_generation(&lore, id).is_some_and(|g| g >= 1);
                if !bm25_seen {
                    before_bm25 = wal;
                }
                return false;
            }
            let now = wal_commits(&lore);
            now != before_bm25 && now.1 > 0
        },
        |_, _| {},
        |l| format!("{} files in the catalog", counts(l, "big3").0),
        &["index", "big3"],
        "big3",
        clean_add,
    );
    searchable(&lore, "big3");
    for s in ["big2", "big3"] {
        lore.ok(&["store", "remove", s]);
    }

    // index: 30 files edited; the clean run, then edited again and killed after its BM25
    // commit (the catalog's may or may not have landed).
    let big = store_id(&lore, "big");
    write_corpus(&src, 30, 1);
    lore.json(&["index", "big"]);
    let clean_index = counts(&lore, "big");
    write_corpus(&src, 30, 2);
    let g = bm25_generation(&lore, big);
    crash(
        &lore,
        &mut m,
        &["index", "big"],
        "BM25 commit (before the catalog's)",
        || bm25_generation(&lore, big) != g,
        |_, _| {},
        |l| {
            let info = l.json(&["store", "info", "big"]);
            format!(
                "BM25 at generation {}, the catalog at {}",
                bm25_generation(l, big).unwrap_or(-1),
                info["generation"]
            )
        },
        &["index", "big"],
        "big",
        clean_index,
    );

    // index --full: the clean run, then killed after its first catalog commit (the old
    // BM25 index stays live and searchable), while building the new BM25 index beside it,
    // and right after swapping it in.
    lore.json(&["index", "--full", "big"]);
    let clean_full = counts(&lore, "big");
    let before = wal_commits(&lore);
    crash(
        &lore,
        &mut m,
        &["index", "--full", "big"],
        "first catalog commit",
        || {
            let now = wal_commits(&lore);
            now != before && now.1 > 0
        },
        |_, _| {},
        |l| {
            // The last index stays whole and searchable before any repair.
            searchable(l, "big");
            "old BM25 index live and searchable".into()
        },
        &["index", "--full", "big"],
        "big",
        clean_full,
    );
    crash(
        &lore,
        &mut m,
        &["index", "--full", "big"],
        "fresh BM25 folder appears",
        || fts_builds(&lore, big) > 1,
        |_, _| {},
        |l| format!("{} BM25 folders", fts_builds(l, big)),
        &["index", "--full", "big"],
        "big",
        clean_full,
    );
    let pointer = std::fs::read(lore.data().join(format!("stores/{big}/fts/CURRENT"))).unwrap();
    crash(
        &lore,
        &mut m,
        &["index", "--full", "big"],
        "BM25 swapped in (CURRENT replaced)",
        || {
            std::fs::read(lore.data().join(format!("stores/{big}/fts/CURRENT")))
                .is_ok_and(|p| p != pointer)
        },
        |_, _| {},
        |l| {
            format!(
                "BM25 at generation {}",
                bm25_generation(l, big).unwrap_or(-1)
            )
        },
        &["index", "--full", "big"],
        "big",
        clean_full,
    );
    // Leftovers of the killed rebuilds are gone: one live index.
    assert_eq!(fts_builds(&lore, big), 1);
    searchable(&lore, "big");

    // A server's index job, killed after the job's first catalog commit.
    {
        let mut server = Server::no_watch(&lore, &[]);
        // One writer: the CLI is refused, naming the server; reading (doctor) goes on.
        let err = lore.fails(&["index", "big"], 1);
        assert!(err.contains("lore serve (pid"), "{err}");
        let out = lore.run(&["doctor"]);
        assert_eq!(out.code, 0, "doctor while a server writes: {out:?}");
        assert!(out.stdout.contains("big: ok"), "{}", out.stdout);
        // The same check through REST and MCP.
        let (status, rest) = get(&server.api("/api/stores/big/doctor"));
        assert_eq!((status, &rest["healthy"]), (200, &json!(true)), "{rest}");
        assert_eq!(rest["stores"][0]["catalog"]["chunks"], FILES, "{rest}");
        assert_eq!(get(&server.api("/api/stores/nope/doctor")).0, 404);
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params":
                          {"name": "stores", "arguments": {"action": "doctor", "name": "big"}}});
        let (status, answer) = post(&server.api("/mcp"), &call);
        assert_eq!(status, 200, "{answer}");
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        let mcp: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {answer}"));
        assert_eq!(mcp["stores"], rest["stores"], "{mcp}");
        let t = Instant::now();
        let before_out = outside(&lore);
        let (status, job) = post(&server.api("/api/stores/big/index"), &json!({"full": true}));
        assert_eq!(status, 202, "{job}");
        let id = job["id"].as_str().unwrap().to_string();
        // Killed while the job builds the fresh BM25 index (a second index folder).
        let deadline = Instant::now() + WAIT;
        let mut building = false;
        let mut polls = 0u32;
        while !building && Instant::now() < deadline {
            building = fts_builds(&lore, big) > 1;
            polls += 1;
            if !building
                && polls.is_multiple_of(20)
                && get(&server.api(&format!("/api/jobs/{id}"))).1["status"] == "done"
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        server.kill();
        let landed = if building {
            let info = lore.json(&["store", "info", "big"]);
            format!(
                "catalog at generation {}, BM25 at {}, {} BM25 folders",
                info["generation"],
                bm25_generation(&lore, big).unwrap_or(-1),
                fts_builds(&lore, big)
            )
        } else {
            "had finished".into()
        };
        let (said, repair) = heal(&lore);
        let server = Server::no_watch(&lore, &[]);
        let (status, job) = post(&server.api("/api/stores/big/index"), &json!({"full": true}));
        assert_eq!(status, 202, "{job}");
        let done = wait_job(&server, job["id"].as_str().unwrap(), WAIT);
        assert_eq!(done["status"], "done", "{done}");
        // The killed server's job is no longer shown as running.
        let (_, old) = get(&server.api(&format!("/api/jobs/{id}")));
        assert_ne!(old["status"], "running", "{old}");
        drop(server);
        assert!(doctor(&lore).0);
        let got = counts(&lore, "big");
        assert_eq!(got, clean_full);
        assert_eq!(outside(&lore), before_out);
        m.rows.push(Row {
            command: "serve: POST /api/stores/big/index {full}".into(),
            point: "fresh BM25 folder appears",
            landed,
            doctor: said,
            repair,
            rerun: "serve: POST /api/stores/big/index {full}".into(),
            counts: got,
            clean: clean_full,
            secs: t.elapsed().as_secs_f64(),
        });
    }

    // A web store's sync: the clean sync, then killed mid-crawl and again mid-index.
    let site = Site::start(&[("/robots.txt", "User-agent: *\nCrawl-delay: 0.05\n")]);
    set_pages(&site, 1);
    lore.json(&["store", "add", "web", &site.url("/docs/"), "--type", "web"]);
    set_pages(&site, 2);
    lore.json(&["sync", "web"]);
    let clean_sync = counts(&lore, "web");
    assert_eq!(clean_sync.0, PAGES as u64 + 1);
    let web = store_id(&lore, "web");
    set_pages(&site, 3);
    let requests = site.requests().len();
    crash(
        &lore,
        &mut m,
        &["sync", "web"],
        "mid-crawl (5 requests made)",
        || site.requests().len() >= requests + 5,
        |_, _| {},
        |_| format!("{} requests", site.requests().len() - requests),
        &["sync", "web"],
        "web",
        clean_sync,
    );
    set_pages(&site, 4);
    let g = bm25_generation(&lore, web);
    crash(
        &lore,
        &mut m,
        &["sync", "web"],
        "BM25 commit after the crawl",
        || bm25_generation(&lore, web) != g,
        |_, _| {},
        |l| {
            format!(
                "BM25 at generation {}",
                bm25_generation(l, web).unwrap_or(-1)
            )
        },
        &["sync", "web"],
        "web",
        clean_sync,
    );

    // brain ingest-raw: the clean run in a world of its own, then killed once pages appear.
    let pages = brain_pages(24);
    let clean_brain = {
        let Some(other) = Lore::with_model_or_skip() else {
            return;
        };
        let file = other.path("pages.json");
        std::fs::write(&file, pages.to_string()).unwrap();
        other.json(&["brain", "ingest-raw", file.to_str().unwrap()]);
        counts(&other, "brain")
    };
    let file = lore.path("pages.json");
    std::fs::write(&file, pages.to_string()).unwrap();
    let f = file.to_str().unwrap().to_string();
    let brain = lore.data().join("brain");
    crash(
        &lore,
        &mut m,
        &["brain", "ingest-raw", &f],
        "first page written",
        || !files_under(&brain).is_empty(),
        |_, _| {},
        |_| format!("{} pages on disk", files_under(&brain).len()),
        &["brain", "ingest-raw", &f],
        "brain",
        clean_brain,
    );

    m.print();
    let killed = m.rows.iter().filter(|r| r.landed != "had finished").count();
    eprintln!(
        "crash matrix: {killed} of {} commands killed mid-run, {:.1}s",
        m.rows.len(),
        t0.elapsed().as_secs_f64()
    );
}

/// The data dir's files with a hash of each; SQLite's side files aside when they hold
/// nothing (a read-only connection makes an empty WAL and a shared-memory index).
fn data_files(lore: &Lore) -> BTreeMap<String, u64> {
    use std::hash::{Hash, Hasher};
    files_under(&lore.data())
        .into_iter()
        .filter(|p| {
            let empty = std::fs::metadata(lore.data().join(p)).is_ok_and(|m| m.len() == 0);
            let side = p.ends_with("-shm") || (p.ends_with("-wal") && empty);
            !side
        })
        .map(|p| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            std::fs::read(lore.data().join(&p))
                .unwrap_or_default()
                .hash(&mut h);
            (p, h.finish())
        })
        .collect()
}

#[test]
fn doctor_reads_only_names_each_repair_and_the_repair_works() {
    // No data dir: no stores, and none is created.
    let empty = Lore::without_model();
    let out = empty.run(&["doctor"]);
    assert_eq!((out.code, out.stdout.trim()), (0, "no stores"), "{out:?}");
    assert!(!empty.data().exists());
    assert!(
        empty
            .fails(&["doctor", "nope"], 2)
            .contains("no store named")
    );

    let Some((lore, proj)) = Lore::with_project_or_skip() else {
        return;
    };
    lore.json(&["store", "add", "proj", proj.to_str().unwrap()]);
    let files = data_files(&lore);
    let out = lore.run(&["doctor"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.starts_with("proj: ok ("), "{}", out.stdout);
    assert_eq!(data_files(&lore), files, "doctor wrote to the data dir");
    if crate::common::on_postgres() {
        // BM25 and vectors live in the catalog's own transactions there: the damaged
        // files below have no counterpart.
        return;
    }

    // The BM25 folder deleted by hand: named with its repair, which rebuilds it from the
    // catalog (nothing re-read or embedded).
    let id = store_id(&lore, "proj");
    std::fs::remove_dir_all(lore.data().join(format!("stores/{id}/fts"))).unwrap();
    let out = lore.run(&["doctor", "proj"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout
            .contains("  BM25: the BM25 index is missing; the catalog holds"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("    repair: lore index proj"),
        "{}",
        out.stdout
    );
    // Issue 29, item 5: a search meanwhile says so, with the repair, in every adapter.
    let missing = "proj: its BM25 index is missing";
    let warned = |v: &Value| {
        v["warnings"].as_array().is_some_and(|w| {
            w.iter().any(|w| {
                w.as_str()
                    .is_some_and(|w| w.contains(missing) && w.contains("`lore index proj`"))
            })
        })
    };
    let resp = lore.search("HaversineKm", "hybrid", &[]);
    assert!(warned(&resp), "{resp:#}");
    let out = lore.run(&["search", "HaversineKm", "--mode", "fts"]);
    assert!(out.stderr.contains(missing), "{}", out.stderr);
    {
        let server = Server::no_watch(&lore, &[]);
        let (status, rest) = post(
            &server.api("/api/search"),
            &json!({"query": "HaversineKm", "mode": "fts"}),
        );
        assert_eq!(status, 200, "{rest}");
        assert!(warned(&rest), "{rest:#}");
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params":
                          {"name": "search", "arguments": {"query": "HaversineKm"}}});
        let (status, answer) = post(&server.api("/mcp"), &call);
        assert_eq!(status, 200, "{answer}");
        let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_default();
        let mcp: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {answer}"));
        assert!(warned(&mcp), "{mcp:#}");
    }
    let r = &lore.json(&["index", "proj"])[0];
    assert_eq!(
        (r["embedded"].as_u64(), r["changed"].as_u64()),
        (Some(0), Some(0))
    );
    assert!(doctor(&lore).0);
    let resp = lore.search("HaversineKm", "fts", &[]);
    assert_first(&resp, "geo/geo.go");

    // A damaged vector snapshot: named, and rewritten by the same repair.
    std::fs::write(
        lore.data().join(format!("stores/{id}/vectors.bin")),
        b"junk",
    )
    .unwrap();
    let (healthy, report) = doctor(&lore);
    assert!(!healthy);
    let p = &report["stores"][0]["problems"][0];
    assert_eq!(p["part"], "vectors", "{report:#}");
    assert_eq!(p["repair"], "lore index proj", "{report:#}");
    lore.json(&["index", "proj"]);
    assert!(doctor(&lore).0);

    // Issue 29, item 6: a damaged catalog file. Only an index damaged: plain doctor (quick
    // check) may miss it, `--deep` names it and `lore db reindex` repairs it.
    let db = lore.data().join("lore.db");
    let pristine = std::fs::read(&db).unwrap();
    flip(&db, root_page(&db, "chunks_by_file"), 30);
    let out = lore.run(&["doctor", "--deep"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout.contains("missing from index chunks_by_file")
            && out.stdout.contains("rebuild them with `lore db reindex`"),
        "{}",
        out.stdout
    );
    eprintln!("doctor --deep on a damaged index:\n{}", out.stdout);
    lore.ok(&["db", "reindex"]);
    let out = lore.run(&["doctor", "--deep"]);
    assert_eq!(out.code, 0, "{out:?}");
    // A table's page damaged: every command says so and points at doctor, which names each
    // store to add again and that the brain's files are safe.
    std::fs::write(&db, &pristine).unwrap();
    let files = root_page(&db, "files");
    let mut bytes = std::fs::read(&db).unwrap();
    bytes[(files as usize - 1) * 4096..][..4].copy_from_slice(&[7, 0, 0, 0]);
    std::fs::write(&db, &bytes).unwrap();
    let err = lore.fails(&["index", "proj"], 3);
    assert!(
        err.contains("the catalog file is damaged") && err.contains("lore doctor --deep"),
        "{err}"
    );
    let out = lore.run(&["doctor", "--deep"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout.contains("database disk image is malformed")
            && out.stdout.contains(&format!("lore store add proj {}", proj.display()))
            && out.stdout.contains("brain's notes are files in"),
        "{}",
        out.stdout
    );
    eprintln!("doctor --deep on a damaged table:\n{}", out.stdout);
    std::fs::write(&db, &pristine).unwrap();
}

/// The root page of a table or index of SQLite file `db` (its WAL checkpointed first), read
/// with Python's sqlite3 module.
fn root_page(db: &Path, name: &str) -> u64 {
    let script = "import sqlite3, sys\n\
                  c = sqlite3.connect(sys.argv[1])\n\
                  c.execute('PRAGMA wal_checkpoint(TRUNCATE)')\n\
                  print(c.execute('SELECT rootpage FROM sqlite_master WHERE name = ?', \
                  (sys.argv[2],)).fetchone()[0])\n";
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(db)
        .arg(name)
        .output()
        .expect("python3");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).trim().parse().expect("a page number")
}

/// Flips one byte `from_end` bytes before the end of page `page` (4 KiB pages), where the
/// cells of a small b-tree page live.
fn flip(db: &Path, page: u64, from_end: usize) {
    let mut bytes = std::fs::read(db).unwrap();
    let at = page as usize * 4096 - from_end;
    bytes[at] ^= 0x55;
    std::fs::write(db, &bytes).unwrap();
}
