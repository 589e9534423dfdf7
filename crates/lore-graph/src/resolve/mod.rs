//! Reference resolution over a store's symbols and imports.

mod partial;
mod postings;
mod receivers;
mod types;

pub use partial::{Incomplete, SymbolKeys};

use crate::modules::{FileSet, dir_of};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use lore_core::{
    Binding, ChunkKind, Import, Language, Receiver, RefKind, Reference, fixture_name, is_test_path,
    type_name,
};
use postings::Postings;
use serde::Serialize;
use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

/// A symbol as the resolver needs it.
#[derive(Debug, Clone)]
pub struct SymbolEntry {
    pub id: i64,
    /// Shared by the symbols of a file (a kernel's million symbols have 86k paths).
    pub path: Arc<str>,
    /// Its name and qualified name (`name()`, `qualified()`).
    pub names: Names,
    /// Where it starts in its file (bytes): a file's symbols are looked at in this order.
    pub at: i64,
    pub kind: ChunkKind,
    pub container: Option<String>,
    pub signature: Option<String>,
    /// What the body returns when the signature does not say.
    /// Boxed, as the lists below: most symbols have none, and a kernel has a million.
    pub returns: Option<Box<Receiver>>,
    /// Parameters without a declared type (Python).
    pub params: Box<[String]>,
    /// Decorators without their arguments (Python).
    pub decorators: Box<[String]>,
}

/// A symbol's qualified name and its name, held once: the name is nearly always the end
/// of the qualified name (all but a few of a kernel's million), so it is a place in it.
#[derive(Debug, Clone)]
pub struct Names {
    /// The qualified name, then the name when it is not its end.
    text: Box<str>,
    qualified: u32,
    name: u32,
}

impl Names {
    pub fn new(name: &str, qualified: String) -> Names {
        let len = qualified.len();
        let (text, at) = if qualified.ends_with(name) {
            (qualified, len - name.len())
        } else {
            (qualified + name, len)
        };
        Names {
            text: text.into_boxed_str(),
            qualified: len as u32,
            name: at as u32,
        }
    }
}

impl SymbolEntry {
    pub fn name(&self) -> &str {
        self.names
            .text
            .get(self.names.name as usize..)
            .unwrap_or("")
    }

    pub fn qualified(&self) -> &str {
        self.names
            .text
            .get(..self.names.qualified as usize)
            .unwrap_or("")
    }
}

/// How a reference was resolved; the confidence follows from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum How {
    /// Defined in the same file (or an enclosing scope).
    Local,
    /// A method of `self`/`this`'s type or one of its bases.
    SelfMethod,
    /// Through an import of the file.
    Import,
    /// Same package/directory (Go, Java).
    Package,
    /// A method of a type the file states (annotation, constructor, return type).
    Typed,
    /// Through a wildcard import or include.
    Wildcard,
    /// A method of a pytest fixture's value: the caller asks for the fixture by naming
    /// a parameter after it, and the fixture's return says what it is.
    Fixture,
    /// A method of a fixture's value reached by convention: a helper of a test file
    /// whose parameter is named like a fixture the file sees.
    Convention,
    /// The only symbol of that name in the store.
    Unique,
}

impl How {
    pub fn as_str(self) -> &'static str {
        match self {
            How::Local => "local",
            How::SelfMethod => "self-method",
            How::Import => "import",
            How::Package => "package",
            How::Typed => "typed",
            How::Wildcard => "wildcard",
            How::Fixture => "fixture",
            How::Convention => "convention",
            How::Unique => "unique",
        }
    }

    pub fn confidence(self) -> f32 {
        match self {
            How::Local | How::SelfMethod => 1.0,
            How::Import => 0.95,
            How::Package | How::Typed => 0.9,
            How::Wildcard | How::Fixture => 0.8,
            How::Convention => 0.6,
            How::Unique => 0.5,
        }
    }
}

