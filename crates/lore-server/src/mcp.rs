//! The MCP tools, one router for both transports (stdio and streamable HTTP). Schemas are
//! written by hand: every word of a tool's description and schema costs the agent tokens
//! on every session, so they say only what a caller needs.
//!
//! A tool that runs and fails (unknown store, bad argument value, stale result id) answers
//! with an MCP tool error whose text says what to do; protocol problems (unknown tool,
//! arguments that are not an object) are JSON-RPC errors.

use crate::app::App;
use crate::error::AppError;
use crate::params::{Args, DIRECTIONS, JsonObject, STORE_TYPES};
use lore_engine::brain::PAGE_TYPES;
use lore_engine::{Detail, Intent, Mode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientJsonRpcMessage, ClientRequest,
    ContentBlock, CustomRequest, CustomResult, ErrorCode, Implementation, InitializeRequest,
    InitializeRequestParams, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig, ServerJsonRpcMessage, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::Transport;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::Serialize;
use serde_json::{Value, json};
use std::sync::{Arc, LazyLock};

const INSTRUCTIONS: &str = "lore searches local code and docs. Call search first (locate for a \
whole task or bug report); pass a result id to get_full_context for the whole unit. Keep what you learn with brain_write; recall it with \
brain_query.";

fn schema(v: Value) -> Arc<JsonObject> {
    Arc::new(v.as_object().cloned().unwrap_or_default())
}

/// A tool's hints, as short as clients allow: every session pays for each byte of the
/// tool list. `readOnlyHint` always (clients gate on it and do not all apply the default);
/// for a tool that writes, `destructiveHint` either way, `idempotentHint` when true and
/// `openWorldHint` when false (MCP's defaults otherwise).
fn annotations(
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open: bool,
) -> ToolAnnotations {
    let mut a = ToolAnnotations::new().read_only(read_only);
    if !read_only {
        a = a.destructive(destructive);
        if idempotent {
            a = a.idempotent(true);
        }
        if !open {
            a = a.open_world(false);
        }
    }
    a
}

/// What `code_graph`'s direction takes: the graph's directions, and impact and unreached.
const GRAPH_TOOL: [&str; 5] = [
    DIRECTIONS[0],
    DIRECTIONS[1],
    DIRECTIONS[2],
    "impact",
    "unreached",
];

static TOOLS: LazyLock<Vec<Tool>> = LazyLock::new(|| {
    let read_only = annotations(true, false, true, false);
    let s = json!({"type": "string"});
    vec![
        Tool::new(
            "search",
            "Ranked code/doc units (id, path:lines, symbol, why); detail contextual adds a \
             snippet, full the unit and graph.",
            schema(json!({
                "type": "object",
                "properties": {
                    "query": s,
                    "intent": {"type": "string", "enum": Intent::ALL.map(Intent::as_str)},
                    "detail": {"type": "string", "enum": Detail::ALL.map(Detail::as_str), "default": "minimal"},
                    "limit": {"type": "integer", "default": 10},
                    "stores": {"type": "array", "items": s, "description": "default project's; [\"*\"]: all"},
                    "mode": {"type": "string", "enum": Mode::ALL.map(Mode::as_str), "default": "hybrid"},
                    "threshold": {"type": "number", "description": "0-1"},
                    "deps": {"type": "boolean", "description": "+ locked deps"},
                    "feedback": {"type": "boolean", "default": true}
                },
                "required": ["query"]
            })),
        )
        .with_annotations(read_only.clone()),
        Tool::new(
            "feedback",
            "Mark result (id) useful or not for query.",
            schema(json!({
                "type": "object",
                "properties": {"id": s, "useful": {"type": "boolean"}, "query": s},
                "required": ["id", "useful"]
            })),
        )
        .with_annotations(annotations(false, false, false, false)),
        Tool::new(
            "dependency_info",
            "A dependency's (name) locked version, state, source.",
            schema(json!({
                "type": "object",
                "properties": {"name": s},
                "required": ["name"]
            })),
        )
        .with_annotations(read_only.clone()),
        Tool::new(
            "locate",
            "A task (issue, traceback) to the files to change (limit 10; stores: all).",
            schema(json!({
                "type": "object",
                "properties": {
                    "task": s,
                    "limit": {"type": "integer"},
                    "stores": {"type": "array", "items": s}
                },
                "required": ["task"]
            })),
        )
        .with_annotations(read_only.clone()),
        Tool::new(
            "get_full_context",
            "A result's (resultId) whole unit and its file's outline.",
            schema(json!({
                "type": "object",
                "properties": {"resultId": s},
                "required": ["resultId"]
            })),
        )
        .with_annotations(read_only.clone()),
        Tool::new(
            "code_graph",
            "Callers, callees, definition, impact (or diff's) of symbol (name, Type.method); \
             store's unreached, map, patterns.",
            schema(json!({
                "type": "object",
                "properties": {
                    "symbol": s,
                    "direction": {"type": "string", "enum": GRAPH_TOOL},
                    "store": s,
                    "diff": s
                },
                "required": ["direction"]
            })),
        )
        .with_annotations(read_only.clone()),
        Tool::new(
            "grep",
            "Lines matching pattern (regex; fixed: literal; glob: paths) in stores, by unit.",
            schema(json!({
                "type": "object",
                "properties": {
                    "pattern": s,
                    "fixed": {"type": "boolean"},
                    "ignoreCase": {"type": "boolean"},
                    "glob": {"type": "array", "items": s},
                    "stores": {"type": "array", "items": s},
                    "maxLines": {"type": "integer", "default": 100}
                },
                "required": ["pattern"]
            })),
        )
        .with_annotations(read_only.clone()),
        Tool::new(
            "stores",
            "add (name, source: folder, git URL or site; type, include/exclude, branch, \
             maxPages, noIgnore) and index (full: rebuild; pull: fetch first) return a job (poll: \
             status; cancel). sync: apply lore.toml (yes: replace; dryRun: plan).",
            schema(json!({
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": ["list", "status", "add", "index", "remove", "cancel", "doctor", "sync"]},
                    "name": s,
                    "source": s,
                    "type": {"type": "string", "enum": STORE_TYPES},
                    "maxPages": {"type": "integer"},
                    "noIgnore": {"type": "boolean"},
                    "job": s,
                    "full": {"type": "boolean"},
                    "pull": {"type": "boolean"},
                    "include": {"type": "array", "items": s},
                    "exclude": {"type": "array", "items": s},
                    "branch": s,
                    "yes": {"type": "boolean"},
                    "dryRun": {"type": "boolean"}
                },
                "required": ["action"]
            })),
        )
        .with_annotations(annotations(false, true, false, true)),
        Tool::new(
            "brain_query",
            "Search the brain's notes, pages.",
            schema(json!({
                "type": "object",
                "properties": {
                    "query": s,
                    "limit": {"type": "integer", "default": 10},
                    "mode": {"type": "string", "enum": Mode::ALL.map(Mode::as_str), "default": "hybrid"}
                },
                "required": ["query"]
            })),
        )
        .with_annotations(read_only),
        Tool::new(
            "brain_write",
            "Save a markdown note (content; filename in knowledge/; type, domain) to the \
             brain.",
            schema(json!({
                "type": "object",
                "properties": {
                    "content": s,
                    "filename": s,
                    "type": s,
                    "domain": s
                },
                "required": ["content"]
            })),
        )
        .with_annotations(annotations(false, true, false, false)),
        Tool::new(
            "brain_ingest_raw",
            "Add wiki pages from source (a document's name), or sections to existing ones. \
             dry_run: plan.",
            schema(json!({
                "type": "object",
                "properties": {
                    "source": s,
                    "pages": {"type": "array", "items": {
                        "type": "object",
                        "properties": {"title": s, "type": {"type": "string", "enum": PAGE_TYPES}, "content": s},
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
            "A document (path, or content + source: its name) to wiki pages via the server's \
             LLM. dry_run: plan.",
            schema(json!({
                "type": "object",
                "properties": {"path": s, "content": s, "source": s, "dry_run": {"type": "boolean"}}
            })),
        )
        .with_annotations(annotations(false, false, false, true)),
        Tool::new(
            "session_log",
            "Log session_id's event: skill, phase, project_root, file_path, model_used, \
             duration_ms, final_status, message.",
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
});

/// The MCP server: a cheap handle on the shared `App`.
#[derive(Clone)]
pub struct LoreMcp {
    app: Arc<App>,
}

impl LoreMcp {
    pub(crate) fn new(app: Arc<App>) -> LoreMcp {
        LoreMcp { app }
    }

    /// `client`: who calls (`App::search`): stdio's one agent, or an HTTP client by its
    /// headers.
    async fn call(&self, name: &str, args: &JsonObject, client: &str) -> Result<String, AppError> {
        let a = Args(args);
        let bad = AppError::BadRequest;
        match name {
            "search" => to_text(&self.app.search(args, client).await?),
            "locate" => to_text(&self.app.locate(args).await?),
            "get_full_context" => {
                let id = match a.string("resultId").map_err(bad)? {
                    Some(id) => id,
                    None => a
                        .string("id")
                        .map_err(bad)?
                        .ok_or_else(|| bad("`resultId` is required: an id from search".into()))?,
                };
                to_text(&self.app.context(&id, Some(client)).await?)
            }
            "code_graph" => match Args(args).string("direction").ok().flatten().as_deref() {
                Some("impact") => to_text(&self.app.impact(args).await?),
                Some(d @ ("unreached" | "map" | "patterns")) => {
                    let a = Args(args);
                    let store = a.required("store").map_err(|_| {
                        AppError::BadRequest("`store` is required: the store to look at".into())
                    })?;
                    if d == "map" {
                        // The text alone: what an agent reads.
                        Ok(self.app.map(&store, 0).await?.text)
                    } else if d == "patterns" {
                        to_text(&self.app.patterns(&store, 20).await?)
                    } else {
                        to_text(&self.app.unreached(&store, false).await?)
                    }
                }
                _ => to_text(&self.app.graph(args).await?),
            },
            "grep" => to_text(&self.app.grep(args).await?),
            "stores" => self.stores(args).await,
            "dependency_info" => to_text(&self.app.dependency_info(args).await?),
            "feedback" => to_text(&self.app.feedback(args).await?),
            "brain_query" => to_text(&self.app.brain_query(args).await?),
            "brain_write" => to_text(&self.app.brain_write(args).await?),
            "brain_ingest_raw" => to_text(&self.app.brain_ingest_raw(args).await?),
            "brain_ingest" => to_text(&self.app.brain_ingest(args, false).await?),
            "session_log" => to_text(&self.app.session_log(args).await?),
            _ => Err(AppError::Internal(format!("no tool {name}"))),
        }
    }

    async fn stores(&self, args: &JsonObject) -> Result<String, AppError> {
        let a = Args(args);
        let bad = AppError::BadRequest;
        let need_name = || {
            a.required("name")
                .map_err(|_| bad("`name` is required: a store name (see action list)".into()))
        };
        let need_job = || {
            a.required("job")
                .map_err(|_| bad("`job` is required: the id add or index returned".into()))
        };
        let action = a.required("action").map_err(bad)?;
        match action.as_str() {
            "list" => to_text(&self.app.stores().await?),
            "status" => {
                if let Some(job) = a.string("job").map_err(bad)? {
                    to_text(&self.app.job(&job).await?)
                } else if let Some(name) = a.string("name").map_err(bad)? {
                    to_text(&self.app.store(&name).await?)
                } else {
                    let mut jobs = self.app.jobs().await?;
                    jobs.truncate(10);
                    to_text(&json!({ "stores": self.app.stores().await?, "jobs": jobs }))
                }
            }
            "add" => to_text(&self.app.add(args).await?),
            "index" => to_text(&self.app.index(&need_name()?, args).await?),
            "remove" => {
                let removed = self.app.remove(&need_name()?).await?;
                to_text(&json!({ "removed": removed.name }))
            }
            "cancel" => to_text(&self.app.cancel(&need_job()?).await?),
            "doctor" => to_text(&self.app.doctor(&need_name()?).await?),
            "sync" => to_text(&self.app.sync_project(args).await?),
            other => Err(bad(format!(
                "unknown action {}: use list, status, add, index, remove, cancel, doctor or sync",
                crate::params::shown(format!("{other:?}"))
            ))),
        }
    }
}

/// `initialize` params as rmcp reads them. Plain JSON-RPC clients send `"params": {}`, which
/// rmcp takes for an unknown method: what is missing is filled in (the newest protocol
/// version that has an `initialize`, no capabilities, an unnamed client); what is there and
/// wrong is a -32602 error naming the fields.
fn initialize_params(params: Option<Value>) -> Result<InitializeRequestParams, ErrorData> {
    let bad = |e: String| {
        ErrorData::invalid_params(
            format!(
                "initialize takes params {{protocolVersion: string, capabilities: object, \
                 clientInfo: {{name, version}}}}: {e}"
            ),
            None,
        )
    };
    let mut p = match params {
        None | Some(Value::Null) => JsonObject::new(),
        Some(Value::Object(p)) => p,
        Some(other) => return Err(bad(format!("got {other}"))),
    };
    p.entry("protocolVersion")
        .or_insert_with(|| json!(ProtocolVersion::LATEST_WITH_INITIALIZE));
    p.entry("capabilities").or_insert_with(|| json!({}));
    p.entry("clientInfo")
        .or_insert_with(|| json!({"name": "unknown", "version": "unknown"}));
    serde_json::from_value(Value::Object(p)).map_err(|e| bad(e.to_string()))
}

/// The stdio transport with `initialize` read leniently (`initialize_params`). Over HTTP,
/// where each request stands alone, `on_custom_request` does the same.
pub(crate) struct LenientInitialize<T>(pub T);

impl<T: Transport<RoleServer>> Transport<RoleServer> for LenientInitialize<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), T::Error>> + Send + 'static {
        self.0.send(item)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            let mut msg = self.0.receive().await?;
            if let ClientJsonRpcMessage::Request(r) = &mut msg
                && let ClientRequest::CustomRequest(c) = &mut r.request
                && c.method == "initialize"
            {
                match initialize_params(c.params.take()) {
                    Ok(p) => {
                        r.request = ClientRequest::InitializeRequest(InitializeRequest::new(p))
                    }
                    Err(e) => {
                        let _ = self
                            .0
                            .send(ServerJsonRpcMessage::error(e, Some(r.id.clone())))
                            .await;
                        continue;
                    }
                }
            }
            return Some(msg);
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), T::Error>> + Send {
        self.0.close()
    }
}

/// Compact JSON, fields in the order the engine declares them.
fn to_text<T: Serialize>(v: &T) -> Result<String, AppError> {
    serde_json::to_string(v).map_err(|e| AppError::Internal(format!("cannot encode result: {e}")))
}

impl ServerHandler for LoreMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("lore", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(TOOLS.clone()))
    }

    /// An `initialize` rmcp could not read (see `initialize_params`).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != "initialize" {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                crate::params::shown(request.method),
                None,
            ));
        }
        let params = initialize_params(request.params)?;
        context.peer.set_peer_info(params.clone());
        let result = self.negotiate_initialize(&params)?;
        serde_json::to_value(result)
            .map(CustomResult)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        TOOLS.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !TOOLS.iter().any(|t| t.name == request.name) {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {}: use search, locate, get_full_context, code_graph, grep, stores or a brain_ tool",
                    crate::params::shown(format!("{:?}", request.name))
                ),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        // Over HTTP the request's headers say who calls; on stdio there is one agent.
        let client = context
            .extensions
            .get::<axum::http::request::Parts>()
            .map_or_else(
                || "stdio".to_string(),
                |p| crate::app::client_of(&p.headers),
            );
        let result = match self.call(&request.name, &args, &client).await {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(e) => {
                if matches!(e, AppError::Internal(_)) {
                    tracing::error!("tool {}: {e}", request.name);
                }
                CallToolResult::error(vec![ContentBlock::text(e.to_string())])
            }
        };
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_definitions_stay_small() {
        let text = serde_json::to_string(&*TOOLS).unwrap();
        // Every session pays for this text: under 1,500 tokens (≈ 4 bytes each).
        assert!(
            text.len() < 6000,
            "tool definitions grew to {} bytes",
            text.len()
        );
        for t in TOOLS.iter() {
            assert_eq!(t.input_schema["type"], "object", "{}", t.name);
            assert!(t.annotations.is_some(), "{}", t.name);
            // Every parameter says what it is: a description, an enum or a default, or the
            // tool's description names it.
            let props = t.input_schema["properties"].as_object().unwrap();
            let told = t.description.as_deref().unwrap_or("");
            for (name, p) in props {
                let said = ["description", "enum", "default"]
                    .iter()
                    .any(|k| p.get(*k).is_some())
                    || told.contains(name.as_str());
                let obvious = ["query", "content", "pattern", "fixed", "ignoreCase"]
                    .contains(&name.as_str())
                    || (name == "useful" && t.name == "feedback")
                    || (name == "pages" && t.name == "brain_ingest_raw");
                assert!(said || obvious, "{}.{name} is undocumented", t.name);
            }
        }
    }
}
