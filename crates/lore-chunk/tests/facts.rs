//! Code facts per language: symbols (names, kinds, qualified names, signatures, lines),
//! imports and references with their receivers.

use lore_chunk::{ChunkOptions, analyze_file};
use lore_core::{ChunkKind, FileFacts, Receiver, RefKind, Symbol};

fn facts(path: &str, text: &str) -> FileFacts {
    analyze_file(path, text, &ChunkOptions::default()).facts
}

fn sym<'a>(f: &'a FileFacts, qualified: &str) -> &'a Symbol {
    f.symbols
        .iter()
        .find(|s| s.qualified == qualified)
        .unwrap_or_else(|| {
            let all: Vec<_> = f.symbols.iter().map(|s| &s.qualified).collect();
            panic!("no symbol {qualified}; have {all:?}")
        })
}

/// (caller, name, receiver) of every call.
fn calls(f: &FileFacts) -> Vec<(String, String, Receiver)> {
    refs_of(f, RefKind::Calls)
}

/// (caller, name, receiver) of every reference of a kind.
fn refs_of(f: &FileFacts, kind: RefKind) -> Vec<(String, String, Receiver)> {
    f.refs
        .iter()
        .filter(|r| r.kind == kind)
        .map(|r| {
            (
                r.caller.clone().unwrap_or_else(|| "<module>".into()),
                r.name.clone(),
                r.receiver.clone(),
            )
        })
        .collect()
}

fn has_call(f: &FileFacts, caller: &str, name: &str, receiver: Receiver) {
    let all = calls(f);
    assert!(
        all.contains(&(caller.to_string(), name.to_string(), receiver.clone())),
        "missing call {caller} -> {name} ({receiver:?}); have {all:#?}"
    );
}

#[test]
fn python_units_imports_and_calls() {
    let src = r#"import os
import shop.pricing as pricing
from .storage import save as persist, load
from . import models

DEFAULT = 3


class Cart(models.Base):
    """A shopping cart."""

    def __init__(self, owner: str):
        super().__init__()
        self.items = []
        self.store = Store()

    async def add_item(self, item: "Item", qty: int = 1) -> None:
        price = pricing.apply_discount(item.price)
        self.store.put(item)
        self._log(item)
        persist(self)

    def _log(self, item):
        def fmt(x):
            return str(x)
        print(fmt(item))


def checkout(cart: Cart):
    c2 = Cart("bob")
    c2.add_item(None)
    cart.add_item(None)
    return load()
"#;
    let f = facts("shop/cart.py", src);
    let cart = sym(&f, "Cart");
    assert_eq!(cart.kind, ChunkKind::Class);
    assert_eq!(cart.start_line, 9);
    assert_eq!(cart.doc.as_deref(), Some("A shopping cart."));
    let add = sym(&f, "Cart.add_item");
    assert_eq!(add.kind, ChunkKind::Method);
    assert_eq!(add.container.as_deref(), Some("Cart"));
    assert!(add.is_async);
    assert_eq!(
        add.signature.as_deref(),
        Some("async def add_item(self, item: \"Item\", qty: int = 1) -> None")
    );
    assert_eq!((add.start_line, add.end_line), (17, 21));
    assert!(!sym(&f, "Cart._log").exported);
    let nested = sym(&f, "Cart._log.fmt");
    assert_eq!(nested.kind, ChunkKind::Function);
    assert_eq!(nested.start_line, 24);

    has_call(
        &f,
        "Cart.add_item",
        "apply_discount",
        Receiver::Path("pricing".into()),
    );
    has_call(
        &f,
        "Cart.add_item",
        "put",
        Receiver::ReturnOf("Store".into()),
    );
    has_call(&f, "Cart.add_item", "_log", Receiver::SelfType);
    has_call(&f, "Cart.add_item", "persist", Receiver::None);
    has_call(&f, "Cart._log", "fmt", Receiver::None);
    has_call(
        &f,
        "checkout",
        "add_item",
        Receiver::ReturnOf("Cart".into()),
    );
    has_call(&f, "checkout", "add_item", Receiver::Type("Cart".into()));
    has_call(&f, "checkout", "Cart", Receiver::None);
    let ext: Vec<_> = f
        .refs
        .iter()
        .filter(|r| r.kind == RefKind::Extends)
        .collect();
    assert_eq!(ext.len(), 1);
    assert_eq!(ext[0].name, "Base");
    assert_eq!(ext[0].receiver, Receiver::Path("models".into()));

    let mods: Vec<_> = f.imports.iter().map(|i| i.module.as_str()).collect();
    assert_eq!(mods, ["os", "shop.pricing", ".storage", "."]);
    assert_eq!(f.imports[1].alias.as_deref(), Some("pricing"));
    assert_eq!(f.imports[2].names[0].local(), "persist");
    assert_eq!(f.imports[3].names[0].name, "models");
}

