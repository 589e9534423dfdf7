//! `lore mcp`, `lore serve`, `lore watch` and `lore jobs`: serving agents and tools, and the
//! background jobs they run. The servers live in `lore-server`; this wires options to them.

use crate::cli::{JobsCommand, ServeArgs};
use crate::output::{age, esc, print_json};
use lore_core::DataDir;
use lore_engine::{Engine, EngineError, JobRecord};

/// Logs go to stderr only (stdout carries the MCP protocol for `lore mcp`): `LORE_LOG`
/// filters them (`info`, `lore_engine=debug`), and `LORE_LOG_FORMAT=json` writes one JSON
/// object per line (for a log collector) instead of text.
pub fn init_logs(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("LORE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let json = std::env::var("LORE_LOG_FORMAT").is_ok_and(|f| f.eq_ignore_ascii_case("json"));
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false);
    let _ = if json {
        logs.json().flatten_event(true).try_init()
    } else {
        logs.try_init()
    };
}

/// Keeps the exit code of engine errors (1 input, 2 not found, 3 internal).
fn server_error(e: lore_server::ServerError) -> anyhow::Error {
    match e {
        lore_server::ServerError::Engine(e) => e.into(),
        lore_server::ServerError::Options(msg) => EngineError::Input(msg).into(),
        other => other.into(),
    }
}

/// `lore mcp`.
pub fn mcp(data: DataDir) -> anyhow::Result<()> {
    init_logs("warn");
    lore_server::mcp_stdio(data).map_err(server_error)
}

/// `lore serve`.
pub fn serve(data: DataDir, args: ServeArgs, workers: lore_engine::Workers) -> anyhow::Result<()> {
    init_logs("info,rmcp=warn");
    let mut options = args.options();
    options.workers = workers;
    lore_server::serve(data, options).map_err(server_error)
}

/// `lore watch`.
pub fn watch(data: DataDir, stores: Vec<String>) -> anyhow::Result<()> {
    init_logs("info,rmcp=warn");
    lore_server::watch(data, stores).map_err(server_error)
}

/// `lore jobs`.
pub fn jobs(data: DataDir, json: bool, command: Option<JobsCommand>) -> anyhow::Result<()> {
    crate::settle_stale_writer(&data);
    let engine = Engine::open(data)?;
    match command.unwrap_or_default() {
        JobsCommand::List => print_jobs(json, &engine.jobs()?),
        JobsCommand::Show { id } => print_job(json, &engine.job(&id)?),
        JobsCommand::Cancel { id } => print_job(json, &engine.cancel_job(&id)?),
    }
}

/// What a job works on: the store it adds, or the stores it indexes.
fn target(job: &JobRecord) -> String {
    if let Some(name) = job.spec["name"].as_str() {
        return name.to_string();
    }
    let stores: Vec<&str> = job.spec["stores"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s.as_str()).collect())
        .unwrap_or_default();
    if stores.is_empty() {
        "all stores".into()
    } else {
        stores.join(",")
    }
}

fn progress(job: &JobRecord) -> String {
    let p = &job.progress;
    let mut s = format!("{}/{} files", p.files_done, p.files_total);
    if p.chunks_total > 0 {
        s.push_str(&format!(", {}/{} chunks", p.chunks_done, p.chunks_total));
    }
    s
}

fn print_jobs(json: bool, jobs: &[JobRecord]) -> anyhow::Result<()> {
    if json {
        return print_json(jobs);
    }
    if jobs.is_empty() {
        out!("no jobs (finished jobs are kept for a day)");
    }
    for j in jobs {
        out!(
            "{}  {:<5} {:<9} {:>5} ago  {:<16} {}",
            j.id,
            j.kind,
            j.status.as_str(),
            age(j.created_at),
            esc(&target(j)),
            progress(j)
        );
    }
    Ok(())
}

fn print_job(json: bool, j: &JobRecord) -> anyhow::Result<()> {
    if json {
        return print_json(j);
    }
    out!("id:        {}", j.id);
    out!("kind:      {} ({})", j.kind, esc(&target(j)));
    out!(
        "status:    {}{}",
        j.status.as_str(),
        if j.cancel_requested && !j.status.is_finished() {
            " (cancel requested)"
        } else {
            ""
        }
    );
    out!("progress:  {}", progress(j));
    out!("created:   {} ago", age(j.created_at));
    if let Some(pid) = j.pid {
        out!("pid:       {pid}");
    }
    if let Some(m) = &j.message {
        out!("message:   {}", esc(m));
    }
    if let Some(e) = &j.error {
        out!("error:     {}", esc(e));
    }
    if let Some(r) = &j.result {
        out!("result:    {r}");
    }
    Ok(())
}
