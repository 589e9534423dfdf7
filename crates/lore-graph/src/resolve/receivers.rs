//! Receivers: what a name in a file stands for — a pytest fixture, a parameter, a field,
//! a module-level name, a module path.

use super::*;

impl Index {
    /// The pytest fixture a parameter `name` of `requester` (qualified, in `path`)
    /// receives: one of its class, of its file, else of the nearest `conftest.py` above.
    /// A fixture asking for its own name gets the next one out.
    pub(super) fn fixture(&self, path: &str, requester: &str, name: &str) -> Option<usize> {
        let cands = self.fixtures.get(name)?;
        let this = self.defined(path, requester).first().map(|&i| i as usize);
        // The fixture of that name defined in `file` directly in `scope` (a class).
        let pick = |file: &str, scope: Option<&str>| {
            cands.iter().copied().find(|&i| {
                let s = &self.symbols[i];
                Some(i) != this
                    && &*s.path == file
                    && s.qualified().rsplit_once('.').map(|(a, _)| a) == scope
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
    pub(super) fn param_scope(&self, path: &str, caller: Option<&str>, p: &str) -> Option<usize> {
        let mut scope = caller;
        while let Some(q) = scope {
            if let Some(&i) = self
                .defined(path, q)
                .iter()
                .find(|&&i| self.symbols[i as usize].params.iter().any(|x| x == p))
            {
                return Some(i as usize);
            }
            scope = q.rsplit_once('.').map(|(a, _)| a);
        }
        None
    }

    /// The type of an untyped parameter `p` of `caller` (or of a function around it)
    /// that a pytest fixture provides.
    pub(super) fn param_type(
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
        let how = if s.name().starts_with("test")
            || s.decorators
                .iter()
                .any(|d| fixture_name(d, s.name()).is_some())
        {
            How::Fixture
        } else if is_test_path(path) {
            How::Convention
        } else {
            return None;
        };
        let f = self.fixture(path, s.qualified(), p)?;
        let (ty, then) = self.returned_type(f, depth + 1)?;
        Some((ty, weakest(how, then)))
    }

    /// The type of a value as a receiver describes it, as seen from `caller` in `path`.
    pub(super) fn value_type(
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
            Receiver::Type(t) => Some((self.written_type(path, lang, t, caller)?, How::Local)),
            Receiver::ReturnOf(e) => self.type_of_call(path, lang, e, caller, depth + 1),
            Receiver::Path(p) => self.path_type(path, lang, p, caller, depth + 1),
            Receiver::Field(base, field) => {
                let (ty, how) = self.value_type(path, lang, base, caller, depth + 1)?;
                let (ty, then) = self.field_type(path, &ty, field, depth + 1)?;
                Some((ty, weakest(how, then)))
            }
            Receiver::Callback { call, arg, param } => {
                // Named in the callee's file.
                let (file, ty) = self.callback_type(path, lang, call, *arg, *param, caller)?;
                Some((
                    self.written_type(&file, lang_of(&file), &ty, None)?,
                    How::Typed,
                ))
            }
            Receiver::Param { fn_type, param } => {
                let (file, ty) = self.fn_param_type(path, fn_type, *param)?;
                Some((
                    self.written_type(&file, lang_of(&file), &ty, None)?,
                    How::Typed,
                ))
            }
            Receiver::None | Receiver::Unknown => None,
        }
    }

    /// The type of field `field` of type `ty` (or of a base of it), from where the field
    /// is set.
    pub(super) fn field_type(
        &self,
        path: &str,
        ty: &str,
        field: &str,
        depth: usize,
    ) -> Option<(String, How)> {
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
        // A getter is read like a field (`c.req` where `get req(): HonoRequest`): its type is
        // what it returns. `method` looks in the bases too.
        if let Some(i) = self
            .method(path, ty, field, depth + 1)
            .filter(|&i| lore_core::accessor(self.symbols[i].signature.as_deref()) == "get ")
        {
            let (t, how) = self.returned_type(i, depth + 1)?;
            return Some((t, weakest(how, How::Typed)));
        }
        self.bases_of(path, ty)
            .into_iter()
            .find_map(|(file, b)| self.field_type(&file, &b, field, depth + 1))
    }

    /// The file that defines type `ty` as seen from `path`.
    pub(super) fn type_file(&self, path: &str, ty: &str) -> Option<String> {
        self.bare(path, lang_of(path), ty, None, RefKind::Extends, 0)
            .map(|(i, _)| self.symbols[i].path.to_string())
    }

    /// The type of the value a dotted name stands for: a fixture parameter, a
    /// module-level name of the file or imported from another, or a name of an imported
    /// module; then its fields.
    pub(super) fn path_type(
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
    pub(super) fn global_type(
        &self,
        path: &str,
        lang: Language,
        name: &str,
        depth: usize,
    ) -> Option<(String, How)> {
        if depth > MAX_VALUE_DEPTH {
            return None;
        }
        let key = (path.to_string(), name.to_string(), depth);
        if let Ok(memo) = self.global_memo.try_borrow()
            && let Some(v) = memo.get(&key)
        {
            return v.clone();
        }
        let misses = self.misses();
        let found = self.global_type_uncached(path, lang, name, depth);
        if self.misses() == misses
            && let Ok(mut memo) = self.global_memo.try_borrow_mut()
        {
            memo.insert(key, found.clone());
        }
        found
    }

    fn global_type_uncached(
        &self,
        path: &str,
        lang: Language,
        name: &str,
        depth: usize,
    ) -> Option<(String, How)> {
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
    pub(super) fn qualified_call(
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
                    self.by_path_of(f)?.iter().map(|&i| i as usize).find(|&i| {
                        let s = &self.symbols[i];
                        s.name() == name && s.container.as_deref() == Some(ty)
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
        let real = def.map(|(i, _)| self.symbols[i].name().to_string());
        let resolved_type = real.is_some();
        let real = real.unwrap_or_else(|| ty.to_string());
        // Without a visible type definition, only trust a name that looks like a type.
        if !resolved_type && !real.chars().next().is_some_and(char::is_uppercase) {
            return None;
        }
        self.method(path, &real, name, 0).map(|i| (i, How::Typed))
    }

    /// The files a qualifier names when it is a module or package in `path`.
    pub(super) fn module_alias(&self, path: &str, lang: Language, p: &str) -> Option<Vec<String>> {
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