/// The less certain of two steps of one resolution.
fn weakest(a: How, b: How) -> How {
    if b.confidence() < a.confidence() {
        b
    } else {
        a
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resolution {
    pub target: i64,
    pub how: How,
    pub confidence: f32,
}

/// Everything the resolver knows about a store: its tables, shared by the index's forks
/// (`Index::fork`), and what each remembers of the answers it gave.
pub struct Index {
    t: Arc<Tables>,
    /// Module resolutions by (file, module): every reference of a file walks the same
    /// imports.
    memo: RefCell<HashMap<Key, Arc<[String]>>>,
    /// `global_type` answers by (file, name, depth): on a big Python package every
    /// reference to a module-level name walks the same re-export chains.
    global_memo: RefCell<GlobalMemo>,
    /// `bare` answers without a caller, by (file, name, kind, hops).
    bare_memo: RefCell<BareMemo>,
    /// What a partial index holds (`Index::partial`); `None` for a whole store's.
    partial: Option<partial::Partial>,
}

/// A store's symbols, imports and bindings, as the resolver looks them up.
#[derive(Clone)]
pub struct Tables {
    files: FileSet,
    symbols: Vec<SymbolEntry>,
    /// Each symbol's language, from its path once: `unique` filters a common name's
    /// thousands of symbols by it.
    langs: Vec<Language>,
    by_path: Postings<Arc<str>>,
    /// By (file, qualified name): scope lookups are per reference, so they must not scan.
    by_key: Postings<Key>,
    /// By name (its `key` with itself).
    by_name: Postings<Key>,
    /// By (container, name).
    methods: Postings<Key>,
    /// Names that have methods (`View` with `View.prototype.lookup = function …`): a
    /// function of that name is a constructor, and `this` inside it is one of those.
    containers: HashSet<String>,
    imports: HashMap<String, Vec<Import>>,
    /// Base types (extends/implements) by type name: (file that declares it, base).
    bases: HashMap<String, Vec<(String, String)>>,
    /// pytest fixtures by name.
    fixtures: HashMap<String, Vec<usize>>,
    /// Field values by (owner type, field): the file that sets it and what it is.
    fields: HashMap<(String, String), Vec<(String, Receiver)>>,
    /// Module-level names by (file, name).
    globals: HashMap<(String, String), Receiver>,
}

impl std::ops::Deref for Index {
    type Target = Tables;

    fn deref(&self) -> &Tables {
        &self.t
    }
}

/// Indexes as `u32`: an entry of 24 bytes, not 32 (the table holds up to 1.8M).
type BareMemo = HashMap<Key, Option<(u32, How)>>;

/// A pair of strings (and what else a table is keyed by) as two 64-bit hashes: a
/// store's tables hold millions of keys, each two strings copied from its symbols; a
/// collision of both hashes is not to be expected in any store (about 2^-128 a pair).
/// Two words rather than a `u128`, whose 16-byte alignment pads a table's entries.
type Key = (u64, u64);

fn name_key(name: &str) -> Key {
    key(name, name, 1)
}

fn key(a: &str, b: &str, more: usize) -> Key {
    use std::hash::BuildHasher;
    let half = |seed: u64| foldhash::quality::FixedState::with_seed(seed).hash_one((a, b, more));
    (half(0x9e37_79b9_7f4a_7c15), half(0x85eb_ca6b_c2b2_ae35))
}

/// Most `bare` answers kept at once: just under what 2^21 buckets hold (7/8 of them), as
/// the table doubles past it (2^21 entries took 4M buckets, 130 MB on a kernel).
const BARE_MEMO_ENTRIES: usize = 1_800_000;

type GlobalMemo = HashMap<(String, String, usize), Option<(String, How)>>;

const MAX_HOPS: usize = 4;
/// Deepest chain of steps typing one value (a fixture's return, through an imported
/// module variable, to a constructor, …); a guard against cycles.
const MAX_VALUE_DEPTH: usize = 10;

fn lang_of(path: &str) -> Language {
    Language::from_path(Path::new(path))
}

/// Languages that call each other's definitions: C with C++ and Objective-C; JavaScript
/// with TypeScript and the scripts of Vue and Svelte components.
fn family(lang: Language) -> Language {
    match lang {
        Language::Cpp | Language::ObjC => Language::C,
        Language::TypeScript | Language::Tsx | Language::Vue | Language::Svelte => {
            Language::JavaScript
        }
        l => l,
    }
}

/// Whether code in `a` may call a definition in `b`.
fn same_family(a: &str, b: &str) -> bool {
    family(lang_of(a)) == family(lang_of(b))
}

fn sep(lang: Language) -> &'static str {
    match lang {
        Language::Rust | Language::Cpp => "::",
        _ => ".",
    }
}

/// A language whose files see only the project's names they declare or import: any
/// other name is the runtime's (TypeScript's lib, a browser's or Node's globals).
fn sees_only_what_it_imports(lang: Language) -> bool {
    matches!(
        lang,
        Language::TypeScript | Language::Tsx | Language::JavaScript
    )
}

/// What a reference of this kind may land on.
fn fits(kind: RefKind, sym: ChunkKind) -> bool {
    match kind {
        RefKind::Calls => matches!(
            sym,
            ChunkKind::Function | ChunkKind::Method | ChunkKind::Class | ChunkKind::Struct
        ),
        RefKind::Extends | RefKind::Implements => sym.is_type(),
        RefKind::Uses => matches!(sym, ChunkKind::Function | ChunkKind::Method),
    }
}

/// A method read like a field: a Python `@property` (or its setter), a JavaScript
/// getter or setter.
fn is_accessor(s: &SymbolEntry) -> bool {
    !lore_core::accessor(s.signature.as_deref()).is_empty()
        || s.decorators.iter().any(|d| {
            matches!(
                d.as_str(),
                "property" | "cached_property" | "functools.cached_property"
            ) || d.ends_with(".setter")
                || d.ends_with(".getter")
        })
}

/// The type a function returns, from its signature as written.
fn return_type(sig: &str, lang: Language, name: &str) -> Option<String> {
    match lang {
        Language::Rust | Language::Python => type_name(sig.rsplit_once("->")?.1),
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            let close = sig.rfind(')')?;
            type_name(sig[close + 1..].trim_start().strip_prefix(':')?)
        }
        Language::Go => {
            // `func [(recv)] Name(params) result`: the result follows the parameters.
            let at = sig.find(&format!("{name}("))? + name.len();
            let mut depth = 0;
            for (i, c) in sig[at..].char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            return type_name(&sig[at + i + 1..]);
                        }
                    }
                    _ => {}
                }
            }
            None
        }
        // `public static Task create(…)`: the word before the name.
        Language::Java | Language::C | Language::Cpp => {
            let before = sig.split(&format!("{name}(")).next()?;
            type_name(before.split_whitespace().last()?)
        }
        _ => None,
    }
}

