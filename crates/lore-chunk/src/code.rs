//! Code chunking over a tree-sitter tree: units, members, module code.

use crate::ChunkOptions;
use crate::lang::{
    self, LangRules, Scope, UnitInfo, collapse_ws, named_children, strip_comments, truncate_chars,
};
use crate::patches::{
    blank_psql_commands, join_variable_paths, patch_typescript, unwrap_item_macros,
};
use crate::text::{Meta, Src, is_ws};
use lore_core::{Chunk, ChunkKind, Language};
use std::cell::RefCell;
use tree_sitter::{Node, Parser, Tree};

/// Deepest nesting of containers split into members (class in namespace in …).
const MAX_DEPTH: usize = 6;
/// Deepest nesting of transparent wrappers (`#ifdef`, `extern "C"`, ERROR) looked into.
const MAX_FLATTEN_DEPTH: usize = 8;
/// Runs of at least this many one-line consts/type aliases share chunks.
const MIN_TRIVIAL_RUN: usize = 4;
/// Longest signature / header kept, in chars.
const MAX_SIG_CHARS: usize = 400;

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

fn parse_with(parser: &mut Parser, grammar: &tree_sitter::Language, text: &str) -> Option<Tree> {
    parser.set_language(grammar).ok()?;
    let tree = parser.parse(text, None);
    if tree.is_none() {
        parser.reset();
    }
    tree
}

fn parse_in(grammar: &tree_sitter::Language, text: &str) -> Option<Tree> {
    PARSER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => parse_with(slot.get_or_insert_with(Parser::new), grammar, text),
        Err(_) => parse_with(&mut Parser::new(), grammar, text),
    })
}

fn parse(lang: Language, text: &str) -> Option<Tree> {
    parse_in(&lang::ts_language(lang)?, text)
}

/// Parses a code file. `.h` files are often C++: the C++ grammar is used when it fits
/// better. Returns the tree and the grammar that made it.
pub(crate) fn parse_code(src: &Src, lang: Language) -> Option<(Tree, Language)> {
    if matches!(lang, Language::Vue | Language::Svelte) {
        let (script, grammar) = crate::embedded::script_only(src.text)?;
        return Some((parse(grammar, &script)?, grammar));
    }
    let patched = match lang {
        Language::Sql => blank_psql_commands(src.text),
        _ => None,
    };
    let text = patched.as_deref().unwrap_or(src.text);
    // The kernel's macros, and conditionals inside code (`c_macros/`): a C file that has them is
    // read patched first (same length, same offsets). Most then read whole and are parsed
    // once; otherwise the text as written is parsed too and the tree with fewer errors
    // kept (the one as written on a tie).
    let c_patched = match lang {
        Language::C | Language::Cpp => {
            crate::c_macros::patch_c(src.text, true).and_then(|p| parse(lang, &p))
        }
        _ => None,
    };
    let c_patched = match c_patched {
        Some(tree) if !tree.root_node().has_error() => return Some((tree, lang)),
        other => other,
    };
    let tree = parse(lang, text)?;
    // SQL's grammar reads many dialects but little of PostgreSQL's own DDL (`CREATE
    // OPERATOR`, a type with modifiers `vector(3)`): PostgreSQL's grammar is used when it
    // reads more. One table (`lang/sql.rs`) knows both grammars' nodes.
    if lang == Language::Sql
        && tree.root_node().has_error()
        && let Some(pg) = parse_in(&lang::postgres(), text)
        && error_bytes(pg.root_node()) < error_bytes(tree.root_node())
    {
        return Some((pg, lang));
    }
    // With errors still, conditionals inside code read as their first branch alone.
    let best = c_patched.as_ref().unwrap_or(&tree).root_node();
    let c_patched = if matches!(lang, Language::C | Language::Cpp) && best.has_error() {
        let errors = error_bytes(best);
        crate::c_macros::patch_c(src.text, false)
            .and_then(|p| parse(lang, &p))
            .filter(|b| error_bytes(b.root_node()) < errors)
            .or(c_patched)
    } else {
        c_patched
    };
    // A language's text patch (`patches.rs`), tried when the file has errors and kept when
    // it reads more. Same length, same offsets: the tree of the patched text fits the
    // original one.
    let patch: Option<fn(&str) -> Option<String>> = match lang {
        Language::TypeScript => Some(patch_typescript),
        Language::PowerShell => Some(join_variable_paths),
        _ => None,
    };
    if let Some(patch) = patch
        && tree.root_node().has_error()
        && let Some(patched) = patch(src.text)
        && let Some(better) = parse(lang, &patched)
        && error_bytes(better.root_node()) < error_bytes(tree.root_node())
    {
        return Some((better, lang));
    }
    if lang == Language::Rust
        && let Some(patched) = unwrap_item_macros(src.text)
        && let Some(better) = parse(lang, &patched)
        && error_bytes(better.root_node()) <= error_bytes(tree.root_node())
    {
        return Some((better, lang));
    }
    // The kernel's macros patched, read with errors too: kept when it has fewer.
    let tree = match c_patched {
        Some(better) if error_bytes(better.root_node()) < error_bytes(tree.root_node()) => better,
        _ => tree,
    };
    // Groovy's grammar fails on much of what Groovy allows (untyped parameters, string
    // method names); most Groovy is also Java, whose grammar is used when it reads more.
    if lang == Language::Groovy
        && tree.root_node().has_error()
        && let Some(java) = parse(Language::Java, src.text)
        && error_bytes(java.root_node()) < error_bytes(tree.root_node())
    {
        return Some((java, Language::Java));
    }
    if lang == Language::C
        && tree.root_node().has_error()
        && let Some(cpp) = parse(Language::Cpp, src.text)
        && error_bytes(cpp.root_node()) < error_bytes(tree.root_node())
    {
        return Some((cpp, Language::Cpp));
    }
    Some((tree, lang))
}

