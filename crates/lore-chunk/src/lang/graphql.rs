//! GraphQL units: types, inputs, interfaces, enums, unions, scalars, operations, fragments.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const GRAPHQL: Table = Table {
    units: &[
        ("object_type_definition", Struct),
        ("input_object_type_definition", Struct),
        ("interface_type_definition", Interface),
        ("enum_type_definition", Enum),
        ("union_type_definition", Type),
        ("scalar_type_definition", Type),
        ("object_type_extension", Struct),
        ("operation_definition", Function),
        ("fragment_definition", Function),
        ("directive_definition", Function),
    ],
    names: &["name", "fragment_name"],
    transparent: &[
        "document",
        "definition",
        "type_system_definition",
        "type_definition",
        "executable_definition",
        "type_system_extension",
        "type_extension",
    ],
    line_comment: "#",
    ..Table::EMPTY
};
