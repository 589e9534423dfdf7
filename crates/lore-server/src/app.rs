//! What MCP tools and REST routes do, written once: each operation parses its arguments,
//! calls `Engine` (readers from the pool, writes through the writer) and returns a value
//! to serialise, or an `AppError` that each adapter turns into its own kind of error.

use crate::error::AppError;
use crate::params::{self, JsonObject, SourcePolicy};
use crate::policy::Policy;
use crate::pool::Pool;
use crate::writer::{Cmd, Writer};
use lore_core::DataDir;
use lore_engine::brain::{self, BrainAnswer, BrainIngested, BrainWritten, Logged};
use lore_engine::{
    Engine, EngineError, JobRecord, JobSpec, SearchResponse, StoreRecord, StoreSummary, UnitContext,
};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// A store with its counts and how fresh its index is.
#[derive(Serialize)]
pub(crate) struct StoreStatus {
    #[serde(flatten)]
    pub summary: StoreSummary,
    pub freshness: lore_engine::Freshness,
}

pub(crate) struct App {
    pub(crate) pool: Arc<Pool>,
    pub(crate) writer: Writer,
    data: DataDir,
    /// Relative folder sources resolve against this (stdio); `None` requires absolute paths.
    pub(crate) local_base: Option<PathBuf>,
    /// The writer holds the lock for life (serve); otherwise each write takes it (stdio).
    pub(crate) holds_lock: bool,
    /// What clients may have read and fetched, and how long a query may be.
    policy: Arc<Policy>,
    /// The last searches' queries and result ids, per client: a result opened soon after
    /// one showed it is recorded as feedback (the agent told lore which hit mattered).
    recent: Arc<std::sync::Mutex<std::collections::VecDeque<Shown>>>,
    /// Signals learnt on the search path, written in the background (`flush_signals`): a
    /// search itself writes nothing.
    pending: Arc<std::sync::Mutex<Pending>>,
}

/// A search as remembered: whose, when, its query, the ids it showed, whether one was
/// opened.
struct Shown {
    client: String,
    at: Instant,
    query: String,
    ids: Vec<String>,
    opened: bool,
}

/// Missed results waiting to be written: (query, ids, client) each, since `since`.
#[derive(Default)]
struct Pending {
    missed: Vec<(String, Vec<String>, String)>,
    since: Option<Instant>,
}

/// The client name the web page sends: a person, whose searches and opens teach nothing.
const WEB_PAGE: &str = "web-page";

/// Pending signals are written once this many wait, or this long after the first.
const FLUSH_AT: usize = 32;
const FLUSH_AFTER: Duration = Duration::from_secs(2);

/// Who a client is, for the signals a search and an open make together: the
/// `X-Lore-Client` header when sent (at most 64 characters), else a digest of its bearer
/// token and user agent. Never one identity for the whole server.
pub(crate) fn client_of(headers: &axum::http::HeaderMap) -> String {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    };
    let named = header("x-lore-client").trim();
    if !named.is_empty() {
        return named.chars().take(64).collect();
    }
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (header("authorization"), header("user-agent")).hash(&mut h);
    format!("http:{:016x}", h.finish())
}

/// Searches remembered for implicit feedback, and for how long.
const RECENT_SEARCHES: usize = 64;
const RECENT_FOR: Duration = Duration::from_secs(600);
/// A search with other words this soon after one whose results were not opened says
/// those results missed; its first [`MISSED_SHOWN`] are recorded as passed over.
const SEARCHED_AGAIN_WITHIN: Duration = Duration::from_secs(120);
const MISSED_SHOWN: usize = 3;

/// Longest a brain read waits for the brain to be brought up to date first.
const BRAIN_FRESH_WAIT: Duration = Duration::from_secs(10);

impl App {
    pub fn new(
        pool: Arc<Pool>,
        writer: Writer,
        data: DataDir,
        local_base: Option<PathBuf>,
        holds_lock: bool,
        policy: Policy,
    ) -> App {
        App {
            pool,
            writer,
            data,
            local_base,
            holds_lock,
            policy: Arc::new(policy),
            recent: Default::default(),
            pending: Default::default(),
        }
    }

    fn max_query(&self) -> usize {
        self.policy.max_query_bytes
    }

    pub fn shutdown(&self, wait: Duration) {
        self.writer.stop(wait);
    }

