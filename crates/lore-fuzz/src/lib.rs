//! Fuzz targets over lore's parsers of outside input: one `pub fn <target>(data: &[u8])`
//! per target. `fuzz/` (cargo-fuzz, nightly) runs them under libFuzzer; `tests/corpus.rs`
//! replays the committed corpora and regressions through the same functions on stable, so
//! every input once found stays checked.
//!
//! Each target drives the product code and asserts what must hold for any input (a panic
//! is a finding): chunks lie inside their file, in order, cover it, with exact lines;
//! frontmatter reads back as written; resolved URLs keep their origin and never keep a dot
//! segment; robots.txt rules match as a reference matcher does; parsed arguments are in
//! range and errors never repeat a long argument whole; JSON is found in LLM prose.
//!
//! Inputs are bytes; text targets read them as UTF-8 with invalid sequences replaced (the
//! product reads files and pages the same way), so the fuzzer's mutations stay useful.

use lore_brain::frontmatter::Frontmatter;
use lore_chunk::{ChunkOptions, analyze_file};
use lore_core::{Chunk, ChunkKind, FileFacts, Language};
use lore_source::web::{Robots, WebUrl, page_path, page_url, read_page, sitemap_locs};
use serde_json::Value;
use std::borrow::Cow;
use std::path::{Component, Path};

fn text(data: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// The code languages `analyze_code` picks from with its first byte, by file name.
pub const CODE_FILES: [(&str, Language); 9] = [
    ("src/lib.rs", Language::Rust),
    ("pkg/mod.py", Language::Python),
    ("src/app.ts", Language::TypeScript),
    ("src/view.tsx", Language::Tsx),
    ("lib/index.js", Language::JavaScript),
    ("cmd/main.go", Language::Go),
    ("src/Main.java", Language::Java),
    ("src/util.c", Language::C),
    ("src/util.cpp", Language::Cpp),
];

/// The prose files `chunk_prose` picks from with its first byte.
pub const PROSE_FILES: [(&str, Language); 2] = [
    ("docs/guide.md", Language::Markdown),
    ("notes/readme.txt", Language::Text),
];

/// Chunk sizes from one byte: below 0x80 the defaults, else small sizes that force splits.
fn options(data: &[u8]) -> (ChunkOptions, &[u8]) {
    match data.split_first() {
        Some((&b, rest)) if b >= 0x80 => {
            let k = (b & 0x7f) as usize;
            let opts = ChunkOptions {
                max_chars: 8 + k * 8,
                window_chars: 4 + k * 6,
                overlap_chars: k * 2,
            };
            (opts, rest)
        }
        Some((_, rest)) => (ChunkOptions::default(), rest),
        None => (ChunkOptions::default(), data),
    }
}

/// `analyze_file` on code: byte 0 picks the language ([`CODE_FILES`]), byte 1 the chunk
/// sizes, the rest is the file.
pub fn analyze_code(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (path, language) = CODE_FILES[pick as usize % CODE_FILES.len()];
    analyze(path, language, rest);
}

/// `analyze_file` on markdown and plain text: byte 0 picks the kind ([`PROSE_FILES`]),
/// byte 1 the chunk sizes, the rest is the file.
pub fn chunk_prose(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (path, language) = PROSE_FILES[pick as usize % PROSE_FILES.len()];
    analyze(path, language, rest);
}

fn analyze(path: &str, language: Language, data: &[u8]) {
    let (opts, rest) = options(data);
    let text = text(rest);
    let analysis = analyze_file(path, &text, &opts);
    check_chunks(&text, &analysis.chunks, language);
    check_facts(&text, &analysis.facts);
}

/// 1-based line of every byte offset, by binary search over line starts.
struct Lines(Vec<usize>);

impl Lines {
    fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines(starts)
    }
    fn of(&self, byte: usize) -> u32 {
        self.0.partition_point(|&s| s <= byte) as u32
    }
    fn count(&self) -> u32 {
        self.0.len() as u32
    }
}

