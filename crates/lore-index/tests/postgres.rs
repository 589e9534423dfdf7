//! The catalog, BM25 and vectors on a real PostgreSQL with pgvector (`.ci/postgres` starts
//! one; `LORE_TEST_DATABASE_URL` names it). Each test works in a database of its own.
//! Without the variable the tests say so and pass, except in CI, where it is an error.

use lore_core::{AddStore, Chunk, ChunkKind, Language, StoreKind};
use lore_index::{
    Catalog, ChunkRow, FieldBoosts, FileRecord, Fts, IndexError, LexicalIndex, NewStore, PgLexical,
    PgOptions, PgVectors, Sql, TermPolicy, VectorIndex, VectorSet,
};

/// A fresh, empty database on the test server; `None` when there is no server.
fn fresh_database(name: &str) -> Option<String> {
    let Ok(url) = std::env::var("LORE_TEST_DATABASE_URL") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must set LORE_TEST_DATABASE_URL (.ci/postgres start)"
        );
        eprintln!("LORE_TEST_DATABASE_URL is not set: skipping the PostgreSQL tests");
        return None;
    };
    let admin = Sql::postgres(&url, &PgOptions::default()).unwrap();
    let db = format!("lore_index_{name}_{}", std::process::id());
    admin
        .batch(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
        .unwrap();
    admin.batch(&format!("CREATE DATABASE {db}")).unwrap();
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, format!("?{q}")),
        None => (url.as_str(), String::new()),
    };
    let (server, _) = base.rsplit_once('/').unwrap();
    Some(format!("{server}/{db}{query}"))
}

fn chunk(symbol: &str, content: &str, line: u32) -> Chunk {
    Chunk {
        kind: ChunkKind::Function,
        language: Language::Rust,
        symbol: Some(symbol.into()),
        parent: None,
        signature: Some(format!("fn {symbol}()")),
        doc: None,
        headings: vec![],
        start_line: line,
        end_line: line + 2,
        start_byte: line as usize * 10,
        end_byte: line as usize * 10 + content.len(),
        content: content.into(),
        context: None,
    }
}

fn unit(i: usize) -> Vec<f32> {
    let mut v: Vec<f32> = (0..8)
        .map(|j| ((i * 7 + j * 3) % 11) as f32 - 5.0)
        .collect();
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

const TEXTS: &[(&str, &str)] = &[
    (
        "retry_with_backoff",
        "fn retry_with_backoff() { sleep(delay); delay *= 2; retry again }",
    ),
    (
        "parse_config",
        "fn parse_config() { read the toml config file and parse it }",
    ),
    (
        "open_socket",
        "fn open_socket() { bind a tcp socket and listen for connections }",
    ),
    (
        "backoff_delay",
        "fn backoff_delay() { the delay doubles with each retry attempt }",
    ),
    (
        "render_page",
        "fn render_page() { render html for the page with the template }",
    ),
    (
        "config_path",
        "fn config_path() { where the config file lives on disk }",
    ),
];

/// A folder store at `/src` as `spec` asks for it.
fn folder(spec: &AddStore) -> NewStore<'_> {
    NewStore {
        spec,
        kind: StoreKind::Folder,
        source: "/src".into(),
        root: "/src".into(),
        max_file_bytes: 1 << 20,
        web: None,
        host: None,
    }
}

/// A store holding [`TEXTS`] as chunks of three files, each with its vector.
fn add_texts(catalog: &mut Catalog, new: &NewStore) -> lore_index::StoreRecord {
    let store = catalog.create_store(new).unwrap();
    let chunks: Vec<Chunk> = TEXTS
        .iter()
        .enumerate()
        .map(|(i, (s, c))| chunk(s, c, i as u32 * 3 + 1))
        .collect();
    let vectors: Vec<Vec<f32>> = (0..chunks.len()).map(unit).collect();
    let tx = catalog.begin().unwrap();
    for (i, pair) in chunks.chunks(2).enumerate() {
        let path = format!("src/f{i}.rs");
        let file_rows: Vec<ChunkRow> = pair
            .iter()
            .enumerate()
            .map(|(j, c)| ChunkRow {
                id: lore_index::chunk_id(store.id, &path, c.start_byte, c.end_byte, &c.content),
                chunk: c,
                embedding: Some(vectors[i * 2 + j].as_slice()),
            })
            .collect();
        tx.replace_file(store.id, &file(&path, file_rows.len()), &file_rows)
            .unwrap();
    }
    tx.bump_generation(store.id).unwrap();
    tx.commit().unwrap();
    catalog.store_by_id(store.id).unwrap().unwrap()
}

