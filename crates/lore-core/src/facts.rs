//! What a code file declares and uses: its symbols, imports and references (calls,
//! extends, implements). Extracted per file by `lore-chunk`, resolved across a store by
//! `lore-graph`.

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
    /// What the body returns when the signature does not say (`return Cart()`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returns: Option<Receiver>,
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
}

impl RefKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Calls => "calls",
            RefKind::Extends => "extends",
            RefKind::Implements => "implements",
        }
    }

    pub fn parse(s: &str) -> Option<RefKind> {
        [RefKind::Calls, RefKind::Extends, RefKind::Implements]
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
    /// Anything else (a call chain, an index expression, an untyped variable).
    Unknown,
}

/// A use of a name: a call, or a type's base class / implemented interface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    pub kind: RefKind,
    /// Qualified name of the innermost enclosing symbol; `None` at module level.
    pub caller: Option<String>,
    pub name: String,
    pub receiver: Receiver,
    pub line: u32,
}

/// Everything the code graph needs from one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    pub symbols: Vec<Symbol>,
    pub imports: Vec<Import>,
    pub refs: Vec<Reference>,
}
