//! Perl units: packages and subs. `package Foo;` names the subs that follow it in its
//! block or file (`Foo::bar`); `package Foo { … }` holds its own.

use super::table::Table;
use super::{LangRules, Scope, UnitInfo};
use lore_core::ChunkKind;
use tree_sitter::Node;

pub(super) const PERL: Table = Table {
    line_comment: "#",
    hook: Some(unit),
    ..Table::EMPTY
};

fn unit<'t>(r: &LangRules<'_, '_>, node: Node<'t>, scope: Scope) -> Option<UnitInfo<'t>> {
    match node.kind() {
        "package_statement" => {
            let name = package_name(r, node)?;
            let body = node.child_by_field_name("body");
            let mut u = r.unit(ChunkKind::Module, node, Some(name.clone()), body);
            u.member_parent = Some(name);
            Some(u)
        }
        "function_definition" => {
            let name = node.child_by_field_name("name")?;
            let body = node.child_by_field_name("body");
            let kind = LangRules::fn_kind(scope);
            let package = (kind == ChunkKind::Function)
                .then(|| declared_package(r, node))
                .flatten();
            // A sub of a package is called through it (`Pkg::f`, `$obj->f`, `Pkg->f`).
            let kind = if package.is_some() {
                ChunkKind::Method
            } else {
                kind
            };
            let mut u = r.unit(kind, node, Some(r.name_text(name)), body);
            u.parent = package;
            Some(u)
        }
        "use_constant_statement" => {
            let name = node.child_by_field_name("constant")?;
            let mut u = r.unit(ChunkKind::Const, node, Some(r.name_text(name)), None);
            u.parent = declared_package(r, node);
            Some(u)
        }
        _ => None,
    }
}

fn package_name(r: &LangRules<'_, '_>, node: Node) -> Option<String> {
    super::named_children(node)
        .into_iter()
        .find(|c| c.kind() == "package_name")
        .map(|n| r.name_text(n))
        .filter(|n| !n.is_empty())
}

/// The package a `package Foo;` statement before `node`, among its siblings, declared.
fn declared_package(r: &LangRules<'_, '_>, node: Node) -> Option<String> {
    let mut at = node.prev_named_sibling();
    while let Some(n) = at {
        if n.kind() == "package_statement" && n.child_by_field_name("body").is_none() {
            return package_name(r, n);
        }
        at = n.prev_named_sibling();
    }
    None
}
