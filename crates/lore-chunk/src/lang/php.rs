//! PHP units: namespaces, classes, interfaces, traits, enums, functions, methods, constants.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const PHP: Table = Table {
    units: &[
        ("class_declaration", Class),
        ("interface_declaration", Interface),
        ("trait_declaration", Trait),
        ("enum_declaration", Enum),
        ("function_definition", Function),
        ("method_declaration", Function),
        ("const_declaration", Const),
    ],
    names: &["name"],
    transparent: &["namespace_definition", "compound_statement"],
    ..Table::EMPTY
};
