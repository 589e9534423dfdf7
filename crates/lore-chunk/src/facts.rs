//! Code facts of one file from its tree-sitter tree: every definition (nested ones too)
//! with its qualified name, the imports, and the references (calls, extends, implements)
//! with what the file alone tells about their receiver. Resolution across files is
//! `lore-graph`'s job; nothing here guesses beyond the file.

use crate::code::signature;
use crate::lang::{self, LangRules, Scope, UnitInfo, collapse_ws, named_children};
use crate::text::Src;
use lore_core::{
    ChunkKind, FileFacts, Import, ImportedName, Language, Receiver, RefKind, Reference, Symbol,
    is_test_path, type_name,
};
use std::collections::HashMap;
use tree_sitter::{Node, Tree};

/// Deepest syntax nesting walked; deeper code (minified bundles) is not analysed.
const MAX_DEPTH: usize = 256;
const MAX_DOC_CHARS: usize = 2000;

struct Frame {
    qualified: String,
    name: String,
    kind: ChunkKind,
    /// Where the declaration proper starts: decorators and comments before it belong to
    /// the enclosing scope.
    sig_start: usize,
    start: usize,
    end: usize,
    /// The type `self`/`this` means inside this frame.
    self_type: Option<String>,
    /// Local names with a known type (parameters, assignments).
    env: HashMap<String, Receiver>,
    is_test: bool,
    /// The base class (`super` calls go there).
    base: Option<String>,
    /// Index of this frame's symbol in the output.
    symbol: Option<usize>,
}

struct Extractor<'s, 'a> {
    src: &'s Src<'a>,
    lang: Language,
    rules: LangRules,
    sep: &'static str,
    test_file: bool,
    /// Field types per type name (`self.store` in `Cart` → `Store`).
    fields: HashMap<String, HashMap<String, Receiver>>,
    /// Names bound outside any definition (test files bind in callbacks at top level).
    module_env: HashMap<String, Receiver>,
    out: FileFacts,
}

/// Extracts the code facts of a parsed file. `path` (relative, `/`-separated) only tells
/// whether this is a test file.
pub(crate) fn extract(
    src: &Src,
    lang: Language,
    grammar: Language,
    tree: &Tree,
    path: &str,
) -> FileFacts {
    let mut x = Extractor {
        src,
        lang,
        rules: LangRules { lang: grammar },
        sep: match grammar {
            Language::Rust | Language::Cpp => "::",
            _ => ".",
        },
        test_file: is_test_path(path),
        fields: HashMap::new(),
        module_env: HashMap::new(),
        out: FileFacts::default(),
    };
    let root = tree.root_node();
    x.collect_fields(root, None, 0);
    let mut stack = Vec::new();
    x.walk(root, Scope::Top, &mut stack, 0);
    x.out
}

/// The function node of a unit's declaration: through `export`, decorators and
/// `const f = () => …`.
fn function_node(node: Node, depth: usize) -> Option<Node> {
    if depth > 4 {
        return None;
    }
    match node.kind() {
        "export_statement" => function_node(node.child_by_field_name("declaration")?, depth + 1),
        "decorated_definition" => function_node(node.child_by_field_name("definition")?, depth + 1),
        "lexical_declaration" | "variable_declaration" => named_children(node)
            .into_iter()
            .find(|c| c.kind() == "variable_declarator")?
            .child_by_field_name("value"),
        _ => Some(node),
    }
}

fn is_callable(kind: ChunkKind) -> bool {
    matches!(kind, ChunkKind::Function | ChunkKind::Method)
}

