//! One port: REST under `/api`, MCP (streamable HTTP) at `/mcp`, `/health`.
//!
//! Guards, in order, on every request: the Host must be a loopback name when the server is
//! bound to loopback (DNS rebinding), a browser Origin must be this server's own, and the
//! bearer token (when set) must be present everywhere but `/health`. Bodies are capped at
//! `MAX_BODY`. There is no CORS: browsers on other origins get nothing.

use crate::app::App;
use crate::error::{AppError, Failure};
use crate::mcp::LoreMcp;
use crate::params::JsonObject;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Serialize;
use serde_json::{Value, json};
use std::sync::Arc;

/// Largest request body accepted (REST and MCP).
pub const MAX_BODY: usize = 1024 * 1024;

const OPENAPI: &str = include_str!("openapi.json");

/// Who may call: the token (if any) and whether Host/Origin must be loopback names.
pub(crate) struct Guard {
    pub token: Option<String>,
    pub loopback: bool,
}

/// MCP over streamable HTTP, stateless: one service answers with JSON, one with a stream.
#[derive(Clone)]
struct Mcp {
    json: StreamableHttpService<LoreMcp, NeverSessionManager>,
    sse: StreamableHttpService<LoreMcp, NeverSessionManager>,
}

pub(crate) fn router(app: Arc<App>, guard: Arc<Guard>) -> Router {
    let service = |json_response: bool| {
        let app = app.clone();
        let mut config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(json_response)
            .with_sse_keep_alive(None)
            .with_max_request_body_bytes(MAX_BODY);
        if !guard.loopback {
            // Off loopback the bearer token is what protects the server; any Host may call.
            config = config.disable_allowed_hosts();
        }
        StreamableHttpService::new(
            move || Ok(LoreMcp::new(app.clone())),
            Arc::new(NeverSessionManager::default()),
            config,
        )
    };
    let mcp = Mcp {
        json: service(true),
        sse: service(false),
    };
    crate::web::routes(Router::new())
        .route("/health", get(health))
        .route("/api/openapi.json", get(openapi))
        .route("/api/stores", get(list_stores).post(add_store))
        .route("/api/stores/{name}", get(store).delete(remove_store))
        .route("/api/stores/{name}/index", post(index_store))
        .route("/api/stores/{name}/doctor", get(store_doctor))
        .route("/api/stores/{name}/unreached", get(store_unreached))
        .route("/api/stores/{name}/map", get(store_map))
        .route("/api/stores/{name}/patterns", get(store_patterns))
        .route("/api/stores/{name}/files", get(store_files))
        .route("/api/stores/{name}/files/{*path}", get(store_file))
        .route("/api/search", post(search))
        .route("/api/locate", post(locate))
        .route("/api/impact", post(impact))
        .route("/api/results/{id}", get(result).post(open_result))
        .route("/api/graph", get(graph).post(graph_body))
        .route("/api/grep", get(grep).post(grep_body))
        .route("/api/jobs", get(jobs))
        .route("/api/jobs/{id}", get(job))
        .route("/api/jobs/{id}/cancel", post(cancel_job))
        .route("/api/feedback", post(feedback))
        .route("/api/eval/runs", get(judge_runs))
        .route("/api/eval/runs/{name}", get(judge_run))
        .route("/api/brain/files", get(brain_files))
        .route("/api/brain/files/{*path}", get(brain_file))
        .route("/api/brain/query", post(brain_query))
        .route("/api/brain/write", post(brain_write))
        .route("/api/brain/ingest", post(brain_ingest))
        .route("/api/brain/ingest-raw", post(brain_ingest_raw))
        .route("/api/brain/ingest-path", post(brain_ingest_path))
        .route("/api/brain/log", post(session_log))
        .nest_service("/mcp", any(mcp_request).with_state(mcp))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(middleware::from_fn_with_state(guard, guard_request))
        .layer(middleware::from_fn(json_errors))
        .with_state(app)
}

/// Most bytes of a plain-text error body carried into its JSON.
const ERROR_TEXT: usize = 4096;

