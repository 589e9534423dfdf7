//! Methods and types: the one symbol of a name, a type's methods through its bases, and
//! what a call or a function returns.

use super::*;

impl Index {
    /// The one symbol of that name in the store (in a file of the same language family).
    pub(super) fn unique(&self, name: &str, kind: RefKind, lang: Language) -> Option<usize> {
        let c_family = |l: Language| matches!(l, Language::C | Language::Cpp);
        let mut found = self
            .by_name_of(name)?
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| {
                let l = self.langs[i];
                fits(kind, self.symbols[i].kind) && (l == lang || (c_family(l) && c_family(lang)))
            });
        let first = found.next()?;
        found.next().is_none().then_some(first)
    }

    /// The default export of a JS/TS module (`export default`, else CommonJS's
    /// `module.exports = X`).
    pub(super) fn default_export(&self, files: &[String], kind: RefKind) -> Option<usize> {
        files
            .iter()
            .find_map(|f| {
                self.by_path_of(f)?.iter().map(|&i| i as usize).find(|&i| {
                    let s = &self.symbols[i];
                    fits(kind, s.kind)
                        && s.signature
                            .as_deref()
                            .is_some_and(|sig| sig.starts_with("export default"))
                })
            })
            .or_else(|| self.commonjs_export(files, kind))
    }

    /// The definition a CommonJS module exports whole (`module.exports = Router`).
    pub(super) fn commonjs_export(&self, files: &[String], kind: RefKind) -> Option<usize> {
        files.iter().find_map(|f| {
            let Some(Receiver::Path(x)) = self.globals.get(&(f.clone(), "module.exports".into()))
            else {
                return None;
            };
            self.in_file(f, x, kind)
        })
    }

    /// A method of a type, or of its bases; ambiguity between files is settled by the
    /// file and directory of the caller, else left unresolved.
    pub(super) fn method(&self, path: &str, ty: &str, name: &str, depth: usize) -> Option<usize> {
        if let Some(cands) = self.methods_of(ty, name) {
            let callable: Vec<usize> = cands
                .iter()
                .map(|&i| i as usize)
                .filter(|&i| {
                    fits(RefKind::Calls, self.symbols[i].kind)
                        && same_family(path, &self.symbols[i].path)
                })
                .collect();
            match callable.as_slice() {
                [] => {}
                [one] => return Some(*one),
                // One method declared several times in one place: TypeScript overload
                // signatures and the implementation after them (the last, in file order).
                // Where overloads are distinct functions told apart by their arguments
                // (Swift's labels, Kotlin's, C#'s, Scala's and Dart's parameter lists), the
                // call stays unresolved rather than linked to the last one.
                [first, .., last]
                    if !overloads_differ(lang_of(path))
                        && callable.iter().all(|&i| {
                            let (s, f) = (&self.symbols[i], &self.symbols[*first]);
                            s.path == f.path && s.qualified() == f.qualified()
                        }) =>
                {
                    return Some(*last);
                }
                // Swift's overloads of one method, told apart by their argument labels and
                // declared in extensions in other files: which one is called is not known,
                // and the caller's file or folder would only guess. (Kotlin's, C#'s and
                // Dart's overloads of a type, read at their call sites, were the method
                // called; left as they were.)
                many if lang_of(path) == Language::Swift
                    && many.iter().any(|&i| {
                        many.iter().any(|&j| {
                            i != j && self.symbols[i].qualified() == self.symbols[j].qualified()
                        })
                    }) =>
                {
                    return None;
                }
                many => {
                    let same_file: Vec<usize> = many
                        .iter()
                        .copied()
                        .filter(|&i| &*self.symbols[i].path == path)
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
    pub(super) fn bases_of(&self, path: &str, ty: &str) -> Vec<(String, String)> {
        let entries = self.bases.get(ty).map(Vec::as_slice).unwrap_or(&[]);
        let def = (!entries.is_empty())
            .then(|| self.type_file(path, ty))
            .flatten();
        entries
            .iter()
            .filter(|(f, _)| def.as_ref().is_none_or(|d| d == f))
            .map(
                |(f, b)| match self.bare(f, lang_of(f), b, None, RefKind::Extends, 0) {
                    Some((i, _)) => (
                        self.symbols[i].path.to_string(),
                        self.symbols[i].name().to_string(),
                    ),
                    None => (f.clone(), b.clone()),
                },
            )
            .collect()
    }

    /// `x.m()` where the file says `x` is a `T` (which may be an imported alias).
    pub(super) fn typed_method(
        &self,
        path: &str,
        lang: Language,
        t: &str,
        caller: Option<&str>,
        name: &str,
    ) -> Option<(usize, How)> {
        let real = self.written_type(path, lang, t, caller)?;
        self.method(path, &real, name, 0).map(|i| (i, How::Typed))
    }

    /// The type a file means by a type name `t` it writes (in `caller`): the one it
    /// declares or imports, by its own name (not the alias it was imported as). In
    /// TypeScript and JavaScript a name must be declared or imported to be seen, so one
    /// that is neither is the runtime's: `res: Response` is the DOM's, not hono's
    /// `interface Response` in a module the file does not import (`None`). Elsewhere, the
    /// name as written.
    pub(super) fn written_type(
        &self,
        path: &str,
        lang: Language,
        t: &str,
        caller: Option<&str>,
    ) -> Option<String> {
        // A JavaScript class may be a constructor function (`function View(…)`), and a
        // class a function's local (`const Local = class extends Base {…}`).
        let found = self
            .bare(path, lang, t, caller, RefKind::Extends, 0)
            .or_else(|| self.bare(path, lang, t, caller, RefKind::Calls, 0));
        match found {
            Some((i, _)) => Some(self.symbols[i].name().to_string()),
            None if sees_only_what_it_imports(lang) => None,
            None => Some(t.to_string()),
        }
    }

    /// The type the callee's signature gives parameter `param` of the function passed as
    /// argument `arg` of a call to `call` made in `path`, and the file it is written in:
    /// the argument's declared type is a function type, or a type alias of one
    /// (`init: (source: Observable<T>, subscriber: Subscriber<R>) => void`, `handler:
    /// MiddlewareHandler`).
    pub(super) fn callback_type(
        &self,
        path: &str,
        lang: Language,
        call: &str,
        arg: usize,
        param: usize,
        caller: Option<&str>,
    ) -> Option<(String, String)> {
        let (callee, _) = match call.rsplit_once('.') {
            None => self.bare(path, lang, call, caller, RefKind::Calls, 0)?,
            Some((object, name)) => {
                self.qualified_call(path, lang, object, name, RefKind::Calls, caller, 0)?
            }
        };
        // A class is called through its constructor (`new Observable((subscriber) => …)`).
        let callee = if self.symbols[callee].kind.is_type() {
            let class = &self.symbols[callee];
            &self.symbols[self.method(&class.path, class.name(), "constructor", 0)?]
        } else {
            &self.symbols[callee]
        };
        let arg_type = signature_params(callee.signature.as_deref()?)
            .into_iter()
            .nth(arg)??;
        self.fn_param_type(&callee.path, &arg_type, param)
    }

    /// The type of parameter `param` of function type `fn_type` as file `path` writes it
    /// (`(a: A, b: B) => R`, or the name of an alias of one), and the file it is named in.
    pub(super) fn fn_param_type(
        &self,
        path: &str,
        fn_type: &str,
        param: usize,
    ) -> Option<(String, String)> {
        let (file, fn_type) = if fn_type.starts_with('(') {
            (path.to_string(), fn_type.to_string())
        } else {
            // A named function type: its alias says what it is.
            let alias = type_name(fn_type)?;
            let (i, _) = self.bare(path, lang_of(path), &alias, None, RefKind::Extends, 0)?;
            let s = &self.symbols[i];
            (
                s.path.to_string(),
                alias_value(s.signature.as_deref()?)?.to_string(),
            )
        };
        let ty = signature_params(&fn_type).into_iter().nth(param)??;
        Some((file, type_name(&ty)?))
    }

    /// The type of the value a call returns: a constructed class, or the callee's
    /// declared return type; with the least certain step that led there.
    pub(super) fn type_of_call(
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
    pub(super) fn returned_type(&self, i: usize, depth: usize) -> Option<(String, How)> {
        let s = &self.symbols[i];
        if s.kind.is_type() {
            return Some((s.name().to_string(), How::Local));
        }
        let declared = s
            .signature
            .as_deref()
            .and_then(|sig| return_type(sig, lang_of(&s.path), s.name()));
        let ret = match (declared, s.returns.as_deref()) {
            (Some(r), _) => r,
            (None, Some(Receiver::Type(t))) => t.clone(),
            (None, Some(Receiver::SelfType)) => return Some((s.container.clone()?, How::Local)),
            // A fixture that passes on the fixture it asks for, or a module-level or
            // imported name.
            (None, Some(Receiver::Path(p))) => {
                if self.param_scope(&s.path, Some(s.qualified()), p).is_some() {
                    return self.param_type(&s.path, Some(s.qualified()), p, depth + 1);
                }
                return self.global_type(&s.path, lang_of(&s.path), p, depth + 1);
            }
            (None, Some(Receiver::ReturnOf(e))) => {
                return self.type_of_call(
                    &s.path,
                    lang_of(&s.path),
                    e,
                    Some(s.qualified()),
                    depth + 1,
                );
            }
            _ => return None,
        };
        if ret == "Self" {
            return Some((s.container.clone()?, How::Local));
        }
        // Named where the symbol is written: `request(): Response` in a file that does not
        // import a `Response` is the runtime's.
        let lang = lang_of(&s.path);
        Some((
            self.written_type(&s.path, lang, &ret, Some(s.qualified()))?,
            How::Local,
        ))
    }
}

/// What a type alias's signature says it is: past the `=` that follows its name and
/// type parameters (`type H<E = any> = (c: Context<E>) => R` → `(c: Context<E>) => R`).
fn alias_value(sig: &str) -> Option<&str> {
    let bytes = sig.as_bytes();
    let mut depth = 0i32;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' | b'(' | b'{' | b'[' => depth += 1,
            b'>' | b')' | b'}' | b']' => depth -= 1,
            b'=' if depth == 0 && bytes.get(i + 1) != Some(&b'>') => {
                return Some(sig[i + 1..].trim());
            }
            _ => {}
        }
    }
    None
}

/// The declared types of a TypeScript signature's parameters, in order (`None` for one
/// without a type): `f<T>(a: A, b?: B<T>, c) => R` gives `[Some("A"), Some("B<T>"), None]`.
/// The list is the first parenthesised one at the top level, after any type parameters.
pub(crate) fn signature_params(sig: &str) -> Vec<Option<String>> {
    let bytes = sig.as_bytes();
    // Skip to the parameter list's `(`, past `<…>` type parameters.
    let mut depth = 0i32;
    let mut open = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' => depth += 1,
            b'>' if i > 0 && bytes[i - 1] != b'=' => depth -= 1,
            b'(' if depth == 0 => {
                open = Some(i);
                break;
            }
            _ => {}
        }
    }
    let Some(open) = open else {
        return Vec::new();
    };
    let mut params = Vec::new();
    let mut depth = 0i32;
    let mut start = open + 1;
    for (i, &b) in bytes.iter().enumerate().skip(open + 1) {
        match b {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b'>' if bytes[i - 1] == b'=' => {}
            b')' | b']' | b'}' | b'>' if depth > 0 => depth -= 1,
            b')' => {
                params.push(&sig[start..i]);
                break;
            }
            b',' if depth == 0 => {
                params.push(&sig[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    params
        .into_iter()
        .map(str::trim)
        // TypeScript's `this:` pseudo-parameter is not an argument.
        .filter(|p| !p.is_empty() && !p.starts_with("this:") && !p.starts_with("this :"))
        .map(|p| top_level_colon(p).map(|c| p[c + 1..].trim().to_string()))
        .collect()
}

/// The first `:` of a parameter outside brackets (its type annotation).
fn top_level_colon(p: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, b) in p.bytes().enumerate() {
        match b {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' | b'>' => depth -= 1,
            b':' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// Languages whose same-named methods in one type are different functions.
fn overloads_differ(lang: Language) -> bool {
    matches!(
        lang,
        Language::Swift | Language::Kotlin | Language::CSharp | Language::Scala | Language::Dart
    )
}

#[cfg(test)]
mod signature_tests {
    use super::signature_params;

    #[test]
    fn parameters_of_typescript_signatures() {
        let p = |s: &str| signature_params(s);
        assert_eq!(
            p(
                "export function operate<T, R>(init: (liftedSource: Observable<T>, subscriber: Subscriber<R>) => (() => void) | void): OperatorFunction<T, R>"
            ),
            [Some(
                "(liftedSource: Observable<T>, subscriber: Subscriber<R>) => (() => void) | void"
                    .to_string()
            )]
        );
        assert_eq!(
            p("(liftedSource: Observable<T>, subscriber: Subscriber<R>) => (() => void) | void"),
            [
                Some("Observable<T>".to_string()),
                Some("Subscriber<R>".to_string())
            ]
        );
        assert_eq!(
            p("use(path: string, ...handlers: MiddlewareHandler<E>[]): this"),
            [
                Some("string".to_string()),
                Some("MiddlewareHandler<E>[]".to_string())
            ]
        );
        assert_eq!(
            p("function f(a, { b, c }: Opts = {})"),
            [None, Some("Opts = {}".to_string())]
        );
        assert_eq!(
            p(
                "constructor(subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => TeardownLogic)"
            ),
            [Some(
                "(this: Observable<T>, subscriber: Subscriber<T>) => TeardownLogic".to_string()
            )]
        );
        assert_eq!(
            p("(this: Observable<T>, subscriber: Subscriber<T>) => TeardownLogic"),
            [Some("Subscriber<T>".to_string())]
        );
        assert!(p("const x").is_empty());
    }
}