/// Chunks a parsed code file; `None` when the file does not parse usefully.
pub(crate) fn chunk_code(
    src: &Src,
    lang: Language,
    (tree, grammar): &(Tree, Language),
    opts: &ChunkOptions,
) -> Option<Vec<Chunk>> {
    let grammar = *grammar;
    let root = tree.root_node();
    let mut engine = Engine {
        src,
        lang,
        rules: LangRules { lang: grammar, src },
        max: opts.max_chars,
        out: Vec::new(),
    };
    let scope = ScopeCtx {
        scope: Scope::Top,
        parent: None,
        context: None,
    };
    let module = Meta::plain(ChunkKind::Module);
    engine.container(
        named_children(root),
        (0, src.len()),
        &scope,
        &module,
        &module,
        0,
    );
    if root.has_error() && error_bytes(root) * 2 > src.len() {
        // Mostly parse errors (wrong language, junk, a half-written file, C headers
        // with `extern "C" {` inside `#ifdef`): keep the result only if at least a
        // tenth of the file was still recognized as units.
        let unit_bytes: usize = engine
            .out
            .iter()
            .filter(|c| c.kind != ChunkKind::Module)
            .map(|c| c.end_byte - c.start_byte)
            .sum();
        if unit_bytes * 10 < src.len() {
            return None;
        }
    }
    Some(engine.out)
}

/// The first error of a tree that has any, and the bytes in its error nodes.
pub(crate) fn parse_error(tree: &Tree) -> Option<crate::ParseError> {
    let root = tree.root_node();
    if !root.has_error() {
        return None;
    }
    let mut first = None;
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.is_error() || (n.is_missing() && !terminator(n)) {
            let row = n.start_position().row;
            first = Some(first.map_or(row, |f: usize| f.min(row)));
        } else if n.has_error() {
            stack.extend(lang::children(n));
        }
    }
    // Only supplied terminators: the tree is whole.
    Some(crate::ParseError {
        line: first? as u32 + 1,
        bytes: error_bytes(root),
    })
}

/// Bytes inside ERROR nodes (plus one per MISSING node).
/// A `;` the grammar supplied where the line ended the statement (Groovy's grammar wants
/// one after every statement): nothing was lost, so it is no parse error.
fn terminator(n: Node) -> bool {
    n.is_missing() && n.kind() == ";"
}

fn error_bytes(root: Node) -> usize {
    let mut total = 0;
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.is_error() {
            total += n.end_byte().saturating_sub(n.start_byte()).max(1);
        } else if n.is_missing() && !terminator(n) {
            total += 1;
        } else if n.has_error() {
            stack.extend(lang::children(n));
        }
    }
    total
}

struct ScopeCtx {
    scope: Scope,
    /// Parent name of units in this scope.
    parent: Option<String>,
    /// Header chain of the enclosing units.
    context: Option<String>,
}

struct Found<'t> {
    start: usize,
    end: usize,
    info: UnitInfo<'t>,
    docs: Vec<Node<'t>>,
}

