//! SQL units: tables, views, functions, indexes, types, triggers, sequences (each
//! `CREATE …`). Two grammars make SQL trees (`code::parse_code`): the general one
//! (`create_table`, …) and PostgreSQL's own, whose nodes are named as in its `gram.y`
//! (`CreateStmt`, …); this table knows both.

use super::table::Table;
use super::{LangRules, Scope, UnitInfo};
use lore_core::ChunkKind::*;
use tree_sitter::Node;

pub(super) const SQL: Table = Table {
    units: &[
        ("create_table", Struct),
        ("create_view", Type),
        ("create_materialized_view", Type),
        ("create_function", Function),
        ("create_index", Const),
        ("create_type", Type),
        ("create_trigger", Function),
        ("create_sequence", Const),
        // PostgreSQL's grammar.
        ("CreateStmt", Struct),
        ("CreateAsStmt", Struct),
        ("ViewStmt", Type),
        ("CreateMatViewStmt", Type),
        ("CreateFunctionStmt", Function),
        ("IndexStmt", Const),
        ("CreateDomainStmt", Type),
        ("CreateTrigStmt", Function),
        ("CreateSeqStmt", Const),
    ],
    names: &[
        "object_reference",
        "identifier",
        "qualified_name",
        "func_name",
        "any_name",
        "any_operator",
        "opt_single_name",
        "name",
    ],
    transparent: &["statement", "toplevel_stmt", "stmt"],
    line_comment: "--",
    hook: Some(define_stmt),
    ..Table::EMPTY
};

/// PostgreSQL's `DefineStmt` is `CREATE AGGREGATE` (a function), `CREATE OPERATOR`
/// (named by its symbol, `<->`) and `CREATE TYPE` among others (a type).
fn define_stmt<'t>(r: &LangRules<'_, '_>, node: Node<'t>, _scope: Scope) -> Option<UnitInfo<'t>> {
    if node.kind() != "DefineStmt" {
        return None;
    }
    let children = super::children(node);
    let kind = match children.get(1).map(|c| c.kind()) {
        Some("kw_aggregate") => Function,
        Some("kw_operator") => Function,
        Some("kw_type") => Type,
        _ => return None,
    };
    let name = children
        .iter()
        .find(|c| matches!(c.kind(), "func_name" | "any_name" | "any_operator"))
        .map(|n| r.name_text(*n));
    Some(r.unit(kind, node, name, None))
}
