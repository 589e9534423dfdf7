//! The brain for agents: `brain_query`, `brain_write`, `brain_ingest_raw`, `brain_ingest` and
//! `session_log` as MCP tools and REST routes (`POST /api/brain/…`). Arguments are read the
//! lenient `params` way; every write goes through the writer thread; the LLM work of
//! `brain_ingest` (which writes nothing) runs on a blocking thread first, so it never holds
//! up other writes.

use crate::app::{App, AppError};
use crate::http::{ApiError, body_object};
use crate::params::{Args, JsonObject};
use crate::writer::Cmd;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use lore_engine::brain::{
    BrainAnswer, BrainIngested, BrainQuery, BrainWritten, IngestRequest, Logged, MAX_BRAIN_LIMIT,
    Note, PAGE_TYPES, RawIngest, RawPage, SessionEntry,
};
use lore_engine::{Engine, EngineError, Mode};
use rmcp::model::{Tool, ToolAnnotations};
use serde::Serialize;
use serde_json::{Value, json};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use tokio::sync::oneshot;

/// The brain's MCP tools.
pub(crate) const TOOL_NAMES: &[&str] = &[
    "brain_query",
    "brain_write",
    "brain_ingest_raw",
    "brain_ingest",
    "session_log",
];

fn schema(v: Value) -> Arc<JsonObject> {
    Arc::new(v.as_object().cloned().unwrap_or_default())
}

pub(crate) fn tools() -> Vec<Tool> {
    let annotations = |read_only: bool, destructive: bool, idempotent: bool, open: bool| {
        ToolAnnotations::new()
            .read_only(read_only)
            .destructive(destructive)
            .idempotent(idempotent)
            .open_world(open)
    };
    let s = json!({"type": "string"});
    let page_types: Vec<&str> = PAGE_TYPES.to_vec();
    vec![
        Tool::new(
            "brain_query",
            "Search the brain's notes and wiki pages: path, title, snippet, score.",
            schema(json!({
                "type": "object",
                "properties": {"query": s, "limit": {"type": "integer"}},
                "required": ["query"]
            })),
        )
        .with_annotations(annotations(true, false, true, false)),
        Tool::new(
            "brain_write",
            "Save a markdown note to the brain, searchable at once. Returns its path.",
            schema(json!({
                "type": "object",
                "properties": {
                    "content": s,
                    "filename": {"type": "string", "description": "under knowledge/"},
                    "type": s,
                    "domain": s
                },
                "required": ["content"]
            })),
        )
        .with_annotations(annotations(false, true, false, false)),
        Tool::new(
            "brain_ingest_raw",
            "Add wiki pages; an existing page gets a new section. dry_run: plan only.",
            schema(json!({
                "type": "object",
                "properties": {
                    "source": s,
                    "pages": {"type": "array", "items": {
                        "type": "object",
                        "properties": {"title": s, "type": {"type": "string", "enum": page_types}, "content": s},
                        "required": ["title", "type", "content"]
                    }},
                    "dry_run": {"type": "boolean"}
                },
                "required": ["source", "pages"]
            })),
        )
        .with_annotations(annotations(false, false, false, false)),
        Tool::new(
            "brain_ingest",
            "Turn a document into wiki pages with the LLM: path, or content with source.",
            schema(json!({
                "type": "object",
                "properties": {"path": s, "content": s, "source": s, "dry_run": {"type": "boolean"}}
            })),
        )
        .with_annotations(annotations(false, false, false, true)),
        Tool::new(
            "session_log",
            "Append an event to a session's log.",
            schema(json!({
                "type": "object",
                "properties": {
                    "session_id": s, "skill": s, "phase": s, "project_root": s,
                    "final_status": s, "file_path": s, "model_used": s,
                    "duration_ms": {"type": "integer"}, "message": s
                },
                "required": ["session_id"]
            })),
        )
        .with_annotations(annotations(false, false, false, false)),
    ]
}

/// Runs a brain tool; the answer is compact JSON.
pub(crate) async fn call(app: &App, name: &str, args: &JsonObject) -> Result<String, AppError> {
    match name {
        "brain_query" => to_text(&app.brain_query(args).await?),
        "brain_write" => to_text(&app.brain_write(args).await?),
        "brain_ingest_raw" => to_text(&app.brain_ingest_raw(args).await?),
        "brain_ingest" => to_text(&app.brain_ingest(args, false).await?),
        "session_log" => to_text(&app.session_log(args).await?),
        _ => Err(AppError::Internal(format!("no brain tool {name}"))),
    }
}

fn to_text<T: Serialize>(v: &T) -> Result<String, AppError> {
    serde_json::to_string(v).map_err(|e| AppError::Internal(format!("cannot encode result: {e}")))
}

fn bad(e: String) -> AppError {
    AppError::BadRequest(e)
}

