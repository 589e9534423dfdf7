//! A map of a store in one answer an agent can afford: its modules (communities of the
//! file graph, named from their folders), the hubs most called, the entry points, and the
//! links between modules, written within a token budget.

use crate::{Engine, EngineError};
use lore_core::RefKind;
use lore_index::ResolvedRef;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Tokens a map is written in unless asked otherwise.
pub const DEFAULT_MAP_TOKENS: usize = 2000;
/// Label-propagation rounds (it settles in a few on real trees).
const ROUNDS: usize = 12;
/// Patterns a map lists.
const MAP_PATTERNS: usize = 8;
/// How much a file's own folder pulls it, against its links' shares.
const HOME_PULL: f64 = 0.5;

#[derive(Debug, Clone, Serialize)]
pub struct StoreMap {
    pub store: String,
    pub files: usize,
    pub definitions: usize,
    /// Files per language, most first.
    pub languages: Vec<(String, usize)>,
    /// Largest first.
    pub modules: Vec<Module>,
    pub hubs: Vec<Hub>,
    pub entry_points: Vec<Hub>,
    /// The largest patterns (idioms the store repeats), a few members each.
    pub patterns: Vec<lore_index::PatternRow>,
    /// The map as text, within the budget asked.
    pub text: String,
    /// Tokens of `text` (estimated).
    pub tokens: usize,
}

/// Files that call each other more than they call the rest.
#[derive(Debug, Clone, Serialize)]
pub struct Module {
    /// The folder most of its files share.
    pub name: String,
    pub files: usize,
    pub definitions: usize,
    /// Its files most referenced from elsewhere.
    pub key_files: Vec<String>,
    /// The modules it references most, with how many references.
    pub uses: Vec<(String, usize)>,
}

