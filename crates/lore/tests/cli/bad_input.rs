//! Bad input: clear one-line errors with the documented exit codes, and unindexable files.

use crate::common::{self, Lore, assert_first, run_command, write};
use crate::s;
use std::time::Duration;

/// Everything here fails before the model is needed, so it runs without one.
#[test]
fn bad_input_fails_cleanly_without_a_model() {
    let lore = Lore::without_model();
    let dir = lore.path("src");
    write(&dir, "a.txt", "hello there");

    let err = lore.fails(&["store", "add", "x", "/nonexistent/path"], 1);
    assert!(err.contains("/nonexistent/path"), "{err}");
    let err = lore.fails(&["store", "add", "../x", s(&dir)], 1);
    assert!(err.contains("../x"), "{err}");
    lore.fails(&["store", "add", "a/b", s(&dir)], 1);
    lore.fails(&["store", "add", "", s(&dir)], 1);
    let err = lore.fails(&["store", "add", "x", s(&dir), "--include", "src/["], 1);
    assert!(err.contains("src/["), "{err}");
    lore.fails(&["store", "add", "x", s(&dir), "--exclude", "a{b"], 1);
    lore.fails(&["store", "add", "x", s(&dir), "--max-file-size", "0"], 1);
    lore.fails(&["store", "add", "x", s(&dir), "--branch", "main"], 1);
    lore.fails(&["store", "add", "x", s(&dir.join("a.txt"))], 1);

    let err = lore.fails(&["search", ""], 1);
    assert!(err.contains("empty"), "{err}");
    lore.fails(&["search", "   "], 1);
    for mode in ["hybrid", "vector", "fts"] {
        let err = lore.fails(&["search", "hello", "--mode", mode], 1);
        assert!(err.contains("lore store add"), "{mode}: {err}");
    }
    let err = lore.fails(&["search", "hello", "--limit", "0"], 1);
    assert!(err.contains("--limit"), "{err}");
    lore.fails(&["search", "hello", "--per-file", "0"], 1);
    // Issue 29, item 11: a fused score is between 0 and 1.
    for t in ["--threshold=1.5", "--threshold=-0.1"] {
        let err = lore.fails(&["search", "hello", t], 1);
        assert!(err.contains("--threshold must be between 0 and 1"), "{t}: {err}");
    }

    let err = lore.fails(&["store", "info", "nope"], 2);
    assert!(err.contains("nope"), "{err}");
    lore.fails(&["search", "q", "--stores", "nope"], 2);
    lore.fails(
        &["search", "q", "--stores", "nope", "--mode", "fts", "--json"],
        2,
    );
    lore.fails(&["store", "remove", "nope"], 2);
    lore.fails(&["index", "nope"], 2);
    lore.fails(&["sync", "nope"], 2);

    // Usage errors come from clap (multi-line usage help), still exit 1 and no panic.
    for args in [
        &["frobnicate"][..],
        &["search", "q", "--bogus"],
        &["search", "q", "--mode", "fuzzy"],
        &["search", "q", "--limit", "many"],
        &["store"],
        &["store", "add", "x"],
    ] {
        let out = lore.run(args);
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert!(
            out.stderr.starts_with("error: "),
            "{args:?}: {}",
            out.stderr
        );
        assert!(!out.stderr.contains("panicked"), "{args:?}: {}", out.stderr);
    }
    assert_eq!(lore.run(&["--help"]).code, 0);

    // Nothing was created, fetched or written outside the temp world.
    assert_eq!(lore.json(&["store", "list"]), serde_json::json!([]));
    assert!(
        !lore.data().join("models").exists(),
        "a model fetch was attempted"
    );
    assert!(!lore.path("home/.local/share/lore").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("a.txt")).unwrap(),
        "hello there"
    );
    // The source alone names the store after its folder; a root names nothing.
    let err = lore.fails(&["store", "add", "/"], 1);
    assert!(err.contains("lore store add NAME /"), "{err}");
    let added = lore.json(&["store", "add", s(&dir), "--embed", "none"]);
    assert_eq!(added["store"]["name"], "src", "{added}");
}

#[test]
fn index_with_no_stores_needs_no_model() {
    let lore = Lore::without_model();
    for cmd in ["index", "sync"] {
        let out = lore.run(&["--json", cmd]);
        assert!(!out.stderr.contains("panicked"), "{cmd}: {}", out.stderr);
        assert!(
            !lore.data().join("models").exists(),
            "{cmd} tried to fetch the model: {}",
            out.stderr
        );
        // Nothing to do is either success with no reports or the "add a store" hint.
        match out.code {
            0 => assert_eq!(out.json(), serde_json::json!([]), "{cmd}"),
            1 => assert!(
                out.stderr.contains("lore store add"),
                "{cmd}: {}",
                out.stderr
            ),
            c => panic!("{cmd}: exit {c}: {}", out.stderr),
        }
    }
}

