//! Per-language knowledge: which tree-sitter nodes are units, their names, bodies and
//! signatures, which nodes are comments/attributes, which are transparent wrappers.

use crate::text::Src;
use lore_core::{ChunkKind, Language};
use tree_sitter::Node;

/// Where a node sits: decides e.g. whether a function is a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Top level of a file.
    Top,
    /// Inside a class, struct, impl, trait or interface body.
    Type,
    /// Inside a namespace / module body.
    Namespace,
    /// Inside a function body.
    Function,
}

/// What a unit node is.
#[derive(Debug, Clone)]
pub(crate) struct UnitInfo<'t> {
    pub kind: ChunkKind,
    pub name: Option<String>,
    /// Overrides the enclosing scope's name as parent (Go receivers, C++ `Foo::bar`).
    pub parent: Option<String>,
    /// Byte range of the declaration (without decorators/attributes) up to the body.
    pub sig_start: usize,
    pub sig_end: usize,
    /// Signature is only the first line of `sig_start..sig_end` (consts, type aliases).
    pub first_line_sig: bool,
    /// End of the header including the body's opening `{` or `:`.
    pub header_end: usize,
    /// Node whose named children are the unit's members.
    pub body: Option<Node<'t>>,
    /// Scope of the members.
    pub member_scope: Scope,
    /// Parent name given to members.
    pub member_parent: Option<String>,
    /// Python docstring.
    pub docstring: Option<String>,
}

const MAX_CLASSIFY_DEPTH: usize = 8;

pub(crate) fn ts_language(lang: Language) -> Option<tree_sitter::Language> {
    Some(match lang {
        Language::Rust => tree_sitter_rust::LANGUAGE.into(),
        Language::Python => tree_sitter_python::LANGUAGE.into(),
        Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        Language::Go => tree_sitter_go::LANGUAGE.into(),
        Language::Java => tree_sitter_java::LANGUAGE.into(),
        Language::C => tree_sitter_c::LANGUAGE.into(),
        Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        Language::Markdown | Language::Text => return None,
    })
}

pub(crate) fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

pub(crate) fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

pub(crate) fn collapse_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

pub(crate) fn truncate_chars(s: &mut String, max: usize) {
    if let Some((i, _)) = s.char_indices().nth(max) {
        s.truncate(i);
    }
}

pub(crate) fn is_comment(kind: &str) -> bool {
    matches!(kind, "comment" | "line_comment" | "block_comment")
}

