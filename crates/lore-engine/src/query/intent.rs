//! What the searcher is after. An intent shifts ranking with priors on the kind of unit
//! (definitions, call sites, docs, tests); it is given or inferred from the query's wording.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Intent {
    FindDefinition,
    FindImplementation,
    FindUsage,
    FindPattern,
    FindDocumentation,
    /// A whole task (an issue, a bug report, a traceback): the files and units to change,
    /// ranked by `Engine::locate`.
    FindTask,
}

impl Intent {
    pub const ALL: [Intent; 6] = [
        Intent::FindDefinition,
        Intent::FindImplementation,
        Intent::FindUsage,
        Intent::FindPattern,
        Intent::FindDocumentation,
        Intent::FindTask,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Intent::FindDefinition => "find-definition",
            Intent::FindImplementation => "find-implementation",
            Intent::FindUsage => "find-usage",
            Intent::FindPattern => "find-pattern",
            Intent::FindDocumentation => "find-documentation",
            Intent::FindTask => "find-task",
        }
    }

    pub fn parse(s: &str) -> Option<Intent> {
        Intent::ALL.into_iter().find(|i| i.as_str() == s)
    }
}

/// Identifier-like words of a query: `parse_query`, `parseQuery`, `Store::get`, `a.b`,
/// or anything in backticks. Lowercased, with separators kept.
pub(crate) fn query_identifiers(q: &str) -> Vec<String> {
    let mut out = Vec::new();
    for raw in
        q.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | '?' | '"' | '\''))
    {
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
        if w.len() < 3 {
            continue;
        }
        let backticked = raw.starts_with('`');
        let has_sep = w.contains('_') || w.contains("::") || (w.contains('.') && !w.ends_with('.'));
        let camel = w.chars().skip(1).any(|c| c.is_ascii_uppercase())
            && w.chars().any(|c| c.is_ascii_lowercase());
        if backticked || has_sep || camel {
            out.push(w.to_lowercase());
        }
    }
    out
}

/// The names a usage question asks about, as written (call sites are looked up by exact
/// name): its identifier-like words, and the word right after "who calls", "callers of",
/// "usages of", … however plain it is ("who calls compose" → `compose`).
pub(crate) fn usage_subjects(q: &str) -> Vec<String> {
    let clean = |w: &str| {
        w.trim_matches(|c: char| !c.is_alphanumeric() && c != '_')
            .to_string()
    };
    let mut out: Vec<String> = q
        .split_whitespace()
        .map(clean)
        .filter(|w| !query_identifiers(w).is_empty())
        .collect();
    let words: Vec<&str> = q.split_whitespace().collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    for (i, pair) in lower.windows(2).enumerate() {
        let asks = matches!(
            (pair[0].as_str(), pair[1].as_str()),
            ("who" | "what", "calls" | "uses" | "references")
                | (
                    "callers" | "usages" | "usage" | "uses" | "references",
                    "of" | "to"
                )
                | ("calls", "to")
                | ("called", "from")
        );
        if let Some(subject) = words.get(i + 2).map(|w| clean(w))
            && asks
            && subject.len() >= 2
            && !matches!(
                subject.to_lowercase().as_str(),
                "the" | "a" | "an" | "this" | "my"
            )
            && !out.contains(&subject)
        {
            out.push(subject);
        }
    }
    out
}

fn has_any(q: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| q.contains(p))
}

impl Intent {
    /// The intent a query's wording implies, if any.
    pub fn infer(query: &str) -> Option<Intent> {
        if crate::query::task::is_task(query) {
            return Some(Intent::FindTask);
        }
        let q = format!(" {} ", query.to_lowercase());
        if has_any(
            &q,
            &[
                " who calls",
                " callers of",
                " usages of",
                " usage of",
                " uses of",
                " used by",
                " where is",
                " references to",
                " called from",
                " call sites",
                " calls to ",
            ],
        ) && (!q.contains(" where is ") || has_any(&q, &[" used", " called", " referenced"]))
        {
            return Some(Intent::FindUsage);
        }
        if has_any(
            &q,
            &[
                " defined",
                " definition of",
                " declaration of",
                " declared",
                " where is ",
                " find the class",
                " find the function",
                " signature of",
            ],
        ) {
            return Some(Intent::FindDefinition);
        }
        if has_any(
            &q,
            &[
                " how does ",
                " how is ",
                " implementation of",
                " implemented",
                " algorithm",
                " logic for",
                " internals",
            ],
        ) {
            return Some(Intent::FindImplementation);
        }
        if has_any(
            &q,
            &[
                " docs",
                " documentation",
                " readme",
                " guide",
                " how do i ",
                " how to ",
                " tutorial",
                " explain",
                " install",
                " configure",
                " getting started",
                " overview",
            ],
        ) {
            return Some(Intent::FindDocumentation);
        }
        if has_any(
            &q,
            &[
                " example of",
                " examples of",
                " pattern",
                " similar to",
                " idiom",
                " snippet",
            ],
        ) {
            return Some(Intent::FindPattern);
        }
        // A bare identifier is looked up for its definition.
        let words: Vec<&str> = query.split_whitespace().collect();
        if words.len() == 1 && !query_identifiers(query).is_empty() {
            return Some(Intent::FindDefinition);
        }
        None
    }
}