    /// Whether the catalog's database answers; an engine that cannot even be checked out
    /// (its connection cannot be opened) says why.
    pub async fn database_health(&self) -> lore_engine::DatabaseHealth {
        let backend = if self.data.database().is_some() {
            "postgres"
        } else {
            "sqlite"
        };
        match self.pool.run(|e| Ok(e.database_health())).await {
            Ok(h) => h,
            Err(e) => lore_engine::DatabaseHealth {
                backend,
                reachable: false,
                error: Some(e.to_string()),
            },
        }
    }

    /// A search for `client` (see `client_of`). It writes nothing: that `client` searched
    /// again without opening its last results is queued and written in the background.
    pub async fn search(
        &self,
        args: &JsonObject,
        client: &str,
    ) -> Result<SearchResponse, AppError> {
        let mut req =
            params::search_request(args, self.max_query()).map_err(AppError::BadRequest)?;
        let deps = params::Args(args)
            .boolean("deps")
            .map_err(AppError::BadRequest)?;
        let project = if deps { Some(dep_project()?) } else { None };
        let (scope_of, all) = self.scope(&mut req.stores);
        // What a person does at the web page teaches nothing (it is not an agent's).
        let learns = req.feedback && client != WEB_PAGE;
        if learns && let Some((query, ids)) = self.missed_before(&req.query, client) {
            self.queue_missed(query, ids, client);
        }
        let resp = self
            .pool
            .run(move |e| {
                let scope = e.project_scope(scope_of.as_ref(), &mut req.stores, all);
                if let Some(project) = project {
                    let stores = e.project_dep_stores(&project)?;
                    if stores.is_empty() {
                        return Err(lore_engine::EngineError::Input(format!(
                            "no dependency of {} is indexed yet: run `lore deps` there",
                            project.display()
                        )));
                    }
                    req.stores.extend(stores);
                }
                let mut resp = e.search(&req)?;
                resp.scope = scope;
                Ok(resp)
            })
            .await?;
        if learns && let Ok(mut recent) = self.recent.lock() {
            if recent.len() >= RECENT_SEARCHES {
                recent.pop_front();
            }
            recent.push_back(Shown {
                client: client.to_string(),
                at: Instant::now(),
                query: resp.query.clone(),
                ids: resp.results.iter().map(|h| h.unit.id.clone()).collect(),
                opened: false,
            });
        }
        Ok(resp)
    }

    /// `client`'s last search's query and first results, when `query` searches again with
    /// other words soon after it and none of its results was opened.
    fn missed_before(&self, query: &str, client: &str) -> Option<(String, Vec<String>)> {
        let recent = self.recent.lock().ok()?;
        let last = recent.iter().rev().find(|s| s.client == client)?;
        let again = last.at.elapsed() < SEARCHED_AGAIN_WITHIN
            && !last.opened
            && !last.ids.is_empty()
            && !last.query.trim().eq_ignore_ascii_case(query.trim());
        again.then(|| {
            let ids = last.ids.iter().take(MISSED_SHOWN).cloned().collect();
            (last.query.clone(), ids)
        })
    }

    /// Queues missed results for `flush_signals`.
    fn queue_missed(&self, query: String, ids: Vec<String>, client: &str) {
        if let Ok(mut pending) = self.pending.lock() {
            pending.missed.push((query, ids, client.to_string()));
            pending.since.get_or_insert_with(Instant::now);
        }
    }

    /// Writes the queued signals, in one batch, when enough wait or the first has waited
    /// long enough (`force`: whatever waits, as the server stops). A server calls this
    /// every second, off every request's path.
    pub async fn flush_signals(&self, force: bool) {
        let batch = {
            let Ok(mut pending) = self.pending.lock() else {
                return;
            };
            let due = pending.missed.len() >= FLUSH_AT
                || pending.since.is_some_and(|t| t.elapsed() >= FLUSH_AFTER);
            if pending.missed.is_empty() || !(due || force) {
                return;
            }
            pending.since = None;
            std::mem::take(&mut pending.missed)
        };
        let written = self
            .pool
            .run(move |e| {
                for (query, ids, client) in &batch {
                    e.record_missed(ids, query, client)?;
                }
                Ok(())
            })
            .await;
        if let Err(err) = written {
            tracing::warn!("recording results searched past: {err}");
        }
    }

