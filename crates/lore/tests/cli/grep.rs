//! `lore grep` against ripgrep, its ground truth: the same (path, line) pairs for every
//! pattern of `fixtures/grep/patterns.tsv` over two stores of this repository's own source,
//! and the same lines again once the folders are gone (read back from the catalog).

use crate::common::Lore;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

type Hits = BTreeSet<(String, String, u64)>;

fn patterns() -> Vec<(String, String)> {
    let text = include_str!("../fixtures/grep/patterns.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (flags, pattern) = l.split_once('\t').expect("flags, a tab, the pattern");
            (flags.trim_start_matches('-').to_string(), pattern.to_string())
        })
        .collect()
}

fn rg_or_skip() -> Option<PathBuf> {
    let found = Command::new("rg").arg("--version").output().is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "ripgrep (rg) is the ground truth of these tests; .ci/run installs it"
        );
        eprintln!("skipping: no rg");
        return None;
    }
    Some(PathBuf::from("rg"))
}

/// ripgrep's matches in `dir`, as (store, path, line).
fn rg(store: &str, dir: &Path, flags: &str, pattern: &str) -> Hits {
    let mut cmd = Command::new("rg");
    cmd.current_dir(dir)
        .args(["--line-number", "--no-heading", "--with-filename", "--null"]);
    if flags.contains('i') {
        cmd.arg("--ignore-case");
    }
    if flags.contains('F') {
        cmd.arg("--fixed-strings");
    }
    let out = cmd.args(["-e", pattern]).output().expect("rg runs");
    assert!(out.status.code().is_some_and(|c| c < 2), "rg {pattern:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let (path, rest) = l.split_once('\0').expect("path, NUL");
            let line = rest.split_once(':').expect("line:").0.parse().unwrap();
            (store.to_string(), path.to_string(), line)
        })
        .collect()
}

fn lore_grep(lore: &Lore, flags: &str, pattern: &str) -> Hits {
    let mut args = vec!["grep", "--max-lines", "0"];
    if flags.contains('i') {
        args.push("-i");
    }
    if flags.contains('F') {
        args.push("-F");
    }
    args.extend(["--", pattern]);
    let resp = lore.json(&args);
    assert_eq!(resp["truncated"], false, "{pattern:?}");
    let mut hits = Hits::new();
    for u in resp["units"].as_array().unwrap() {
        for l in u["lines"].as_array().unwrap() {
            let line = l["line"].as_u64().unwrap();
            assert!(
                u["unit_lines"][0].as_u64().unwrap() <= line
                    && line <= u["unit_lines"][1].as_u64().unwrap(),
                "{u:#}"
            );
            hits.insert((
                u["store"].as_str().unwrap().to_string(),
                u["path"].as_str().unwrap().to_string(),
                line,
            ));
        }
    }
    hits
}

#[test]
fn grep_finds_exactly_what_ripgrep_finds() {
    if rg_or_skip().is_none() {
        return;
    }
    let lore = Lore::without_model();
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    // Copies, so that they can be taken away below.
    let stores = [("chunk", "lore-chunk/src"), ("index", "lore-index/src")];
    for (name, rel) in stores {
        let dir = lore.path(name);
        crate::common::copy_dir(&crates.join(rel), &dir);
        lore.ok(&["store", "add", name, dir.to_str().unwrap(), "--embed", "none"]);
    }
    let mut matched = 0;
    for (flags, pattern) in patterns() {
        let mut want = Hits::new();
        for (name, _) in stores {
            want.extend(rg(name, &lore.path(name), &flags, &pattern));
        }
        let got = lore_grep(&lore, &flags, &pattern);
        let missing: Vec<_> = want.difference(&got).take(5).collect();
        let extra: Vec<_> = got.difference(&want).take(5).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "-{flags} {pattern:?}: lore {} lines, rg {}; missing {missing:?}, extra {extra:?}",
            got.len(),
            want.len()
        );
        matched += usize::from(!want.is_empty());
    }
    assert!(matched >= 30, "only {matched} patterns match anything");

    // A selective pattern reads few files, and the answer is grouped by unit.
    let resp = lore.json(&["grep", "fn trigrams"]);
    // On PostgreSQL the trigram index lives in a server's read copy: the CLI reads every file.
    if !crate::ON_POSTGRES {
        let (read, indexed) = (resp["read"].as_u64(), resp["indexed"].as_u64());
        assert!(read.unwrap() * 10 < indexed.unwrap(), "{resp:#}");
    }
    assert_eq!(resp["units"][0]["symbol"], "trigrams", "{resp:#}");
    assert_eq!(resp["units"][0]["kind"], "function", "{resp:#}");

    // With the folders gone (a server answering for a worker's store), the same lines come
    // from the catalog's chunks.
    let before: Vec<Hits> = ["GramQuery", "spin_(lock|unlock)(_irq)?\\(", "(Result|Option)<"]
        .iter()
        .map(|p| lore_grep(&lore, "", p))
        .collect();
    for (name, _) in stores {
        std::fs::rename(lore.path(name), lore.path(&format!("{name}-gone"))).unwrap();
    }
    for (i, p) in ["GramQuery", "spin_(lock|unlock)(_irq)?\\(", "(Result|Option)<"]
        .iter()
        .enumerate()
    {
        assert_eq!(lore_grep(&lore, "", p), before[i], "{p}");
    }
    assert!(!before[0].is_empty());
}

#[test]
fn bad_patterns_and_globs_are_refused_with_the_reason() {
    let lore = Lore::without_model();
    let dir = lore.path("proj");
    crate::common::write(&dir, "a.rs", "fn foo() {}\n");
    lore.ok(&["store", "add", "proj", dir.to_str().unwrap(), "--embed", "none"]);
    let err = lore.fails(&["grep", "foo("], 1);
    assert!(err.contains("does not parse") && err.contains("fixed"), "{err}");
    let out = lore.json(&["grep", "-F", "foo("]);
    assert_eq!(out["lines"], 1, "{out:#}");
    let err = lore.fails(&["grep", "foo", "-g", "a[.rs"], 1);
    assert!(err.contains("glob"), "{err}");
    let out = lore.json(&["grep", "foo", "-g", "*.py"]);
    assert_eq!(out["lines"], 0, "{out:#}");
}
