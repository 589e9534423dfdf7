//! Shell units: functions.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const BASH: Table = Table {
    units: &[("function_definition", Function)],
    line_comment: "#",
    ..Table::EMPTY
};
