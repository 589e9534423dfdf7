//! HCL/Terraform units: blocks, named by their type and labels (`resource.aws_s3_bucket.logs`).

use super::table::Table;
use super::{LangRules, Scope, UnitInfo, named_children};
use lore_core::ChunkKind;
use tree_sitter::Node;

pub(super) const HCL: Table = Table {
    line_comment: "#",
    transparent: &["body"],
    hook: Some(block),
    ..Table::EMPTY
};

/// A block (`resource "aws_s3_bucket" "logs" { … }`), named by its type and labels.
fn block<'t>(r: &LangRules<'_, '_>, node: Node<'t>, _scope: Scope) -> Option<UnitInfo<'t>> {
    if node.kind() != "block" {
        return None;
    }
    let parts: Vec<String> = named_children(node)
        .into_iter()
        .take_while(|c| matches!(c.kind(), "identifier" | "string_lit"))
        .map(|c| r.name_text(c))
        .collect();
    let body = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "body");
    let kind = match parts.first().map(String::as_str) {
        Some("variable" | "output" | "locals") => ChunkKind::Const,
        Some("module") => ChunkKind::Module,
        _ => ChunkKind::Struct,
    };
    let mut u = r.unit(
        kind,
        node,
        Some(parts.join(".")).filter(|n| !n.is_empty()),
        body,
    );
    // Its attributes are no units of their own.
    u.body = None;
    Some(u)
}
