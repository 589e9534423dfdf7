//! What an expression's value is, as far as its syntax tells: a type, "whatever `f`
//! returns", `self`, or a module/type path.

use super::{Extractor, Frame};
use crate::lang;
use lore_core::{Language, Receiver, type_name};
use tree_sitter::Node;

impl<'a> Extractor<'_, 'a> {
    /// What a value expression's type is, as far as its syntax tells.
    pub(super) fn value_type(&self, v: Node, stack: &[Frame]) -> Option<Receiver> {
        match v.kind() {
            "new_expression" | "object_creation_expression" => {
                let c = v
                    .child_by_field_name("constructor")
                    .or_else(|| v.child_by_field_name("type"))?;
                type_name(self.text(c)).map(Receiver::Type)
            }
            "struct_expression" => type_name(self.field(v, "name")?).map(Receiver::Type),
            "composite_literal" => type_name(self.field(v, "type")?).map(Receiver::Type),
            "unary_expression"
            | "reference_expression"
            | "await_expression"
            | "await"
            | "try_expression" => {
                let inner = v
                    .child_by_field_name("operand")
                    .or_else(|| v.child_by_field_name("value"))
                    .or_else(|| v.named_child(0))?;
                self.value_type(inner, stack)
            }
            "call" | "call_expression" => {
                let f = v.child_by_field_name("function")?;
                match f.kind() {
                    "attribute" | "member_expression" | "selector_expression" => {
                        // `board.add(…)` with `board: Board` → what `Board.add` returns.
                        let (obj, method) = match f.kind() {
                            "attribute" => {
                                (f.child_by_field_name("object"), self.field(f, "attribute"))
                            }
                            "member_expression" => {
                                (f.child_by_field_name("object"), self.field(f, "property"))
                            }
                            _ => (f.child_by_field_name("operand"), self.field(f, "field")),
                        };
                        let typed =
                            obj.zip(method)
                                .and_then(|(o, m)| match self.receiver(o, stack) {
                                    Receiver::Type(t) => Some(format!("{t}.{m}")),
                                    Receiver::SelfType => Some(format!("self.{m}")),
                                    // `store.New(p).Get(id)`: a chain the resolver follows.
                                    Receiver::ReturnOf(e) => Some(format!("{e}().{m}")),
                                    _ => None,
                                });
                        Some(Receiver::ReturnOf(
                            typed.unwrap_or_else(|| self.text(f).to_string()),
                        ))
                    }
                    // `require('./m')` is a module, not what a function returns: the name it
                    // binds is an import (`imports.rs`).
                    "identifier" if self.js() && self.text(f) == "require" => None,
                    "identifier" | "scoped_identifier" => {
                        Some(Receiver::ReturnOf(self.text(f).to_string()))
                    }
                    "field_expression" => {
                        // `x.unwrap()` / `Store::open(p)?` chains: the type of the base call.
                        let base = f.child_by_field_name("value")?;
                        let method = self.field(f, "field")?;
                        if matches!(method, "unwrap" | "expect" | "clone" | "to_owned") {
                            return self.value_type(base, stack);
                        }
                        // `self.embedder()?` / `store.open()`: what that method returns.
                        match self.receiver(base, stack) {
                            Receiver::SelfType => {
                                Some(Receiver::ReturnOf(format!("self.{method}")))
                            }
                            Receiver::Type(t) => Some(Receiver::ReturnOf(format!("{t}.{method}"))),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            // `app = self.application`: a field's type.
            "attribute" | "member_expression" | "field_expression" | "selector_expression" => {
                match self.receiver(v, stack) {
                    Receiver::Unknown | Receiver::Path(_) => None,
                    r => Some(r),
                }
            }
            "identifier" => {
                let t = self.text(v);
                self.lookup(t, stack).or_else(|| {
                    // A Rust unit struct used as a value: `let hex = Hex;`.
                    (self.lang == Language::Rust && t.starts_with(|c: char| c.is_ascii_uppercase()))
                        .then(|| Receiver::Type(t.to_string()))
                })
            }
            _ => None,
        }
    }

    /// `name` used at `at` is an untyped parameter of a JavaScript/TypeScript function
    /// that is passed straight to a call (`operate((source, subscriber) => {…})`,
    /// `app.use((c, next) => …)`): the callee's signature says what it is.
    fn callback_param(&self, at: Node, name: &str) -> Option<Receiver> {
        if !matches!(
            self.lang,
            Language::JavaScript | Language::TypeScript | Language::Tsx
        ) {
            return None;
        }
        let mut n = at.parent();
        while let Some(f) = n {
            if matches!(
                f.kind(),
                "arrow_function" | "function_expression" | "function"
            ) {
                let params: Vec<Node> = match f.child_by_field_name("parameters") {
                    Some(list) => lang::named_children(list),
                    // `x => …`: one parameter, no parentheses.
                    None => f.child_by_field_name("parameter").into_iter().collect(),
                };
                let param = params.iter().position(|p| {
                    let pattern = p.child_by_field_name("pattern").unwrap_or(*p);
                    self.text(pattern) == name
                });
                if let Some(param) = param {
                    // Typed where it is declared (`(subscriber: Subscriber<T>) => …`).
                    if let Some(t) = params[param].child_by_field_name("type") {
                        let written = self.text(t).trim_start_matches(':').trim();
                        return type_name(written).map(Receiver::Type);
                    }
                    if let Some(fn_type) = self.given_type(f) {
                        return Some(Receiver::Param { fn_type, param });
                    }
                    let args = f.parent().filter(|a| a.kind() == "arguments")?;
                    let call = args
                        .parent()
                        .filter(|c| matches!(c.kind(), "call_expression" | "new_expression"))?;
                    // `new Observable((subscriber) => …)`: the constructor's signature.
                    let callee = call
                        .child_by_field_name("function")
                        .or_else(|| call.child_by_field_name("constructor"))?;
                    if !matches!(callee.kind(), "identifier" | "member_expression") {
                        return None;
                    }
                    let arg = lang::named_children(args)
                        .iter()
                        .position(|a| a.id() == f.id())?;
                    return Some(Receiver::Callback {
                        call: self.text(callee).split_whitespace().collect(),
                        arg,
                        param,
                    });
                }
            }
            n = f.parent();
        }
        None
    }

    /// The function type written where function `f` is given, when it is not passed to
    /// a call: the declared return type of the function that returns it (`return async
    /// function (c, next) {…}`, or an arrow's body), or the annotation of the name it is
    /// assigned to (`const h: Handler = (c) => …`).
    fn given_type(&self, f: Node) -> Option<String> {
        let p = f.parent()?;
        let written = match p.kind() {
            "variable_declarator" if p.child_by_field_name("value") == Some(f) => {
                p.child_by_field_name("type")?
            }
            "arrow_function" if p.child_by_field_name("body") == Some(f) => {
                p.child_by_field_name("return_type")?
            }
            "return_statement" => {
                let mut n = p.parent();
                let outer = loop {
                    let a = n?;
                    if matches!(
                        a.kind(),
                        "arrow_function"
                            | "function_expression"
                            | "function"
                            | "function_declaration"
                            | "method_definition"
                    ) {
                        break a;
                    }
                    n = a.parent();
                };
                outer.child_by_field_name("return_type")?
            }
            _ => return None,
        };
        let t = self.text(written).trim_start_matches(':').trim();
        (!t.is_empty()).then(|| t.to_string())
    }

    /// The receiver of `obj.method()`.
    pub(super) fn receiver(&self, obj: Node, stack: &[Frame]) -> Receiver {
        let t = self.text(obj);
        match obj.kind() {
            "self" | "this" | "this_expression" | "self_expression" => Receiver::SelfType,
            "identifier" | "simple_identifier" | "variable_name" | "name"
                if matches!(t, "self" | "this" | "$this") =>
            {
                Receiver::SelfType
            }
            "identifier" | "type_identifier" | "package_identifier" | "simple_identifier"
            | "constant" | "name" => self
                .lookup(t, stack)
                .or_else(|| self.implicit_field(t, stack))
                .or_else(|| self.callback_param(obj, t))
                .unwrap_or_else(|| Receiver::Path(t.to_string())),
            "scoped_identifier" | "qualified_identifier" | "dotted_name" => {
                if t == "Self" {
                    Receiver::SelfType
                } else {
                    Receiver::Path(t.to_string())
                }
            }
            // `self.store.get()`: the field's type.
            "attribute"
            | "member_expression"
            | "field_expression"
            | "selector_expression"
            | "field_access" => {
                let (base, field) = match obj.kind() {
                    "attribute" => (
                        obj.child_by_field_name("object"),
                        self.field(obj, "attribute"),
                    ),
                    "member_expression" => (
                        obj.child_by_field_name("object"),
                        self.field(obj, "property"),
                    ),
                    "field_expression" => (
                        obj.child_by_field_name("value")
                            .or_else(|| obj.child_by_field_name("argument")),
                        self.field(obj, "field"),
                    ),
                    "field_access" => (obj.child_by_field_name("object"), self.field(obj, "field")),
                    _ => (obj.child_by_field_name("operand"), self.field(obj, "field")),
                };
                let (Some(base), Some(field)) = (base, field) else {
                    return Receiver::Unknown;
                };
                let base = self.receiver(base, stack);
                let owner = match &base {
                    Receiver::SelfType => stack.iter().rev().find_map(|f| f.self_type.clone()),
                    Receiver::Type(t) => Some(t.clone()),
                    // `pkg.sub.f()`: a dotted module path.
                    Receiver::Path(p)
                        if matches!(
                            obj.kind(),
                            "attribute" | "member_expression" | "selector_expression"
                        ) =>
                    {
                        return Receiver::Path(format!("{p}.{field}"));
                    }
                    _ => None,
                };
                let local = owner.and_then(|o| self.fields.get(&o).and_then(|m| m.get(field)));
                match (local, base) {
                    (Some(r), _) => r.clone(),
                    // Declared in another file or a base class: the resolver looks.
                    (None, b) if b.is_value() => Receiver::Field(Box::new(b), field.to_string()),
                    _ => Receiver::Unknown,
                }
            }
            // `transition!.beforeEnter(el)`: the value, asserted not null.
            "non_null_expression" => obj
                .named_child(0)
                .map_or(Receiver::Unknown, |v| self.receiver(v, stack)),
            "call"
            | "call_expression"
            | "new_expression"
            | "parenthesized_expression"
            | "try_expression"
            | "await_expression"
            | "await" => self.value_type(obj, stack).unwrap_or(Receiver::Unknown),
            _ => Receiver::Unknown,
        }
    }
}