/// Every error answer is `{"error": …}`: axum's own rejections (405, 413 for a chunked body
/// over the limit, a path segment that is not UTF-8) and rmcp's plain-text ones keep their
/// status and headers (`Allow` included) and get their text, or the status's reason, as JSON.
async fn json_errors(req: Request, next: Next) -> Response {
    let resp = next.run(req).await;
    let status = resp.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(resp.headers()) {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let text = axum::body::to_bytes(body, ERROR_TEXT)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let mut message = if text.is_empty() {
        status
            .canonical_reason()
            .unwrap_or("error")
            .to_ascii_lowercase()
    } else {
        text
    };
    if status == StatusCode::METHOD_NOT_ALLOWED
        && let Some(allow) = parts
            .headers
            .get(header::ALLOW)
            .and_then(|v| v.to_str().ok())
    {
        message = format!("{message}; this route takes {allow}");
    }
    let mut out = (status, axum::Json(json!({ "error": message }))).into_response();
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            out.headers_mut().insert(name.clone(), value.clone());
        }
    }
    out
}

/// A JSON error: `{"error": "..."}` with a status that fits.
struct ApiError(StatusCode, String);

impl From<AppError> for ApiError {
    fn from(e: AppError) -> ApiError {
        let status = match e.failure() {
            Failure::BadRequest => StatusCode::BAD_REQUEST,
            Failure::Forbidden => StatusCode::FORBIDDEN,
            Failure::NotFound => StatusCode::NOT_FOUND,
            Failure::Conflict => StatusCode::CONFLICT,
            Failure::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            Failure::Internal => {
                tracing::error!("{e}");
                StatusCode::INTERNAL_SERVER_ERROR
            }
        };
        ApiError(status, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, axum::Json(json!({ "error": self.1 }))).into_response()
    }
}

type Rest = Result<Response, ApiError>;

/// A JSON answer with `status`.
fn reply<T: Serialize>(status: StatusCode, v: T) -> Rest {
    Ok((status, axum::Json(v)).into_response())
}

/// The body as a JSON object; an empty body is `{}` when `optional`. Non-JSON content types
/// are refused, so a cross-site form cannot post here without a CORS preflight.
fn body_object(headers: &HeaderMap, body: &Bytes, optional: bool) -> Result<JsonObject, ApiError> {
    if body.is_empty() && optional {
        return Ok(JsonObject::new());
    }
    if !is_json(headers) {
        return Err(ApiError(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the body as JSON with Content-Type: application/json".into(),
        ));
    }
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(serde_json::Value::Object(o)) => Ok(o),
        Ok(_) => Err(ApiError(
            StatusCode::UNPROCESSABLE_ENTITY,
            "the body must be a JSON object".into(),
        )),
        Err(e) => Err(ApiError(
            StatusCode::BAD_REQUEST,
            format!("the body is not valid JSON: {e}"),
        )),
    }
}

/// A required JSON object body (`body_object`), as an extractor.
struct Body(JsonObject);

impl<S: Send + Sync> FromRequest<S> for Body {
    type Rejection = Response;

    async fn from_request(req: Request, state: &S) -> Result<Body, Response> {
        let headers = req.headers().clone();
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(IntoResponse::into_response)?;
        body_object(&headers, &bytes, false)
            .map(Body)
            .map_err(IntoResponse::into_response)
    }
}

type AppState = State<Arc<App>>;

/// `ok` with the database answering; 503 `unavailable` while it does not (a load balancer
/// then stops sending requests here).
async fn health(State(app): AppState) -> Response {
    let db = app.database_health().await;
    let (status, word) = if db.reachable {
        (StatusCode::OK, "ok")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "unavailable")
    };
    let body = json!({ "status": word, "version": env!("CARGO_PKG_VERSION"), "database": db });
    (status, axum::Json(body)).into_response()
}

async fn openapi() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI)
}

async fn not_found() -> ApiError {
    ApiError(
        StatusCode::NOT_FOUND,
        "no such route; see /api/openapi.json".into(),
    )
}

async fn list_stores(State(app): AppState) -> Rest {
    reply(StatusCode::OK, app.stores().await?)
}

async fn add_store(State(app): AppState, Body(args): Body) -> Rest {
    reply(StatusCode::ACCEPTED, app.add(&args).await?)
}

async fn store(State(app): AppState, Path(name): Path<String>) -> Rest {
    reply(StatusCode::OK, app.store(&name).await?)
}

async fn store_doctor(State(app): AppState, Path(name): Path<String>) -> Rest {
    reply(StatusCode::OK, app.doctor(&name).await?)
}

/// `?limit=20` (0: all).
async fn store_patterns(
    State(app): AppState,
    Path(name): Path<String>,
    Query(query): Query<Vec<(String, String)>>,
) -> Rest {
    let limit = match query.iter().find(|(k, _)| k == "limit") {
        None => 20,
        Some((_, v)) => v.parse::<usize>().map_err(|_| {
            ApiError::from(AppError::BadRequest(
                "`limit` must be a whole number (0: all)".into(),
            ))
        })?,
    };
    reply(StatusCode::OK, app.patterns(&name, limit).await?)
}

