//! Precision and recall of `calls` edges on four fixture projects with hand-listed true
//! edges (see tests/fixtures/graph/README.md). Fails when either drops below 0.9.

use lore_core::{DataDir, RefKind};
use lore_engine::{AddStore, Engine, EngineConfig, NoProgress};
use std::collections::BTreeSet;
use std::path::Path;

const PROJECTS: [&str; 4] = ["python-shop", "ts-tasks", "rust-kv", "go-notes"];

fn expected(project: &Path) -> BTreeSet<(String, String)> {
    let text = std::fs::read_to_string(project.join("EXPECTED_CALLS.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (a, b) = l.split_once('\t').unwrap();
            (a.to_string(), b.to_string())
        })
        .collect()
}

/// (true positives, found, expected) for one project, with the misses printed.
fn score(
    engine: &mut Engine,
    name: &str,
    root: &Path,
    min_confidence: f32,
) -> (usize, usize, usize) {
    let truth = expected(root);
    let found: BTreeSet<(String, String)> = engine
        .graph_edges(name, RefKind::Calls)
        .unwrap()
        .into_iter()
        .filter(|e| e.confidence >= min_confidence)
        .map(|e| {
            (
                format!("{}::{}", e.from_path, e.from),
                format!("{}::{}", e.to_path, e.to),
            )
        })
        .collect();
    let tp = found.intersection(&truth).count();
    for fp in found.difference(&truth) {
        eprintln!("{name}: false edge {} -> {}", fp.0, fp.1);
    }
    for miss in truth.difference(&found) {
        eprintln!("{name}: missed edge {} -> {}", miss.0, miss.1);
    }
    (tp, found.len(), truth.len())
}

/// An engine over a temp data dir that indexes without embeddings (no model needed).
fn bm25_engine() -> (tempfile::TempDir, Engine) {
    let data = tempfile::tempdir().unwrap();
    let engine = Engine::open_with(
        DataDir::new(data.path().to_path_buf()),
        EngineConfig {
            embed: false,
            ..Default::default()
        },
    )
    .unwrap();
    (data, engine)
}

#[test]
fn call_edges_reach_90_percent_precision_and_recall() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/graph");
    let (_data, mut engine) = bm25_engine();
    let (mut tp, mut found, mut truth) = (0, 0, 0);
    for p in PROJECTS {
        let root = fixtures.join(p);
        engine
            .add_store(
                &AddStore {
                    name: p.to_string(),
                    source: root.display().to_string(),
                    ..AddStore::default()
                },
                &NoProgress,
            )
            .unwrap();
        let (t, f, e) = score(&mut engine, p, &root, 0.0);
        eprintln!(
            "{p}: precision {:.3} recall {:.3} ({t} of {f} found, {e} true)",
            t as f64 / f.max(1) as f64,
            t as f64 / e as f64
        );
        tp += t;
        found += f;
        truth += e;
    }
    let precision = tp as f64 / found.max(1) as f64;
    let recall = tp as f64 / truth as f64;
    eprintln!(
        "all: precision {precision:.3} recall {recall:.3} ({tp} of {found} found, {truth} true)"
    );
    assert!(truth >= 150);
    assert!(precision >= 0.9, "precision {precision:.3}");
    assert!(recall >= 0.9, "recall {recall:.3}");
}

/// Asked who calls a method, search answers with the call sites the graph knows, even
/// those neither BM25 nor the vectors would rank.
#[test]
fn find_usage_answers_with_call_sites() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/graph");
    let (_data, mut engine) = bm25_engine();
    engine
        .add_store(
            &AddStore {
                name: "shop".into(),
                source: fixtures.join("python-shop").display().to_string(),
                ..AddStore::default()
            },
            &NoProgress,
        )
        .unwrap();
    let resp = engine
        .search(&lore_engine::SearchRequest {
            mode: lore_engine::Mode::Fts,
            limit: 5,
            ..lore_engine::SearchRequest::new("who calls apply_code")
        })
        .unwrap();
    assert_eq!(
        resp.intent.map(|i| i.intent),
        Some(lore_engine::Intent::FindUsage)
    );
    let top: Vec<(&str, Option<&str>)> = resp
        .results
        .iter()
        .map(|h| (h.unit.path.as_str(), h.unit.symbol.as_deref()))
        .collect();
    // Both call sites come before the definition.
    let pos = |p: &str| top.iter().position(|t| t.0 == p);
    let def = pos("shop/cart.py").unwrap_or(usize::MAX);
    for site in ["shop/cli.py", "tests/test_cart.py"] {
        let at = pos(site).unwrap_or_else(|| panic!("{site} missing: {top:?}"));
        assert!(at < def, "{site} after the definition: {top:?}");
    }
}
