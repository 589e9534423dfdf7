//! Checks the embedder against embeddings computed by sentence-transformers
//! (`tests/data/reference.jsonl`, see its README). Needs the model: set LORE_MODEL_DIR.

use std::path::PathBuf;

use lore_embed::{DIM, Embedder};

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

/// The model (`$LORE_MODEL_DIR`, else the shared one, fetched once); `None` (skip, saying
/// why) when it cannot be had outside CI, a failure in CI.
fn model_dir() -> Option<PathBuf> {
    match lore_embed::shared_model_dir() {
        Ok(dir) => Some(dir),
        Err(e) if std::env::var_os("CI").is_some() => {
            panic!("CI is set but the embedding model cannot be had: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED reference_embeddings: no embedding model ({e})");
            None
        }
    }
}

struct Reference {
    text: String,
    embedding: Vec<f32>,
}

fn references() -> Vec<Reference> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/reference.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            Reference {
                text: v["text"].as_str().unwrap().to_string(),
                embedding: v["embedding"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap() as f32)
                    .collect(),
            }
        })
        .collect()
}

#[test]
fn reference_embeddings() {
    let Some(dir) = model_dir() else { return };
    let embedder = Embedder::load(&dir).unwrap();
    let refs = references();
    assert_eq!(refs.len(), 22);
    let texts: Vec<&str> = refs.iter().map(|r| r.text.as_str()).collect();

    let batched = embedder.embed(&texts).unwrap();
    assert_eq!(batched.len(), refs.len());
    let mut min_cos = f32::MAX;
    for (r, got) in refs.iter().zip(&batched) {
        assert_eq!(got.len(), DIM);
        let norm: f32 = got.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm} for {:?}", r.text);
        let cos = cosine(got, &r.embedding);
        assert!(cos >= 0.999, "cosine {cos} < 0.999 for {:?}", r.text);
        min_cos = min_cos.min(cos);
    }
    eprintln!("reference_embeddings: min cosine vs sentence-transformers {min_cos:.7}");

    for (text, b) in texts.iter().zip(&batched) {
        let single = embedder.embed_query(text).unwrap();
        let cos = cosine(&single, b);
        assert!(cos >= 0.9999, "batched vs single cosine {cos} for {text:?}");
    }

    // Another batch size gives the same vectors, in input order.
    let small = Embedder::load(&dir).unwrap().with_batch_size(3);
    for (a, b) in small.embed(&texts).unwrap().iter().zip(&batched) {
        assert!(cosine(a, b) >= 0.9999);
    }
    assert!(embedder.embed(&[]).unwrap().is_empty());
}
