//! Erlang units: functions (`fun_decl`), records, types, specs.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const ERLANG: Table = Table {
    units: &[
        ("fun_decl", Function),
        ("record_decl", Struct),
        ("type_alias", Type),
        ("opaque", Type),
    ],
    names: &["atom"],
    line_comment: "%",
    ..Table::EMPTY
};
