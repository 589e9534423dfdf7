//! YAML units: the keys of the top two levels of mappings, as sections (a mapping) or constants (a value), so "where is X configured" finds the key.

use super::table::Table;
use super::{LangRules, Scope, UnitInfo, named_children};
use lore_core::ChunkKind;
use tree_sitter::Node;

pub(super) const YAML: Table = Table {
    line_comment: "#",
    transparent: &["document", "block_node", "block_mapping"],
    hook: Some(pair),
    ..Table::EMPTY
};

/// A `key: value` pair: a section when its value is a mapping (whose pairs are its
/// members), else a constant.
fn pair<'t>(r: &LangRules<'_, '_>, node: Node<'t>, scope: Scope) -> Option<UnitInfo<'t>> {
    if !matches!(node.kind(), "block_mapping_pair" | "flow_pair") || scope == Scope::Function {
        return None;
    }
    let name = node.child_by_field_name("key").map(|k| r.name_text(k));
    let mapping = node.child_by_field_name("value").and_then(|v| {
        named_children(v)
            .into_iter()
            .find(|c| matches!(c.kind(), "block_mapping" | "flow_mapping"))
    });
    // Two levels: the pairs inside a section's section are its text.
    let (kind, body) = match mapping {
        Some(m) if scope == Scope::Top => (ChunkKind::Section, Some(m)),
        Some(_) => (ChunkKind::Section, None),
        None => (ChunkKind::Const, None),
    };
    Some(r.unit(kind, node, name, body))
}
