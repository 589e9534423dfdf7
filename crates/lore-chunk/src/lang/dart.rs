//! Dart units: classes, mixins, extensions, enums, functions, methods.

use super::table::Table;
use super::{LangRules, Scope, UnitInfo, named_children};
use lore_core::ChunkKind::*;
use tree_sitter::Node;

pub(super) const DART: Table = Table {
    units: &[
        ("class_declaration", Class),
        ("class_definition", Class),
        ("mixin_declaration", Class),
        ("extension_declaration", Class),
        ("enum_declaration", Enum),
        ("function_declaration", Function),
        ("method_declaration", Function),
        ("type_alias", Type),
    ],
    hook: Some(abstract_member),
    names: &["identifier"],
    transparent: &["member_declaration"],
    bodies: &["class_body", "enum_body", "extension_body"],
    ..Table::EMPTY
};

/// A member declared without a body (`int add(int x);` in an abstract class): a method
/// named by its signature.
fn abstract_member<'t>(
    r: &LangRules<'_, '_>,
    node: Node<'t>,
    scope: Scope,
) -> Option<UnitInfo<'t>> {
    if node.kind() != "declaration" || scope != Scope::Type {
        return None;
    }
    let sig = named_children(node).into_iter().find(|c| {
        matches!(
            c.kind(),
            "function_signature" | "getter_signature" | "setter_signature"
        )
    })?;
    let name = sig.child_by_field_name("name").map(|n| r.name_text(n));
    Some(r.unit(Method, node, name, None))
}
