//! lore for agents and tools: MCP over stdio (`lore mcp`) and one HTTP port
//! (`lore serve`: REST under `/api`, MCP at `/mcp`), plus the file watcher (`lore watch`).
//!
//! Everything here is an adapter over `lore_engine::Engine`: requests are parsed once
//! (`params`), answered once (`app`), and shaped per transport (`mcp`, `http`). Reads run on
//! a small pool of engines; every write of a process goes through its one writer thread,
//! which — serving or watching — holds the data dir's writer lock for its whole life.

mod app;
mod error;
mod http;
mod mcp;
mod params;
mod policy;
mod pool;
mod stdio;
mod watch;
mod web;
mod writer;

/// How often a server renews its jobs' heartbeat (they expire after
/// `lore_index::JOB_EXPIRY_SECS` without one).
const JOB_HEARTBEAT: Duration = Duration::from_secs(10);
/// How often a server sharing its brain looks for other servers' changes to it.
const BRAIN_FOLLOW: Duration = Duration::from_secs(3);

pub use error::AppError;
pub use http::MAX_BODY;
pub use mcp::LoreMcp;
pub use policy::{DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_QUERY_BYTES};

/// The MCP/REST argument parsers (`params`), reachable from the fuzz targets of
/// `crates/lore-fuzz`. Not an API: plain delegation, so the fuzzers run the parsers every
/// tool and route uses.
#[doc(hidden)]
pub mod fuzzing {
    use crate::params::{self, JsonObject, SourcePolicy};
    use lore_engine::brain::{BrainQuery, IngestRequest, Note, RawIngest, SessionEntry};
    use lore_engine::{GraphQuery, JobSpec, SearchRequest};
    use std::path::Path;

    pub fn search_request(obj: &JsonObject, max_query: usize) -> Result<SearchRequest, String> {
        params::search_request(obj, max_query)
    }
    pub fn graph_query(obj: &JsonObject, max_query: usize) -> Result<GraphQuery, String> {
        params::graph_query(obj, max_query)
    }
    pub fn add_spec(
        obj: &JsonObject,
        base: Option<&Path>,
        data_dir: &Path,
    ) -> Result<JobSpec, String> {
        params::add_spec(obj, &SourcePolicy { base, data_dir })
    }
    pub fn index_spec(store: &str, obj: &JsonObject) -> Result<JobSpec, String> {
        params::index_spec(store, obj)
    }
    pub fn store_name(name: &str) -> Result<&str, String> {
        params::store_name(name)
    }
    pub fn brain_query(obj: &JsonObject, max_query: usize) -> Result<BrainQuery, String> {
        params::brain_query(obj, max_query)
    }
    pub fn note(obj: &JsonObject) -> Result<Note, String> {
        params::note(obj)
    }
    pub fn raw_ingest(obj: &JsonObject) -> Result<RawIngest, String> {
        params::raw_ingest(obj)
    }
    pub fn ingest_request(obj: &JsonObject, base: Option<&Path>) -> Result<IngestRequest, String> {
        params::ingest_request(obj, base)
    }
    pub fn session_entry(obj: &JsonObject) -> Result<SessionEntry, String> {
        params::session_entry(obj)
    }
}

use app::App;
use lore_core::DataDir;
use lore_engine::{Engine, EngineError};
use policy::{Policy, Reads};
use pool::Pool;
use rmcp::ServiceExt;
use rmcp::transport::IntoTransport;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use watch::Watcher;
use writer::Writer;

/// Default address of `lore serve`.
pub const DEFAULT_ADDR: &str = "127.0.0.1:7411";

/// Concurrent searches (each on a blocking thread with its own engine).
const SEARCH_WORKERS: usize = 4;

/// How long shutdown waits for a running job to stop at a file boundary.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// Bad options (e.g. a public address without a token).
    #[error("{0}")]
    Options(String),
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
}

pub struct ServeOptions {
    pub addr: SocketAddr,
    /// Required unless `addr` is a loopback address; checked on every route but `/health`.
    pub token: Option<String>,
    /// Watch folder stores and the brain and re-index what changes.
    pub watch: bool,
    /// Folders whose files clients may have read (folder stores, local repositories,
    /// ingested files); none when empty. Stores already in the data dir are the operator's.
    pub allow_paths: Vec<PathBuf>,
    /// Let web and git stores fetch from loopback, private and link-local addresses.
    pub allow_private_fetch: bool,
    /// Longest query (and code-graph symbol) accepted, in bytes.
    pub max_query_bytes: usize,
    /// Largest file a client's store may index (its `maxFileSize` may only lower it).
    pub max_file_bytes: u64,
    /// How index runs share their files with `lore worker`s (PostgreSQL).
    pub workers: lore_engine::Workers,
    /// On PostgreSQL, search a read copy of each store kept in the data dir.
    pub read_copy: bool,
}