struct Engine<'s, 'a> {
    src: &'s Src<'a>,
    lang: Language,
    rules: LangRules<'s, 'a>,
    max: usize,
    out: Vec<Chunk>,
}

impl Engine<'_, '_> {
    fn flatten<'t>(&self, node: Node<'t>, out: &mut Vec<Node<'t>>, depth: usize) {
        if depth < MAX_FLATTEN_DEPTH && self.rules.is_transparent(node.kind()) {
            for c in named_children(node) {
                self.flatten(c, out, depth + 1);
            }
        } else {
            out.push(node);
        }
    }

    /// Chunks `range`, whose unit candidates are `children`: units get their own chunks,
    /// everything between them becomes chunks described by `header_meta` (the part at the
    /// start of the range) or `rest_meta`.
    fn container(
        &mut self,
        children: Vec<Node>,
        range: (usize, usize),
        sc: &ScopeCtx,
        header_meta: &Meta,
        rest_meta: &Meta,
        depth: usize,
    ) {
        let src = self.src;
        let mut cands = Vec::new();
        for c in children {
            self.flatten(c, &mut cands, 0);
        }
        cands.retain(|c| {
            c.start_byte() >= range.0 && c.end_byte() <= range.1 && c.end_byte() > c.start_byte()
        });

        let mut units: Vec<Found> = Vec::new();
        let mut prev_end = range.0;
        for idx in 0..cands.len() {
            let c = cands[idx];
            if c.start_byte() < prev_end {
                continue;
            }
            let Some(info) = self.rules.classify(c, sc.scope) else {
                continue;
            };
            // Attach the comments/attributes right above.
            let mut start = c.start_byte();
            let mut first_line = src.line_of(start);
            let mut docs = Vec::new();
            let mut j = idx;
            while j > 0 {
                let p = cands[j - 1];
                if p.start_byte() < prev_end || !self.rules.is_attachable(p) {
                    break;
                }
                let p_last = src.last_line(p.start_byte(), p.end_byte());
                let text = src.slice(p.start_byte(), p.end_byte());
                let documents = lang::documents(self.lang, text, j == idx, p_last, first_line);
                if !documents || !src.starts_line(p.start_byte()) {
                    break;
                }
                start = p.start_byte();
                first_line = src.line_of(start);
                if lang::is_comment(p.kind()) {
                    docs.push(p);
                }
                j -= 1;
            }
            docs.reverse();
            let start = src.back_to_line_start(start).max(prev_end);
            // Take the rest of the last line (`;`, trailing comment) when nothing else
            // starts there.
            let mut end = c.end_byte();
            if src.bytes.get(end.wrapping_sub(1)) != Some(&b'\n') {
                let line_end = src.line_end_of(end).min(range.1);
                if line_end > end && !src.is_blank(end, line_end) {
                    let trailing = cands[idx + 1..]
                        .iter()
                        .take_while(|n| n.start_byte() < line_end);
                    if trailing.clone().all(|n| lang::is_comment(n.kind())) {
                        // A block comment may go on past the line: take all of it.
                        end = trailing
                            .map(|n| n.end_byte())
                            .fold(line_end, usize::max)
                            .min(range.1);
                    }
                }
            }
            prev_end = end;
            units.push(Found {
                start,
                end,
                info,
                docs,
            });
        }

        let base = self.out.len();
        let mut cursor = range.0;
        let mut i = 0;
        while i < units.len() {
            self.gap(
                cursor,
                units[i].start,
                &cands,
                range.0,
                header_meta,
                rest_meta,
                base,
            );
            let run = self.trivial_run(&units[i..]);
            if run >= MIN_TRIVIAL_RUN {
                self.trivial_units(&units[i..i + run], sc);
                i += run;
                cursor = units[i - 1].end;
            } else {
                cursor = units[i].end;
                self.unit(&units[i], sc, depth);
                i += 1;
            }
        }
        self.gap(
            cursor,
            range.1,
            &cands,
            range.0,
            header_meta,
            rest_meta,
            base,
        );
    }

    /// Only closing brackets, `;` and `,` (which belong with the text before them).
    fn closing_only(&self, s: usize, e: usize) -> bool {
        self.src.bytes[s..e]
            .iter()
            .all(|b| is_ws(*b) || b"}])>;,".contains(b))
    }

    /// Chunks for the text between units, packed at node boundaries up to `max` chars.
    #[allow(clippy::too_many_arguments)]
    fn gap(
        &mut self,
        s: usize,
        e: usize,
        cands: &[Node],
        container_start: usize,
        header_meta: &Meta,
        rest_meta: &Meta,
        base: usize,
    ) {
        let src = self.src;
        let Some((ts, te)) = src.trim(s, e) else {
            return;
        };
        // A lone closing `}` / `};` goes with the chunk before it.
        if self.out.len() > base && self.closing_only(ts, te) {
            if let Some(last) = self.out.last_mut() {
                src.extend(last, te);
            }
            return;
        }
        // Candidates are in file order: only look at those inside the gap.
        let lo = cands.partition_point(|c| c.start_byte() < s);
        let hi = cands.partition_point(|c| c.start_byte() < e);
        let mut cuts = vec![ts];
        cuts.extend(
            cands[lo..hi.max(lo)]
                .iter()
                .map(|c| src.back_to_line_start(c.start_byte()))
                .filter(|p| *p > ts && *p < te),
        );
        cuts.sort_unstable();
        cuts.dedup();
        cuts.push(te);

        // Aim for chunks of similar size rather than full ones plus a tiny tail.
        let total = src.chars(ts, te);
        let target = if total > self.max {
            total.div_ceil(total.div_ceil(self.max))
        } else {
            self.max
        };
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        let mut cs = ts;
        let mut cur_chars = 0;
        for w in cuts.windows(2) {
            let pc = src.chars(w[0], w[1]);
            if self.closing_only(w[0], w[1]) && w[0] == cs {
                // Right after a split: goes with the last window.
                if let Some(last) = ranges.last_mut() {
                    last.1 = w[1];
                    cs = w[1];
                    continue;
                }
            }
            if (cur_chars + pc <= self.max && cur_chars < target)
                || (w[0] > cs && self.closing_only(w[0], w[1]))
            {
                cur_chars += pc;
                continue;
            }
            if w[0] > cs {
                ranges.push((cs, w[0]));
            }
            if pc > self.max {
                // Windows of the big piece; the last one stays open for what follows.
                let mut windows = src.split_lines(w[0], w[1], self.max);
                let (a, b) = windows.pop().unwrap_or((w[0], w[1]));
                ranges.extend(windows);
                cs = a;
                cur_chars = src.chars(a, b);
            } else {
                cs = w[0];
                cur_chars = pc;
            }
        }
        if te > cs {
            ranges.push((cs, te));
        }
        for (i, (a, b)) in ranges.into_iter().enumerate() {
            let meta = if i == 0 && s == container_start {
                header_meta
            } else {
                rest_meta
            };
            if let Some(ch) = src.make(self.lang, meta, a, b) {
                self.out.push(ch);
            }
        }
    }

    /// A one-line constant or type alias without doc comment or attributes.
    fn is_trivial(&self, u: &Found) -> bool {
        matches!(u.info.kind, ChunkKind::Const | ChunkKind::Type)
            && u.docs.is_empty()
            && u.info.docstring.is_none()
            && self.src.line_of(u.start) == self.src.last_line(u.start, u.end)
            && self.src.chars(u.start, u.end) <= self.max
    }

    /// How many units at the start of `units` form a run of trivial units with only
    /// whitespace between them.
    fn trivial_run(&self, units: &[Found]) -> usize {
        let mut n = 0;
        while n < units.len()
            && self.is_trivial(&units[n])
            && (n == 0 || self.src.trim(units[n - 1].end, units[n].start).is_none())
        {
            n += 1;
        }
        n
    }

    /// Chunks for a run of trivial units (e.g. 500 `pub const` lines of generated
    /// bindings), packed up to `max` chars instead of one tiny chunk each.
    fn trivial_units(&mut self, run: &[Found], sc: &ScopeCtx) {
        let kind = if run.iter().all(|u| u.info.kind == run[0].info.kind) {
            run[0].info.kind
        } else {
            ChunkKind::Const
        };
        let meta = Meta {
            parent: sc.parent.clone(),
            context: sc.context.clone(),
            ..Meta::plain(kind)
        };
        let mut cs = run[0].start;
        let mut ce = run[0].end;
        for u in &run[1..] {
            if self.src.chars(cs, u.end) > self.max {
                self.out.extend(self.src.make(self.lang, &meta, cs, ce));
                cs = u.start;
            }
            ce = u.end;
        }
        self.out.extend(self.src.make(self.lang, &meta, cs, ce));
    }

    fn unit(&mut self, u: &Found, sc: &ScopeCtx, depth: usize) {
        let src = self.src;
        let info = &u.info;
        let doc = info.docstring.clone().or_else(|| {
            let d: Vec<String> = u
                .docs
                .iter()
                .map(|n| lang::strip_comment(src.slice(n.start_byte(), n.end_byte())))
                .filter(|s| !s.is_empty())
                .collect();
            (!d.is_empty()).then(|| d.join("\n"))
        });
        let signature = signature(self.src, info, self.lang);
        let meta = Meta {
            kind: info.kind,
            symbol: info.name.clone(),
            parent: info.parent.clone().or_else(|| sc.parent.clone()),
            signature: signature.clone(),
            doc,
            headings: Vec::new(),
            context: sc.context.clone(),
        };
        if src.chars(u.start, u.end) <= self.max {
            self.out.extend(src.make(self.lang, &meta, u.start, u.end));
            return;
        }
        let header = collapsed(self.src, info.sig_start, info.header_end)
            .or(signature)
            .unwrap_or_default();
        let inner_context = match &sc.context {
            Some(c) if !header.is_empty() => format!("{c}\n{header}"),
            Some(c) => c.clone(),
            None => header,
        };
        let inner_context = (!inner_context.is_empty()).then_some(inner_context);
        let rest = Meta {
            doc: None,
            context: inner_context.clone(),
            ..meta.clone()
        };
        match info.body {
            Some(body) if depth < MAX_DEPTH => {
                let inner = ScopeCtx {
                    scope: info.member_scope,
                    parent: info.member_parent.clone(),
                    context: inner_context,
                };
                self.container(
                    named_children(body),
                    (u.start, u.end),
                    &inner,
                    &meta,
                    &rest,
                    depth + 1,
                );
            }
            _ => {
                for (i, (a, b)) in src
                    .split_lines(u.start, u.end, self.max)
                    .into_iter()
                    .enumerate()
                {
                    let m = if i == 0 { &meta } else { &rest };
                    self.out.extend(src.make(self.lang, m, a, b));
                }
            }
        }
    }
}