#[test]
fn unindexable_files_are_skipped_and_duplicates_refused() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let dir = lore.path("mixed");
    write(
        &dir,
        "good.rs",
        "/// Folds the quokka ledger.\npub fn fold_quokka_ledger() -> u32 {\n    7\n}\n",
    );
    write(
        &dir,
        "notes.md",
        "# Notes\n\nThe wombat audit is due on Friday.\n",
    );
    write(&dir, "latin1.txt", b"caf\xe9 cr\xe8me br\xfbl\xe9e\n");
    write(
        &dir,
        "blob.bin",
        [0x7fu8, b'E', b'L', b'F', 0, 0, 1, 2, 3, 0, 0, 0],
    );
    write(&dir, "big.txt", "padding ".repeat(400)); // 3200 bytes

    let added = lore.json(&["store", "add", "s", s(&dir), "--max-file-size", "2000"]);
    let report = &added["report"];
    let mut skipped: Vec<(String, String)> = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["path"].as_str().unwrap().to_string(),
                v["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    skipped.sort();
    assert_eq!(
        skipped,
        [
            ("big.txt".to_string(), "too large (3200 bytes)".to_string()),
            ("blob.bin".to_string(), "binary".to_string()),
            ("latin1.txt".to_string(), "not UTF-8".to_string()),
        ],
        "{report:#}"
    );
    assert_eq!(report["added"], 2, "{report:#}");
    let info = lore.json(&["store", "info", "s"]);
    assert_eq!(info["files"], 2, "{info:#}");
    assert_eq!(info["max_file_bytes"], 2000, "{info:#}");
    assert_first(&lore.search("fold_quokka_ledger", "fts", &[]), "good.rs");
    assert_first(&lore.search("wombat audit", "hybrid", &[]), "notes.md");

    // A second incremental run still reports them and indexes nothing.
    let r = &lore.json(&["index"])[0];
    assert_eq!(r["skipped"].as_array().unwrap().len(), 3, "{r:#}");
    assert_eq!(r["chunks_written"], 0, "{r:#}");

    // The same add again indexes the store (a quick start can be rerun); another
    // definition under the name is refused, naming what differs.
    let again = lore.json(&["store", "add", "s", s(&dir), "--max-file-size", "2000"]);
    assert_eq!(again["existed"], true, "{again:#}");
    assert_eq!(again["report"]["chunks_written"], 0, "{again:#}");
    let err = lore.fails(&["store", "add", "s", s(&dir)], 1);
    assert!(err.contains("already exists") && err.contains("max_file_size: 2000"), "{err}");
    assert_eq!(lore.json(&["store", "list"]).as_array().unwrap().len(), 1);
}

#[test]
fn skipped_files_do_not_make_a_store_look_stale() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let dir = lore.path("mixed");
    write(
        &dir,
        "notes.md",
        "# Notes\n\nThe wombat audit is due on Friday.\n",
    );
    write(&dir, "latin1.txt", b"caf\xe9\n");
    write(&dir, "blob.bin", [1u8, 0, 2, 0]);
    lore.json(&["store", "add", "s", s(&dir)]);
    lore.json(&["index"]);
    let resp = lore.search("wombat", "fts", &[]);
    assert_eq!(
        resp["stores"][0]["changed_files"], 0,
        "{:#}",
        resp["stores"]
    );
    let out = lore.run(&["search", "wombat", "--mode", "fts"]);
    assert!(!out.stderr.contains("stale"), "{}", out.stderr);
}

#[test]
fn corrupt_vectors_and_missing_model_give_clear_errors() {
    if crate::common::on_postgres() {
        // The vectors are a column of the catalog there, not a snapshot file to damage.
        return;
    }
    let Some((lore, proj)) = Lore::with_project_or_skip() else {
        return;
    };
    lore.json(&["store", "add", "proj", s(&proj)]);
    let vectors = lore.store_dir("proj").join("vectors.bin");
    assert!(vectors.is_file(), "{} missing", vectors.display());

    std::fs::write(
        &vectors,
        b"this is not a vector snapshot at all, just garbage bytes",
    )
    .unwrap();
    for mode in ["vector", "hybrid"] {
        let err = lore.fails(
            &["search", "edit distance between words", "--mode", mode],
            3,
        );
        assert!(err.contains("run `lore index`"), "{mode}: {err}");
        assert!(err.contains("vectors.bin"), "{mode}: {err}");
    }
    let r = &lore.json(&["index", "--full"])[0];
    assert_eq!(r["files_seen"], 5, "{r:#}");
    assert_first(
        &lore.search(
            "minimum number of character edits between two words",
            "vector",
            &[],
        ),
        "src/edit.rs",
    );

    // Without the model, vector search says how to get it; BM25 search still works.
    let empty = lore.path("no-model");
    std::fs::create_dir_all(&empty).unwrap();
    let mut cmd = lore.command(&["search", "edit distance", "--mode", "vector"]);
    cmd.env("LORE_MODEL_DIR", &empty);
    let out = run_command(&mut cmd, Duration::from_secs(60));
    assert_eq!(out.code, 1, "{out:?}");
    let err = common::one_error_line(&out.stderr, &["search", "--mode", "vector"]);
    assert!(err.contains("lore model fetch"), "{err}");
    let mut cmd = lore.command(&["--json", "search", "levenshtein_distance", "--mode", "fts"]);
    cmd.env("LORE_MODEL_DIR", &empty);
    let out = run_command(&mut cmd, Duration::from_secs(60));
    assert_eq!(out.code, 0, "{out:?}");
    assert_first(&out.json(), "src/edit.rs");
    assert!(!empty.join("model.safetensors").exists());
}

