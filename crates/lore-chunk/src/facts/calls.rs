//! Call references: calls, constructor calls, decorators and calls inside Rust macros,
//! each with its caller and receiver.

use super::{Extractor, Frame};
use crate::lang::{self, named_children};
use lore_core::{Language, Receiver, RefKind, Reference, type_name};
use tree_sitter::Node;

impl<'a> Extractor<'_, 'a> {
    /// The qualified name calls at `node` are attributed to: the innermost frame whose
    /// declaration proper contains it (decorators belong to the scope around).
    pub(super) fn caller(&self, node: Node, stack: &[Frame]) -> Option<String> {
        stack
            .iter()
            .rev()
            .find(|f| node.start_byte() >= f.sig_start)
            .map(|f| f.qualified.clone())
    }

    fn push_call(&mut self, node: Node, name: &str, receiver: Receiver, stack: &[Frame]) {
        let name = name.trim();
        // JavaScript's private names keep their `#` (`this.#dispatch()`): it is part of the
        // name the method is declared with.
        let bare = match name.strip_prefix('#') {
            Some(rest) if self.js() => rest,
            _ => name,
        };
        if bare.is_empty()
            || !bare
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        {
            return;
        }
        self.out.refs.push(Reference {
            kind: RefKind::Calls,
            caller: self.caller(node, stack),
            name: name.to_string(),
            receiver,
            line: self.line(node),
        });
    }

    pub(super) fn reference(&mut self, node: Node, stack: &[Frame]) {
        match node.kind() {
            "call" | "call_expression" => {
                self.value_uses(node, stack);
                if let Some(f) = node.child_by_field_name("function") {
                    self.callee(node, f, stack);
                } else if let Some(m) = node.child_by_field_name("method") {
                    // Ruby: `recv.m(…)`, `m(…)` (on self).
                    let r = match node.child_by_field_name("receiver") {
                        Some(o) => self.receiver(o, stack),
                        None => Receiver::None,
                    };
                    self.push_call(node, self.text(m), r, stack);
                } else if let Some(f) = node.named_child(0) {
                    // Kotlin and Swift: the callee is the first child.
                    self.callee(node, f, stack);
                }
            }
            // C#: `f(…)`, `obj.M(…)`.
            "invocation_expression" => {
                self.value_uses(node, stack);
                if let Some(f) = node.child_by_field_name("function") {
                    self.callee(node, f, stack);
                }
            }
            // PHP: `f(…)`, `$obj->m(…)`, `Cls::m(…)` (`self::`, `static::` on this class,
            // `parent::` on its base).
            "function_call_expression"
            | "member_call_expression"
            | "scoped_call_expression"
            | "nullsafe_member_call_expression" => {
                self.value_uses(node, stack);
                let Some(name) = node
                    .child_by_field_name("name")
                    .or_else(|| node.child_by_field_name("function"))
                else {
                    return;
                };
                let r = match (
                    node.child_by_field_name("object"),
                    node.child_by_field_name("scope"),
                ) {
                    (Some(o), _) => self.receiver(o, stack),
                    (_, Some(s)) => match self.text(s) {
                        "self" | "static" => Receiver::SelfType,
                        "parent" => self
                            .base_of(stack)
                            .map(Receiver::Type)
                            .unwrap_or(Receiver::Unknown),
                        p => Receiver::Path(p.to_string()),
                    },
                    _ => Receiver::None,
                };
                let name = self.text(name);
                self.push_call(node, name.rsplit('\\').next().unwrap_or(name), r, stack);
            }
            // Lua: `f(…)`, `t.f(…)`, `obj:m(…)`.
            "function_call" => {
                self.value_uses(node, stack);
                let Some(f) = node.child_by_field_name("name") else {
                    return;
                };
                match f.kind() {
                    "identifier" => self.push_call(node, self.text(f), Receiver::None, stack),
                    "dot_index_expression" | "method_index_expression" => {
                        let (Some(t), Some(m)) = (
                            f.child_by_field_name("table"),
                            f.child_by_field_name("field")
                                .or_else(|| f.child_by_field_name("method")),
                        ) else {
                            return;
                        };
                        let r = self.receiver(t, stack);
                        self.push_call(node, self.text(m), r, stack);
                    }
                    _ => {}
                }
            }
            // A shell command: a call of the function of that name, if the store has one.
            "command" if self.lang == Language::Bash => {
                if let Some(n) = node.child_by_field_name("name") {
                    self.push_call(node, self.text(n), Receiver::None, stack);
                }
            }
            "new_expression" | "object_creation_expression" => {
                self.value_uses(node, stack);
                // PHP's `new Cart()` names the class by its first child.
                let Some(c) = node
                    .child_by_field_name("constructor")
                    .or_else(|| node.child_by_field_name("type"))
                    .or_else(|| {
                        node.named_child(0)
                            .filter(|n| matches!(n.kind(), "name" | "qualified_name"))
                    })
                else {
                    return;
                };
                match c.kind() {
                    "member_expression" | "scoped_type_identifier" => {
                        let (obj, prop) = match c.kind() {
                            "member_expression" => (
                                c.child_by_field_name("object"),
                                c.child_by_field_name("property"),
                            ),
                            _ => (
                                c.named_child(0),
                                c.named_child(c.named_child_count().saturating_sub(1) as u32),
                            ),
                        };
                        if let (Some(o), Some(p)) = (obj, prop) {
                            let r = Receiver::Path(self.text(o).to_string());
                            self.push_call(node, self.text(p), r, stack);
                        }
                    }
                    _ => {
                        if let Some(t) = type_name(self.text(c)) {
                            self.push_call(node, &t, Receiver::None, stack);
                        }
                    }
                }
            }
            "method_invocation" => {
                self.value_uses(node, stack);
                let Some(name) = self.field(node, "name") else {
                    return;
                };
                let r = match node.child_by_field_name("object") {
                    Some(o) => self.receiver(o, stack),
                    None => Receiver::None,
                };
                self.push_call(node, name, r, stack);
            }
            "decorator" => {
                if let Some(e) = node.named_child(0)
                    && matches!(e.kind(), "identifier" | "attribute")
                {
                    self.callee(node, e, stack);
                }
            }
            "macro_invocation" => {
                for c in named_children(node) {
                    if c.kind() == "token_tree" {
                        self.token_tree_calls(c, stack, 0);
                    }
                }
            }
            _ => {}
        }
    }

    /// A call's function expression: a bare name, `obj.m`, `path::f`, `pkg.F`.
    fn callee(&mut self, call: Node, f: Node, stack: &[Frame]) {
        match f.kind() {
            // Swift's and PHP's bare names.
            "simple_identifier" | "name" => {
                self.push_call(call, self.text(f), Receiver::None, stack);
            }
            // C#: `obj.M`, `Type.M`.
            "member_access_expression" => {
                let (Some(obj), Some(name)) = (
                    f.child_by_field_name("expression"),
                    f.child_by_field_name("name"),
                ) else {
                    return;
                };
                let name = self.text(name);
                let name = name.split('<').next().unwrap_or(name);
                let r = self.receiver(obj, stack);
                self.push_call(call, name, r, stack);
            }
            // Kotlin (`obj.m`: the last child names it) and Swift (`target`, `suffix`).
            "navigation_expression" => {
                let (obj, name) = match f.child_by_field_name("target") {
                    Some(t) => (
                        Some(t),
                        f.child_by_field_name("suffix")
                            .and_then(|s| s.child_by_field_name("suffix")),
                    ),
                    None => (
                        f.named_child(0),
                        f.named_child(f.named_child_count().saturating_sub(1) as u32),
                    ),
                };
                let (Some(obj), Some(name)) = (obj, name) else {
                    return;
                };
                let r = self.receiver(obj, stack);
                self.push_call(call, self.text(name), r, stack);
            }
            "identifier" => {
                let name = self.text(f);
                if self.lang == Language::Python && name == "super" {
                    return;
                }
                // A local value of the name (`const [count, setCount] = useState(0)`), or
                // in JavaScript a parameter or a local that shadows an import (`function
                // f(parse) { parse(x) }`, `const parse = table[k]`), is what is called:
                // none of the project's functions.
                let r = if self.taken_apart(name, stack) || (self.js() && self.bound_around(name)) {
                    Receiver::Unknown
                } else {
                    Receiver::None
                };
                self.push_call(call, name, r, stack);
            }
            "attribute" | "member_expression" | "field_expression" | "selector_expression" => {
                let (obj, name) = match f.kind() {
                    "attribute" => (f.child_by_field_name("object"), self.field(f, "attribute")),
                    "member_expression" => {
                        (f.child_by_field_name("object"), self.field(f, "property"))
                    }
                    "field_expression" => (
                        f.child_by_field_name("value")
                            .or_else(|| f.child_by_field_name("argument")),
                        self.field(f, "field"),
                    ),
                    _ => (f.child_by_field_name("operand"), self.field(f, "field")),
                };
                let (Some(obj), Some(name)) = (obj, name) else {
                    return;
                };
                // `super().__init__()` / `super.m()`: the base class's method.
                let r = if self.text(obj) == "super()" || obj.kind() == "super" {
                    self.base_of(stack)
                        .map(Receiver::Type)
                        .unwrap_or(Receiver::Unknown)
                } else {
                    self.receiver(obj, stack)
                };
                self.push_call(call, name, r, stack);
            }
            "scoped_identifier" | "qualified_identifier" => {
                let path = f
                    .child_by_field_name("path")
                    .or_else(|| f.child_by_field_name("scope"));
                let Some(name) = self.field(f, "name") else {
                    return;
                };
                let r = match path.map(|p| self.text(p)) {
                    Some("Self") => Receiver::SelfType,
                    Some(p) => Receiver::Path(p.to_string()),
                    None => Receiver::None,
                };
                self.push_call(call, name, r, stack);
            }
            // `super(…)` in a constructor: the base class.
            "super" => {
                if let Some(base) = self.base_of(stack) {
                    self.push_call(call, &base, Receiver::None, stack);
                }
            }
            "generic_function" | "template_function" => {
                if let Some(inner) = f
                    .child_by_field_name("function")
                    .or_else(|| f.child_by_field_name("name"))
                {
                    self.callee(call, inner, stack);
                }
            }
            _ => {}
        }
    }

    /// The base class of the innermost enclosing class.
    fn base_of(&self, stack: &[Frame]) -> Option<String> {
        stack
            .iter()
            .rev()
            .find(|f| f.kind.is_type())
            .and_then(|f| f.base.clone())
    }

    /// Calls written inside a Rust macro's tokens: `name(…)`, `x.name(…)`, `a::b(…)`.
    fn token_tree_calls(&mut self, tt: Node, stack: &[Frame], depth: usize) {
        if depth > 16 {
            return;
        }
        let kids = lang::children(tt);
        for (i, c) in kids.iter().enumerate() {
            if c.kind() == "token_tree" {
                self.token_tree_calls(*c, stack, depth + 1);
                continue;
            }
            if c.kind() != "identifier" {
                continue;
            }
            let opens_call = kids
                .get(i + 1)
                .is_some_and(|n| n.kind() == "token_tree" && self.text(*n).starts_with('('));
            if !opens_call {
                continue;
            }
            let name = self.text(*c);
            let prev = |k: usize| {
                i.checked_sub(k)
                    .and_then(|j| kids.get(j))
                    .map(|n| (n.kind(), self.text(*n)))
            };
            let receiver = match (prev(1), prev(2)) {
                (Some((_, ".")), Some(("self", _))) => Receiver::SelfType,
                (Some((_, ".")), Some(("identifier", v))) => self
                    .lookup(v, stack)
                    .unwrap_or_else(|| Receiver::Path(v.to_string())),
                (Some((_, ".")), _) => Receiver::Unknown,
                (Some((_, "::")), Some((_, "Self"))) => Receiver::SelfType,
                (Some((_, "::")), Some((_, p))) => Receiver::Path(p.to_string()),
                _ => Receiver::None,
            };
            self.push_call(*c, name, receiver, stack);
        }
    }
}
