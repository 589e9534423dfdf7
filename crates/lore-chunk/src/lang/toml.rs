//! TOML units: tables (`[package]`, `[[bin]]`) as sections, their keys as constants.

use super::table::Table;
use super::{LangRules, Scope, UnitInfo, named_children};
use lore_core::ChunkKind;
use tree_sitter::Node;

pub(super) const TOML: Table = Table {
    line_comment: "#",
    hook: Some(table_or_pair),
    ..Table::EMPTY
};

fn table_or_pair<'t>(r: &LangRules<'_, '_>, node: Node<'t>, scope: Scope) -> Option<UnitInfo<'t>> {
    let key = || {
        named_children(node)
            .into_iter()
            .find(|c| matches!(c.kind(), "bare_key" | "dotted_key" | "quoted_key"))
            .map(|k| r.name_text(k))
    };
    match node.kind() {
        // The header is the signature; the pairs after it are its members.
        "table" | "table_array_element" => Some(r.inline_unit(ChunkKind::Section, node, key())),
        "pair" if scope != Scope::Function => Some(r.unit(ChunkKind::Const, node, key(), None)),
        _ => None,
    }
}
