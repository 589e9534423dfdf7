//! Go units: functions, methods (their receiver type is the parent), struct and interface
//! types, type and const groups.

use super::{LangRules, Scope, UnitInfo, children, named_children};
use lore_core::ChunkKind;
use tree_sitter::Node;

impl LangRules<'_, '_> {
    pub(super) fn go<'t>(&self, node: Node<'t>) -> Option<UnitInfo<'t>> {
        let name = self.field_text(node, "name");
        let body = node.child_by_field_name("body");
        Some(match node.kind() {
            "function_declaration" => {
                self.base(ChunkKind::Function, node, name, body, Scope::Function)
            }
            "method_declaration" => {
                let mut u = self.base(ChunkKind::Method, node, name, body, Scope::Function);
                u.parent = node
                    .child_by_field_name("receiver")
                    .and_then(|r| first_descendant(r, "type_identifier"))
                    .map(|t| self.text(t).to_string());
                u
            }
            "type_declaration" => {
                let specs: Vec<Node> = named_children(node)
                    .into_iter()
                    .filter(|c| matches!(c.kind(), "type_spec" | "type_alias"))
                    .collect();
                let first = specs.first()?;
                let name = self.field_text(*first, "name");
                let ty = first.child_by_field_name("type");
                match (specs.len(), ty.map(|t| t.kind())) {
                    (1, Some("struct_type")) => {
                        let ty = ty?;
                        let body = named_children(ty)
                            .into_iter()
                            .find(|c| c.kind() == "field_declaration_list");
                        self.base(ChunkKind::Struct, node, name, body, Scope::Type)
                    }
                    (1, Some("interface_type")) => {
                        let ty = ty?;
                        let mut u =
                            self.base(ChunkKind::Interface, node, name, Some(ty), Scope::Type);
                        if let Some(brace) = children(ty).into_iter().find(|c| c.kind() == "{") {
                            u.sig_end = brace.start_byte();
                            u.header_end = brace.end_byte();
                        }
                        u
                    }
                    (1, _) => self.simple(ChunkKind::Type, node, name),
                    // A `type ( … )` group: the whole group is the signature.
                    _ => self.base(ChunkKind::Type, node, name, None, Scope::Type),
                }
            }
            "const_declaration" => {
                let specs: Vec<Node> = named_children(node)
                    .into_iter()
                    .filter(|c| c.kind() == "const_spec")
                    .collect();
                let name = specs.first().and_then(|s| self.field_text(*s, "name"));
                if specs.len() == 1 {
                    self.simple(ChunkKind::Const, node, name)
                } else {
                    self.base(ChunkKind::Const, node, name, None, Scope::Type)
                }
            }
            _ => return None,
        })
    }
}

/// First descendant of a kind, breadth-limited.
fn first_descendant<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut stack = vec![node];
    let mut budget = 256;
    while let Some(n) = stack.pop() {
        if n.kind() == kind {
            return Some(n);
        }
        budget -= 1;
        if budget == 0 {
            return None;
        }
        let mut kids = named_children(n);
        kids.reverse();
        stack.extend(kids);
    }
    None
}
