//! Request arguments from JSON objects (MCP tool arguments and REST bodies alike), read
//! leniently: numbers may come as strings, lists as comma-separated strings, and keys in
//! camelCase or snake_case. Every error says which argument was wrong and what it takes.

use lore_core::StoreKind;
use lore_engine::brain::{
    BrainQuery, IngestRequest, MAX_BRAIN_LIMIT, Note, RawIngest, RawPage, SessionEntry,
};
use lore_engine::{
    AddStore, Detail, Direction, GraphQuery, GrepRequest, ImpactRequest, Intent, JobSpec,
    LocateRequest, Mode, SearchRequest,
};
use serde_json::{Map, Value};
use std::path::{Component, Path, PathBuf};

pub(crate) type JsonObject = Map<String, Value>;

/// Most results one search may ask for.
pub(crate) const MAX_LIMIT: u64 = 100;

/// What `direction` (code graph) and `type` (store add) take; the MCP schemas list them too.
pub(crate) const DIRECTIONS: [&str; 3] = ["callers", "callees", "definition"];
pub(crate) const STORE_TYPES: [&str; 3] = ["folder", "repo", "web"];

/// Most characters of a client's value an error message repeats.
const SHOWN_CHARS: usize = 80;

/// A client's value as an error shows it: cut to `SHOWN_CHARS` characters, so no error
/// echoes a long argument whole.
pub(crate) fn shown(v: impl std::fmt::Display) -> String {
    let s = v.to_string();
    match s.char_indices().nth(SHOWN_CHARS) {
        None => s,
        Some((cut, _)) => format!("{}… ({} bytes)", &s[..cut], s.len()),
    }
}

/// `text` (the `key` argument) when it is at most `max` bytes long.
fn capped(key: &str, text: String, max: usize) -> Result<String, String> {
    if text.len() > max {
        return Err(format!(
            "`{key}` is {} bytes; this server takes at most {max} (lore serve \
             --max-query-bytes sets it)",
            text.len()
        ));
    }
    Ok(text)
}

pub(crate) struct Args<'a>(pub &'a JsonObject);

impl<'a> Args<'a> {
    /// `key` as the client spelled it (camelCase or snake_case), for its errors.
    fn spelled(&self, key: &str) -> String {
        let snake = to_snake(key);
        if !self.0.contains_key(key) && self.0.contains_key(&snake) {
            snake
        } else {
            key.to_string()
        }
    }

