//! Rust units: functions, structs, enums, traits, impls, type aliases, consts, inline
//! modules, macros.

use super::{LangRules, Scope, UnitInfo, children};
use lore_core::ChunkKind;
use tree_sitter::Node;

impl LangRules<'_, '_> {
    pub(super) fn rust<'t>(&self, node: Node<'t>, scope: Scope) -> Option<UnitInfo<'t>> {
        let name = self.field_text(node, "name");
        let body = node.child_by_field_name("body");
        Some(match node.kind() {
            "function_item" => self.base(Self::fn_kind(scope), node, name, body, Scope::Function),
            "function_signature_item" => self.base(Self::fn_kind(scope), node, name, None, scope),
            "struct_item" | "union_item" => {
                self.base(ChunkKind::Struct, node, name, body, Scope::Type)
            }
            "enum_item" => self.base(ChunkKind::Enum, node, name, body, Scope::Type),
            "trait_item" => self.base(ChunkKind::Trait, node, name, body, Scope::Type),
            "impl_item" => {
                let ty = self.field_text(node, "type");
                let tr = self.field_text(node, "trait");
                let mut u = self.base(ChunkKind::Impl, node, ty.clone(), body, Scope::Type);
                u.member_parent = Some(match (&tr, &ty) {
                    (Some(t), Some(y)) => format!("impl {t} for {y}"),
                    (None, Some(y)) => format!("impl {y}"),
                    _ => "impl".to_string(),
                });
                u
            }
            "type_item" | "associated_type" => self.simple(ChunkKind::Type, node, name),
            "const_item" | "static_item" => self.simple(ChunkKind::Const, node, name),
            "mod_item" if body.is_some() => {
                self.base(ChunkKind::Module, node, name, body, Scope::Namespace)
            }
            "macro_definition" => {
                let mut u = self.simple(ChunkKind::Module, node, name);
                if let Some(open) = children(node)
                    .into_iter()
                    .find(|c| matches!(c.kind(), "{" | "(" | "["))
                {
                    u.sig_end = open.start_byte();
                }
                u
            }
            "foreign_mod_item" if body.is_some() => {
                self.base(ChunkKind::Module, node, None, body, Scope::Namespace)
            }
            _ => return None,
        })
    }
}