#[test]
fn fields_take_the_type_of_the_annotated_parameter_they_store() {
    let src = r#"class Order:
    def __init__(self, customer: Customer, note=None):
        self.customer = customer
        self.note = note

    def to_dict(self):
        return {"customer": self.customer.to_dict(), "note": self.note.strip()}
"#;
    let f = facts("orders.py", src);
    has_call(
        &f,
        "Order.to_dict",
        "to_dict",
        Receiver::Type("Customer".into()),
    );
    // An unannotated parameter says nothing about the field.
    let note = calls(&f)
        .into_iter()
        .find(|c| c.1 == "strip")
        .expect("strip call");
    assert!(!matches!(note.2, Receiver::Type(_)), "{note:?}");
}

#[test]
fn pytest_fixtures_their_values_and_the_parameters_that_ask_for_them() {
    let src = r#"import pytest
from flask import Flask


@pytest.fixture(scope="session")
def app():
    app = Flask("t")
    return app


@pytest.fixture
def app_ctx(app):
    with app.app_context() as ctx:
        yield ctx


def helper(x):
    yield Flask("not a fixture")


@pytest.fixture(name="client")
def fixture_client(app):
    return app.test_client()


class TestRoutes:
    @pytest.fixture
    def app(self, app, runner=None):
        return app

    def test_get(self, app, client: "Client"):
        app.add_url_rule("/")
"#;
    let f = facts("tests/conftest.py", src);
    let app = sym(&f, "app");
    assert_eq!(app.decorators, ["pytest.fixture"]);
    assert!(app.params.is_empty());
    assert_eq!(app.returns, Some(Receiver::ReturnOf("Flask".into())));
    let ctx = sym(&f, "app_ctx");
    assert_eq!(ctx.params, ["app"]);
    assert_eq!(
        ctx.returns,
        Some(Receiver::ReturnOf("app.app_context().__enter__".into()))
    );
    assert_eq!(
        sym(&f, "fixture_client").decorators,
        ["pytest.fixture(name=\"client\")"]
    );
    // Only a fixture's yield is its value.
    assert_eq!(sym(&f, "helper").returns, None);
    // A decorated method is one symbol, not a method and a function inside it.
    let method = sym(&f, "TestRoutes.app");
    assert_eq!(method.kind, ChunkKind::Method);
    assert_eq!(method.params, ["app", "runner"]);
    assert_eq!(method.returns, Some(Receiver::Path("app".into())));
    assert!(
        !f.symbols
            .iter()
            .any(|s| s.qualified == "TestRoutes.app.app")
    );
    assert_eq!(sym(&f, "TestRoutes.test_get").params, ["app"]);
    has_call(
        &f,
        "TestRoutes.test_get",
        "add_url_rule",
        Receiver::Path("app".into()),
    );
}

#[test]
fn values_returned_along_a_call_chain_keep_the_chain() {
    let src = r#"package main

func use() {
	s := store.New("x")
	n, err := s.Get("a")
	_ = err
	n.Title()
}
"#;
    let f = facts("main.go", src);
    has_call(
        &f,
        "use",
        "Title",
        Receiver::ReturnOf("store.New().Get".into()),
    );
}

