//! Files of a tree that their grammar reads only in part, per language, without an index:
//! what the chunker reports as `parse_error` for every file under a folder (all files,
//! ignore files not read), and the first lines of a sample of them.
//!
//!   cargo run --release -p lore-chunk --example parse_errors -- DIR [LANG] [SAMPLE]
//!
//! With LANG (`c`, `groovy`, …) only that language's files are read; SAMPLE (default 0)
//! prints that many of its failing files with the line of their first error.

use lore_chunk::{ChunkOptions, analyze_file};
use lore_core::Language;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(root) = args.next().map(PathBuf::from) else {
        eprintln!("usage: parse_errors DIR [LANG] [SAMPLE]");
        std::process::exit(2);
    };
    let only = args.next().and_then(|l| Language::parse(&l));
    let sample: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut failing = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        let lang = Language::from_path(Path::new(&rel));
        if !lang.is_code() || only.is_some_and(|l| l != lang) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let a = analyze_file(&rel, &text, &ChunkOptions::default());
        let c = counts.entry(lang.as_str()).or_default();
        c.0 += 1;
        if let Some(e) = a.parse_error {
            c.1 += 1;
            failing.push((rel, e.line, text));
        }
    }
    println!("| language | files | read in part | share |");
    println!("|---|---|---|---|");
    for (lang, (n, e)) in &counts {
        println!(
            "| {lang} | {n} | {e} | {:.1}% |",
            100.0 * *e as f64 / (*n).max(1) as f64
        );
    }
    // Every k-th failing file, for a sample spread over the tree.
    let step = (failing.len() / sample.max(1)).max(1);
    for (rel, line, text) in failing.iter().step_by(step).take(sample) {
        let at = text.lines().nth(*line as usize - 1).unwrap_or("").trim();
        println!("{rel}:{line}: {}", at.chars().take(120).collect::<String>());
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(t) = e.file_type() else { continue };
        if t.is_dir() {
            walk(&e.path(), out);
        } else if t.is_file() {
            out.push(e.path());
        }
    }
}
