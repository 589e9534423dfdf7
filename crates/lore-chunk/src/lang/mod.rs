//! Per-language knowledge: which tree-sitter nodes are units, their names, bodies and
//! signatures (one file per grammar family), which nodes are comments/attributes, which
//! are transparent wrappers; comment and docstring text (`comments`).

mod bash;
mod c;
mod comments;
mod csharp;
mod dart;
mod elixir;
mod erlang;
mod go;
mod graphql;
mod groovy;
mod haskell;
mod hcl;
mod java;
mod js;
mod json;
mod julia;
mod kotlin;
mod lua;
mod objc;
mod ocaml;
mod perl;
mod php;
mod powershell;
mod protobuf;
mod python;
mod r;
mod ruby;
mod rust;
mod scala;
mod solidity;
mod sql;
mod swift;
mod table;
mod toml;
mod yaml;
mod zig;

pub(crate) use comments::{documents, is_comment, strip_comment};

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
        Language::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
        Language::Ruby => tree_sitter_ruby::LANGUAGE.into(),
        Language::Php => tree_sitter_php::LANGUAGE_PHP.into(),
        Language::Kotlin => tree_sitter_kotlin_ng::LANGUAGE.into(),
        Language::Swift => tree_sitter_swift::LANGUAGE.into(),
        Language::Scala => tree_sitter_scala::LANGUAGE.into(),
        Language::Dart => tree_sitter_dart::LANGUAGE.into(),
        Language::Lua => tree_sitter_lua::LANGUAGE.into(),
        Language::Bash => tree_sitter_bash::LANGUAGE.into(),
        Language::Sql => tree_sitter_sequel::LANGUAGE.into(),
        Language::R => tree_sitter_r::LANGUAGE.into(),
        Language::Julia => tree_sitter_julia::LANGUAGE.into(),
        Language::Haskell => tree_sitter_haskell::LANGUAGE.into(),
        Language::OCaml => tree_sitter_ocaml::LANGUAGE_OCAML.into(),
        Language::Elixir => tree_sitter_elixir::LANGUAGE.into(),
        Language::Erlang => tree_sitter_erlang::LANGUAGE.into(),
        Language::Zig => tree_sitter_zig::LANGUAGE.into(),
        Language::ObjC => tree_sitter_objc::LANGUAGE.into(),
        Language::Groovy => dekobon_tree_sitter_groovy::LANGUAGE.into(),
        Language::PowerShell => tree_sitter_powershell::LANGUAGE.into(),
        Language::Hcl => tree_sitter_hcl::LANGUAGE.into(),
        Language::Solidity => tree_sitter_solidity::LANGUAGE.into(),
        Language::Protobuf => tree_sitter_proto::LANGUAGE.into(),
        Language::GraphQL => tree_sitter_graphql::LANGUAGE.into(),
        Language::Yaml => tree_sitter_yaml::LANGUAGE.into(),
        Language::Toml => tree_sitter_toml_ng::LANGUAGE.into(),
        Language::Json => tree_sitter_json::LANGUAGE.into(),
        Language::Perl => tree_sitter_perl::LANGUAGE.into(),
        // A component's script block, parsed as the language it names (`code::parse_code`).
        Language::Vue | Language::Svelte => return None,
        Language::Markdown | Language::Text => return None,
    })
}

/// PostgreSQL's own grammar (generated from its `gram.y`), tried on SQL files the
/// general SQL grammar reads only in part (`code::parse_code`).
pub(crate) fn postgres() -> tree_sitter::Language {
    tree_sitter_postgres::LANGUAGE.into()
}

