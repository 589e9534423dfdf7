//! SQL units: tables, views, functions, indexes, types, triggers (each `CREATE …`).

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const SQL: Table = Table {
    units: &[
        ("create_table", Struct),
        ("create_view", Type),
        ("create_materialized_view", Type),
        ("create_function", Function),
        ("create_index", Const),
        ("create_type", Type),
        ("create_trigger", Function),
        ("create_sequence", Const),
    ],
    names: &["object_reference", "identifier"],
    transparent: &["statement"],
    line_comment: "--",
    ..Table::EMPTY
};
