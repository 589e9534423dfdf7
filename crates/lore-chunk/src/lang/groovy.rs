//! Groovy units: classes, interfaces, enums, methods, `def` functions.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const GROOVY: Table = Table {
    units: &[
        ("class_declaration", Class),
        ("interface_declaration", Interface),
        ("enum_declaration", Enum),
        ("method_declaration", Function),
        ("constructor_declaration", Function),
        ("function_definition", Function),
    ],
    ..Table::EMPTY
};
