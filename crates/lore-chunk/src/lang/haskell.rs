//! Haskell units: data types, newtypes, type synonyms, classes, instances, functions.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const HASKELL: Table = Table {
    units: &[
        ("data_type", Type),
        ("newtype", Type),
        ("type_synonym", Type),
        ("class", Class),
        ("instance", Impl),
        ("function", Function),
        ("bind", Function),
    ],
    transparent: &["declarations"],
    bodies: &["class_declarations", "instance_declarations"],
    line_comment: "--",
    ..Table::EMPTY
};