    /// The value under `key` or its snake_case spelling; `null` counts as absent.
    fn get(&self, key: &str) -> Option<&'a Value> {
        let snake = to_snake(key);
        self.0
            .get(key)
            .or_else(|| self.0.get(&snake))
            .filter(|v| !v.is_null())
    }

    pub fn string(&self, key: &str) -> Result<Option<String>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(other) => Err(format!(
                "`{}` must be a string, got {}",
                self.spelled(key),
                shown(other)
            )),
        }
    }

    pub fn required(&self, key: &str) -> Result<String, String> {
        match self.string(key)? {
            Some(s) if !s.trim().is_empty() => Ok(s),
            _ => Err(format!("`{}` is required", self.spelled(key))),
        }
    }

    pub fn uint(&self, key: &str) -> Result<Option<u64>, String> {
        let spelled = self.spelled(key);
        let bad = |v: &Value| format!("`{spelled}` must be a whole number, got {}", shown(v));
        match self.get(key) {
            None => Ok(None),
            Some(v @ Value::Number(n)) => match (n.as_u64(), n.as_f64()) {
                (Some(u), _) => Ok(Some(u)),
                (None, Some(f)) if f >= 0.0 && f.fract() == 0.0 && f < 1e15 => Ok(Some(f as u64)),
                _ => Err(bad(v)),
            },
            Some(v @ Value::String(s)) => s.trim().parse().map(Some).map_err(|_| bad(v)),
            Some(v) => Err(bad(v)),
        }
    }

    pub fn float(&self, key: &str) -> Result<Option<f32>, String> {
        let spelled = self.spelled(key);
        let bad = |v: &Value| format!("`{spelled}` must be a number, got {}", shown(v));
        match self.get(key) {
            None => Ok(None),
            // Finite as an f32 too: 1e39 is a JSON number, infinite as f32 (fuzz target `params`).
            Some(v @ Value::Number(n)) => match n.as_f64().map(|f| f as f32) {
                Some(f) if f.is_finite() => Ok(Some(f)),
                _ => Err(bad(v)),
            },
            Some(v @ Value::String(s)) => match s.trim().parse::<f32>() {
                Ok(f) if f.is_finite() => Ok(Some(f)),
                _ => Err(bad(v)),
            },
            Some(v) => Err(bad(v)),
        }
    }

    /// true or false (also as the strings "true" and "false"); a number is refused, as
    /// `"full": 1` is more likely a mistake than a yes.
    pub fn boolean(&self, key: &str) -> Result<bool, String> {
        match self.get(key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::String(s)) if s.trim() == "true" => Ok(true),
            Some(Value::String(s)) if s.trim() == "false" || s.trim().is_empty() => Ok(false),
            Some(other) => Err(format!(
                "`{}` must be true or false, got {}",
                self.spelled(key),
                shown(other)
            )),
        }
    }

    /// A list of strings: a JSON array, or one comma-separated string.
    pub fn list(&self, key: &str) -> Result<Vec<String>, String> {
        let split = |s: &str| -> Vec<String> {
            s.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        };
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::String(s)) => Ok(split(s)),
            Some(Value::Array(items)) => {
                let mut out = Vec::new();
                for item in items {
                    match item {
                        Value::String(s) => out.extend(split(s)),
                        other => {
                            return Err(format!(
                                "`{}` must be a list of strings, got an item {}",
                                self.spelled(key),
                                shown(other)
                            ));
                        }
                    }
                }
                Ok(out)
            }
            Some(other) => Err(format!(
                "`{}` must be a list of strings, got {}",
                self.spelled(key),
                shown(other)
            )),
        }
    }

    /// One of a fixed set of `words`.
    pub fn choice<T>(
        &self,
        key: &str,
        parse: impl Fn(&str) -> Option<T>,
        words: &[&str],
    ) -> Result<Option<T>, String> {
        match self.string(key)? {
            None => Ok(None),
            Some(s) if s.trim().is_empty() => Ok(None),
            Some(s) => parse(s.trim()).map(Some).ok_or_else(|| {
                format!(
                    "`{}` must be one of {}, got {}",
                    self.spelled(key),
                    words.join(", "),
                    shown(format!("{s:?}"))
                )
            }),
        }
    }
}

fn to_snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Store names from a request's `key` list, each checked before any lookup; `["*"]`
/// alone asks for every store (`App::scope`).
fn store_names(a: &Args, key: &str) -> Result<Vec<String>, String> {
    let names = a.list(key)?;
    if names.len() == 1 && names[0] == "*" {
        return Ok(names);
    }
    for n in &names {
        store_name(n)?;
    }
    Ok(names)
}

fn mode(a: &Args) -> Result<Option<Mode>, String> {
    a.choice("mode", Mode::parse, &Mode::ALL.map(Mode::as_str))
}

/// `limit`, from 1 to `MAX_LIMIT`.
fn limit(a: &Args) -> Result<Option<usize>, String> {
    match a.uint("limit")? {
        Some(n) if n == 0 || n > MAX_LIMIT => {
            Err(format!("`limit` must be between 1 and {MAX_LIMIT}"))
        }
        n => Ok(n.map(|n| n as usize)),
    }
}