impl Index {
    /// `files` are every path of the store; `heritage` is (file, type name, base name)
    /// from its extends/implements references; `bindings` its fields and module-level
    /// names, by file.
    pub fn new(
        files: impl IntoIterator<Item = String>,
        symbols: Vec<SymbolEntry>,
        imports: impl IntoIterator<Item = (String, Import)>,
        heritage: impl IntoIterator<Item = (String, String, String)>,
        bindings: impl IntoIterator<Item = (String, Binding)>,
    ) -> Index {
        Index::with_files(FileSet::new(files), symbols, imports, heritage, bindings)
    }

    /// `new` over a store's files already in a `FileSet` (whose import targets a large
    /// store writes before its symbols are read).
    pub fn with_files(
        files: FileSet,
        symbols: Vec<SymbolEntry>,
        imports: impl IntoIterator<Item = (String, Import)>,
        heritage: impl IntoIterator<Item = (String, String, String)>,
        bindings: impl IntoIterator<Item = (String, Binding)>,
    ) -> Index {
        let mut by_file: HashMap<String, Vec<Import>> = HashMap::new();
        for (p, i) in imports {
            by_file.entry(p).or_default().push(i);
        }
        let mut bases: HashMap<String, Vec<(String, String)>> = HashMap::new();
        for (path, t, b) in heritage {
            bases.entry(t).or_default().push((path, b));
        }
        let mut fields: HashMap<(String, String), Vec<(String, Receiver)>> = HashMap::new();
        let mut globals = HashMap::new();
        for (path, b) in bindings {
            match b.owner {
                Some(owner) => fields
                    .entry((owner, b.name))
                    .or_default()
                    .push((path, b.value)),
                None => {
                    globals.insert((path, b.name), b.value);
                }
            }
        }
        let tables = Tables {
            files,
            symbols: Vec::new(),
            langs: Vec::new(),
            by_path: Postings::new(),
            by_key: Postings::new(),
            by_name: Postings::new(),
            containers: HashSet::new(),
            methods: Postings::new(),
            imports: by_file,
            bases,
            fixtures: HashMap::new(),
            fields,
            globals,
        };
        let mut index = Index::over(Arc::new(tables));
        index.insert_symbols(symbols);
        index
    }