/// A definition and how many references reach it from other units.
#[derive(Debug, Clone, Serialize)]
pub struct Hub {
    pub qualified: String,
    pub kind: String,
    pub path: String,
    pub line: u32,
    pub callers: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// The folder of a path ("" at the root).
fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Communities of files: each file starts in its folder's group and moves, round by
/// round, to the group it is most linked to (its own folder counting once more), ties to
/// the smaller name; files in no link keep their folder.
fn communities(files: &[String], links: &HashMap<(usize, usize), usize>) -> Vec<usize> {
    let mut neighbours: Vec<Vec<(usize, usize)>> = vec![Vec::new(); files.len()];
    for (&(a, b), &w) in links {
        neighbours[a].push((b, w));
        neighbours[b].push((a, w));
    }
    let folders: Vec<&str> = files.iter().map(|f| folder(f)).collect();
    let mut folder_ids: HashMap<&str, usize> = HashMap::new();
    let mut label: Vec<usize> = folders
        .iter()
        .map(|f| {
            let n = folder_ids.len();
            *folder_ids.entry(f).or_insert(n)
        })
        .collect();
    let home = label.clone();
    // A neighbour's pull is its share of that neighbour's links: a hub every file calls
    // (a router, a base type) does not swallow its callers into its own group.
    let degree: Vec<f64> = neighbours
        .iter()
        .map(|n| n.iter().map(|(_, w)| *w as f64).sum::<f64>().max(1.0))
        .collect();
    for _ in 0..ROUNDS {
        let mut moved = false;
        for f in 0..files.len() {
            if neighbours[f].is_empty() {
                continue;
            }
            let mut score: BTreeMap<usize, f64> = BTreeMap::new();
            *score.entry(home[f]).or_default() += HOME_PULL;
            for &(n, w) in &neighbours[f] {
                *score.entry(label[n]).or_default() += w as f64 / degree[n];
            }
            let best = score
                .iter()
                .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(a.0)))
                .map(|(l, _)| *l)
                .unwrap_or(label[f]);
            if best != label[f] {
                label[f] = best;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    label
}

/// The folder that names `members`: the commonest when at least half of them are in it,
/// else their longest common folder prefix.
fn module_name(members: &[&str], key: Option<&str>) -> String {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for m in members {
        *counts.entry(folder(m)).or_default() += 1;
    }
    if let Some((top, n)) = counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .filter(|(_, n)| **n * 2 >= members.len())
        // Tests gathered around the code they test are named after that code.
        .filter(|(top, _)| {
            !(lore_core::is_test_path(&format!("{top}/x"))
                && key.is_some_and(|k| !lore_core::is_test_path(k)))
        })
    {
        let top = if top.is_empty() {
            "(root)".to_string()
        } else {
            format!("{top}/")
        };
        return match members.len() - n {
            0 => top,
            rest => format!("{top} (+{rest} elsewhere)"),
        };
    }
    // No folder holds half: the folder of the file the rest refers to most.
    if let Some(key) = key {
        let home = folder(key);
        let rest = members.len() - counts.get(home).copied().unwrap_or(0);
        return format!("{home}/ (+{rest} elsewhere)");
    }
    let mut prefix: Vec<&str> = folder(members[0]).split('/').collect();
    for m in &members[1..] {
        let parts: Vec<&str> = folder(m).split('/').collect();
        let same = prefix
            .iter()
            .zip(&parts)
            .take_while(|(a, b)| a == b)
            .count();
        prefix.truncate(same);
    }
    let common = prefix.join("/");
    if !common.is_empty() {
        return format!("{common}/");
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for m in members {
        *counts.entry(folder(m)).or_default() += 1;
    }
    let top = counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
        .map_or("", |(f, _)| f);
    if top.is_empty() {
        "(root)".into()
    } else {
        format!("{top}/ and others")
    }
}

impl Engine {
    /// A map of `store` written within `tokens` (0: the default).
    pub fn map(&self, store: &str, tokens: usize) -> Result<StoreMap, EngineError> {
        let record = self.require_store(store)?;
        let budget = if tokens == 0 {
            DEFAULT_MAP_TOKENS
        } else {
            tokens
        };
        let all_files = self.catalog.paths(record.id)?;
        // Modules are made of code: data, docs and schemas have no calls.
        let files: Vec<String> = all_files
            .iter()
            .filter(|f| crate::reach::has_calls(f))
            .cloned()
            .collect();
        let (definitions, references, _) = self.catalog.graph_stats(record.id)?;
        let mut languages: HashMap<String, usize> = HashMap::new();
        for f in &all_files {
            let lang = lore_core::Language::from_path(std::path::Path::new(f));
            if lang != lore_core::Language::Text {
                *languages.entry(lang.as_str().to_string()).or_default() += 1;
            }
        }
        let mut languages: Vec<(String, usize)> = languages.into_iter().collect();
        languages.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));

        // A graph too large to hold (a kernel tree's millions of references) leaves the
        // modules as folders and the hubs unknown, and says so.
        let whole = references <= crate::graph::patterns::MAX_REFERENCES;
        let mut refs: Vec<ResolvedRef> = Vec::new();
        for kind in [
            RefKind::Calls,
            RefKind::Uses,
            RefKind::Extends,
            RefKind::Implements,
        ]
        .into_iter()
        .filter(|_| whole)
        {
            refs.extend(self.catalog.resolved_refs(record.id, kind)?);
        }
        let index: HashMap<&str, usize> = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.as_str(), i))
            .collect();
        let mut links: HashMap<(usize, usize), usize> = HashMap::new();
        let mut callers: HashMap<i64, HashSet<(String, Option<String>)>> = HashMap::new();
        let mut targets: HashMap<i64, &lore_index::SymbolRow> = HashMap::new();
        let mut referenced_from_elsewhere: HashMap<usize, usize> = HashMap::new();
        for r in &refs {
            callers
                .entry(r.target.id)
                .or_default()
                .insert((r.path.clone(), r.caller.clone()));
            targets.insert(r.target.id, &r.target);
            let (Some(&a), Some(&b)) = (
                index.get(r.path.as_str()),
                index.get(r.target.path.as_str()),
            ) else {
                continue;
            };
            if a != b {
                *links.entry((a.min(b), a.max(b))).or_default() += 1;
                *referenced_from_elsewhere.entry(b).or_default() += 1;
            }
        }
        let label = communities(&files, &links);
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (f, l) in label.iter().enumerate() {
            groups.entry(*l).or_default().push(f);
        }
        let symbols_per_file = self.catalog.symbol_counts(record.id)?;
        let mut modules: Vec<(usize, Module)> = groups
            .iter()
            .map(|(&l, members)| {
                let names: Vec<&str> = members.iter().map(|&f| files[f].as_str()).collect();
                let mut key: Vec<usize> = members.clone();
                key.sort_by_key(|f| {
                    std::cmp::Reverse(referenced_from_elsewhere.get(f).copied().unwrap_or(0))
                });
                let key_files: Vec<String> = key
                    .iter()
                    .filter(|f| referenced_from_elsewhere.get(f).copied().unwrap_or(0) > 0)
                    .take(3)
                    .map(|&f| files[f].clone())
                    .collect();
                let definitions = names
                    .iter()
                    .map(|n| symbols_per_file.get(*n).copied().unwrap_or(0))
                    .sum();
                (
                    l,
                    Module {
                        name: module_name(&names, key_files.first().map(String::as_str)),
                        files: members.len(),
                        definitions,
                        key_files,
                        uses: Vec::new(),
                    },
                )
            })
            .collect();
        // Links between modules, by label.
        let mut between: HashMap<(usize, usize), usize> = HashMap::new();
        for r in &refs {
            let (Some(&a), Some(&b)) = (
                index.get(r.path.as_str()),
                index.get(r.target.path.as_str()),
            ) else {
                continue;
            };
            if label[a] != label[b] {
                *between.entry((label[a], label[b])).or_default() += 1;
            }
        }
        let name_of: HashMap<usize, String> =
            modules.iter().map(|(l, m)| (*l, m.name.clone())).collect();
        for (l, m) in &mut modules {
            let mut uses: Vec<(String, usize)> = between
                .iter()
                .filter(|((a, _), _)| a == l)
                .map(|((_, b), n)| (name_of[b].clone(), *n))
                .collect();
            uses.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            uses.truncate(3);
            m.uses = uses;
        }
        let mut modules: Vec<Module> = modules.into_iter().map(|(_, m)| m).collect();
        // Two groups under one folder name: the second says so.
        let mut seen: HashMap<String, usize> = HashMap::new();
        for m in &mut modules {
            let n = seen.entry(m.name.clone()).or_default();
            *n += 1;
            if *n > 1 {
                m.name = format!("{} #{n}", m.name);
            }
        }
        modules.sort_by(|a, b| {
            b.definitions
                .cmp(&a.definitions)
                .then(b.files.cmp(&a.files))
                .then(a.name.cmp(&b.name))
        });