/// `?tokens=2000`: the map's budget.
async fn store_map(
    State(app): AppState,
    Path(name): Path<String>,
    Query(query): Query<Vec<(String, String)>>,
) -> Rest {
    let tokens = match query.iter().find(|(k, _)| k == "tokens") {
        None => 0,
        Some((_, v)) => match v.parse::<usize>() {
            Ok(n) if (100..=20_000).contains(&n) => n,
            _ => {
                return Err(AppError::BadRequest(
                    "`tokens` must be a whole number from 100 to 20000".into(),
                )
                .into());
            }
        },
    };
    reply(StatusCode::OK, app.map(&name, tokens).await?)
}

/// `?exported=true` counts exported definitions too.
async fn store_unreached(
    State(app): AppState,
    Path(name): Path<String>,
    Query(query): Query<Vec<(String, String)>>,
) -> Rest {
    let exported = query.iter().any(|(k, v)| k == "exported" && v == "true");
    reply(StatusCode::OK, app.unreached(&name, exported).await?)
}

async fn store_files(
    State(app): AppState,
    Path(name): Path<String>,
    Query(query): Query<Vec<(String, String)>>,
) -> Rest {
    let dir = query
        .into_iter()
        .find(|(k, _)| k == "dir")
        .map(|(_, v)| v)
        .unwrap_or_default();
    reply(StatusCode::OK, app.files(&name, &dir).await?)
}

async fn store_file(State(app): AppState, Path((name, path)): Path<(String, String)>) -> Rest {
    reply(StatusCode::OK, app.file_outline(&name, &path).await?)
}

async fn remove_store(State(app): AppState, Path(name): Path<String>) -> Rest {
    reply(StatusCode::OK, app.remove(&name).await?)
}

