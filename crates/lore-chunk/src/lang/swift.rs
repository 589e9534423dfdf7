//! Swift units: classes, structs, enums, extensions (all `class_declaration`), protocols, functions, initialisers.

use super::table::Table;
use super::{LangRules, Scope, UnitInfo};
use lore_core::ChunkKind::*;
use tree_sitter::Node;

pub(super) const SWIFT: Table = Table {
    units: &[
        ("class_declaration", Class),
        ("protocol_declaration", Interface),
        ("function_declaration", Function),
        ("protocol_function_declaration", Function),
        ("init_declaration", Function),
        ("deinit_declaration", Function),
        ("typealias_declaration", Type),
    ],
    names: &["simple_identifier", "type_identifier"],
    hook: Some(type_declaration),
    ..Table::EMPTY
};

/// `class_declaration` holds Swift's classes, structs, enums, actors and extensions: the
/// keyword says which.
fn type_declaration<'t>(
    r: &LangRules<'_, '_>,
    node: Node<'t>,
    _scope: Scope,
) -> Option<UnitInfo<'t>> {
    (node.kind() == "class_declaration").then(|| {
        let keywords = [("struct", Struct), ("enum", Enum), ("extension", Impl)];
        r.by_keyword(node, &keywords, Class, node.child_by_field_name("body"))
    })
}
