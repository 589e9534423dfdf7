//! Resolving a store's references: every one after its first index (or after files came
//! or went), else those a change may have moved — the changed files' and those naming a
//! name that changed — with only the symbols they reach read (`Index::partial`).

use crate::EngineError;
use crate::graph::patterns;
use lore_graph::{FileSet, Incomplete, Index, Names, Resolution, SymbolEntry, SymbolKeys};
use lore_index::{Catalog, RefRow, RefTarget, SymbolRow, SymbolsBy};
use std::sync::Arc;

/// Whether the resolver needs a symbol: a C or C++ constant (an object-like macro, an enum's
/// value: more than half of a kernel's symbols) is never called, extended or a caller's
/// scope, nor is a key of a configuration file.
fn resolvable(s: &SymbolRow) -> bool {
    use lore_core::{ChunkKind, Language};
    match Language::from_path(std::path::Path::new(&s.path)) {
        Language::Yaml | Language::Json | Language::Toml => false,
        Language::C | Language::Cpp | Language::ObjC => s.kind != ChunkKind::Const,
        _ => s.kind != ChunkKind::Section,
    }
}

/// References resolved and written at a time when a whole store's are.
const RESOLVE_PAGE: usize = 200_000;

/// Resolves the references of a store that may have changed meaning: those made in
/// `changed` files and those naming `names`; everything when `all` (files appeared
/// or vanished, so imports may point elsewhere) or when an earlier run stopped
/// before resolving.
pub(crate) fn resolve_graph(
    catalog: &mut Catalog,
    store_id: i64,
    generation_before: i64,
    changed: &[String],
    mut names: Vec<String>,
    all: bool,
) -> Result<(), EngineError> {
    let generation = catalog
        .store_by_id(store_id)?
        .map(|s| s.generation)
        .unwrap_or_default();
    let resolved_at = catalog.graph_resolved_generation(store_id)?;
    if changed.is_empty() && names.is_empty() && !all && resolved_at == Some(generation) {
        // A store resolved before lore mined patterns gets them now.
        return patterns::refresh(catalog, store_id, generation);
    }
    // An earlier run that stopped between its commits and this point left references
    // unresolved somewhere: resolve everything.
    let all = all || resolved_at != Some(generation_before);
    let started = std::time::Instant::now();
    names.sort();
    names.dedup();
    let files: Vec<String> = catalog.manifest(store_id)?.into_keys().collect();
    let imports = catalog.imports(store_id)?;
    tracing::debug!(
        "store #{store_id}: files and imports read at {:.1} s",
        started.elapsed().as_secs_f32()
    );
    let heritage = catalog.heritage(store_id)?;
    let bindings = catalog.bindings(store_id)?;
    // Where the imports of the files read point (every file's when `all`), from the files
    // alone: written before the symbols are read, so a large store's imports are held
    // once, by the index, while its references resolve.
    let files = FileSet::new(files);
    let changed_set: std::collections::HashSet<&str> = changed.iter().map(String::as_str).collect();
    let import_targets: Vec<(i64, Vec<String>)> = imports
        .iter()
        .filter(|i| all || changed_set.contains(i.path.as_str()))
        .map(|i| (i.id, files.import_targets(&i.path, &i.import)))
        .collect();
    let tx = catalog.begin()?;
    tx.set_import_targets(&import_targets)?;
    tx.commit()?;
    drop(import_targets);
    let import_pairs = imports.into_iter().map(|i| (i.path, i.import));
    // After a small change only the symbols its references reach are read; a store's
    // first resolution (or one after files came or went) needs them all.
    let index = if all {
        let mut symbols = Vec::new();
        let mut last = None;
        catalog.for_each_symbol(store_id, |s| {
            if resolvable(&s) {
                symbols.push(entry(s, &mut last));
            }
            Ok(())
        })?;
        tracing::debug!(
            "store #{store_id}: {} symbols read at {:.1} s",
            symbols.len(),
            started.elapsed().as_secs_f32()
        );
        let mut index = Index::with_files(files, symbols, import_pairs, heritage, bindings);
        tracing::debug!(
            "store #{store_id}: graph tables read in {:.1} s: {}",
            started.elapsed().as_secs_f32(),
            index.sizes()
        );
        // Only references whose target changes are written (most stay unresolved). They
        // are read a page at a time, each page's targets written before the next, and
        // resolved on several threads, each with a fork of the index (its own memos).
        let mut forks: Vec<Index> = (1..RESOLVE_THREADS.min(rayon::current_num_threads()))
            .filter_map(|_| index.fork())
            .collect();
        let mut after: Option<(String, i64)> = None;
        loop {
            let key = after.as_ref().map(|(p, id)| (p.as_str(), *id));
            let page = catalog.refs_after(store_id, key, RESOLVE_PAGE)?;
            let Some(last) = page.last() else { break };
            after = Some((last.path.clone(), last.id));
            let targets = retarget_all(&mut index, &mut forks, &page);
            tracing::debug!(
                "store #{store_id}: resolved {} references, to {}: {}",
                page.len(),
                last.path,
                index.sizes()
            );
            drop(page);
            if !targets.is_empty() {
                let tx = catalog.begin()?;
                tx.set_ref_targets(&targets)?;
                tx.commit()?;
            }
        }
        index
    } else {
        let refs = catalog.refs_to_resolve(store_id, changed, &names)?;
        let mut decorated = Vec::new();
        let mut last = None;
        catalog.for_each_symbol_by(store_id, SymbolsBy::Decorated, &[], |s| {
            if resolvable(&s) {
                decorated.push(entry(s, &mut last));
            }
            Ok(())
        })?;
        let containers = catalog.symbol_containers(store_id)?;
        let mut index = Index::partial(
            files,
            import_pairs,
            heritage,
            bindings,
            containers,
            decorated,
        );
        tracing::debug!(
            "store #{store_id}: {} references to resolve ({} files, {} names) read at {:.1} s",
            refs.len(),
            changed.len(),
            names.len(),
            started.elapsed().as_secs_f32()
        );
        let targets = resolve_reached(catalog, store_id, &mut index, &refs)?;
        drop(refs);
        tracing::debug!(
            "store #{store_id}: {} retargeted at {:.1} s: {}",
            targets.len(),
            started.elapsed().as_secs_f32(),
            index.sizes()
        );
        let tx = catalog.begin()?;
        tx.set_ref_targets(&targets)?;
        tx.commit()?;
        index
    };
    let tx = catalog.begin()?;
    tx.set_graph_resolved(store_id, generation)?;
    tx.commit()?;
    // Its tables are freed before the patterns are mined.
    drop(index);
    tracing::debug!(
        "store #{store_id}: references resolved in {:.1} s",
        started.elapsed().as_secs_f32()
    );
    patterns::refresh(catalog, store_id, generation)?;
    tracing::debug!(
        "store #{store_id}: patterns mined at {:.1} s",
        started.elapsed().as_secs_f32()
    );
    Ok(())
}

