//! The labeled sets about this repository name places that exist: a file moved or a symbol
//! renamed makes the set measure nothing until its labels follow.

use std::path::Path;

#[test]
fn the_intents_set_labels_files_and_symbols_this_repository_holds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let set = std::fs::read_to_string(root.join("crates/lore-eval/sets/intents-lore.jsonl"))
        .expect("the set");
    let mut labels = 0;
    for line in set.lines().filter(|l| !l.trim().is_empty()) {
        let q: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        for r in q["relevant"].as_array().expect("relevant") {
            let path = r["path"].as_str().expect("path");
            let text = std::fs::read_to_string(root.join(path))
                .unwrap_or_else(|e| panic!("{}: {path}: {e}", q["query"]));
            if let Some(symbol) = r["symbol"].as_str() {
                let last = symbol.rsplit("::").next().unwrap_or(symbol);
                assert!(text.contains(last), "{}: no {symbol} in {path}", q["query"]);
            }
            labels += 1;
        }
    }
    assert!(labels >= 30, "{labels} labels");
}
