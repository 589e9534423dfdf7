//! Ruby units: modules, classes, methods (singleton ones too).

use super::table::Table;
use super::{LangRules, Scope, UnitInfo};
use lore_core::ChunkKind::*;
use tree_sitter::Node;

pub(super) const RUBY: Table = Table {
    units: &[
        ("module", Module),
        ("class", Class),
        ("singleton_class", Class),
        ("method", Function),
        ("singleton_method", Function),
    ],
    line_comment: "#",
    hook: Some(scoped_constant),
    ..Table::EMPTY
};

/// `class Rack::Builder` and `module ::Top` are named by their last constant (as Ruby's
/// own parser names them), the path before it their parent.
fn scoped_constant<'t>(
    r: &LangRules<'_, '_>,
    node: Node<'t>,
    _scope: Scope,
) -> Option<UnitInfo<'t>> {
    let kind = match node.kind() {
        "class" => Class,
        "module" => Module,
        _ => return None,
    };
    let path = node.child_by_field_name("name")?;
    if path.kind() != "scope_resolution" {
        return None;
    }
    let name = path.child_by_field_name("name").map(|n| r.name_text(n));
    let parent = path
        .child_by_field_name("scope")
        .map(|s| r.name_text(s).trim_start_matches("::").to_string())
        .filter(|s| !s.is_empty());
    let mut u = r.unit(kind, node, name, node.child_by_field_name("body"));
    if parent.is_some() {
        u.parent = parent;
    }
    Some(u)
}