/// A search request: {query, intent?, detail?, limit?, stores?, mode?, threshold?, perFile?};
/// a query longer than `max_query` bytes is refused.
pub(crate) fn search_request(obj: &JsonObject, max_query: usize) -> Result<SearchRequest, String> {
    let a = Args(obj);
    let mut req = SearchRequest::new(capped("query", a.required("query")?, max_query)?);
    req.intent = a.choice("intent", Intent::parse, &Intent::ALL.map(Intent::as_str))?;
    if let Some(d) = a.choice("detail", Detail::parse, &Detail::ALL.map(Detail::as_str))? {
        req.detail = d;
    }
    if let Some(m) = mode(&a)? {
        req.mode = m;
    }
    if let Some(limit) = limit(&a)? {
        req.limit = limit;
    }
    if let Some(per_file) = a.uint("perFile")? {
        req.per_file = per_file.clamp(1, MAX_LIMIT) as usize;
    }
    req.threshold = a.float("threshold")?;
    req.stores = store_names(&a, "stores")?;
    req.freshness = true;
    // Feedback counts unless the client says `feedback: false`.
    if obj.get("feedback").is_some() {
        req.feedback = a.boolean("feedback")?;
    }
    Ok(req)
}

/// A task to locate: {task, limit?, stores?, mode?}. A task (an issue with its traceback)
/// may be four times as long as a query.
pub(crate) fn locate_request(obj: &JsonObject, max_query: usize) -> Result<LocateRequest, String> {
    let a = Args(obj);
    let mut req = LocateRequest::new(capped(
        "task",
        a.required("task")?,
        max_query.saturating_mul(TASK_TO_QUERY),
    )?);
    if let Some(m) = mode(&a)? {
        req.mode = m;
    }
    if let Some(limit) = limit(&a)? {
        req.limit = limit;
    }
    req.stores = store_names(&a, "stores")?;
    Ok(req)
}

/// Most lines one grep over MCP or HTTP may ask for.
pub(crate) const MAX_GREP_LINES: u64 = 1000;

/// A grep: {pattern, fixed?, ignoreCase?, glob?, stores?, maxLines?}.
pub(crate) fn grep_request(obj: &JsonObject, max_query: usize) -> Result<GrepRequest, String> {
    let a = Args(obj);
    let mut req = GrepRequest::new(capped("pattern", a.required("pattern")?, max_query)?);
    req.fixed = a.boolean("fixed")?;
    req.ignore_case = a.boolean("ignore_case")?;
    req.globs = a.list("glob")?;
    req.stores = store_names(&a, "stores")?;
    req.stores.extend(store_names(&a, "store")?);
    if let Some(n) = a.uint("max_lines")? {
        if n == 0 || n > MAX_GREP_LINES {
            return Err(format!("`maxLines` must be between 1 and {MAX_GREP_LINES}"));
        }
        req.max_lines = n as usize;
    }
    Ok(req)
}

/// An impact question: {symbol?, symbols?, file?, files?, diff?, stores?, depth?, limit?}.
pub(crate) fn impact_request(obj: &JsonObject, max_query: usize) -> Result<ImpactRequest, String> {
    let a = Args(obj);
    let mut symbols = a.list("symbol")?;
    symbols.extend(a.list("symbols")?);
    let mut files = a.list("file")?;
    files.extend(a.list("files")?);
    let mut stores = store_names(&a, "stores")?;
    stores.extend(store_names(&a, "store")?);
    for s in symbols.iter().chain(&files) {
        capped("symbol", s.clone(), max_query)?;
    }
    let depth = match a.uint("depth")? {
        Some(d) if d == 0 || d > 10 => return Err("`depth` must be between 1 and 10".into()),
        d => d.unwrap_or(lore_engine::DEFAULT_IMPACT_DEPTH as u64) as usize,
    };
    let limit = match a.uint("limit")? {
        Some(n) if n == 0 || n > 500 => return Err("`limit` must be between 1 and 500".into()),
        n => n.unwrap_or(lore_engine::DEFAULT_IMPACT_LIMIT as u64) as usize,
    };
    let diff = a.string("diff")?.filter(|d| !d.trim().is_empty());
    if symbols.is_empty() && files.is_empty() && diff.is_none() {
        return Err("say what changes: `symbol`, `file` or `diff` (a unified diff)".into());
    }
    Ok(ImpactRequest {
        symbols,
        files,
        diff,
        stores,
        depth,
        limit,
    })
}