fn collapsed(src: &Src, s: usize, e: usize) -> Option<String> {
    if e <= s {
        return None;
    }
    let mut t = collapse_ws(src.slice(s, e));
    truncate_chars(&mut t, MAX_SIG_CHARS);
    (!t.is_empty()).then_some(t)
}

/// Every `<` and `(` in `text` is closed (an arrow's `=>` is not a closing `>`).
fn closed(text: &str) -> bool {
    let mut depth = 0i32;
    let mut prev = ' ';
    for c in text.chars() {
        match c {
            '<' | '(' => depth += 1,
            '>' if prev != '=' => depth -= 1,
            ')' => depth -= 1,
            _ => {}
        }
        prev = c;
    }
    depth <= 0
}

/// A unit's declaration as written, without body and trailing `{`, `:` or `=>`.
pub(crate) fn signature(src: &Src, info: &UnitInfo, lang: Language) -> Option<String> {
    let mut e = info.sig_end;
    if info.first_line_sig {
        let mut end = src.line_end_of(info.sig_start);
        // A type alias whose type parameters or function type run over several lines
        // (`type Handler<\n  E extends Env = any,\n> = (c: Context<E>) => R`) is read to
        // the line that closes them: its first line alone says nothing.
        if info.kind == ChunkKind::Type {
            while end < e && !closed(src.slice(info.sig_start, end)) {
                let next = src.line_end_of(end + 1);
                if next <= end {
                    break;
                }
                end = next;
            }
        }
        e = e.min(end);
    }
    if e <= info.sig_start {
        return None;
    }
    let mut sig = collapse_ws(&strip_comments(lang, src.slice(info.sig_start, e)));
    truncate_chars(&mut sig, MAX_SIG_CHARS);
    if sig.is_empty() {
        return None;
    }
    loop {
        let t = sig.trim_end();
        let stripped = ["=>", "{", "=", ":", ";", "(", "[", ","]
            .iter()
            .find_map(|p| t.strip_suffix(p));
        match stripped {
            Some(r) if !r.trim().is_empty() => sig = r.trim_end().to_string(),
            _ => {
                sig = t.to_string();
                break;
            }
        }
    }
    // Parameters written one per line collapse to `f( a, b, )`: tidy to `f(a, b)`, and
    // type parameters likewise.
    let sig = sig
        .replace("( ", "(")
        .replace(", )", ")")
        .replace(" )", ")")
        .replace("< ", "<")
        .replace(", >", ">");
    (!sig.is_empty()).then_some(sig)
}
