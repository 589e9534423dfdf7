//! What the graph says about reach: the impact of a change (the callers and users it can
//! break, transitively, with the tests and entry points among them) and the functions
//! nothing reaches.

use crate::graph::{SymbolInfo, symbol_info};
use crate::{Engine, EngineError};
use lore_index::{Catalog, StoreRecord, SymbolRow};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// What changed: symbols by name, files, or a unified diff (`git diff` output), in the
/// stores asked (empty: all).
#[derive(Debug, Clone, Default)]
pub struct ImpactRequest {
    pub symbols: Vec<String>,
    pub files: Vec<String>,
    pub diff: Option<String>,
    pub stores: Vec<String>,
    /// How many calls up from the change (default 3).
    pub depth: usize,
    /// Most units listed (the counts cover all).
    pub limit: usize,
}

pub const DEFAULT_IMPACT_DEPTH: usize = 3;
pub const DEFAULT_IMPACT_LIMIT: usize = 50;
/// Units reached before the walk stops (a hub's callers in a large tree).
const MAX_REACHED: usize = 2000;

#[derive(Debug, Clone, Serialize)]
pub struct ImpactAnswer {
    /// The definitions the change touches.
    pub changed: Vec<SymbolInfo>,
    /// What can break, nearest and surest first.
    pub reached: Vec<Reached>,
    /// Tests among everything reached (all of them).
    pub tests: Vec<Reached>,
    /// Public entry points on the way: exported, `main`, registered by a decorator.
    pub entry_points: Vec<Reached>,
    /// Every file reached, beyond the changed ones, sorted.
    pub files: Vec<String>,
    /// Units reached in all (more than listed when `truncated`).
    pub total: usize,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A unit (or a file's top-level code, `<module>`) a change can reach.
#[derive(Debug, Clone, Serialize)]
pub struct Reached {
    pub store: String,
    pub path: String,
    pub line: u32,
    pub name: String,
    pub kind: String,
    /// Calls (or uses) between the change and this unit.
    pub distance: u32,
    /// The product of the resolution confidences on the way.
    pub confidence: f32,
    /// The reference that reaches it, in words.
    pub why: String,
    #[serde(skip)]
    is_test: bool,
    #[serde(skip)]
    entry: bool,
}

/// Functions of a store nothing reaches.
#[derive(Debug, Clone, Serialize)]
pub struct Unreached {
    pub store: String,
    /// Definitions in the store, and how many unreferenced functions were left out as
    /// entry points (exported, tests, `main`, decorated, overrides).
    pub definitions: usize,
    pub entry_points: usize,
    /// Unreferenced functions whose name is still written somewhere else in the store (a
    /// macro's arguments, an attribute, a string, a comment, a platform twin): kept out.
    pub mentioned: usize,
    pub unreached: Vec<UnreachedUnit>,
}

#[derive(Debug, Clone, Serialize)]
pub struct UnreachedUnit {
    pub path: String,
    pub line: u32,
    pub qualified: String,
    pub kind: String,
    pub why: String,
}

/// Why a definition counts as reached from outside though nothing in the store calls it.
fn entry_point(s: &SymbolRow, overriding: &HashSet<(String, String)>) -> Option<&'static str> {
    if s.is_test || lore_core::is_test_path(&s.path) {
        return Some("a test");
    }
    if s.name == "main" {
        return Some("main");
    }
    if !s.decorators.is_empty() {
        return Some("registered by its decorator");
    }
    if s.name.starts_with("__") && s.name.ends_with("__") {
        return Some("a special method");
    }
    if matches!(s.name.as_str(), "constructor" | "init" | "new") {
        return Some("a constructor");
    }
    if s.name.starts_with('[') {
        return Some("a computed member (looked up by value)");
    }
    if s.signature
        .as_deref()
        .is_some_and(|d| d.split_whitespace().take(6).any(|w| w == "override"))
    {
        return Some("an override");
    }
    // Kotlin's source sets: `src/jvmTest`, `src/commonTest`.
    if s.path
        .split('/')
        .any(|seg| seg.len() > 4 && seg.ends_with("Test"))
    {
        return Some("a test");
    }
    // `<=>`, `==`, `[]`: called by the operator, never by name.
    if !s.name.chars().any(char::is_alphanumeric) || s.name.starts_with("operator") {
        return Some("an operator");
    }
    if let Some(ty) = &s.container {
        let ty = ty.rsplit(['.', ':']).next().unwrap_or(ty);
        if overriding.contains(&(s.path.clone(), ty.to_string())) {
            return Some("a method of a type that extends or implements another");
        }
    }
    if s.exported {
        return Some("exported");
    }
    None
}

fn overriding_types(
    catalog: &Catalog,
    store_id: i64,
) -> Result<HashSet<(String, String)>, EngineError> {
    Ok(catalog
        .heritage(store_id)?
        .into_iter()
        .map(|(path, ty, _)| (path, ty))
        .collect())
}

/// The new-side line ranges of each file a unified diff changes (a deletion counts as the
/// line it happened at).
pub fn diff_ranges(diff: &str) -> Vec<(String, Vec<[u32; 2]>)> {
    let mut out: Vec<(String, Vec<[u32; 2]>)> = Vec::new();
    // Whether the hunks that follow belong to the last file of `out` (not a deleted one).
    let mut current = false;
    for line in diff.lines() {
        if let Some(path) = line.strip_prefix("+++ ") {
            let path = path.trim();
            let path = path.strip_prefix("b/").unwrap_or(path);
            current = path != "/dev/null";
            if current {
                out.push((path.to_string(), Vec::new()));
            }
        } else if let Some(hunk) = line.strip_prefix("@@ ") {
            let Some(new) = hunk.split_whitespace().find(|w| w.starts_with('+')) else {
                continue;
            };
            let mut parts = new[1..].split(',');
            let start: u32 = parts.next().and_then(|n| n.parse().ok()).unwrap_or(0);
            let count: u32 = parts.next().and_then(|n| n.parse().ok()).unwrap_or(1);
            if let Some((_, ranges)) = out.last_mut().filter(|_| current) {
                let start = start.max(1);
                ranges.push([start, start + count.saturating_sub(1)]);
            }
        }
    }
    out
}

impl Engine {
    /// What a change can break: up the callers from the changed definitions.
    pub fn impact(&self, req: &ImpactRequest) -> Result<ImpactAnswer, EngineError> {
        if req.symbols.is_empty() && req.files.is_empty() && req.diff.is_none() {
            return Err(EngineError::Input(
                "say what changes: a symbol, a file or a diff".into(),
            ));
        }
        let stores = self.select_stores(&req.stores)?;
        let depth = if req.depth == 0 {
            DEFAULT_IMPACT_DEPTH
        } else {
            req.depth
        };
        let limit = if req.limit == 0 {
            DEFAULT_IMPACT_LIMIT
        } else {
            req.limit
        };
        let mut seeds: Vec<(SymbolRow, String)> = Vec::new();
        let mut warnings = Vec::new();
        let ranges = req.diff.as_deref().map(diff_ranges).unwrap_or_default();
        for store in &stores {
            for name in &req.symbols {
                for s in self.catalog.symbols_named(&[store.id], name.trim())? {
                    seeds.push((s, store.name.clone()));
                }
            }
            let paths = self.catalog.paths(store.id)?;
            let find = |p: &str| -> Option<String> {
                let p = p.trim_start_matches("./");
                paths
                    .iter()
                    .find(|k| {
                        *k == p || p.ends_with(&format!("/{k}")) || k.ends_with(&format!("/{p}"))
                    })
                    .cloned()
            };
            for f in &req.files {
                if let Some(path) = find(f) {
                    for s in self.catalog.file_symbols(store.id, &path)? {
                        seeds.push((s, store.name.clone()));
                    }
                }
            }
            for (file, lines) in &ranges {
                let Some(path) = find(file) else {
                    continue;
                };
                let symbols = self.catalog.file_symbols(store.id, &path)?;
                // The innermost definition around each changed range.
                for [a, b] in lines {
                    let around = symbols
                        .iter()
                        .filter(|s| s.start_line <= *b && *a <= s.end_line)
                        .filter(|s| {
                            !symbols.iter().any(|t| {
                                t.id != s.id
                                    && s.start_line <= t.start_line
                                    && t.end_line <= s.end_line
                                    && t.start_line <= *b
                                    && *a <= t.end_line
                            })
                        });
                    for s in around {
                        seeds.push((s.clone(), store.name.clone()));
                    }
                }
            }
        }
        seeds.sort_by_key(|(s, _)| s.id);
        seeds.dedup_by_key(|(s, _)| s.id);
        if seeds.is_empty() {
            return Err(EngineError::NotFound(
                "the change touches no definition lore knows; check the names, or that the \
                 files are indexed"
                    .into(),
            ));
        }
        let store_name: HashMap<i64, String> =
            stores.iter().map(|s| (s.id, s.name.clone())).collect();
        let mut overriding: HashMap<i64, HashSet<(String, String)>> = HashMap::new();
        for s in &stores {
            overriding.insert(s.id, overriding_types(&self.catalog, s.id)?);
        }
        let mut seen: HashSet<i64> = seeds.iter().map(|(s, _)| s.id).collect();
        let changed_files: HashSet<(i64, String)> = seeds
            .iter()
            .map(|(s, _)| (s.store_id, s.path.clone()))
            .collect();
        let mut modules: HashSet<(i64, String)> = HashSet::new();
        let mut reached: Vec<Reached> = Vec::new();
        let mut frontier: Vec<(SymbolRow, f32)> =
            seeds.iter().map(|(s, _)| (s.clone(), 1.0)).collect();
        'walk: for distance in 1..=depth as u32 {
            let mut next = Vec::new();
            for (target, conf) in &frontier {
                let store = store_name
                    .get(&target.store_id)
                    .cloned()
                    .unwrap_or_default();
                let resolved = self.catalog.edges_to(target.id)?;
                // Calls by name only where nothing resolved: listed, not walked further.
                let (by_name, name_conf) = if resolved.is_empty() {
                    crate::graph::related::name_candidates(&self.catalog, target)?
                } else {
                    (Vec::new(), 0.0)
                };
                let edges = resolved
                    .into_iter()
                    .map(|e| {
                        let c = e.reference.confidence.unwrap_or(0.5);
                        (e, c, "")
                    })
                    .chain(by_name.into_iter().map(|e| (e, name_conf, " (by name)")));
                for (e, c, how) in edges {
                    let r = &e.reference;
                    let why = format!(
                        "{} {}{how} at {}:{}",
                        r.reference.kind.as_str(),
                        target.qualified,
                        r.path,
                        r.reference.line
                    );
                    let confidence = conf * c;
                    match &e.from {
                        Some(caller) => {
                            if !seen.insert(caller.id) {
                                continue;
                            }
                            let over = &overriding[&caller.store_id];
                            let reason = entry_point(caller, over);
                            reached.push(Reached {
                                store: store.clone(),
                                path: caller.path.clone(),
                                line: caller.start_line,
                                name: caller.qualified.clone(),
                                kind: caller.kind.as_str().to_string(),
                                distance,
                                confidence,
                                why,
                                is_test: reason == Some("a test"),
                                entry: matches!(
                                    reason,
                                    Some("exported" | "main" | "registered by its decorator")
                                ),
                            });
                            if how.is_empty() {
                                next.push((caller.clone(), confidence));
                            }
                        }
                        None => {
                            if !modules.insert((target.store_id, r.path.clone())) {
                                continue;
                            }
                            reached.push(Reached {
                                store: store.clone(),
                                path: r.path.clone(),
                                line: r.reference.line,
                                name: "<module>".into(),
                                kind: "module".into(),
                                distance,
                                confidence,
                                why,
                                is_test: lore_core::is_test_path(&r.path),
                                entry: false,
                            });
                        }
                    }
                    if reached.len() >= MAX_REACHED {
                        warnings.push(format!(
                            "stopped after {MAX_REACHED} units; ask for less depth"
                        ));
                        break 'walk;
                    }
                }
            }
            frontier = next;
        }
        reached.sort_by(|a, b| {
            a.distance
                .cmp(&b.distance)
                .then(b.confidence.total_cmp(&a.confidence))
                .then_with(|| (&a.path, a.line).cmp(&(&b.path, b.line)))
        });
        let mut files: Vec<String> = reached
            .iter()
            .filter(|r| !changed_files.iter().any(|(_, p)| *p == r.path))
            .map(|r| r.path.clone())
            .collect();
        files.sort();
        files.dedup();
        let tests = reached.iter().filter(|r| r.is_test).cloned().collect();
        let entry_points = reached.iter().filter(|r| r.entry).cloned().collect();
        let total = reached.len();
        reached.truncate(limit);
        Ok(ImpactAnswer {
            changed: seeds
                .iter()
                .map(|(s, store)| symbol_info(s, store))
                .collect(),
            truncated: total > reached.len(),
            reached,
            tests,
            entry_points,
            files,
            total,
            warnings,
        })
    }

