//! The types of local names: parameters (and the Go receiver), `let`/assignments, loop
//! variables, and what a function returns when its signature does not say.

use super::{Extractor, Frame, is_callable};
use crate::lang::named_children;
use lore_core::{Language, Receiver, fixture_name, type_name};
use tree_sitter::Node;

/// The function node of a unit's declaration: through `export`, decorators and
/// `const f = () => …`.
fn function_node(node: Node, depth: usize) -> Option<Node> {
    if depth > 4 {
        return None;
    }
    match node.kind() {
        "export_statement" => function_node(node.child_by_field_name("declaration")?, depth + 1),
        "decorated_definition" => function_node(node.child_by_field_name("definition")?, depth + 1),
        "lexical_declaration" | "variable_declaration" => named_children(node)
            .into_iter()
            .find(|c| c.kind() == "variable_declarator")?
            .child_by_field_name("value"),
        _ => Some(node),
    }
}

impl<'a> Extractor<'_, 'a> {
    /// Types of a function's parameters (and the Go receiver); a Python parameter
    /// without one is `Path(name)`: a name the resolver may type (a pytest fixture), and
    /// one that hides module-level names.
    pub(super) fn params(&self, node: Node, frame: &mut Frame) {
        for name in self.untyped_params(node) {
            frame.env.insert(name.clone(), Receiver::Path(name));
        }
        for (name, ty, receiver) in self.typed_params(node) {
            if receiver {
                frame.env.insert(name.to_string(), Receiver::SelfType);
                frame.self_type = Some(ty);
            } else {
                frame.env.insert(name.to_string(), Receiver::Type(ty));
            }
        }
    }

    /// (name, type, is the Go receiver) of a function's parameters with a declared type.
    fn typed_params(&self, node: Node) -> Vec<(&'a str, String, bool)> {
        let mut out = Vec::new();
        let Some(fnode) = function_node(node, 0) else {
            return out;
        };
        for f in ["parameters", "receiver"] {
            let Some(list) = fnode.child_by_field_name(f) else {
                continue;
            };
            for p in named_children(list) {
                let (names, ty): (Vec<&str>, Option<&str>) = match p.kind() {
                    "typed_parameter" => (
                        p.named_child(0).map(|n| self.text(n)).into_iter().collect(),
                        self.field(p, "type"),
                    ),
                    "typed_default_parameter" | "formal_parameter" => (
                        self.field(p, "name").into_iter().collect(),
                        self.field(p, "type"),
                    ),
                    "required_parameter" | "optional_parameter" => (
                        self.field(p, "pattern").into_iter().collect(),
                        self.field(p, "type").map(|t| t.trim_start_matches(':')),
                    ),
                    "parameter" => (
                        self.field(p, "pattern").into_iter().collect(),
                        self.field(p, "type"),
                    ),
                    "parameter_declaration" => {
                        let mut cur = p.walk();
                        let names = p
                            .children_by_field_name("name", &mut cur)
                            .map(|n| self.text(n))
                            .collect();
                        (names, self.field(p, "type"))
                    }
                    _ => continue,
                };
                let Some(ty) = ty.and_then(type_name) else {
                    continue;
                };
                for n in names {
                    out.push((
                        n.trim_start_matches("mut ").trim(),
                        ty.clone(),
                        f == "receiver",
                    ));
                }
            }
        }
        out
    }

    /// Names of a Python function's parameters without a declared type, `self` and
    /// `cls` left out.
    pub(super) fn untyped_params(&self, node: Node) -> Vec<String> {
        if self.lang != Language::Python {
            return Vec::new();
        }
        let Some(list) = function_node(node, 0).and_then(|f| f.child_by_field_name("parameters"))
        else {
            return Vec::new();
        };
        named_children(list)
            .into_iter()
            .filter_map(|p| match p.kind() {
                "identifier" => Some(self.text(p)),
                "default_parameter" => self.field(p, "name"),
                _ => None,
            })
            .filter(|n| !matches!(*n, "self" | "cls"))
            .map(String::from)
            .collect()
    }

    /// The declared type of parameter `name` of the function around `node`.
    pub(super) fn enclosing_param(&self, node: Node, name: &str) -> Option<Receiver> {
        let f = std::iter::successors(node.parent(), |n| n.parent()).find(|n| {
            matches!(
                n.kind(),
                "function_definition" | "method_definition" | "function_declaration"
            )
        })?;
        self.typed_params(f)
            .into_iter()
            .find(|(n, _, receiver)| *n == name && !receiver)
            .map(|(_, ty, _)| Receiver::Type(ty))
    }

    /// `for x in xs`: `x` is of `xs`'s element type (collections unwrap in `type_name`).
    pub(super) fn bind_loop(&mut self, node: Node, stack: &mut [Frame]) {
        let (var, iter) = match node.kind() {
            "for_statement" | "for_in_statement" => (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ),
            "range_clause" => (
                node.child_by_field_name("left")
                    .and_then(|l| l.named_child(l.named_child_count().saturating_sub(1) as u32)),
                node.child_by_field_name("right"),
            ),
            "for_expression" => (
                node.child_by_field_name("pattern"),
                node.child_by_field_name("value"),
            ),
            "enhanced_for_statement" => {
                let (Some(name), Some(ty)) =
                    (node.child_by_field_name("name"), self.field(node, "type"))
                else {
                    return;
                };
                if let Some(t) = type_name(ty) {
                    self.set_local(self.text(name).to_string(), Receiver::Type(t), stack);
                }
                return;
            }
            _ => return,
        };
        let (Some(var), Some(iter)) = (var, iter) else {
            return;
        };
        if var.kind() != "identifier" {
            self.hide_names(var, stack);
            return;
        }
        let ty = match iter.kind() {
            // `for x in self.items` / `this.items`: a field's declared type.
            "attribute" | "member_expression" | "field_expression" | "selector_expression" => {
                match self.receiver(iter, stack) {
                    Receiver::Unknown | Receiver::Path(_) => None,
                    r => Some(r),
                }
            }
            _ => self
                .value_type(iter, stack)
                .filter(|r| !matches!(r, Receiver::Path(_))),
        };
        match ty {
            Some(t) => self.set_local(self.text(var).to_string(), t, stack),
            None if self.lang == Language::Python => {
                self.set_local(self.text(var).to_string(), Receiver::Unknown, stack)
            }
            None => {}
        }
    }

    fn set_local(&mut self, var: String, ty: Receiver, stack: &mut [Frame]) {
        match stack.last_mut() {
            Some(f) => {
                f.env.insert(var, ty);
            }
            None => {
                self.module_env.insert(var, ty);
            }
        }
    }

    /// Whether the innermost function is a pytest fixture (what it yields is its value).
    pub(super) fn in_fixture(&self, stack: &[Frame]) -> bool {
        stack
            .iter()
            .rev()
            .find(|f| is_callable(f.kind))
            .and_then(|f| f.symbol)
            .is_some_and(|i| {
                let s = &self.out.symbols[i];
                s.decorators
                    .iter()
                    .any(|d| fixture_name(d, &s.name).is_some())
            })
    }

    /// `with open_thing() as x`: `x` is what the context manager's `__enter__` returns.
    pub(super) fn bind_with(&mut self, node: Node, stack: &mut [Frame]) {
        let Some(pattern) = node.child_by_field_name("value") else {
            return;
        };
        if pattern.kind() != "as_pattern" {
            return;
        }
        let (Some(value), Some(alias)) = (
            pattern.named_child(0),
            pattern
                .child_by_field_name("alias")
                .and_then(|a| a.named_child(0).or(Some(a))),
        ) else {
            return;
        };
        if alias.kind() != "identifier" {
            return;
        }
        let enter = match self.value_type(value, stack) {
            Some(Receiver::Type(t)) => format!("{t}.__enter__"),
            Some(Receiver::ReturnOf(e)) => format!("{e}().__enter__"),
            Some(Receiver::SelfType) => "self.__enter__".to_string(),
            _ => return,
        };
        self.set_local(
            self.text(alias).to_string(),
            Receiver::ReturnOf(enter),
            stack,
        );
    }

    /// `return x` in a function whose signature gives no type: remember what `x` is.
    pub(super) fn returns(&mut self, node: Node, stack: &[Frame]) {
        let Some(frame) = stack.iter().rev().find(|f| is_callable(f.kind)) else {
            return;
        };
        let Some(i) = frame.symbol else { return };
        if self.out.symbols[i].returns.is_some() {
            return;
        }
        let Some(mut value) = node.named_child(0) else {
            return;
        };
        if value.kind() == "expression_list" {
            match value.named_child(0) {
                Some(v) => value = v,
                None => return,
            }
        }
        let mut ty = self.value_type(value, stack);
        // `return app` with `app` bound nowhere in the function: a module-level or
        // imported name the resolver may know.
        if ty.is_none() && self.lang == Language::Python && value.kind() == "identifier" {
            let name = self.text(value);
            if self.lookup(name, stack).is_none() {
                ty = Some(Receiver::Path(name.to_string()));
            }
        }
        self.out.symbols[i].returns = ty;
    }

    /// Records the type of a local from its declaration or assignment.
    pub(super) fn bind(&mut self, node: Node, stack: &mut [Frame]) {
        let pairs: Vec<(Node, Option<Node>, Option<Node>)> = match node.kind() {
            "assignment" => vec![(
                match node.child_by_field_name("left") {
                    Some(l) => l,
                    None => return,
                },
                node.child_by_field_name("type"),
                node.child_by_field_name("right"),
            )],
            "variable_declarator" => match node.child_by_field_name("name") {
                Some(n) => vec![(
                    n,
                    node.child_by_field_name("type"),
                    node.child_by_field_name("value"),
                )],
                None => return,
            },
            "let_declaration" => match node.child_by_field_name("pattern") {
                Some(n) => vec![(
                    n,
                    node.child_by_field_name("type"),
                    node.child_by_field_name("value"),
                )],
                None => return,
            },
            "var_spec" => match node.child_by_field_name("name") {
                Some(n) => vec![(
                    n,
                    node.child_by_field_name("type"),
                    node.child_by_field_name("value")
                        .and_then(|v| v.named_child(0)),
                )],
                None => return,
            },
            "short_var_declaration" => {
                let (Some(l), Some(r)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) else {
                    return;
                };
                match (l.named_child(0), r.named_child(0)) {
                    (Some(n), v) => vec![(n, None, v)],
                    _ => return,
                }
            }
            "local_variable_declaration" => {
                let ty = node.child_by_field_name("type");
                let mut cur = node.walk();
                node.children_by_field_name("declarator", &mut cur)
                    .filter_map(|d| d.child_by_field_name("name").map(|n| (n, ty, None)))
                    .collect()
            }
            _ => return,
        };
        for (name, ty, value) in pairs {
            if !matches!(name.kind(), "identifier") {
                self.hide_names(name, stack);
                if name.kind() == "object_pattern"
                    && let Some(v) = value
                {
                    self.type_parts(name, v, stack);
                }
                continue;
            }
            let var = self.text(name).to_string();
            let known = ty
                .and_then(|t| type_name(self.text(t).trim_start_matches(':')))
                .map(Receiver::Type)
                .or_else(|| value.and_then(|v| self.value_type(v, stack)));
            match known {
                Some(r) => self.set_local(var, r, stack),
                // A Python name bound to something unknown hides outer and module names.
                None if self.lang == Language::Python => {
                    self.set_local(var, Receiver::Unknown, stack)
                }
                None => {}
            }
        }
    }

    /// `a, b = …` / `for a, b in …` (Python): the names bound are of unknown type, and
    /// hide outer and module-level names. `const [count, setCount] = …` and `const { a, b:
    /// c } = …` (JavaScript, TypeScript): a call of a name bound so calls that value.
    fn hide_names(&mut self, pattern: Node, stack: &mut [Frame]) {
        if self.js() {
            return self.take_apart(pattern, stack);
        }
        if self.lang != Language::Python
            || !matches!(
                pattern.kind(),
                "pattern_list" | "tuple_pattern" | "list_pattern" | "expression_list" | "tuple"
            )
        {
            return;
        }
        for c in named_children(pattern) {
            match c.kind() {
                "identifier" => self.set_local(self.text(c).to_string(), Receiver::Unknown, stack),
                _ => self.hide_names(c, stack),
            }
        }
    }

    /// The names a JavaScript destructuring pattern binds, kept in the innermost frame.
    fn take_apart(&mut self, pattern: Node, stack: &mut [Frame]) {
        let Some(frame) = stack.last_mut() else {
            return;
        };
        let mut todo = vec![pattern];
        while let Some(p) = todo.pop() {
            match p.kind() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    frame.parts.insert(self.text(p).to_string());
                }
                // `{ a: c }` binds `c`; `{ x = 1 }` and `[y = 2]` bind `x` and `y`.
                "pair_pattern" => todo.extend(p.child_by_field_name("value")),
                "assignment_pattern" | "object_assignment_pattern" => {
                    todo.extend(p.child_by_field_name("left"))
                }
                "array_pattern" | "object_pattern" | "rest_pattern" => {
                    todo.extend(named_children(p))
                }
                _ => {}
            }
        }
    }

    /// `const { transition, props: p } = vnode` with `vnode` of a known type: each name is
    /// that value's field (`transition.beforeEnter()` is `TransitionHooks`'s when the type
    /// says so).
    fn type_parts(&mut self, pattern: Node, value: Node, stack: &mut [Frame]) {
        let source = self.receiver(value, stack);
        if !source.is_value() {
            return;
        }
        for p in named_children(pattern) {
            let (key, var) = match p.kind() {
                "shorthand_property_identifier_pattern" => (self.text(p), self.text(p)),
                "pair_pattern" => {
                    match (p.child_by_field_name("key"), p.child_by_field_name("value")) {
                        (Some(k), Some(v)) if v.kind() == "identifier" => {
                            (self.text(k), self.text(v))
                        }
                        _ => continue,
                    }
                }
                _ => continue,
            };
            let field = Receiver::Field(Box::new(source.clone()), key.to_string());
            self.set_local(var.to_string(), field, stack);
        }
    }

    /// Whether `var` was bound by taking a value apart in a function around here: a call
    /// of it calls that value, not a module-level or imported function of the name.
    pub(super) fn taken_apart(&self, var: &str, stack: &[Frame]) -> bool {
        stack.iter().any(|f| f.parts.contains(var))
    }

    pub(super) fn lookup(&self, var: &str, stack: &[Frame]) -> Option<Receiver> {
        stack
            .iter()
            .rev()
            .find_map(|f| f.env.get(var).cloned())
            .or_else(|| self.module_env.get(var).cloned())
    }
}
