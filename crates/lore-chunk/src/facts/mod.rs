//! Code facts of one file from its tree-sitter tree: every definition (nested ones too)
//! with its qualified name, the imports, and the references (calls, extends, implements)
//! with what the file alone tells about their receiver. Resolution across files is
//! `lore-graph`'s job; nothing here guesses beyond the file.
//!
//! One walk over the tree keeps a stack of enclosing definitions; each concept has its
//! file: `definitions` (symbols), `fields` (field types per type), `bindings` (the
//! types of local names), `receivers` (the type of an expression), `calls`, `heritage`
//! (extends/implements), `values` (functions passed as values) and `imports` (a separate
//! pass).

mod bindings;
mod calls;
mod definitions;
mod fields;
mod heritage;
mod imports;
mod receivers;
mod values;

pub(crate) use imports::imports;

use crate::lang::{LangRules, Scope, named_children};
use crate::text::Src;
use lore_core::{Binding, ChunkKind, FileFacts, Language, Receiver, is_test_path};
use std::collections::{HashMap, HashSet};
use tree_sitter::{Node, Tree};

/// Deepest syntax nesting walked; deeper code (minified bundles) is not analysed.
const MAX_DEPTH: usize = 256;

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
    /// JavaScript and TypeScript names bound by taking a value apart (`const [count,
    /// setCount] = useState(0)`): a call of one calls that value.
    parts: HashSet<String>,
    is_test: bool,
    /// The base class (`super` calls go there).
    base: Option<String>,
    /// Index of this frame's symbol in the output.
    symbol: Option<usize>,
    /// Byte range of the unit's body: a declaration whose value is a function (`const f =
    /// function g() {…}`, `app.set = function set() {…}`) shares it with that function,
    /// which is the same unit, not one inside it.
    body: Option<(usize, usize)>,
}

struct Extractor<'s, 'a> {
    src: &'s Src<'a>,
    lang: Language,
    rules: LangRules<'s, 'a>,
    sep: &'static str,
    test_file: bool,
    /// Field types per type name (`self.store` in `Cart` → `Store`).
    fields: HashMap<String, HashMap<String, Receiver>>,
    /// Names bound outside any definition (test files bind in callbacks at top level).
    module_env: HashMap<String, Receiver>,
    /// The names bound by each scope around the node walked, outermost first (`values`).
    scope_names: Vec<HashSet<&'a str>>,
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
        rules: LangRules { lang: grammar, src },
        sep: match grammar {
            Language::Rust | Language::Cpp | Language::Perl => "::",
            _ => ".",
        },
        test_file: is_test_path(path),
        fields: HashMap::new(),
        module_env: HashMap::new(),
        scope_names: Vec::new(),
        out: FileFacts::default(),
    };
    let root = tree.root_node();
    x.collect_fields(root, None, 0);
    let mut stack = Vec::new();
    x.walk(root, Scope::Top, &mut stack, 0);
    x.out.bindings = x.bindings();
    x.out
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

    /// A definition gets its symbol and a frame for its body; any other node may be a
    /// call, a binding or a `return`.
    fn walk(&mut self, node: Node, scope: Scope, stack: &mut Vec<Frame>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        // The names each scope around binds, read once on the way in (`values`).
        let opens = depth == 0 || values::opens_scope(node.kind());
        if opens {
            let names = self.names_bound_in(node);
            self.scope_names.push(names);
        }
        self.walk_node(node, scope, stack, depth);
        if opens {
            self.scope_names.pop();
        }
    }

    fn walk_node(&mut self, node: Node, scope: Scope, stack: &mut Vec<Frame>, depth: usize) {
        let kind = node.kind();
        if kind == "impl_item" {
            return self.rust_impl(node, stack, depth);
        }
        if let Some(info) = self.rules.classify(node, scope)
            && let Some(name) = info.name.clone()
            // An empty name is a parse error's remnant (`typedef struct a b` cut short, fuzz
            // target `analyze_code`): no symbol named "".
            && !name.is_empty()
            // The definition inside a decorated one is the same unit (a decorated method
            // classifies as a method, its inner `def` as a function).
            && !stack.last().is_some_and(|f| {
                let inside = f.start <= node.start_byte() && node.end_byte() <= f.end;
                let body = info.body.map(|b| (b.start_byte(), b.end_byte()));
                inside
                    && ((f.name == name
                        && (f.kind == info.kind || f.sig_start == info.sig_start))
                        || (body.is_some() && body == f.body))
            })
        {
            self.define(node, &info, name, stack);
            for c in named_children(node) {
                self.walk(c, info.member_scope, stack, depth + 1);
            }
            stack.pop();
            // A JavaScript constant that is a unit (`const app = new Hono()`) still names
            // its value where it is declared: calls through it are typed by it.
            if info.kind == ChunkKind::Const
                && self.js()
                && let Some(decl) = js_declarator(node)
            {
                self.bind(decl, stack);
            }
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
        // CommonJS `module.exports = Router`: what `require('./router')` gives, kept as a
        // module-level binding the resolver reads.
        if kind == "assignment_expression"
            && stack.is_empty()
            && self.js()
            && node
                .child_by_field_name("left")
                .is_some_and(|l| self.text(l) == "module.exports")
            && let Some(r) = node
                .child_by_field_name("right")
                .filter(|r| r.kind() == "identifier")
        {
            self.module_env
                .insert("module.exports".into(), Receiver::Path(self.text(r).into()));
        }
        if kind == "return_statement" || (kind == "yield" && self.in_fixture(stack)) {
            self.returns(node, stack);
        }
        if kind == "with_item" {
            self.bind_with(node, stack);
        }
        for c in named_children(node) {
            self.walk(c, scope, stack, depth + 1);
        }
    }

    /// The fields and module-level names whose value the file tells, sorted.
    fn bindings(&self) -> Vec<Binding> {
        let known = |r: &Receiver| !matches!(r, Receiver::Unknown | Receiver::Path(_));
        let mut out: Vec<Binding> = self
            .fields
            .iter()
            .flat_map(|(owner, fields)| {
                fields.iter().map(move |(name, value)| Binding {
                    owner: Some(owner.clone()),
                    name: name.clone(),
                    value: value.clone(),
                })
            })
            .chain(self.module_env.iter().map(|(name, value)| Binding {
                owner: None,
                name: name.clone(),
                value: value.clone(),
            }))
            .filter(|b| known(&b.value) || b.name == "module.exports")
            .collect();
        out.sort_by(|a, b| (&a.owner, &a.name).cmp(&(&b.owner, &b.name)));
        out
    }

    fn qualify(&self, stack: &[Frame], name: &str) -> String {
        match stack.last() {
            Some(f) => format!("{}{}{}", f.qualified, self.sep, name),
            None => name.to_string(),
        }
    }
}

/// The one `variable_declarator` of a JavaScript declaration, exported or not.
fn js_declarator(node: Node) -> Option<Node> {
    let decl = match node.kind() {
        "export_statement" => node.child_by_field_name("declaration")?,
        _ => node,
    };
    named_children(decl)
        .into_iter()
        .find(|c| c.kind() == "variable_declarator")
}