fn runtime() -> Result<tokio::runtime::Runtime, ServerError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| ServerError::Io("starting the async runtime".into(), e))
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

/// `lore serve`: REST, MCP over HTTP and (with `watch`) the file watcher on one port,
/// until Ctrl-C or SIGTERM. This process is the data dir's only writer while it runs.
pub fn serve(data: DataDir, opts: ServeOptions) -> Result<(), ServerError> {
    let token = opts.token.filter(|t| !t.trim().is_empty());
    let loopback = opts.addr.ip().is_loopback();
    if !loopback && token.is_none() {
        return Err(ServerError::Options(format!(
            "{} is not a loopback address: serving it needs a bearer token (--token or LORE_TOKEN), \
             or bind 127.0.0.1",
            opts.addr
        )));
    }
    if opts.max_query_bytes == 0 {
        return Err(ServerError::Options(
            "--max-query-bytes must be above 0".into(),
        ));
    }
    if opts.max_file_bytes == 0 {
        return Err(ServerError::Options(
            "--max-file-size must be above 0".into(),
        ));
    }
    let policy = Policy {
        reads: Reads::within(&opts.allow_paths, "--allow-path").map_err(ServerError::Options)?,
        fetch: lore_source::FetchPolicy::server(opts.allow_private_fetch),
        max_query_bytes: opts.max_query_bytes,
        max_file_bytes: opts.max_file_bytes,
    };
    let mut engine = Engine::open(data.clone())?;
    // Every engine of this process (writer, readers) fetches as the policy says.
    engine.config_mut().fetch = policy.fetch;
    engine.config_mut().reads = policy.reads.clone();
    engine.config_mut().workers = opts.workers;
    // On PostgreSQL, searches read this server's copy of each store (kept current).
    engine.config_mut().read_copy = if opts.read_copy {
        lore_engine::ReadCopy::Keep
    } else {
        lore_engine::ReadCopy::Ignore
    };
    engine.hold_writer_lock()?;
    match engine.prune_read_copies() {
        Ok(0) => {}
        Ok(n) => tracing::info!("removed the read copies of {n} stores the database no longer has"),
        Err(e) => tracing::warn!("read copies of removed stores: {e}"),
    }
    // The stores already here are the operator's: their sources stay readable.
    engine.trust_present_sources()?;
    let rt = runtime()?;
    let app = rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(opts.addr)
            .await
            .map_err(|e| ServerError::Io(format!("cannot listen on {}", opts.addr), e))?;
        let mut local = listener
            .local_addr()
            .map_err(|e| ServerError::Io("listening address".into(), e))?;
        if local.ip().is_unspecified() {
            local.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        let url = format!("http://{local}");
        let announcement = engine.announce_writer("serve", Some(&url))?;
        let seed = engine.try_clone()?;
        let watcher_engine = engine.try_clone()?;
        let writer = Writer::spawn(engine)?;
        // The brain may have files but no store yet; the watcher only sees stores.
        writer.handle().send(writer::Cmd::SyncBrain);
        let watcher = if opts.watch {
            let w = Watcher::spawn(watcher_engine, writer.handle(), Vec::new())
                .map_err(|e| ServerError::Options(format!("cannot watch folders: {e}")))?;
            Some(w)
        } else {
            None
        };
        let app = Arc::new(App::new(
            Pool::new(seed, SEARCH_WORKERS),
            writer,
            data,
            None,
            true,
            policy,
        ));
        let cleaner = app.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_secs(3600));
            loop {
                every.tick().await;
                cleaner.clean_jobs().await;
            }
        });
        // This server's jobs stay alive in a shared jobs table; a stopped server's expire.
        let heart = app.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(JOB_HEARTBEAT);
            loop {
                every.tick().await;
                heart.heartbeat_jobs().await;
            }
        });
        if app.shares_brain() {
            let follower = app.clone();
            tokio::spawn(async move {
                let mut every = tokio::time::interval(BRAIN_FOLLOW);
                loop {
                    every.tick().await;
                    follower.follow_brain().await;
                }
            });
        }
        spawn_signal_flusher(&app);
        let guard = Arc::new(http::Guard { token, loopback });
        let router = http::router(app.clone(), guard);
        tracing::info!("listening on {url} (REST under /api, MCP at /mcp)");
        axum::serve(listener, router)
            .with_graceful_shutdown(shutdown_signal())
            .await
            .map_err(|e| ServerError::Io("serving".into(), e))?;
        tracing::info!("stopping");
        app.flush_signals(true).await;
        drop(watcher);
        drop(announcement);
        Ok::<_, ServerError>(app)
    })?;
    app.shutdown(SHUTDOWN_WAIT);
    rt.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}