/// The resolver's copy of a stored symbol; its path is `last`'s when the same (symbols
/// read in file order share one per file).
fn entry(s: SymbolRow, last: &mut Option<Arc<str>>) -> SymbolEntry {
    let path = match last {
        Some(p) if **p == *s.path => p.clone(),
        _ => last.insert(Arc::from(s.path)).clone(),
    };
    SymbolEntry {
        id: s.id,
        at: s.start_byte as i64,
        path,
        names: Names::new(&s.name, s.qualified),
        kind: s.kind,
        container: s.container,
        signature: s.signature,
        returns: s.returns.map(Box::new),
        params: s.params.into(),
        decorators: s.decorators.into(),
    }
}

/// Most threads a whole store's references resolve on: each holds memos of up to
/// ~100 MB on a kernel.
const RESOLVE_THREADS: usize = 4;

/// The writes `refs` need, resolved by `index` and its `forks` on the pool's threads,
/// each a contiguous part (a file's references share its memos). On the pool, whose
/// threads hold what the parsing before left free, rather than on new threads.
fn retarget_all(index: &mut Index, forks: &mut [Index], refs: &[RefRow]) -> Vec<RefTarget> {
    use rayon::prelude::*;
    let size = refs.len().div_ceil(forks.len() + 1).max(1);
    let mut work: Vec<(&mut Index, &[RefRow])> = std::iter::once(index)
        .chain(forks.iter_mut())
        .zip(refs.chunks(size))
        .collect();
    work.par_iter_mut()
        .map(|(ix, part)| {
            part.iter()
                .filter_map(|r| retarget(r, ix.resolve(&r.path, &r.reference)))
                .collect::<Vec<_>>()
        })
        .collect::<Vec<_>>()
        .concat()
}

