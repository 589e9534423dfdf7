//! The catalog's own tests (SQLite; `tests/postgres.rs` runs it on PostgreSQL).

use super::*;

/// A folder store `name` at `root`.
fn folder_store(catalog: &Catalog, name: &str, root: &str) -> Result<StoreRecord, IndexError> {
    catalog.create_store(&NewStore {
        spec: &AddStore {
            name: name.into(),
            ..Default::default()
        },
        kind: StoreKind::Folder,
        source: root.into(),
        root: root.into(),
        max_file_bytes: 10,
        web: None,
        host: None,
    })
}

#[test]
fn old_catalogs_are_migrated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lore.db");
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE files (store_id INTEGER NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL,
             mtime_ns INTEGER NOT NULL, hash TEXT NOT NULL, chunks INTEGER NOT NULL,
             PRIMARY KEY (store_id, path)) WITHOUT ROWID;
             CREATE TABLE symbols (id INTEGER PRIMARY KEY, store_id INTEGER NOT NULL,
             path TEXT NOT NULL, name TEXT NOT NULL, qualified TEXT NOT NULL,
             kind TEXT NOT NULL, container TEXT, signature TEXT, doc TEXT,
             exported INTEGER NOT NULL, is_async INTEGER NOT NULL, is_test INTEGER NOT NULL,
             start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
             start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL, returns TEXT);
             CREATE INDEX symbols_by_name ON symbols(store_id, name);",
        )
        .unwrap();
    }
    let catalog = Catalog::open(&path).unwrap();
    assert!(catalog.manifest(1).unwrap().is_empty());
    let version = catalog.db.query_int("PRAGMA user_version", &[]).unwrap();
    assert_eq!(version, crate::schema::SCHEMA_VERSION);
    // v11: symbols by name are also by file.
    let by_name = catalog
        .db
        .query_opt(
            "SELECT sql FROM sqlite_master WHERE name = 'symbols_by_name'",
            &[],
            |r| r.text(0),
        )
        .unwrap()
        .unwrap();
    assert!(by_name.ends_with("(store_id, name, path)"), "{by_name}");
    drop(catalog);
    // Opening again is a no-op.
    Catalog::open(&path).unwrap();
}

#[test]
fn stores_files_and_chunks_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let mut catalog = Catalog::open(&dir.path().join("lore.db")).unwrap();
    let store = catalog
        .create_store(&NewStore {
            spec: &AddStore {
                name: "s".into(),
                includes: vec!["**/*.rs".into()],
                ..Default::default()
            },
            kind: StoreKind::Folder,
            source: "/src".into(),
            root: "/src".into(),
            max_file_bytes: 10,
            web: None,
            host: None,
        })
        .unwrap();
    assert!(matches!(
        folder_store(&catalog, "s", "/x"),
        Err(IndexError::StoreExists(_))
    ));
    assert_eq!(store.includes, ["**/*.rs"]);
    let chunk = Chunk {
        kind: ChunkKind::Function,
        language: Language::Rust,
        symbol: Some("f".into()),
        parent: None,
        signature: Some("fn f()".into()),
        doc: None,
        headings: vec![],
        start_line: 2,
        end_line: 3,
        start_byte: 5,
        end_byte: 20,
        content: "fn f() {}".into(),
        context: None,
    };
    let file = FileRecord {
        path: "a.rs".into(),
        size: 20,
        mtime_ns: 1,
        hash: "h".into(),
        chunks: 1,
        skipped: None,
        parse_error: None,
    };
    let tx = catalog.begin().unwrap();
    tx.replace_file(
        store.id,
        &file,
        &[ChunkRow {
            id: 42,
            chunk: &chunk,
            embedding: Some(&[0.5, 0.25]),
        }],
    )
    .unwrap();
    tx.commit().unwrap();
    assert_eq!(catalog.manifest(store.id).unwrap()["a.rs"], file);
    let got = catalog.chunks(&[42, 7]).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].chunk, chunk);
    let mut seen = Vec::new();
    catalog
        .for_each_embedding(store.id, |id, v| seen.push((id, v)))
        .unwrap();
    assert_eq!(seen, [(42, vec![0.5, 0.25])]);
    assert_eq!(catalog.stats(store.id).unwrap().chunks, 1);
    catalog.remove_store(store.id).unwrap();
    assert!(catalog.chunks(&[42]).unwrap().is_empty());
}