#[test]
fn typescript_units_imports_and_calls() {
    let src = r#"import { slugify, clamp as limit } from "./util";
import * as log from "../log";
import type { Options } from "./types";
import Store from "./store";

export interface Named {
  name: string;
}

export class Task extends Base implements Named {
  private store: Store;

  constructor(public name: string, private repo: Repo) {
    super();
    this.store = new Store();
  }

  static create(name: string): Task {
    return new Task(slugify(name), new Repo());
  }

  async complete(t: Task): Promise<void> {
    this.repo.save(this);
    this.store.put(t.name);
    t.archive();
    log.info("done");
  }
}

export const total = (tasks: Task[]): number => {
  const first = Task.create("x");
  first.complete(first);
  return limit(tasks.length, 0, 10);
};
"#;
    let f = facts("src/task.ts", src);
    let task = sym(&f, "Task");
    assert_eq!(
        (task.kind, task.start_line, task.end_line),
        (ChunkKind::Class, 10, 28)
    );
    assert!(task.exported);
    let complete = sym(&f, "Task.complete");
    assert!(complete.is_async);
    assert_eq!(complete.container.as_deref(), Some("Task"));
    assert_eq!(complete.start_line, 22);
    assert_eq!(sym(&f, "total").kind, ChunkKind::Function);
    assert_eq!(sym(&f, "Named").kind, ChunkKind::Interface);

    has_call(&f, "Task.create", "Task", Receiver::None);
    has_call(&f, "Task.create", "slugify", Receiver::None);
    has_call(&f, "Task.complete", "save", Receiver::Type("Repo".into()));
    has_call(&f, "Task.complete", "put", Receiver::Type("Store".into()));
    has_call(
        &f,
        "Task.complete",
        "archive",
        Receiver::Type("Task".into()),
    );
    has_call(&f, "Task.complete", "info", Receiver::Path("log".into()));
    has_call(&f, "total", "create", Receiver::Path("Task".into()));
    has_call(
        &f,
        "total",
        "complete",
        Receiver::ReturnOf("Task.create".into()),
    );
    has_call(&f, "total", "limit", Receiver::None);
    let bases: Vec<_> = f
        .refs
        .iter()
        .filter(|r| r.kind != RefKind::Calls)
        .map(|r| (r.kind, r.name.as_str()))
        .collect();
    assert_eq!(
        bases,
        [(RefKind::Extends, "Base"), (RefKind::Implements, "Named")]
    );

    assert_eq!(f.imports.len(), 4);
    assert_eq!(f.imports[0].names[1].local(), "limit");
    assert_eq!(f.imports[1].alias.as_deref(), Some("log"));
    assert!(f.imports[2].type_only);
    assert_eq!(f.imports[3].names[0].local(), "Store");
}

