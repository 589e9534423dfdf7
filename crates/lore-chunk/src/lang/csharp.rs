//! C# units: namespaces, classes, records, structs, interfaces, enums, methods, constructors, properties.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const CSHARP: Table = Table {
    units: &[
        ("namespace_declaration", Module),
        ("file_scoped_namespace_declaration", Module),
        ("class_declaration", Class),
        ("record_declaration", Class),
        ("struct_declaration", Struct),
        ("interface_declaration", Interface),
        ("enum_declaration", Enum),
        ("delegate_declaration", Type),
        ("method_declaration", Function),
        ("constructor_declaration", Function),
        ("destructor_declaration", Function),
        ("operator_declaration", Function),
        ("property_declaration", Const),
        ("event_declaration", Const),
    ],
    names: &["identifier"],
    ..Table::EMPTY
};