    fn over(t: Arc<Tables>) -> Index {
        Index {
            t,
            memo: RefCell::new(HashMap::new()),
            global_memo: RefCell::new(HashMap::new()),
            bare_memo: RefCell::new(HashMap::new()),
            partial: None,
        }
    }

    /// An index over the same tables with memos of its own, for another thread: a whole
    /// store's references resolve on several, each answer the same as this index's.
    /// `None` for a partial index (its symbols are read as its lookups miss).
    pub fn fork(&self) -> Option<Index> {
        self.partial.is_none().then(|| Index::over(self.t.clone()))
    }

    /// Makes `symbols` the index's, in file order, and its symbol tables theirs (the
    /// container names only grow: a partial index is given the store's).
    fn insert_symbols(&mut self, mut symbols: Vec<SymbolEntry>) {
        let t = Arc::make_mut(&mut self.t);
        // Ids are unique: the order is the same as a stable sort's, without its copy.
        symbols.sort_unstable_by(|a, b| (&a.path, a.at, a.id).cmp(&(&b.path, b.at, b.id)));
        t.fixtures.clear();
        t.langs.clear();
        for (i, s) in symbols.iter().enumerate() {
            let lang = match i.checked_sub(1).map(|p| &symbols[p]) {
                Some(prev) if Arc::ptr_eq(&prev.path, &s.path) || prev.path == s.path => {
                    t.langs[i - 1]
                }
                _ => lang_of(&s.path),
            };
            t.langs.push(lang);
            if let Some(f) = s.decorators.iter().find_map(|d| fixture_name(d, s.name())) {
                t.fixtures.entry(f.to_string()).or_default().push(i);
            }
            if let Some(c) = &s.container
                && !t.containers.contains(c.as_str())
            {
                t.containers.insert(c.clone());
            }
        }
        let all = || symbols.iter().enumerate();
        t.by_path = Postings::build(|| all().map(|(i, s)| (s.path.clone(), i)));
        t.by_key = Postings::build(|| all().map(|(i, s)| (key(&s.path, s.qualified(), 0), i)));
        t.by_name = Postings::build(|| all().map(|(i, s)| (name_key(s.name()), i)));
        t.methods = Postings::build(|| {
            all().filter_map(|(i, s)| Some((key(s.container.as_deref()?, s.name(), 0), i)))
        });
        t.symbols = symbols;
    }

    /// `FileSet::resolve`, remembered per (file, module).
    fn modules(&self, lang: Language, path: &str, module: &str) -> Vec<String> {
        self.modules_shared(lang, path, module).to_vec()
    }

    /// `modules` without a copy: a kernel file's includes are walked for every name.
    fn modules_shared(&self, lang: Language, path: &str, module: &str) -> Arc<[String]> {
        let key = key(path, module, 0);
        if let Ok(memo) = self.memo.try_borrow()
            && let Some(v) = memo.get(&key)
        {
            return v.clone();
        }
        let v: Arc<[String]> = self.files.resolve(lang, path, module).into();
        if let Ok(mut memo) = self.memo.try_borrow_mut() {
            memo.insert(key, v.clone());
        }
        v
    }

    pub fn symbol(&self, i: usize) -> &SymbolEntry {
        &self.symbols[i]
    }

    fn imports_of(&self, path: &str) -> &[Import] {
        self.imports.get(path).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The symbol of `path` with this qualified name that fits. Of Swift's overloads (one
    /// name, told apart by argument labels), none: which one a call means is not known.
    fn in_file(&self, path: &str, qualified: &str, kind: RefKind) -> Option<usize> {
        let mut fitting = self
            .by_key_of(path, qualified)?
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| fits(kind, self.symbols[i].kind));
        let first = fitting.next()?;
        if lang_of(path) == Language::Swift && fitting.next().is_some() {
            return None;
        }
        Some(first)
    }