#[test]
fn rust_units_imports_and_calls() {
    let src = r#"//! A key-value store.
mod codec;
use crate::codec::{self, encode};
use std::collections::HashMap as Map;

/// Stores values.
pub struct Store {
    index: Index,
}

pub trait Codec {
    fn name(&self) -> &str {
        "raw"
    }
}

impl Store {
    pub fn new() -> Self {
        Store { index: Index::default() }
    }

    pub async fn get(&self, key: &str) -> Option<Vec<u8>> {
        let raw = self.index.lookup(key)?;
        println!("{}", describe(key));
        Some(codec::decode(raw))
    }
}

impl Codec for Store {}

fn describe(k: &str) -> String {
    let s = Store::new();
    let t: Store = make();
    t.get(k);
    s.get(encode(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip() {
        assert!(describe("a").len() > 0);
    }
}
"#;
    let f = facts("src/store.rs", src);
    let store = sym(&f, "Store");
    assert_eq!((store.kind, store.start_line), (ChunkKind::Struct, 7));
    assert_eq!(store.doc.as_deref(), Some("Stores values."));
    let get = sym(&f, "Store::get");
    assert_eq!(
        (get.kind, get.start_line, get.end_line),
        (ChunkKind::Method, 22, 26)
    );
    assert!(get.is_async && get.exported);
    assert_eq!(
        get.signature.as_deref(),
        Some("pub async fn get(&self, key: &str) -> Option<Vec<u8>>")
    );
    assert_eq!(sym(&f, "Codec::name").container.as_deref(), Some("Codec"));
    assert!(!sym(&f, "describe").exported);
    let rt = sym(&f, "tests::roundtrip");
    assert!(rt.is_test);
    assert!(!sym(&f, "describe").is_test);

    has_call(&f, "Store::get", "lookup", Receiver::Type("Index".into()));
    has_call(&f, "Store::get", "describe", Receiver::None);
    has_call(&f, "Store::get", "decode", Receiver::Path("codec".into()));
    has_call(&f, "describe", "new", Receiver::Path("Store".into()));
    has_call(
        &f,
        "describe",
        "get",
        Receiver::ReturnOf("Store::new".into()),
    );
    has_call(&f, "describe", "get", Receiver::Type("Store".into()));
    has_call(&f, "describe", "encode", Receiver::None);
    has_call(&f, "tests::roundtrip", "describe", Receiver::None);
    let imp: Vec<_> = f
        .refs
        .iter()
        .filter(|r| r.kind == RefKind::Implements)
        .map(|r| (r.caller.as_deref(), r.name.as_str()))
        .collect();
    assert_eq!(imp, [(Some("Store"), "Codec")]);

    let mods: Vec<_> = f
        .imports
        .iter()
        .map(|i| {
            (
                i.module.as_str(),
                i.names.iter().map(|n| n.local()).collect::<Vec<_>>(),
            )
        })
        .collect();
    assert_eq!(
        mods,
        [
            ("self::codec", vec![]),
            ("crate::codec", vec!["self"]),
            ("crate::codec", vec!["encode"]),
            ("std::collections", vec!["Map"]),
            ("super", vec![]),
        ]
    );
}

#[test]
fn go_units_imports_and_calls() {
    let src = r#"package notes

import (
	"fmt"
	st "example.com/notes/store"
)

// Note is one note.
type Note struct {
	Title string
	db    *st.Store
}

// Save writes the note.
func (n *Note) Save(s *st.Store) error {
	n.validate()
	n.db.Put(n.Title)
	s.Put(n.Title)
	fmt.Println("saved")
	return nil
}

func (n *Note) validate() {}

func Open() *Note {
	s := st.New()
	s.Put("x")
	n := &Note{}
	n.Save(s)
	return n
}
"#;
    let f = facts("notes/note.go", src);
    let save = sym(&f, "Note.Save");
    assert_eq!(
        (save.kind, save.start_line, save.end_line),
        (ChunkKind::Method, 15, 21)
    );
    assert_eq!(save.container.as_deref(), Some("Note"));
    assert_eq!(save.doc.as_deref(), Some("Save writes the note."));
    assert!(save.exported);
    assert!(!sym(&f, "Note.validate").exported);
    has_call(&f, "Note.Save", "validate", Receiver::SelfType);
    has_call(&f, "Note.Save", "Put", Receiver::Type("Store".into()));
    has_call(&f, "Note.Save", "Println", Receiver::Path("fmt".into()));
    has_call(&f, "Open", "New", Receiver::Path("st".into()));
    has_call(&f, "Open", "Put", Receiver::ReturnOf("st.New".into()));
    has_call(&f, "Open", "Save", Receiver::Type("Note".into()));
    assert_eq!(f.imports[1].module, "example.com/notes/store");
    assert_eq!(f.imports[1].alias.as_deref(), Some("st"));
}

#[test]
fn java_and_cpp_units_and_calls() {
    let src = r#"package com.acme.shop;

import com.acme.shop.db.Repo;

public class CartService extends BaseService implements Service {
    private Repo repo;

    public Cart load(String id) {
        Cart c = repo.find(id);
        c.validate();
        return audit(c);
    }

    private Cart audit(Cart c) {
        return new Cart(c);
    }
}
"#;
    let f = facts("src/main/java/com/acme/shop/CartService.java", src);
    let load = sym(&f, "CartService.load");
    assert_eq!((load.start_line, load.end_line), (8, 12));
    assert!(load.exported);
    assert!(!sym(&f, "CartService.audit").exported);
    has_call(
        &f,
        "CartService.load",
        "find",
        Receiver::Type("Repo".into()),
    );
    has_call(
        &f,
        "CartService.load",
        "validate",
        Receiver::Type("Cart".into()),
    );
    has_call(&f, "CartService.load", "audit", Receiver::None);
    has_call(&f, "CartService.audit", "Cart", Receiver::None);
    assert_eq!(f.imports[0].module, "com.acme.shop.db");
    assert_eq!(f.imports[0].names[0].name, "Repo");

    let cpp = r#"#include "store.h"

namespace kv {

int Store::get(int key) const {
    return lookup(key) + helper::twice(key);
}

}
"#;
    let f = facts("src/store.cpp", cpp);
    let get = sym(&f, "kv::Store::get");
    assert_eq!((get.kind, get.start_line), (ChunkKind::Method, 5));
    has_call(&f, "kv::Store::get", "lookup", Receiver::None);
    has_call(
        &f,
        "kv::Store::get",
        "twice",
        Receiver::Path("helper".into()),
    );
    assert_eq!(f.imports[0].module, "store.h");
}

/// Every fixture of `tests/fixtures`, and every prefix of it cut at 97 places (half-written
/// files): facts stay inside the file and consistent, and nothing panics.
#[test]
fn facts_hold_invariants_on_fixtures_and_truncations() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut symbols = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut cuts: Vec<usize> = (1..97).map(|i| text.len() * i / 97).collect();
        cuts.push(text.len());
        for cut in cuts {
            let mut end = cut;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let part = &text[..end];
            let lines = part.lines().count().max(1) as u32;
            let f = facts(&name, part);
            for s in &f.symbols {
                assert!(
                    s.start_byte < s.end_byte && s.end_byte <= part.len(),
                    "{name}: {s:?}"
                );
                assert!(
                    s.start_line >= 1 && s.start_line <= s.end_line && s.end_line <= lines,
                    "{name}: {s:?}"
                );
                assert!(s.qualified.ends_with(&s.name), "{name}: {s:?}");
                assert!(part.is_char_boundary(s.start_byte) && part.is_char_boundary(s.end_byte));
            }
            for r in &f.refs {
                assert!(r.line >= 1 && r.line <= lines, "{name}: {r:?}");
                assert!(!r.name.is_empty());
            }
            if end == text.len() {
                symbols += f.symbols.len();
            }
        }
    }
    assert!(symbols > 80, "only {symbols} symbols in the fixtures");
}