impl<'a> Extractor<'_, 'a> {
    fn text(&self, n: Node) -> &'a str {
        self.src.slice(n.start_byte(), n.end_byte())
    }

    fn field(&self, n: Node, f: &str) -> Option<&'a str> {
        n.child_by_field_name(f).map(|c| self.text(c))
    }

    fn line(&self, n: Node) -> u32 {
        self.src.line_of(n.start_byte())
    }

    fn js(&self) -> bool {
        matches!(
            self.lang,
            Language::JavaScript | Language::TypeScript | Language::Tsx
        )
    }

    // ------------------------------------------------------------------ fields

    /// Field types of classes and structs, gathered before the main walk so a method
    /// may use a field declared below it.
    fn collect_fields(&mut self, node: Node, owner: Option<&str>, depth: usize) {
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
            // TS `private store: Store` / `store = new Store()`.
            "public_field_definition" | "field_definition" => {
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

    // ------------------------------------------------------------------ walk

    fn walk(&mut self, node: Node, scope: Scope, stack: &mut Vec<Frame>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let kind = node.kind();
        if kind == "impl_item" {
            return self.rust_impl(node, stack, depth);
        }
        if let Some(info) = self.rules.classify(self.src, node, scope)
            && let Some(name) = info.name.clone()
            && !stack.last().is_some_and(|f| {
                f.name == name
                    && f.kind == info.kind
                    && f.start <= node.start_byte()
                    && node.end_byte() <= f.end
            })
        {
            self.define(node, &info, name, stack);
            for c in named_children(node) {
                self.walk(c, info.member_scope, stack, depth + 1);
            }
            stack.pop();
            return;
        }
        self.reference(node, stack);
        if matches!(
            kind,
            "assignment"
                | "variable_declarator"
                | "let_declaration"
                | "short_var_declaration"
                | "var_spec"
                | "local_variable_declaration"
        ) {
            self.bind(node, stack);
        }
        if matches!(
            kind,
            "for_statement"
                | "for_in_statement"
                | "range_clause"
                | "for_expression"
                | "enhanced_for_statement"
        ) {
            self.bind_loop(node, stack);
        }
        if kind == "return_statement" {
            self.returns(node, stack);
        }
        for c in named_children(node) {
            self.walk(c, scope, stack, depth + 1);
        }
    }

    /// A Rust `impl [Trait for] Type` block: members are `Type::member`; the block
    /// itself is not a symbol but records that the type implements the trait.
    fn rust_impl(&mut self, node: Node, stack: &mut Vec<Frame>, depth: usize) {
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
            is_test: stack.last().is_some_and(|f| f.is_test),
            base: None,
            symbol: None,
        });
        if let Some(body) = node.child_by_field_name("body") {
            for c in named_children(body) {
                self.walk(c, Scope::Type, stack, depth + 1);
            }
        }
        stack.pop();
    }

    fn qualify(&self, stack: &[Frame], name: &str) -> String {
        match stack.last() {
            Some(f) => format!("{}{}{}", f.qualified, self.sep, name),
            None => name.to_string(),
        }
    }

    fn define(&mut self, node: Node, info: &UnitInfo, name: String, stack: &mut Vec<Frame>) {
        let src = self.src;
        // Go methods and C++ out-of-class definitions name their type themselves.
        let (qualified, container) = match &info.parent {
            Some(p)
                if info.kind == ChunkKind::Method
                    && !stack.last().is_some_and(|f| f.kind.is_type()) =>
            {
                let p = type_name(p).unwrap_or_else(|| p.clone());
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
            signature: signature(src, info),
            doc: self.doc(node, info),
            exported: self.exported(node, &name, decl, container.is_some()),
            is_async: decl.split_whitespace().take(4).any(|w| w == "async"),
            is_test,
            start_line: src.line_of(node.start_byte()),
            end_line: src.last_line(node.start_byte(), node.end_byte()),
            start_byte: node.start_byte(),
            end_byte: node.end_byte(),
            returns: None,
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
            is_test,
            base: None,
            symbol: Some(symbol_index),
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

    fn doc(&self, node: Node, info: &UnitInfo) -> Option<String> {
        let mut doc = info.docstring.clone().or_else(|| {
            let mut parts = Vec::new();
            let mut prev = node.prev_named_sibling();
            let mut line = self.src.line_of(node.start_byte());
            while let Some(p) = prev {
                let last = self.src.last_line(p.start_byte(), p.end_byte());
                if last + 1 < line {
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
        lang::truncate_chars(&mut doc, MAX_DOC_CHARS);
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

    // ------------------------------------------------------------------ types of names

    /// Types of a function's parameters (and the Go receiver).
    fn params(&self, node: Node, frame: &mut Frame) {
        for (name, ty, receiver) in self.typed_params(node) {
            if receiver {
                frame.env.insert(name.to_string(), Receiver::SelfType);
                frame.self_type = Some(ty);
            } else {
                frame.env.insert(name.to_string(), Receiver::Type(ty));
            }
        }
    }

    /// (name, type, is the Go receiver) of a function's parameters with a declared type.
    fn typed_params(&self, node: Node) -> Vec<(&'a str, String, bool)> {
        let mut out = Vec::new();
        let Some(fnode) = function_node(node, 0) else {
            return out;
        };
        for f in ["parameters", "receiver"] {
            let Some(list) = fnode.child_by_field_name(f) else {
                continue;
            };
            for p in named_children(list) {
                let (names, ty): (Vec<&str>, Option<&str>) = match p.kind() {
                    "typed_parameter" => (
                        p.named_child(0).map(|n| self.text(n)).into_iter().collect(),
                        self.field(p, "type"),
                    ),
                    "typed_default_parameter" | "formal_parameter" => (
                        self.field(p, "name").into_iter().collect(),
                        self.field(p, "type"),
                    ),
                    "required_parameter" | "optional_parameter" => (
                        self.field(p, "pattern").into_iter().collect(),
                        self.field(p, "type").map(|t| t.trim_start_matches(':')),
                    ),
                    "parameter" => (
                        self.field(p, "pattern").into_iter().collect(),
                        self.field(p, "type"),
                    ),
                    "parameter_declaration" => {
                        let mut cur = p.walk();
                        let names = p
                            .children_by_field_name("name", &mut cur)
                            .map(|n| self.text(n))
                            .collect();
                        (names, self.field(p, "type"))
                    }
                    _ => continue,
                };
                let Some(ty) = ty.and_then(type_name) else {
                    continue;
                };
                for n in names {
                    out.push((
                        n.trim_start_matches("mut ").trim(),
                        ty.clone(),
                        f == "receiver",
                    ));
                }
            }
        }
        out
    }

    /// The declared type of parameter `name` of the function around `node`.
    fn enclosing_param(&self, node: Node, name: &str) -> Option<Receiver> {
        let f = std::iter::successors(node.parent(), |n| n.parent()).find(|n| {
            matches!(
                n.kind(),
                "function_definition" | "method_definition" | "function_declaration"
            )
        })?;
        self.typed_params(f)
            .into_iter()
            .find(|(n, _, receiver)| *n == name && !receiver)
            .map(|(_, ty, _)| Receiver::Type(ty))
    }

    /// `for x in xs`: `x` is of `xs`'s element type (collections unwrap in `type_name`).
    fn bind_loop(&mut self, node: Node, stack: &mut [Frame]) {
        let (var, iter) = match node.kind() {
            "for_statement" | "for_in_statement" => (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ),
            "range_clause" => (
                node.child_by_field_name("left")
                    .and_then(|l| l.named_child(l.named_child_count().saturating_sub(1) as u32)),
                node.child_by_field_name("right"),
            ),
            "for_expression" => (
                node.child_by_field_name("pattern"),
                node.child_by_field_name("value"),
            ),
            "enhanced_for_statement" => {
                let (Some(name), Some(ty)) =
                    (node.child_by_field_name("name"), self.field(node, "type"))
                else {
                    return;
                };
                if let Some(t) = type_name(ty) {
                    self.set_local(self.text(name).to_string(), Receiver::Type(t), stack);
                }
                return;
            }
            _ => return,
        };
        let (Some(var), Some(iter)) = (var, iter) else {
            return;
        };
        if var.kind() != "identifier" {
            return;
        }
        let ty = match iter.kind() {
            // `for x in self.items` / `this.items`: a field's declared type.
            "attribute" | "member_expression" | "field_expression" | "selector_expression" => {
                match self.receiver(iter, stack) {
                    Receiver::Unknown | Receiver::Path(_) => None,
                    r => Some(r),
                }
            }
            _ => self.value_type(iter, stack),
        };
        if let Some(t) = ty {
            self.set_local(self.text(var).to_string(), t, stack);
        }
    }

    fn set_local(&mut self, var: String, ty: Receiver, stack: &mut [Frame]) {
        match stack.last_mut() {
            Some(f) => {
                f.env.insert(var, ty);
            }
            None => {
                self.module_env.insert(var, ty);
            }
        }
    }

    /// `return x` in a function whose signature gives no type: remember what `x` is.
    fn returns(&mut self, node: Node, stack: &[Frame]) {
        let Some(frame) = stack.iter().rev().find(|f| is_callable(f.kind)) else {
            return;
        };
        let Some(i) = frame.symbol else { return };
        if self.out.symbols[i].returns.is_some() {
            return;
        }
        let Some(mut value) = node.named_child(0) else {
            return;
        };
        if value.kind() == "expression_list" {
            match value.named_child(0) {
                Some(v) => value = v,
                None => return,
            }
        }
        let ty = self.value_type(value, stack);
        self.out.symbols[i].returns = ty;
    }

    /// Records the type of a local from its declaration or assignment.
    fn bind(&mut self, node: Node, stack: &mut [Frame]) {
        let pairs: Vec<(Node, Option<Node>, Option<Node>)> = match node.kind() {
            "assignment" => vec![(
                match node.child_by_field_name("left") {
                    Some(l) => l,
                    None => return,
                },
                node.child_by_field_name("type"),
                node.child_by_field_name("right"),
            )],
            "variable_declarator" => match node.child_by_field_name("name") {
                Some(n) => vec![(
                    n,
                    node.child_by_field_name("type"),
                    node.child_by_field_name("value"),
                )],
                None => return,
            },
            "let_declaration" => match node.child_by_field_name("pattern") {
                Some(n) => vec![(
                    n,
                    node.child_by_field_name("type"),
                    node.child_by_field_name("value"),
                )],
                None => return,
            },
            "var_spec" => match node.child_by_field_name("name") {
                Some(n) => vec![(
                    n,
                    node.child_by_field_name("type"),
                    node.child_by_field_name("value")
                        .and_then(|v| v.named_child(0)),
                )],
                None => return,
            },
            "short_var_declaration" => {
                let (Some(l), Some(r)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) else {
                    return;
                };
                match (l.named_child(0), r.named_child(0)) {
                    (Some(n), v) => vec![(n, None, v)],
                    _ => return,
                }
            }
            "local_variable_declaration" => {
                let ty = node.child_by_field_name("type");
                let mut cur = node.walk();
                node.children_by_field_name("declarator", &mut cur)
                    .filter_map(|d| d.child_by_field_name("name").map(|n| (n, ty, None)))
                    .collect()
            }
            _ => return,
        };
        for (name, ty, value) in pairs {
            if !matches!(name.kind(), "identifier") {
                continue;
            }
            let var = self.text(name).to_string();
            let known = ty
                .and_then(|t| type_name(self.text(t).trim_start_matches(':')))
                .map(Receiver::Type)
                .or_else(|| value.and_then(|v| self.value_type(v, stack)));
            if let Some(r) = known {
                self.set_local(var, r, stack);
            }
        }
    }

    /// What a value expression's type is, as far as its syntax tells.
    fn value_type(&self, v: Node, stack: &[Frame]) -> Option<Receiver> {
        match v.kind() {
            "new_expression" | "object_creation_expression" => {
                let c = v
                    .child_by_field_name("constructor")
                    .or_else(|| v.child_by_field_name("type"))?;
                type_name(self.text(c)).map(Receiver::Type)
            }
            "struct_expression" => type_name(self.field(v, "name")?).map(Receiver::Type),
            "composite_literal" => type_name(self.field(v, "type")?).map(Receiver::Type),
            "unary_expression"
            | "reference_expression"
            | "await_expression"
            | "await"
            | "try_expression" => {
                let inner = v
                    .child_by_field_name("operand")
                    .or_else(|| v.child_by_field_name("value"))
                    .or_else(|| v.named_child(0))?;
                self.value_type(inner, stack)
            }
            "call" | "call_expression" => {
                let f = v.child_by_field_name("function")?;
                match f.kind() {
                    "attribute" | "member_expression" | "selector_expression" => {
                        // `board.add(…)` with `board: Board` → what `Board.add` returns.
                        let (obj, method) = match f.kind() {
                            "attribute" => {
                                (f.child_by_field_name("object"), self.field(f, "attribute"))
                            }
                            "member_expression" => {
                                (f.child_by_field_name("object"), self.field(f, "property"))
                            }
                            _ => (f.child_by_field_name("operand"), self.field(f, "field")),
                        };
                        let typed =
                            obj.zip(method)
                                .and_then(|(o, m)| match self.receiver(o, stack) {
                                    Receiver::Type(t) => Some(format!("{t}.{m}")),
                                    Receiver::SelfType => Some(format!("self.{m}")),
                                    // `store.New(p).Get(id)`: a chain the resolver follows.
                                    Receiver::ReturnOf(e) => Some(format!("{e}().{m}")),
                                    _ => None,
                                });
                        Some(Receiver::ReturnOf(
                            typed.unwrap_or_else(|| self.text(f).to_string()),
                        ))
                    }
                    "identifier" | "scoped_identifier" => {
                        Some(Receiver::ReturnOf(self.text(f).to_string()))
                    }
                    "field_expression" => {
                        // `x.unwrap()` / `Store::open(p)?` chains: the type of the base call.
                        let base = f.child_by_field_name("value")?;
                        let method = self.field(f, "field")?;
                        if matches!(method, "unwrap" | "expect" | "clone" | "to_owned") {
                            return self.value_type(base, stack);
                        }
                        // `self.embedder()?` / `store.open()`: what that method returns.
                        match self.receiver(base, stack) {
                            Receiver::SelfType => {
                                Some(Receiver::ReturnOf(format!("self.{method}")))
                            }
                            Receiver::Type(t) => Some(Receiver::ReturnOf(format!("{t}.{method}"))),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            "identifier" => {
                let t = self.text(v);
                self.lookup(t, stack).or_else(|| {
                    // A Rust unit struct used as a value: `let hex = Hex;`.
                    (self.lang == Language::Rust && t.starts_with(|c: char| c.is_ascii_uppercase()))
                        .then(|| Receiver::Type(t.to_string()))
                })
            }
            _ => None,
        }
    }

    /// Java and C++ name fields without `this`.
    fn implicit_field(&self, name: &str, stack: &[Frame]) -> Option<Receiver> {
        if !matches!(self.lang, Language::Java | Language::Cpp) {
            return None;
        }
        let owner = stack.iter().rev().find_map(|f| f.self_type.as_deref())?;
        self.fields.get(owner)?.get(name).cloned()
    }

    fn lookup(&self, var: &str, stack: &[Frame]) -> Option<Receiver> {
        stack
            .iter()
            .rev()
            .find_map(|f| f.env.get(var).cloned())
            .or_else(|| self.module_env.get(var).cloned())
    }

    /// The receiver of `obj.method()`.
    fn receiver(&self, obj: Node, stack: &[Frame]) -> Receiver {
        let t = self.text(obj);
        match obj.kind() {
            "self" | "this" => Receiver::SelfType,
            "identifier" if t == "self" || t == "this" => Receiver::SelfType,
            "identifier" | "type_identifier" | "package_identifier" => self
                .lookup(t, stack)
                .or_else(|| self.implicit_field(t, stack))
                .unwrap_or_else(|| Receiver::Path(t.to_string())),
            "scoped_identifier" | "qualified_identifier" | "dotted_name" => {
                if t == "Self" {
                    Receiver::SelfType
                } else {
                    Receiver::Path(t.to_string())
                }
            }
            // `self.store.get()`: the field's type.
            "attribute"
            | "member_expression"
            | "field_expression"
            | "selector_expression"
            | "field_access" => {
                let (base, field) = match obj.kind() {
                    "attribute" => (
                        obj.child_by_field_name("object"),
                        self.field(obj, "attribute"),
                    ),
                    "member_expression" => (
                        obj.child_by_field_name("object"),
                        self.field(obj, "property"),
                    ),
                    "field_expression" => (
                        obj.child_by_field_name("value")
                            .or_else(|| obj.child_by_field_name("argument")),
                        self.field(obj, "field"),
                    ),
                    "field_access" => (obj.child_by_field_name("object"), self.field(obj, "field")),
                    _ => (obj.child_by_field_name("operand"), self.field(obj, "field")),
                };
                let (Some(base), Some(field)) = (base, field) else {
                    return Receiver::Unknown;
                };
                let owner = match self.receiver(base, stack) {
                    Receiver::SelfType => stack.iter().rev().find_map(|f| f.self_type.clone()),
                    Receiver::Type(t) => Some(t),
                    // `pkg.sub.f()`: a dotted module path.
                    Receiver::Path(p)
                        if matches!(
                            obj.kind(),
                            "attribute" | "member_expression" | "selector_expression"
                        ) =>
                    {
                        return Receiver::Path(format!("{p}.{field}"));
                    }
                    _ => None,
                };
                owner
                    .and_then(|o| self.fields.get(&o).and_then(|m| m.get(field)).cloned())
                    .unwrap_or(Receiver::Unknown)
            }
            "call"
            | "call_expression"
            | "new_expression"
            | "parenthesized_expression"
            | "try_expression"
            | "await_expression"
            | "await" => self.value_type(obj, stack).unwrap_or(Receiver::Unknown),
            _ => Receiver::Unknown,
        }
    }

    // ------------------------------------------------------------------ references

    /// The qualified name calls at `node` are attributed to: the innermost frame whose
    /// declaration proper contains it (decorators belong to the scope around).
    fn caller(&self, node: Node, stack: &[Frame]) -> Option<String> {
        stack
            .iter()
            .rev()
            .find(|f| node.start_byte() >= f.sig_start)
            .map(|f| f.qualified.clone())
    }

    fn push_call(&mut self, node: Node, name: &str, receiver: Receiver, stack: &[Frame]) {
        let name = name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        {
            return;
        }
        self.out.refs.push(Reference {
            kind: RefKind::Calls,
            caller: self.caller(node, stack),
            name: name.to_string(),
            receiver,
            line: self.line(node),
        });
    }

    fn reference(&mut self, node: Node, stack: &[Frame]) {
        match node.kind() {
            "call" | "call_expression" => {
                let Some(f) = node.child_by_field_name("function") else {
                    return;
                };
                self.callee(node, f, stack);
            }
            "new_expression" | "object_creation_expression" => {
                let Some(c) = node
                    .child_by_field_name("constructor")
                    .or_else(|| node.child_by_field_name("type"))
                else {
                    return;
                };
                match c.kind() {
                    "member_expression" | "scoped_type_identifier" => {
                        let (obj, prop) = match c.kind() {
                            "member_expression" => (
                                c.child_by_field_name("object"),
                                c.child_by_field_name("property"),
                            ),
                            _ => (
                                c.named_child(0),
                                c.named_child(c.named_child_count().saturating_sub(1) as u32),
                            ),
                        };
                        if let (Some(o), Some(p)) = (obj, prop) {
                            let r = Receiver::Path(self.text(o).to_string());
                            self.push_call(node, self.text(p), r, stack);
                        }
                    }
                    _ => {
                        if let Some(t) = type_name(self.text(c)) {
                            self.push_call(node, &t, Receiver::None, stack);
                        }
                    }
                }
            }
            "method_invocation" => {
                let Some(name) = self.field(node, "name") else {
                    return;
                };
                let r = match node.child_by_field_name("object") {
                    Some(o) => self.receiver(o, stack),
                    None => Receiver::None,
                };
                self.push_call(node, name, r, stack);
            }
            "decorator" => {
                if let Some(e) = node.named_child(0)
                    && matches!(e.kind(), "identifier" | "attribute")
                {
                    self.callee(node, e, stack);
                }
            }
            "macro_invocation" => {
                for c in named_children(node) {
                    if c.kind() == "token_tree" {
                        self.token_tree_calls(c, stack, 0);
                    }
                }
            }
            _ => {}
        }
    }

    /// A call's function expression: a bare name, `obj.m`, `path::f`, `pkg.F`.
    fn callee(&mut self, call: Node, f: Node, stack: &[Frame]) {
        match f.kind() {
            "identifier" => {
                let name = self.text(f);
                if self.lang == Language::Python && name == "super" {
                    return;
                }
                self.push_call(call, name, Receiver::None, stack);
            }
            "attribute" | "member_expression" | "field_expression" | "selector_expression" => {
                let (obj, name) = match f.kind() {
                    "attribute" => (f.child_by_field_name("object"), self.field(f, "attribute")),
                    "member_expression" => {
                        (f.child_by_field_name("object"), self.field(f, "property"))
                    }
                    "field_expression" => (
                        f.child_by_field_name("value")
                            .or_else(|| f.child_by_field_name("argument")),
                        self.field(f, "field"),
                    ),
                    _ => (f.child_by_field_name("operand"), self.field(f, "field")),
                };
                let (Some(obj), Some(name)) = (obj, name) else {
                    return;
                };
                // `super().__init__()` / `super.m()`: the base class's method.
                let r = if self.text(obj) == "super()" || obj.kind() == "super" {
                    self.base_of(stack)
                        .map(Receiver::Type)
                        .unwrap_or(Receiver::Unknown)
                } else {
                    self.receiver(obj, stack)
                };
                self.push_call(call, name, r, stack);
            }
            "scoped_identifier" | "qualified_identifier" => {
                let path = f
                    .child_by_field_name("path")
                    .or_else(|| f.child_by_field_name("scope"));
                let Some(name) = self.field(f, "name") else {
                    return;
                };
                let r = match path.map(|p| self.text(p)) {
                    Some("Self") => Receiver::SelfType,
                    Some(p) => Receiver::Path(p.to_string()),
                    None => Receiver::None,
                };
                self.push_call(call, name, r, stack);
            }
            // `super(…)` in a constructor: the base class.
            "super" => {
                if let Some(base) = self.base_of(stack) {
                    self.push_call(call, &base, Receiver::None, stack);
                }
            }
            "generic_function" | "template_function" => {
                if let Some(inner) = f
                    .child_by_field_name("function")
                    .or_else(|| f.child_by_field_name("name"))
                {
                    self.callee(call, inner, stack);
                }
            }
            _ => {}
        }
    }

    /// The base class of the innermost enclosing class.
    fn base_of(&self, stack: &[Frame]) -> Option<String> {
        stack
            .iter()
            .rev()
            .find(|f| f.kind.is_type())
            .and_then(|f| f.base.clone())
    }

    /// Calls written inside a Rust macro's tokens: `name(…)`, `x.name(…)`, `a::b(…)`.
    fn token_tree_calls(&mut self, tt: Node, stack: &[Frame], depth: usize) {
        if depth > 16 {
            return;
        }
        let kids = lang::children(tt);
        for (i, c) in kids.iter().enumerate() {
            if c.kind() == "token_tree" {
                self.token_tree_calls(*c, stack, depth + 1);
                continue;
            }
            if c.kind() != "identifier" {
                continue;
            }
            let opens_call = kids
                .get(i + 1)
                .is_some_and(|n| n.kind() == "token_tree" && self.text(*n).starts_with('('));
            if !opens_call {
                continue;
            }
            let name = self.text(*c);
            let prev = |k: usize| {
                i.checked_sub(k)
                    .and_then(|j| kids.get(j))
                    .map(|n| (n.kind(), self.text(*n)))
            };
            let receiver = match (prev(1), prev(2)) {
                (Some((_, ".")), Some(("self", _))) => Receiver::SelfType,
                (Some((_, ".")), Some(("identifier", v))) => self
                    .lookup(v, stack)
                    .unwrap_or_else(|| Receiver::Path(v.to_string())),
                (Some((_, ".")), _) => Receiver::Unknown,
                (Some((_, "::")), Some((_, "Self"))) => Receiver::SelfType,
                (Some((_, "::")), Some((_, p))) => Receiver::Path(p.to_string()),
                _ => Receiver::None,
            };
            self.push_call(*c, name, receiver, stack);
        }
    }

    /// `extends` / `implements` of a type definition.
    /// Records `extends`/`implements` of a type; returns its (first) base class.
    fn heritage(&mut self, node: Node, qualified: &str) -> Option<String> {
        let mut bases: Vec<(RefKind, String, u32)> = Vec::new();
        let def = match node.kind() {
            "decorated_definition" => node.child_by_field_name("definition").unwrap_or(node),
            "export_statement" => node.child_by_field_name("declaration").unwrap_or(node),
            _ => node,
        };
        let visit = |kind: RefKind, n: Node, bases: &mut Vec<(RefKind, String, u32)>| {
            let t = self.text(n);
            if let Some(b) = type_name(t) {
                bases.push((kind, b, self.line(n)));
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
        for (kind, name, line) in bases {
            self.out.refs.push(Reference {
                kind,
                caller: Some(qualified.to_string()),
                name,
                receiver: Receiver::None,
                line,
            });
        }
        first_base
    }
}

// ---------------------------------------------------------------------- imports

/// The imports of a parsed file.
pub(crate) fn imports(src: &Src, lang: Language, tree: &Tree) -> Vec<Import> {
    let mut out = Vec::new();
    let mut stack = vec![(tree.root_node(), 0usize)];
    let text = |n: Node| src.slice(n.start_byte(), n.end_byte());
    while let Some((n, depth)) = stack.pop() {
        let line = src.line_of(n.start_byte());
        let mut imp = |module: String,
                       names: Vec<ImportedName>,
                       alias: Option<String>,
                       wildcard: bool,
                       type_only: bool| {
            out.push(Import {
                module,
                names,
                alias,
                wildcard,
                type_only,
                line,
            });
        };
        match (lang, n.kind()) {
            (Language::Python, "import_statement") => {
                for c in named_children(n) {
                    match c.kind() {
                        "dotted_name" => imp(text(c).to_string(), vec![], None, false, false),
                        "aliased_import" => {
                            let m = c.child_by_field_name("name").map(text).unwrap_or("");
                            let a = c.child_by_field_name("alias").map(|a| text(a).to_string());
                            imp(m.to_string(), vec![], a, false, false);
                        }
                        _ => {}
                    }
                }
                continue;
            }
            (Language::Python, "import_from_statement") => {
                let module = n
                    .child_by_field_name("module_name")
                    .map(text)
                    .unwrap_or("")
                    .to_string();
                let mut names = Vec::new();
                let mut wildcard = false;
                let mut cur = n.walk();
                for c in n.children_by_field_name("name", &mut cur) {
                    match c.kind() {
                        "aliased_import" => names.push(ImportedName {
                            name: c
                                .child_by_field_name("name")
                                .map(text)
                                .unwrap_or("")
                                .to_string(),
                            alias: c.child_by_field_name("alias").map(|a| text(a).to_string()),
                        }),
                        _ => names.push(ImportedName {
                            name: text(c).to_string(),
                            alias: None,
                        }),
                    }
                }
                if named_children(n)
                    .iter()
                    .any(|c| c.kind() == "wildcard_import")
                {
                    wildcard = true;
                }
                imp(module, names, None, wildcard, false);
                continue;
            }
            (Language::JavaScript | Language::TypeScript | Language::Tsx, "import_statement") => {
                let Some(source) = n.child_by_field_name("source") else {
                    continue;
                };
                let module = text(source).trim_matches(['"', '\'', '`']).to_string();
                let type_only = lang::children(n).iter().any(|c| c.kind() == "type");
                let mut names = Vec::new();
                let mut alias = None;
                for clause in named_children(n)
                    .into_iter()
                    .filter(|c| c.kind() == "import_clause")
                {
                    for c in named_children(clause) {
                        match c.kind() {
                            "identifier" => names.push(ImportedName {
                                name: "default".into(),
                                alias: Some(text(c).to_string()),
                            }),
                            "namespace_import" => {
                                alias = c.named_child(0).map(|i| text(i).to_string())
                            }
                            "named_imports" => {
                                for s in named_children(c)
                                    .into_iter()
                                    .filter(|s| s.kind() == "import_specifier")
                                {
                                    names.push(ImportedName {
                                        name: s
                                            .child_by_field_name("name")
                                            .map(text)
                                            .unwrap_or("")
                                            .to_string(),
                                        alias: s
                                            .child_by_field_name("alias")
                                            .map(|a| text(a).to_string()),
                                    });
                                }
                            }
                            _ => {}
                        }
                    }
                }
                imp(module, names, alias, false, type_only);
                continue;
            }
            // `export { a, b as c } from "./x"` / `export * from "./x"`: re-exports.
            (Language::JavaScript | Language::TypeScript | Language::Tsx, "export_statement")
                if n.child_by_field_name("source").is_some() =>
            {
                let Some(source) = n.child_by_field_name("source") else {
                    continue;
                };
                let module = text(source).trim_matches(['"', '\'', '`']).to_string();
                let mut names = Vec::new();
                for clause in named_children(n)
                    .into_iter()
                    .filter(|c| c.kind() == "export_clause")
                {
                    for s in named_children(clause)
                        .into_iter()
                        .filter(|s| s.kind() == "export_specifier")
                    {
                        names.push(ImportedName {
                            name: s
                                .child_by_field_name("name")
                                .map(text)
                                .unwrap_or("")
                                .to_string(),
                            alias: s.child_by_field_name("alias").map(|a| text(a).to_string()),
                        });
                    }
                }
                let wildcard = names.is_empty();
                imp(module, names, None, wildcard, false);
                continue;
            }
            (Language::Rust, "use_declaration") => {
                if let Some(arg) = n.child_by_field_name("argument") {
                    rust_use(src, arg, "", line, &mut out);
                }
                continue;
            }
            (Language::Rust, "mod_item") if n.child_by_field_name("body").is_none() => {
                if let Some(name) = n.child_by_field_name("name") {
                    imp(
                        format!("self::{}", text(name)),
                        vec![],
                        Some(text(name).to_string()),
                        false,
                        false,
                    );
                }
                continue;
            }
            (Language::Go, "import_spec") => {
                let Some(path) = n.child_by_field_name("path") else {
                    continue;
                };
                let module = text(path).trim_matches(['"', '`']).to_string();
                let alias = n
                    .child_by_field_name("name")
                    .map(|a| text(a).to_string())
                    .or_else(|| module.rsplit('/').next().map(str::to_string));
                let wildcard = alias.as_deref() == Some(".");
                imp(module, vec![], alias, wildcard, false);
                continue;
            }
            (Language::Java, "import_declaration") => {
                let wildcard = named_children(n).iter().any(|c| c.kind() == "asterisk");
                if let Some(p) = named_children(n)
                    .into_iter()
                    .find(|c| matches!(c.kind(), "scoped_identifier" | "identifier"))
                {
                    let full = text(p).to_string();
                    if wildcard {
                        imp(full, vec![], None, true, false);
                    } else {
                        let (m, name) = full.rsplit_once('.').unwrap_or(("", &full));
                        imp(
                            m.to_string(),
                            vec![ImportedName {
                                name: name.to_string(),
                                alias: None,
                            }],
                            None,
                            false,
                            false,
                        );
                    }
                }
                continue;
            }
            (Language::C | Language::Cpp, "preproc_include") => {
                if let Some(p) = n.child_by_field_name("path") {
                    let module = text(p).trim_matches(['"', '<', '>']).to_string();
                    imp(module, vec![], None, true, false);
                }
                continue;
            }
            _ => {}
        }
        if depth < 8 {
            for c in named_children(n).into_iter().rev() {
                stack.push((c, depth + 1));
            }
        }
    }
    out.sort_by_key(|i| i.line);
    out
}

/// Flattens a Rust `use` tree: `a::{b, c::d as e, f::*}`.
fn rust_use(src: &Src, node: Node, prefix: &str, line: u32, out: &mut Vec<Import>) {
    let text = |n: Node| src.slice(n.start_byte(), n.end_byte());
    let join = |p: &str, s: &str| {
        if p.is_empty() {
            s.to_string()
        } else {
            format!("{p}::{s}")
        }
    };
    match node.kind() {
        "scoped_identifier" | "identifier" | "crate" | "self" | "super" => {
            let full = join(prefix, &collapse_ws(text(node)));
            let (m, name) = full.rsplit_once("::").unwrap_or(("", &full));
            out.push(Import {
                module: m.to_string(),
                names: vec![ImportedName {
                    name: name.to_string(),
                    alias: None,
                }],
                alias: None,
                wildcard: false,
                type_only: false,
                line,
            });
        }
        "use_as_clause" => {
            let Some(path) = node.child_by_field_name("path") else {
                return;
            };
            let full = join(prefix, &collapse_ws(text(path)));
            let (m, name) = full.rsplit_once("::").unwrap_or(("", &full));
            out.push(Import {
                module: m.to_string(),
                names: vec![ImportedName {
                    name: name.to_string(),
                    alias: node
                        .child_by_field_name("alias")
                        .map(|a| text(a).to_string()),
                }],
                alias: None,
                wildcard: false,
                type_only: false,
                line,
            });
        }
        "use_wildcard" => {
            let inner = node
                .named_child(0)
                .map(|n| collapse_ws(text(n)))
                .unwrap_or_default();
            out.push(Import {
                module: join(prefix, &inner),
                names: vec![],
                alias: None,
                wildcard: true,
                type_only: false,
                line,
            });
        }
        "scoped_use_list" => {
            let p = node
                .child_by_field_name("path")
                .map(|p| join(prefix, &collapse_ws(text(p))))
                .unwrap_or_else(|| prefix.to_string());
            if let Some(list) = node.child_by_field_name("list") {
                rust_use(src, list, &p, line, out);
            }
        }
        "use_list" => {
            for c in named_children(node) {
                rust_use(src, c, prefix, line, out);
            }
        }
        _ => {}
    }
}
