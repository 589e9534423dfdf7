//! What a code file declares and uses: its symbols, imports and references (calls,
//! extends, implements). Extracted per file by `lore-chunk`, resolved across a store by
//! `lore-graph`; with the two readings of source text both need (test files, type names).

use crate::ChunkKind;
use serde::{Deserialize, Serialize};

/// A named definition: function, method, class, struct, trait, constant, …
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    pub name: String,
    /// Name within the file through its enclosing definitions: `Cart.add_item`,
    /// `Store::get`, `tests::roundtrip`, `main.helper`.
    pub qualified: String,
    pub kind: ChunkKind,
    /// Name of the type whose member this is (class, impl type, Go receiver).
    pub container: Option<String>,
    pub signature: Option<String>,
    pub doc: Option<String>,
    /// Visible outside its module (pub, export, capitalized, public, not `_`-prefixed).
    pub exported: bool,
    pub is_async: bool,
    /// Declared in a test (test file, test module, or a test function itself).
    pub is_test: bool,
    /// What the body returns when the signature does not say (`return Cart()`); for a
    /// pytest fixture, what it yields, and `Path(p)` when that is the fixture it asks
    /// for by its parameter `p`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returns: Option<Receiver>,
    /// Parameters the signature gives no type (Python, without `self`/`cls`): a test
    /// asks for pytest fixtures by such names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
    /// Decorators as written, without their arguments: `pytest.fixture`, `app.route`
    /// (Python); a fixture's own name is kept: `pytest.fixture(name="app")`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decorators: Vec<String>,
    pub start_line: u32,
    pub end_line: u32,
    pub start_byte: usize,
    pub end_byte: usize,
}

/// One import statement (or one name group of it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// Module as written: `./util`, `.pricing`, `shop.storage`, `crate::codec`,
    /// `example.com/notes/store`, `stdio.h`.
    pub module: String,
    /// Names taken from it; empty when the module itself is bound.
    pub names: Vec<ImportedName>,
    /// Local name bound to the module itself (`import x as m`, `import * as m`, Go
    /// package name), if any.
    pub alias: Option<String>,
    /// `from m import *`, `use m::*`, C includes.
    pub wildcard: bool,
    /// `import type …` (TypeScript).
    pub type_only: bool,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedName {
    pub name: String,
    /// The local name when renamed (`as`).
    pub alias: Option<String>,
}