#[test]
fn deep_units_and_nested_methods_in_fixtures() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let read = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap();
    for (file, lang_sep) in [
        ("store.rs", "::"),
        ("inventory.py", "."),
        ("Library.java", "."),
        ("cart.ts", "."),
        ("server.go", "."),
    ] {
        let text = read(file);
        let f = facts(file, &text);
        // Methods nested in a type carry it in their qualified name and container, and
        // their lines are the lines of their text in the file.
        let methods: Vec<_> = f
            .symbols
            .iter()
            .filter(|s| s.kind == ChunkKind::Method)
            .collect();
        assert!(!methods.is_empty(), "{file}: no methods");
        for m in &methods {
            let c = m
                .container
                .as_deref()
                .unwrap_or_else(|| panic!("{file}: {m:?}"));
            assert!(
                m.qualified.contains(&format!("{c}{lang_sep}")),
                "{file}: {m:?}"
            );
            let first_line = text.lines().nth(m.start_line as usize - 1).unwrap();
            assert_eq!(
                text[..m.start_byte].matches('\n').count() as u32 + 1,
                m.start_line,
                "{file}: {m:?}"
            );
            assert!(
                first_line.contains(&m.name) || text[m.start_byte..m.end_byte].contains(&m.name),
                "{file}: {m:?}"
            );
        }
        // Something starts deep in the file.
        let deepest = f.symbols.iter().map(|s| s.start_line).max().unwrap();
        assert!(
            deepest as usize > text.lines().count() / 2,
            "{file}: deepest unit at {deepest}"
        );
    }
}

/// Issue 30, kind 2: a member that starts with a type parameter list on its own line, right
/// after a member written without `;`, is where TypeScript's grammar gives up (it inserts no
/// semicolon before `<`); the rest of the file must still be units, with no junk symbols.
#[test]
fn typescript_members_that_start_with_type_parameters_do_not_end_the_parse() {
    let text = "\
export interface HandlerInterface<E extends Env = Env> {
  // app.get(handler)
  <
    P extends string = string,
    R extends Response = Response,
  >(
    handler: H<E, P, R>
  ): Hono<E>

  // app.get(path, handler)
  <P extends string, R extends Response = Response>(
    path: P,
    handler: H<E, P, R>
  ): [Hono<E>]

  <P extends string>(path: P): Hono<E>
}

export class Factory<E extends Env = Env> {
  #defaults?: Options<E>