/// What every chunking must give (ARCHITECTURE.md, lore-chunk's docs): each chunk is its
/// file's bytes `start_byte..end_byte`, not blank, with the lines of its first and last
/// non-newline byte; chunks come in file order, overlap only as text windows, and every
/// non-whitespace byte is in one.
pub fn check_chunks(text: &str, chunks: &[Chunk], language: Language) {
    let bytes = text.as_bytes();
    let lines = Lines::new(text);
    let mut covered = vec![false; bytes.len()];
    let mut prev: Option<&Chunk> = None;
    for c in chunks {
        let (s, e) = (c.start_byte, c.end_byte);
        assert!(
            s < e && e <= bytes.len(),
            "chunk bytes {s}..{e} of {}",
            bytes.len()
        );
        assert_eq!(
            text.get(s..e),
            Some(c.content.as_str()),
            "content of {s}..{e}"
        );
        assert!(
            !c.content.bytes().all(|b| b.is_ascii_whitespace()),
            "blank chunk {s}..{e}"
        );
        assert_eq!(c.language, language);
        assert_eq!(c.start_line, lines.of(s), "start line of {s}..{e}");
        let mut last = e;
        while last > s + 1 && matches!(bytes[last - 1], b'\n' | b'\r') {
            last -= 1;
        }
        assert_eq!(c.end_line, lines.of(last - 1), "end line of {s}..{e}");
        if let Some(p) = prev {
            assert!(
                p.start_byte <= s,
                "chunks out of order: {}.. then {s}..",
                p.start_byte
            );
            if p.kind != ChunkKind::Text || c.kind != ChunkKind::Text {
                assert!(
                    p.end_byte <= s,
                    "chunks overlap: ..{} then {s}..",
                    p.end_byte
                );
            }
        }
        covered[s..e].iter_mut().for_each(|b| *b = true);
        prev = Some(c);
    }
    if let Some(i) = (0..bytes.len()).find(|&i| !bytes[i].is_ascii_whitespace() && !covered[i]) {
        panic!("byte {i} (line {}) is in no chunk", lines.of(i));
    }
}

/// Code facts point into their file: symbol ranges inside it, lines of symbols, imports and
/// references within its lines, names not empty.
pub fn check_facts(text: &str, facts: &FileFacts) {
    let lines = Lines::new(text);
    for s in &facts.symbols {
        assert!(!s.name.is_empty(), "a symbol without a name: {s:?}");
        assert!(
            s.start_byte <= s.end_byte && s.end_byte <= text.len(),
            "symbol {} bytes {}..{}",
            s.name,
            s.start_byte,
            s.end_byte
        );
        assert!(
            1 <= s.start_line && s.start_line <= s.end_line && s.end_line <= lines.count(),
            "symbol {} lines {}..{}",
            s.name,
            s.start_line,
            s.end_line
        );
        assert_eq!(
            s.start_line,
            lines.of(s.start_byte),
            "symbol {} start",
            s.name
        );
    }
    for i in &facts.imports {
        assert!(
            1 <= i.line && i.line <= lines.count(),
            "import line {}",
            i.line
        );
    }
    for r in &facts.refs {
        assert!(
            1 <= r.line && r.line <= lines.count(),
            "reference line {}",
            r.line
        );
        assert!(!r.name.is_empty(), "a reference without a name");
    }
}

/// The brain's frontmatter: a parsed block written back reads back the same (entries and
/// body), and values set by the writer (titles, source lists) read back as set.
pub fn frontmatter(data: &[u8]) {
    let text = text(data);
    let (fm, body) = Frontmatter::split(&text);
    if let Some(fm) = fm {
        let rendered = format!("{}{body}", fm.render());
        let (again, body_again) = Frontmatter::split(&rendered);
        assert_eq!(again.as_ref(), Some(&fm), "entries changed by a round trip");
        assert_eq!(body_again, body, "body changed by a round trip");
        assert_eq!(again.map(|f| f.render()), Some(fm.render()));
    }
    // Writing: the input's lines as a title and a list, on top of the parsed entries.
    let mut lines = text.lines().map(str::to_string);
    let title = lines.next().unwrap_or_default();
    let sources: Vec<String> = lines.take(16).collect();
    let mut fm = Frontmatter::split(&text).0.unwrap_or_default();
    fm.set("title", &title);
    fm.set_list("sources", sources.clone());
    let page = format!("{}\nbody\n", fm.render());
    let (read, body) = Frontmatter::split(&page);
    let read = read.expect("a rendered block reads back");
    assert_eq!(read, fm);
    assert_eq!(read.get("title"), Some(title.as_str()));
    assert_eq!(read.list("sources"), sources);
    assert_eq!(body, "\nbody\n");
}