async fn index_store(
    State(app): AppState,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Rest {
    let args = body_object(&headers, &body, true)?;
    reply(StatusCode::ACCEPTED, app.index(&name, &args).await?)
}

async fn search(State(app): AppState, headers: HeaderMap, Body(args): Body) -> Rest {
    let client = crate::app::client_of(&headers);
    reply(StatusCode::OK, app.search(&args, &client).await?)
}

async fn locate(State(app): AppState, Body(args): Body) -> Rest {
    reply(StatusCode::OK, app.locate(&args).await?)
}

async fn impact(State(app): AppState, Body(args): Body) -> Rest {
    reply(StatusCode::OK, app.impact(&args).await?)
}

/// A unit looked at (a person's page, a script): nothing is recorded, as no GET writes.
async fn result(State(app): AppState, Path(id): Path<String>) -> Rest {
    reply(StatusCode::OK, app.context(&id, None).await?)
}

/// A unit an agent opens: recorded as opened for the search that showed it. A JSON body
/// (`{}`) is required, so a page on another origin cannot send it without a preflight.
async fn open_result(
    State(app): AppState,
    Path(id): Path<String>,
    headers: HeaderMap,
    Body(_): Body,
) -> Rest {
    let client = crate::app::client_of(&headers);
    reply(StatusCode::OK, app.context(&id, Some(&client)).await?)
}

async fn graph(State(app): AppState, Query(query): Query<Vec<(String, String)>>) -> Rest {
    let mut args = JsonObject::new();
    for (k, v) in query {
        args.insert(k, serde_json::Value::String(v));
    }
    reply(StatusCode::OK, app.graph(&args).await?)
}

/// `?pattern=…&fixed=true&ignoreCase=true&glob=a,b&stores=x&maxLines=100`.
async fn grep(State(app): AppState, Query(query): Query<Vec<(String, String)>>) -> Rest {
    let mut args = JsonObject::new();
    for (k, v) in query {
        args.insert(k, serde_json::Value::String(v));
    }
    reply(StatusCode::OK, app.grep(&args).await?)
}

/// `graph` with its arguments as a JSON body (as `/api/search` takes them).
async fn graph_body(State(app): AppState, Body(args): Body) -> Rest {
    reply(StatusCode::OK, app.graph(&args).await?)
}

/// `grep` with its arguments as a JSON body.
async fn grep_body(State(app): AppState, Body(args): Body) -> Rest {
    reply(StatusCode::OK, app.grep(&args).await?)
}

async fn jobs(State(app): AppState) -> Rest {
    reply(StatusCode::OK, app.jobs().await?)
}

async fn job(State(app): AppState, Path(id): Path<String>) -> Rest {
    reply(StatusCode::OK, app.job(&id).await?)
}

async fn cancel_job(State(app): AppState, Path(id): Path<String>) -> Rest {
    reply(StatusCode::OK, app.cancel(&id).await?)
}

async fn feedback(State(app): AppState, Body(args): Body) -> Rest {
    reply(StatusCode::OK, app.feedback(&args).await?)
}

async fn judge_runs(State(app): AppState) -> Rest {
    reply(StatusCode::OK, app.judge_runs().await?)
}

async fn judge_run(State(app): AppState, Path(name): Path<String>) -> Rest {
    reply(StatusCode::OK, app.judge_run(&name).await?)
}

async fn brain_files(State(app): AppState) -> Rest {
    reply(StatusCode::OK, app.brain_files().await?)
}

async fn brain_file(State(app): AppState, Path(path): Path<String>) -> Rest {
    reply(StatusCode::OK, app.brain_file(&path).await?)
}

async fn brain_query(State(app): AppState, Body(args): Body) -> Rest {
    reply(StatusCode::OK, app.brain_query(&args).await?)
}

async fn brain_write(State(app): AppState, Body(args): Body) -> Rest {
    reply(StatusCode::OK, app.brain_write(&args).await?)
}

async fn brain_ingest_raw(State(app): AppState, Body(args): Body) -> Rest {
    reply(StatusCode::OK, app.brain_ingest_raw(&args).await?)
}

async fn brain_ingest(State(app): AppState, Body(args): Body) -> Rest {
    reply(StatusCode::OK, app.brain_ingest(&args, false).await?)
}

async fn brain_ingest_path(State(app): AppState, Body(args): Body) -> Rest {
    reply(StatusCode::OK, app.brain_ingest(&args, true).await?)
}

async fn session_log(State(app): AppState, Body(args): Body) -> Rest {
    reply(StatusCode::OK, app.session_log(&args).await?)
}

/// Streamable HTTP asks a client to accept both JSON and an event stream; plain JSON-RPC
/// clients (curl, Go's `http.Post`) say `*/*`, `application/json` or nothing. A POST from a
/// client that takes JSON gets one JSON answer; one that asks for `text/event-stream` alone
/// gets a stream. A body that is not one JSON-RPC message gets a JSON-RPC error object:
/// -32700 when it is not JSON, -32600 for a batch, a non-object or an object that is no
/// message.
async fn mcp_request(State(mcp): State<Mcp>, req: Request) -> Response {
    if req.method() != Method::POST {
        return mcp.json.handle(req).await.into_response();
    }
    let (json, sse) = accepts(req.headers());
    if !json && !sse {
        return ApiError(
            StatusCode::NOT_ACCEPTABLE,
            "send Accept: application/json (or text/event-stream for a stream)".into(),
        )
        .into_response();
    }
    // What rmcp would answer in plain text (a body that is not one JSON-RPC message) is
    // answered here as JSON-RPC says.
    let (mut parts, body) = req.into_parts();
    if media_type(&parts.headers).as_deref() != Some("application/json") {
        return rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Value::Null,
            INVALID_REQUEST,
            "send the JSON-RPC message with Content-Type: application/json",
        );
    }
    let bytes = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(_) => {
            return rpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                Value::Null,
                INVALID_REQUEST,
                &format!("the request body is larger than {MAX_BODY} bytes"),
            );
        }
    };
    if let Err((code, id, message)) = check_message(&bytes) {
        return rpc_error(StatusCode::BAD_REQUEST, id, code, &message);
    }
    parts.headers.insert(
        header::ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    let req = Request::from_parts(parts, axum::body::Body::from(bytes));
    let service = if json { &mcp.json } else { &mcp.sse };
    service.handle(req).await.into_response()
}

/// JSON-RPC 2.0's codes for a body that is not JSON, for JSON that is no request, and for
/// a request whose params its method cannot take.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// The Content-Type without its parameters, lowercased.
fn media_type(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
}

/// Whether the Content-Type is JSON (`application/json` or `…+json`).
fn is_json(headers: &HeaderMap) -> bool {
    media_type(headers).is_some_and(|v| v == "application/json" || v.ends_with("+json"))
}