    /// The functions and methods of a store that nothing references and no entry-point
    /// rule keeps, each with why.
    /// With `exported`, an exported definition is no entry point: an application's public
    /// functions that nothing in it uses are listed too (a library's are its API).
    pub fn unreached(&self, store: &str, exported: bool) -> Result<Unreached, EngineError> {
        let store: StoreRecord = self.require_store(store)?;
        let definitions = self
            .catalog
            .graph_stats(store.id)
            .map(|(symbols, _, _)| symbols as usize)?;
        let overriding = overriding_types(&self.catalog, store.id)?;
        let mut entry_points = 0;
        let mut mentioned = 0;
        let mut unreached = Vec::new();
        let mut file: Option<FileView> = None;
        for s in self.catalog.unreferenced_functions(store.id)? {
            // Only where lore sees calls: a GraphQL operation or an SQL function is
            // used by tools, not by calls in the store.
            if !has_calls(&s.path) {
                continue;
            }
            let entry = entry_point(&s, &overriding);
            if entry.is_some() && !(exported && entry == Some("exported")) {
                entry_points += 1;
                continue;
            }
            // The file read once for its unreferenced functions (they come in file order).
            if file.as_ref().is_none_or(|f| f.path != s.path) {
                file = Some(self.file_view(&s)?);
            }
            let Some(f) = &file else {
                continue;
            };
            let entry = entry.or_else(|| public_by_default(&s, f).then_some("exported"));
            let kept = (entry.is_some() && !exported)
                || annotated(&s, f)
                || in_derived_type(&s, f)
                || defined_as_value(&s, f);
            if kept {
                entry_points += 1;
                continue;
            }
            if self.mentioned_elsewhere(&store, &s)? {
                mentioned += 1;
                continue;
            }
            unreached.push(UnreachedUnit {
                path: s.path.clone(),
                line: s.start_line,
                qualified: s.qualified.clone(),
                kind: s.kind.as_str().to_string(),
                why: format!(
                    "nothing calls or uses {} (resolved or by name), its name is written nowhere \
                     else in the store, and it is not {}a test, main, decorated, a constructor or \
                     a method of a derived type",
                    s.name,
                    if entry.is_some() {
                        "used though exported; not "
                    } else {
                        "exported, "
                    }
                ),
            });
        }
        Ok(Unreached {
            store: store.name,
            definitions,
            entry_points,
            mentioned,
            unreached,
        })
    }
}

