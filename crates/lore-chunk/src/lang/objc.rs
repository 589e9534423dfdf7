//! Objective-C units: interfaces, implementations, protocols, categories, methods, C functions.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const OBJC: Table = Table {
    units: &[
        ("class_interface", Class),
        ("class_implementation", Impl),
        ("protocol_declaration", Interface),
        ("category_interface", Class),
        ("category_implementation", Impl),
        ("method_declaration", Function),
        ("method_definition", Function),
        ("function_definition", Function),
    ],
    names: &["identifier"],
    bodies: &["compound_statement"],
    inline_members: &[
        "class_interface",
        "class_implementation",
        "protocol_declaration",
        "category_interface",
        "category_implementation",
    ],
    transparent: &["implementation_definition", "preproc_ifdef", "preproc_if"],
    ..Table::EMPTY
};
