//! OCaml units: values and functions (`let`), types, modules, classes.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const OCAML: Table = Table {
    units: &[
        ("value_definition", Function),
        ("type_definition", Type),
        ("module_definition", Module),
        ("class_definition", Class),
        ("exception_definition", Type),
    ],
    names: &[
        "value_name",
        "type_constructor",
        "module_name",
        "class_name",
        "constructor_name",
    ],
    ..Table::EMPTY
};
