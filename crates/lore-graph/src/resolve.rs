//! Reference resolution over a store's symbols and imports.

use crate::modules::{FileSet, dir_of};
use lore_core::{
    Binding, ChunkKind, Import, Language, Receiver, RefKind, Reference, fixture_name, is_test_path,
    type_name,
};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

/// A symbol as the resolver needs it.
#[derive(Debug, Clone)]
pub struct SymbolEntry {
    pub id: i64,
    pub path: String,
    pub name: String,
    pub qualified: String,
    pub kind: ChunkKind,
    pub container: Option<String>,
    pub signature: Option<String>,
    /// What the body returns when the signature does not say.
    pub returns: Option<Receiver>,
    /// Parameters without a declared type (Python).
    pub params: Vec<String>,
    /// Decorators without their arguments (Python).
    pub decorators: Vec<String>,
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

/// Everything the resolver knows about a store.
pub struct Index {
    files: FileSet,
    symbols: Vec<SymbolEntry>,
    by_path: HashMap<String, Vec<usize>>,
    /// By (file, qualified name): scope lookups are per reference, so they must not scan.
    by_key: HashMap<(String, String), Vec<usize>>,
    by_name: HashMap<String, Vec<usize>>,
    methods: HashMap<(String, String), Vec<usize>>,
    imports: HashMap<String, Vec<Import>>,
    /// Base types (extends/implements) by type name: (file that declares it, base).
    bases: HashMap<String, Vec<(String, String)>>,
    /// pytest fixtures by name.
    fixtures: HashMap<String, Vec<usize>>,
    /// Field values by (owner type, field): the file that sets it and what it is.
    fields: HashMap<(String, String), Vec<(String, Receiver)>>,
    /// Module-level names by (file, name).
    globals: HashMap<(String, String), Receiver>,
    /// Module resolutions by (file, module): every reference of a file walks the same
    /// imports.
    memo: RefCell<HashMap<(String, String), Vec<String>>>,
}

const MAX_HOPS: usize = 4;
/// Deepest chain of steps typing one value (a fixture's return, through an imported
/// module variable, to a constructor, …); a guard against cycles.
const MAX_VALUE_DEPTH: usize = 10;

fn lang_of(path: &str) -> Language {
    Language::from_path(Path::new(path))
}

fn sep(lang: Language) -> &'static str {
    match lang {
        Language::Rust | Language::Cpp => "::",
        _ => ".",
    }
}