    /// Explicit feedback on a result: {id, useful, query?}.
    pub async fn feedback(
        &self,
        args: &JsonObject,
    ) -> Result<lore_engine::feedback::FeedbackRecorded, AppError> {
        let a = params::Args(args);
        let bad = AppError::BadRequest;
        let id = a
            .required("id")
            .map_err(|_| bad("`id` is required: a result id from search".into()))?;
        let useful = match args.get("useful") {
            Some(serde_json::Value::Bool(b)) => *b,
            _ => return Err(bad("`useful` is required: true or false".into())),
        };
        let query = a.string("query").map_err(bad)?;
        let req = lore_engine::feedback::FeedbackRequest {
            result_id: id,
            useful,
            query,
            client: "server".into(),
        };
        self.pool.run(move |e| e.feedback(&req)).await
    }

    /// Which versions of a dependency the server's project locks, and where their source is.
    pub async fn dependency_info(
        &self,
        args: &JsonObject,
    ) -> Result<Vec<lore_engine::deps::DepInfo>, AppError> {
        let name = params::Args(args)
            .required("name")
            .map_err(|_| AppError::BadRequest("`name` is required: a dependency's name".into()))?;
        let project = dep_project()?;
        self.pool
            .run(move |e| e.dependency_info(&project, &name))
            .await
    }

    pub async fn locate(&self, args: &JsonObject) -> Result<lore_engine::LocateResponse, AppError> {
        let mut req =
            params::locate_request(args, self.max_query()).map_err(AppError::BadRequest)?;
        let (scope_of, all) = self.scope(&mut req.stores);
        self.pool
            .run(move |e| {
                e.project_scope(scope_of.as_ref(), &mut req.stores, all);
                e.locate(&req)
            })
            .await
    }

    /// The project a search or locate that names no stores keeps to (`lore mcp` started
    /// inside one: a lore.toml from its folder upward), and whether the request asked for
    /// every store (`stores: ["*"]`, taken out of `stores`).
    fn scope(&self, stores: &mut Vec<String>) -> (Option<(PathBuf, Vec<String>)>, bool) {
        let all = stores.len() == 1 && stores[0] == "*";
        if all {
            stores.clear();
        }
        let project = self
            .local_base
            .as_deref()
            .and_then(lore_engine::project::Project::find)
            .and_then(|p| lore_engine::project::Project::read(&p).ok())
            .and_then(|p| p.settings.project);
        (project, all)
    }

    pub async fn impact(&self, args: &JsonObject) -> Result<lore_engine::ImpactAnswer, AppError> {
        let req = params::impact_request(args, self.max_query()).map_err(AppError::BadRequest)?;
        self.pool.run(move |e| e.impact(&req)).await
    }

    pub async fn map(&self, name: &str, tokens: usize) -> Result<lore_engine::StoreMap, AppError> {
        let name = params::store_name(name)
            .map_err(AppError::BadRequest)?
            .to_string();
        self.pool.run(move |e| e.map(&name, tokens)).await
    }

    pub async fn patterns(
        &self,
        name: &str,
        limit: usize,
    ) -> Result<lore_engine::PatternList, AppError> {
        let name = params::store_name(name)
            .map_err(AppError::BadRequest)?
            .to_string();
        self.pool.run(move |e| e.patterns(&name, limit)).await
    }

    pub async fn unreached(
        &self,
        name: &str,
        exported: bool,
    ) -> Result<lore_engine::Unreached, AppError> {
        let name = params::store_name(name)
            .map_err(AppError::BadRequest)?
            .to_string();
        self.pool.run(move |e| e.unreached(&name, exported)).await
    }

    pub async fn grep(&self, args: &JsonObject) -> Result<lore_engine::GrepAnswer, AppError> {
        let req = params::grep_request(args, self.max_query()).map_err(AppError::BadRequest)?;
        self.pool.run(move |e| e.grep(&req)).await
    }

    pub async fn graph(&self, args: &JsonObject) -> Result<lore_engine::GraphAnswer, AppError> {
        let q = params::graph_query(args, self.max_query()).map_err(AppError::BadRequest)?;
        self.pool.run(move |e| e.graph(&q)).await
    }

    /// The unit behind a result id; `opened_by` (an agent's MCP call or REST POST, never a
    /// GET) records it as opened for that client's recent search that showed it.
    pub async fn context(
        &self,
        id: &str,
        opened_by: Option<&str>,
    ) -> Result<UnitContext, AppError> {
        let id = id.to_string();
        // Shown by a recent search: opening it says it mattered for that query.
        let recent = opened_by.and_then(|c| self.recent.lock().ok().map(|r| (c, r)));
        let shown = recent.and_then(|(client, mut recent)| {
            let (s, rank) = recent.iter_mut().rev().find_map(|s| {
                let rank = s.ids.iter().position(|i| *i == id)?;
                (s.client == client && s.at.elapsed() < RECENT_FOR).then_some((s, rank + 1))
            })?;
            s.opened = true;
            Some((s.query.clone(), rank, client.to_string()))
        });
        self.pool
            .run(move |e| {
                let unit = e.context(&id)?;
                if let Some((query, rank, client)) = shown
                    && let Err(err) = e.record_opened(&id, &query, &client, rank)
                {
                    tracing::warn!("recording that {id} was opened: {err}");
                }
                Ok(unit)
            })
            .await
    }

