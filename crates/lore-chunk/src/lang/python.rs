//! Python units: functions, classes (through decorators), type aliases; docstrings.

use super::comments::clean_py_string;
use super::{LangRules, Scope, UnitInfo, children, collapse_ws};
use crate::text::Src;
use lore_core::ChunkKind;
use tree_sitter::Node;

impl LangRules<'_, '_> {
    pub(super) fn python<'t>(
        &self,
        node: Node<'t>,
        scope: Scope,
        depth: usize,
    ) -> Option<UnitInfo<'t>> {
        let (kind, member_scope) = match node.kind() {
            "function_definition" => (Self::fn_kind(scope), Scope::Function),
            "class_definition" => (ChunkKind::Class, Scope::Type),
            "decorated_definition" => {
                let def = node.child_by_field_name("definition")?;
                return self.classify_at(def, scope, depth + 1);
            }
            "type_alias_statement" => {
                let name = node.named_child(0).map(|n| collapse_ws(self.text(n)));
                return Some(self.simple(ChunkKind::Type, node, name));
            }
            _ => return None,
        };
        let name = self.field_text(node, "name");
        let body = node.child_by_field_name("body");
        let mut u = self.base(kind, node, name, body, member_scope);
        if let Some(b) = body {
            // The signature ends at the `:` before the body.
            if let Some(colon) = children(node)
                .into_iter()
                .rfind(|c| c.kind() == ":" && c.end_byte() <= b.start_byte())
            {
                u.sig_end = colon.start_byte();
                u.header_end = colon.end_byte();
            }
            u.docstring = python_docstring(self.src, b);
        }
        Some(u)
    }
}

/// A string literal as the body's first statement.
fn python_docstring(src: &Src, body: Node) -> Option<String> {
    let first = body.named_child(0)?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let s = first.named_child(0)?;
    if s.kind() != "string" {
        return None;
    }
    let doc = clean_py_string(src.slice(s.start_byte(), s.end_byte()));
    (!doc.is_empty()).then_some(doc)
}
