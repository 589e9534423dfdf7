//! The README and docs/ stay true: every relative link resolves, and every `lore` command
//! the README shows in a code block is one the binary has.

use crate::common::Lore;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The relative link targets of a markdown file (`](target)`, anchors dropped).
fn links(text: &str) -> Vec<String> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(|t| t.split('#').next().unwrap_or("").to_string())
        .filter(|t| !t.is_empty() && !t.contains("://") && !t.starts_with("mailto:"))
        .collect()
}

#[test]
fn readme_and_docs_links_resolve_and_commands_exist() {
    let root = repo();
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p);
        }
    }
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for target in links(&text) {
            let at = file.parent().unwrap().join(&target);
            assert!(
                at.exists(),
                "{}: link {target} leads nowhere",
                file.display()
            );
        }
    }

    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let lore = Lore::without_model();
    let mut in_block = false;
    let mut checked = 0;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        let Some(rest) = line.trim().strip_prefix("lore ").filter(|_| in_block) else {
            continue;
        };
        // The subcommand and, for those with their own, the sub-subcommand.
        let words: Vec<&str> = rest
            .split_whitespace()
            .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
            .take(2)
            .collect();
        let mut args = words.clone();
        args.push("--help");
        let out = lore.run(&args);
        let ok = out.code == 0 || (words.len() == 2 && lore.run(&[words[0], "--help"]).code == 0);
        assert!(
            ok,
            "README shows `lore {rest}`, which the binary does not know: {}",
            out.stderr
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} commands found in the README");
}