fn file(path: &str, chunks: usize) -> FileRecord {
    FileRecord {
        path: path.into(),
        size: 100,
        mtime_ns: 7,
        hash: format!("h{path}"),
        chunks: chunks as u32,
        skipped: None,
        parse_error: None,
    }
}

#[test]
fn the_catalog_bm25_and_vectors_agree_with_the_embedded_backend() {
    let Some(url) = fresh_database("parity") else {
        return;
    };
    let mut pg = Catalog::connect(&url, &PgOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut lite = Catalog::open(&dir.path().join("lore.db")).unwrap();
    let fts = Fts::open_or_create(&dir.path().join("fts")).unwrap();
    let mut writer = fts.writer().unwrap();

    let spec = AddStore {
        name: "code".into(),
        includes: vec!["**/*.rs".into()],
        ..Default::default()
    };
    let new = folder(&spec);
    let mut rows = Vec::new();
    for catalog in [&mut pg, &mut lite] {
        let store = add_texts(catalog, &new);
        assert!(matches!(
            catalog.create_store(&new),
            Err(IndexError::StoreExists(_))
        ));
        rows.push(store);
    }
    // The embedded side's BM25 and snapshot, from its catalog.
    lite.for_each_chunk(rows[1].id, |c| writer.add_stored(&c))
        .unwrap();
    writer.commit(Some(1)).unwrap();
    fts.reload().unwrap();
    let mut snapshot = Vec::new();
    lite.for_each_embedding(rows[1].id, |id, v| snapshot.push((id, v)))
        .unwrap();
    let set_path = dir.path().join("vectors.bin");
    VectorSet::write(&set_path, 8, 1, &snapshot).unwrap();
    let set = VectorSet::load(&set_path).unwrap().unwrap();

    let (p, l) = (&rows[0], &rows[1]);
    assert_eq!(pg.stats(p.id).unwrap().chunks, 6);
    assert_eq!(pg.stats(p.id).unwrap().embedded, 6);
    assert_eq!(pg.manifest(p.id).unwrap(), lite.manifest(l.id).unwrap());
    assert_eq!(pg.paths(p.id).unwrap(), lite.paths(l.id).unwrap());
    assert_eq!(
        pg.lexical_ids(p.id).unwrap(),
        pg.chunk_ids(p.id, false).unwrap()
    );

    // The buffer cache against what searches read: the postings key is there, no HNSW
    // index below its size; the embedded catalog has no such cache.
    let fit = pg.cache_fit().unwrap().unwrap();
    assert!(
        fit.shared_buffers >= 1 << 20 && fit.postings > 0 && fit.hnsw == 0,
        "{fit:?}"
    );
    assert!(lite.cache_fit().unwrap().is_none());

    // BM25: the same ranking and (up to tantivy's length quantisation) the same scores.
    let lexical = PgLexical::new(p.id);
    for query in [
        "retry backoff delay",
        "config file",
        "socket",
        "nothing matches xyzzy",
    ] {
        let a = lexical
            .search(&pg, query, 10, &FieldBoosts::default(), TermPolicy::SEARCH)
            .unwrap();
        let b = LexicalIndex::search(
            &fts,
            &lite,
            query,
            10,
            &FieldBoosts::default(),
            TermPolicy::SEARCH,
        )
        .unwrap();
        // (score to 4 places, path, line), ties in path order: the backends break ties
        // differently.
        let ranked = |cat: &Catalog, hits: &[(i64, f32)]| -> Vec<(i64, String, u32)> {
            let got = cat
                .chunks(&hits.iter().map(|h| h.0).collect::<Vec<_>>())
                .unwrap();
            let mut out: Vec<(i64, String, u32)> = hits
                .iter()
                .map(|h| {
                    let c = got.iter().find(|c| c.id == h.0).unwrap();
                    (
                        -(h.1 * 1e4).round() as i64,
                        c.path.clone(),
                        c.chunk.start_line,
                    )
                })
                .collect();
            out.sort();
            out
        };
        assert_eq!(ranked(&pg, &a.hits), ranked(&lite, &b.hits), "{query}");
        assert!((a.max_score - b.max_score).abs() < 1e-3, "{query}");
        // Searched again, the terms' document frequencies come from what the first search
        // counted: the same hits and scores.
        let again = lexical
            .search(&pg, query, 10, &FieldBoosts::default(), TermPolicy::SEARCH)
            .unwrap();
        assert_eq!(again.hits, a.hits, "{query}");
        assert_eq!(again.max_score, a.max_score, "{query}");
        assert_eq!(a.hits.is_empty(), query.contains("xyzzy"), "{query}");
    }

    // Vectors: the same neighbours and scores as the exact snapshot.
    let vectors = PgVectors::new(p.id);
    let q = unit(3);
    let a = vectors.search(&pg, &q, 3).unwrap();
    let b = VectorIndex::search(&set, &lite, &q, 3).unwrap();
    assert_eq!(a.len(), 3);
    for (x, y) in a.iter().zip(&b) {
        assert!((x.1 - y.1).abs() < 1e-5);
    }
    let ids: Vec<i64> = a.iter().map(|h| h.0).collect();
    let scores = vectors.scores(&pg, &ids, &q).unwrap();
    assert!((scores[&ids[0]] - a[0].1).abs() < 1e-5);

    // Replacing a file replaces its postings; removing the store removes everything.
    let tx = pg.begin().unwrap();
    tx.remove_file(p.id, "src/f0.rs").unwrap();
    tx.commit().unwrap();
    let hits = lexical
        .search(
            &pg,
            "retry_with_backoff",
            10,
            &FieldBoosts::default(),
            TermPolicy::SEARCH,
        )
        .unwrap();
    assert!(hits.hits.len() < 2, "f0's chunks are gone: {hits:?}");
    assert_eq!(
        pg.lexical_ids(p.id).unwrap(),
        pg.chunk_ids(p.id, false).unwrap()
    );
    pg.remove_store(p.id).unwrap();
    assert!(pg.stores().unwrap().is_empty());
    assert!(pg.lexical_ids(p.id).unwrap().is_empty());
}

#[test]
fn a_dropped_transaction_leaves_nothing() {
    let Some(url) = fresh_database("rollback") else {
        return;
    };
    let mut pg = Catalog::connect(&url, &PgOptions::default()).unwrap();
    let store = folder_store(&pg);
    {
        let tx = pg.begin().unwrap();
        let c = chunk("f", "fn f() {}", 1);
        tx.replace_file(
            store.id,
            &FileRecord {
                path: "a.rs".into(),
                size: 1,
                mtime_ns: 1,
                hash: "h".into(),
                chunks: 1,
                skipped: None,
                parse_error: None,
            },
            &[ChunkRow {
                id: 1,
                chunk: &c,
                embedding: None,
            }],
        )
        .unwrap();
        // Dropped without commit.
    }
    assert!(pg.manifest(store.id).unwrap().is_empty());
    assert!(pg.lexical_ids(store.id).unwrap().is_empty());
}

#[test]
fn a_newer_schema_is_refused_and_migration_is_idempotent() {
    let Some(url) = fresh_database("schema") else {
        return;
    };
    let db = Sql::postgres(&url, &PgOptions::default()).unwrap();
    assert_eq!(lore_index::postgres_status(&db).unwrap().version, 0);
    assert_eq!(
        lore_index::migrate_postgres(&db).unwrap(),
        (1..=18).collect::<Vec<i64>>()
    );
    assert!(lore_index::migrate_postgres(&db).unwrap().is_empty());
    // v7: BM25 reads a term's postings from the key's leaves alone (an index-only scan).
    let pkey = db
        .query_opt(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'lex_postings_pkey'",
            &[],
            |r| r.text(0),
        )
        .unwrap()
        .unwrap();
    assert!(pkey.ends_with("INCLUDE (tf, dl)"), "{pkey}");
    // v11: a chunk's unit is one seek by name and file.
    let by_name = db
        .query_opt(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'symbols_by_name'",
            &[],
            |r| r.text(0),
        )
        .unwrap()
        .unwrap();
    assert!(by_name.ends_with("(store_id, name, path)"), "{by_name}");
    let status = lore_index::postgres_status(&db).unwrap();
    assert_eq!(status.version, status.latest);
    assert!(status.pgvector.is_some());
    assert!(
        !status.database.contains(":lore@"),
        "no password in {}",
        status.database
    );

    db.batch("INSERT INTO lore_schema (version, written_by) VALUES (99, 'lore 9.0')")
        .unwrap();
    let err = Catalog::connect(&url, &PgOptions::default())
        .err()
        .expect("a newer schema is refused");
    let msg = err.to_string();
    assert!(msg.contains("99") && msg.contains("upgrade lore"), "{msg}");
    assert!(Catalog::connect_read_only(&url, &PgOptions::default()).is_err());
    let fresh = fresh_database("schema_none").unwrap();
    assert!(
        Catalog::connect_read_only(&fresh, &PgOptions::default())
            .unwrap()
            .is_none()
    );
}

#[test]
fn wrong_credentials_and_an_unreachable_server_are_clear_errors() {
    let Some(url) = fresh_database("errors") else {
        return;
    };
    let bad = url.replacen("://lore:lore@", "://lore:wrong@", 1);
    let err = Catalog::connect(&bad, &PgOptions::default())
        .err()
        .expect("wrong password refused")
        .to_string();
    assert!(err.contains("password"), "{err}");
    assert!(!err.contains("wrong"), "the password is not printed: {err}");
    let opts = PgOptions {
        connect_timeout: std::time::Duration::from_secs(2),
        ..Default::default()
    };
    let err = Catalog::connect("postgres://lore:lore@127.0.0.1:1/none", &opts)
        .err()
        .expect("nothing listens on port 1")
        .to_string();
    assert!(err.contains("127.0.0.1:1"), "{err}");
}

/// A folder store `s` at `/s`.
fn folder_store(pg: &Catalog) -> lore_index::StoreRecord {
    let spec = AddStore {
        name: "s".into(),
        ..Default::default()
    };
    pg.create_store(&NewStore {
        spec: &spec,
        kind: StoreKind::Folder,
        source: "/s".into(),
        root: "/s".into(),
        max_file_bytes: 10,
        web: None,
        host: None,
    })
    .unwrap()
}

/// Ends every other session on the test's database, as a server restart would.
fn terminate_other_sessions(admin: &Sql) {
    admin
        .query_int(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .unwrap();
}

#[test]
fn a_lost_session_comes_back_and_a_lost_transaction_commits_nothing() {
    let Some(url) = fresh_database("reconnect") else {
        return;
    };
    let mut pg = Catalog::connect(&url, &PgOptions::default()).unwrap();
    let admin = Sql::postgres(&url, &PgOptions::default()).unwrap();
    let store = folder_store(&pg);

    // Outside a transaction, the next statement runs on a new session.
    terminate_other_sessions(&admin);
    assert_eq!(pg.stores().unwrap().len(), 1);
    terminate_other_sessions(&admin);
    assert!(pg.manifest(store.id).unwrap().is_empty());

    // Inside one, the rest of it fails (the server rolled it back) and nothing of it stays.
    let file = |path: &str| FileRecord {
        path: path.into(),
        size: 1,
        mtime_ns: 1,
        hash: "h".into(),
        chunks: 1,
        skipped: None,
        parse_error: None,
    };
    let c = chunk("f", "fn f() {}", 1);
    {
        let tx = pg.begin().unwrap();
        tx.replace_file(
            store.id,
            &file("a.rs"),
            &[ChunkRow {
                id: 1,
                chunk: &c,
                embedding: None,
            }],
        )
        .unwrap();
        terminate_other_sessions(&admin);
        let err = tx
            .replace_file(
                store.id,
                &file("b.rs"),
                &[ChunkRow {
                    id: 2,
                    chunk: &c,
                    embedding: None,
                }],
            )
            .expect_err("the transaction's session is gone");
        assert!(err.is_unreachable(), "{err}");
        assert!(err.to_string().contains("database unreachable"), "{err}");
    }
    assert!(pg.manifest(store.id).unwrap().is_empty());
    assert!(pg.lexical_ids(store.id).unwrap().is_empty());

    // A server nobody answers at is unreachable, not an internal error.
    let opts = PgOptions {
        connect_timeout: std::time::Duration::from_secs(2),
        ..Default::default()
    };
    let err = Catalog::connect("postgres://lore:lore@127.0.0.1:1/none", &opts)
        .err()
        .expect("nothing listens on port 1");
    assert!(err.is_unreachable(), "{err}");
}

#[test]
fn a_starting_server_fails_only_its_own_and_expired_jobs() {
    let Some(url) = fresh_database("jobs") else {
        return;
    };
    let pg = Catalog::connect(&url, &PgOptions::default()).unwrap();
    let spec = serde_json::json!({"stores": ["s"]});
    let theirs = lore_index::new_job_id();
    pg.create_job(&theirs, "index", &spec, "host-a:/data")
        .unwrap();
    pg.claim_job(&theirs, 41, "host-a:/data").unwrap().unwrap();
    let mine = lore_index::new_job_id();
    pg.create_job(&mine, "index", &spec, "host-b:/data")
        .unwrap();
    pg.claim_job(&mine, 41, "host-b:/data").unwrap().unwrap();

    // B starts again (same pid on another host, too): only its own job was interrupted.
    assert_eq!(pg.fail_orphaned_jobs("host-b:/data").unwrap(), 1);
    assert!(
        pg.fail_jobs_of(41, "host-b:/data", "gone")
            .unwrap()
            .is_empty()
    );
    let status = |id: &str| pg.job(id).unwrap().unwrap().status;
    assert_eq!(status(&theirs), lore_index::JobStatus::Running);
    assert_eq!(status(&mine), lore_index::JobStatus::Failed);
    assert_eq!(pg.heartbeat_jobs("host-a:/data").unwrap(), 1);
    assert_eq!(pg.fail_expired_jobs().unwrap(), 0);
    pg.sql()
        .execute(
            "UPDATE jobs SET heartbeat_at = heartbeat_at - ?1 WHERE id = ?2",
            &[
                lore_index::Arg::Int(lore_index::JOB_EXPIRY_SECS + 1),
                lore_index::Arg::Text(theirs.as_str().into()),
            ],
        )
        .unwrap();
    assert_eq!(pg.fail_expired_jobs().unwrap(), 1);
    assert_eq!(status(&theirs), lore_index::JobStatus::Failed);
}

#[test]
fn a_role_that_may_not_enable_pgvector_is_told_what_to_ask_for() {
    let Some(url) = fresh_database("weakrole") else {
        return;
    };
    let admin = Sql::postgres(&url, &PgOptions::default()).unwrap();
    let role = format!("lore_weak_{}", std::process::id());
    let db = url.rsplit('/').next().unwrap().split('?').next().unwrap();
    admin
        .batch(&format!(
            "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN PASSWORD 'weak'; \
             GRANT CONNECT ON DATABASE {db} TO {role}; GRANT USAGE, CREATE ON SCHEMA public TO {role}"
        ))
        .unwrap();
    let weak = url.replacen("://lore:lore@", &format!("://{role}:weak@"), 1);
    let err = Catalog::connect(&weak, &PgOptions::default())
        .err()
        .expect("the extension cannot be created by this role")
        .to_string();
    assert!(err.contains("CREATE EXTENSION vector"), "{err}");
    assert!(!err.contains('\n'), "one line: {err}");
    drop(admin);
    let admin = Sql::postgres(&url, &PgOptions::default()).unwrap();
    admin.batch("CREATE EXTENSION vector").unwrap();
    assert!(Catalog::connect(&weak, &PgOptions::default()).is_ok());
    admin
        .batch(&format!(
            "REVOKE ALL ON SCHEMA public FROM {role}; REVOKE ALL ON DATABASE {db} FROM {role}"
        ))
        .unwrap();
}

#[test]
fn a_large_store_gets_an_hnsw_index_that_finds_what_the_exact_scan_finds() {
    let Some(url) = fresh_database("hnsw") else {
        return;
    };
    let mut pg = Catalog::connect(&url, &PgOptions::default()).unwrap();
    let store = folder_store(&pg);
    // Pseudo-random unit vectors (no ties), one chunk each.
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f32 / (1u64 << 53) as f32 - 0.5
    };
    let n = 400;
    let chunks: Vec<Chunk> = (0..n)
        .map(|i| chunk(&format!("f{i}"), "fn f() {}", i as u32 * 3))
        .collect();
    let vectors: Vec<Vec<f32>> = (0..n)
        .map(|_| {
            let v: Vec<f32> = (0..16).map(|_| next()).collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.into_iter().map(|x| x / norm).collect()
        })
        .collect();
    let rows: Vec<ChunkRow> = chunks
        .iter()
        .zip(&vectors)
        .enumerate()
        .map(|(i, (c, v))| ChunkRow {
            id: i as i64 + 1,
            chunk: c,
            embedding: Some(v),
        })
        .collect();
    let file = FileRecord {
        path: "a.rs".into(),
        size: 1,
        mtime_ns: 1,
        hash: "h".into(),
        chunks: n as u32,
        skipped: None,
        parse_error: None,
    };
    let tx = pg.begin().unwrap();
    tx.replace_file(store.id, &file, &rows).unwrap();
    tx.commit().unwrap();

    // Below the size, nothing is built; at it, once.
    assert!(!pg.ensure_vector_index(store.id, n as u64 + 1).unwrap());
    assert_eq!(pg.vector_index_dim(store.id).unwrap(), None);
    assert!(pg.ensure_vector_index(store.id, n as u64).unwrap());
    assert!(!pg.ensure_vector_index(store.id, n as u64).unwrap());
    assert_eq!(pg.vector_index_dim(store.id).unwrap(), Some(16));

    let exact = PgVectors::new(store.id);
    let hnsw = PgVectors::open(&pg, store.id, 400).unwrap();
    assert!(hnsw.uses_hnsw() && !exact.uses_hnsw());
    // The planner can take the index for this query shape (a store this small would
    // otherwise be scanned and sorted, which proves nothing; `lore bench --database`
    // shows a large one taking it unforced).
    pg.sql()
        .batch("ANALYZE chunks; SET enable_seqscan = off; SET enable_sort = off")
        .unwrap();
    let mut found = 0;
    for q in vectors.iter().step_by(40) {
        let want: Vec<i64> = exact
            .search(&pg, q, 10)
            .unwrap()
            .iter()
            .map(|h| h.0)
            .collect();
        let got = hnsw.search(&pg, q, 10).unwrap();
        assert_eq!(got.len(), 10);
        // Its own vector first, scored as the exact scan scores it.
        assert_eq!(got[0].0, want[0]);
        assert!((got[0].1 - 1.0).abs() < 1e-4, "{got:?}");
        found += got.iter().filter(|h| want.contains(&h.0)).count();
    }
    assert!(found >= 95, "recall@10 {found}/100");
    let plan = pg
        .sql()
        .query(
            &format!(
                "EXPLAIN SELECT id FROM chunks WHERE store_id = {} \
                 ORDER BY embedding::vector(16) <#> '[{}]' LIMIT 10",
                store.id,
                vec!["0.25"; 16].join(",")
            ),
            &[],
            |r| r.text(0),
        )
        .unwrap()
        .join("\n");
    assert!(
        plan.contains(&format!("chunks_hnsw_{}", store.id)),
        "{plan}"
    );

    pg.drop_vector_index(store.id).unwrap();
    assert_eq!(pg.vector_index_dim(store.id).unwrap(), None);
    pg.remove_store(store.id).unwrap();
}

#[test]
fn index_batches_are_claimed_once_and_again_when_their_holder_dies() {
    let Some(url) = fresh_database("batches") else {
        return;
    };
    let catalog = Catalog::connect(&url, &PgOptions::default()).unwrap();
    let spec = AddStore {
        name: "code".into(),
        ..Default::default()
    };
    let store = catalog.create_store(&folder(&spec)).unwrap();
    let batches: Vec<Vec<String>> = (0..6).map(|i| vec![format!("f{i}.rs")]).collect();
    catalog
        .enqueue_batches(store.id, "run1", false, None, &batches)
        .unwrap();

    // Four claimers on their own connections at once: every batch goes to exactly one.
    let claimed: Vec<Vec<lore_index::Batch>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|w| {
                let url = url.clone();
                s.spawn(move || {
                    let c = Catalog::connect(&url, &PgOptions::default()).unwrap();
                    let mut mine = Vec::new();
                    while let Some(b) = c.claim_batch(&format!("w{w}"), 60, None, &[]).unwrap() {
                        mine.push(b);
                    }
                    mine
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut paths: Vec<String> = claimed
        .iter()
        .flatten()
        .flat_map(|b| b.paths.clone())
        .collect();
    paths.sort();
    assert_eq!(paths, batches.concat());
    let progress = catalog.run_progress("run1").unwrap();
    assert_eq!(
        (progress.batches, progress.done, progress.claimed),
        (6, 0, 6)
    );

    // A holder that stops renewing loses its batch to the next claim; its late report is
    // refused, the new holder's taken.
    let (holder, batch) = claimed
        .iter()
        .enumerate()
        .find_map(|(w, bs)| bs.first().map(|b| (format!("w{w}"), b.clone())))
        .unwrap();
    assert!(catalog.renew_batch(batch.id, &holder, -1).unwrap());
    let again = catalog
        .claim_batch("w9", 60, Some("run1"), &[])
        .unwrap()
        .unwrap();
    assert_eq!((again.id, again.attempts), (batch.id, 2));
    assert!(!catalog.renew_batch(batch.id, &holder, 60).unwrap());
    let report = lore_index::BatchDone {
        changed_paths: batch.paths.clone(),
        dirty_names: vec!["parse".into()],
        added: 1,
        chunks_written: 3,
        embedded: 3,
        ..Default::default()
    };
    assert!(!catalog.finish_batch(batch.id, &holder, &report).unwrap());
    assert!(catalog.finish_batch(batch.id, "w9", &report).unwrap());
    assert_eq!(catalog.run_progress("run1").unwrap().done, 1);
    assert_eq!(catalog.run_reports("run1").unwrap(), [report]);
    assert!(
        catalog
            .claim_batch("w9", 60, Some("run2"), &[])
            .unwrap()
            .is_none()
    );

    // A batch its holder cannot do goes back: uncounted (the store's files are not on its
    // machine) it keeps its attempts, and a claimer skipping the store does not get it;
    // counted, it fails at the third attempt and the run says why.
    let other = claimed
        .iter()
        .enumerate()
        .find_map(|(w, bs)| {
            bs.iter()
                .find(|b| b.id != batch.id)
                .map(|b| (format!("w{w}"), b.clone()))
        })
        .unwrap();
    assert!(
        catalog
            .give_back_batch(other.1.id, &other.0, "not here", false)
            .unwrap()
    );
    assert!(
        catalog
            .claim_batch("w9", 60, Some("run1"), &[store.id])
            .unwrap()
            .is_none()
    );
    let mut last = None;
    for attempt in 1..=3 {
        let b = catalog
            .claim_batch("w9", 60, Some("run1"), &[])
            .unwrap()
            .unwrap();
        assert_eq!((b.id, b.attempts), (other.1.id, attempt));
        assert!(
            catalog
                .give_back_batch(b.id, "w9", "embedder down", true)
                .unwrap()
        );
        last = Some(catalog.run_progress("run1").unwrap());
    }
    let failed = last.unwrap().failed.unwrap_or_default();
    assert!(
        failed.contains("w9") && failed.contains("embedder down"),
        "{failed}"
    );
    assert!(
        catalog
            .claim_batch("w9", 60, Some("run1"), &[])
            .unwrap()
            .is_none()
    );

    catalog.drop_run("run1").unwrap();
    assert_eq!(catalog.run_progress("run1").unwrap().batches, 0);
    // The embedded catalog has no workers.
    let dir = tempfile::tempdir().unwrap();
    let lite = Catalog::open(&dir.path().join("lore.db")).unwrap();
    let err = lite
        .claim_batch("w", 60, None, &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("--database"), "{err}");
}

#[test]
fn a_read_copy_answers_as_the_database_does_while_it_is_current() {
    let Some(url) = fresh_database("replica") else {
        return;
    };
    let mut pg = Catalog::connect(&url, &PgOptions::default()).unwrap();
    let spec = AddStore {
        name: "code".into(),
        ..Default::default()
    };
    let store = add_texts(&mut pg, &folder(&spec));
    let dir = tempfile::tempdir().unwrap();
    let copy_of = |g: i64| lore_index::open_replica(dir.path(), g);
    assert!(
        copy_of(store.generation).lexical.is_none(),
        "nothing built yet"
    );

    let built = lore_index::build_replica(&pg, store.id, dir.path())
        .unwrap()
        .unwrap();
    assert_eq!(
        (built.generation, built.chunks, built.vectors),
        (store.generation, 6, Some(6))
    );
    let copy = copy_of(store.generation);
    let (fts, set) = (copy.lexical.unwrap(), copy.vectors.unwrap());
    let lexical = PgLexical::new(store.id);
    let boosts = FieldBoosts::default();
    for query in ["retry backoff delay", "config file", "socket", "xyzzy"] {
        let a = lexical
            .search(&pg, query, 10, &boosts, TermPolicy::SEARCH)
            .unwrap();
        let b = LexicalIndex::search(&fts, &pg, query, 10, &boosts, TermPolicy::SEARCH).unwrap();
        let scored = |hits: &[(i64, f32)]| -> Vec<(i64, i64)> {
            let mut v: Vec<(i64, i64)> = hits
                .iter()
                .map(|h| (-(h.1 * 1e3).round() as i64, h.0))
                .collect();
            v.sort();
            v
        };
        assert_eq!(scored(&a.hits), scored(&b.hits), "{query}");
        assert_eq!(a.hits.is_empty(), query == "xyzzy", "{query}");
    }
    let q = unit(3);
    let exact = PgVectors::new(store.id).search(&pg, &q, 3).unwrap();
    let copied = VectorIndex::search(&set, &pg, &q, 3).unwrap();
    assert_eq!(
        exact.iter().map(|h| h.0).collect::<Vec<_>>(),
        copied.iter().map(|h| h.0).collect::<Vec<_>>()
    );

    // A commit that changes the store moves its generation: the copy no longer answers,
    // and the next build holds the change.
    let tx = pg.begin().unwrap();
    tx.remove_file(store.id, "src/f0.rs").unwrap();
    let g2 = tx.bump_generation(store.id).unwrap();
    tx.commit().unwrap();
    let stale = copy_of(g2);
    assert!(stale.lexical.is_none() && stale.vectors.is_none());
    let built = lore_index::build_replica(&pg, store.id, dir.path())
        .unwrap()
        .unwrap();
    assert_eq!((built.generation, built.vectors), (g2, Some(4)));
    let fts = copy_of(g2).lexical.unwrap();
    let hits = LexicalIndex::search(
        &fts,
        &pg,
        "retry_with_backoff",
        10,
        &boosts,
        TermPolicy::SEARCH,
    )
    .unwrap();
    assert_eq!(
        hits.hits.len(),
        lexical
            .search(&pg, "retry_with_backoff", 10, &boosts, TermPolicy::SEARCH)
            .unwrap()
            .hits
            .len()
    );

    // A chunk not embedded yet: BM25 is copied, the vectors are left to the database
    // (they are added without a new generation).
    let c = chunk("late", "fn late() { embedded later }", 90);
    let row = ChunkRow {
        id: lore_index::chunk_id(
            store.id,
            "src/late.rs",
            c.start_byte,
            c.end_byte,
            &c.content,
        ),
        chunk: &c,
        embedding: None,
    };
    let tx = pg.begin().unwrap();
    tx.replace_file(store.id, &file("src/late.rs", 1), &[row])
        .unwrap();
    let g3 = tx.bump_generation(store.id).unwrap();
    tx.commit().unwrap();
    let built = lore_index::build_replica(&pg, store.id, dir.path())
        .unwrap()
        .unwrap();
    assert_eq!(
        (built.generation, built.chunks, built.vectors),
        (g3, 5, None)
    );
    let copy = copy_of(g3);
    assert!(copy.lexical.is_some() && copy.vectors.is_none());

    // Another process building this copy now: this one leaves it to that one.
    let lock = std::fs::File::open(dir.path().join("replica/build.lock")).unwrap();
    lock.try_lock().unwrap();
    assert_eq!(
        lore_index::build_replica(&pg, store.id, dir.path()).unwrap(),
        None
    );
    drop(lock);
    assert!(
        lore_index::build_replica(&pg, store.id, dir.path())
            .unwrap()
            .is_some()
    );
}
