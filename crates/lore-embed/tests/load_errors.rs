use std::fs;
use std::path::Path;

use lore_embed::{EmbedError, Embedder, MODEL_NAME, default_model_dir};

fn assert_helpful(msg: &str) {
    assert!(msg.contains("lore model fetch"), "{msg}");
    assert!(msg.contains("LORE_MODEL_DIR"), "{msg}");
}

#[test]
fn missing_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("nope");
    let err = Embedder::load(&dir).err().expect("load must fail");
    assert!(
        matches!(&err, EmbedError::ModelDirMissing { dir: d } if d == &dir),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(msg.contains(&*dir.to_string_lossy()), "{msg}");
    assert_helpful(&msg);
}

#[test]
fn missing_file() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("config.json"), "{}").unwrap();
    fs::write(tmp.path().join("tokenizer.json"), "{}").unwrap();
    let err = Embedder::load(tmp.path()).err().expect("load must fail");
    assert!(
        matches!(
            &err,
            EmbedError::ModelFileMissing {
                file: "model.safetensors",
                ..
            }
        ),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(msg.contains("model.safetensors"), "{msg}");
    assert_helpful(&msg);

    fs::remove_file(tmp.path().join("tokenizer.json")).unwrap();
    let err = Embedder::load(tmp.path()).err().unwrap();
    assert!(
        matches!(
            &err,
            EmbedError::ModelFileMissing {
                file: "tokenizer.json",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn invalid_config() {
    let tmp = tempfile::tempdir().unwrap();
    for f in ["config.json", "tokenizer.json", "model.safetensors"] {
        fs::write(tmp.path().join(f), "not json").unwrap();
    }
    let err = Embedder::load(tmp.path()).err().unwrap();
    assert!(matches!(&err, EmbedError::Config { .. }), "{err:?}");
    assert!(err.to_string().contains("config.json"), "{err}");
}

#[test]
fn model_dir_default() {
    let root = Path::new("/data/models");
    let dir = default_model_dir(root);
    match std::env::var_os("LORE_MODEL_DIR") {
        Some(v) if !v.is_empty() => assert_eq!(dir, Path::new(&v)),
        _ => assert_eq!(dir, root.join(MODEL_NAME)),
    }
}