/// What a reference of this kind may land on.
fn fits(kind: RefKind, sym: ChunkKind) -> bool {
    match kind {
        RefKind::Calls => matches!(
            sym,
            ChunkKind::Function | ChunkKind::Method | ChunkKind::Class | ChunkKind::Struct
        ),
        RefKind::Extends | RefKind::Implements => sym.is_type(),
    }
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
        Language::Markdown | Language::Text => None,
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
        let mut by_path: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        let mut methods: HashMap<(String, String), Vec<usize>> = HashMap::new();
        let mut by_key: HashMap<(String, String), Vec<usize>> = HashMap::new();
        let mut fixtures: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, s) in symbols.iter().enumerate() {
            if let Some(f) = s.decorators.iter().find_map(|d| fixture_name(d, &s.name)) {
                fixtures.entry(f.to_string()).or_default().push(i);
            }
            by_path.entry(s.path.clone()).or_default().push(i);
            by_key
                .entry((s.path.clone(), s.qualified.clone()))
                .or_default()
                .push(i);
            by_name.entry(s.name.clone()).or_default().push(i);
            if let Some(c) = &s.container {
                methods
                    .entry((c.clone(), s.name.clone()))
                    .or_default()
                    .push(i);
            }
        }
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
        Index {
            files: FileSet::new(files),
            symbols,
            by_path,
            by_key,
            by_name,
            methods,
            imports: by_file,
            bases,
            fixtures,
            fields,
            globals,
            memo: RefCell::new(HashMap::new()),
        }
    }

    /// `FileSet::resolve`, remembered per (file, module).
    fn modules(&self, lang: Language, path: &str, module: &str) -> Vec<String> {
        let key = (path.to_string(), module.to_string());
        if let Ok(memo) = self.memo.try_borrow()
            && let Some(v) = memo.get(&key)
        {
            return v.clone();
        }
        let v = self.files.resolve(lang, path, module);
        if let Ok(mut memo) = self.memo.try_borrow_mut() {
            memo.insert(key, v.clone());
        }
        v
    }

    pub fn symbol(&self, i: usize) -> &SymbolEntry {
        &self.symbols[i]
    }

    /// The store files an import points to.
    pub fn import_targets(&self, path: &str, imp: &Import) -> Vec<String> {
        let lang = lang_of(path);
        let mut out = self.modules(lang, path, &imp.module);
        // `from pkg import submodule`: the submodule's file.
        if lang == Language::Python {
            for n in &imp.names {
                if let Some(f) = self.python_submodule(path, &imp.module, &n.name) {
                    out.push(f);
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    fn python_submodule(&self, path: &str, module: &str, name: &str) -> Option<String> {
        let full = if module.ends_with('.') {
            format!("{module}{name}")
        } else {
            format!("{module}.{name}")
        };
        self.files
            .resolve(Language::Python, path, &full)
            .into_iter()
            .next()
    }

    fn imports_of(&self, path: &str) -> &[Import] {
        self.imports.get(path).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Symbols of `path` with this qualified name that fit.
    fn in_file(&self, path: &str, qualified: &str, kind: RefKind) -> Option<usize> {
        self.by_key
            .get(&(path.to_string(), qualified.to_string()))?
            .iter()
            .copied()
            .find(|&i| fits(kind, self.symbols[i].kind))
    }

    /// Symbols of `path` named `qualified`, whatever their kind.
    fn defined(&self, path: &str, qualified: &str) -> &[usize] {
        self.by_key
            .get(&(path.to_string(), qualified.to_string()))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    fn top_level_in(&self, files: &[String], name: &str, kind: RefKind) -> Option<usize> {
        let mut found = files.iter().filter_map(|f| self.in_file(f, name, kind));
        let first = found.next()?;
        found.next().is_none().then_some(first)
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
            Receiver::Type(t) => self.typed_method(path, lang, t, &r.name),
            Receiver::ReturnOf(expr) => {
                let (ty, how) = self.type_of_call(path, lang, expr, r.caller.as_deref(), 0)?;
                self.method(path, &ty, &r.name, 0)
                    .map(|i| (i, weakest(How::Typed, how)))
            }
            Receiver::Path(p) => {
                self.qualified_call(path, lang, p, &r.name, r.kind, r.caller.as_deref(), 0)
            }
            Receiver::Field(..) => {
                let (ty, how) = self.value_type(path, lang, &r.receiver, r.caller.as_deref(), 0)?;
                self.method(path, &ty, &r.name, 0)
                    .map(|i| (i, weakest(How::Typed, how)))
            }
            Receiver::Unknown => None,
        }?;
        let (i, how) = found;
        Some(Resolution {
            target: self.symbols[i].id,
            how,
            confidence: how.confidence(),
        })
    }

    /// The type `self` means for code in `caller`.
    fn self_type(&self, path: &str, lang: Language, caller: &str) -> Option<String> {
        let sep = sep(lang);
        let mut q = caller;
        loop {
            if let Some(&i) = self.defined(path, q).first() {
                let s = &self.symbols[i];
                if s.kind.is_type() {
                    return Some(s.name.clone());
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
    /// (Rust, C, C++) a name unique in the store.
    fn bare(
        &self,
        path: &str,
        lang: Language,
        name: &str,
        caller: Option<&str>,
        kind: RefKind,
        hops: usize,
    ) -> Option<(usize, How)> {
        let sep = sep(lang);
        let members_in_scope = matches!(lang, Language::Java | Language::Cpp | Language::C);
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
            for n in &imp.names {
                if n.local() != name || n.name == "self" {
                    continue;
                }
                let targets = self.modules(lang, path, &imp.module);
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
            let targets = self.modules(lang, path, &imp.module);
            if let Some(i) = self.top_level_in(&targets, name, kind) {
                return Some((i, How::Wildcard));
            }
        }
        if matches!(lang, Language::Rust | Language::C | Language::Cpp) {
            return self.unique(name, kind, lang).map(|i| (i, How::Unique));
        }
        None
    }

    /// The one symbol of that name in the store (in a file of the same language family).
    fn unique(&self, name: &str, kind: RefKind, lang: Language) -> Option<usize> {
        let c_family = |l: Language| matches!(l, Language::C | Language::Cpp);
        let mut found = self.by_name.get(name)?.iter().copied().filter(|&i| {
            let s = &self.symbols[i];
            let l = lang_of(&s.path);
            fits(kind, s.kind) && (l == lang || (c_family(l) && c_family(lang)))
        });
        let first = found.next()?;
        found.next().is_none().then_some(first)
    }

    /// The default export of a JS/TS module.
    fn default_export(&self, files: &[String], kind: RefKind) -> Option<usize> {
        files.iter().find_map(|f| {
            self.by_path.get(f)?.iter().copied().find(|&i| {
                let s = &self.symbols[i];
                fits(kind, s.kind)
                    && s.signature
                        .as_deref()
                        .is_some_and(|sig| sig.starts_with("export default"))
            })
        })
    }

    /// A method of a type, or of its bases; ambiguity between files is settled by the
    /// file and directory of the caller, else left unresolved.
    fn method(&self, path: &str, ty: &str, name: &str, depth: usize) -> Option<usize> {
        if let Some(cands) = self.methods.get(&(ty.to_string(), name.to_string())) {
            let callable: Vec<usize> = cands
                .iter()
                .copied()
                .filter(|&i| fits(RefKind::Calls, self.symbols[i].kind))
                .collect();
            match callable.as_slice() {
                [] => {}
                [one] => return Some(*one),
                many => {
                    let same_file: Vec<usize> = many
                        .iter()
                        .copied()
                        .filter(|&i| self.symbols[i].path == path)
                        .collect();
                    if let [one] = same_file.as_slice() {
                        return Some(*one);
                    }
                    let dir = dir_of(path);
                    let same_dir: Vec<usize> = many
                        .iter()
                        .copied()
                        .filter(|&i| dir_of(&self.symbols[i].path) == dir)
                        .collect();
                    if let [one] = same_dir.as_slice() {
                        return Some(*one);
                    }
                    // Where the type itself is defined, as the caller sees it.
                    let def_dir = self
                        .bare(path, lang_of(path), ty, None, RefKind::Extends, 0)
                        .map(|(i, _)| dir_of(&self.symbols[i].path).to_string());
                    if let Some(d) = def_dir {
                        let near: Vec<usize> = many
                            .iter()
                            .copied()
                            .filter(|&i| dir_of(&self.symbols[i].path) == d)
                            .collect();
                        if let [one] = near.as_slice() {
                            return Some(*one);
                        }
                    }
                    return None;
                }
            }
        }
        if depth >= MAX_HOPS {
            return None;
        }
        self.bases_of(path, ty)
            .into_iter()
            .find_map(|(file, b)| self.method(&file, &b, name, depth + 1))
    }

    /// The bases of type `ty` as seen from `path`: those declared in the file that
    /// defines the `ty` that `path` sees (other types may share the name), or all of them
    /// when that file is unknown. Each base by its own name (not an alias it was imported
    /// as) and the file that defines it, from which its own bases are looked up in turn.
    fn bases_of(&self, path: &str, ty: &str) -> Vec<(String, String)> {
        let entries = self.bases.get(ty).map(Vec::as_slice).unwrap_or(&[]);
        let def = (!entries.is_empty())
            .then(|| self.type_file(path, ty))
            .flatten();
        entries
            .iter()
            .filter(|(f, _)| def.as_ref().is_none_or(|d| d == f))
            .map(
                |(f, b)| match self.bare(f, lang_of(f), b, None, RefKind::Extends, 0) {
                    Some((i, _)) => (self.symbols[i].path.clone(), self.symbols[i].name.clone()),
                    None => (f.clone(), b.clone()),
                },
            )
            .collect()
    }

    /// `x.m()` where the file says `x` is a `T` (which may be an imported alias).
    fn typed_method(
        &self,
        path: &str,
        lang: Language,
        t: &str,
        name: &str,
    ) -> Option<(usize, How)> {
        let real = self
            .bare(path, lang, t, None, RefKind::Extends, 0)
            .map(|(i, _)| self.symbols[i].name.clone())
            .unwrap_or_else(|| t.to_string());
        self.method(path, &real, name, 0).map(|i| (i, How::Typed))
    }

    /// The type of the value a call returns: a constructed class, or the callee's
    /// declared return type; with the least certain step that led there.
    fn type_of_call(
        &self,
        path: &str,
        lang: Language,
        expr: &str,
        caller: Option<&str>,
        depth: usize,
    ) -> Option<(String, How)> {
        if depth > MAX_VALUE_DEPTH {
            return None;
        }
        let split = expr.rsplit_once("::").or_else(|| expr.rsplit_once('.'));
        let (i, how) = match split {
            // `store.New().Get`: the method of what the inner call returns.
            _ if expr.contains("().") => {
                let (inner, name) = expr.rsplit_once("().")?;
                let (ty, how) = self.type_of_call(path, lang, inner, caller, depth + 1)?;
                self.method(path, &ty, name, 0)
                    .map(|i| (i, weakest(How::Typed, how)))
            }
            None => self.bare(path, lang, expr, caller, RefKind::Calls, 0),
            Some(("Self" | "self" | "this", name)) => {
                let ty = self.self_type(path, lang, caller?)?;
                self.method(path, &ty, name, 0)
                    .map(|i| (i, How::SelfMethod))
            }
            Some((p, name)) => {
                self.qualified_call(path, lang, p, name, RefKind::Calls, caller, depth + 1)
            }
        }?;
        let (ty, then) = self.returned_type(i, depth)?;
        Some((ty, weakest(how, then)))
    }

    /// The type of what calling symbol `i` gives: the class itself, the declared return
    /// type, or what its body returns.
    fn returned_type(&self, i: usize, depth: usize) -> Option<(String, How)> {
        let s = &self.symbols[i];
        if s.kind.is_type() {
            return Some((s.name.clone(), How::Local));
        }
        let declared = s
            .signature
            .as_deref()
            .and_then(|sig| return_type(sig, lang_of(&s.path), &s.name));
        let ret = match (declared, &s.returns) {
            (Some(r), _) => r,
            (None, Some(Receiver::Type(t))) => t.clone(),
            (None, Some(Receiver::SelfType)) => return Some((s.container.clone()?, How::Local)),
            // A fixture that passes on the fixture it asks for, or a module-level or
            // imported name.
            (None, Some(Receiver::Path(p))) => {
                if self.param_scope(&s.path, Some(&s.qualified), p).is_some() {
                    return self.param_type(&s.path, Some(&s.qualified), p, depth + 1);
                }
                return self.global_type(&s.path, lang_of(&s.path), p, depth + 1);
            }
            (None, Some(Receiver::ReturnOf(e))) => {
                return self.type_of_call(
                    &s.path,
                    lang_of(&s.path),
                    e,
                    Some(&s.qualified),
                    depth + 1,
                );
            }
            _ => return None,
        };
        if ret == "Self" {
            return Some((s.container.clone()?, How::Local));
        }
        Some((ret, How::Local))
    }

    /// The pytest fixture a parameter `name` of `requester` (qualified, in `path`)
    /// receives: one of its class, of its file, else of the nearest `conftest.py` above.
    /// A fixture asking for its own name gets the next one out.
    fn fixture(&self, path: &str, requester: &str, name: &str) -> Option<usize> {
        let cands = self.fixtures.get(name)?;
        let this = self.defined(path, requester).first().copied();
        // The fixture of that name defined in `file` directly in `scope` (a class).
        let pick = |file: &str, scope: Option<&str>| {
            cands.iter().copied().find(|&i| {
                let s = &self.symbols[i];
                Some(i) != this
                    && s.path == file
                    && s.qualified.rsplit_once('.').map(|(a, _)| a) == scope
            })
        };
        let mut scope = requester.rsplit_once('.').map(|(a, _)| a);
        while let Some(s) = scope {
            if let Some(i) = pick(path, Some(s)) {
                return Some(i);
            }
            scope = s.rsplit_once('.').map(|(a, _)| a);
        }
        if let Some(i) = pick(path, None) {
            return Some(i);
        }
        let mut dir = dir_of(path);
        loop {
            let conftest = if dir.is_empty() {
                "conftest.py".to_string()
            } else {
                format!("{dir}/conftest.py")
            };
            if conftest != path
                && let Some(i) = pick(&conftest, None)
            {
                return Some(i);
            }
            if dir.is_empty() {
                return None;
            }
            dir = dir_of(dir);
        }
    }

    /// The innermost function around `caller` (itself included) with an untyped
    /// parameter `p`.
    fn param_scope(&self, path: &str, caller: Option<&str>, p: &str) -> Option<usize> {
        let mut scope = caller;
        while let Some(q) = scope {
            if let Some(&i) = self
                .defined(path, q)
                .iter()
                .find(|&&i| self.symbols[i].params.iter().any(|x| x == p))
            {
                return Some(i);
            }
            scope = q.rsplit_once('.').map(|(a, _)| a);
        }
        None
    }

    /// The type of an untyped parameter `p` of `caller` (or of a function around it)
    /// that a pytest fixture provides.
    fn param_type(
        &self,
        path: &str,
        caller: Option<&str>,
        p: &str,
        depth: usize,
    ) -> Option<(String, How)> {
        if depth > MAX_VALUE_DEPTH {
            return None;
        }
        let s = &self.symbols[self.param_scope(path, caller, p)?];
        // pytest passes fixtures to tests (`test*`) and to other fixtures; a helper of a
        // test file that takes a parameter named like a fixture is, by convention, handed
        // that fixture by the tests that call it.
        let how = if s.name.starts_with("test")
            || s.decorators
                .iter()
                .any(|d| fixture_name(d, &s.name).is_some())
        {
            How::Fixture
        } else if is_test_path(path) {
            How::Convention
        } else {
            return None;
        };
        let f = self.fixture(path, &s.qualified, p)?;
        let (ty, then) = self.returned_type(f, depth + 1)?;
        Some((ty, weakest(how, then)))
    }

    /// The type of a value as a receiver describes it, as seen from `caller` in `path`.
    fn value_type(
        &self,
        path: &str,
        lang: Language,
        r: &Receiver,
        caller: Option<&str>,
        depth: usize,
    ) -> Option<(String, How)> {
        if depth > MAX_VALUE_DEPTH {
            return None;
        }
        match r {
            Receiver::SelfType => Some((self.self_type(path, lang, caller?)?, How::Local)),
            Receiver::Type(t) => {
                // An imported alias names the type by another name.
                let real = self
                    .bare(path, lang, t, None, RefKind::Extends, 0)
                    .map(|(i, _)| self.symbols[i].name.clone())
                    .unwrap_or_else(|| t.clone());
                Some((real, How::Local))
            }
            Receiver::ReturnOf(e) => self.type_of_call(path, lang, e, caller, depth + 1),
            Receiver::Path(p) => self.path_type(path, lang, p, caller, depth + 1),
            Receiver::Field(base, field) => {
                let (ty, how) = self.value_type(path, lang, base, caller, depth + 1)?;
                let (ty, then) = self.field_type(path, &ty, field, depth + 1)?;
                Some((ty, weakest(how, then)))
            }
            Receiver::None | Receiver::Unknown => None,
        }
    }

    /// The type of field `field` of type `ty` (or of a base of it), from where the field
    /// is set.
    fn field_type(&self, path: &str, ty: &str, field: &str, depth: usize) -> Option<(String, How)> {
        if depth > MAX_VALUE_DEPTH {
            return None;
        }
        if let Some(sets) = self.fields.get(&(ty.to_string(), field.to_string())) {
            // The type's own file, when several types share the name.
            let def = self.type_file(path, ty);
            let set = match sets.as_slice() {
                [one] => Some(one),
                many => many.iter().find(|(f, _)| Some(f) == def.as_ref()),
            };
            if let Some((file, value)) = set {
                return self.value_type(file, lang_of(file), value, Some(ty), depth + 1);
            }
            return None;
        }
        self.bases_of(path, ty)
            .into_iter()
            .find_map(|(file, b)| self.field_type(&file, &b, field, depth + 1))
    }

    /// The file that defines type `ty` as seen from `path`.
    fn type_file(&self, path: &str, ty: &str) -> Option<String> {
        self.bare(path, lang_of(path), ty, None, RefKind::Extends, 0)
            .map(|(i, _)| self.symbols[i].path.clone())
    }

    /// The type of the value a dotted name stands for: a fixture parameter, a
    /// module-level name of the file or imported from another, or a name of an imported
    /// module; then its fields.
    fn path_type(
        &self,
        path: &str,
        lang: Language,
        p: &str,
        caller: Option<&str>,
        depth: usize,
    ) -> Option<(String, How)> {
        if depth > MAX_VALUE_DEPTH {
            return None;
        }
        let segs: Vec<&str> = p.split('.').collect();
        let head = *segs.first()?;
        // A parameter hides the module's names.
        if self.param_scope(path, caller, head).is_some() {
            let (mut ty, mut how) = self.param_type(path, caller, head, depth)?;
            for field in &segs[1..] {
                let (t, h) = self.field_type(path, &ty, field, depth + 1)?;
                ty = t;
                how = weakest(how, h);
            }
            return Some((ty, how));
        }
        let mut value = self.global_type(path, lang, head, depth).map(|v| (v, 1));
        if value.is_none() {
            // `flask.current_app`: a name of a module the file imports.
            for n in (1..segs.len()).rev() {
                let module = segs[..n].join(".");
                let Some(files) = self.module_alias(path, lang, &module) else {
                    continue;
                };
                let name = segs[n];
                value = files
                    .iter()
                    .find_map(|f| self.global_type(f, lang_of(f), name, depth))
                    .map(|v| (v, n + 1));
                break;
            }
        }
        let ((mut ty, mut how), used) = value?;
        for field in &segs[used..] {
            let (t, h) = self.field_type(path, &ty, field, depth + 1)?;
            ty = t;
            how = weakest(how, h);
        }
        Some((ty, how))
    }

    /// The type of a module-level name of `path`, or of one it imports by name (through
    /// re-exports).
    fn global_type(
        &self,
        path: &str,
        lang: Language,
        name: &str,
        depth: usize,
    ) -> Option<(String, How)> {
        if depth > MAX_VALUE_DEPTH {
            return None;
        }
        if let Some(v) = self.globals.get(&(path.to_string(), name.to_string())) {
            let (ty, how) = self.value_type(path, lang, v, None, depth + 1)?;
            return Some((ty, weakest(How::Typed, how)));
        }
        for imp in self.imports_of(path) {
            for n in imp.names.iter().filter(|n| n.local() == name) {
                let files = self.modules(lang, path, &imp.module);
                if let Some(found) = files
                    .iter()
                    .find_map(|f| self.global_type(f, lang_of(f), &n.name, depth + 1))
                {
                    return Some(found);
                }
            }
        }
        None
    }

    /// `p.name()` / `p::name()`: `p` is a module, a package, or a type.
    #[allow(clippy::too_many_arguments)]
    fn qualified_call(
        &self,
        path: &str,
        lang: Language,
        p: &str,
        name: &str,
        kind: RefKind,
        caller: Option<&str>,
        depth: usize,
    ) -> Option<(usize, How)> {
        if matches!(p, "self" | "this" | "Self") {
            return None;
        }
        if let Some(files) = self.module_alias(path, lang, p) {
            if let Some(i) = self.top_level_in(&files, name, kind) {
                return Some((i, How::Import));
            }
            // Re-exported by the module (`flask.url_for` is `helpers.url_for`, imported
            // into `flask/__init__.py`).
            if let Some(i) = files.iter().find_map(|f| {
                self.bare(f, lang_of(f), name, None, kind, 1)
                    .filter(|&(_, how)| how != How::Unique)
                    .map(|(i, _)| i)
            }) {
                return Some((i, How::Import));
            }
            // Rust `crate::store::Store::new`: the module's file, then a type in it.
            if lang == Language::Rust
                && let Some(ty) = p.rsplit("::").next()
                && let Some(i) = files.iter().find_map(|f| {
                    self.by_path.get(f)?.iter().copied().find(|&i| {
                        let s = &self.symbols[i];
                        s.name == name && s.container.as_deref() == Some(ty)
                    })
                })
            {
                return Some((i, How::Import));
            }
        }
        // A value: a parameter a pytest fixture provides, a module-level name, their
        // fields.
        if lang == Language::Python
            && let Some((ty, how)) = self.path_type(path, lang, p, caller, depth)
        {
            return self
                .method(path, &ty, name, 0)
                .map(|i| (i, weakest(How::Typed, how)));
        }
        // A type: a static method or associated function.
        let ty = p.rsplit(['.', ':']).next().unwrap_or(p);
        if ty.is_empty() {
            return None;
        }
        let def = self.bare(path, lang, ty, None, RefKind::Extends, 0);
        let real = def.map(|(i, _)| self.symbols[i].name.clone());
        let resolved_type = real.is_some();
        let real = real.unwrap_or_else(|| ty.to_string());
        // Without a visible type definition, only trust a name that looks like a type.
        if !resolved_type && !real.chars().next().is_some_and(char::is_uppercase) {
            return None;
        }
        self.method(path, &real, name, 0).map(|i| (i, How::Typed))
    }

    /// The files a qualifier names when it is a module or package in `path`.
    fn module_alias(&self, path: &str, lang: Language, p: &str) -> Option<Vec<String>> {
        let nonempty = |v: Vec<String>| (!v.is_empty()).then_some(v);
        if lang == Language::Rust
            && (p.starts_with("crate") || p.starts_with("super") || p.starts_with("self"))
        {
            return nonempty(self.modules(lang, path, p));
        }
        let (head, tail) = match lang {
            Language::Rust | Language::Cpp => p.split_once("::").unwrap_or((p, "")),
            _ => p.split_once('.').unwrap_or((p, "")),
        };
        for imp in self.imports_of(path) {
            // `import x as p`, `import * as p`, Go package names, Rust `mod p;`.
            let module = if imp.alias.as_deref() == Some(head) {
                Some(imp.module.clone())
            } else if let Some(n) = imp.names.iter().find(|n| {
                n.local() == head
                    || (n.name == "self" && imp.module.rsplit("::").next() == Some(head))
            }) {
                // `from pkg import module`, `use crate::codec::{self}`, `use crate::codec`.
                match lang {
                    Language::Python => Some(if imp.module.ends_with('.') {
                        format!("{}{}", imp.module, n.name)
                    } else {
                        format!("{}.{}", imp.module, n.name)
                    }),
                    Language::Rust if n.name == "self" => Some(imp.module.clone()),
                    Language::Rust => Some(format!("{}::{}", imp.module, n.name)),
                    _ => None,
                }
            } else if lang == Language::Python
                && imp.alias.is_none()
                && imp.names.is_empty()
                && imp.module.split('.').next() == Some(head)
            {
                // `import shop.pricing` then `shop.pricing.f()`; `import flask` binds
                // `flask`, whose submodules are reached as `flask.json.f()`.
                Some(p.to_string())
            } else {
                None
            };
            let Some(module) = module else { continue };
            let full = if tail.is_empty() {
                module
            } else if lang == Language::Rust {
                format!("{module}::{tail}")
            } else if lang == Language::Python && module != p {
                format!("{module}.{tail}")
            } else {
                module
            };
            let files = self.modules(lang, path, &full);
            if !files.is_empty() {
                return Some(files);
            }
        }
        if lang == Language::Rust {
            return nonempty(self.modules(lang, path, p)).filter(|f| f.iter().all(|x| x != path));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