    pub async fn stores(&self) -> Result<Vec<StoreSummary>, AppError> {
        self.pool.run(|e| e.stores()).await
    }

    /// `doctor` on one store: whether its catalog, BM25 index and vector snapshot agree,
    /// with the repair for each problem (reads only).
    pub async fn doctor(&self, name: &str) -> Result<lore_engine::DoctorReport, AppError> {
        let name = params::store_name(name)
            .map_err(AppError::BadRequest)?
            .to_string();
        self.pool.run(move |e| e.doctor(Some(&name))).await
    }

    /// The folders and files directly under `dir` of a store.
    pub async fn files(
        &self,
        name: &str,
        dir: &str,
    ) -> Result<lore_engine::FolderListing, AppError> {
        let name = params::store_name(name)
            .map_err(AppError::BadRequest)?
            .to_string();
        let dir = dir.to_string();
        self.pool.run(move |e| e.files(&name, &dir)).await
    }

    /// A file's outline, each entry with the result id that opens it.
    pub async fn file_outline(
        &self,
        name: &str,
        path: &str,
    ) -> Result<lore_engine::FileOutline, AppError> {
        let name = params::store_name(name)
            .map_err(AppError::BadRequest)?
            .to_string();
        let path = path.to_string();
        self.pool.run(move |e| e.file_outline(&name, &path)).await
    }

    pub async fn store(&self, name: &str) -> Result<StoreStatus, AppError> {
        let name = params::store_name(name)
            .map_err(AppError::BadRequest)?
            .to_string();
        self.pool
            .run(move |e| {
                let summary = e.store_info(&name)?;
                let freshness = e.freshness(&summary.store)?;
                Ok(StoreStatus { summary, freshness })
            })
            .await
    }

    /// Checks and records a job, then queues it on the writer.
    pub async fn submit(&self, spec: JobSpec) -> Result<JobRecord, AppError> {
        let check = !self.holds_lock;
        let job = self
            .pool
            .run(move |e| {
                // Without the lock held for life (stdio), fail now if another process writes.
                if check {
                    e.check_writable()?;
                }
                e.submit_job(&spec)
            })
            .await?;
        if !self.writer.handle().send(Cmd::Job(job.id.clone())) {
            return Err(AppError::Internal("the writer has stopped".into()));
        }
        Ok(job)
    }

    pub async fn add(&self, args: &JsonObject) -> Result<JobRecord, AppError> {
        let policy = SourcePolicy {
            base: self.local_base.as_deref(),
            data_dir: self.data.root(),
        };
        let mut spec = params::add_spec(args, &policy).map_err(AppError::BadRequest)?;
        // Where it would read or fetch from, before a job exists (name lookups block).
        if let JobSpec::Add(add) = &mut spec {
            let (rules, mut checked) = (self.policy.clone(), add.clone());
            *add = tokio::task::spawn_blocking(move || {
                rules.check_add(&mut checked).map(|()| checked)
            })
            .await
            .map_err(|e| AppError::Internal(format!("a worker failed: {e}")))??;
        }
        self.submit(spec).await
    }

    pub async fn index(&self, name: &str, args: &JsonObject) -> Result<JobRecord, AppError> {
        let name = params::store_name(name).map_err(AppError::BadRequest)?;
        let spec = params::index_spec(name, args).map_err(AppError::BadRequest)?;
        self.submit(spec).await
    }

    /// Removes a store through the writer (after any write queued before it).
    pub async fn remove(&self, name: &str) -> Result<StoreRecord, AppError> {
        let name = params::store_name(name)
            .map_err(AppError::BadRequest)?
            .to_string();
        let (store, check) = (name.clone(), !self.holds_lock);
        self.pool
            .run(move |e| {
                e.store_info(&store)?;
                if check {
                    e.check_writable()?;
                }
                Ok(())
            })
            .await?;
        self.write(move |e| e.remove_store(&name)).await
    }

    pub async fn job(&self, id: &str) -> Result<JobRecord, AppError> {
        let id = id.to_string();
        self.pool.run(move |e| e.job(&id)).await
    }

