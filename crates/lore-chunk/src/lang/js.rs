//! JavaScript and TypeScript units: functions, classes, interfaces, type aliases, enums,
//! namespaces, and `const f = () => …` / `x.f = function …` declarations.

use super::{LangRules, Scope, UnitInfo, children, collapse_ws, named_children};
use lore_core::ChunkKind;
use tree_sitter::Node;

impl LangRules<'_, '_> {
    fn js_function_value(kind: &str) -> bool {
        matches!(
            kind,
            "arrow_function"
                | "function_expression"
                | "function"
                | "generator_function"
                | "generator_function_declaration"
        )
    }

    /// A value made by `new` or by calling a function (not `require`, an import).
    fn js_made(&self, value: Node) -> bool {
        match value.kind() {
            "new_expression" => true,
            "call_expression" => value
                .child_by_field_name("function")
                .is_some_and(|f| self.text(f) != "require" && f.kind() != "import"),
            _ => false,
        }
    }

    /// A unit whose declaration is `node` but whose body lives in a function/class value.
    fn js_valued<'t>(
        &self,
        node: Node<'t>,
        value: Node<'t>,
        name: Option<String>,
        scope: Scope,
    ) -> Option<UnitInfo<'t>> {
        let (kind, body, member_scope) = if Self::js_function_value(value.kind()) {
            (
                Self::fn_kind(scope),
                value.child_by_field_name("body"),
                Scope::Function,
            )
        } else if value.kind() == "class" {
            (
                ChunkKind::Class,
                value.child_by_field_name("body"),
                Scope::Type,
            )
        } else {
            return None;
        };
        let mut u = self.base(kind, node, name, body, member_scope);
        if let Some(b) = body
            && self.src.bytes.get(b.start_byte()) != Some(&b'{')
        {
            // Expression-bodied arrow function: no members to split into.
            u.body = None;
        }
        Some(u)
    }

    /// `target = function …` / `target = class …`. A member of an object (`app.set = …`,
    /// `View.prototype.lookup = …`) is a method named for its property, whose parent is the
    /// object, so `this.get()` inside it finds `app.get`; a CommonJS export (`exports.f =
    /// …`, `module.exports.f = …`) is a function of the module named `f`.
    fn js_assigned<'t>(
        &self,
        node: Node<'t>,
        target: &str,
        value: Node<'t>,
        scope: Scope,
    ) -> Option<UnitInfo<'t>> {
        let member = target
            .rsplit_once('.')
            .filter(|(object, prop)| {
                !object.is_empty()
                    && !prop.is_empty()
                    && !object.contains(['[', '(', ' '])
                    && prop
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
            })
            .filter(|(object, _)| *object != "module");
        let Some((object, prop)) = member else {
            return self.js_valued(node, value, Some(target.to_string()), scope);
        };
        let mut u = match self.js_valued(node, value, Some(prop.to_string()), scope) {
            Some(u) => u,
            // `codes.ERR_X = createError(…)` at the top of a file: a constant of `codes`.
            None if scope != Scope::Function && self.js_made(value) => {
                self.simple(ChunkKind::Const, node, Some(prop.to_string()))
            }
            None => return None,
        };
        if matches!(object, "exports" | "module.exports") {
            return Some(u);
        }
        let object = object.strip_suffix(".prototype").unwrap_or(object);
        if u.kind == ChunkKind::Function {
            u.kind = ChunkKind::Method;
        }
        u.parent = Some(object.to_string());
        Some(u)
    }

    pub(super) fn js<'t>(
        &self,
        node: Node<'t>,
        scope: Scope,
        depth: usize,
    ) -> Option<UnitInfo<'t>> {
        let name = self.field_text(node, "name");
        let body = node.child_by_field_name("body");
        Some(match node.kind() {
            "function_declaration"
            | "generator_function_declaration"
            | "function_expression"
            | "function"
            | "generator_function" => {
                self.base(Self::fn_kind(scope), node, name, body, Scope::Function)
            }
            "function_signature" => self.base(Self::fn_kind(scope), node, name, None, scope),
            "class_declaration" | "abstract_class_declaration" | "class" => {
                self.base(ChunkKind::Class, node, name, body, Scope::Type)
            }
            "interface_declaration" => {
                self.base(ChunkKind::Interface, node, name, body, Scope::Type)
            }
            "type_alias_declaration" => self.simple(ChunkKind::Type, node, name),
            "enum_declaration" => self.base(ChunkKind::Enum, node, name, body, Scope::Type),
            "internal_module" | "module" => {
                body?;
                self.base(ChunkKind::Module, node, name, body, Scope::Namespace)
            }
            "lexical_declaration" | "variable_declaration" => {
                if scope == Scope::Type {
                    return None;
                }
                let decls: Vec<Node> = named_children(node)
                    .into_iter()
                    .filter(|c| c.kind() == "variable_declarator")
                    .collect();
                let [decl] = decls.as_slice() else {
                    return None;
                };
                let name = self.field_text(*decl, "name");
                let value = decl.child_by_field_name("value");
                if let Some(v) = value
                    && let Some(u) = self.js_valued(node, v, name.clone(), scope)
                {
                    return Some(u);
                }
                let is_const = node.child(0).is_some_and(|c| c.kind() == "const");
                let multiline = self.src.line_of(node.start_byte())
                    != self.src.last_line(node.start_byte(), node.end_byte());
                // `const appRouter = new Builder()`, `const runHook = makeRunner(iter)`: a
                // module's value made by a constructor or a factory is a name others use.
                // Not one inside a callback (`describe(…, () => { const res = f() })`):
                // the scope does not change there, the code is a function's all the same.
                let made = value.is_some_and(|v| self.js_made(v)) && !in_function(node);
                if is_const && (multiline || made) && matches!(scope, Scope::Top | Scope::Namespace)
                {
                    self.simple(ChunkKind::Const, node, name)
                } else {
                    return None;
                }
            }
            "export_statement" => {
                let inner = node
                    .child_by_field_name("declaration")
                    .or_else(|| node.child_by_field_name("value"))?;
                let mut u = self.classify_at(inner, scope, depth + 1)?;
                u.sig_start = self.decl_start(node);
                if u.name.is_none() && children(node).iter().any(|c| c.kind() == "default") {
                    u.name = Some("default".to_string());
                    u.member_parent = u.name.clone();
                }
                u
            }
            "ambient_declaration" => {
                let inner = named_children(node).into_iter().next()?;
                let mut u = self.classify_at(inner, scope, depth + 1)?;
                u.sig_start = node.start_byte();
                u
            }
            "expression_statement" => {
                let inner = node.named_child(0)?;
                match inner.kind() {
                    "internal_module" | "module" => self.classify_at(inner, scope, depth + 1)?,
                    "assignment_expression" => {
                        let left = inner.child_by_field_name("left")?;
                        let mut right = inner.child_by_field_name("right")?;
                        // `res.contentType = res.type = function contentType(…)`: one unit,
                        // named by the function when it has a name.
                        while right.kind() == "assignment_expression" {
                            right = right.child_by_field_name("right")?;
                        }
                        let mut target = collapse_ws(self.text(left));
                        if let Some(own) = self.field_text(right, "name")
                            && let Some((object, _)) = target.rsplit_once('.')
                        {
                            target = format!("{object}.{own}");
                        }
                        self.js_assigned(node, &target, right, scope)?
                    }
                    // `defineGetter(req, 'host', function host() {…})`: a named function
                    // handed to a call at the top of a file is the unit of that statement.
                    "call_expression" if scope != Scope::Function => {
                        let args = inner.child_by_field_name("arguments")?;
                        let f = named_children(args).into_iter().find(|a| {
                            Self::js_function_value(a.kind())
                                && a.child_by_field_name("name").is_some()
                        })?;
                        let name = self.field_text(f, "name");
                        self.js_valued(node, f, name, scope)?
                    }
                    _ => return None,
                }
            }
            // Class members.
            "method_definition" => {
                self.base(Self::fn_kind(scope), node, name, body, Scope::Function)
            }
            "method_signature" | "abstract_method_signature" => {
                self.base(Self::fn_kind(scope), node, name, None, scope)
            }
            // `next: (value: T) => void` in an interface or a type literal: a member a call
            // through a value of that type reaches.
            "property_signature" if scope == Scope::Type => {
                let ty = node.child_by_field_name("type")?.named_child(0)?;
                if ty.kind() != "function_type" {
                    return None;
                }
                self.base(Self::fn_kind(scope), node, name, None, scope)
            }
            "public_field_definition" | "field_definition" => {
                let name = name.or_else(|| self.field_text(node, "property"));
                let value = node.child_by_field_name("value")?;
                self.js_valued(node, value, name, scope)?
            }
            _ => return None,
        })
    }
}

/// Whether `node` is inside a function of any kind (an arrow function passed as an
/// argument included).
fn in_function(node: Node) -> bool {
    let mut at = node.parent();
    while let Some(n) = at {
        if matches!(
            n.kind(),
            "arrow_function"
                | "function_expression"
                | "function"
                | "function_declaration"
                | "generator_function"
                | "generator_function_declaration"
                | "method_definition"
        ) {
            return true;
        }
        at = n.parent();
    }
    false
}
