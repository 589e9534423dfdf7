//! Lua units: functions (global, local, `M.f` and `T:m`, the table being the parent).

use super::table::Table;
use super::{LangRules, Scope, UnitInfo};
use lore_core::ChunkKind;
use tree_sitter::Node;

pub(super) const LUA: Table = Table {
    line_comment: "--",
    hook: Some(function),
    ..Table::EMPTY
};

/// `function M.f(…)` / `function T:m(…)`: `f` of `M`, method `m` of `T`; else a function
/// named as written.
fn function<'t>(r: &LangRules<'_, '_>, node: Node<'t>, scope: Scope) -> Option<UnitInfo<'t>> {
    if node.kind() != "function_declaration" {
        return None;
    }
    let body = node.child_by_field_name("body");
    let name = node.child_by_field_name("name")?;
    let (table, member) = match name.kind() {
        "dot_index_expression" => (
            name.child_by_field_name("table"),
            name.child_by_field_name("field"),
        ),
        "method_index_expression" => (
            name.child_by_field_name("table"),
            name.child_by_field_name("method"),
        ),
        _ => {
            let kind = LangRules::fn_kind(scope);
            return Some(r.unit(kind, node, Some(r.name_text(name)), body));
        }
    };
    // A member of its table, called through it (`T.f(…)`, `obj:m(…)`).
    let mut u = r.unit(
        ChunkKind::Method,
        node,
        member.map(|m| r.name_text(m)),
        body,
    );
    u.parent = table.map(|t| r.name_text(t));
    Some(u)
}
