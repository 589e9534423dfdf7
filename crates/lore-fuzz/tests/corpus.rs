//! The fuzz corpora and every input that once failed, replayed through the fuzz targets on
//! stable in the normal test run: `fuzz/corpus/<target>/` and `fuzz/regressions/<target>/`.
//! Each test also requires a minimum number of files, so a lost corpus fails here.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

fn replay(target: &str, run: fn(&[u8]), at_least: usize) {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut replayed = 0;
    let mut failed = Vec::new();
    for dir in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(fuzz.join(dir).join(target)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths.iter().filter(|p| p.is_file()) {
            let data = std::fs::read(path).expect("a corpus file reads");
            if catch_unwind(AssertUnwindSafe(|| run(&data))).is_err() {
                failed.push(format!(
                    "{dir}/{target}/{}",
                    path.file_name()
                        .map_or_else(|| "?".into(), |n| n.to_string_lossy(),)
                ));
            }
            replayed += 1;
        }
    }
    assert!(failed.is_empty(), "{target}: failing inputs: {failed:?}");
    assert!(
        replayed >= at_least,
        "{target}: replayed {replayed} files, expected at least {at_least}"
    );
}

#[test]
fn analyze_code() {
    replay("analyze_code", lore_fuzz::analyze_code, 500);
}

#[test]
fn chunk_prose() {
    replay("chunk_prose", lore_fuzz::chunk_prose, 400);
}

#[test]
fn frontmatter() {
    replay("frontmatter", lore_fuzz::frontmatter, 400);
}

#[test]
fn html() {
    replay("html", lore_fuzz::html, 1500);
}

#[test]
fn robots() {
    replay("robots", lore_fuzz::robots, 400);
}

#[test]
fn url() {
    replay("url", lore_fuzz::url, 250);
}

#[test]
fn sitemap() {
    replay("sitemap", lore_fuzz::sitemap, 200);
}

#[test]
fn params() {
    replay("params", lore_fuzz::params, 1000);
}

#[test]
fn llm_json() {
    replay("llm_json", lore_fuzz::llm_json, 1000);
}