    /// Symbols of `path` named `qualified`, whatever their kind.
    fn defined(&self, path: &str, qualified: &str) -> &[u32] {
        self.by_key_of(path, qualified).unwrap_or(&[])
    }

    fn top_level_in(&self, files: &[String], name: &str, kind: RefKind) -> Option<usize> {
        let mut found = files.iter().filter_map(|f| self.in_file(f, name, kind));
        let first = found.next()?;
        found.next().is_none().then_some(first)
    }

    /// How many entries its tables and memos hold (for logs of a large store's run).
    pub fn sizes(&self) -> String {
        let memo_files: usize = self.memo.borrow().values().map(|v| v.len()).sum();
        format!(
            "symbols {}, by_key {}, by_name {}, methods {}, imports {}, globals {}, fields {}, \
             module memo {} ({} files), global memo {}, bare memo {}",
            self.symbols.len(),
            self.by_key.len(),
            self.by_name.len(),
            self.methods.len(),
            self.imports.values().map(Vec::len).sum::<usize>(),
            self.globals.len(),
            self.fields.len(),
            self.memo.borrow().len(),
            memo_files,
            self.global_memo.borrow().len(),
            self.bare_memo.borrow().len(),
        )
    }

    /// Resolves a reference made in `path`.
    pub fn resolve(&self, path: &str, r: &Reference) -> Option<Resolution> {
        let lang = lang_of(path);
        let found = match &r.receiver {
            Receiver::None => self.bare(path, lang, &r.name, r.caller.as_deref(), r.kind, 0),
            Receiver::SelfType => {
                let ty = self.self_type(path, lang, r.caller.as_deref()?)?;
                self.method(path, &ty, &r.name, 0)
                    .map(|i| (i, How::SelfMethod))
            }
            Receiver::Type(t) => self.typed_method(path, lang, t, r.caller.as_deref(), &r.name),
            Receiver::ReturnOf(expr) => {
                let (ty, how) = self.type_of_call(path, lang, expr, r.caller.as_deref(), 0)?;
                self.method(path, &ty, &r.name, 0)
                    .map(|i| (i, weakest(How::Typed, how)))
            }
            Receiver::Path(p) => {
                self.qualified_call(path, lang, p, &r.name, r.kind, r.caller.as_deref(), 0)
            }
            // A field of a known value, or a function's parameter typed by its callee or
            // by where it is given.
            Receiver::Field(..) | Receiver::Callback { .. } | Receiver::Param { .. } => {
                let (ty, how) = self.value_type(path, lang, &r.receiver, r.caller.as_deref(), 0)?;
                self.method(path, &ty, &r.name, 0)
                    .map(|i| (i, weakest(How::Typed, how)))
            }
            Receiver::Unknown => None,
        }?;
        let (i, how) = found;
        // A property read (`self.debug`, a getter) gives its value, not the function.
        if r.kind == RefKind::Uses && is_accessor(&self.symbols[i]) {
            return None;
        }
        Some(Resolution {
            target: self.symbols[i].id,
            how,
            confidence: how.confidence(),
        })
    }

    /// Whether method `i`, found for a bare call inside type `ty`, is that type's: where
    /// two types share the simple name (`Sinatra::Base`, `Rack::Protection::Base`), only
    /// one in the calling file counts. Java and C++ keep their own rules.
    fn own_method(&self, path: &str, lang: Language, ty: &str, i: usize) -> bool {
        if matches!(lang, Language::Java | Language::Cpp | Language::C) {
            return true;
        }
        let types = self.by_name_of(ty).map_or(0, |v| {
            v.iter()
                .filter(|&&j| self.symbols[j as usize].kind.is_type())
                .count()
        });
        types <= 1 || &*self.symbols[i].path == path
    }

