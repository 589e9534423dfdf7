//! Where an import points: from a module as written to files of the same store, by each
//! language's rules. Anything outside the store (std, packages) resolves to nothing.

use lore_core::Language;
use std::collections::{BTreeSet, HashMap};

/// Every file path of a store, with lookups by directory and by path suffix.
#[derive(Debug, Default, Clone)]
pub struct FileSet {
    files: BTreeSet<String>,
    by_dir: HashMap<String, Vec<String>>,
    /// Paths by file name, for suffix lookups without scanning every path.
    by_name: HashMap<String, Vec<String>>,
    /// `src/lib.rs` of each crate by directory name (`-` as `_`); `None` when ambiguous.
    crates: HashMap<String, Option<String>>,
    /// The entry (`src/index.ts`, …) of each JavaScript/TypeScript package of a monorepo by
    /// its directory's name (`packages/shared` for `@vue/shared`); `None` when ambiguous.
    js_packages: HashMap<String, Option<String>>,
}

pub fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() {
        rel.to_string()
    } else if rel.is_empty() {
        dir.to_string()
    } else {
        format!("{dir}/{rel}")
    }
}

/// `a/b/../c/./d` → `a/c/d`; `None` when it climbs above the root.
fn normalize(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    Some(out.join("/"))
}

impl FileSet {
    pub fn new<I: IntoIterator<Item = String>>(paths: I) -> FileSet {
        let mut fs = FileSet::default();
        for p in paths {
            fs.by_dir
                .entry(dir_of(&p).to_string())
                .or_default()
                .push(p.clone());
            let name = p.rsplit('/').next().unwrap_or(&p).to_string();
            fs.by_name.entry(name).or_default().push(p.clone());
            let crate_dir = p
                .strip_suffix("/src/lib.rs")
                .or_else(|| (p == "src/lib.rs").then_some(""));
            if let Some(dir) = crate_dir {
                let key = dir.rsplit('/').next().unwrap_or(dir).replace('-', "_");
                fs.crates
                    .entry(key)
                    .and_modify(|v| *v = None)
                    .or_insert_with(|| Some(p.clone()));
            }
            let package_dir = ["ts", "tsx", "js", "mjs"]
                .iter()
                .find_map(|ext| p.strip_suffix(&format!("/src/index.{ext}")));
            if let Some(dir) = package_dir.filter(|d| !d.is_empty()) {
                let key = dir.rsplit('/').next().unwrap_or(dir).to_string();
                fs.js_packages
                    .entry(key)
                    .and_modify(|v| {
                        if v.as_deref() != Some(p.as_str()) {
                            *v = None
                        }
                    })
                    .or_insert_with(|| Some(p.clone()));
            }
            fs.files.insert(p);
        }
        fs
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    /// Files directly in `dir`.
    pub fn in_dir(&self, dir: &str) -> &[String] {
        self.by_dir.get(dir).map(Vec::as_slice).unwrap_or(&[])
    }

    fn first_existing(&self, candidates: impl IntoIterator<Item = String>) -> Option<String> {
        candidates.into_iter().find(|c| self.contains(c))
    }

    /// The one file whose path ends with `/suffix` (or is `suffix`).
    /// The file an `#include` of `suffix` names, seen from `from`: the store's file of that
    /// path, else the one ending with it; of several (the kernel's `linux/slab.h` in
    /// `include/` and in three copies under `tools/`), the one nearest `from` in the tree
    /// (most leading folders in common), then the shortest; a tie names none.
    fn by_suffix(&self, from: &str, suffix: &str) -> Option<String> {
        if self.contains(suffix) {
            return Some(suffix.to_string());
        }
        let tail = format!("/{suffix}");
        let name = suffix.rsplit('/').next().unwrap_or(suffix);
        let rank = |f: &str| {
            let shared = f
                .split('/')
                .zip(from.split('/'))
                .take_while(|(a, b)| a == b)
                .count();
            (std::cmp::Reverse(shared), f.len())
        };
        let mut found: Vec<&String> = self
            .by_name
            .get(name)?
            .iter()
            .filter(|f| f.ends_with(&tail))
            .collect();
        found.sort_by_key(|f| rank(f));
        match found.as_slice() {
            [] => None,
            [one] => Some((*one).clone()),
            [a, b, ..] => (rank(a) != rank(b)).then(|| (*a).clone()),
        }
    }

    /// The store files an import of `path` points to.
    pub fn import_targets(&self, path: &str, imp: &lore_core::Import) -> Vec<String> {
        let lang = Language::from_path(std::path::Path::new(path));
        let mut out = self.resolve(lang, path, &imp.module);
        // `from pkg import submodule`: the submodule's file.
        if lang == Language::Python {
            for n in &imp.names {
                let full = if imp.module.ends_with('.') {
                    format!("{}{}", imp.module, n.name)
                } else {
                    format!("{}.{}", imp.module, n.name)
                };
                out.extend(
                    self.resolve(Language::Python, path, &full)
                        .into_iter()
                        .take(1),
                );
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The files a module names, seen from the file `from`. A Go or Java package is all
    /// the files of its directory; everything else is one file.
    pub fn resolve(&self, lang: Language, from: &str, module: &str) -> Vec<String> {
        let one = |f: Option<String>| f.into_iter().collect::<Vec<_>>();
        match lang {
            Language::Python => one(self.python(from, module)),
            Language::JavaScript | Language::TypeScript | Language::Tsx => {
                one(self.js(from, module))
            }
            Language::Rust => one(self.rust(from, module)),
            Language::Go => self.go(module),
            Language::Java => self.java(module),
            Language::C | Language::Cpp => one(self.c(from, module)),
            // Imports of the other languages are not followed (yet): their calls resolve
            // within their file and type only.
            _ => Vec::new(),
        }
    }

    fn python(&self, from: &str, module: &str) -> Option<String> {
        let dots = module.chars().take_while(|&c| c == '.').count();
        let rest = module[dots..].replace('.', "/");
        let candidates = |base: &str| {
            let p = join(base, &rest);
            if rest.is_empty() {
                vec![join(base, "__init__.py")]
            } else {
                vec![
                    format!("{p}.py"),
                    format!("{p}/__init__.py"),
                    format!("{p}.pyi"),
                ]
            }
        };
        if dots > 0 {
            let mut base = dir_of(from).to_string();
            for _ in 1..dots {
                base = dir_of(&base).to_string();
            }
            return self.first_existing(candidates(&base));
        }
        // Absolute: from the store root, else from a source root (`src/`, …).
        self.first_existing(candidates(""))
            .or_else(|| self.python_rooted(from, &rest))
    }

    /// `rest` (`pkg/mod`) under a source root: a directory that is no package itself
    /// (a folder on `sys.path`; `a/b/flask.py` inside package `a.b` is `a.b.flask`, not
    /// `flask`). Several roots: the one above the importing file, else none.
    fn python_rooted(&self, from: &str, rest: &str) -> Option<String> {
        let name = rest.rsplit('/').next().unwrap_or(rest);
        let mut found: Vec<(String, String)> = Vec::new();
        for (file, suffix) in [
            (format!("{name}.py"), format!("/{rest}.py")),
            ("__init__.py".to_string(), format!("/{rest}/__init__.py")),
            (format!("{name}.pyi"), format!("/{rest}.pyi")),
        ] {
            for f in self.by_name.get(&file).into_iter().flatten() {
                let Some(root) = f.strip_suffix(&suffix) else {
                    continue;
                };
                if self.contains(&join(root, "__init__.py")) {
                    continue;
                }
                if !found.iter().any(|(r, _)| r == root) {
                    found.push((root.to_string(), f.clone()));
                }
            }
        }
        if let [(_, one)] = found.as_slice() {
            return Some(one.clone());
        }
        let above = |root: &str| from.starts_with(&format!("{root}/"));
        let mut near = found.iter().filter(|(r, _)| above(r));
        let first = near.next()?;
        near.next().is_none().then(|| first.1.clone())
    }

    fn js(&self, from: &str, module: &str) -> Option<String> {
        if !(module.starts_with("./")
            || module.starts_with("../")
            || module == "."
            || module == "..")
        {
            return self.js_package(module);
        }
        let base = normalize(&join(dir_of(from), module))?;
        // `./util.js` in TypeScript sources often means `./util.ts`.
        let stem = base
            .strip_suffix(".js")
            .or_else(|| base.strip_suffix(".jsx"))
            .or_else(|| base.strip_suffix(".mjs"))
            .unwrap_or(&base)
            .to_string();
        let mut c = vec![base.clone()];
        for s in [&base, &stem] {
            for ext in ["ts", "tsx", "d.ts", "js", "jsx", "mjs", "cjs"] {
                c.push(format!("{s}.{ext}"));
            }
        }
        for ext in ["ts", "tsx", "js", "jsx"] {
            c.push(format!("{base}/index.{ext}"));
        }
        self.first_existing(c)
    }

    /// A package of the store's own monorepo imported by name (`@vue/shared`, `vue`): the
    /// `src/index` of the one directory of that name (`packages/shared/src/index.ts`).
    /// Deep imports (`pkg/sub`) and packages the store does not hold are not resolved.
    fn js_package(&self, module: &str) -> Option<String> {
        let name = match module.strip_prefix('@') {
            Some(scoped) => {
                let (_, name) = scoped.split_once('/')?;
                name
            }
            None => module,
        };
        if name.is_empty() || name.contains('/') {
            return None;
        }
        self.js_packages.get(name).cloned().flatten()
    }

    /// The crate root directory of a file: the nearest ancestor holding lib.rs or main.rs.
    fn rust_crate_dir(&self, file: &str) -> String {
        let mut dir = dir_of(file).to_string();
        loop {
            if self.contains(&join(&dir, "lib.rs")) || self.contains(&join(&dir, "main.rs")) {
                return dir;
            }
            if dir.is_empty() {
                return dir_of(file).to_string();
            }
            dir = dir_of(&dir).to_string();
        }
    }

    /// A file's crate directory and module path: `src/store/index.rs` → (`src`,
    /// [store, index]); `src/cli/mod.rs` → [cli]; `src/lib.rs` → [].
    fn rust_module_path(&self, file: &str) -> (String, Vec<String>) {
        let crate_dir = self.rust_crate_dir(file);
        let rel = file[crate_dir.len()..].trim_start_matches('/');
        let mut segs: Vec<String> = rel
            .trim_end_matches(".rs")
            .split('/')
            .map(String::from)
            .collect();
        let last = segs.last().map(String::as_str);
        if last == Some("mod") || (segs.len() == 1 && matches!(last, Some("lib" | "main"))) {
            segs.pop();
        }
        (crate_dir, segs)
    }

    /// The `src/lib.rs` of a crate of the store named `name` (`foo_bar` → a directory
    /// `foo_bar` or `foo-bar`), when exactly one fits.
    fn workspace_crate(&self, name: &str) -> Option<String> {
        self.crates.get(&name.replace('-', "_")).cloned().flatten()
    }

    fn rust_file_for(&self, crate_dir: &str, segs: &[String]) -> Option<String> {
        if segs.is_empty() {
            return self.first_existing([join(crate_dir, "lib.rs"), join(crate_dir, "main.rs")]);
        }
        let p = join(crate_dir, &segs.join("/"));
        self.first_existing([format!("{p}.rs"), join(&p, "mod.rs")])
    }

    /// `crate::a::b`, `self::a`, `super::a`, `a::b` (relative to the file's module) →
    /// the file of the longest prefix that is a module; the rest names items in it.
    fn rust(&self, from: &str, module: &str) -> Option<String> {
        let (crate_dir, mut base) = self.rust_module_path(from);
        let mut segs = module.split("::").filter(|s| !s.is_empty()).peekable();
        // `use mycrate::x` from the crate's binaries and tests, or `other_crate::x` from
        // a crate of the same workspace: that crate's root, when the first segment is no
        // module of this one.
        if let Some(first) = segs.peek().copied()
            && !matches!(first, "crate" | "self" | "super")
        {
            let mut child = base.clone();
            child.push(first.to_string());
            if self.rust_file_for(&crate_dir, &child).is_none() {
                if let Some(lib) = self.workspace_crate(first) {
                    let rest: Vec<&str> = segs.clone().skip(1).collect();
                    let (dir, _) = self.rust_module_path(&lib);
                    let mut found = Some(lib);
                    let mut path: Vec<String> = Vec::new();
                    for seg in rest {
                        path.push(seg.to_string());
                        match self.rust_file_for(&dir, &path) {
                            Some(f) => found = Some(f),
                            None => break,
                        }
                    }
                    return found;
                }
                let rest: Vec<String> = segs.clone().skip(1).map(String::from).collect();
                if let Some(second) = rest.first()
                    && self
                        .rust_file_for(&crate_dir, std::slice::from_ref(second))
                        .is_some()
                {
                    return self.rust(from, &format!("crate::{}", rest.join("::")));
                }
                // Another crate (std, a dependency): not in the store.
                return None;
            }
        }
        match segs.peek() {
            Some(&"crate") => {
                base.clear();
                segs.next();
            }
            Some(&"self") => {
                segs.next();
            }
            _ => {
                while segs.peek() == Some(&"super") {
                    base.pop();
                    segs.next();
                }
            }
        }
        let mut current = self.rust_file_for(&crate_dir, &base);
        for seg in segs {
            base.push(seg.to_string());
            match self.rust_file_for(&crate_dir, &base) {
                Some(f) => current = Some(f),
                None => break,
            }
        }
        current
    }

    fn go(&self, module: &str) -> Vec<String> {
        // The import path ends with the package's directory; match the longest suffix.
        let segs: Vec<&str> = module.split('/').collect();
        for start in 0..segs.len() {
            let dir = segs[start..].join("/");
            let files: Vec<String> = self
                .in_dir(&dir)
                .iter()
                .filter(|f| f.ends_with(".go"))
                .cloned()
                .collect();
            if !files.is_empty() {
                return files;
            }
            // A package under a source root: any directory ending with the suffix.
            if start + 1 < segs.len() {
                continue;
            }
        }
        Vec::new()
    }

    fn java(&self, module: &str) -> Vec<String> {
        let dir_suffix = module.replace('.', "/");
        let tail = format!("/{dir_suffix}");
        let mut dirs: Vec<&String> = self
            .by_dir
            .keys()
            .filter(|d| **d == dir_suffix || d.ends_with(&tail))
            .collect();
        dirs.sort();
        match dirs.as_slice() {
            [d] => self
                .in_dir(d)
                .iter()
                .filter(|f| f.ends_with(".java"))
                .cloned()
                .collect(),
            _ => Vec::new(),
        }
    }

    fn c(&self, from: &str, module: &str) -> Option<String> {
        normalize(&join(dir_of(from), module))
            .filter(|p| self.contains(p))
            .or_else(|| self.by_suffix(from, module))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fs(paths: &[&str]) -> FileSet {
        FileSet::new(paths.iter().map(|p| p.to_string()))
    }

    #[test]
    fn python_modules() {
        let f = fs(&[
            "shop/__init__.py",
            "shop/cart.py",
            "shop/db/store.py",
            "tests/test_cart.py",
        ]);
        assert_eq!(
            f.python("shop/cart.py", ".db.store").as_deref(),
            Some("shop/db/store.py")
        );
        assert_eq!(
            f.python("shop/db/store.py", "..cart").as_deref(),
            Some("shop/cart.py")
        );
        assert_eq!(
            f.python("shop/cart.py", ".").as_deref(),
            Some("shop/__init__.py")
        );
        assert_eq!(
            f.python("tests/test_cart.py", "shop.cart").as_deref(),
            Some("shop/cart.py")
        );
        assert_eq!(
            f.python("tests/test_cart.py", "shop").as_deref(),
            Some("shop/__init__.py")
        );
        assert_eq!(f.python("shop/cart.py", "os.path"), None);
        // A module inside a package is not importable by its bare name.
        let f = fs(&[
            "src/flask/__init__.py",
            "src/flask/helpers.py",
            "tests/apps/cli/__init__.py",
            "tests/apps/cli/flask.py",
            "tests/test_basic.py",
            "examples/a/app/__init__.py",
            "examples/a/tests/conftest.py",
            "examples/b/app/__init__.py",
        ]);
        assert_eq!(
            f.python("tests/test_basic.py", "flask").as_deref(),
            Some("src/flask/__init__.py")
        );
        assert_eq!(
            f.python("tests/test_basic.py", "flask.helpers").as_deref(),
            Some("src/flask/helpers.py")
        );
        assert_eq!(
            f.python("examples/a/tests/conftest.py", "app").as_deref(),
            Some("examples/a/app/__init__.py")
        );
        assert_eq!(f.python("tests/test_basic.py", "app"), None);
    }

    #[test]
    fn js_modules() {
        let f = fs(&[
            "src/util.ts",
            "src/lib/index.ts",
            "src/app.tsx",
            "test/a.test.ts",
        ]);
        assert_eq!(
            f.js("src/app.tsx", "./util").as_deref(),
            Some("src/util.ts")
        );
        assert_eq!(
            f.js("src/app.tsx", "./util.js").as_deref(),
            Some("src/util.ts")
        );
        assert_eq!(
            f.js("src/app.tsx", "./lib").as_deref(),
            Some("src/lib/index.ts")
        );
        assert_eq!(
            f.js("test/a.test.ts", "../src/app").as_deref(),
            Some("src/app.tsx")
        );
        assert_eq!(f.js("src/app.tsx", "react"), None);
        assert_eq!(f.js("src/app.tsx", "../../../x"), None);
        // A monorepo's own packages, by name.
        let f = fs(&[
            "packages/shared/src/index.ts",
            "packages/shared/src/general.ts",
            "packages/vue/src/index.ts",
            "packages/runtime-core/src/index.ts",
        ]);
        let from = "packages/runtime-core/src/index.ts";
        assert_eq!(
            f.js(from, "@vue/shared").as_deref(),
            Some("packages/shared/src/index.ts")
        );
        assert_eq!(
            f.js(from, "vue").as_deref(),
            Some("packages/vue/src/index.ts")
        );
        assert_eq!(f.js(from, "@vue/shared/src/general"), None);
        assert_eq!(f.js(from, "@vue/compiler-core"), None);
        assert_eq!(f.js(from, "react"), None);
    }

    #[test]
    fn rust_modules() {
        let f = fs(&[
            "src/lib.rs",
            "src/store.rs",
            "src/store/index.rs",
            "src/cli/mod.rs",
            "src/cli/args.rs",
        ]);
        assert_eq!(
            f.rust("src/cli/args.rs", "crate::store").as_deref(),
            Some("src/store.rs")
        );
        assert_eq!(
            f.rust("src/cli/args.rs", "crate::store::index").as_deref(),
            Some("src/store/index.rs")
        );
        assert_eq!(
            f.rust("src/store.rs", "self::index").as_deref(),
            Some("src/store/index.rs")
        );
        assert_eq!(
            f.rust("src/store/index.rs", "super").as_deref(),
            Some("src/store.rs")
        );
        assert_eq!(
            f.rust("src/cli/args.rs", "super").as_deref(),
            Some("src/cli/mod.rs")
        );
        assert_eq!(
            f.rust("src/cli/mod.rs", "super::store").as_deref(),
            Some("src/store.rs")
        );
        assert_eq!(
            f.rust("src/lib.rs", "self::cli").as_deref(),
            Some("src/cli/mod.rs")
        );
        assert_eq!(
            f.rust("src/lib.rs", "crate::store::Store").as_deref(),
            Some("src/store.rs")
        );
    }

    #[test]
    fn rust_workspace_crates() {
        let ws = fs(&[
            "crates/lore-index/src/lib.rs",
            "crates/lore-index/src/fts.rs",
            "crates/lore/src/main.rs",
            "crates/lore/src/cli.rs",
        ]);
        let main = "crates/lore/src/main.rs";
        assert_eq!(
            ws.rust(main, "lore_index::fts").as_deref(),
            Some("crates/lore-index/src/fts.rs")
        );
        assert_eq!(
            ws.rust(main, "lore_index::Catalog").as_deref(),
            Some("crates/lore-index/src/lib.rs")
        );
        assert_eq!(
            ws.rust(main, "cli").as_deref(),
            Some("crates/lore/src/cli.rs")
        );
        assert_eq!(ws.rust(main, "serde::de"), None);
    }

    #[test]
    fn go_java_c_modules() {
        let f = fs(&[
            "store/store.go",
            "store/util.go",
            "cmd/notes/main.go",
            "src/main/java/com/acme/Repo.java",
            "include/kv.h",
            "src/kv.c",
        ]);
        assert_eq!(
            f.go("example.com/notes/store"),
            ["store/store.go", "store/util.go"]
        );
        assert!(f.go("fmt").is_empty());
        assert_eq!(f.java("com.acme"), ["src/main/java/com/acme/Repo.java"]);
        assert_eq!(f.c("src/kv.c", "kv.h").as_deref(), Some("include/kv.h"));
        assert_eq!(
            f.c("src/kv.c", "../include/kv.h").as_deref(),
            Some("include/kv.h")
        );
    }

    #[test]
    fn an_include_found_in_several_places_is_the_nearest() {
        let f = fs(&[
            "include/linux/slab.h",
            "tools/include/linux/slab.h",
            "tools/virtio/linux/slab.h",
            "mm/slub.c",
            "tools/virtio/ringtest/ptr_ring.c",
            "a/x/util.h",
            "b/x/util.h",
        ]);
        let slab = |from: &str| f.c(from, "linux/slab.h");
        assert_eq!(slab("mm/slub.c").as_deref(), Some("include/linux/slab.h"));
        assert_eq!(
            slab("tools/virtio/ringtest/ptr_ring.c").as_deref(),
            Some("tools/virtio/linux/slab.h")
        );
        assert_eq!(f.c("c/main.c", "x/util.h"), None);
        assert_eq!(f.c("a/main.c", "x/util.h").as_deref(), Some("a/x/util.h"));
    }
}
