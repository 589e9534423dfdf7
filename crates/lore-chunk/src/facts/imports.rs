//! The imports of a file, per language: modules, names, aliases, wildcards, re-exports.

use crate::lang::{self, collapse_ws, named_children};
use crate::text::Src;
use lore_core::{Import, ImportedName, Language};
use tree_sitter::{Node, Tree};

/// The imports of a parsed file.
pub(crate) fn imports(src: &Src, lang: Language, tree: &Tree) -> Vec<Import> {
    let mut out = Vec::new();
    let mut stack = vec![(tree.root_node(), 0usize)];
    let text = |n: Node| src.slice(n.start_byte(), n.end_byte());
    // `name as alias`, in any grammar that calls its fields so.
    let renamed = |n: Node| ImportedName {
        name: n
            .child_by_field_name("name")
            .map(text)
            .unwrap_or("")
            .to_string(),
        alias: n.child_by_field_name("alias").map(|a| text(a).to_string()),
    };
    let specifiers = |list: Node, kind: &str| -> Vec<ImportedName> {
        named_children(list)
            .into_iter()
            .filter(|s| s.kind() == kind)
            .map(renamed)
            .collect()
    };
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
                            let r = renamed(c);
                            imp(r.name, vec![], r.alias, false, false);
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
                        "aliased_import" => names.push(renamed(c)),
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
                            "named_imports" => names.extend(specifiers(c, "import_specifier")),
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
                    names.extend(specifiers(clause, "export_specifier"));
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
            // CommonJS: `const m = require("./m")`, `const f = require("./m").f`,
            // `const { f, g: h } = require("./m")`.
            (
                Language::JavaScript | Language::TypeScript | Language::Tsx,
                "variable_declarator",
            ) if let Some((module, member)) = n
                .child_by_field_name("value")
                .and_then(|v| required(src, v)) =>
            {
                let Some(target) = n.child_by_field_name("name") else {
                    continue;
                };
                let local = text(target).to_string();
                match (target.kind(), member) {
                    ("identifier", None) => imp(module, vec![], Some(local), false, false),
                    ("identifier", Some(name)) => {
                        let alias = (local != name).then_some(local);
                        imp(
                            module,
                            vec![ImportedName { name, alias }],
                            None,
                            false,
                            false,
                        )
                    }
                    ("object_pattern", None) => {
                        let names = named_children(target)
                            .into_iter()
                            .filter_map(|p| match p.kind() {
                                "shorthand_property_identifier_pattern" => Some(ImportedName {
                                    name: text(p).to_string(),
                                    alias: None,
                                }),
                                "pair_pattern" => Some(ImportedName {
                                    name: text(p.child_by_field_name("key")?).to_string(),
                                    alias: Some(text(p.child_by_field_name("value")?).to_string()),
                                }),
                                _ => None,
                            })
                            .collect();
                        imp(module, names, None, false, false)
                    }
                    _ => {}
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

/// `require("m")` → (`m`, None); `require("m").f` → (`m`, Some(`f`)).
fn required(src: &Src, value: Node) -> Option<(String, Option<String>)> {
    let text = |n: Node| src.slice(n.start_byte(), n.end_byte());
    let (call, member) = match value.kind() {
        "member_expression" => (
            value.child_by_field_name("object")?,
            Some(text(value.child_by_field_name("property")?).to_string()),
        ),
        _ => (value, None),
    };
    if call.kind() != "call_expression"
        || call.child_by_field_name("function").map(text) != Some("require")
    {
        return None;
    }
    let arg = call.child_by_field_name("arguments")?.named_child(0)?;
    if arg.kind() != "string" {
        return None;
    }
    Some((text(arg).trim_matches(['"', '\'', '`']).to_string(), member))
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
        "scoped_identifier" | "identifier" | "crate" | "self" | "super" | "use_as_clause" => {
            let (path, alias) = match node.kind() {
                "use_as_clause" => match node.child_by_field_name("path") {
                    Some(p) => (p, node.child_by_field_name("alias").map(text)),
                    None => return,
                },
                _ => (node, None),
            };
            let full = join(prefix, &collapse_ws(text(path)));
            let (m, name) = full.rsplit_once("::").unwrap_or(("", &full));
            out.push(Import {
                module: m.to_string(),
                names: vec![ImportedName {
                    name: name.to_string(),
                    alias: alias.map(str::to_string),
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