impl ImportedName {
    pub fn local(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.name)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RefKind {
    Calls,
    Extends,
    Implements,
    /// A function given as a value (`xs.map(parse)`, `router.get('/', handler)`): it is
    /// called through that value, so it counts among the callers.
    Uses,
}

impl RefKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Calls => "calls",
            RefKind::Extends => "extends",
            RefKind::Implements => "implements",
            RefKind::Uses => "uses",
        }
    }

    /// A call, or a function given as a value to be called through it: the kinds of
    /// reference that make one unit run another.
    pub fn reaches_code(self) -> bool {
        matches!(self, RefKind::Calls | RefKind::Uses)
    }

    pub fn parse(s: &str) -> Option<RefKind> {
        [
            RefKind::Calls,
            RefKind::Extends,
            RefKind::Implements,
            RefKind::Uses,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// What the called name hangs on, as far as the file alone tells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", content = "v", rename_all = "lowercase")]
pub enum Receiver {
    /// A bare name: `f()`, `new Task()`, `Cart()`.
    None,
    /// `self.f()`, `this.f()`, a Go receiver, `Self::f()`.
    SelfType,
    /// A value whose type the file states: `x: Cart`, `x = Cart()`, `let s = Store::new()`.
    Type(String),
    /// A value returned by a call of this name/path (`s := store.New()`), typed later
    /// from the callee's signature. Chains read `f().m`: method `m` of what `f` returns
    /// (`n, err := s.Get(id)` after the line above is `store.New().Get`).
    ReturnOf(String),
    /// A name or path the call is qualified with: `storage.save()`, `codec::decode()`,
    /// `Task.create()`: a module, a package or a type.
    Path(String),
    /// A field of a value the file knows something about, whose own type it does not
    /// know (declared in another file or a base class): `app.config` with `app =
    /// Flask()` is `Field(ReturnOf("Flask"), "config")`.
    Field(Box<Receiver>, String),
    /// An untyped parameter of a function passed to a call, which the callee's signature
    /// types (`operate((source, subscriber) => …)`): parameter `param` of the function
    /// given as argument `arg` of a call to `call`.
    Callback {
        call: String,
        arg: usize,
        param: usize,
    },
    /// An untyped parameter of a function given where the file writes its function type:
    /// returned by a function declared to return it (`(): MiddlewareHandler => async (c,
    /// next) => …`) or assigned to a name annotated with it (`const h: Handler = (c) =>
    /// …`): parameter `param` of `fn_type` as written (an alias's name or `(a: A) => R`).
    Param { fn_type: String, param: usize },
    /// Anything else (a call chain, an index expression, an untyped variable).
    Unknown,
}

impl Receiver {
    /// A value whose type the resolver can work out, and so the type of its fields: not a
    /// bare name, a module path or nothing known.
    pub fn is_value(&self) -> bool {
        matches!(
            self,
            Receiver::SelfType
                | Receiver::Type(_)
                | Receiver::ReturnOf(_)
                | Receiver::Field(..)
                | Receiver::Callback { .. }
                | Receiver::Param { .. }
        )
    }
}

/// The name a pytest fixture is asked for by, when `decorator` (as in
/// [`Symbol::decorators`]) makes `function` one: its own name, or the one given as
/// `@pytest.fixture(name="…")`.
pub fn fixture_name<'a>(decorator: &'a str, function: &'a str) -> Option<&'a str> {
    let (base, args) = decorator.split_once('(').unwrap_or((decorator, ""));
    if !matches!(base, "pytest.fixture" | "fixture" | "pytest.yield_fixture") {
        return None;
    }
    let named = args
        .strip_prefix("name=")
        .map(|n| n.trim_end_matches(')').trim_matches(['"', '\'']))
        .filter(|n| !n.is_empty());
    Some(named.unwrap_or(function))
}

/// A use of a name: a call, a function given as a value, or a type's base class /
/// implemented interface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    pub kind: RefKind,
    /// Qualified name of the innermost enclosing symbol; `None` at module level.
    pub caller: Option<String>,
    pub name: String,
    pub receiver: Receiver,
    pub line: u32,
}

/// A name with what the file tells about its value: a field of a type (`self.config =
/// self.make_config()` in `App`), or a module-level name (`current_app: Flask = …`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    /// The type the field belongs to; `None` for a module-level name.
    pub owner: Option<String>,
    pub name: String,
    pub value: Receiver,
}

/// Everything the code graph needs from one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    pub symbols: Vec<Symbol>,
    pub imports: Vec<Import>,
    pub refs: Vec<Reference>,
    /// Fields and module-level names whose value the file tells, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bindings: Vec<Binding>,
}

/// Test files by the conventions of the supported languages.
pub fn is_test_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let file = lower.rsplit('/').next().unwrap_or(&lower);
    lower
        .split('/')
        .any(|seg| matches!(seg, "test" | "tests" | "__tests__" | "spec" | "testdata"))
        || file.starts_with("test_")
        || file.ends_with("_test.go")
        || file.ends_with("_test.py")
        || file.contains(".test.")
        || file.contains(".spec.")
        || (file.ends_with("test.java") && file.len() > "test.java".len())
}

/// Whether a path holds code that is not the product: benchmarks, fixtures, vendored or
/// generated trees and files (`benchmarks/`, `__fixtures__/`, `vendor/`, `*.min.js`,
/// `*.pb.go`, `*_pb2.py`, `*.generated.ts`). Searches rank them as they rank tests.
pub fn is_auxiliary_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let file = lower.rsplit('/').next().unwrap_or(&lower);
    let dirs = lower.rsplit_once('/').map_or("", |(d, _)| d);
    dirs.split('/').any(|seg| {
        matches!(
            seg,
            "bench"
                | "benches"
                | "benchmark"
                | "benchmarks"
                | "fixture"
                | "fixtures"
                | "__fixtures__"
                | "vendor"
                | "vendored"
                | "third_party"
                | "third-party"
                | "generated"
                | "__generated__"
        )
    }) || file.contains(".bench.")
        || file.contains(".min.")
        || file.contains(".generated.")
        || file.ends_with(".pb.go")
        || file.ends_with("_pb2.py")
}

/// What may stand before a TypeScript or JavaScript member's name.
const MODIFIERS: [&str; 7] = [
    "public ",
    "private ",
    "protected ",
    "static ",
    "async ",
    "override ",
    "abstract ",
];

/// A member's signature without its modifiers (`public static query<T>(…)` → `query<T>(…)`).
pub fn unmodified(mut signature: &str) -> &str {
    while let Some(r) = MODIFIERS.iter().find_map(|m| signature.strip_prefix(m)) {
        signature = r.trim_start();
    }
    signature
}