/// What the ranking priors look at in a candidate.
pub(crate) struct Candidate<'a> {
    pub kind: lore_core::ChunkKind,
    pub language: lore_core::Language,
    pub symbol: Option<&'a str>,
    /// The enclosing unit (class, impl, module).
    pub parent: Option<&'a str>,
    pub path: &'a str,
    pub content: &'a str,
    pub has_doc: bool,
    /// How much of the unit's name the query's words spell out (`NameWords::cover`).
    pub name_cover: f32,
}

/// The query's words as BM25 analyses them (lowercased, stemmed, identifiers split), to
/// tell how much of a unit's name a question written in plain words spells out: "set a
/// cookie on the response" covers all of `res.cookie` and half of `res.clearCookie`.
pub(crate) struct NameWords {
    terms: std::collections::HashSet<String>,
    /// The first letter of each of the query's words, in order (`stream server-sent
    /// events` → `ssse`), for the acronyms in names (`streamSSE`).
    initials: String,
    analyzer: lore_index::tokenizer::TextAnalyzer,
}

/// A name part this long or longer also matches the query words it begins (`impl` →
/// "implementation", `req` → "request"), and a query word this long the name parts it
/// begins ("log" → `logger`, "host" → `hostname`).
const ABBREVIATION: usize = 3;

/// What naming a unit's container adds to its name's cover.
const QUALIFIER: f32 = 0.25;

/// How far a fully covered name lifts a definition (× 1.3; chosen on the agent sets of
/// express and vuejs/core: 0.5 lifts one-word names over the answer, README "Measured").
const NAME_WEIGHT: f32 = 0.3;

impl NameWords {
    pub fn of(query: &str) -> NameWords {
        let mut analyzer = lore_index::tokenizer::code_analyzer();
        let terms = lore_index::tokenizer::analyze(&mut analyzer, query)
            .into_iter()
            .collect();
        let initials = query
            .split(|c: char| !c.is_alphanumeric())
            .filter_map(|w| w.chars().next())
            .flat_map(char::to_lowercase)
            .collect();
        NameWords {
            terms,
            initials,
            analyzer,
        }
    }

    /// The share (0 to 1) of the parts of `symbol` (`clearCookie` → clear, cookie; stop
    /// words left out) that the query has: as a word, as the start of one or with a word as
    /// its start (three letters or more), or for an acronym (`SSE` of `streamSSE`) as the
    /// initials of words in a row ("server-sent events"). Plus `QUALIFIER` when it names the
    /// unit's container too (`req` of `req.header` in "read a request header", not `res`).
    /// A container never counts against a name: a nested function's enclosing one is not
    /// part of it.
    pub fn cover(&mut self, parent: Option<&str>, symbol: &str) -> f32 {
        let name = symbol.rsplit(['.', ':']).next().unwrap_or(symbol);
        let (parts, found) = self.count(name);
        if parts == 0 {
            return 0.0;
        }
        let qualified = parent.is_some_and(|p| self.count(p).1 > 0);
        found as f32 / parts as f32 + if qualified { QUALIFIER } else { 0.0 }
    }

