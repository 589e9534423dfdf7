//! Julia units: modules, structs, abstract types, functions (long and short form), macros.

use super::table::Table;
use super::{LangRules, Scope, UnitInfo, named_children};
use lore_core::ChunkKind;
use tree_sitter::Node;

pub(super) const JULIA: Table = Table {
    line_comment: "#",
    hook: Some(definition),
    ..Table::EMPTY
};

/// Julia's definitions have no `name` or `body` field: a function's name is the callee of
/// its signature (`add(c::Cart, x)`), a type's its head; the members follow the header.
fn definition<'t>(r: &LangRules<'_, '_>, node: Node<'t>, scope: Scope) -> Option<UnitInfo<'t>> {
    let kind = match node.kind() {
        "module_definition" | "baremodule_definition" => ChunkKind::Module,
        "struct_definition" | "mutable_struct_definition" => ChunkKind::Struct,
        "abstract_definition" | "primitive_definition" => ChunkKind::Type,
        "function_definition" | "macro_definition" => LangRules::fn_kind(scope),
        _ => return None,
    };
    let head = |n: Node| -> Option<String> {
        let mut n = n;
        // `f(x)::T where T`, `Base.show(io, x)`: down to the called name.
        for _ in 0..4 {
            match n.kind() {
                "call_expression"
                | "typed_expression"
                | "where_expression"
                | "parametrized_type_expression" => {
                    n = named_children(n).into_iter().next()?;
                }
                _ => break,
            }
        }
        Some(r.name_text(n))
    };
    let name = node
        .child_by_field_name("name")
        .map(|n| r.name_text(n))
        .or_else(|| {
            let first = named_children(node)
                .into_iter()
                .find(|c| matches!(c.kind(), "signature" | "type_head" | "identifier"))?;
            let inner = named_children(first).into_iter().next().unwrap_or(first);
            head(inner)
        });
    Some(r.inline_unit(kind, node, name))
}