/// {query, limit?, mode?}
pub(crate) fn query_args(obj: &JsonObject) -> Result<BrainQuery, String> {
    let a = Args(obj);
    let mut q = BrainQuery::new(a.required("query")?);
    if let Some(limit) = a.uint("limit")? {
        if limit == 0 || limit > MAX_BRAIN_LIMIT as u64 {
            return Err(format!("`limit` must be between 1 and {MAX_BRAIN_LIMIT}"));
        }
        q.limit = limit as usize;
    }
    q.mode = a.choice("mode", Mode::parse, "hybrid, vector, fts")?;
    Ok(q)
}

/// {content, filename?, type?, domain?}
pub(crate) fn note_args(obj: &JsonObject) -> Result<Note, String> {
    let a = Args(obj);
    Ok(Note {
        content: a.string("content")?.unwrap_or_default(),
        filename: a.string("filename")?,
        kind: a.string("type")?,
        domain: a.string("domain")?,
    })
}

/// {source, pages: [{title, type, content}], dryRun?}; `pages` may also come as a JSON
/// string.
pub(crate) fn raw_ingest_args(obj: &JsonObject) -> Result<RawIngest, String> {
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
                "`pages` must be a list of {{title, type, content}}, got {other}"
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

/// {path?, content?, source?, dryRun?}: a relative path is taken from `base` (the stdio
/// client's folder); without one (HTTP) it must be absolute. `..` is refused.
pub(crate) fn ingest_args(obj: &JsonObject, base: Option<&Path>) -> Result<IngestRequest, String> {
    let a = Args(obj);
    let path = match a.string("path")?.filter(|p| !p.trim().is_empty()) {
        None => None,
        Some(p) => Some(local_file(&p, base)?),
    };
    Ok(IngestRequest {
        content: a.string("content")?,
        source: a.string("source")?,
        path,
        dry_run: a.boolean("dryRun")?,
    })
}

fn local_file(path: &str, base: Option<&Path>) -> Result<PathBuf, String> {
    let p = Path::new(path.trim());
    if p.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(format!(
            "path {path:?} contains `..`; give the file's absolute path"
        ));
    }
    match base {
        _ if p.is_absolute() => Ok(p.to_path_buf()),
        Some(base) => Ok(base.join(p)),
        None => Err(format!(
            "path {path:?} is relative; give the file's absolute path"
        )),
    }
}

/// {session_id, skill?, phase?, project_root?, final_status?, file_path?, model_used?,
/// duration_ms?, message?}
pub(crate) fn session_args(obj: &JsonObject) -> Result<SessionEntry, String> {
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

impl App {
    /// Runs a write on the writer thread, after the writes queued before it.
    async fn write<R, F>(&self, f: F) -> Result<R, AppError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Engine) -> Result<R, EngineError> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        let cmd = Cmd::Run(Box::new(move |engine: &mut Engine| {
            let _ = tx.send(f(engine));
        }));
        if !self.writer.handle().send(cmd) {
            return Err(AppError::Internal("the writer has stopped".into()));
        }
        rx.await
            .map_err(|_| AppError::Internal("the writer stopped before writing".into()))?
            .map_err(AppError::from)
    }

    pub async fn brain_query(&self, args: &JsonObject) -> Result<BrainAnswer, AppError> {
        let q = query_args(args).map_err(bad)?;
        self.pool.run(move |e| e.brain_query(&q)).await
    }

    pub async fn brain_write(&self, args: &JsonObject) -> Result<BrainWritten, AppError> {
        let note = note_args(args).map_err(bad)?;
        self.write(move |e| e.brain_write(&note)).await
    }

    pub async fn brain_ingest_raw(&self, args: &JsonObject) -> Result<BrainIngested, AppError> {
        let req = raw_ingest_args(args).map_err(bad)?;
        if req.dry_run {
            return self.pool.run(move |e| e.brain_plan_ingest(&req)).await;
        }
        self.write(move |e| e.brain_ingest_raw(&req)).await
    }

    /// `path_only`: the `ingest-path` route, which takes a path and nothing else.
    pub async fn brain_ingest(
        &self,
        args: &JsonObject,
        path_only: bool,
    ) -> Result<BrainIngested, AppError> {
        let req = ingest_args(args, self.local_base.as_deref()).map_err(bad)?;
        if path_only && (req.path.is_none() || req.content.is_some()) {
            return Err(bad(
                "this route takes `path` (a file to read); send content with source to /api/brain/ingest"
                    .into(),
            ));
        }
        req.check().map_err(|e| AppError::Engine(e.into()))?;
        let llm = lore_engine::brain::llm_from_env().map_err(|e| AppError::Engine(e.into()))?;
        if !req.dry_run && !self.holds_lock {
            // Another process may be the writer: say so before the LLM works for nothing.
            self.pool.run(|e| e.check_writable()).await?;
        }
        let (raw, format) =
            tokio::task::spawn_blocking(move || lore_engine::brain::ingest_pages(&req, &llm))
                .await
                .map_err(|e| AppError::Internal(format!("a worker failed: {e}")))??;
        let mut done = if raw.dry_run {
            self.pool.run(move |e| e.brain_plan_ingest(&raw)).await?
        } else {
            self.write(move |e| e.brain_ingest_raw(&raw)).await?
        };
        done.format = Some(format);
        Ok(done)
    }

    pub async fn session_log(&self, args: &JsonObject) -> Result<Logged, AppError> {
        let entry = session_args(args).map_err(bad)?;
        self.pool.run(move |e| e.session_log(&entry)).await
    }
}