    pub async fn jobs(&self) -> Result<Vec<JobRecord>, AppError> {
        self.pool.run(|e| e.jobs()).await
    }

    pub async fn cancel(&self, id: &str) -> Result<JobRecord, AppError> {
        let id = id.to_string();
        self.pool.run(move |e| e.cancel_job(&id)).await
    }

    /// Renews this server's jobs' heartbeat; fails the jobs of servers that stopped.
    pub async fn heartbeat_jobs(&self) {
        match self.pool.run(|e| e.heartbeat_jobs()).await {
            Ok((_, 0)) => {}
            Ok((_, n)) => tracing::warn!("{n} jobs of a server that stopped answering failed"),
            Err(e) => tracing::warn!("renewing the jobs' heartbeat: {e}"),
        }
    }

    /// Whether the brain is shared with other servers through the catalog (PostgreSQL).
    pub fn shares_brain(&self) -> bool {
        self.data.database().is_some()
    }

    /// With a shared brain: when another server changed it, has the writer bring this
    /// server's brain dir in step (its notes and logs readable here within seconds).
    pub async fn follow_brain(&self) {
        match self.pool.run(|e| e.brain_changed_elsewhere()).await {
            Ok(false) => {}
            Ok(true) => {
                self.writer.handle().send(Cmd::SyncBrain);
            }
            Err(e) => tracing::warn!("checking the shared brain: {e}"),
        }
    }