    /// How many parts the identifiers in `name` have, and how many of them the query has.
    fn count(&mut self, name: &str) -> (usize, usize) {
        let (mut parts, mut found) = (0, 0);
        for word in name.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            for (a, b) in lore_index::tokenizer::identifier_parts(word) {
                let analyzed = lore_index::tokenizer::analyze(&mut self.analyzer, &word[a..b]);
                let Some(part) = analyzed.into_iter().next() else {
                    continue;
                };
                parts += 1;
                let abbreviates = |t: &String| t.len() > part.len() && t.starts_with(&part);
                let begins = |t: &String| {
                    t.len() >= ABBREVIATION && part.len() > t.len() && part.starts_with(t.as_str())
                };
                let written = &word[a..b];
                let acronym = written.len() >= 2
                    && written.chars().all(|c| c.is_ascii_uppercase())
                    && self.initials.contains(&written.to_ascii_lowercase());
                if self.terms.contains(&part)
                    || (part.len() >= ABBREVIATION && self.terms.iter().any(abbreviates))
                    || acronym
                    || self.terms.iter().any(begins)
                {
                    found += 1;
                }
            }
        }
        (parts, found)
    }
}

/// Identifier normalised for comparison: `parseQuery`, `parse_query`, `PARSE-QUERY`
/// → `parsequery`; the last segment of a path (`Store::get` → `get`).
pub(crate) fn norm(id: &str) -> String {
    let last = id.rsplit(['.', ':']).next().unwrap_or(id);
    last.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether a unit's text declares `ident` (a method of a class kept whole, say).
fn defines(content: &str, ident: &str) -> bool {
    declares(content, ident, |w, name| w.eq_ignore_ascii_case(name))
}

/// `defines`, with the name in exactly the case written: `walk_options`, not `WalkOptions`.
pub(crate) fn defines_exactly(content: &str, ident: &str) -> bool {
    declares(content, ident, |w, name| w == name)
}

fn declares(content: &str, ident: &str, same: impl Fn(&str, &str) -> bool) -> bool {
    let name = ident.rsplit(['.', ':']).next().unwrap_or(ident);
    if name.is_empty() {
        return false;
    }
    content.lines().any(|line| {
        let mut prev = "";
        for (start, w) in words_at(line).take(8) {
            if same(w, name) {
                return matches!(
                    prev,
                    "def"
                        | "fn"
                        | "func"
                        | "function"
                        | "class"
                        | "struct"
                        | "interface"
                        | "trait"
                        | "type"
                        | "enum"
                ) || (line.trim_end().ends_with('{')
                    && heads_a_declaration(&line[..start])
                    && opens_a_body(&line[start + w.len()..]));
            }
            prev = w;
        }
        false
    })
}

/// Whether `after` (a line past a name) is a parameter list and then the body, maybe
/// past a return type: `(body) {`, `(i: number): string {`, not `(name).map_err(|e| {`.
fn opens_a_body(after: &str) -> bool {
    if !after.starts_with('(') {
        return false;
    }
    let mut depth = 0;
    for (i, c) in after.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    let rest = after[i + 1..].trim_start();
                    return ["{", ":", "->", "throws"]
                        .iter()
                        .any(|p| rest.starts_with(p));
                }
            }
            _ => {}
        }
    }
    false
}

/// The words of `line` (letters, digits, `_`) with where each starts.
fn words_at(line: &str) -> impl Iterator<Item = (usize, &str)> {
    line.char_indices()
        .filter(move |&(i, c)| {
            let word = |c: char| c.is_alphanumeric() || c == '_';
            word(c) && !line[..i].chars().next_back().is_some_and(word)
        })
        .map(move |(i, _)| {
            let len = line[i..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(line.len() - i);
            (i, &line[i..i + len])
        })
}

/// Whether `before` (a line up to a name followed by `(`) can start a method's
/// declaration (`  async send(`, `public void addItem(`), not an expression (`check(x).map(|e|
/// {`, `lore_core::check(`, `return f(`, `x = f(`).
fn heads_a_declaration(before: &str) -> bool {
    !before.contains(['.', ':', '(', '=', ',', '!'])
        && !before.split_whitespace().any(|w| {
            matches!(
                w,
                "return"
                    | "await"
                    | "if"
                    | "while"
                    | "for"
                    | "switch"
                    | "new"
                    | "throw"
                    | "yield"
                    | "else"
                    | "case"
                    | "match"
            )
        })
}

/// What a query asks for beyond the product's code: its tests, or its benchmarks,
/// fixtures and vendored or generated files.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Wants {
    pub tests: bool,
    pub auxiliary: bool,
}

