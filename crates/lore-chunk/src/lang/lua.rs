//! Lua units: functions (global, local, `M.f` and `T:m`), and functions assigned to a name.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const LUA: Table = Table {
    units: &[("function_declaration", Function)],
    line_comment: "--",
    ..Table::EMPTY
};
