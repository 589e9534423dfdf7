//! R units: functions assigned to a name (`f <- function(…)`).

use super::table::Table;
use super::{LangRules, Scope, UnitInfo};
use lore_core::ChunkKind;
use tree_sitter::Node;

pub(super) const R: Table = Table {
    line_comment: "#",
    hook: Some(assigned_function),
    ..Table::EMPTY
};

/// `name <- function(…) …` (or `=`, `<<-`): a function named by what it is assigned to.
fn assigned_function<'t>(
    r: &LangRules<'_, '_>,
    node: Node<'t>,
    _scope: Scope,
) -> Option<UnitInfo<'t>> {
    if node.kind() != "binary_operator" {
        return None;
    }
    let value = node.child_by_field_name("rhs")?;
    if value.kind() != "function_definition" {
        return None;
    }
    let name = node.child_by_field_name("lhs").map(|n| r.name_text(n));
    let body = value.child_by_field_name("body");
    Some(r.unit(ChunkKind::Function, node, name, body))
}