    /// The type `self` means for code in `caller`.
    fn self_type(&self, path: &str, lang: Language, caller: &str) -> Option<String> {
        let sep = sep(lang);
        let mut q = caller;
        loop {
            if let Some(&i) = self.defined(path, q).first() {
                let s = &self.symbols[i as usize];
                if s.kind.is_type()
                    || (s.kind == ChunkKind::Function && self.containers.contains(s.name()))
                {
                    return Some(s.name().to_string());
                }
                if let Some(c) = &s.container {
                    return Some(c.clone());
                }
            }
            q = q.rsplit_once(sep)?.0;
            // A Rust impl frame (`Store::get` → `Store`) is not a symbol itself.
            if self.defined(path, q).is_empty() {
                return Some(q.rsplit(sep).next().unwrap_or(q).to_string());
            }
        }
    }

    /// A bare name: enclosing scopes, the file, imports, the package, wildcards, and
    /// (Rust, C, C++, shell, Ruby, PHP, Lua) a name unique in the store.
    fn bare(
        &self,
        path: &str,
        lang: Language,
        name: &str,
        caller: Option<&str>,
        kind: RefKind,
        hops: usize,
    ) -> Option<(usize, How)> {
        // Without a caller the answer depends on the file and the name alone: a file's
        // includes or star re-exports are walked for every reference that reaches it (a
        // kernel header's dozens of includes, four hops deep), so each walk is kept.
        if caller.is_some() {
            return self.bare_walk(path, lang, name, caller, kind, hops);
        }
        let key = key(path, name, hops * 8 + kind as usize);
        if let Ok(memo) = self.bare_memo.try_borrow()
            && let Some(found) = memo.get(&key)
        {
            return found.map(|(i, how)| (i as usize, how));
        }
        let misses = self.misses();
        let found = self.bare_walk(path, lang, name, None, kind, hops);
        if self.misses() == misses
            && let Ok(mut memo) = self.bare_memo.try_borrow_mut()
        {
            // Bounded: on the kernel the (header, name) pairs walked number in the tens of
            // millions; starting over keeps the recent ones, which the next files reuse.
            if memo.len() >= BARE_MEMO_ENTRIES {
                memo.clear();
            }
            memo.insert(key, found.map(|(i, how)| (i as u32, how)));
        }
        found
    }