  createApp = (options?: Options<E>): Hono<E> => {
    if (this.#defaults) {
      return new Hono<E>(this.#defaults)
    }
    return new Hono<E>(options)
  }

  createMiddleware = <I extends Input = {}>(
    middleware: MiddlewareHandler<E, I>
  ): MiddlewareHandler<E, I> => middleware
}

export function createFactory<E extends Env = Env>(init?: Options<E>): Factory<E> {
  return new Factory<E>(init)
}
";
    let f = facts("src/types.ts", text);
    let names: Vec<&str> = f.symbols.iter().map(|s| s.qualified.as_str()).collect();
    for want in [
        "HandlerInterface",
        "Factory",
        "Factory.createApp",
        "Factory.createMiddleware",
        "createFactory",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    for junk in ["if", "return", "const"] {
        assert!(!names.iter().any(|n| n.ends_with(junk)), "{names:?}");
    }
    let create = sym(&f, "createFactory");
    assert_eq!((create.start_line, create.end_line), (34, 36));
    // The chunk text is the file's own: the separator the parser was given is not in it.
    let chunks = analyze_file("src/types.ts", text, &ChunkOptions::default()).chunks;
    assert!(
        chunks.iter().all(|c| !c.content.contains(";<")),
        "{chunks:#?}"
    );
    assert!(
        chunks.iter().all(|c| c.kind != ChunkKind::Text),
        "{chunks:#?}"
    );
}

/// TypeScript 5's type-only star re-export is not in the grammar; the file parses whole,
/// and the re-export is one.
#[test]
fn type_only_star_re_exports_parse() {
    let text = "export { render } from './render'\n\nexport type * from './types'\n\
                export type * as JSX from './jsx'\n\nexport function h(tag: string) {\n  \
                return tag\n}\n";
    let analyzed = analyze_file("src/index.ts", text, &ChunkOptions::default());
    assert_eq!(analyzed.parse_error, None);
    assert!(analyzed.facts.symbols.iter().any(|s| s.name == "h"));
    // The chunk text is the file's own.
    assert!(
        analyzed
            .chunks
            .iter()
            .any(|c| c.content.contains("export type * from './types'")),
        "{:#?}",
        analyzed.chunks
    );
}

/// Two shapes from vuejs/core the grammar fails on: an import type with a type after it
/// (`import('@babel/types').Statement[]`), and members named `in` and `in2` (SVG
/// attributes) after one written without `;`. Both files parse whole, and their text is their own.
#[test]
fn import_types_and_members_named_in_parse() {
    let text = "export interface SFCScriptBlock {\n  setup?: string | boolean\n  \
                scriptAst?: import('@babel/types').Statement[]\n  \
                loader?: import(\"./loader\").Loader<string>\n}\n\n\
                export interface SVGAttributes {\n  href?: string | undefined\n  \
                in2?: Numberish | undefined\n  in?: string | undefined\n  \
                k1?: Numberish\n}\n\n\
                export class Filter {\n  x = 1\n  instanceof = 2\n  apply() {\n    \
                return import('./lazy').then((m) => m.default)\n  }\n}\n";
    let analyzed = analyze_file("src/parse.ts", text, &ChunkOptions::default());
    assert_eq!(analyzed.parse_error, None);
    let names: Vec<&str> = analyzed
        .facts
        .symbols
        .iter()
        .map(|s| s.qualified.as_str())
        .collect();
    for want in ["SFCScriptBlock", "SVGAttributes", "Filter", "Filter.apply"] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    assert!(
        analyzed.chunks.iter().any(|c| c
            .content
            .contains("scriptAst?: import('@babel/types').Statement[]")),
        "{:#?}",
        analyzed.chunks
    );
}

/// What the parser still could not read is said, with the line it starts at.
#[test]
fn a_file_that_parses_with_errors_says_where() {
    let clean = analyze_file("a.ts", "export const x = 1\n", &ChunkOptions::default());
    assert_eq!(clean.parse_error, None);
    let broken = analyze_file(
        "b.ts",
        "export function ok() {\n  return 1\n}\n\nexport function broken( {\n  return )(\n}\n",
        &ChunkOptions::default(),
    );
    let e = broken.parse_error.expect("a parse error");
    assert_eq!(e.line, 5, "{e}");
    assert!(e.bytes > 0);
    assert!(e.to_string().starts_with("parse error at line 5"), "{e}");
    assert!(broken.facts.symbols.iter().any(|s| s.name == "ok"));
}

/// Issue 30, kind 3: CommonJS modules import with `require`, and members assigned to an
/// object are its methods, each one unit named once.
#[test]
fn commonjs_requires_and_assigned_members() {
    let text = "\
'use strict';
var utils = require('./utils');
var compileETag = require('./utils').compileETag;
var { setCharset, normalizeType: normalize } = require('./utils');
var app = exports = module.exports = {};

app.set = function set(setting, val) {
  this.settings[setting] = val;
  return compileETag(val);
};

app.enable = function enable(setting) {
  return this.set(setting, true);
};

function View(name) {
  this.path = this.lookup(name);
}

View.prototype.lookup = function lookup(name) {
  return normalize(name);
};

exports.isAbsolute = function (path) {
  return path[0] === '/';
};

/**
 * Set the Content-Type (a JSDoc a blank line above what it documents).
 */

res.contentType = res.type = function contentType(type) {
  return this.set('Content-Type', type);
};

defineGetter(req, 'host', function host() {
  return this.get('X-Forwarded-Host');
});
";
    let f = facts("lib/application.js", text);
    let imports: Vec<(String, Vec<String>, Option<String>)> = f
        .imports
        .iter()
        .map(|i| {
            let names = i
                .names
                .iter()
                .map(|n| format!("{}>{}", n.name, n.local()))
                .collect();
            (i.module.clone(), names, i.alias.clone())
        })
        .collect();
    assert_eq!(
        imports,
        [
            ("./utils".into(), vec![], Some("utils".into())),
            (
                "./utils".into(),
                vec!["compileETag>compileETag".into()],
                None
            ),
            (
                "./utils".into(),
                vec![
                    "setCharset>setCharset".into(),
                    "normalizeType>normalize".into()
                ],
                None
            ),
        ]
    );
    let set = sym(&f, "app.set");
    assert_eq!(
        (set.kind, set.container.as_deref()),
        (ChunkKind::Method, Some("app"))
    );
    assert_eq!(sym(&f, "View.lookup").container.as_deref(), Some("View"));
    assert_eq!(sym(&f, "isAbsolute").kind, ChunkKind::Function);
    let names: Vec<&str> = f.symbols.iter().map(|s| s.qualified.as_str()).collect();
    assert!(
        !names
            .iter()
            .any(|n| n.ends_with("set.set") || n.ends_with("enable.enable")),
        "{names:?}"
    );
    has_call(&f, "app.enable", "set", Receiver::SelfType);
    // A chained assignment is one unit, named by its function; a JSDoc a blank line above
    // is its doc.
    let ct = sym(&f, "res.contentType");
    assert_eq!(
        ct.doc.as_deref(),
        Some("Set the Content-Type (a JSDoc a blank line above what it documents).")
    );
    // A named function handed to a call at the top of the file is that statement's unit.
    assert_eq!(sym(&f, "host").kind, ChunkKind::Function);
    let chunks = analyze_file("lib/application.js", text, &ChunkOptions::default()).chunks;
    let unit = chunks
        .iter()
        .find(|c| c.symbol.as_deref() == Some("contentType"))
        .unwrap();
    assert!(
        unit.content.starts_with("/**\n * Set the Content-Type"),
        "{unit:#?}"
    );
    assert!(
        chunks.iter().any(|c| c.symbol.as_deref() == Some("host")),
        "{chunks:#?}"
    );
    has_call(&f, "View", "lookup", Receiver::SelfType);
}

#[test]
fn a_function_given_where_its_type_is_written_types_its_parameters() {
    let text = "import type { Context } from './context'\n\n\
                export type Handler<\n  E = any,\n> = (c: Context<E>, next: () => void) => void\n\n\
                export const cors = (): Handler => {\n  return async function cors(c, next) {\n    \
                c.req.header('origin')\n  }\n}\n\n\
                export const poweredBy = (): Handler => async (c, next) => {\n  c.header('x', 'y')\n}\n\n\
                export const timing: Handler = (c) => {\n  c.set('t', 1)\n}\n\n\
                export function wrap(f: Handler): Handler {\n  return f\n}\n";
    let f = facts("src/mw.ts", text);
    // The alias's type parameters run over lines: its signature reads to where they close.
    assert_eq!(
        sym(&f, "Handler").signature.as_deref(),
        Some("export type Handler<E = any> = (c: Context<E>, next: () => void) => void")
    );
    let handler = |param| Receiver::Param {
        fn_type: "Handler".into(),
        param,
    };
    has_call(
        &f,
        "cors",
        "header",
        Receiver::Field(Box::new(handler(0)), "req".into()),
    );
    has_call(&f, "poweredBy", "header", handler(0));
    has_call(&f, "timing", "set", handler(0));
}

#[test]
fn names_taken_from_a_typed_value_are_its_fields() {
    let text = "import type { VNode } from './vnode'\n\n\
                export interface Hooks {\n  enter(el: Element): void\n}\n\n\
                export interface Node {\n  hooks: Hooks | null\n}\n\n\
                export function mount(vnode: VNode, node: Node) {\n  \
                const { transition, props: p } = vnode\n  transition!.beforeEnter(p)\n  \
                node.hooks!.enter(p)\n}\n";
    let f = facts("src/mount.ts", text);
    let vnode = || Box::new(Receiver::Type("VNode".into()));
    has_call(
        &f,
        "mount",
        "beforeEnter",
        Receiver::Field(vnode(), "transition".into()),
    );
    // An interface's property has the type it is annotated with.
    has_call(&f, "mount", "enter", Receiver::Type("Hooks".into()));
}

#[test]
fn rust_items_inside_a_wrapping_macro_are_units() {
    let text = "macro_rules! cfg_rt {\n    ($($item:item)*) => { $( #[cfg(feature = \"rt\")] $item )* };\n}\n\n\
                cfg_rt! {\n    /// Runs a task.\n    pub fn spawn(task: Task) -> Handle {\n        \
                let h = Handle::new('{');\n        h.start(task)\n    }\n}\n\n\
                pub struct Handle;\n\nimpl Handle {\n    cfg_rt! {\n        \
                pub fn start(&self, task: Task) -> Handle {\n            schedule(task); // }\n            \
                Handle\n        }\n    }\n}\n\nfn schedule(_t: Task) {}\n";
    let f = facts("src/task.rs", text);
    assert_eq!(sym(&f, "spawn").kind, ChunkKind::Function);
    assert_eq!(sym(&f, "Handle::start").kind, ChunkKind::Method);
    has_call(
        &f,
        "spawn",
        "start",
        Receiver::ReturnOf("Handle::new".into()),
    );
    has_call(&f, "Handle::start", "schedule", Receiver::None);
    // The chunks keep the file's own text, the wrapper included.
    let a = analyze_file("src/task.rs", text, &ChunkOptions::default());
    let names: Vec<_> = a
        .chunks
        .iter()
        .map(|c| (c.kind, c.symbol.clone()))
        .collect();
    assert!(
        names.contains(&(ChunkKind::Function, Some("spawn".into()))),
        "{names:?}"
    );
    assert!(
        a.chunks
            .iter()
            .all(|c| text[c.start_byte..c.end_byte] == c.content)
    );
}

/// (caller, name, receiver) of every function given as a value.
fn uses(f: &FileFacts) -> Vec<(String, String, Receiver)> {
    refs_of(f, RefKind::Uses)
}

#[test]
fn functions_given_as_values_are_uses_and_bound_names_are_not() {
    let js = facts(
        "src/app.js",
        r#"const express = require('express');
function handler(req, res) { res.send('ok'); }
const router = express.Router();
router.get('/', handler);
function wrap(fn, next) {
  return items.map((item) => run(item, fn)).then(next);
}
class Server {
  start() { emitter.on('close', this.stop); }
  stop() {}
}
const helper = (x) => x;
setTimeout(helper, 10);
"#,
    );
    let got = uses(&js);
    for want in [
        ("<module>", "handler", Receiver::None),
        ("Server.start", "stop", Receiver::SelfType),
        ("<module>", "helper", Receiver::None),
    ] {
        let want = (want.0.to_string(), want.1.to_string(), want.2);
        assert!(got.contains(&want), "missing {want:?}; have {got:#?}");
    }
    // Parameters of the function around (`fn`, `next`), of an arrow inside it (`item`) and
    // a module-level value (`router`) are values, not functions.
    for name in ["fn", "next", "item", "router"] {
        assert!(
            !got.iter().any(|(_, n, _)| n == name),
            "{name} taken for a function: {got:#?}"
        );
    }

    let py = facts(
        "app.py",
        r#"import threading

def index():
    return "hi"

class Worker:
    def start(self, callback):
        t = threading.Thread(target=self.run)
        for job in jobs:
            submit(job, callback)
        app.add_url_rule("/", view_func=index)

    def run(self):
        pass
"#,
    );
    let got = uses(&py);
    assert!(got.contains(&("Worker.start".into(), "run".into(), Receiver::SelfType)));
    assert!(got.contains(&("Worker.start".into(), "index".into(), Receiver::None)));
    assert!(
        !got.iter().any(|(_, n, _)| n == "job" || n == "callback"),
        "{got:#?}"
    );

    let rs = facts(
        "src/lib.rs",
        r#"fn first(s: &str) -> Option<&str> { s.lines().next() }
fn parse(v: Vec<String>, limit: usize) -> Vec<usize> {
    let doc = v.first().and_then(|d| first(d));
    if let Some(n) = v.iter().map(String::len).max() {
        return v.iter().map(Self::size).chain(std::iter::once(n)).take(limit).collect();
    }
    let _ = v.iter().map(Some).take(MAX_LEN).map(Kind::Function);
    v.iter().filter_map(first).map(|x| x.len()).collect()
}
"#,
    );
    let got = uses(&rs);
    assert!(got.contains(&("parse".into(), "first".into(), Receiver::None)));
    assert!(got.contains(&("parse".into(), "size".into(), Receiver::SelfType)));
    assert!(got.contains(&(
        "parse".into(),
        "len".into(),
        Receiver::Path("String".into())
    )));
    assert!(
        !got.iter()
            .any(|(_, n, _)| n == "n" || n == "limit" || n == "d"),
        "{got:#?}"
    );
    // Variants, constants and types are never functions.
    assert!(
        !got.iter()
            .any(|(_, n, _)| n == "Some" || n == "MAX_LEN" || n == "Function"),
        "{got:#?}"
    );
}

#[test]
fn c_function_pointers_are_uses_and_locals_are_not() {
    let c = facts(
        "src/sort.c",
        "#include <stdlib.h>\nint cmp(const void *a, const void *b);\n\
         void sort(int *xs, int n, int (*order)(const void *, const void *)) {\n  \
         int count;\n  int limit = n;\n  qsort(xs, n, sizeof(int), cmp);\n  \
         qsort(xs, count, limit, order);\n}\n",
    );
    let got = uses(&c);
    assert!(
        got.contains(&("sort".into(), "cmp".into(), Receiver::None)),
        "{got:#?}"
    );
    for name in ["xs", "n", "count", "limit", "order"] {
        assert!(!got.iter().any(|(_, g, _)| g == name), "{name}: {got:#?}");
    }
}