/// The last part of a qualified name.
fn t_name(qualified: &str) -> &str {
    qualified.rsplit(['.', ':']).next().unwrap_or(qualified)
}

/// Whether lore records calls in files of this path's language.
pub(crate) fn has_calls(path: &str) -> bool {
    use lore_core::Language as L;
    matches!(
        L::from_path(std::path::Path::new(path)),
        L::Rust
            | L::Python
            | L::TypeScript
            | L::Tsx
            | L::JavaScript
            | L::Go
            | L::Java
            | L::C
            | L::Cpp
            | L::CSharp
            | L::Ruby
            | L::Php
            | L::Kotlin
            | L::Swift
            | L::Scala
            | L::Dart
            | L::Lua
            | L::Bash
            | L::Vue
            | L::Svelte
    )
}

/// Whether code ending with `before` puts what follows in a value's place: an argument,
/// a property value, an array item, a member assignment, a return (`f(function g() {})`,
/// `{ get: function getrouter() {} }`, `app[m] = function () {}`).
fn value_position(before: &str) -> bool {
    let t = before.trim_end();
    // `(async function f() {…})()`, `x = async () => …`: what precedes `async` counts.
    let t = t.strip_suffix("async").map_or(t, str::trim_end);
    if t.ends_with("return") || t.ends_with("=>") {
        return true;
    }
    match t.chars().last() {
        Some('(' | ',' | ':' | '?' | '[' | '|' | '&') => true,
        Some('=') => {
            let lhs = t[..t.len() - 1].trim_end();
            let last = lhs
                .rsplit(|c: char| c.is_whitespace() || c == ';')
                .next()
                .unwrap_or("");
            !last.ends_with(['=', '!', '<', '>']) && (last.contains('.') || last.ends_with(']'))
        }
        _ => false,
    }
}