/// Checks that `body` is one JSON-RPC message as the MCP SDK reads them; otherwise the
/// error's code, the request's id when it has a usable one, and what was wrong.
pub(crate) fn check_message(body: &[u8]) -> Result<(), (i64, Value, String)> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| (PARSE_ERROR, Value::Null, format!("parse error: {e}")))?;
    let id = match &value {
        Value::Array(_) => {
            return Err((
                INVALID_REQUEST,
                Value::Null,
                "batches are not supported: send one JSON-RPC message per request".into(),
            ));
        }
        Value::Object(o) => match o.get("id") {
            Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
            _ => Value::Null,
        },
        _ => {
            return Err((
                INVALID_REQUEST,
                Value::Null,
                "invalid request: a JSON-RPC message is an object".into(),
            ));
        }
    };
    if let Some(why) = bad_tool_call(&value) {
        return Err((INVALID_PARAMS, id, format!("invalid params: {why}")));
    }
    serde_json::from_value::<rmcp::model::ClientJsonRpcMessage>(value)
        .map(|_| ())
        .map_err(|e| {
            let why = crate::params::shown(e);
            (INVALID_REQUEST, id, format!("invalid request: {why}"))
        })
}

/// What is wrong with a `tools/call` request's params, if it is one: rmcp would take a
/// malformed one for an unknown method (-32601) instead of refusing its params.
fn bad_tool_call(msg: &Value) -> Option<&'static str> {
    if msg.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let Some(params) = msg.get("params").and_then(Value::as_object) else {
        return Some("tools/call takes params {\"name\": TOOL, \"arguments\": {…}}");
    };
    if !params.get("name").is_some_and(Value::is_string) {
        return Some("tools/call needs params.name, the tool's name (a string)");
    }
    match params.get("arguments") {
        None | Some(Value::Null) | Some(Value::Object(_)) => None,
        Some(_) => Some("tools/call params.arguments must be an object"),
    }
}