    fn bare_walk(
        &self,
        path: &str,
        lang: Language,
        name: &str,
        caller: Option<&str>,
        kind: RefKind,
        hops: usize,
    ) -> Option<(usize, How)> {
        let sep = sep(lang);
        // Languages where a bare call inside a type may be one of its methods.
        let members_in_scope = matches!(
            lang,
            Language::Java
                | Language::Cpp
                | Language::C
                | Language::CSharp
                | Language::Kotlin
                | Language::Swift
                | Language::Scala
                | Language::Dart
                | Language::Groovy
                | Language::Ruby
        );
        // Enclosing scopes, innermost first: a nested function, then the file's top level.
        let mut scope = caller;
        while let Some(s) = scope {
            if let Some(i) = self.in_file(path, &format!("{s}{sep}{name}"), kind)
                && (members_in_scope || self.symbols[i].kind != ChunkKind::Method)
            {
                return Some((i, How::Local));
            }
            if members_in_scope
                && let Some(ty) = self.self_type(path, lang, s)
                && let Some(i) = self.method(path, &ty, name, 0)
                && self.own_method(path, lang, &ty, i)
            {
                return Some((i, How::SelfMethod));
            }
            scope = s.rsplit_once(sep).map(|(a, _)| a);
        }
        if let Some(i) = self.in_file(path, name, kind) {
            return Some((i, How::Local));
        }
        // Imported by name.
        for imp in self.imports_of(path) {
            // `const Router = require('./router')`: what the module exports whole.
            if imp.names.is_empty()
                && imp.alias.as_deref() == Some(name)
                && let Some(i) = self.commonjs_export(&self.modules(lang, path, &imp.module), kind)
            {
                return Some((i, How::Import));
            }
            for n in &imp.names {
                if n.local() != name || n.name == "self" {
                    continue;
                }
                let targets = self.modules_shared(lang, path, &imp.module);
                let found = if n.name == "default" {
                    self.default_export(&targets, kind)
                } else {
                    self.top_level_in(&targets, &n.name, kind).or_else(|| {
                        // Re-exported (`index.ts`, `__init__.py`): one more hop.
                        (hops < MAX_HOPS)
                            .then(|| {
                                targets.iter().find_map(|t| {
                                    self.bare(t, lang, &n.name, None, kind, hops + 1)
                                        .map(|(i, _)| i)
                                })
                            })
                            .flatten()
                    })
                };
                if let Some(i) = found {
                    return Some((i, How::Import));
                }
            }
        }
        // The same package: Go and Java see their directory's top-level names.
        if matches!(lang, Language::Go | Language::Java) {
            let siblings: Vec<String> = self
                .files
                .in_dir(dir_of(path))
                .iter()
                .filter(|f| *f != path && lang_of(f) == lang)
                .cloned()
                .collect();
            if let Some(i) = self.top_level_in(&siblings, name, kind) {
                return Some((i, How::Package));
            }
        }
        for imp in self.imports_of(path).iter().filter(|i| i.wildcard) {
            let targets = self.modules_shared(lang, path, &imp.module);
            if let Some(i) = self.top_level_in(&targets, name, kind) {
                return Some((i, How::Wildcard));
            }
            // `export * from './types'` where `types.ts` re-exports it in turn.
            if hops < MAX_HOPS
                && let Some(i) = targets.iter().find_map(|t| {
                    self.bare(t, lang, name, None, kind, hops + 1)
                        .map(|(i, _)| i)
                })
            {
                return Some((i, How::Wildcard));
            }
        }
        // Where functions are global once loaded (a shell's sourced functions, PHP's
        // functions and classes), or are found through a path lore does not follow: a
        // name defined once in the store. Not Ruby's (a test DSL's `before` is no app's
        // `before`) nor Lua's (its locals are the file's own).
        if matches!(lang, Language::Rust | Language::C | Language::Cpp) {
            return self.unique(name, kind, lang).map(|i| (i, How::Unique));
        }
        if matches!(lang, Language::Bash | Language::Php) {
            return self
                .unique(name, kind, lang)
                .filter(|&i| self.symbols[i].container.is_none())
                .map(|i| (i, How::Unique));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_held_once() {
        let entry = |name: &str, qualified: &str| SymbolEntry {
            id: 1,
            path: Arc::from("a.rs"),
            names: Names::new(name, qualified.to_string()),
            at: 0,
            kind: ChunkKind::Function,
            container: None,
            signature: None,
            returns: None,
            params: Box::default(),
            decorators: Box::default(),
        };
        for (name, qualified) in [
            ("get", "Store::get"),
            ("kmalloc", "kmalloc"),
            ("new", "new_in"),
            ("x", ""),
            ("é", "Zé"),
        ] {
            let s = entry(name, qualified);
            assert_eq!((s.name(), s.qualified()), (name, qualified));
        }
    }

    #[test]
    fn return_types_from_signatures() {
        assert_eq!(
            return_type("pub fn new() -> Self", Language::Rust, "new").as_deref(),
            Some("Self")
        );
        assert_eq!(
            return_type(
                "fn open(p: &Path) -> Result<Store, Error>",
                Language::Rust,
                "open"
            )
            .as_deref(),
            Some("Store")
        );
        assert_eq!(
            return_type("def make() -> Cart", Language::Python, "make").as_deref(),
            Some("Cart")
        );
        assert_eq!(
            return_type(
                "static create(name: string): Task",
                Language::TypeScript,
                "create"
            )
            .as_deref(),
            Some("Task")
        );
        assert_eq!(
            return_type("async load(): Promise<Task>", Language::TypeScript, "load").as_deref(),
            Some("Task")
        );
        assert_eq!(
            return_type("func New(dir string) *Store", Language::Go, "New").as_deref(),
            Some("Store")
        );
        assert_eq!(
            return_type("func (s *S) Open() (*Store, error)", Language::Go, "Open").as_deref(),
            Some("Store")
        );
        assert_eq!(
            return_type(
                "public static Task create(String n)",
                Language::Java,
                "create"
            )
            .as_deref(),
            Some("Task")
        );
    }
}
