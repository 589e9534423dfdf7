//! Units of the languages described by a table rather than code of their own: which node
//! kinds are units and of what kind, which wrap others, and where a unit's name and body
//! are when the grammar has no `name` or `body` field. A language whose shapes a table
//! cannot say (Elixir's `def` is a call, R's function an assignment) adds a hook that
//! sees each node first.
//!
//! Adding a language: a file in `lang/` with its `Table`, the grammar crate in
//! `Cargo.toml`, its variant and extensions in `lore_core::Language`, and a line each in
//! `lang::ts_language` and `lang::table_of`.

use super::{LangRules, Scope, UnitInfo, named_children};
use lore_core::ChunkKind;
use tree_sitter::Node;

/// Finds the unit a node is, before the table is consulted; `None` lets the table decide.
pub(crate) type Hook = for<'t> fn(&LangRules<'_, '_>, Node<'t>, Scope) -> Option<UnitInfo<'t>>;

pub(crate) struct Table {
    /// Node kinds that are units, and what they are. A `Function` inside a type is a method.
    pub units: &'static [(&'static str, ChunkKind)],
    /// Nodes whose children are treated as siblings of the node itself.
    pub transparent: &'static [&'static str],
    /// Without a `name` field: the kinds of the child (or a child's child) that names the
    /// unit, in order of preference.
    pub names: &'static [&'static str],
    /// Without a `body` field: the kinds of the child that holds the unit's members.
    pub bodies: &'static [&'static str],
    /// Kinds whose members are their own children (no body node): the header is their
    /// first line.
    pub inline_members: &'static [&'static str],
    /// Line comments start with this (`#`, `--`, `%`), for signatures.
    pub line_comment: &'static str,
    pub hook: Option<Hook>,
}

impl Table {
    pub const EMPTY: Table = Table {
        units: &[],
        transparent: &[],
        names: &[],
        bodies: &[],
        inline_members: &[],
        line_comment: "//",
        hook: None,
    };
}

/// How a unit of `kind` scopes what it holds.
fn member_scope(kind: ChunkKind) -> Scope {
    match kind {
        ChunkKind::Function | ChunkKind::Method => Scope::Function,
        ChunkKind::Module | ChunkKind::Section => Scope::Namespace,
        _ => Scope::Type,
    }
}

impl<'a> LangRules<'_, 'a> {
    pub(super) fn tabled<'t>(
        &self,
        table: &Table,
        node: Node<'t>,
        scope: Scope,
    ) -> Option<UnitInfo<'t>> {
        if let Some(hook) = table.hook
            && let Some(u) = hook(self, node, scope)
        {
            return Some(u);
        }
        let kind = table
            .units
            .iter()
            .find(|(k, _)| *k == node.kind())
            .map(|(_, kind)| *kind)?;
        let kind = match kind {
            ChunkKind::Function => Self::fn_kind(scope),
            k => k,
        };
        let body = node.child_by_field_name("body").or_else(|| {
            named_children(node)
                .into_iter()
                .find(|c| table.bodies.contains(&c.kind()))
        });
        let name = self.unit_name(table, node, body);
        if body.is_none() && table.inline_members.contains(&node.kind()) {
            return Some(self.inline_unit(kind, node, name));
        }
        Some(self.unit(kind, node, name, body))
    }

    /// A unit whose members are its own children: its first line is its header.
    pub(super) fn inline_unit<'t>(
        &self,
        kind: ChunkKind,
        node: Node<'t>,
        name: Option<String>,
    ) -> UnitInfo<'t> {
        let mut u = self.base(kind, node, name, None, member_scope(kind));
        let text = self.text(node);
        u.sig_end = node.start_byte() + text.find('\n').unwrap_or(text.len());
        u.header_end = u.sig_end;
        u.body = Some(node);
        u.first_line_sig = false;
        u
    }

    /// A unit of `kind` with its members in `body`; without one its signature is its first
    /// line (a constant, a key).
    pub(super) fn unit<'t>(
        &self,
        kind: ChunkKind,
        node: Node<'t>,
        name: Option<String>,
        body: Option<Node<'t>>,
    ) -> UnitInfo<'t> {
        match body {
            Some(b) => self.base(kind, node, name, Some(b), member_scope(kind)),
            None if matches!(kind, ChunkKind::Const | ChunkKind::Type) => {
                self.simple(kind, node, name)
            }
            None => self.base(kind, node, name, None, member_scope(kind)),
        }
    }

    /// The `name` field, else the nearest child (breadth first, two levels, never inside the
    /// body) of one of the table's name kinds.
    fn unit_name(&self, table: &Table, node: Node, body: Option<Node>) -> Option<String> {
        if let Some(n) = node.child_by_field_name("name") {
            return Some(self.name_text(n)).filter(|s| !s.is_empty());
        }
        let mut level = vec![node];
        for _ in 0..3 {
            let mut next = Vec::new();
            for n in level {
                for c in named_children(n) {
                    if body.is_some_and(|b| b.id() == c.id()) {
                        continue;
                    }
                    if table.names.contains(&c.kind()) {
                        return Some(self.name_text(c)).filter(|s| !s.is_empty());
                    }
                    if let Some(f) = c.child_by_field_name("name") {
                        return Some(self.name_text(f)).filter(|s| !s.is_empty());
                    }
                    next.push(c);
                }
            }
            level = next;
        }
        None
    }

    /// A declaration node one grammar uses for several kinds (Swift's and Kotlin's
    /// `class_declaration`): the first of `keywords` written in it, as a token or among its
    /// modifiers, gives the kind; else `default`. Named by its `name` field.
    pub(super) fn by_keyword<'t>(
        &self,
        node: Node<'t>,
        keywords: &[(&str, ChunkKind)],
        default: ChunkKind,
        body: Option<Node<'t>>,
    ) -> UnitInfo<'t> {
        let written = |k: &str| {
            super::children(node).into_iter().any(|c| {
                c.kind() == k
                    || (c.kind() == "modifiers" && self.text(c).split_whitespace().any(|w| w == k))
            })
        };
        let kind = keywords
            .iter()
            .find(|(k, _)| written(k))
            .map_or(default, |(_, kind)| *kind);
        let name = node.child_by_field_name("name").map(|n| self.name_text(n));
        self.unit(kind, node, name, body)
    }

    /// A name as written, its quotes dropped (`"logs"`, `'key'`), on one line.
    pub(super) fn name_text(&self, node: Node) -> String {
        let t = self.text(node).trim();
        let t = t
            .strip_prefix(['"', '\''])
            .and_then(|s| s.strip_suffix(['"', '\'']))
            .unwrap_or(t);
        super::collapse_ws(t)
    }
}
