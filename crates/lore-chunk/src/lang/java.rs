//! Java units: classes, records, interfaces, enums, methods and constructors.

use super::{LangRules, Scope, UnitInfo};
use lore_core::ChunkKind;
use tree_sitter::Node;

impl LangRules<'_, '_> {
    pub(super) fn java<'t>(&self, node: Node<'t>, scope: Scope) -> Option<UnitInfo<'t>> {
        let name = self.field_text(node, "name");
        let body = node.child_by_field_name("body");
        let (kind, member_scope) = match node.kind() {
            "class_declaration" | "record_declaration" => (ChunkKind::Class, Scope::Type),
            "interface_declaration" | "annotation_type_declaration" => {
                (ChunkKind::Interface, Scope::Type)
            }
            "enum_declaration" => (ChunkKind::Enum, Scope::Type),
            "method_declaration"
            | "constructor_declaration"
            | "compact_constructor_declaration" => (Self::fn_kind(scope), Scope::Function),
            _ => return None,
        };
        Some(self.base(kind, node, name, body, member_scope))
    }
}