/// `\r\n` and lone `\r` as `\n`.
fn normalize_newlines(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Strips comment markers from one comment node's text.
pub(crate) fn strip_comment(text: &str) -> String {
    let text = normalize_newlines(text);
    let block = text.trim_start().starts_with("/*");
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut l = line.trim();
        for p in ["///", "//!", "//", "/**", "/*!", "/*", "#"] {
            if let Some(r) = l.strip_prefix(p) {
                l = r;
                break;
            }
        }
        if block {
            if let Some(r) = l.strip_suffix("*/") {
                l = r;
            }
            let t = l.trim_start();
            if let Some(r) = t.strip_prefix('*') {
                l = r;
            }
        }
        lines.push(l.trim().to_string());
    }
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

/// The text of a Python string literal without prefix, quotes and indentation.
fn clean_py_string(text: &str) -> String {
    let text = normalize_newlines(text);
    let mut t = text.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    for q in ["\"\"\"", "'''", "\"", "'"] {
        if t.len() >= 2 * q.len() && t.starts_with(q) && t.ends_with(q) {
            t = &t[q.len()..t.len() - q.len()];
            break;
        }
    }
    let lines: Vec<&str> = t.lines().map(str::trim).collect();
    lines.join("\n").trim().to_string()
}

/// The unit rules of one grammar, over one file's text.
pub(crate) struct LangRules<'s, 'a> {
    pub lang: Language,
    pub src: &'s Src<'a>,
}

impl<'a> LangRules<'_, 'a> {
    fn is_c_family(&self) -> bool {
        matches!(self.lang, Language::C | Language::Cpp)
    }

    fn is_js_family(&self) -> bool {
        matches!(
            self.lang,
            Language::JavaScript | Language::TypeScript | Language::Tsx
        )
    }

    /// Nodes whose children are treated as siblings of the node itself.
    pub fn is_transparent(&self, kind: &str) -> bool {
        if kind == "ERROR" {
            return true;
        }
        match self.lang {
            Language::C | Language::Cpp => matches!(
                kind,
                "preproc_ifdef"
                    | "preproc_if"
                    | "preproc_else"
                    | "preproc_elif"
                    | "preproc_elifdef"
                    | "linkage_specification"
                    | "declaration_list"
            ),
            Language::Go => kind == "statement_list",
            Language::Java => kind == "enum_body_declarations",
            _ => false,
        }
    }

    /// Comments, attributes and decorators that attach to the unit right below them.
    pub fn is_attachable(&self, node: Node) -> bool {
        let kind = node.kind();
        if is_comment(kind) {
            if self.lang == Language::Rust {
                let t = self.src.slice(node.start_byte(), node.end_byte());
                return !(t.starts_with("//!") || t.starts_with("/*!"));
            }
            return true;
        }
        matches!(
            kind,
            "attribute_item" | "decorator" | "attribute_declaration" | "annotation"
        )
    }

    fn text(&self, node: Node) -> &'a str {
        self.src.slice(node.start_byte(), node.end_byte())
    }

    fn field_text(&self, node: Node, field: &str) -> Option<String> {
        node.child_by_field_name(field)
            .map(|n| collapse_ws(self.text(n)))
            .filter(|s| !s.is_empty())
    }

    /// Start of the declaration proper: after leading decorators, attributes, comments
    /// and (Java) annotations.
    fn decl_start(&self, node: Node) -> usize {
        let kids = children(node);
        for (i, c) in kids.iter().enumerate() {
            let k = c.kind();
            if matches!(
                k,
                "decorator"
                    | "attribute_item"
                    | "attribute_declaration"
                    | "marker_annotation"
                    | "annotation"
            ) || is_comment(k)
            {
                continue;
            }
            if k == "modifiers" {
                if let Some(m) = children(*c).into_iter().find(|m| {
                    !matches!(m.kind(), "marker_annotation" | "annotation") && !is_comment(m.kind())
                }) {
                    return m.start_byte();
                }
                if let Some(next) = kids.get(i + 1) {
                    return next.start_byte();
                }
            }
            return c.start_byte();
        }
        node.start_byte()
    }

    fn base<'t>(
        &self,
        kind: ChunkKind,
        node: Node<'t>,
        name: Option<String>,
        body: Option<Node<'t>>,
        member_scope: Scope,
    ) -> UnitInfo<'t> {
        let body = body.filter(|b| {
            b.start_byte() >= node.start_byte()
                && b.end_byte() <= node.end_byte()
                && self.src.bytes.get(b.start_byte()) != Some(&b'(')
        });
        let (sig_end, header_end) = match body {
            Some(b) => {
                let s = b.start_byte();
                let h = if self.src.bytes.get(s) == Some(&b'{') {
                    s + 1
                } else {
                    s
                };
                (s, h)
            }
            None => (node.end_byte(), node.end_byte()),
        };
        UnitInfo {
            kind,
            name: name.clone(),
            parent: None,
            sig_start: self.decl_start(node),
            sig_end,
            first_line_sig: false,
            header_end,
            body,
            member_scope,
            member_parent: name,
            docstring: None,
        }
    }

    fn simple<'t>(&self, kind: ChunkKind, node: Node<'t>, name: Option<String>) -> UnitInfo<'t> {
        let mut u = self.base(kind, node, name, None, Scope::Type);
        u.first_line_sig = true;
        u
    }

    fn fn_kind(scope: Scope) -> ChunkKind {
        if scope == Scope::Type {
            ChunkKind::Method
        } else {
            ChunkKind::Function
        }
    }

    /// Is this node a unit in `scope`, and what is it?
    pub fn classify<'t>(&self, node: Node<'t>, scope: Scope) -> Option<UnitInfo<'t>> {
        self.classify_at(node, scope, 0)
    }

    fn classify_at<'t>(&self, node: Node<'t>, scope: Scope, depth: usize) -> Option<UnitInfo<'t>> {
        if depth > MAX_CLASSIFY_DEPTH || node.is_error() || node.is_missing() {
            return None;
        }
        match self.lang {
            Language::Rust => self.rust(node, scope),
            Language::Python => self.python(node, scope, depth),
            Language::Go => self.go(node),
            Language::Java => self.java(node, scope),
            _ if self.is_js_family() => self.js(node, scope, depth),
            _ if self.is_c_family() => self.c(node, scope, depth),
            _ => None,
        }
    }

    // ---------------------------------------------------------------- Rust

    fn rust<'t>(&self, node: Node<'t>, scope: Scope) -> Option<UnitInfo<'t>> {
        let name = self.field_text(node, "name");
        let body = node.child_by_field_name("body");
        Some(match node.kind() {
            "function_item" => self.base(Self::fn_kind(scope), node, name, body, Scope::Function),
            "function_signature_item" => self.base(Self::fn_kind(scope), node, name, None, scope),
            "struct_item" | "union_item" => {
                self.base(ChunkKind::Struct, node, name, body, Scope::Type)
            }
            "enum_item" => self.base(ChunkKind::Enum, node, name, body, Scope::Type),
            "trait_item" => self.base(ChunkKind::Trait, node, name, body, Scope::Type),
            "impl_item" => {
                let ty = self.field_text(node, "type");
                let tr = self.field_text(node, "trait");
                let mut u = self.base(ChunkKind::Impl, node, ty.clone(), body, Scope::Type);
                u.member_parent = Some(match (&tr, &ty) {
                    (Some(t), Some(y)) => format!("impl {t} for {y}"),
                    (None, Some(y)) => format!("impl {y}"),
                    _ => "impl".to_string(),
                });
                u
            }
            "type_item" | "associated_type" => self.simple(ChunkKind::Type, node, name),
            "const_item" | "static_item" => self.simple(ChunkKind::Const, node, name),
            "mod_item" if body.is_some() => {
                self.base(ChunkKind::Module, node, name, body, Scope::Namespace)
            }
            "macro_definition" => {
                let mut u = self.simple(ChunkKind::Module, node, name);
                if let Some(open) = children(node)
                    .into_iter()
                    .find(|c| matches!(c.kind(), "{" | "(" | "["))
                {
                    u.sig_end = open.start_byte();
                }
                u
            }
            "foreign_mod_item" if body.is_some() => {
                self.base(ChunkKind::Module, node, None, body, Scope::Namespace)
            }
            _ => return None,
        })
    }

    // ---------------------------------------------------------------- Python

    fn python<'t>(&self, node: Node<'t>, scope: Scope, depth: usize) -> Option<UnitInfo<'t>> {
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

    // ---------------------------------------------------------------- Go

    fn go<'t>(&self, node: Node<'t>) -> Option<UnitInfo<'t>> {
        let name = self.field_text(node, "name");
        let body = node.child_by_field_name("body");
        Some(match node.kind() {
            "function_declaration" => {
                self.base(ChunkKind::Function, node, name, body, Scope::Function)
            }
            "method_declaration" => {
                let mut u = self.base(ChunkKind::Method, node, name, body, Scope::Function);
                u.parent = node
                    .child_by_field_name("receiver")
                    .and_then(|r| first_descendant(r, "type_identifier"))
                    .map(|t| self.text(t).to_string());
                u
            }
            "type_declaration" => {
                let specs: Vec<Node> = named_children(node)
                    .into_iter()
                    .filter(|c| matches!(c.kind(), "type_spec" | "type_alias"))
                    .collect();
                let first = specs.first()?;
                let name = self.field_text(*first, "name");
                let ty = first.child_by_field_name("type");
                match (specs.len(), ty.map(|t| t.kind())) {
                    (1, Some("struct_type")) => {
                        let ty = ty?;
                        let body = named_children(ty)
                            .into_iter()
                            .find(|c| c.kind() == "field_declaration_list");
                        self.base(ChunkKind::Struct, node, name, body, Scope::Type)
                    }
                    (1, Some("interface_type")) => {
                        let ty = ty?;
                        let mut u =
                            self.base(ChunkKind::Interface, node, name, Some(ty), Scope::Type);
                        if let Some(brace) = children(ty).into_iter().find(|c| c.kind() == "{") {
                            u.sig_end = brace.start_byte();
                            u.header_end = brace.end_byte();
                        }
                        u
                    }
                    (1, _) => self.simple(ChunkKind::Type, node, name),
                    // A `type ( … )` group: the whole group is the signature.
                    _ => self.base(ChunkKind::Type, node, name, None, Scope::Type),
                }
            }
            "const_declaration" => {
                let specs: Vec<Node> = named_children(node)
                    .into_iter()
                    .filter(|c| c.kind() == "const_spec")
                    .collect();
                let name = specs.first().and_then(|s| self.field_text(*s, "name"));
                if specs.len() == 1 {
                    self.simple(ChunkKind::Const, node, name)
                } else {
                    self.base(ChunkKind::Const, node, name, None, Scope::Type)
                }
            }
            _ => return None,
        })
    }

    // ---------------------------------------------------------------- Java

    fn java<'t>(&self, node: Node<'t>, scope: Scope) -> Option<UnitInfo<'t>> {
        let name = self.field_text(node, "name");
        let body = node.child_by_field_name("body");
        let (kind, member_scope) = match node.kind() {
            "class_declaration" | "record_declaration" => (ChunkKind::Class, Scope::Type),
            "interface_declaration" | "annotation_type_declaration" => {
                (ChunkKind::Interface, Scope::Type)
            }
            "enum_declaration" => (ChunkKind::Enum, Scope::Type),
            "method_declaration"
            | "constructor_declaration"
            | "compact_constructor_declaration" => (Self::fn_kind(scope), Scope::Function),
            _ => return None,
        };
        Some(self.base(kind, node, name, body, member_scope))
    }

    // ---------------------------------------------------------------- JS / TS

    fn js_function_value(kind: &str) -> bool {
        matches!(
            kind,
            "arrow_function"
                | "function_expression"
                | "function"
                | "generator_function"
                | "generator_function_declaration"
        )
    }

    /// A unit whose declaration is `node` but whose body lives in a function/class value.
    fn js_valued<'t>(
        &self,
        node: Node<'t>,
        value: Node<'t>,
        name: Option<String>,
        scope: Scope,
    ) -> Option<UnitInfo<'t>> {
        let (kind, body, member_scope) = if Self::js_function_value(value.kind()) {
            (
                Self::fn_kind(scope),
                value.child_by_field_name("body"),
                Scope::Function,
            )
        } else if value.kind() == "class" {
            (
                ChunkKind::Class,
                value.child_by_field_name("body"),
                Scope::Type,
            )
        } else {
            return None;
        };
        let mut u = self.base(kind, node, name, body, member_scope);
        if let Some(b) = body
            && self.src.bytes.get(b.start_byte()) != Some(&b'{')
        {
            // Expression-bodied arrow function: no members to split into.
            u.body = None;
        }
        Some(u)
    }

    fn js<'t>(&self, node: Node<'t>, scope: Scope, depth: usize) -> Option<UnitInfo<'t>> {
        let name = self.field_text(node, "name");
        let body = node.child_by_field_name("body");
        Some(match node.kind() {
            "function_declaration"
            | "generator_function_declaration"
            | "function_expression"
            | "function"
            | "generator_function" => {
                self.base(Self::fn_kind(scope), node, name, body, Scope::Function)
            }
            "function_signature" => self.base(Self::fn_kind(scope), node, name, None, scope),
            "class_declaration" | "abstract_class_declaration" | "class" => {
                self.base(ChunkKind::Class, node, name, body, Scope::Type)
            }
            "interface_declaration" => {
                self.base(ChunkKind::Interface, node, name, body, Scope::Type)
            }
            "type_alias_declaration" => self.simple(ChunkKind::Type, node, name),
            "enum_declaration" => self.base(ChunkKind::Enum, node, name, body, Scope::Type),
            "internal_module" | "module" => {
                body?;
                self.base(ChunkKind::Module, node, name, body, Scope::Namespace)
            }
            "lexical_declaration" | "variable_declaration" => {
                if scope == Scope::Type {
                    return None;
                }
                let decls: Vec<Node> = named_children(node)
                    .into_iter()
                    .filter(|c| c.kind() == "variable_declarator")
                    .collect();
                let [decl] = decls.as_slice() else {
                    return None;
                };
                let name = self.field_text(*decl, "name");
                let value = decl.child_by_field_name("value");
                if let Some(v) = value
                    && let Some(u) = self.js_valued(node, v, name.clone(), scope)
                {
                    return Some(u);
                }
                let is_const = node.child(0).is_some_and(|c| c.kind() == "const");
                let multiline = self.src.line_of(node.start_byte())
                    != self.src.last_line(node.start_byte(), node.end_byte());
                if is_const && multiline && matches!(scope, Scope::Top | Scope::Namespace) {
                    self.simple(ChunkKind::Const, node, name)
                } else {
                    return None;
                }
            }
            "export_statement" => {
                let inner = node
                    .child_by_field_name("declaration")
                    .or_else(|| node.child_by_field_name("value"))?;
                let mut u = self.classify_at(inner, scope, depth + 1)?;
                u.sig_start = self.decl_start(node);
                if u.name.is_none() && children(node).iter().any(|c| c.kind() == "default") {
                    u.name = Some("default".to_string());
                    u.member_parent = u.name.clone();
                }
                u
            }
            "ambient_declaration" => {
                let inner = named_children(node).into_iter().next()?;
                let mut u = self.classify_at(inner, scope, depth + 1)?;
                u.sig_start = node.start_byte();
                u
            }
            "expression_statement" => {
                let inner = node.named_child(0)?;
                match inner.kind() {
                    "internal_module" | "module" => self.classify_at(inner, scope, depth + 1)?,
                    "assignment_expression" => {
                        let left = inner.child_by_field_name("left")?;
                        let right = inner.child_by_field_name("right")?;
                        let name = Some(collapse_ws(self.text(left)));
                        self.js_valued(node, right, name, scope)?
                    }
                    _ => return None,
                }
            }
            // Class members.
            "method_definition" => {
                self.base(Self::fn_kind(scope), node, name, body, Scope::Function)
            }
            "method_signature" | "abstract_method_signature" => {
                self.base(Self::fn_kind(scope), node, name, None, scope)
            }
            "public_field_definition" | "field_definition" => {
                let name = name.or_else(|| self.field_text(node, "property"));
                let value = node.child_by_field_name("value")?;
                self.js_valued(node, value, name, scope)?
            }
            _ => return None,
        })
    }

    // ---------------------------------------------------------------- C / C++

    fn c_specifier<'t>(&self, node: Node<'t>) -> Option<(ChunkKind, Node<'t>)> {
        let kind = match node.kind() {
            "struct_specifier" | "union_specifier" => ChunkKind::Struct,
            "class_specifier" => ChunkKind::Class,
            "enum_specifier" => ChunkKind::Enum,
            _ => return None,
        };
        let body = node.child_by_field_name("body")?;
        Some((kind, body))
    }

    fn c<'t>(&self, node: Node<'t>, scope: Scope, depth: usize) -> Option<UnitInfo<'t>> {
        let body = node.child_by_field_name("body");
        Some(match node.kind() {
            "function_definition" => {
                let full = node
                    .child_by_field_name("declarator")
                    .and_then(|d| declarator_name(d))
                    .map(|d| collapse_ws(self.text(d)));
                let (name, qual) = match full {
                    Some(f) => match f.rfind("::") {
                        Some(i) if i > 0 => (
                            Some(f[i + 2..].to_string()),
                            Some(f[..i].trim_start_matches("::").to_string()),
                        ),
                        _ => (Some(f), None),
                    },
                    None => (None, None),
                };
                let kind = if qual.is_some() {
                    ChunkKind::Method
                } else {
                    Self::fn_kind(scope)
                };
                let mut u = self.base(kind, node, name, body, Scope::Function);
                u.parent = qual;
                u
            }
            "struct_specifier" | "union_specifier" | "class_specifier" | "enum_specifier" => {
                let (kind, body) = self.c_specifier(node)?;
                let name = self.field_text(node, "name");
                self.base(kind, node, name, Some(body), Scope::Type)
            }
            "type_definition" | "declaration" | "field_declaration" => {
                let ty = node.child_by_field_name("type");
                let declared = node
                    .child_by_field_name("declarator")
                    .and_then(|d| declarator_name(d))
                    .map(|d| collapse_ws(self.text(d)));
                match ty.and_then(|t| self.c_specifier(t)) {
                    Some((kind, body)) => {
                        let spec_name = ty.and_then(|t| self.field_text(t, "name"));
                        let name = if node.kind() == "type_definition" {
                            declared.or(spec_name)
                        } else {
                            spec_name.or(declared)
                        };
                        self.base(kind, node, name, Some(body), Scope::Type)
                    }
                    None if node.kind() == "type_definition" => {
                        self.simple(ChunkKind::Type, node, declared)
                    }
                    None => return None,
                }
            }
            "namespace_definition" => {
                body?;
                let name = self.field_text(node, "name");
                self.base(ChunkKind::Module, node, name, body, Scope::Namespace)
            }
            "template_declaration" => {
                let inner = named_children(node).into_iter().rev().find(|c| {
                    !matches!(c.kind(), "template_parameter_list" | "requires_clause")
                        && !is_comment(c.kind())
                })?;
                let mut u = self.classify_at(inner, scope, depth + 1)?;
                u.sig_start = node.start_byte();
                u
            }
            "alias_declaration" | "concept_definition" => {
                let name = self.field_text(node, "name");
                self.simple(ChunkKind::Type, node, name)
            }
            _ => return None,
        })
    }
}

