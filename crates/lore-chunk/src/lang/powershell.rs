//! PowerShell units: functions, classes and their methods, enums.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const POWERSHELL: Table = Table {
    units: &[
        ("function_statement", Function),
        ("class_statement", Class),
        ("class_method_definition", Function),
        ("enum_statement", Enum),
    ],
    names: &["function_name", "simple_name"],
    bodies: &["script_block"],
    inline_members: &["class_statement", "enum_statement"],
    transparent: &["statement_list"],
    line_comment: "#",
    ..Table::EMPTY
};