/// HTML to markdown as web stores (`read_page`, `html_to_markdown`) and brain ingestion do
/// it; the markdown then chunks as any markdown file; links resolve without panics.
pub fn html(data: &[u8]) {
    let html = text(data);
    if let Ok(md) = lore_source::web::html_to_markdown(&html) {
        let opts = ChunkOptions::default();
        let analysis = analyze_file("site/page.md", &md, &opts);
        check_chunks(&md, &analysis.chunks, Language::Markdown);
    }
    if let Ok(page) = read_page(&html) {
        assert!(page.markdown.ends_with('\n'));
        if page.title.is_some() {
            assert!(
                page.markdown.trim_start().starts_with('#'),
                "a titled page leads with a heading"
            );
        }
        let base = WebUrl::parse("https://docs.example.org/guide/intro.html");
        let base = page
            .base
            .as_deref()
            .and_then(|b| base.as_ref().and_then(|u| u.join(b)))
            .or(base);
        if let Some(base) = base {
            for link in &page.links {
                if let Some(u) = base.join(link) {
                    check_url(&u);
                }
            }
        }
    }
    let _ = lore_brain::extract::html_to_markdown(&html);
}

/// robots.txt: line 1 is `pattern<TAB>path` (or a path), the rest the file. Parsing and
/// matching never panic; a file without groups allows everything; one `Disallow` rule
/// blocks exactly the paths a reference matcher (RFC 9309: `*`, final `$`) says it matches.
pub fn robots(data: &[u8]) {
    let text = text(data);
    let (first, body) = text.split_once('\n').unwrap_or((&text, ""));
    let (pattern, path) = first.split_once('\t').unwrap_or(("", first));
    let robots = Robots::parse(body);
    let allowed = robots.allows(path);
    if !body.to_ascii_lowercase().contains("user-agent") {
        assert!(allowed, "no group, yet {path:?} is refused");
    }
    let clean = !pattern.is_empty()
        && pattern.len() <= 256
        && path.len() <= 256
        && pattern.trim() == pattern
        && !pattern.contains(['#', '\r']);
    if clean {
        let one = Robots::parse(&format!("User-agent: *\nDisallow: {pattern}\n"));
        assert_eq!(
            one.allows(path),
            !glob_matches(pattern.as_bytes(), path.as_bytes()),
            "Disallow: {pattern:?} against {path:?}"
        );
    }
}

/// Reference robots.txt matching by dynamic programming: a prefix match where `*` is any
/// run of bytes and a final `$` anchors the end.
fn glob_matches(pattern: &[u8], path: &[u8]) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix(b"$") {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    // at[j]: the pattern so far matches exactly path[..j].
    let mut at = vec![false; path.len() + 1];
    at[0] = true;
    for &p in pattern {
        let mut next = vec![false; path.len() + 1];
        if p == b'*' {
            let mut any = false;
            for j in 0..=path.len() {
                any |= at[j];
                next[j] = any;
            }
        } else {
            for j in 0..path.len() {
                next[j + 1] = at[j] && path[j] == p;
            }
        }
        at = next;
    }
    if anchored {
        at[path.len()]
    } else {
        at.contains(&true)
    }
}