/// `"get "` or `"set "` when a signature declares an accessor (`get value()`, `static set
/// x(v)`): a getter and a setter share a name and are two units, and a getter is read
/// like a field.
pub fn accessor(signature: Option<&str>) -> &'static str {
    let rest = signature.map_or("", |s| unmodified(s.trim_start()));
    let named =
        |r: &str| r.starts_with(|c: char| c.is_alphabetic() || matches!(c, '_' | '$' | '#' | '['));
    match rest.split_at_checked(4) {
        Some(("get ", r)) if named(r) => "get ",
        Some(("set ", r)) if named(r) => "set ",
        _ => "",
    }
}

/// The type name in a written type: `&mut Store` → `Store`, `*pkg.Store` → `Store`,
/// `Optional[Cart]` → `Cart`, `Vec<Item>` → `Item` (wrappers and collections unwrap).
pub fn type_name(written: &str) -> Option<String> {
    const WRAPPERS: [&str; 26] = [
        "Option",
        "Optional",
        "Result",
        "Box",
        "Arc",
        "Rc",
        "Promise",
        "Ref",
        "RefCell",
        "Mutex",
        "Readonly",
        "Awaited",
        "Vec",
        "VecDeque",
        "HashSet",
        "BTreeSet",
        "list",
        "List",
        "Sequence",
        "Iterable",
        "Iterator",
        "Array",
        "ReadonlyArray",
        "Set",
        "set",
        "Type",
    ];
    let mut rest = written.trim();
    loop {
        rest = rest.trim_start_matches(['&', '*', ' ', ':', '[', ']', '(']);
        for kw in ["mut ", "dyn ", "impl ", "const ", "typing."] {
            if let Some(r) = rest.strip_prefix(kw) {
                rest = r;
            }
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == ':'))
            .unwrap_or(rest.len());
        let path = rest[..end].trim_end_matches([':', '.']);
        let last = path.rsplit(['.', ':']).next().unwrap_or(path);
        if last.is_empty() {
            return None;
        }
        if WRAPPERS.contains(&last) && rest[end..].starts_with(['<', '[']) {
            rest = &rest[end + 1..];
            continue;
        }
        if last.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            return None;
        }
        return Some(last.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessors_are_told_apart() {
        assert_eq!(accessor(Some("get value()")), "get ");
        assert_eq!(accessor(Some("static set current(v: T)")), "set ");
        assert_eq!(accessor(Some("get #secret(): string")), "get ");
        // A method named get or set is not an accessor.
        assert_eq!(accessor(Some("get(key: string)")), "");
        assert_eq!(accessor(Some("set (key, value)")), "");
        assert_eq!(accessor(Some("function getter()")), "");
        assert_eq!(accessor(None), "");
    }

    #[test]
    fn type_names_and_test_paths() {
        for (written, name) in [
            ("&mut Store", Some("Store")),
            ("*pkg.Store", Some("Store")),
            ("Optional[Cart]", Some("Cart")),
            ("Vec<Item>", Some("Item")),
            ("Result<Store, Error>", Some("Store")),
            ("[]int", Some("int")),
            ("42", None),
        ] {
            assert_eq!(type_name(written).as_deref(), name, "{written}");
        }
        for path in [
            "tests/a.rs",
            "src/cart.test.ts",
            "x/y_test.go",
            "FooTest.java",
        ] {
            assert!(is_test_path(path), "{path}");
        }
        for path in ["src/testing.rs", "Test.java", "src/contest.py"] {
            assert!(!is_test_path(path), "{path}");
        }
        for path in [
            "benchmarks/handle.mts",
            "packages/x/__fixtures__/a.ts",
            "vendor/lib/x.go",
            "dist/app.min.js",
            "api/v1/x.pb.go",
            "src/bench/router.rs",
        ] {
            assert!(is_auxiliary_path(path), "{path}");
        }
        for path in [
            "src/router.ts",
            "src/benchmark.rs",
            "vendor.go",
            "src/generated_ids.rs",
        ] {
            assert!(!is_auxiliary_path(path), "{path}");
        }
        assert_eq!(fixture_name("pytest.fixture", "app"), Some("app"));
        assert_eq!(
            fixture_name("pytest.fixture(name=\"app\")", "fixture_app"),
            Some("app")
        );
        assert_eq!(fixture_name("app.route", "index"), None);
    }
}