    /// Deletes finished jobs older than a day.
    pub async fn clean_jobs(&self) {
        match self
            .pool
            .run(|e| e.clean_jobs(Duration::from_secs(24 * 3600)))
            .await
        {
            Ok(0) => {}
            Ok(n) => tracing::info!("deleted {n} finished jobs older than a day"),
            Err(e) => tracing::warn!("cleaning up jobs: {e}"),
        }
    }

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
        let q = params::brain_query(args, self.max_query()).map_err(AppError::BadRequest)?;
        let behind = self.fresh_brain().await;
        let mut answer = self.pool.run(move |e| e.brain_query(&q)).await?;
        if let Some(behind) = behind {
            answer.note = Some(match answer.note.take() {
                Some(note) => format!("{note}; {behind}"),
                None => behind,
            });
        }
        Ok(answer)
    }

    /// Brings the brain up to date with its folder (notes written by hand while nothing
    /// ran, a start-up index still under way) and, when shared, with the other servers'
    /// notes, before it is read: through the writer, in queue order, waiting at most
    /// `BRAIN_FRESH_WAIT`. What could not be done, in words for the answer.
    async fn fresh_brain(&self) -> Option<String> {
        // Most reads find it current: asked on the pool, so they never queue behind a
        // long job on the writer.
        match self.pool.run(|e| e.brain_stale()).await {
            Ok(false) => return None,
            Ok(true) => {}
            Err(e) => {
                return Some(format!(
                    "the brain could not be checked ({e}); this answers from its last index"
                ));
            }
        }
        let refreshed = tokio::time::timeout(
            BRAIN_FRESH_WAIT,
            self.write(|e| e.brain_refresh().map(|_| ())),
        )
        .await;
        match refreshed {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(format!(
                "the brain could not be brought up to date ({e}); this answers from its last index"
            )),
            Err(_) => Some(format!(
                "the brain is still being indexed after {} s; this answers from its last index",
                BRAIN_FRESH_WAIT.as_secs()
            )),
        }
    }

    /// The stores of the project's `lore.toml` (found from the server's working folder
    /// upward) created, updated and indexed, as `lore sync` does.
    pub async fn sync_project(
        &self,
        args: &JsonObject,
    ) -> Result<lore_engine::project::SyncReport, AppError> {
        use lore_engine::project::{Project, SyncOptions};
        let a = params::Args(args);
        let opts = SyncOptions {
            yes: a.boolean("yes").map_err(AppError::BadRequest)?,
            dry_run: a.boolean("dryRun").map_err(AppError::BadRequest)?,
            prune: false,
        };
        let cwd = std::env::current_dir()
            .map_err(|e| AppError::Internal(format!("the server's folder: {e}")))?;
        let path = Project::find(&cwd).ok_or_else(|| {
            AppError::BadRequest(format!(
                "no {} in {} or above it: sync needs the project file (write one with `lore init`)",
                lore_engine::project::PROJECT_FILE,
                cwd.display()
            ))
        })?;
        let project = Project::read(&path)?;
        self.write(move |e| e.sync_project(&project, opts, &lore_engine::NoProgress))
            .await
    }

    /// The judge runs in `<data>/eval/judge/`, oldest first.
    pub async fn judge_runs(&self) -> Result<Vec<lore_eval::runs::RunEntry>, AppError> {
        let dir = lore_eval::runs::default_dir(&self.data);
        blocking(move || Ok(lore_eval::runs::list_runs(&dir)?)).await
    }

    /// One judge run's summary and query lines.
    pub async fn judge_run(&self, name: &str) -> Result<lore_eval::runs::RunLines, AppError> {
        let dir = lore_eval::runs::default_dir(&self.data);
        let name = name.to_string();
        blocking(move || Ok(lore_eval::runs::read_run_lines(&dir, &name)?)).await
    }

    pub async fn brain_files(&self) -> Result<lore_engine::brain::BrainListing, AppError> {
        if let Some(behind) = self.fresh_brain().await {
            tracing::warn!("{behind}");
        }
        self.pool.run(|e| e.brain_files()).await
    }

    pub async fn brain_file(
        &self,
        path: &str,
    ) -> Result<lore_engine::brain::BrainDocument, AppError> {
        let path = path.to_string();
        if let Some(behind) = self.fresh_brain().await {
            tracing::warn!("{behind}");
        }
        self.pool.run(move |e| e.brain_file(&path)).await
    }

    pub async fn brain_write(&self, args: &JsonObject) -> Result<BrainWritten, AppError> {
        let note = params::note(args).map_err(AppError::BadRequest)?;
        self.write(move |e| e.brain_write(&note)).await
    }

    pub async fn brain_ingest_raw(&self, args: &JsonObject) -> Result<BrainIngested, AppError> {
        let req = params::raw_ingest(args).map_err(AppError::BadRequest)?;
        if req.dry_run {
            return self.pool.run(move |e| e.brain_plan_ingest(&req)).await;
        }
        self.write(move |e| e.brain_ingest_raw(&req)).await
    }

    /// Asks the LLM on a blocking thread (so the writer never waits on it), then writes the
    /// pages. `path_only`: the `ingest-path` route, which takes a path and nothing else.
    pub async fn brain_ingest(
        &self,
        args: &JsonObject,
        path_only: bool,
    ) -> Result<BrainIngested, AppError> {
        let mut req = params::ingest_request(args, self.local_base.as_deref())
            .map_err(AppError::BadRequest)?;
        if path_only && (req.path.is_none() || req.content.is_some()) {
            return Err(AppError::BadRequest(
                "this route takes `path` (a file to read); send content with source to /api/brain/ingest"
                    .into(),
            ));
        }
        req.check().map_err(|e| AppError::Engine(e.into()))?;
        if let Some(path) = req.path.take() {
            // The file's real path, where this server may read; named as it was given.
            let real = crate::policy::check_read(&self.policy.reads, &path, "file")?;
            if req.source.as_deref().is_none_or(|s| s.trim().is_empty()) && real != path {
                req.source = path.file_stem().map(|s| s.to_string_lossy().into_owned());
            }
            req.path = Some(real);
        }
        let llm = brain::llm_from_env().map_err(|e| AppError::Engine(e.into()))?;
        if !req.dry_run && !self.holds_lock {
            // Another process may be the writer: say so before the LLM works for nothing.
            self.pool.run(|e| e.check_writable()).await?;
        }
        let (raw, format) = tokio::task::spawn_blocking(move || brain::ingest_pages(&req, &llm))
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
        let entry = params::session_entry(args).map_err(AppError::BadRequest)?;
        self.pool.run(move |e| e.session_log(&entry)).await
    }
}

/// `f` on a blocking thread (file reads that need no engine).
async fn blocking<R: Send + 'static>(
    f: impl FnOnce() -> Result<R, AppError> + Send + 'static,
) -> Result<R, AppError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| AppError::Internal(format!("a worker failed: {e}")))?
}

/// The project whose dependencies a request means: the nearest folder with a lockfile from
/// where the server started, upward.
fn dep_project() -> Result<std::path::PathBuf, AppError> {
    let cwd = std::env::current_dir()
        .map_err(|e| AppError::Internal(format!("the server's folder: {e}")))?;
    lore_engine::deps::find_project(&cwd).ok_or_else(|| {
        AppError::BadRequest(format!(
            "no lockfile in {} or above it, where the server started (looked for {})",
            cwd.display(),
            lore_engine::deps::LOCKFILES.join(", ")
        ))
    })
}
