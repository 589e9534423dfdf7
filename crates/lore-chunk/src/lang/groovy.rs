//! Groovy units: classes, interfaces, traits, enums, records, annotation types, methods
//! (Spock's `def "reads a file"()` named by its string), constructors, script functions.

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const GROOVY: Table = Table {
    units: &[
        ("class_declaration", Class),
        ("interface_declaration", Interface),
        ("trait_declaration", Trait),
        ("enum_declaration", Enum),
        ("record_declaration", Class),
        ("annotation_type_declaration", Interface),
        ("method_declaration", Function),
        ("constructor_declaration", Function),
    ],
    ..Table::EMPTY
};