#[test]
fn an_empty_store_is_never_silent() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let empty = lore.path("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let binary = lore.path("binary");
    write(&binary, "blob.bin", [1u8, 0, 2, 0]);
    let code = lore.path("code");
    write(&code, "a.rs", "pub fn numbat_census() -> u32 {\n    3\n}\n");

    let out = lore.run(&["store", "add", "empty", s(&empty)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("warning: nothing indexed: no files found under"),
        "{}",
        out.stderr
    );
    let added = lore.json(&["store", "add", "bin", s(&binary)]);
    let warnings = added["report"]["warnings"].to_string();
    assert!(warnings.contains("1 binary"), "{added:#}");
    let out = lore.run(&["store", "add", "globbed", s(&code), "--include", "*.zig"]);
    assert!(
        out.stderr.contains("include/exclude globs"),
        "{}",
        out.stderr
    );
    let added = lore.json(&["store", "add", "code", s(&code)]);
    assert!(added["report"].get("warnings").is_none(), "{added:#}");

    // A search over an empty store says so; over a full one it does not.
    let resp = lore.search("numbat census", "fts", &[]);
    assert_first(&resp, "a.rs");
    let warnings = resp["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 3, "{resp:#}");
    assert!(warnings[0].as_str().unwrap().contains("store "), "{resp:#}");
    let resp = lore.search("numbat census", "fts", &["--stores", "code"]);
    assert!(resp.get("warnings").is_none(), "{resp:#}");
    let out = lore.run(&["search", "numbat", "--stores", "empty", "--mode", "fts"]);
    assert!(
        out.stderr.contains("warning: store empty is empty"),
        "{}",
        out.stderr
    );
}

/// `lore … | head` closes the pipe early: the command ends quietly, never with a panic.
#[test]
fn a_closed_stdout_ends_quietly() {
    let lore = Lore::without_model();
    let mut child = lore
        .command(&["--json", "store", "list"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

#[test]
fn an_ignore_file_that_hides_the_tree_is_named_and_no_ignore_reads_past_it() {
    let lore = Lore::without_model();
    // Debian's kernel source ships a `.gitignore` of `/*` then `!/debian/`.
    let src = lore.path("linux");
    write(&src, ".gitignore", "/*\n!/debian/\n");
    write(&src, "debian/rules", "build:\n\tmake\n");
    write(&src, "mm/slab.c", "void *kmalloc_array(int n) { return 0; }\n");
    write(&src, "kernel/fork.c", "int copy_process(void) { return 0; }\n");
    write(&src, "Makefile", "all:\n");

    let out = lore.run(&["store", "add", "linux", s(&src), "--embed", "none"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("3 of the 5 entries at the top of")
            && out.stderr.contains("the rule `/*` in .gitignore")
            && out.stderr.contains("--no-ignore"),
        "{}",
        out.stderr
    );
    let added = lore.json(&["store", "add", "all", s(&src), "--embed", "none", "--no-ignore"]);
    assert_eq!(added["report"]["files_seen"], 4, "{added:#}");
    assert!(added["report"].get("warnings").is_none(), "{added:#}");
    let found = lore.search("kmalloc_array", "fts", &["--stores", "all"]);
    assert_first(&found, "mm/slab.c");
    assert_eq!(lore.json(&["store", "info", "all"])["no_ignore"], true);
    // Kept with the store: the next run walks the same way.
    let again = lore.json(&["index", "all"]);
    assert!(again.to_string().contains("\"files_seen\":4"), "{again:#}");

    // The same in a project file, changed in place.
    let toml = |flag: &str| format!("[stores.tree]\nsource = \".\"\nembed = \"none\"\n{flag}");
    write(&src, "lore.toml", toml(""));
    let sync = |lore: &Lore| {
        let mut cmd = lore.command(&["--json", "sync", "--yes"]);
        cmd.current_dir(&src);
        let out = run_command(&mut cmd, Duration::from_secs(120));
        assert_eq!(out.code, 0, "{out:?}");
        out.json()
    };
    assert!(sync(&lore).to_string().contains("\"files\":1"));
    write(&src, "lore.toml", toml("no_ignore = true\n"));
    let r = sync(&lore);
    assert!(r.to_string().contains("no_ignore: false → true"), "{r:#}");
    assert!(r.to_string().contains("\"files\":5"), "{r:#}");
}