/// The name node inside a C/C++ declarator chain (`*f(int)` → `f`).
fn declarator_name(mut node: Node) -> Option<Node> {
    for _ in 0..32 {
        match node.kind() {
            "identifier"
            | "field_identifier"
            | "type_identifier"
            | "qualified_identifier"
            | "destructor_name"
            | "operator_name"
            | "operator_cast"
            | "template_function"
            | "primitive_type" => return Some(node),
            _ => {
                node = node
                    .child_by_field_name("declarator")
                    .or_else(|| node.named_child(0))?;
            }
        }
    }
    None
}

/// First descendant of a kind, breadth-limited.
fn first_descendant<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut stack = vec![node];
    let mut budget = 256;
    while let Some(n) = stack.pop() {
        if n.kind() == kind {
            return Some(n);
        }
        budget -= 1;
        if budget == 0 {
            return None;
        }
        let mut kids = named_children(n);
        kids.reverse();
        stack.extend(kids);
    }
    None
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_markers() {
        assert_eq!(strip_comment("/// Hello\n"), "Hello");
        assert_eq!(
            strip_comment("/**\n * Does X.\n * @param a thing\n */"),
            "Does X.\n@param a thing"
        );
        assert_eq!(strip_comment("# note"), "note");
        assert_eq!(strip_comment("/* one */"), "one");
        assert_eq!(
            clean_py_string("r\"\"\"Doc\n    more\n    \"\"\""),
            "Doc\nmore"
        );
        assert_eq!(clean_py_string("'x'"), "x");
    }
}
