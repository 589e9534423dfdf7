//! Issue 16, item 3: bring your own embeddings. With `LORE_EMBED_URL` lore embeds through an
//! OpenAI-compatible server (a local one here, spoken to as to any other) and needs no model
//! of its own; each store records what made its vectors, and searching or indexing it with
//! another embedder is a clear error until `lore index --reembed`.

use crate::common::embeddings::{self, FakeEmbeddings};
use crate::common::{Lore, run_command, write};
use crate::s;
use std::time::Duration;

fn with_endpoint(lore: &Lore, server: &FakeEmbeddings, args: &[&str]) -> crate::common::Out {
    let mut cmd = lore.command(args);
    cmd.env("LORE_EMBED_URL", server.url())
        .env("LORE_EMBED_MODEL", embeddings::MODEL);
    run_command(&mut cmd, Duration::from_secs(300))
}

#[test]
fn an_embedding_server_stands_in_for_the_model_and_models_never_mix() {
    let lore = Lore::without_model();
    let server = FakeEmbeddings::start();
    let docs = lore.path("docs");
    write(&docs, "quolls.md", "# Quolls\n\nQuolls hunt insects at night in the forest.\n");
    write(&docs, "deploys.md", "# Deploys\n\nDeploys go through the staging cluster first.\n");
    let out = with_endpoint(&lore, &server, &["--json", "store", "add", "docs", s(&docs)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(server.requests() > 0);
    // No model was fetched: the server made every vector.
    assert!(!lore.data().join("models").exists());
    let info = lore.json(&["store", "info", "docs"]);
    assert_eq!(info["embedder"], format!("{}/{}", embeddings::MODEL, embeddings::DIM));
    assert_eq!(info["embedded"], info["chunks"], "{info}");
    let out = with_endpoint(
        &lore,
        &server,
        &["--json", "search", "quolls hunting insects at night", "--mode", "vector"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let found = out.json();
    assert_eq!(found["results"][0]["path"], "quolls.md", "{found:#}");

    // A bad configuration says what is missing.
    let mut cmd = lore.command(&["search", "x"]);
    cmd.env("LORE_EMBED_URL", server.url());
    let out = run_command(&mut cmd, Duration::from_secs(60));
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("LORE_EMBED_MODEL"), "{}", out.stderr);
    let mut cmd = lore.command(&["--json", "search", "quolls", "--mode", "vector"]);
    cmd.env("LORE_EMBED_URL", server.url()).env("LORE_EMBED_MODEL", "other");
    let out = run_command(&mut cmd, Duration::from_secs(60));
    assert_ne!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("no model"), "{}", out.stderr);

    // The built-in model would make other vectors: refused, with the way out.
    let Some(model) = crate::common::model_dir() else {
        return;
    };
    let local = |args: &[&str]| {
        let mut cmd = lore.command(args);
        cmd.env("LORE_MODEL_DIR", &model);
        run_command(&mut cmd, Duration::from_secs(300))
    };
    let out = local(&["search", "quolls hunting", "--mode", "vector"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("was embedded with fake-embed/64")
            && out.stderr.contains("lore index --reembed docs"),
        "{}",
        out.stderr
    );
    // Keyword search needs no vectors and still works.
    let out = local(&["--json", "search", "quolls", "--mode", "fts"]);
    assert_eq!(out.code, 0, "{out:?}");
    let out = local(&["--json", "index", "--reembed", "docs"]);
    assert_eq!(out.code, 0, "{out:?}");
    let report = &out.json()[0];
    assert_eq!(report["embedded"], report["chunks_written"], "{report}");
    let info = lore.json(&["store", "info", "docs"]);
    assert_eq!(info["embedder"], "all-MiniLM-L6-v2/384", "{info}");
    let out = local(&["--json", "search", "nocturnal marsupial predators", "--mode", "vector"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["results"][0]["path"], "quolls.md");
}

/// Issue 16, item 1: `--embed none` keeps a store without vectors and needs no model;
/// `lore index --embed` gives it vectors later.
#[test]
fn a_store_can_be_kept_without_vectors_and_embedded_later() {
    let lore = Lore::without_model();
    let docs = lore.path("docs");
    write(&docs, "quolls.md", "# Quolls\n\nQuolls hunt insects at night in the forest.\n");
    let added = lore.json(&["store", "add", "docs", s(&docs), "--embed", "none"]);
    assert_eq!(added["report"]["embedded"], 0, "{added}");
    assert!(!lore.data().join("models").exists(), "a model fetch was attempted");
    let info = lore.json(&["store", "info", "docs"]);
    assert_eq!((&info["embedder"], &info["embedded"]), (&serde_json::json!("none"), &serde_json::json!(0)));
    // Hybrid (the default) answers by keyword, without asking for a model.
    let found = lore.json(&["search", "quolls at night"]);
    assert_eq!(found["results"][0]["path"], "quolls.md", "{found:#}");
    assert_eq!(found["stores"][0]["embedded"], 0.0, "{found:#}");
    lore.json(&["index", "docs"]);
    assert_eq!(lore.json(&["store", "info", "docs"])["embedded"], 0);

    let Some(model) = crate::common::model_dir() else {
        return;
    };
    let mut cmd = lore.command(&["--json", "index", "--embed", "docs"]);
    cmd.env("LORE_MODEL_DIR", &model);
    let out = run_command(&mut cmd, Duration::from_secs(300));
    assert_eq!(out.code, 0, "{out:?}");
    let info = lore.json(&["store", "info", "docs"]);
    assert_eq!(info["embedded"], info["chunks"], "{info}");
    assert_eq!(info["embedder"], "all-MiniLM-L6-v2/384", "{info}");
}