/// A file as the unreached checks read it: its text (from its chunks) and its symbols.
struct FileView {
    path: String,
    text: String,
    symbols: Vec<SymbolRow>,
}

/// Whether a JavaScript or TypeScript function is written where a value goes (a
/// callback, a property's value): used right where it is defined.
fn defined_as_value(s: &SymbolRow, file: &FileView) -> bool {
    use lore_core::Language;
    let lang = Language::from_path(std::path::Path::new(&s.path));
    if !matches!(
        lang,
        Language::JavaScript | Language::TypeScript | Language::Tsx
    ) {
        return false;
    }
    let text = &file.text;
    let Some(rest) = text.get(s.start_byte..) else {
        return false;
    };
    // The unit may start at the statement around the function (`defineGetter(req,
    // 'xhr', function xhr() {…})`): what matters is what precedes `function`.
    let first_line = rest.lines().next().unwrap_or("");
    let at = s.start_byte + first_line.find("function").unwrap_or(0);
    text.get(..at).is_some_and(value_position)
}

/// Whether an attribute or annotation other than a plain compiler hint sits on the
/// definition (`#[tokio::main]`, `#[plugin_transform]`, `@GetMapping`, `@Override`,
/// `[HttpGet]`): something registers or overrides it. Python's decorators are recorded
/// by the analyzer already.
fn annotated(s: &SymbolRow, file: &FileView) -> bool {
    let lines: Vec<&str> = file.text.lines().collect();
    let first = s.start_line.saturating_sub(1) as usize;
    // The definition's own lines up to its name, and the lines just above it.
    let mut around: Vec<&str> = lines
        .iter()
        .skip(first)
        .take(3)
        .take_while(|l| !l.contains(&s.name))
        .copied()
        .collect();
    around.extend(
        lines[..first.min(lines.len())]
            .iter()
            .rev()
            .map(|l| l.trim())
            .take_while(|l| l.starts_with('@') || l.starts_with("#[") || l.starts_with('[')),
    );
    let harmless = [
        "cfg",
        "inline",
        "allow",
        "must_use",
        "doc",
        "deprecated",
        "track_caller",
        "expect",
        "warn",
        "cold",
        "rustfmt",
        "Deprecated",
        "SuppressWarnings",
        "Nullable",
        "NonNull",
        "JvmStatic",
        "Suppress",
    ];
    around.iter().any(|l| {
        let t = l.trim();
        let name = if let Some(rest) = t.strip_prefix("#[") {
            rest
        } else if let Some(rest) = t.strip_prefix('@') {
            rest
        } else if let Some(rest) = t.strip_prefix('[') {
            rest
        } else {
            return false;
        };
        let name: String = name
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        !name.is_empty() && !harmless.contains(&name.as_str())
    })
}

