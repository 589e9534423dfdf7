//! Functions passed as values: `xs.map(parse)`, `router.get('/', handler)`,
//! `Thread(target=self.run)`, `.and_then(Self::decode)`. Each is a `uses` reference; a
//! name the code around binds itself (a parameter, a local, a loop or match variable) is
//! that value, not a function, and is left out.

use super::{Extractor, Frame};
use crate::lang::named_children;
use lore_core::{Language, Receiver, RefKind, Reference};
use std::collections::HashSet;
use tree_sitter::Node;

/// Nodes that open a scope of their own: functions of every kind, named or not.
pub(super) fn opens_scope(kind: &str) -> bool {
    matches!(
        kind,
        "function_definition"
            | "function_declaration"
            | "function_item"
            | "function_expression"
            | "function"
            | "generator_function"
            | "generator_function_declaration"
            | "arrow_function"
            | "method_definition"
            | "method_declaration"
            | "closure_expression"
            | "lambda"
            | "func_literal"
            | "constructor_declaration"
    )
}

/// Names that cannot be a project's function: the language's own values, constants
/// (`MAX_LEN`), and in Rust anything capitalised (a variant, a type, a constant).
fn never_a_function(name: &str, lang: Language) -> bool {
    let constant = name.len() > 1
        && name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    constant
        || (lang == Language::Rust && name.starts_with(|c: char| c.is_uppercase()))
        || matches!(
            name,
            "self"
                | "this"
                | "undefined"
                | "arguments"
                | "NaN"
                | "Infinity"
                | "cls"
                | "super"
                | "__dirname"
                | "__filename"
        )
}