/// `lore mcp`: MCP over stdin/stdout until the client closes it. Writes (store add/index)
/// take the writer lock one at a time, so a running `lore serve` is reported, not raced.
/// The brain is brought up to date at start and watched, so notes edited by hand are found.
/// Its one client is the agent its user started: it reads and fetches like the CLI.
pub fn mcp_stdio(data: DataDir) -> Result<(), ServerError> {
    let mut engine = Engine::open(data.clone())?;
    engine.config_mut().read_copy = lore_engine::ReadCopy::Keep;
    let cwd = std::env::current_dir().ok();
    let rt = runtime()?;
    let (app, watcher) = rt.block_on(async move {
        let seed = engine.try_clone()?;
        let watcher_engine = engine.try_clone()?;
        let writer = Writer::spawn(engine)?;
        // The brain may have files but no store yet; the watcher only sees stores.
        writer.handle().send(writer::Cmd::SyncBrain);
        let brain = vec![lore_engine::brain::BRAIN_STORE.to_string()];
        let watcher = Watcher::spawn(watcher_engine, writer.handle(), brain)
            .inspect_err(|e| tracing::warn!("cannot watch the brain: {e}"))
            .ok();
        let app = Arc::new(App::new(
            Pool::new(seed, 2),
            writer,
            data,
            cwd,
            false,
            Policy::local(),
        ));
        spawn_signal_flusher(&app);
        let stdio = IntoTransport::<rmcp::RoleServer, _, _>::into_transport(stdio::checked_stdio());
        let running = LoreMcp::new(app.clone())
            .serve(mcp::LenientInitialize(stdio))
            .await
            .map_err(|e| {
                ServerError::Io(
                    "MCP over stdio".into(),
                    std::io::Error::other(e.to_string()),
                )
            })?;
        let _ = running.waiting().await;
        app.flush_signals(true).await;
        Ok::<_, ServerError>((app, watcher))
    })?;
    drop(watcher);
    app.shutdown(SHUTDOWN_WAIT);
    // A pending read on stdin cannot be cancelled; do not wait for it.
    rt.shutdown_background();
    Ok(())
}

/// Writes what searches learnt (`App::flush_signals`) in the background, every second.
fn spawn_signal_flusher(app: &Arc<App>) {
    let app = app.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(1));
        loop {
            every.tick().await;
            app.flush_signals(false).await;
        }
    });
}

/// `lore watch [STORE…]`: keeps folder stores and the brain fresh without a server, until
/// Ctrl-C or SIGTERM. Holds the writer lock the whole time.
pub fn watch(data: DataDir, stores: Vec<String>) -> Result<(), ServerError> {
    let mut engine = Engine::open(data)?;
    for name in &stores {
        let s = engine.store_info(name)?;
        let kind = s.store.kind;
        if matches!(kind, lore_core::StoreKind::Repo | lore_core::StoreKind::Web) {
            return Err(ServerError::Options(format!(
                "store {name} is a {} store; watch keeps folder stores and the brain fresh (use \
                 `lore sync` for repo and web stores)",
                kind.as_str()
            )));
        }
    }
    engine.hold_writer_lock()?;
    let announcement = engine.announce_writer("watch", None)?;
    let watcher_engine = engine.try_clone()?;
    let writer = Writer::spawn(engine)?;
    let watcher = Watcher::spawn(watcher_engine, writer.handle(), stores)
        .map_err(|e| ServerError::Options(format!("cannot watch folders: {e}")))?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ServerError::Io("starting the async runtime".into(), e))?;
    rt.block_on(shutdown_signal());
    tracing::info!("stopping");
    drop(watcher);
    writer.stop(SHUTDOWN_WAIT);
    drop(announcement);
    Ok(())
}
