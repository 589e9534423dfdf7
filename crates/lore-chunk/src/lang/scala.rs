//! Scala units: classes, objects, traits, enums, functions, vals.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const SCALA: Table = Table {
    units: &[
        ("class_definition", Class),
        ("object_definition", Class),
        ("trait_definition", Trait),
        ("enum_definition", Enum),
        ("function_definition", Function),
        ("function_declaration", Function),
        ("type_definition", Type),
    ],
    ..Table::EMPTY
};
