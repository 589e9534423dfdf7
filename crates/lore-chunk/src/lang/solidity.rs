//! Solidity units: contracts, interfaces, libraries, structs, enums, functions, modifiers, events.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const SOLIDITY: Table = Table {
    units: &[
        ("contract_declaration", Class),
        ("interface_declaration", Interface),
        ("library_declaration", Module),
        ("struct_declaration", Struct),
        ("enum_declaration", Enum),
        ("function_definition", Function),
        ("constructor_definition", Function),
        ("modifier_definition", Function),
        ("fallback_receive_definition", Function),
        ("event_definition", Const),
        ("error_declaration", Const),
    ],
    ..Table::EMPTY
};
