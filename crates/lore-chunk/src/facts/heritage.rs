//! `extends` / `implements` references of a type definition, per language.

use super::Extractor;
use crate::lang::named_children;
use lore_core::{Language, Receiver, RefKind, Reference, type_name};
use tree_sitter::Node;

impl<'a> Extractor<'_, 'a> {
    /// Records `extends`/`implements` of a type definition; returns its (first) base class.
    pub(super) fn heritage(&mut self, node: Node, qualified: &str) -> Option<String> {
        let mut bases: Vec<(RefKind, String, u32, Receiver)> = Vec::new();
        let def = match node.kind() {
            "decorated_definition" => node.child_by_field_name("definition").unwrap_or(node),
            "export_statement" => node.child_by_field_name("declaration").unwrap_or(node),
            _ => node,
        };
        let visit = |kind: RefKind, n: Node, bases: &mut Vec<(RefKind, String, u32, Receiver)>| {
            let t = self.text(n);
            // `class A(flask.Flask)`: the module the base is taken from.
            let receiver = match n.child_by_field_name("object") {
                Some(o) if self.lang == Language::Python && n.kind() == "attribute" => {
                    Receiver::Path(self.text(o).to_string())
                }
                _ => Receiver::None,
            };
            if let Some(b) = type_name(t) {
                bases.push((kind, b, self.line(n), receiver));
            }
        };
        match self.lang {
            Language::Python => {
                if let Some(args) = def.child_by_field_name("superclasses") {
                    for a in named_children(args) {
                        if matches!(a.kind(), "identifier" | "attribute") {
                            visit(RefKind::Extends, a, &mut bases);
                        }
                    }
                }
            }
            Language::Java => {
                if let Some(s) = def.child_by_field_name("superclass") {
                    for t in named_children(s) {
                        visit(RefKind::Extends, t, &mut bases);
                    }
                }
                if let Some(s) = def.child_by_field_name("interfaces") {
                    for list in named_children(s) {
                        for t in named_children(list) {
                            visit(RefKind::Implements, t, &mut bases);
                        }
                    }
                }
            }
            Language::Cpp => {
                for c in named_children(def) {
                    if c.kind() == "base_class_clause" {
                        for t in named_children(c) {
                            if matches!(
                                t.kind(),
                                "type_identifier" | "qualified_identifier" | "template_type"
                            ) {
                                visit(RefKind::Extends, t, &mut bases);
                            }
                        }
                    }
                }
            }
            _ if self.js() => {
                let class = if def.kind() == "lexical_declaration" {
                    None
                } else {
                    Some(def)
                };
                for c in class.map(named_children).unwrap_or_default() {
                    if c.kind() != "class_heritage" {
                        continue;
                    }
                    for h in named_children(c) {
                        match h.kind() {
                            "extends_clause" => {
                                for t in named_children(h) {
                                    if t.kind() != "type_arguments" {
                                        visit(RefKind::Extends, t, &mut bases);
                                    }
                                }
                            }
                            "implements_clause" => {
                                for t in named_children(h) {
                                    visit(RefKind::Implements, t, &mut bases);
                                }
                            }
                            // JavaScript: `class A extends B` has the expression directly.
                            _ => visit(RefKind::Extends, h, &mut bases),
                        }
                    }
                }
                if def.kind() == "interface_declaration" {
                    for c in named_children(def) {
                        if c.kind() == "extends_type_clause" {
                            for t in named_children(c) {
                                visit(RefKind::Extends, t, &mut bases);
                            }
                        }
                    }
                }
            }
            // Go struct embedding: the embedded type's methods are promoted.
            Language::Go => {
                let spec = named_children(def)
                    .into_iter()
                    .find(|c| c.kind() == "type_spec");
                let fields = spec
                    .and_then(|t| t.child_by_field_name("type"))
                    .filter(|t| t.kind() == "struct_type")
                    .and_then(|t| {
                        named_children(t)
                            .into_iter()
                            .find(|c| c.kind() == "field_declaration_list")
                    });
                for f in fields.map(named_children).unwrap_or_default() {
                    if f.kind() == "field_declaration"
                        && f.child_by_field_name("name").is_none()
                        && let Some(t) = f.child_by_field_name("type")
                    {
                        visit(RefKind::Extends, t, &mut bases);
                    }
                }
            }
            _ => {}
        }
        let first_base = bases
            .iter()
            .find(|b| b.0 == RefKind::Extends)
            .map(|b| b.1.clone());
        for (kind, name, line, receiver) in bases {
            self.out.refs.push(Reference {
                kind,
                caller: Some(qualified.to_string()),
                name,
                receiver,
                line,
            });
        }
        first_base
    }
}
