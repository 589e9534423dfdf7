//! Definitions: the symbol of each unit, with its qualified name, container, doc and
//! flags, and the frame its body is walked in.

use super::{Extractor, Frame, is_callable};
use crate::code::signature;
use crate::lang::{self, Scope, UnitInfo, named_children};
use lore_core::{
    ChunkKind, Language, Receiver, RefKind, Reference, Symbol, fixture_name, type_name,
};
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// Longest doc kept per symbol, in characters; a longer one is cut and says so.
const MAX_DOC_CHARS: usize = 2000;

/// Cuts a doc longer than `max` characters at the last word boundary before the limit
/// and says how much was left out: `… (1,234 more characters)`.
fn truncate_doc(doc: &mut String, max: usize) {
    let Some((limit, _)) = doc.char_indices().nth(max) else {
        return;
    };
    // The last whitespace before the limit, unless that would drop most of the text.
    let cut = doc[..limit]
        .rfind(char::is_whitespace)
        .filter(|&i| i > limit / 2)
        .unwrap_or(limit);
    let kept = doc[..cut].trim_end().len();
    let left_out = doc[kept..].trim().chars().count();
    doc.truncate(kept);
    doc.push_str(&format!(" … ({} more characters)", thousands(left_out)));
}

/// `1234` → `1,234`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl<'a> Extractor<'_, 'a> {
    /// A Rust `impl [Trait for] Type` block: members are `Type::member`; the block
    /// itself is not a symbol but records that the type implements the trait.
    pub(super) fn rust_impl(&mut self, node: Node, stack: &mut Vec<Frame>, depth: usize) {
        let Some(ty) = self.field(node, "type").and_then(type_name) else {
            return;
        };
        if let Some(tr) = self.field(node, "trait").and_then(type_name) {
            self.out.refs.push(Reference {
                kind: RefKind::Implements,
                caller: Some(self.qualify(stack, &ty)),
                name: tr,
                receiver: Receiver::None,
                line: self.line(node),
            });
        }
        stack.push(Frame {
            qualified: self.qualify(stack, &ty),
            name: ty.clone(),
            kind: ChunkKind::Impl,
            sig_start: node.start_byte(),
            start: node.start_byte(),
            end: node.end_byte(),
            self_type: Some(ty),
            env: HashMap::new(),
            parts: HashSet::new(),
            is_test: stack.last().is_some_and(|f| f.is_test),
            base: None,
            symbol: None,
            body: None,
        });
        if let Some(body) = node.child_by_field_name("body") {
            for c in named_children(body) {
                self.walk(c, Scope::Type, stack, depth + 1);
            }
        }
        stack.pop();
    }

    pub(super) fn define(
        &mut self,
        node: Node,
        info: &UnitInfo,
        name: String,
        stack: &mut Vec<Frame>,
    ) {
        let src = self.src;
        // Go methods and C++ out-of-class definitions name their type themselves.
        let (qualified, container) = match &info.parent {
            // Ruby's `class Shop::Order` is `module Shop; class Order`.
            Some(p)
                if self.lang == Language::Ruby
                    && matches!(info.kind, ChunkKind::Class | ChunkKind::Module) =>
            {
                let p = p.replace("::", self.sep);
                (self.qualify(stack, &format!("{p}{}{name}", self.sep)), None)
            }
            Some(p)
                if matches!(info.kind, ChunkKind::Method | ChunkKind::Const)
                    && !stack.last().is_some_and(|f| f.kind.is_type()) =>
            {
                // A Perl package is named whole (`Shop::Cart`), not by its last part.
                let p = match self.lang {
                    Language::Perl => p.clone(),
                    _ => type_name(p).unwrap_or_else(|| p.clone()),
                };
                (
                    self.qualify(stack, &format!("{p}{}{name}", self.sep)),
                    Some(p),
                )
            }
            _ => (
                self.qualify(stack, &name),
                stack
                    .last()
                    .filter(|f| f.kind.is_type())
                    .and_then(|f| f.self_type.clone()),
            ),
        };
        let attrs = self.attrs_text(node);
        let test_attr = attrs.contains("#[test")
            || attrs.contains("#[tokio::test")
            || attrs.contains("@Test")
            || attrs.contains("cfg(test)");
        let parent_test = stack.last().is_some_and(|f| f.is_test);
        let name_test = is_callable(info.kind)
            && (name.starts_with("test_")
                || (self.lang == Language::Go && name.starts_with("Test")));
        let is_test = self.test_file
            || parent_test
            || test_attr
            || name_test
            || (info.kind == ChunkKind::Module && name == "tests")
            || (info.kind == ChunkKind::Class && name.starts_with("Test"));
        let decl = self
            .src
            .slice(info.sig_start, info.sig_end.max(info.sig_start));
        let symbol = Symbol {
            name: name.clone(),
            qualified: qualified.clone(),
            kind: info.kind,
            container: container.clone(),
            signature: signature(src, info, self.lang),
            doc: self.doc(node, info),
            exported: self.exported(node, &name, decl, container.is_some()),
            is_async: decl.split_whitespace().take(4).any(|w| w == "async"),
            is_test,
            start_line: src.line_of(node.start_byte()),
            end_line: src.last_line(node.start_byte(), node.end_byte()),
            start_byte: node.start_byte(),
            end_byte: node.end_byte(),
            returns: None,
            params: if is_callable(info.kind) {
                self.untyped_params(node)
            } else {
                Vec::new()
            },
            decorators: self.decorators(node),
        };
        self.out.symbols.push(symbol);
        let symbol_index = self.out.symbols.len() - 1;
        let self_type = if info.kind.is_type() {
            Some(name.clone())
        } else {
            container
                .clone()
                .or_else(|| stack.last().and_then(|f| f.self_type.clone()))
        };
        let mut frame = Frame {
            qualified,
            name,
            kind: info.kind,
            sig_start: info.sig_start,
            start: node.start_byte(),
            end: node.end_byte(),
            self_type,
            env: HashMap::new(),
            parts: HashSet::new(),
            is_test,
            base: None,
            symbol: Some(symbol_index),
            body: info.body.map(|b| (b.start_byte(), b.end_byte())),
        };
        if is_callable(info.kind) {
            self.params(node, &mut frame);
        }
        if info.kind.is_type() {
            frame.base = self.heritage(node, &frame.qualified.clone());
        }
        stack.push(frame);
    }

    /// Attributes, decorators and annotations written before a unit.
    fn attrs_text(&self, node: Node) -> String {
        let mut out = String::new();
        let mut prev = node.prev_named_sibling();
        while let Some(p) = prev {
            if !matches!(
                p.kind(),
                "attribute_item" | "line_comment" | "block_comment" | "comment"
            ) {
                break;
            }
            out.push_str(self.text(p));
            prev = p.prev_named_sibling();
        }
        for c in lang::children(node) {
            if matches!(
                c.kind(),
                "decorator" | "modifiers" | "attribute_item" | "marker_annotation" | "annotation"
            ) {
                out.push_str(self.text(c));
            }
        }
        out
    }

    /// Python decorators without their arguments: `@pytest.fixture(scope="session")` →
    /// `pytest.fixture`.
    fn decorators(&self, node: Node) -> Vec<String> {
        if self.lang != Language::Python || node.kind() != "decorated_definition" {
            return Vec::new();
        }
        named_children(node)
            .into_iter()
            .filter(|c| c.kind() == "decorator")
            .filter_map(|d| {
                let e = d.named_child(0)?;
                let (f, args) = match e.kind() {
                    "call" => (
                        e.child_by_field_name("function")?,
                        e.child_by_field_name("arguments"),
                    ),
                    _ => (e, None),
                };
                let text: String = self.text(f).split_whitespace().collect();
                if text.is_empty() {
                    return None;
                }
                // `@pytest.fixture(name="app")`: the name tests ask for.
                let named = args
                    .filter(|_| fixture_name(&text, "").is_some())
                    .into_iter()
                    .flat_map(named_children)
                    .filter(|a| a.kind() == "keyword_argument")
                    .find(|a| self.field(*a, "name") == Some("name"))
                    .and_then(|a| a.child_by_field_name("value"))
                    .filter(|v| v.kind() == "string")
                    .map(|v| self.text(v).trim_matches(['"', '\'']).to_string());
                Some(match named {
                    Some(n) => format!("{text}(name=\"{n}\")"),
                    None => text,
                })
            })
            .collect()
    }

    fn doc(&self, node: Node, info: &UnitInfo) -> Option<String> {
        let mut doc = info.docstring.clone().or_else(|| {
            let mut parts = Vec::new();
            let mut prev = node.prev_named_sibling();
            let mut line = self.src.line_of(node.start_byte());
            while let Some(p) = prev {
                let last = self.src.last_line(p.start_byte(), p.end_byte());
                if !lang::documents(self.lang, self.text(p), parts.is_empty(), last, line) {
                    break;
                }
                if lang::is_comment(p.kind()) {
                    parts.push(lang::strip_comment(self.text(p)));
                } else if p.kind() != "attribute_item" {
                    break;
                }
                line = self.src.line_of(p.start_byte());
                prev = p.prev_named_sibling();
            }
            parts.reverse();
            let d = parts.join("\n").trim().to_string();
            (!d.is_empty()).then_some(d)
        })?;
        truncate_doc(&mut doc, MAX_DOC_CHARS);
        Some(doc)
    }

    fn exported(&self, node: Node, name: &str, decl: &str, member: bool) -> bool {
        let first = decl.split_whitespace().next().unwrap_or("");
        match self.lang {
            Language::Rust => first.starts_with("pub"),
            Language::Python => {
                !name.starts_with('_') || (name.starts_with("__") && name.ends_with("__"))
            }
            Language::Go => name.chars().next().is_some_and(char::is_uppercase),
            Language::Java => decl.split_whitespace().any(|w| w == "public"),
            Language::C | Language::Cpp => !decl.split_whitespace().any(|w| w == "static"),
            _ => {
                if member {
                    !decl
                        .split_whitespace()
                        .take(3)
                        .any(|w| w == "private" || w == "#")
                        && !name.starts_with('#')
                } else {
                    node.parent()
                        .is_some_and(|p| p.kind() == "export_statement")
                        || decl.starts_with("export")
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_doc_ends_at_a_word_and_says_how_much_is_left_out() {
        let mut doc = "word ".repeat(500);
        truncate_doc(&mut doc, 2000);
        assert!(doc.ends_with("word … (499 more characters)"), "{doc}");
        assert!(doc.chars().count() < 2000 + 40);
        let mut short = "short doc".to_string();
        truncate_doc(&mut short, 2000);
        assert_eq!(short, "short doc");
        // One long word: cut at the limit itself.
        let mut long = "x".repeat(2500);
        truncate_doc(&mut long, 2000);
        assert!(long.ends_with("x … (500 more characters)"), "{long}");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }
}