type Rest = Result<axum::Json<Value>, ApiError>;

fn json<T: Serialize>(v: T) -> Rest {
    serde_json::to_value(v)
        .map(axum::Json)
        .map_err(|e| ApiError::from(AppError::Internal(format!("cannot encode result: {e}"))))
}

pub(crate) async fn rest_query(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<impl IntoResponse, ApiError> {
    let args = body_object(&headers, &body, false)?;
    json(app.brain_query(&args).await?)
}

pub(crate) async fn rest_write(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<impl IntoResponse, ApiError> {
    let args = body_object(&headers, &body, false)?;
    json(app.brain_write(&args).await?)
}

pub(crate) async fn rest_ingest_raw(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<impl IntoResponse, ApiError> {
    let args = body_object(&headers, &body, false)?;
    json(app.brain_ingest_raw(&args).await?)
}

pub(crate) async fn rest_ingest(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<impl IntoResponse, ApiError> {
    let args = body_object(&headers, &body, false)?;
    json(app.brain_ingest(&args, false).await?)
}

pub(crate) async fn rest_ingest_path(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<impl IntoResponse, ApiError> {
    let args = body_object(&headers, &body, false)?;
    json(app.brain_ingest(&args, true).await?)
}

pub(crate) async fn rest_log(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<impl IntoResponse, ApiError> {
    let args = body_object(&headers, &body, false)?;
    json(app.session_log(&args).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> JsonObject {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn arguments_are_read_leniently() {
        let q = query_args(&obj(json!({"query": "retry", "limit": "3"}))).unwrap();
        assert_eq!((q.limit, q.mode), (3, None));
        assert!(query_args(&obj(json!({"query": "x", "limit": 0}))).is_err());
        assert!(
            query_args(&obj(json!({"limit": 2})))
                .unwrap_err()
                .contains("`query`")
        );

        let raw = raw_ingest_args(&obj(json!({
            "source": "s", "dryRun": "true",
            "pages": "[{\"title\": \"T\", \"type\": \"tool\", \"content\": \"c\"}]"
        })))
        .unwrap();
        assert!(raw.dry_run);
        assert_eq!(raw.pages[0].kind, "tool");
        let e = raw_ingest_args(&obj(json!({"source": "s", "pages": [1]}))).unwrap_err();
        assert!(e.contains("pages[0]"), "{e}");
        let e =
            raw_ingest_args(&obj(json!({"source": "s", "pages": [{"title": ["x"]}]}))).unwrap_err();
        assert!(e.contains("pages[0]") && e.contains("`title`"), "{e}");

        let s = session_args(&obj(json!({
            "session_id": "s1", "durationMs": "1500", "final_status": "ok", "projectRoot": "/p"
        })))
        .unwrap();
        assert_eq!(s.duration_ms, Some(1500));
        assert_eq!(s.final_status.as_deref(), Some("ok"));
        assert_eq!(s.project_root.as_deref(), Some("/p"));
        assert!(session_args(&obj(json!({"duration_ms": 1}))).is_err());
        assert!(session_args(&obj(json!({"session_id": "s", "duration_ms": "soon"}))).is_err());
    }

    #[test]
    fn ingest_paths_follow_the_transport() {
        let http = |p: &str| ingest_args(&obj(json!({"path": p})), None);
        assert!(http("rel/doc.md").unwrap_err().contains("absolute"));
        assert!(http("/a/../b.md").unwrap_err().contains(".."));
        assert_eq!(
            http("/a/b.md").unwrap().path,
            Some(PathBuf::from("/a/b.md"))
        );
        let stdio = ingest_args(
            &obj(json!({"path": "doc.md"})),
            Some(Path::new("/home/agent")),
        );
        assert_eq!(
            stdio.unwrap().path,
            Some(PathBuf::from("/home/agent/doc.md"))
        );
        let both = ingest_args(&obj(json!({"path": "/a.md", "content": "c"})), None).unwrap();
        assert!(both.check().is_err());
    }

    #[test]
    fn tool_names_match_definitions() {
        let names: Vec<String> = tools().iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, TOOL_NAMES);
    }
}
