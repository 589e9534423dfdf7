//! Zig units: functions, tests, and constants holding a struct, enum or union.

use super::table::Table;
use super::{LangRules, Scope, UnitInfo, named_children};
use lore_core::ChunkKind;
use lore_core::ChunkKind::*;
use tree_sitter::Node;

pub(super) const ZIG: Table = Table {
    units: &[
        ("function_declaration", Function),
        ("test_declaration", Function),
    ],
    hook: Some(container_const),
    ..Table::EMPTY
};

/// `const Cart = struct { … }` (or enum, union, opaque): a type named by the constant.
fn container_const<'t>(
    r: &LangRules<'_, '_>,
    node: Node<'t>,
    _scope: Scope,
) -> Option<UnitInfo<'t>> {
    if node.kind() != "variable_declaration" {
        return None;
    }
    let value = named_children(node).into_iter().find(|c| {
        matches!(
            c.kind(),
            "struct_declaration" | "enum_declaration" | "union_declaration" | "opaque_declaration"
        )
    })?;
    let kind = match value.kind() {
        "enum_declaration" => ChunkKind::Enum,
        _ => ChunkKind::Struct,
    };
    let name = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "identifier")
        .map(|n| r.name_text(n));
    Some(r.unit(kind, node, name, Some(value)))
}