/// URL resolution: line 1 a base URL, the rest a link. A parsed or resolved URL prints as
/// itself, has no dot segments (scope checks compare paths by prefix), keeps the base's
/// origin unless the link names one (`//host`, `scheme://`), and mirrors to a relative path
/// without hidden or empty segments that maps back to it.
pub fn url(data: &[u8]) {
    let text = text(data);
    let (base, href) = text.split_once('\n').unwrap_or((&text, ""));
    let Some(b) = WebUrl::parse(base) else {
        return;
    };
    check_url(&b);
    if let Some(u) = b.join(href) {
        check_url(&u);
        if u.origin() != b.origin() {
            let h = href.trim();
            assert!(
                h.starts_with("//") || h.contains("://"),
                "{href:?} left {} for {}",
                b.origin(),
                u.origin()
            );
        }
    }
}

fn check_url(u: &WebUrl) {
    let _ = u.host_port();
    assert!(u.path().starts_with('/'), "{u}: path {:?}", u.path());
    assert!(
        !u.path().split('/').any(|s| s == "." || s == ".."),
        "{u}: a dot segment is left"
    );
    assert_eq!(
        WebUrl::parse(&u.to_string()).as_ref(),
        Some(u),
        "{u} reparsed"
    );
    if let Some(p) = page_path(u) {
        assert!(
            p.split('/')
                .all(|s| !s.is_empty() && !s.starts_with('.') && s != ".."),
            "{u}: mirror path {p:?}"
        );
        if u.query().is_none() {
            let back = page_url(&u.origin(), &p);
            let want = u.to_string();
            // `/a/index` and `/a/` share the mirror file `a/index.md`.
            let same = back == want
                || want
                    .strip_suffix("index")
                    .is_some_and(|dir| dir.ends_with('/') && back == dir);
            assert!(same, "{u}: mirrored as {p:?}, mapped back to {back}");
        }
    }
}

/// Sitemaps: the `<loc>` values, trimmed, XML entities decoded once (as a reference
/// decoder does); each is then parsed and mirrored as the crawl does.
pub fn sitemap(data: &[u8]) {
    let xml = text(data);
    let locs = sitemap_locs(&xml);
    let want: Vec<String> = xml
        .split("<loc>")
        .skip(1)
        .filter_map(|s| s.split_once("</loc>"))
        .map(|(loc, _)| decode_entities(loc.trim()))
        .collect();
    assert_eq!(locs, want);
    for loc in &locs {
        if let Some(u) = WebUrl::parse(loc) {
            check_url(&u);
        }
    }
}