#[test]
fn a_write_transaction_outlasts_another_connections_write() {
    // The failure it guards against: a deferred transaction reads, another connection
    // commits a write, and the transaction's own write then fails at once with
    // "database is locked" (SQLite cannot upgrade its stale snapshot).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lore.db");
    let mut catalog = Catalog::open(&path).unwrap();
    let store = folder_store(&catalog, "s", "/src").unwrap();
    let id = store.id;
    let tx = catalog.begin().unwrap();
    assert!(tx.db.query_int("SELECT COUNT(*) FROM files", &[]).unwrap() == 0);
    let (done, wrote) = std::sync::mpsc::channel();
    let other = std::thread::spawn(move || {
        let other = Catalog::open(&path).unwrap();
        let out = other.set_root(id, Path::new("/elsewhere"));
        done.send(()).unwrap();
        out
    });
    // Give the other connection time to write if it can (it must wait for us).
    let _ = wrote.recv_timeout(std::time::Duration::from_millis(300));
    tx.bump_generation(id).unwrap();
    tx.commit().unwrap();
    other.join().unwrap().unwrap();
    assert_eq!(
        catalog.store_by_id(id).unwrap().unwrap().root,
        Path::new("/elsewhere")
    );
}

#[test]
fn a_file_read_again_keeps_its_symbols_and_says_which_names_changed() {
    use lore_core::{Binding, FileFacts, Receiver, RefKind, Reference, Symbol};
    let dir = tempfile::tempdir().unwrap();
    let mut catalog = Catalog::open(&dir.path().join("lore.db")).unwrap();
    let store = folder_store(&catalog, "s", "/src").unwrap();
    let symbol = |name: &str, line: u32, sig: &str| Symbol {
        name: name.into(),
        qualified: name.into(),
        kind: ChunkKind::Class,
        container: None,
        signature: Some(sig.into()),
        doc: None,
        exported: true,
        is_async: false,
        is_test: false,
        returns: None,
        params: vec![],
        decorators: vec![],
        start_line: line,
        end_line: line + 1,
        start_byte: 0,
        end_byte: 1,
    };
    let facts = |line: u32, base: &str, sig: &str| FileFacts {
        symbols: vec![
            symbol("Cart", line, sig),
            symbol("Item", line + 5, "class Item"),
        ],
        imports: vec![],
        refs: vec![Reference {
            kind: RefKind::Extends,
            caller: Some("Cart".into()),
            name: base.into(),
            receiver: Receiver::None,
            line,
        }],
        bindings: vec![Binding {
            owner: Some("Cart".into()),
            name: "items".into(),
            value: Receiver::Type("Item".into()),
        }],
    };
    let write = |c: &mut Catalog, f: &FileFacts| {
        let tx = c.begin().unwrap();
        let dirty = tx.replace_facts(store.id, "a.py", f).unwrap();
        tx.commit().unwrap();
        dirty
    };
    let c = &mut catalog;
    assert_eq!(write(c, &facts(1, "Base", "class Cart")), ["Cart", "Item"]);
    let ids = |c: &Catalog| -> Vec<i64> {
        c.file_symbols(store.id, "a.py")
            .unwrap()
            .iter()
            .map(|s| s.id)
            .collect()
    };
    let before = ids(c);
    // Moved down: the same symbols, the same ids, nothing to resolve elsewhere.
    assert!(write(c, &facts(9, "Base", "class Cart")).is_empty());
    assert_eq!(ids(c), before);
    assert_eq!(c.file_symbols(store.id, "a.py").unwrap()[0].start_line, 9);
    // A signature the resolver reads: that name.
    assert_eq!(write(c, &facts(9, "Base", "class Cart(Base)")), ["Cart"]);
    // Another base: every name the file defines.
    assert_eq!(
        write(c, &facts(9, "Other", "class Cart(Base)")),
        ["Cart", "Item"]
    );
    assert_eq!(ids(c), before);
}