/// How many times the query cap a locate task may be.
pub(crate) const TASK_TO_QUERY: usize = 4;

/// A code-graph question: {symbol, direction: callers|callees|definition, store?}.
pub(crate) fn graph_query(obj: &JsonObject, max_query: usize) -> Result<GraphQuery, String> {
    let a = Args(obj);
    let symbol = capped("symbol", a.required("symbol")?, max_query)?;
    let direction = a
        .choice("direction", Direction::parse, &DIRECTIONS)?
        .ok_or("`direction` is required: callers, callees or definition")?;
    let mut stores = store_names(&a, "store")?;
    stores.extend(store_names(&a, "stores")?);
    Ok(GraphQuery {
        symbol,
        direction,
        stores,
    })
}

/// Where a folder source may be: checked before a job exists.
pub(crate) struct SourcePolicy<'a> {
    /// Relative folder paths are resolved against this (stdio, the agent's own folder);
    /// `None` (HTTP) requires absolute paths.
    pub base: Option<&'a Path>,
    /// The data dir: never indexed as a store.
    pub data_dir: &'a Path,
}

/// An add request: {name, source, type?, branch?, include?, exclude?, description?,
/// maxFileSize?, maxPages?, maxDepth?, embed? (model | none), noIgnore?}.
pub(crate) fn add_spec(obj: &JsonObject, policy: &SourcePolicy) -> Result<JobSpec, String> {
    let a = Args(obj);
    let name = a.required("name")?;
    store_name(&name)?;
    let source = a.required("source")?;
    let kind = a.choice("type", StoreKind::parse, &STORE_TYPES)?;
    // Local paths (folders, local repos, file:// URLs) obey the path rules; network URLs
    // are cloned into the data dir.
    let source = match source.trim().strip_prefix("file://") {
        Some(path) => format!("file://{}", local_source(path, policy)?),
        None if lore_source::git::looks_like_url(&source) && !source.ends_with(".git") => source,
        None if source.contains("://") || source.starts_with("git@") => source,
        None => local_source(&source, policy)?,
    };
    Ok(JobSpec::Add(AddStore {
        name,
        source,
        kind,
        branch: a.string("branch")?,
        includes: a.list("include")?,
        excludes: a.list("exclude")?,
        description: a.string("description")?,
        max_file_bytes: a.uint("maxFileSize")?,
        max_pages: a.uint("maxPages")?.map(|n| n as usize),
        max_depth: a.uint("maxDepth")?.map(|n| n as usize),
        lexical_only: a.choice(
            "embed",
            |e| ["model", "none"].contains(&e).then_some(e == "none"),
            &["model", "none"],
        )? == Some(true),
        no_ignore: a.boolean("noIgnore")?,
    }))
}

/// A local path from a request's `key` naming a `what` (folder, file): absolute, or
/// relative to `base` (the stdio client's folder); never with `..`.
fn local_path(key: &str, value: &str, what: &str, base: Option<&Path>) -> Result<PathBuf, String> {
    let p = Path::new(value.trim());
    let value = shown(format!("{value:?}"));
    if p.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(format!(
            "{key} {value} contains `..`; give the {what}'s absolute path"
        ));
    }
    match base {
        _ if p.is_absolute() => Ok(p.to_path_buf()),
        // `.` and `./x` name the folder itself and `x`, not `/base/.`.
        Some(base) => Ok(p
            .components()
            .filter(|c| !matches!(c, Component::CurDir))
            .fold(base.to_path_buf(), |b, c| b.join(c))),
        None => Err(format!(
            "{key} {value} is relative; give the {what}'s absolute path"
        )),
    }
}