/// The five predefined XML entities, decoded in one pass.
fn decode_entities(s: &str) -> String {
    const ENTITIES: [(&str, char); 5] = [
        ("&amp;", '&'),
        ("&lt;", '<'),
        ("&gt;", '>'),
        ("&quot;", '"'),
        ("&apos;", '\''),
    ];
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        match ENTITIES.iter().find(|(e, _)| rest.starts_with(e)) {
            Some((e, ch)) => {
                out.push(*ch);
                rest = &rest[e.len()..];
            }
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// Longest error message a parser may give: messages repeat at most 80 characters of a
/// client's value (`params::shown`).
const MAX_ERROR_BYTES: usize = 640;
/// `--max-query-bytes` for the fuzzer: small, so the cap is reached.
const MAX_QUERY: usize = 64;

fn short_error<T>(what: &str, r: &Result<T, String>) {
    if let Err(e) = r {
        assert!(
            e.len() <= MAX_ERROR_BYTES,
            "{what}: a {} byte error: {}…",
            e.len(),
            e.chars().take(200).collect::<String>()
        );
    }
}

fn local_path_ok(what: &str, p: &Path) {
    assert!(p.is_absolute(), "{what}: relative path {p:?} accepted");
    assert!(
        !p.components().any(|c| matches!(c, Component::ParentDir)),
        "{what}: path with .. accepted: {p:?}"
    );
}

/// MCP tool arguments and REST bodies: a JSON object through every parser. Errors are
/// short; what is accepted is in range (limits, names, query sizes, finite thresholds,
/// absolute paths without `..`).
pub fn params(data: &[u8]) {
    use lore_engine::JobSpec;
    use lore_server::fuzzing as p;
    let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let data_dir = Path::new("/var/lib/lore-fuzz/data");
    let base = Path::new("/srv/agent/project");

    let r = p::search_request(&obj, MAX_QUERY);
    short_error("search", &r);
    if let Ok(q) = r {
        assert!(!q.query.trim().is_empty() && q.query.len() <= MAX_QUERY);
        assert!((1..=100).contains(&q.limit), "limit {}", q.limit);
        assert!((1..=100).contains(&q.per_file), "per_file {}", q.per_file);
        assert!(
            q.threshold.is_none_or(f32::is_finite),
            "threshold {:?}",
            q.threshold
        );
        for s in &q.stores {
            assert!(lore_core::validate_store_name(s).is_ok(), "store {s:?}");
        }
    }

    let r = p::graph_query(&obj, MAX_QUERY);
    short_error("graph", &r);
    if let Ok(g) = r {
        assert!(!g.symbol.trim().is_empty() && g.symbol.len() <= MAX_QUERY);
        for s in &g.stores {
            assert!(lore_core::validate_store_name(s).is_ok(), "store {s:?}");
        }
    }

    for base in [None, Some(base)] {
        let r = p::add_spec(&obj, base, data_dir);
        short_error("add", &r);
        if let Ok(JobSpec::Add(add)) = r {
            assert!(lore_core::validate_store_name(&add.name).is_ok());
            let source = add.source.as_str();
            if let Some(path) = source.strip_prefix("file://") {
                local_path_ok("add file://", Path::new(path));
            } else if !source.contains("://") && !source.starts_with("git@") {
                local_path_ok("add", Path::new(source));
            }
        }
        let r = p::ingest_request(&obj, base);
        short_error("ingest", &r);
        if let Ok(Some(path)) = r.map(|i| i.path) {
            local_path_ok("ingest", &path);
        }
    }

    short_error("index", &p::index_spec("docs", &obj));
    let r = p::brain_query(&obj, MAX_QUERY);
    short_error("brain query", &r);
    if let Ok(q) = r {
        assert!((1..=lore_engine::brain::MAX_BRAIN_LIMIT).contains(&q.limit));
        assert!(!q.query.trim().is_empty() && q.query.len() <= MAX_QUERY);
    }
    short_error("note", &p::note(&obj));
    short_error("raw ingest", &p::raw_ingest(&obj));
    short_error("session", &p::session_entry(&obj));
    for v in obj.values() {
        if let Value::String(s) = v {
            short_error("store name", &p::store_name(s));
        }
    }
}

/// JSON out of LLM answers: line 1 is prose, the rest a JSON value. The answer itself
/// never panics; a whole-JSON answer is that JSON; an object inside prose or inside a
/// ```json fence is found as it was.
pub fn llm_json(data: &[u8]) {
    let text = text(data);
    let got = lore_llm::extract_json(&text);
    if let Ok(v) = serde_json::from_str::<Value>(text.trim().trim_start_matches('\u{feff}')) {
        assert_eq!(got.ok(), Some(v), "a whole-JSON answer");
    }
    let (prose, json) = text.split_once('\n').unwrap_or(("", &text));
    let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(json) else {
        return;
    };
    let prose: String = prose
        .chars()
        // No brackets or fences, and no quotes: `"` prose around `{}` is a JSON string.
        .filter(|c| !matches!(c, '{' | '[' | '`' | '"'))
        .collect();
    let compact = v.to_string();
    let pretty = serde_json::to_string_pretty(&v).unwrap_or_else(|_| compact.clone());
    // A fence inside a JSON string can pair with the answer's own fences: out of scope.
    if pretty.contains("```") || compact.contains("```") {
        return;
    }
    let fenced = format!("{prose}\n```json\n{pretty}\n```\n{prose}");
    assert_eq!(
        lore_llm::extract_json(&fenced).ok().as_ref(),
        Some(&v),
        "fenced"
    );
    let inline = format!("{prose} {compact} {prose}");
    assert_eq!(
        lore_llm::extract_json(&inline).ok().as_ref(),
        Some(&v),
        "inline"
    );
}