        let hub = |id: &i64, n: usize, why: Option<String>| {
            let s = targets[id];
            Hub {
                qualified: s.qualified.clone(),
                kind: s.kind.as_str().to_string(),
                path: s.path.clone(),
                line: s.start_line,
                callers: n,
                why,
            }
        };
        let mut ranked: Vec<(i64, usize)> = callers
            .iter()
            .filter(|(id, _)| !targets[*id].is_test)
            .map(|(id, c)| (*id, c.len()))
            .collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let hubs: Vec<Hub> = ranked
            .iter()
            .take(12)
            .map(|(id, n)| hub(id, *n, None))
            .collect();
        let entry_points = self.entry_points(record.id)?;
        let mut patterns = self.catalog.patterns(record.id)?;
        patterns.truncate(MAP_PATTERNS);
        for p in &mut patterns {
            p.members.truncate(3);
        }

        let mut map = StoreMap {
            store: record.name.clone(),
            files: all_files.len(),
            definitions: definitions as usize,
            languages,
            modules,
            hubs,
            entry_points,
            patterns,
            text: String::new(),
            tokens: 0,
        };
        map.text = render(&map, budget);
        if !whole {
            map.text.push_str(&format!(
                "\n({} references: too many to read here; modules are folders, hubs unknown)\n",
                references
            ));
        }
        map.tokens = crate::estimate_tokens(&map.text);
        Ok(map)
    }

    /// `main` functions and definitions registered by a decorator, outside tests.
    fn entry_points(&self, store_id: i64) -> Result<Vec<Hub>, EngineError> {
        let mut out: Vec<Hub> = self
            .catalog
            .entry_symbols(store_id)?
            .into_iter()
            .filter(|s| !s.is_test && !lore_core::is_test_path(&s.path))
            .map(|s| Hub {
                why: Some(if s.name == "main" {
                    "main".to_string()
                } else {
                    format!("@{}", s.decorators.join(", @"))
                }),
                qualified: s.qualified,
                kind: s.kind.as_str().to_string(),
                path: s.path,
                line: s.start_line,
                callers: 0,
            })
            .collect();
        out.truncate(40);
        Ok(out)
    }
}

