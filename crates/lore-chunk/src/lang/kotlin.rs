//! Kotlin units: classes, objects, interfaces, functions, properties, type aliases.

use super::table::Table;
use super::{LangRules, Scope, UnitInfo, named_children};
use lore_core::ChunkKind::*;
use tree_sitter::Node;

pub(super) const KOTLIN: Table = Table {
    units: &[
        ("class_declaration", Class),
        ("object_declaration", Class),
        ("companion_object", Class),
        ("function_declaration", Function),
        ("secondary_constructor", Function),
        ("type_alias", Type),
    ],
    names: &["identifier", "type_identifier"],
    bodies: &["class_body", "enum_class_body", "function_body"],
    hook: Some(class_declaration),
    ..Table::EMPTY
};

/// `class_declaration` holds Kotlin's classes and interfaces (and enum classes): the
/// keyword says which.
fn class_declaration<'t>(
    r: &LangRules<'_, '_>,
    node: Node<'t>,
    _scope: Scope,
) -> Option<UnitInfo<'t>> {
    (node.kind() == "class_declaration").then(|| {
        let body = named_children(node)
            .into_iter()
            .find(|c| matches!(c.kind(), "class_body" | "enum_class_body"));
        r.by_keyword(
            node,
            &[("interface", Interface), ("enum", Enum)],
            Class,
            body,
        )
    })
}