/// A JSON-RPC error response.
pub(crate) fn rpc_error_body(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A JSON-RPC error object as the whole answer.
fn rpc_error(status: StatusCode, id: Value, code: i64, message: &str) -> Response {
    (status, axum::Json(rpc_error_body(id, code, message))).into_response()
}

/// Whether the Accept headers take JSON and an event stream; none at all takes anything.
fn accepts(headers: &HeaderMap) -> (bool, bool) {
    let mut ranges = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter(|r| !r.trim().is_empty())
        .peekable();
    if ranges.peek().is_none() {
        return (true, true);
    }
    let (mut json, mut sse) = (false, false);
    for range in ranges {
        let mut parts = range.split(';').map(str::trim);
        let essence = parts.next().unwrap_or("").to_ascii_lowercase();
        let refused = parts.any(|p| {
            p.strip_prefix("q=")
                .and_then(|q| q.parse::<f32>().ok())
                .is_some_and(|q| q == 0.0)
        });
        if refused {
            continue;
        }
        match essence.as_str() {
            "*/*" => (json, sse) = (true, true),
            "application/*" | "application/json" => json = true,
            "text/*" | "text/event-stream" => sse = true,
            _ => {}
        }
    }
    (json, sse)
}

fn is_loopback_host(host: &str) -> bool {
    // Strip a port: "[::1]:7411", "127.0.0.1:7411", "localhost".
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Constant-time comparison, so the token cannot be guessed byte by byte from timings.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn guard_request(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if guard.loopback && !is_loopback_host(host) {
        return ApiError(
            StatusCode::FORBIDDEN,
            format!(
                "host {host:?} is not a loopback name; call this server as 127.0.0.1 or localhost"
            ),
        )
        .into_response();
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        let own = ["http://", "https://"]
            .iter()
            .any(|scheme| origin.strip_prefix(scheme) == Some(host));
        if !own {
            return ApiError(
                StatusCode::FORBIDDEN,
                format!("requests from origin {origin:?} are not allowed"),
            )
            .into_response();
        }
    }
    if let Some(token) = &guard.token
        && req.uri().path() != "/health"
        && !crate::web::is_page(req.uri().path())
    {
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !same_secret(given.trim().as_bytes(), token.as_bytes()) {
            let mut resp = ApiError(
                StatusCode::UNAUTHORIZED,
                "missing or wrong bearer token: send Authorization: Bearer <LORE_TOKEN>".into(),
            )
            .into_response();
            resp.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return resp;
        }
    }
    // A body declared too large is refused before a byte of it is read, so the client
    // gets the answer instead of a reset connection while it is still sending.
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        let message = format!("the request body is larger than {MAX_BODY} bytes");
        let mut resp = if req.uri().path().starts_with("/mcp") {
            rpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                Value::Null,
                INVALID_REQUEST,
                &message,
            )
        } else {
            ApiError(StatusCode::PAYLOAD_TOO_LARGE, message).into_response()
        };
        resp.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return resp;
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for h in [
            "localhost",
            "localhost:7411",
            "127.0.0.1:1",
            "[::1]:80",
            "127.3.2.1",
        ] {
            assert!(is_loopback_host(h), "{h}");
        }
        for h in [
            "",
            "example.com",
            "evil.localhost.example:80",
            "10.0.0.1:7411",
            "[::2]",
        ] {
            assert!(!is_loopback_host(h), "{h}");
        }
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
    }

    #[test]
    fn accept_headers() {
        let take = |values: &[&str]| {
            let mut h = HeaderMap::new();
            for v in values {
                h.append(header::ACCEPT, HeaderValue::from_str(v).unwrap());
            }
            accepts(&h)
        };
        assert_eq!(take(&[]), (true, true));
        assert_eq!(take(&["*/*"]), (true, true));
        assert_eq!(take(&["application/json"]), (true, false));
        assert_eq!(take(&["text/event-stream"]), (false, true));
        assert_eq!(take(&["application/json, text/event-stream"]), (true, true));
        assert_eq!(
            take(&["text/html", "Application/JSON; q=0.5"]),
            (true, false)
        );
        assert_eq!(take(&["application/json;q=0", "text/*"]), (false, true));
        assert_eq!(take(&["text/html"]), (false, false));
    }

    #[test]
    fn openapi_lists_every_route() {
        let doc: serde_json::Value = serde_json::from_str(OPENAPI).unwrap();
        let paths = doc["paths"].as_object().unwrap();
        for p in [
            "/health",
            "/api/openapi.json",
            "/api/stores",
            "/api/stores/{name}",
            "/api/stores/{name}/index",
            "/api/stores/{name}/doctor",
            "/api/stores/{name}/unreached",
            "/api/stores/{name}/map",
            "/api/stores/{name}/patterns",
            "/api/stores/{name}/files",
            "/api/stores/{name}/files/{path}",
            "/api/locate",
            "/api/impact",
            "/api/search",
            "/api/results/{id}",
            "/api/graph",
            "/api/grep",
            "/api/jobs",
            "/api/jobs/{id}",
            "/api/jobs/{id}/cancel",
            "/api/feedback",
            "/api/eval/runs",
            "/api/eval/runs/{name}",
            "/api/brain/files",
            "/api/brain/files/{path}",
            "/api/brain/query",
            "/api/brain/write",
            "/api/brain/ingest",
            "/api/brain/ingest-raw",
            "/api/brain/ingest-path",
            "/api/brain/log",
            "/mcp",
        ] {
            assert!(paths.contains_key(p), "{p} missing from openapi.json");
        }
        assert_eq!(paths.len(), 32, "a path in openapi.json has no route");
    }

    /// The hand-written file lists the engine's words: each `enum` in it that holds one of
    /// them holds exactly the engine's list.
    #[test]
    fn openapi_enums_match_the_engine() {
        use lore_engine::{Detail, Intent, Mode, brain::PAGE_TYPES};
        fn enums<'a>(v: &'a serde_json::Value, out: &mut Vec<Vec<&'a str>>) {
            match v {
                serde_json::Value::Object(o) => {
                    if let Some(serde_json::Value::Array(words)) = o.get("enum") {
                        out.push(words.iter().filter_map(|w| w.as_str()).collect());
                    }
                    o.values().for_each(|v| enums(v, out));
                }
                serde_json::Value::Array(a) => a.iter().for_each(|v| enums(v, out)),
                _ => {}
            }
        }
        let doc: serde_json::Value = serde_json::from_str(OPENAPI).unwrap();
        let mut found = Vec::new();
        enums(&doc, &mut found);
        let lists: [&[&str]; 6] = [
            &Intent::ALL.map(Intent::as_str),
            &Detail::ALL.map(Detail::as_str),
            &Mode::ALL.map(Mode::as_str),
            &crate::params::DIRECTIONS,
            &crate::params::STORE_TYPES,
            PAGE_TYPES,
        ];
        for list in lists {
            let uses: Vec<_> = found.iter().filter(|e| e.contains(&list[0])).collect();
            assert!(!uses.is_empty(), "openapi.json lists no {list:?}");
            for e in uses {
                assert_eq!(e.as_slice(), list, "an enum in openapi.json");
            }
        }
    }
}
