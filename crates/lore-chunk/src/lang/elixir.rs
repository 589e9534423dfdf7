//! Elixir units: `defmodule`, `def`, `defp`, `defmacro`, `defprotocol`, `defimpl` (each a call).

use super::table::Table;
use super::{LangRules, Scope, UnitInfo, named_children};
use lore_core::ChunkKind;
use tree_sitter::Node;

pub(super) const ELIXIR: Table = Table {
    line_comment: "#",
    hook: Some(definition_call),
    ..Table::EMPTY
};

/// A call of `defmodule`, `def`, … : the unit it defines, named by its first argument
/// (`Shop.Cart`, `add` of `add(cart, x)`).
fn definition_call<'t>(
    r: &LangRules<'_, '_>,
    node: Node<'t>,
    _scope: Scope,
) -> Option<UnitInfo<'t>> {
    if node.kind() != "call" {
        return None;
    }
    let target = r.text(node.child_by_field_name("target")?);
    let kind = match target {
        "defmodule" | "defprotocol" | "defimpl" => ChunkKind::Module,
        // A module's functions are functions: Elixir has no methods.
        "def" | "defp" | "defmacro" | "defmacrop" | "defguard" | "defdelegate" => {
            ChunkKind::Function
        }
        "defstruct" | "defexception" => ChunkKind::Struct,
        _ => return None,
    };
    let args = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "arguments");
    let name = args
        .and_then(|a| named_children(a).into_iter().next())
        .map(|first| {
            // `add(cart, x)` or `add(a) when …`: the called name.
            let head = match first.kind() {
                "call" => first.child_by_field_name("target").unwrap_or(first),
                "binary_operator" => first
                    .child_by_field_name("left")
                    .and_then(|l| l.child_by_field_name("target").or(Some(l)))
                    .unwrap_or(first),
                _ => first,
            };
            r.name_text(head)
        });
    let body = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "do_block");
    Some(r.unit(kind, node, name, body))
}
