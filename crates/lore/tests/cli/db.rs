//! `lore db`: the schema's status, and stores moved into PostgreSQL and back with their
//! vectors (`LORE_TEST_DATABASE_URL`; the test skips without it outside CI).

use crate::common::{BIN, Lore, fresh_database, model_dir, on_postgres, paths};
use serde_json::Value;
use std::process::Command;

/// `lore --data-dir DIR ARGS --json` in `lore`'s world, as JSON.
fn json_in(lore: &Lore, data: &std::path::Path, args: &[&str]) -> Value {
    let mut c = Command::new(BIN);
    c.arg("--data-dir").arg(data).arg("--quiet").arg("--json").args(args);
    lore.set_home(&mut c);
    if let Some(m) = model_dir() {
        c.env("LORE_MODEL_DIR", m);
    }
    c.env_remove("LORE_DATABASE_URL")
        .env("HF_HUB_OFFLINE", "1")
        .current_dir(lore.root());
    let out = c.output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn stores_move_into_postgresql_and_back_without_embedding() {
    if on_postgres() {
        // The world's own catalog must be the embedded one to import from.
        return;
    }
    let Some((lore, proj)) = Lore::with_project_or_skip() else {
        return;
    };
    let Some(db) = fresh_database(&format!("lore_db_import_{}", std::process::id())) else {
        return;
    };
    let status = lore.json(&["--database", &db, "db", "status"]);
    assert_eq!((status["backend"].as_str(), status["version"].as_i64()), (Some("postgres"), Some(0)));

    lore.json(&["store", "add", "proj", proj.to_str().unwrap()]);
    let info = lore.json(&["store", "info", "proj"]);
    let query = "great circle distance between two points";
    let before = paths(&lore.search(query, "hybrid", &[]));
    // What an agent taught moves with the store.
    let first = lore.search(query, "hybrid", &[]);
    let id = first["results"][0]["id"].as_str().unwrap();
    lore.ok(&["feedback", id, "useful", "--query", query]);

    let imported = lore.json(&["--database", &db, "db", "import"]);
    let copied = &imported[0];
    assert_eq!(copied["signals"], 1, "{imported:#}");
    let taught = lore.json(&["--database", &db, "feedback", "list", "proj"]);
    assert_eq!(taught[0]["chunk_id"], lore.json(&["feedback", "list"])[0]["chunk_id"]);
    assert_eq!(copied["store"], "proj", "{imported:#}");
    assert_eq!(copied["chunks"], info["chunks"], "{imported:#} {info:#}");
    assert_eq!(copied["vectors"], info["embedded"], "every vector copied");
    assert_eq!(copied["symbols"], info["symbols"]);
    let status = lore.json(&["--database", &db, "db", "status"]);
    assert_eq!(status["version"], status["latest"]);
    assert!(status["pgvector"].is_string(), "{status:#}");

    // The same answers from PostgreSQL, and a second import is refused.
    let on_pg = lore.json(&["--database", &db, "search", query]);
    assert_eq!(paths(&on_pg), before);
    let pg_info = lore.json(&["--database", &db, "store", "info", "proj"]);
    assert_eq!(pg_info["embedded"], info["embedded"]);
    assert_eq!(pg_info["resolved"], info["resolved"], "the code graph came along");
    let again = lore.run(&["--database", &db, "db", "import"]);
    assert_ne!(again.code, 0);
    assert!(again.stderr.contains("already exists"), "{}", again.stderr);

    // Back out into a fresh data dir: searchable there, nothing embedded.
    let out_dir = lore.path("exported");
    let exported = lore.json(&["--database", &db, "db", "export", out_dir.to_str().unwrap()]);
    assert_eq!(exported[0]["vectors"], info["embedded"]);
    assert_eq!(exported[0]["signals"], 1, "{exported:#}");
    let there = json_in(&lore, &out_dir, &["search", query]);
    assert_eq!(paths(&there), before);
    let doctor = json_in(&lore, &out_dir, &["doctor"]);
    assert_eq!(doctor["healthy"], true, "{doctor:#}");
}
