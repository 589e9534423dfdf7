//! Retrieval quality on a labeled BEIR-layout set (`corpus.jsonl`, `queries.jsonl`,
//! `qrels/<split>.tsv`), measured through the real pipeline: the corpus is written out as
//! files, indexed as a scratch store, and every query goes through `Engine` search.

use crate::jsonl::JsonlOut;
use crate::metrics::{mrr_at, ndcg_at, recall_at};
use anyhow::{Context, bail};
use lore_engine::{Engine, Fusion, Mode, Progress};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct LabeledOptions {
    pub dir: PathBuf,
    /// qrels split (default: `test` if present, else the only file in qrels/).
    pub split: Option<String>,
    pub modes: Vec<Mode>,
    /// Per-query JSONL (default: `<data>/eval/<set>-<split>-<unix time>.jsonl`).
    pub out: Option<PathBuf>,
    pub max_queries: Option<usize>,
    /// Also score a grid of fusion settings (for tuning; see ARCHITECTURE.md).
    pub sweep: bool,
    /// Write every query's raw candidates (both signals, document ids) to this JSONL,
    /// for studying fusion offline.
    pub dump: Option<PathBuf>,
    /// Also measure tokens per result at each detail level (hybrid search, top 10).
    pub tokens: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ModeScores {
    pub mode: Mode,
    pub queries: usize,
    pub ndcg10: f64,
    pub mrr10: f64,
    pub recall10: f64,
    pub recall100: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct SweepRow {
    pub fusion: Fusion,
    pub ndcg10: f64,
    pub mrr10: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct LabeledReport {
    pub set: String,
    pub split: String,
    pub store: String,
    pub documents: usize,
    pub fusion: Fusion,
    pub scores: Vec<ModeScores>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sweep: Vec<SweepRow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<crate::tokens::Tokens>,
    pub out: PathBuf,
}

#[derive(Deserialize)]
struct Doc {
    #[serde(rename = "_id")]
    id: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    text: String,
}

#[derive(Deserialize)]
struct Query {
    #[serde(rename = "_id")]
    id: String,
    text: String,
}

fn read_jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> anyhow::Result<Vec<T>> {
    let f = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.with_context(|| format!("{} line {}", path.display(), i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        out.push(
            serde_json::from_str(&line).with_context(|| {
                format!("{} line {} is not a valid record", path.display(), i + 1)
            })?,
        );
    }
    Ok(out)
}

/// qrels: query id → (doc id → grade), keeping grades ≥ 1.
fn read_qrels(path: &Path) -> anyhow::Result<HashMap<String, HashMap<String, u32>>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut out: HashMap<String, HashMap<String, u32>> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 || (i == 0 && cols[2].parse::<i64>().is_err()) {
            continue;
        }
        let grade: i64 = cols[2].trim().parse().with_context(|| {
            format!("{} line {}: bad score {:?}", path.display(), i + 1, cols[2])
        })?;
        if grade >= 1 {
            out.entry(cols[0].to_string())
                .or_default()
                .insert(cols[1].to_string(), grade as u32);
        }
    }
    Ok(out)
}

fn pick_split(dir: &Path, split: Option<&str>) -> anyhow::Result<(String, PathBuf)> {
    let qrels = dir.join("qrels");
    if let Some(s) = split {
        let p = qrels.join(format!("{s}.tsv"));
        if !p.is_file() {
            bail!("no split {s:?}: {} does not exist", p.display());
        }
        return Ok((s.to_string(), p));
    }
    if qrels.join("test.tsv").is_file() {
        return Ok(("test".into(), qrels.join("test.tsv")));
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(&qrels)
        .with_context(|| {
            format!(
                "{} has no qrels/ folder (BEIR layout expected)",
                dir.display()
            )
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "tsv"))
        .collect();
    found.sort();
    match found.as_slice() {
        [one] => {
            let name = one
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok((name, one.clone()))
        }
        [] => bail!("no qrels/*.tsv in {}", dir.display()),
        _ => bail!(
            "several splits in {}; choose one with --split",
            qrels.display()
        ),
    }
}

/// The file extension that makes the chunker treat documents right: markdown when they have
/// titles, Python when they look like Python code, else plain text.
fn doc_extension(docs: &[Doc]) -> &'static str {
    let sample = &docs[..docs.len().min(200)];
    if sample.iter().any(|d| !d.title.trim().is_empty()) {
        return "md";
    }
    let pythonic = sample
        .iter()
        .filter(|d| {
            let t = d.text.trim_start();
            t.starts_with("def ")
                || t.starts_with("class ")
                || t.starts_with("async def ")
                || t.starts_with('@')
        })
        .count();
    if pythonic * 2 > sample.len() {
        "py"
    } else {
        "txt"
    }
}

fn file_stem_for(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes the corpus as one file per document (only files whose content changed), returns
/// relative path → doc id.
fn materialize(docs: &[Doc], dir: &Path) -> anyhow::Result<HashMap<String, String>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let ext = doc_extension(docs);
    let mut map = HashMap::new();
    let mut used = HashSet::new();
    for (i, d) in docs.iter().enumerate() {
        let mut stem = file_stem_for(&d.id);
        if !used.insert(stem.clone()) {
            stem = format!("{stem}__{i}");
            used.insert(stem.clone());
        }
        let rel = format!("{stem}.{ext}");
        let content = if d.title.trim().is_empty() {
            d.text.clone()
        } else {
            format!("# {}\n\n{}\n", d.title.trim(), d.text)
        };
        let path = dir.join(&rel);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(content.as_str()) {
            std::fs::write(&path, &content)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        map.insert(rel, d.id.clone());
    }
    Ok(map)
}

/// Documents in ranked order (best chunk per document), at most `k`.
fn docs_ranked(
    ranked: &[(i64, f32, lore_engine::Signals)],
    chunk_doc: &HashMap<i64, &str>,
    k: usize,
) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (id, _, _) in ranked {
        if let Some(doc) = chunk_doc.get(id)
            && seen.insert(*doc)
        {
            out.push(doc.to_string());
            if out.len() >= k {
                break;
            }
        }
    }
    out
}

fn sweep_grid() -> Vec<Fusion> {
    let mut grid = Vec::new();
    for a in [0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9] {
        grid.push(Fusion::convex(a));
    }
    for k in [10.0, 30.0, 60.0] {
        for w in [1.0, 1.5, 2.0, 3.0, 4.0] {
            grid.push(Fusion::Rrf {
                k,
                w_bm25: 1.0,
                w_vec: w,
            });
        }
    }
    grid
}

pub fn run(
    engine: &mut Engine,
    opts: &LabeledOptions,
    progress: &dyn Progress,
) -> anyhow::Result<LabeledReport> {
    let dir = &opts.dir;
    if !dir.is_dir() {
        bail!(
            "{} is not a folder (expected BEIR layout: corpus.jsonl, queries.jsonl, qrels/)",
            dir.display()
        );
    }
    if opts.modes.is_empty() {
        bail!("no modes to evaluate");
    }
    let set = std::fs::canonicalize(dir)?
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "set".into());
    let (split, qrels_path) = pick_split(dir, opts.split.as_deref())?;
    let docs: Vec<Doc> = read_jsonl(&dir.join("corpus.jsonl"))?;
    if docs.is_empty() {
        bail!("{} has no documents", dir.join("corpus.jsonl").display());
    }
    let queries: Vec<Query> = read_jsonl(&dir.join("queries.jsonl"))?;
    let qrels = read_qrels(&qrels_path)?;
    let mut queries: Vec<Query> = queries
        .into_iter()
        .filter(|q| qrels.contains_key(&q.id))
        .collect();
    if let Some(n) = opts.max_queries {
        queries.truncate(n);
    }
    if queries.is_empty() {
        bail!(
            "no query of {} has relevance judgements in {}",
            set,
            qrels_path.display()
        );
    }

    // The corpus becomes a scratch store, kept between runs so only changes are re-embedded.
    let store_name = format!("eval-{}", file_stem_for(&set));
    let corpus_dir = engine.data_dir().root().join("eval").join(&store_name);
    progress.message(&format!(
        "writing {} documents to {}",
        docs.len(),
        corpus_dir.display()
    ));
    let path_doc = materialize(&docs, &corpus_dir)?;
    drop(docs);
    match engine.store_record(&store_name) {
        Ok(_) => {
            engine.index(std::slice::from_ref(&store_name), false, progress)?;
        }
        Err(_) => {
            let req = lore_engine::AddStore {
                name: store_name.clone(),
                source: corpus_dir.to_string_lossy().into_owned(),
                kind: Some(lore_core::StoreKind::Folder),
                description: Some(format!("labeled eval corpus {set}")),
                ..Default::default()
            };
            engine.add_store(&req, progress)?;
        }
    }
    let chunk_paths = engine.chunk_paths(&store_name)?;
    let chunk_doc: HashMap<i64, &str> = chunk_paths
        .iter()
        .filter_map(|(id, p)| path_doc.get(p).map(|d| (*id, d.as_str())))
        .collect();
    let store = engine.store_record(&store_name)?;
    let fusion = engine.config().fusion;

    let mut w = JsonlOut::create(engine, opts.out.as_deref(), &format!("{set}-{split}"))?;

    let grid = if opts.sweep { sweep_grid() } else { Vec::new() };
    let mut sums = vec![[0f64; 4]; opts.modes.len()];
    let mut sweep_sums = vec![[0f64; 2]; grid.len()];
    let any_vectors = opts.modes.iter().any(|m| *m != Mode::Fts) || opts.sweep;
    let retrieve_mode = if any_vectors { Mode::Hybrid } else { Mode::Fts };
    let mut dump = match &opts.dump {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot write {}", p.display()))?,
        )),
        None => None,
    };
    progress.start(lore_engine::Phase::Queries, queries.len() as u64);
    for q in &queries {
        let rels = &qrels[&q.id];
        let retrieved =
            engine.retrieve(&q.text, std::slice::from_ref(&store), retrieve_mode, 200)?;
        if let Some(d) = dump.as_mut() {
            let c = &retrieved.candidates;
            let doc = |id: &i64| chunk_doc.get(id).copied().unwrap_or("");
            let line = serde_json::json!({
                "query_id": q.id, "query": q.text, "relevant": rels,
                "bm25_max": c.bm25_max,
                "bm25": c.bm25.iter().map(|(id, s)| (doc(id), s)).collect::<Vec<_>>(),
                "vector": c.vector.iter().map(|(id, s)| (doc(id), s)).collect::<Vec<_>>(),
                "extra_cosine": c.extra_cosine.iter().map(|(id, s)| (doc(id), s)).collect::<Vec<_>>(),
            });
            writeln!(d, "{line}")?;
        }
        for (mi, mode) in opts.modes.iter().enumerate() {
            let ranked = Engine::rank(&retrieved, *mode, fusion);
            let top = docs_ranked(&ranked, &chunk_doc, 100);
            let m = [
                ndcg_at(&top, rels, 10),
                mrr_at(&top, rels, 10),
                recall_at(&top, rels, 10),
                recall_at(&top, rels, 100),
            ];
            for (s, v) in sums[mi].iter_mut().zip(m) {
                *s += v;
            }
            let line = serde_json::json!({
                "set": set, "split": split, "query_id": q.id, "query": q.text, "mode": mode,
                "ndcg10": m[0], "mrr10": m[1], "recall10": m[2], "recall100": m[3],
                "top10": &top[..top.len().min(10)],
                "relevant": rels.keys().collect::<Vec<_>>(),
            });
            w.line(&line)?;
        }
        for (gi, f) in grid.iter().enumerate() {
            let ranked = Engine::rank(&retrieved, Mode::Hybrid, *f);
            let top = docs_ranked(&ranked, &chunk_doc, 10);
            sweep_sums[gi][0] += ndcg_at(&top, rels, 10);
            sweep_sums[gi][1] += mrr_at(&top, rels, 10);
        }
        progress.advance(lore_engine::Phase::Queries, 1);
    }
    progress.finish(lore_engine::Phase::Queries);
    let tokens = if opts.tokens {
        let asked: Vec<(String, Option<lore_engine::Intent>)> =
            queries.iter().map(|q| (q.text.clone(), None)).collect();
        let mode = if any_vectors { Mode::Hybrid } else { Mode::Fts };
        let t = crate::tokens::measure(engine, &asked, std::slice::from_ref(&store_name), mode)?;
        w.line(&serde_json::json!({"type": "tokens", "set": set, "split": split, "tokens": t}))?;
        Some(t)
    } else {
        None
    };
    let n = queries.len() as f64;
    let scores: Vec<ModeScores> = opts
        .modes
        .iter()
        .zip(&sums)
        .map(|(mode, s)| ModeScores {
            mode: *mode,
            queries: queries.len(),
            ndcg10: s[0] / n,
            mrr10: s[1] / n,
            recall10: s[2] / n,
            recall100: s[3] / n,
        })
        .collect();
    for s in &scores {
        let line = serde_json::json!({
            "type": "summary", "set": set, "split": split, "mode": s.mode, "queries": s.queries,
            "documents": path_doc.len(), "fusion": fusion,
            "ndcg10": s.ndcg10, "mrr10": s.mrr10, "recall10": s.recall10, "recall100": s.recall100,
        });
        w.line(&line)?;
    }
    let out = w.finish()?;
    let sweep = grid
        .into_iter()
        .zip(sweep_sums)
        .map(|(fusion, s)| SweepRow {
            fusion,
            ndcg10: s[0] / n,
            mrr10: s[1] / n,
        })
        .collect();
    Ok(LabeledReport {
        set,
        split,
        store: store_name,
        documents: path_doc.len(),
        fusion,
        scores,
        sweep,
        tokens,
        out,
    })
}
