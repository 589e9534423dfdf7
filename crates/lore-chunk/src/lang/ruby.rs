//! Ruby units: modules, classes, methods (singleton ones too).

use super::table::Table;
use lore_core::ChunkKind::*;

pub(super) const RUBY: Table = Table {
    units: &[
        ("module", Module),
        ("class", Class),
        ("singleton_class", Class),
        ("method", Function),
        ("singleton_method", Function),
    ],
    line_comment: "#",
    ..Table::EMPTY
};