impl<'a> Extractor<'_, 'a> {
    /// The `uses` references of a call's arguments.
    pub(super) fn value_uses(&mut self, call: Node, stack: &[Frame]) {
        // Java names a method as a value only as `Type::m`; a bare name is a variable.
        if self.lang == Language::Java {
            return;
        }
        let Some(args) = call.child_by_field_name("arguments") else {
            return;
        };
        for arg in named_children(args) {
            // Python's `view_func=index`.
            let arg = match arg.kind() {
                "keyword_argument" => match arg.child_by_field_name("value") {
                    Some(v) => v,
                    None => continue,
                },
                _ => arg,
            };
            if let Some((name, receiver)) = self
                .function_value(arg, stack)
                .filter(|(name, _)| !never_a_function(name, self.lang))
            {
                self.out.refs.push(Reference {
                    kind: RefKind::Uses,
                    caller: self.caller(arg, stack),
                    name: name.to_string(),
                    receiver,
                    line: self.line(arg),
                });
            }
        }
    }

    /// The name and receiver of an argument that may be a function given as a value.
    fn function_value(&self, arg: Node, stack: &[Frame]) -> Option<(&'a str, Receiver)> {
        match arg.kind() {
            "identifier" => {
                let name = self.text(arg);
                let taken = self.taken_apart(name, stack) || self.bound_around(name);
                (!taken).then_some((name, Receiver::None))
            }
            // `Self::decode`, `codec::decode` (Rust).
            "scoped_identifier" => {
                let name = self.field(arg, "name")?;
                let receiver = match self.field(arg, "path")? {
                    "Self" => Receiver::SelfType,
                    p => Receiver::Path(p.to_string()),
                };
                Some((name, receiver))
            }
            // `self.run` (Python), `this.handle` (JavaScript): a method of the class. Rust's
            // `self.x` is a field; a method is named through `Self::`.
            "attribute" | "member_expression" => {
                let (object, name) = match arg.kind() {
                    "attribute" => (arg.child_by_field_name("object")?, "attribute"),
                    _ => (arg.child_by_field_name("object")?, "property"),
                };
                let name = self.field(arg, name)?;
                matches!(self.text(object), "self" | "this").then_some((name, Receiver::SelfType))
            }
            // `pkg.Handler` (Go): a package's function.
            "selector_expression" if self.lang == Language::Go => {
                let operand = arg.child_by_field_name("operand")?;
                let name = self.field(arg, "field")?;
                if operand.kind() != "identifier" {
                    return None;
                }
                let p = self.text(operand);
                (!self.bound_around(p)).then(|| (name, Receiver::Path(p.to_string())))
            }
            _ => None,
        }
    }

    /// Whether a scope around the node walked binds `name` itself: a parameter of an
    /// enclosing function (named or not) or a name assigned, declared or matched in its
    /// body, or at the top level of the file.
    pub(super) fn bound_around(&self, name: &str) -> bool {
        self.scope_names.iter().any(|s| s.contains(name))
    }

    /// The names a scope binds: its parameters, and what its body (not the scopes inside)
    /// declares, assigns, loops over or matches.
    pub(super) fn names_bound_in(&self, scope: Node) -> HashSet<&'a str> {
        let mut names = HashSet::new();
        // C's parameters hang on the function's declarator.
        let declarator = scope.child_by_field_name("declarator");
        for (node, f) in [
            (Some(scope), "parameters"),
            (Some(scope), "parameter"),
            (Some(scope), "receiver"),
            (declarator, "parameters"),
        ] {
            if let Some(p) = node.and_then(|n| n.child_by_field_name(f)) {
                self.identifiers_in(p, &mut names);
            }
        }
        // One cursor for the whole walk: a cursor per node costs an allocation each.
        let mut cursor = scope.walk();
        let mut todo: Vec<Node> = scope.named_children(&mut cursor).collect();
        while let Some(n) = todo.pop() {
            if opens_scope(n.kind()) {
                continue;
            }
            let pattern = match n.kind() {
                // `const f = () => …` declares a function (the symbol, not a value), and
                // `const { f } = require('./m')` imports one.
                "variable_declarator" => n.child_by_field_name("name").filter(|_| {
                    !n.child_by_field_name("value")
                        .is_some_and(|v| opens_scope(v.kind()) || self.is_require(v))
                }),
                "let_declaration" | "let_condition" | "match_arm" | "for_expression" => {
                    n.child_by_field_name("pattern")
                }
                "assignment" | "assignment_expression" | "augmented_assignment" => n
                    .child_by_field_name("left")
                    .filter(|l| !matches!(l.kind(), "attribute" | "member_expression"))
                    .filter(|_| {
                        !n.child_by_field_name("right")
                            .is_some_and(|v| opens_scope(v.kind()))
                    }),
                "for_statement"
                | "for_in_statement"
                | "for_in_clause"
                | "range_clause"
                | "short_var_declaration" => n.child_by_field_name("left"),
                "var_spec" | "const_spec" | "named_expression" => n.child_by_field_name("name"),
                "catch_clause" => n.child_by_field_name("parameter"),
                // C: `int n = 0;` and `int n;`, not a prototype `int cmp(void *, void *);`.
                "init_declarator" => n.child_by_field_name("declarator"),
                "declaration" => n.child_by_field_name("declarator").filter(|d| {
                    matches!(
                        d.kind(),
                        "identifier" | "pointer_declarator" | "array_declarator"
                    )
                }),
                "as_pattern_target" => Some(n),
                _ => None,
            };
            if let Some(p) = pattern {
                self.identifiers_in(p, &mut names);
            }
            todo.extend(n.named_children(&mut cursor));
        }
        names
    }

    /// `require('./m')` or `require('./m').f`: a CommonJS import.
    fn is_require(&self, value: Node) -> bool {
        let call = match value.kind() {
            "member_expression" => value.child_by_field_name("object"),
            _ => Some(value),
        };
        call.filter(|c| c.kind() == "call_expression")
            .and_then(|c| c.child_by_field_name("function"))
            .is_some_and(|f| self.text(f) == "require")
    }

    /// Every plain name written in a pattern or parameter list.
    fn identifiers_in(&self, node: Node, out: &mut HashSet<&'a str>) {
        let mut todo = vec![node];
        while let Some(n) = todo.pop() {
            match n.kind() {
                "identifier"
                | "shorthand_property_identifier_pattern"
                | "shorthand_field_identifier" => {
                    out.insert(self.text(n));
                }
                _ => todo.extend(named_children(n)),
            }
        }
    }
}