/// Whether a method's type declares a base it may override or implement (`class A :
/// IFilter`, `class A < Base`, `extends`, `implements`), as its declaration is written:
/// for languages whose heritage the graph does not record.
fn in_derived_type(s: &SymbolRow, file: &FileView) -> bool {
    let Some(container) = &s.container else {
        return false;
    };
    file.symbols
        .iter()
        .filter(|t| t.qualified == *container && t.kind.is_type())
        .filter_map(|t| t.signature.as_deref())
        .any(|d| {
            let after = d.split_once(t_name(container)).map_or(d, |(_, a)| a);
            let after = after.split('{').next().unwrap_or(after);
            after.contains(':')
                || after.trim_start().starts_with('<')
                || after.contains("extends")
                || after.contains("implements")
        })
}

/// Whether a definition of a language whose analyzer records no visibility (the table
/// languages but JavaScript's family) is visible outside its file or type: public unless
/// its declaration says otherwise (`private`, `fileprivate`, `internal`, `protected`,
/// Elixir's `defp`, Lua's `local`, Dart's `_`), or, in Ruby, a `private` or `protected`
/// line above it in its class.
fn public_by_default(s: &SymbolRow, file: &FileView) -> bool {
    use lore_core::Language as L;
    let lang = L::from_path(std::path::Path::new(&s.path));
    if matches!(
        lang,
        L::Rust
            | L::Python
            | L::Go
            | L::Java
            | L::C
            | L::Cpp
            | L::JavaScript
            | L::TypeScript
            | L::Tsx
    ) {
        return false;
    }
    let decl = s.signature.as_deref().unwrap_or("");
    let hidden = [
        "private",
        "fileprivate",
        "internal",
        "protected",
        "defp",
        "local",
    ];
    if decl
        .split(|c: char| !c.is_alphanumeric())
        .take(6)
        .any(|w| hidden.contains(&w))
        || (lang == L::Dart && s.name.starts_with('_'))
    {
        return false;
    }
    lang != L::Ruby || !ruby_private(&file.text, s.start_line)
}