impl Wants {
    /// From the query's words: `test…`/`spec`; `bench…`/`fixture…`/`vendor…`/`generated`.
    pub fn of(words: &[String]) -> Wants {
        Wants {
            tests: words.iter().any(|w| w.starts_with("test") || w == "spec"),
            auxiliary: words.iter().any(|w| {
                ["bench", "fixture", "vendor", "generated"]
                    .iter()
                    .any(|p| w.starts_with(p))
            }),
        }
    }
}

/// Rust's unit tests, which live in the file they test: `#[cfg(test)] mod tests` and the
/// functions in it.
fn in_rust_tests(c: &Candidate) -> bool {
    c.language == lore_core::Language::Rust
        && (c.parent == Some("tests")
            || (c.kind == lore_core::ChunkKind::Module && c.symbol == Some("tests"))
            || ["#[test]", "#[cfg(test)]", "#[tokio::test"]
                .iter()
                .any(|a| c.content.trim_start().starts_with(a)))
}

/// A multiplicative prior on a candidate's fused score. `None` leaves ranking alone
/// except for tests, benchmarks, fixtures and vendored or generated files, which are
/// down-weighted unless the query asks for them.
pub(crate) fn prior(intent: Option<Intent>, c: &Candidate, idents: &[String], wants: Wants) -> f32 {
    use lore_core::ChunkKind as K;
    let mut p = 1.0;
    let is_test = lore_core::is_test_path(c.path) || in_rust_tests(c);
    let aside = if is_test {
        !wants.tests
    } else {
        !wants.auxiliary && lore_core::is_auxiliary_path(c.path)
    };
    if aside {
        p *= 0.85;
    }
    let is_doc = !c.language.is_code();
    let is_def = matches!(
        c.kind,
        K::Function
            | K::Method
            | K::Class
            | K::Struct
            | K::Enum
            | K::Interface
            | K::Trait
            | K::Type
            | K::Const
            | K::Impl
    );
    let names_match = c
        .symbol
        .is_some_and(|s| idents.iter().any(|i| norm(i) == norm(s)))
        || idents.iter().any(|i| defines(c.content, i));
    let mentions = |c: &Candidate| {
        let lower = c.content.to_lowercase();
        idents.iter().any(|i| {
            let last = i.rsplit(['.', ':']).next().unwrap_or(i);
            lower.contains(&format!("{last}("))
                || lower.contains(&format!("{last}::"))
                || lower.contains(&format!(".{last}"))
        })
    };
    // A definition whose name the question spells out is what it asks for, unless it asks
    // who uses it (the definition is not a usage) or for prose.
    let named_intent = !matches!(
        intent,
        Some(Intent::FindUsage | Intent::FindDocumentation | Intent::FindTask)
    );
    if named_intent && is_def && !is_doc {
        p *= 1.0 + NAME_WEIGHT * c.name_cover;
    }
    match intent {
        None => {}
        // Asked for a definition, the unit that declares the name is the answer: its
        // prior outweighs a short caller's higher BM25 (name repeated in less text).
        Some(Intent::FindDefinition) => {
            if names_match {
                p *= 2.0;
            } else if !is_def {
                p *= 0.85;
            }
        }
        Some(Intent::FindImplementation) => {
            if matches!(c.kind, K::Function | K::Method | K::Impl) {
                p *= 1.15;
            } else if is_doc || matches!(c.kind, K::Interface | K::Trait | K::Type) {
                p *= 0.85;
            }
        }
        Some(Intent::FindUsage) => {
            if names_match {
                // The definition itself is not a usage.
                p *= 0.7;
            } else if mentions(c) {
                p *= 1.4;
            } else if is_doc {
                p *= 0.85;
            }
        }
        // Ranked by `Engine::locate`, not by these priors.
        Some(Intent::FindTask) => {}
        Some(Intent::FindPattern) if !is_doc => p *= 1.05,
        Some(Intent::FindPattern) => {}
        Some(Intent::FindDocumentation) => {
            // Code with a doc comment explains itself; bare code is rarely the answer.
            if is_doc {
                p *= 1.4;
            } else if !c.has_doc {
                p *= 0.8;
            }
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_questions_name_their_subject_as_written() {
        assert_eq!(usage_subjects("who calls compose"), ["compose"]);
        assert_eq!(usage_subjects("who calls parseQuery?"), ["parseQuery"]);
        assert_eq!(usage_subjects("callers of `Store.get`"), ["Store.get"]);
        assert_eq!(usage_subjects("where is send_file used"), ["send_file"]);
        assert!(usage_subjects("who calls the router").is_empty());
        assert!(usage_subjects("how are scores fused").is_empty());
    }

    #[test]
    fn intents_from_wording() {
        assert_eq!(
            Intent::infer("where is parse_query defined"),
            Some(Intent::FindDefinition)
        );
        assert_eq!(
            Intent::infer("who calls parse_query"),
            Some(Intent::FindUsage)
        );
        assert_eq!(
            Intent::infer("where is Store::get used"),
            Some(Intent::FindUsage)
        );
        assert_eq!(
            Intent::infer("how does the indexer commit batches"),
            Some(Intent::FindImplementation)
        );
        assert_eq!(
            Intent::infer("how to install lore"),
            Some(Intent::FindDocumentation)
        );
        assert_eq!(
            Intent::infer("examples of retry with backoff"),
            Some(Intent::FindPattern)
        );
        assert_eq!(Intent::infer("parseJsonBody"), Some(Intent::FindDefinition));
        assert_eq!(Intent::infer("bm25 scores fused with vectors"), None);
        for i in Intent::ALL {
            assert_eq!(Intent::parse(i.as_str()), Some(i));
        }
    }

    #[test]
    fn plain_words_cover_a_name() {
        let mut w = NameWords::of("set a cookie on the response");
        assert_eq!(w.cover(None, "cookie"), 1.0);
        assert_eq!(w.cover(None, "clearCookie"), 0.5);
        // `res` abbreviates "response".
        assert_eq!(w.cover(Some("res"), "cookie"), 1.0 + QUALIFIER);
        let mut w = NameWords::of("read a request header");
        assert_eq!(w.cover(Some("req"), "header"), 1.0 + QUALIFIER);
        assert_eq!(w.cover(Some("res"), "header"), 1.0);
        // Stop words leave the name; three letters or more abbreviate a word.
        let mut w = NameWords::of("convert a value to its display string");
        assert_eq!(w.cover(None, "toDisplayString"), 1.0);
        let mut w = NameWords::of("computed ref implementation");
        assert_eq!(w.cover(None, "ComputedRefImpl"), 1.0);
        assert_eq!(w.cover(None, "mountComponent"), 0.0);
        assert_eq!(w.cover(None, "__"), 0.0);
        // A word of three letters or more begins a part.
        let mut w = NameWords::of("log each request with its duration");
        assert_eq!(w.cover(None, "logger"), 1.0);
        let mut w = NameWords::of("host name of the request");
        assert_eq!(w.cover(None, "hostname"), 1.0);
        // An acronym is spelled by the initials of words in a row.
        let mut w = NameWords::of("stream server-sent events to the client");
        assert_eq!(w.cover(None, "streamSSE"), 1.0);
        assert_eq!(w.cover(None, "SSEStreamingApi"), 2.0 / 3.0);
        // Written in lower case, a part is a word, not an acronym.
        assert_eq!(w.cover(None, "sse"), 0.0);
        assert_eq!(w.cover(None, "streamXML"), 0.5);
    }

    #[test]
    fn identifiers_in_queries() {
        assert_eq!(
            query_identifiers("who calls `run` and parse_query in Store::get"),
            ["run", "parse_query", "store::get"]
        );
        assert_eq!(query_identifiers("fooBar baz"), ["foobar"]);
        assert!(defines(
            "class Cart:\n    def add_item(self):\n",
            "add_item"
        ));
        assert!(defines("  public void addItem(Item i) {", "additem"));
        assert!(!defines("    cart.add_item(x)\n", "add_item"));
        assert!(defines("  async send(body) {", "send"));
        // Calls on a line that opens a closure are not declarations.
        for call in [
            "    lore_core::validate(name).map_err(|e| {",
            "    validate(name).map_err(|e| {",
            "    return validate(name).then(() => {",
            "    const ok = validate(name, () => {",
        ] {
            assert!(!defines(call, "validate"), "{call}");
        }
        assert!(defines_exactly(
            "fn walk_options(&self) -> W {",
            "walk_options"
        ));
        assert!(!defines_exactly("pub struct WalkOptions {", "walk_options"));
    }
}