/// A local folder source: the path rules, and not inside the data dir.
fn local_source(source: &str, policy: &SourcePolicy) -> Result<String, String> {
    let path = local_path("source", source, "folder", policy.base)?;
    let data = std::fs::canonicalize(policy.data_dir).unwrap_or(policy.data_dir.to_path_buf());
    if let Ok(real) = std::fs::canonicalize(&path)
        && real.starts_with(&data)
    {
        return Err(format!(
            "source {} is inside lore's data dir; pick a folder of your own",
            shown(format!("{source:?}"))
        ));
    }
    Ok(path.to_string_lossy().into_owned())
}

/// An index request for one store: {full?, pull?} (pull = sync: git pull first).
pub(crate) fn index_spec(store: &str, obj: &JsonObject) -> Result<JobSpec, String> {
    let a = Args(obj);
    let stores = vec![store.to_string()];
    if a.boolean("pull")? {
        Ok(JobSpec::Sync { stores })
    } else {
        Ok(JobSpec::Index {
            stores,
            full: a.boolean("full")?,
        })
    }
}

/// A store name from a request path or argument, checked before any lookup (and never
/// repeated whole in the error).
pub(crate) fn store_name(name: &str) -> Result<&str, String> {
    lore_core::validate_store_name(name).map_err(|e| {
        if name.len() > SHOWN_CHARS {
            format!(
                "invalid store name {}: {}",
                shown(format!("{name:?}")),
                lore_core::STORE_NAME_RULE
            )
        } else {
            e
        }
    })?;
    Ok(name)
}

/// A brain query: {query, limit?, mode?}; a limit of 0 is the default; a query longer than
/// `max_query` bytes is refused.
pub(crate) fn brain_query(obj: &JsonObject, max_query: usize) -> Result<BrainQuery, String> {
    let a = Args(obj);
    let mut q = BrainQuery::new(capped("query", a.required("query")?, max_query)?);
    match a.uint("limit")? {
        None | Some(0) => {}
        Some(limit) if limit > MAX_BRAIN_LIMIT as u64 => {
            return Err(format!("`limit` must be at most {MAX_BRAIN_LIMIT}"));
        }
        Some(limit) => q.limit = limit as usize,
    }
    q.mode = a.choice("mode", Mode::parse, &Mode::ALL.map(Mode::as_str))?;
    Ok(q)
}

/// A note to write: {content, filename?, type?, domain?}.
pub(crate) fn note(obj: &JsonObject) -> Result<Note, String> {
    let a = Args(obj);
    Ok(Note {
        content: a.string("content")?.unwrap_or_default(),
        filename: a.string("filename")?,
        kind: a.string("type")?,
        domain: a.string("domain")?,
    })
}

/// Wiki pages to add: {source, pages: [{title, type, content}], dryRun?}; `pages` may also
/// come as a JSON string.
pub(crate) fn raw_ingest(obj: &JsonObject) -> Result<RawIngest, String> {
    let a = Args(obj);
    let parsed;
    let pages = match obj.get("pages") {
        None | Some(Value::Null) => &Vec::new(),
        Some(Value::Array(items)) => items,
        Some(Value::String(text)) => {
            parsed = serde_json::from_str::<Value>(text)
                .map_err(|e| format!("`pages` is a string that is not a JSON array: {e}"))?;
            parsed
                .as_array()
                .ok_or("`pages` must be a list of {title, type, content}")?
        }
        Some(other) => {
            return Err(format!(
                "`pages` must be a list of {{title, type, content}}, got {}",
                shown(other)
            ));
        }
    };
    let mut out = Vec::with_capacity(pages.len());
    for (i, p) in pages.iter().enumerate() {
        let p = p
            .as_object()
            .ok_or_else(|| format!("`pages[{i}]` must be an object {{title, type, content}}"))?;
        let pa = Args(p);
        let field = |k: &str| {
            pa.string(k)
                .map_err(|e| format!("pages[{i}]: {e}"))
                .map(Option::unwrap_or_default)
        };
        out.push(RawPage {
            title: field("title")?,
            kind: field("type")?,
            content: field("content")?,
        });
    }
    Ok(RawIngest {
        source: a.string("source")?.unwrap_or_default(),
        pages: out,
        dry_run: a.boolean("dryRun")?,
    })
}

