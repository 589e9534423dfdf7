//! C and C++ units: functions (`Type::method` out of class), structs, classes, unions,
//! enums, typedefs, namespaces, templates, aliases.

use super::{LangRules, Scope, UnitInfo, collapse_ws, is_comment, named_children};
use lore_core::ChunkKind;
use tree_sitter::Node;

impl LangRules<'_, '_> {
    fn c_specifier<'t>(&self, node: Node<'t>) -> Option<(ChunkKind, Node<'t>)> {
        let kind = match node.kind() {
            "struct_specifier" | "union_specifier" => ChunkKind::Struct,
            "class_specifier" => ChunkKind::Class,
            "enum_specifier" => ChunkKind::Enum,
            _ => return None,
        };
        let body = node.child_by_field_name("body")?;
        Some((kind, body))
    }

    pub(super) fn c<'t>(&self, node: Node<'t>, scope: Scope, depth: usize) -> Option<UnitInfo<'t>> {
        let body = node.child_by_field_name("body");
        Some(match node.kind() {
            "function_definition" => {
                let full = node
                    .child_by_field_name("declarator")
                    .and_then(|d| declarator_name(d))
                    .map(|d| collapse_ws(self.text(d)));
                let (name, qual) = match full {
                    Some(f) => match f.rfind("::") {
                        // `a::` (a parse error's remnant, fuzz target `analyze_code`) names
                        // nothing: no symbol rather than one named "".
                        Some(i) if i + 2 == f.len() => (None, None),
                        Some(i) if i > 0 => (
                            Some(f[i + 2..].to_string()),
                            Some(f[..i].trim_start_matches("::").to_string()),
                        ),
                        _ => (Some(f), None),
                    },
                    None => (None, None),
                };
                let kind = if qual.is_some() {
                    ChunkKind::Method
                } else {
                    Self::fn_kind(scope)
                };
                let mut u = self.base(kind, node, name, body, Scope::Function);
                u.parent = qual;
                u
            }
            // `#define kmalloc_array(...) alloc_hooks(…)`: where the kernel defines many of
            // the functions it calls. An object-like macro with a value is a constant.
            "preproc_function_def" if scope != Scope::Function => {
                let name = self.field_text(node, "name");
                let mut u = self.simple(ChunkKind::Function, node, name);
                u.sig_end = node
                    .child_by_field_name("parameters")
                    .map_or(u.sig_end, |p| p.end_byte());
                u.first_line_sig = false;
                u
            }
            "preproc_def"
                if scope != Scope::Function && node.child_by_field_name("value").is_some() =>
            {
                let name = self.field_text(node, "name");
                self.simple(ChunkKind::Const, node, name)
            }
            "struct_specifier" | "union_specifier" | "class_specifier" | "enum_specifier" => {
                let (kind, body) = self.c_specifier(node)?;
                let name = self.field_text(node, "name");
                self.base(kind, node, name, Some(body), Scope::Type)
            }
            "type_definition" | "declaration" | "field_declaration" => {
                let ty = node.child_by_field_name("type");
                let declared = node
                    .child_by_field_name("declarator")
                    .and_then(|d| declarator_name(d))
                    .map(|d| collapse_ws(self.text(d)));
                match ty.and_then(|t| self.c_specifier(t)) {
                    Some((kind, body)) => {
                        let spec_name = ty.and_then(|t| self.field_text(t, "name"));
                        let name = if node.kind() == "type_definition" {
                            declared.or(spec_name)
                        } else {
                            spec_name.or(declared)
                        };
                        self.base(kind, node, name, Some(body), Scope::Type)
                    }
                    None if node.kind() == "type_definition" => {
                        self.simple(ChunkKind::Type, node, declared)
                    }
                    None => return None,
                }
            }
            "namespace_definition" => {
                body?;
                let name = self.field_text(node, "name");
                self.base(ChunkKind::Module, node, name, body, Scope::Namespace)
            }
            "template_declaration" => {
                let inner = named_children(node).into_iter().rev().find(|c| {
                    !matches!(c.kind(), "template_parameter_list" | "requires_clause")
                        && !is_comment(c.kind())
                })?;
                let mut u = self.classify_at(inner, scope, depth + 1)?;
                u.sig_start = node.start_byte();
                u
            }
            "alias_declaration" | "concept_definition" => {
                let name = self.field_text(node, "name");
                self.simple(ChunkKind::Type, node, name)
            }
            _ => return None,
        })
    }
}

/// The name node inside a C/C++ declarator chain (`*f(int)` → `f`).
fn declarator_name(mut node: Node) -> Option<Node> {
    for _ in 0..32 {
        match node.kind() {
            "identifier"
            | "field_identifier"
            | "type_identifier"
            | "qualified_identifier"
            | "destructor_name"
            | "operator_name"
            | "operator_cast"
            | "template_function"
            | "primitive_type" => return Some(node),
            _ => {
                node = node
                    .child_by_field_name("declarator")
                    .or_else(|| node.named_child(0))?;
            }
        }
    }
    None
}
