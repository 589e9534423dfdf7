//! JSON units: the keys of the top two levels of objects, as sections (an object) or constants.

use super::table::Table;
use super::{LangRules, Scope, UnitInfo};
use lore_core::ChunkKind;
use tree_sitter::Node;

pub(super) const JSON: Table = Table {
    transparent: &["document"],
    hook: Some(pair),
    ..Table::EMPTY
};

/// A `"key": value` pair: a section when its value is an object (whose pairs are its
/// members), else a constant. The root object's pairs are the top level.
fn pair<'t>(r: &LangRules<'_, '_>, node: Node<'t>, scope: Scope) -> Option<UnitInfo<'t>> {
    if node.kind() == "object"
        && scope == Scope::Top
        && node.parent().is_some_and(|p| p.kind() == "document")
    {
        let mut u = r.unit(ChunkKind::Module, node, None, Some(node));
        u.member_scope = Scope::Top;
        return Some(u);
    }
    if node.kind() != "pair" || scope == Scope::Function {
        return None;
    }
    let name = node.child_by_field_name("key").map(|k| r.name_text(k));
    let object = node
        .child_by_field_name("value")
        .filter(|v| v.kind() == "object");
    let (kind, body) = match object {
        Some(o) if scope == Scope::Top => (ChunkKind::Section, Some(o)),
        Some(_) => (ChunkKind::Section, None),
        None => (ChunkKind::Const, None),
    };
    Some(r.unit(kind, node, name, body))
}