/// A document to ingest: {path?, content?, source?, dryRun?}; `path` follows the path rules
/// (relative to `base`, the stdio client's folder; absolute without one); an empty
/// `content` is none.
pub(crate) fn ingest_request(
    obj: &JsonObject,
    base: Option<&Path>,
) -> Result<IngestRequest, String> {
    let a = Args(obj);
    let path = match a.string("path")?.filter(|p| !p.trim().is_empty()) {
        None => None,
        Some(p) => Some(local_path("path", &p, "file", base)?),
    };
    Ok(IngestRequest {
        content: a.string("content")?.filter(|c| !c.is_empty()),
        source: a.string("source")?,
        path,
        dry_run: a.boolean("dryRun")?,
    })
}

/// A session event: {session_id, skill?, phase?, project_root?, final_status?, file_path?,
/// model_used?, duration_ms?, message?}.
pub(crate) fn session_entry(obj: &JsonObject) -> Result<SessionEntry, String> {
    let a = Args(obj);
    Ok(SessionEntry {
        session_id: a
            .string("sessionId")?
            .ok_or("`session_id` is required: a name for the session (letters, digits, . _ -)")?,
        skill: a.string("skill")?,
        phase: a.string("phase")?,
        project_root: a.string("projectRoot")?,
        final_status: a.string("finalStatus")?,
        file_path: a.string("filePath")?,
        model_used: a.string("modelUsed")?,
        duration_ms: a.uint("durationMs")?,
        message: a.string("message")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> JsonObject {
        v.as_object().unwrap().clone()
    }

    const MAX: usize = crate::policy::DEFAULT_MAX_QUERY_BYTES;

    #[test]
    fn locate_requests() {
        let req = locate_request(
            &obj(json!({"task": "Traceback …", "limit": 3, "stores": ["a"], "mode": "fts"})),
            MAX,
        )
        .unwrap();
        assert_eq!(
            (req.limit, req.mode, req.stores),
            (3, Mode::Fts, vec!["a".to_string()])
        );
        // A task may run to four times the query cap, not further.
        let long = "x".repeat(MAX * TASK_TO_QUERY);
        assert!(locate_request(&obj(json!({"task": long})), MAX).is_ok());
        let err = locate_request(&obj(json!({"task": format!("{long}x")})), MAX).unwrap_err();
        assert!(err.contains("`task`"), "{err}");
        for (args, needle) in [
            (json!({}), "`task`"),
            (json!({"task": "t", "limit": 0}), "`limit`"),
            (json!({"task": "t", "mode": "grep"}), "`mode`"),
            (json!({"task": "t", "stores": ["../x"]}), "store"),
        ] {
            let err = locate_request(&obj(args.clone()), MAX).unwrap_err();
            assert!(err.contains(needle), "{args}: {err}");
        }
    }

    fn search_request_t(o: &JsonObject) -> Result<SearchRequest, String> {
        search_request(o, MAX)
    }
    fn graph_query_t(o: &JsonObject) -> Result<GraphQuery, String> {
        graph_query(o, MAX)
    }
    fn brain_query_t(o: &JsonObject) -> Result<BrainQuery, String> {
        brain_query(o, MAX)
    }

    #[test]
    fn long_values_are_capped_and_never_echoed_whole() {
        let long = "q".repeat(MAX + 1);
        for err in [
            search_request_t(&obj(json!({"query": long}))).unwrap_err(),
            brain_query_t(&obj(json!({"query": long}))).unwrap_err(),
            graph_query_t(&obj(json!({"symbol": long, "direction": "callers"}))).unwrap_err(),
        ] {
            assert!(err.contains("8193 bytes") && err.contains("8192"), "{err}");
        }
        assert!(search_request_t(&obj(json!({"query": "q".repeat(MAX)}))).is_ok());
        assert!(search_request(&obj(json!({"query": "q".repeat(11)})), 10).is_err());
        let huge = "m".repeat(100_000);
        for args in [
            json!({"query": "x", "mode": huge}),
            json!({"query": "x", "limit": huge}),
            json!({"query": "x", "stores": [huge]}),
            json!({"query": "x", "threshold": [huge]}),
        ] {
            let err = search_request_t(&obj(args)).unwrap_err();
            assert!(err.len() < 300, "an error of {} bytes", err.len());
            assert!(err.contains("… (1000"), "{err}");
        }
        assert_eq!(shown("short"), "short");
        assert_eq!(
            shown("é".repeat(81)),
            format!("{}… (162 bytes)", "é".repeat(80))
        );
    }

    #[test]
    fn numbers_and_lists_are_read_leniently() {
        let req = search_request_t(&obj(json!({
            "query": "retry backoff", "limit": "5", "threshold": "0.25",
            "stores": "a, b", "mode": "fts", "detail": "full", "intent": "find-usage",
            "per_file": 2, "feedback": "false"
        })))
        .unwrap();
        assert!(!req.feedback);
        assert!(
            search_request_t(&obj(json!({"query": "q"})))
                .unwrap()
                .feedback
        );
        assert_eq!(req.limit, 5);
        assert_eq!(req.threshold, Some(0.25));
        assert_eq!(req.stores, ["a", "b"]);
        assert_eq!(req.mode, Mode::Fts);
        assert_eq!(req.detail, Detail::Full);
        assert_eq!(req.intent, Some(Intent::FindUsage));
        assert_eq!(req.per_file, 2);
        let req = search_request_t(&obj(
            json!({"query": "x", "limit": 3.0, "stores": ["a,b", "c"], "intent": null}),
        ))
        .unwrap();
        assert_eq!(req.limit, 3);
        assert_eq!(req.stores, ["a", "b", "c"]);
        assert_eq!(req.intent, None);
    }

    #[test]
    fn bad_arguments_say_what_to_send() {
        for (args, needle) in [
            (json!({}), "`query` is required"),
            (
                json!({"query": "x", "limit": "lots"}),
                "`limit` must be a whole number",
            ),
            (json!({"query": "x", "limit": 0}), "between 1 and"),
            (json!({"query": "x", "limit": -3}), "whole number"),
            (
                json!({"query": "x", "mode": "magic"}),
                "hybrid, vector, fts",
            ),
            (json!({"query": "x", "stores": 7}), "list of strings"),
            (json!({"query": ["x"]}), "must be a string"),
        ] {
            let err = search_request_t(&obj(args.clone())).unwrap_err();
            assert!(err.contains(needle), "{args}: {err}");
        }
    }

    #[test]
    fn folder_sources_are_absolute_and_outside_the_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir_all(data.join("stores")).unwrap();
        let http = SourcePolicy {
            base: None,
            data_dir: &data,
        };
        let add = |source: &str, p: &SourcePolicy| {
            add_spec(&obj(json!({"name": "n", "source": source})), p)
        };
        assert!(add("relative/dir", &http).unwrap_err().contains("absolute"));
        assert!(add("/a/../etc", &http).unwrap_err().contains(".."));
        let inside = data.join("stores").display().to_string();
        assert!(add(&inside, &http).unwrap_err().contains("data dir"));
        assert!(add(&dir.path().display().to_string(), &http).is_ok());
        assert!(add("https://example.invalid/r.git", &http).is_ok());
        assert!(add("file:///a/../b", &http).unwrap_err().contains(".."));
        assert!(add("rel/repo.git", &http).unwrap_err().contains("absolute"));
        let stdio = SourcePolicy {
            base: Some(dir.path()),
            data_dir: &data,
        };
        let JobSpec::Add(spec) = add("src", &stdio).unwrap() else {
            panic!("not an add")
        };
        assert_eq!(Path::new(&spec.source), dir.path().join("src"));
        assert!(store_name("../x").is_err());
        let q = graph_query_t(&obj(
            json!({"symbol": "parse", "direction": "callers", "store": "a"}),
        ))
        .unwrap();
        assert_eq!(
            (q.direction, q.stores),
            (Direction::Callers, vec!["a".to_string()])
        );
        assert!(
            graph_query_t(&obj(json!({"symbol": "parse"})))
                .unwrap_err()
                .contains("direction")
        );
        assert!(store_name("ok-name").is_ok());
    }

    #[test]
    fn brain_arguments_are_read_leniently() {
        let q = brain_query_t(&obj(json!({"query": "retry", "limit": "3"}))).unwrap();
        assert_eq!((q.limit, q.mode), (3, None));
        let q = brain_query_t(&obj(json!({"query": "x", "limit": 0, "mode": "fts"}))).unwrap();
        assert_eq!((q.limit, q.mode), (5, Some(Mode::Fts)));
        assert!(brain_query_t(&obj(json!({"query": "x", "limit": 101}))).is_err());
        assert!(
            brain_query_t(&obj(json!({"limit": 2})))
                .unwrap_err()
                .contains("`query`")
        );

        let raw = raw_ingest(&obj(json!({
            "source": "s", "dryRun": "true",
            "pages": "[{\"title\": \"T\", \"type\": \"tool\", \"content\": \"c\"}]"
        })))
        .unwrap();
        assert!(raw.dry_run);
        assert_eq!(raw.pages[0].kind, "tool");
        let e = raw_ingest(&obj(json!({"source": "s", "pages": [1]}))).unwrap_err();
        assert!(e.contains("pages[0]"), "{e}");
        let e = raw_ingest(&obj(json!({"source": "s", "pages": [{"title": ["x"]}]}))).unwrap_err();
        assert!(e.contains("pages[0]") && e.contains("`title`"), "{e}");

        let s = session_entry(&obj(json!({
            "session_id": "s1", "durationMs": "1500", "final_status": "ok", "projectRoot": "/p"
        })))
        .unwrap();
        assert_eq!(s.duration_ms, Some(1500));
        assert_eq!(s.final_status.as_deref(), Some("ok"));
        assert_eq!(s.project_root.as_deref(), Some("/p"));
        assert!(session_entry(&obj(json!({"duration_ms": 1}))).is_err());
        let err = session_entry(&obj(json!({"session_id": "s", "duration_ms": "soon"})));
        // Issue 29, item 11: the error names the key as the client spelled it.
        assert!(err.unwrap_err().contains("`duration_ms` must be"));
    }

    #[test]
    fn a_number_is_not_a_yes() {
        // Issue 29, item 11: `"full": 1` is refused, not read as true.
        for v in [json!(1), json!(0), json!("1"), json!("yes")] {
            let err = Args(&obj(json!({"full": v.clone()}))).boolean("full");
            assert!(
                err.unwrap_err().contains("`full` must be true or false"),
                "{v}"
            );
        }
        for (v, want) in [
            (json!(true), true),
            (json!("false"), false),
            (json!(null), false),
        ] {
            assert_eq!(Args(&obj(json!({"full": v}))).boolean("full"), Ok(want));
        }
    }

    #[test]
    fn ingest_paths_follow_the_transport() {
        let http = |p: &str| ingest_request(&obj(json!({"path": p})), None);
        assert!(http("rel/doc.md").unwrap_err().contains("absolute"));
        assert!(http("/a/../b.md").unwrap_err().contains(".."));
        assert_eq!(
            http("/a/b.md").unwrap().path,
            Some(PathBuf::from("/a/b.md"))
        );
        let stdio = ingest_request(
            &obj(json!({"path": "doc.md"})),
            Some(Path::new("/home/agent")),
        );
        assert_eq!(
            stdio.unwrap().path,
            Some(PathBuf::from("/home/agent/doc.md"))
        );
        let both = ingest_request(&obj(json!({"path": "/a.md", "content": "c"})), None).unwrap();
        assert!(both.check().is_err());
        let empty = ingest_request(&obj(json!({"path": "/a.md", "content": ""})), None).unwrap();
        assert!(empty.check().is_ok());
    }
}