impl Engine {
    fn file_view(&self, s: &SymbolRow) -> Result<FileView, EngineError> {
        let chunks = self.catalog.file_chunks(s.store_id, &s.path)?;
        Ok(FileView {
            path: s.path.clone(),
            text: crate::unit::file_from_chunks(&chunks),
            symbols: self.catalog.file_symbols(s.store_id, &s.path)?,
        })
    }

    /// Whether `s`'s name is written as a word anywhere in its store beyond its own
    /// definition: from the store's grep index.
    fn mentioned_elsewhere(&self, store: &StoreRecord, s: &SymbolRow) -> Result<bool, EngineError> {
        // A Ruby setter (`public=`) is called by assignment (`x.public = 1`).
        let name = s.name.strip_suffix('=').unwrap_or(&s.name);
        // `\b` only beside word characters: Ruby's `empty?` and `save!` end with none.
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        let edge = |c| if word(c) { r"\b" } else { "" };
        let pattern = format!(
            "{}{}{}",
            edge(name.chars().next()),
            regex::escape(name),
            edge(name.chars().last())
        );
        let req = crate::GrepRequest {
            stores: vec![store.name.clone()],
            max_lines: 20,
            ..crate::GrepRequest::new(pattern)
        };
        let found = self.grep(&req)?;
        Ok(found.units.iter().any(|u| {
            u.lines
                .iter()
                .any(|l| u.path != s.path || l.line < s.start_line || l.line > s.end_line)
        }))
    }
}

/// Whether the Ruby `def` on line `line` (1-based) follows a bare `private` or `protected`
/// at its own indentation, with no `public` after it, inside its class or module.
fn ruby_private(text: &str, line: u32) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    let Some(def) = lines.get(line.saturating_sub(1) as usize) else {
        return false;
    };
    let indent = def.len() - def.trim_start().len();
    for l in lines[..line.saturating_sub(1) as usize].iter().rev() {
        let t = l.trim();
        let i = l.len() - l.trim_start().len();
        if t.is_empty() || i > indent {
            continue;
        }
        if i < indent {
            return false;
        }
        match t {
            "private" | "protected" => return true,
            "public" => return false,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruby_methods_below_private_are_private() {
        let text =
            "class A\n  def a; end\n\n  private\n\n  def b; end\n  public\n  def c; end\nend\n";
        assert!(!ruby_private(text, 2));
        assert!(ruby_private(text, 6));
        assert!(!ruby_private(text, 8));
    }

    #[test]
    fn functions_written_as_values_are_told_from_declarations() {
        for before in [
            "f(",
            "x, ",
            "{ get: ",
            "app[method] = ",
            "obj.handler = ",
            "return ",
            "a ? ",
        ] {
            assert!(value_position(before), "{before:?}");
        }
        for before in [
            "",
            "}\n\n",
            "export ",
            "const run = ",
            "let x = 1;\n",
            "a == ",
        ] {
            assert!(!value_position(before), "{before:?}");
        }
    }

    #[test]
    fn a_diff_gives_each_file_its_new_line_ranges() {
        let diff = "diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n\
                    @@ -10,2 +12,3 @@ fn x() {\n-a\n+b\n@@ -40 +43,0 @@\n-gone\n\
                    --- a/old.rs\n+++ /dev/null\n@@ -1,3 +0,0 @@\n";
        assert_eq!(
            diff_ranges(diff),
            vec![("src/a.rs".to_string(), vec![[12, 14], [43, 43]])]
        );
    }
}
