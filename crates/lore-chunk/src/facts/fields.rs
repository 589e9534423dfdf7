//! Field types per type name, gathered before the main walk so that a method may use a
//! field declared below it (`self.store` in `Cart` → `Store`).

use super::{Extractor, Frame, MAX_DEPTH};
use crate::lang::named_children;
use lore_core::{Language, Receiver, type_name};
use tree_sitter::Node;

impl<'a> Extractor<'_, 'a> {
    /// Field types of classes and structs, gathered before the main walk so a method
    /// may use a field declared below it.
    pub(super) fn collect_fields(&mut self, node: Node, owner: Option<&str>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let mut owner = owner.map(str::to_string);
        match (self.lang, node.kind()) {
            (Language::Rust, "struct_item")
            | (Language::Java, "class_declaration")
            | (
                _,
                "class_declaration"
                | "abstract_class_declaration"
                | "class_definition"
                | "class_specifier",
            ) => {
                owner = self.field(node, "name").map(str::to_string);
            }
            (Language::Go, "type_spec") => owner = self.field(node, "name").map(str::to_string),
            // A TypeScript interface's properties: `transition: TransitionHooks | null`.
            (Language::TypeScript | Language::Tsx, "interface_declaration") => {
                owner = self.field(node, "name").map(str::to_string);
            }
            (Language::Rust, "impl_item") => {
                owner = self.field(node, "type").and_then(type_name);
            }
            _ => {}
        }
        if let Some(o) = owner.as_deref()
            && let Some((name, ty)) = self.field_decl(node)
        {
            self.fields
                .entry(o.to_string())
                .or_default()
                .entry(name)
                .or_insert(ty);
        }
        for c in named_children(node) {
            self.collect_fields(c, owner.as_deref(), depth + 1);
        }
    }

    /// A field declaration or a `self.x = …` assignment: (field, type).
    fn field_decl(&self, node: Node) -> Option<(String, Receiver)> {
        match node.kind() {
            // Go embedding: the field is named after its type.
            "field_declaration"
                if self.lang == Language::Go && node.child_by_field_name("name").is_none() =>
            {
                let ty = type_name(self.field(node, "type")?)?;
                Some((ty.clone(), Receiver::Type(ty)))
            }
            // Rust `name: Type`, Go `Name Type`.
            "field_declaration" if matches!(self.lang, Language::Rust | Language::Go) => {
                let name = self.field(node, "name")?;
                let ty = type_name(self.field(node, "type")?)?;
                Some((name.to_string(), Receiver::Type(ty)))
            }
            // Java `private Store store;`
            "field_declaration" if self.lang == Language::Java => {
                let ty = type_name(self.field(node, "type")?)?;
                let decl = node.child_by_field_name("declarator")?;
                Some((self.field(decl, "name")?.to_string(), Receiver::Type(ty)))
            }
            // TS `private store: Store` / `store = new Store()`, an interface's `store: Store`.
            "public_field_definition" | "field_definition" | "property_signature" => {
                let name = self
                    .field(node, "name")
                    .or_else(|| self.field(node, "property"))?;
                let ty = self.annotation(node).or_else(|| {
                    node.child_by_field_name("value")
                        .and_then(|v| self.value_type(v, &[]))
                })?;
                Some((name.to_string(), ty))
            }
            // TS constructor parameter properties: `constructor(private store: Store)`.
            "required_parameter" | "optional_parameter"
                if named_children(node)
                    .iter()
                    .any(|c| c.kind() == "accessibility_modifier") =>
            {
                let name = self.field(node, "pattern")?;
                Some((name.to_string(), self.annotation(node)?))
            }
            // Python `self.x = Cart()` / `self.x: Cart = …`, JS `this.x = new Cart()`.
            // Python class attributes: `application: Flask`, `session_interface:
            // SessionInterface = SecureCookieSessionInterface()`.
            "assignment"
                if self.lang == Language::Python
                    && node
                        .child_by_field_name("left")
                        .is_some_and(|l| l.kind() == "identifier")
                    && node
                        .parent()
                        .and_then(|p| p.parent())
                        .and_then(|b| b.parent())
                        .is_some_and(|c| c.kind() == "class_definition") =>
            {
                let name = self.field(node, "left")?;
                let ty = self
                    .field(node, "type")
                    .and_then(type_name)
                    .map(Receiver::Type)
                    .or_else(|| self.value_type(node.child_by_field_name("right")?, &[]))?;
                Some((name.to_string(), ty))
            }
            "assignment" | "assignment_expression" => {
                let left = node.child_by_field_name("left")?;
                let (obj, attr) = match left.kind() {
                    "attribute" => (self.field(left, "object")?, self.field(left, "attribute")?),
                    "member_expression" => {
                        (self.field(left, "object")?, self.field(left, "property")?)
                    }
                    _ => return None,
                };
                if obj != "self" && obj != "this" {
                    return None;
                }
                let right = node.child_by_field_name("right");
                let ty = self
                    .field(node, "type")
                    .and_then(type_name)
                    .map(Receiver::Type)
                    .or_else(|| self.value_type(right?, &[]))
                    .or_else(|| {
                        // `self.customer = customer` with `customer: Customer` a parameter.
                        let v = right.filter(|v| v.kind() == "identifier")?;
                        self.enclosing_param(node, self.text(v))
                    })?;
                Some((attr.to_string(), ty))
            }
            _ => None,
        }
    }

    /// The type in a TS `: Type` annotation child.
    fn annotation(&self, node: Node) -> Option<Receiver> {
        let ann = node.child_by_field_name("type")?;
        let t = self.text(ann).trim_start_matches(':');
        type_name(t).map(Receiver::Type)
    }

    /// Java and C++ name fields without `this`.
    pub(super) fn implicit_field(&self, name: &str, stack: &[Frame]) -> Option<Receiver> {
        if !matches!(self.lang, Language::Java | Language::Cpp) {
            return None;
        }
        let owner = stack.iter().rev().find_map(|f| f.self_type.as_deref())?;
        self.fields.get(owner)?.get(name).cloned()
    }
}