/// The unit table of a language described by one (`table.rs`).
pub(crate) fn table_of(lang: Language) -> Option<&'static table::Table> {
    Some(match lang {
        Language::CSharp => &csharp::CSHARP,
        Language::Ruby => &ruby::RUBY,
        Language::Php => &php::PHP,
        Language::Kotlin => &kotlin::KOTLIN,
        Language::Swift => &swift::SWIFT,
        Language::Scala => &scala::SCALA,
        Language::Dart => &dart::DART,
        Language::Lua => &lua::LUA,
        Language::Bash => &bash::BASH,
        Language::Sql => &sql::SQL,
        Language::R => &r::R,
        Language::Julia => &julia::JULIA,
        Language::Haskell => &haskell::HASKELL,
        Language::OCaml => &ocaml::OCAML,
        Language::Elixir => &elixir::ELIXIR,
        Language::Erlang => &erlang::ERLANG,
        Language::Zig => &zig::ZIG,
        Language::ObjC => &objc::OBJC,
        Language::Groovy => &groovy::GROOVY,
        Language::PowerShell => &powershell::POWERSHELL,
        Language::Hcl => &hcl::HCL,
        Language::Solidity => &solidity::SOLIDITY,
        Language::Protobuf => &protobuf::PROTOBUF,
        Language::GraphQL => &graphql::GRAPHQL,
        Language::Yaml => &yaml::YAML,
        Language::Toml => &toml::TOML,
        Language::Json => &json::JSON,
        Language::Perl => &perl::PERL,
        _ => return None,
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

/// `s` without its comments (a doc comment on a parameter or on a member of an inline
/// type), strings left whole: a signature shows the declaration. Python's are `#` lines
/// (its `//` divides); the other languages' `/* … */` and `// …`.
pub(crate) fn strip_comments(lang: Language, s: &str) -> std::borrow::Cow<'_, str> {
    let line = table_of(lang).map_or("//", |t| t.line_comment);
    if line != "//" && line != "#" {
        // `--`, `%`: a signature keeps them (rare there, and `--` may be an operator).
        return s.into();
    }
    let python = lang == Language::Python || line == "#";
    let marker = if python { "#" } else { "/" };
    if !s.contains(marker) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match (c, chars.peek()) {
            // Rust's `'a` is a lifetime, not a quote.
            ('"' | '`', _) | ('\'', _) if c != '\'' || lang != Language::Rust => {
                quote = Some(c);
                out.push(c);
            }
            ('/', Some('*')) if !python => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
                out.push(' ');
            }
            ('#', _) if python => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
                out.push('\n');
            }
            ('/', Some('/')) if !python => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
                out.push('\n');
            }
            _ => out.push(c),
        }
    }
    out.into()
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
            l => table_of(l).is_some_and(|t| t.transparent.contains(&kind)),
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
            l => self.tabled(table_of(l)?, node, scope),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_leave_signatures_but_strings_and_division_stay() {
        let sig = "serveStatic = (options: Opts & {\n  /**\n   * The runtime's `join`.\n   */\n  join?: (...p: string[]) => string // default: posix\n  root: string\n})";
        let ts = |s| strip_comments(Language::TypeScript, s);
        assert_eq!(
            collapse_ws(&ts(sig)),
            "serveStatic = (options: Opts & { join?: (...p: string[]) => string root: string })"
        );
        // Comment markers inside strings are text.
        let glob = "function find(pattern = '**/*.ts', url = \"http://x\")";
        assert_eq!(ts(glob), glob);
        assert_eq!(collapse_ws(&ts("f(a, // the first\n  b)")), "f(a, b)");
        let rust = "fn get<'a>(&'a self, // the key\n key: &str) -> &'a str";
        assert_eq!(
            collapse_ws(&strip_comments(Language::Rust, rust)),
            "fn get<'a>(&'a self, key: &str) -> &'a str"
        );
        // Python's `//` divides; its comments are `#` lines.
        let py = |s| strip_comments(Language::Python, s);
        assert_eq!(py("def f(n=a // 2)"), "def f(n=a // 2)");
        assert_eq!(
            collapse_ws(&py("def f(a,  # the first\n      b='#')")),
            "def f(a, b='#')"
        );
    }
}
