//! The symbol tables' lookups, and an index that holds only the symbols its references
//! reach: after a small change to a large store the references to resolve number in the
//! thousands and the store's symbols in the millions.
//!
//! Every lookup of a symbol table goes through the accessors here. In a partial index a
//! lookup of a key whose symbols were not read is recorded as wanted and counted as a
//! miss; an answer computed with a miss is neither memoised nor given (`try_resolve`
//! says it is incomplete). The caller reads the wanted symbols, adds them and resolves
//! the incomplete references again, until none is: every answer given was then computed
//! from the whole lists a full index would have looked at, in the same order, so it is
//! the full index's answer.

use super::*;
use foldhash::HashSet;
use std::cell::Cell;

/// Keys of symbols: by name, by qualified name, by file.
#[derive(Debug, Default, Clone)]
pub struct SymbolKeys {
    pub names: HashSet<String>,
    pub qualified: HashSet<String>,
    pub files: HashSet<String>,
}

impl SymbolKeys {
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && self.qualified.is_empty() && self.files.is_empty()
    }

    pub fn len(&self) -> usize {
        self.names.len() + self.qualified.len() + self.files.len()
    }

    /// The keys resolving `r`, made in `path`, looks up first: its name, its caller's
    /// scopes and the name in each, the names its receiver is written with. Whatever
    /// else an answer needs is wanted when it is looked up (`Index::wanted`).
    pub fn add_reference(&mut self, path: &str, r: &Reference) {
        let sep = sep(lang_of(path));
        self.names.insert(r.name.clone());
        self.qualified.insert(r.name.clone());
        let mut scope = r.caller.as_deref();
        while let Some(s) = scope {
            self.qualified.insert(s.to_string());
            self.qualified.insert(format!("{s}{sep}{}", r.name));
            scope = s.rsplit_once(sep).map(|(a, _)| a);
        }
        let mut receiver = &r.receiver;
        loop {
            match receiver {
                Receiver::Type(t) | Receiver::ReturnOf(t) | Receiver::Path(t) => {
                    for part in t.split(['.', ':']).filter(|p| !p.is_empty()) {
                        self.names.insert(part.to_string());
                        self.qualified.insert(part.to_string());
                    }
                    break;
                }
                Receiver::Field(inner, field) => {
                    self.names.insert(field.clone());
                    receiver = inner;
                }
                _ => break,
            }
        }
    }

    fn extend(&mut self, other: SymbolKeys) {
        self.names.extend(other.names);
        self.qualified.extend(other.qualified);
        self.files.extend(other.files);
    }
}

/// What a partial index holds and what its lookups missed.
#[derive(Default)]
pub(super) struct Partial {
    loaded: SymbolKeys,
    ids: HashSet<i64>,
    wanted: RefCell<SymbolKeys>,
    misses: Cell<usize>,
}

impl Partial {
    /// Counts a miss and records what it wanted.
    fn want(&self, add: impl FnOnce(&mut SymbolKeys)) {
        self.misses.set(self.misses.get() + 1);
        if let Ok(mut w) = self.wanted.try_borrow_mut() {
            add(&mut w);
        }
    }

    /// A lookup of the symbols named `name` (or of members named so).
    fn name(&self, name: &str) {
        if !self.loaded.names.contains(name) {
            self.want(|w| {
                w.names.insert(name.to_string());
            });
        }
    }

    /// A lookup of `path`'s symbols whose qualified name is `qualified`.
    fn qualified(&self, path: &str, qualified: &str) {
        if !self.loaded.qualified.contains(qualified) && !self.loaded.files.contains(path) {
            self.want(|w| {
                w.qualified.insert(qualified.to_string());
            });
        }
    }

    /// A lookup of every symbol of `path`.
    fn file(&self, path: &str) {
        if !self.loaded.files.contains(path) {
            self.want(|w| {
                w.files.insert(path.to_string());
            });
        }
    }
}

/// A reference a partial index cannot answer yet: it needs symbols not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Incomplete;

impl Index {
    /// An index with no symbols yet, read as its references ask (`wanted`, `add_symbols`).
    /// `containers` are every container name of the store's symbols and `decorated` its
    /// symbols with decorators (pytest fixtures): those are looked up by what no key says.
    pub fn partial(
        files: FileSet,
        imports: impl IntoIterator<Item = (String, Import)>,
        heritage: impl IntoIterator<Item = (String, String, String)>,
        bindings: impl IntoIterator<Item = (String, Binding)>,
        containers: impl IntoIterator<Item = String>,
        decorated: Vec<SymbolEntry>,
    ) -> Index {
        let mut index = Index::with_files(files, decorated, imports, heritage, bindings);
        Arc::make_mut(&mut index.t).containers.extend(containers);
        index.partial = Some(Partial {
            ids: index.symbols.iter().map(|s| s.id).collect(),
            ..Partial::default()
        });
        index
    }

    /// Adds the symbols read for `keys` (those already held are skipped) and forgets
    /// what was memoised: answers computed before may have missed them.
    pub fn add_symbols(&mut self, symbols: Vec<SymbolEntry>, keys: SymbolKeys) {
        let Some(p) = &mut self.partial else { return };
        p.loaded.extend(keys);
        let mut all = std::mem::take(&mut Arc::make_mut(&mut self.t).symbols);
        all.extend(symbols.into_iter().filter(|s| p.ids.insert(s.id)));
        self.insert_symbols(all);
        self.global_memo.borrow_mut().clear();
        self.bare_memo.borrow_mut().clear();
    }

    /// The keys lookups missed since the last call.
    pub fn wanted(&self) -> SymbolKeys {
        self.partial
            .as_ref()
            .map(|p| std::mem::take(&mut *p.wanted.borrow_mut()))
            .unwrap_or_default()
    }

    /// `resolve`, or `Incomplete` when a partial index lacks symbols it looked for.
    pub fn try_resolve(&self, path: &str, r: &Reference) -> Result<Option<Resolution>, Incomplete> {
        let before = self.misses();
        let found = self.resolve(path, r);
        if self.misses() == before {
            Ok(found)
        } else {
            Err(Incomplete)
        }
    }

    /// Lookups that missed so far (always 0 for a full index): an answer computed while
    /// this grew may be wrong and is not memoised.
    pub(super) fn misses(&self) -> usize {
        self.partial.as_ref().map_or(0, |p| p.misses.get())
    }

    /// Symbols of `path` whose qualified name is `qualified`.
    pub(super) fn by_key_of(&self, path: &str, qualified: &str) -> Option<&[u32]> {
        if let Some(p) = &self.partial {
            p.qualified(path, qualified);
        }
        self.by_key.get(&key(path, qualified, 0))
    }

    /// Symbols named `name`.
    pub(super) fn by_name_of(&self, name: &str) -> Option<&[u32]> {
        if let Some(p) = &self.partial {
            p.name(name);
        }
        self.by_name.get(&super::name_key(name))
    }

    /// Symbols of a file.
    pub(super) fn by_path_of(&self, path: &str) -> Option<&[u32]> {
        if let Some(p) = &self.partial {
            p.file(path);
        }
        self.by_path.get(path)
    }

    /// Members named `name` of containers named `ty` (complete once `name` is read).
    pub(super) fn methods_of(&self, ty: &str, name: &str) -> Option<&[u32]> {
        if let Some(p) = &self.partial {
            p.name(name);
        }
        self.methods.get(&key(ty, name, 0))
    }
}