/// The write a reference needs when its resolution differs from the stored one.
fn retarget(r: &RefRow, res: Option<Resolution>) -> Option<RefTarget> {
    (res.map(|x| x.target) != r.target).then(|| RefTarget {
        ref_id: r.id,
        target: res.map(|x| x.target),
        confidence: res.map(|x| x.confidence),
        how: res.map(|x| x.how.as_str().to_string()),
    })
}

/// Resolves `refs` with a partial index, reading the symbols they reach round by round:
/// first those of their names, then whatever the answers that could not be given looked
/// for, until every reference has its answer (the full index's: see `Index::partial`).
fn resolve_reached(
    catalog: &Catalog,
    store_id: i64,
    index: &mut Index,
    refs: &[RefRow],
) -> Result<Vec<RefTarget>, EngineError> {
    let mut keys = SymbolKeys::default();
    for r in refs {
        keys.add_reference(&r.path, &r.reference);
    }
    let mut pending: Vec<&RefRow> = refs.iter().collect();
    let mut targets = Vec::new();
    let mut round = 0;
    while !pending.is_empty() {
        round += 1;
        let asked = keys.len();
        let mut symbols = Vec::new();
        for (by, values) in [
            (SymbolsBy::Name, &keys.names),
            (SymbolsBy::Qualified, &keys.qualified),
            (SymbolsBy::File, &keys.files),
        ] {
            let values: Vec<&str> = values.iter().map(String::as_str).collect();
            let mut last = None;
            catalog.for_each_symbol_by(store_id, by, &values, |s| {
                if resolvable(&s) {
                    symbols.push(entry(s, &mut last));
                }
                Ok(())
            })?;
        }
        let read = symbols.len();
        index.add_symbols(symbols, keys);
        let mut incomplete = Vec::new();
        for r in pending {
            match index.try_resolve(&r.path, &r.reference) {
                Ok(res) => targets.extend(retarget(r, res)),
                Err(Incomplete) => incomplete.push(r),
            }
        }
        keys = index.wanted();
        tracing::debug!(
            "store #{store_id}: round {round}: {asked} keys, {read} symbols read, {} references \
             need {} more keys",
            incomplete.len(),
            keys.len()
        );
        // Every miss names a key not read yet, so each round reads more and this ends; a
        // reference left without keys to read (none expected) keeps what it has.
        if keys.is_empty() {
            for r in incomplete {
                targets.extend(retarget(r, index.resolve(&r.path, &r.reference)));
            }
            break;
        }
        pending = incomplete;
    }
    Ok(targets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AddStore, NoProgress};
    use std::collections::BTreeMap;

    /// Every reference's answer, by reference id.
    type Answers = BTreeMap<i64, Option<(i64, String)>>;

    fn all_refs(catalog: &Catalog, sid: i64) -> Vec<RefRow> {
        let mut refs = catalog.refs_after(sid, None, usize::MAX >> 2).unwrap();
        for r in &mut refs {
            r.target = None;
        }
        refs
    }

    fn answers(refs: &[RefRow], targets: Vec<RefTarget>) -> Answers {
        let mut out: Answers = refs.iter().map(|r| (r.id, None)).collect();
        for t in targets {
            out.insert(t.ref_id, t.target.zip(t.how));
        }
        out
    }

    /// A partial index, reading what every reference of a store reaches, answers each as
    /// the whole store's index does, and so do forks of the whole on other threads: on the graph fixtures (Python, TypeScript, Rust, Go,
    /// JavaScript, Kotlin, PHP, Swift, Ruby, Lua, shell), a sample of every language, and
    /// two of lore's own crates.
    #[test]
    fn a_partial_index_answers_as_the_whole_one() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let graph = root.join("tests/fixtures/graph");
        let mut dirs: Vec<std::path::PathBuf> = std::fs::read_dir(&graph)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        dirs.push(root.join("../lore-chunk/tests/langs"));
        dirs.push(root.join("../lore-graph/src"));
        dirs.push(root.join("src/graph"));
        // C through includes: one name in a header and in a copy of it under `tools/`,
        // a static function of the file, a macro beside them.
        let c = tempfile::tempdir().unwrap();
        for (path, text) in [
            (
                "include/linux/slab.h",
                "#include <linux/types.h>\nvoid *kmalloc(size_t n);\nstatic inline void *kzalloc(size_t n) { return kmalloc(n); }\n",
            ),
            (
                "include/linux/types.h",
                "typedef unsigned long size_t;\n#define MAX 4\nint helper(int x);\n",
            ),
            (
                "tools/include/linux/slab.h",
                "void *kmalloc(size_t n);\nvoid kfree(void *p);\n",
            ),
            (
                "mm/slab.c",
                "#include <linux/slab.h>\nvoid *kmalloc(size_t n) { return helper(n) ? 0 : 0; }\nvoid kfree(void *p) { }\n",
            ),
            (
                "drivers/x.c",
                "#include <linux/slab.h>\nstatic int probe(void) { void *p = kzalloc(MAX); kfree(p); return helper(1); }\nint start(void) { return probe(); }\n",
            ),
        ] {
            let p = c.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dirs.push(c.path().to_path_buf());
        let data = tempfile::tempdir().unwrap();
        let mut e = crate::test_engine(data.path());
        let mut compared = 0;
        for (n, dir) in dirs.iter().enumerate() {
            let req = AddStore {
                name: format!("s{n}"),
                source: dir.display().to_string(),
                ..Default::default()
            };
            e.add_store(&req, &NoProgress).unwrap();
            let sid = e.store_record(&req.name).unwrap().id;
            let catalog = &e.catalog;
            let refs = all_refs(catalog, sid);
            let files: Vec<String> = catalog.manifest(sid).unwrap().into_keys().collect();
            let imports = catalog.imports(sid).unwrap();
            let pairs = || imports.iter().map(|i| (i.path.clone(), i.import.clone()));
            let mut symbols = Vec::new();
            let mut last = None;
            catalog
                .for_each_symbol(sid, |s| {
                    if resolvable(&s) {
                        symbols.push(entry(s, &mut last));
                    }
                    Ok(())
                })
                .unwrap();
            let mut full = Index::new(
                files.clone(),
                symbols,
                pairs(),
                catalog.heritage(sid).unwrap(),
                catalog.bindings(sid).unwrap(),
            );
            let whole = answers(
                &refs,
                refs.iter()
                    .filter_map(|r| retarget(r, full.resolve(&r.path, &r.reference)))
                    .collect(),
            );
            // Resolved on three threads, two of them forks with memos of their own.
            let mut forks: Vec<Index> = (0..2).filter_map(|_| full.fork()).collect();
            assert_eq!(forks.len(), 2);
            let threaded = answers(&refs, retarget_all(&mut full, &mut forks, &refs));
            assert_eq!(threaded, whole, "{}: forks", dir.display());
            let mut decorated = Vec::new();
            let mut last = None;
            catalog
                .for_each_symbol_by(sid, SymbolsBy::Decorated, &[], |s| {
                    decorated.push(entry(s, &mut last));
                    Ok(())
                })
                .unwrap();
            let mut partial = Index::partial(
                FileSet::new(files),
                pairs(),
                catalog.heritage(sid).unwrap(),
                catalog.bindings(sid).unwrap(),
                catalog.symbol_containers(sid).unwrap(),
                decorated,
            );
            let reached = answers(
                &refs,
                resolve_reached(catalog, sid, &mut partial, &refs).unwrap(),
            );
            let resolved = whole.values().filter(|a| a.is_some()).count();
            assert!(resolved > 0, "{}: nothing resolved", dir.display());
            for (id, a) in &whole {
                assert_eq!(
                    reached.get(id),
                    Some(a),
                    "{}: reference #{id} answered otherwise",
                    dir.display()
                );
            }
            eprintln!(
                "{}: {} references, {resolved} resolved",
                dir.display(),
                whole.len()
            );
            compared += whole.len();
        }
        assert!(compared > 1000, "{compared} references compared");
    }
}