/// The map as text, section by section, stopping before `budget` tokens.
fn render(map: &StoreMap, budget: usize) -> String {
    let mut out = String::new();
    let mut full = false;
    let mut push = |out: &mut String, line: String| {
        if full || crate::estimate_tokens(out) + crate::estimate_tokens(&line) + 1 > budget {
            full = true;
            return;
        }
        out.push_str(&line);
        out.push('\n');
    };
    let langs: Vec<String> = map
        .languages
        .iter()
        .take(6)
        .map(|(l, n)| format!("{l} {n}"))
        .collect();
    push(
        &mut out,
        format!(
            "# {}: {} files, {} definitions ({})",
            map.store,
            map.files,
            map.definitions,
            langs.join(", ")
        ),
    );
    push(
        &mut out,
        "\n## Modules (files that call each other), largest first".into(),
    );
    for m in map.modules.iter().filter(|m| m.definitions > 0).take(15) {
        let mut line = format!(
            "- {} — {} files, {} definitions",
            m.name, m.files, m.definitions
        );
        if !m.key_files.is_empty() {
            line.push_str(&format!("; key: {}", m.key_files.join(", ")));
        }
        if !m.uses.is_empty() {
            let uses: Vec<String> = m.uses.iter().map(|(n, c)| format!("{n} ({c})")).collect();
            line.push_str(&format!("; uses {}", uses.join(", ")));
        }
        push(&mut out, line);
    }
    push(&mut out, "\n## Hubs (most referenced)".into());
    for h in &map.hubs {
        push(
            &mut out,
            format!(
                "- {} [{}] {}:{} — {} callers",
                h.qualified, h.kind, h.path, h.line, h.callers
            ),
        );
    }
    if !map.patterns.is_empty() {
        push(&mut out, "\n## Patterns (idioms repeated)".into());
        for p in &map.patterns {
            let c = &p.canonical;
            push(
                &mut out,
                format!(
                    "- {} — {} units, e.g. {} {}:{}",
                    p.name, p.count, c.qualified, c.path, c.start_line
                ),
            );
        }
    }
    if !map.entry_points.is_empty() {
        push(&mut out, "\n## Entry points".into());
        for e in &map.entry_points {
            push(
                &mut out,
                format!(
                    "- {} {}:{} ({})",
                    e.qualified,
                    e.path,
                    e.line,
                    e.why.as_deref().unwrap_or("")
                ),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linked_files_join_one_module_named_from_their_folders() {
        let files: Vec<String> = [
            "src/a/x.rs",
            "src/a/y.rs",
            "src/b/z.rs",
            "docs/readme.md",
            "lib/q.rs",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // z calls x and y heavily: it joins their module; q is linked to nothing.
        let links = HashMap::from([((0, 2), 5), ((1, 2), 5), ((0, 1), 1)]);
        let label = communities(&files, &links);
        assert_eq!(label[0], label[2]);
        assert_eq!(label[1], label[2]);
        assert_ne!(label[4], label[0]);
        assert_eq!(
            module_name(&["src/a/x.rs", "src/a/y.rs", "src/b/z.rs"], None),
            "src/a/ (+1 elsewhere)"
        );
        assert_eq!(
            module_name(&["src/a/x.rs", "src/b/y.rs", "src/c/z.rs"], None),
            "src/"
        );
        assert_eq!(module_name(&["a.rs", "b.rs"], None), "(root)");
        assert_eq!(
            module_name(
                &["src/a/x.rs", "src/b/y.rs", "src/c/z.rs"],
                Some("src/b/y.rs")
            ),
            "src/b/ (+2 elsewhere)"
        );
    }
}
