//! `lore mcp`, `lore serve`, `lore watch` and `lore jobs`: serving agents and tools, and the
//! background jobs they run. The servers live in `lore-server`; this wires options to them.

use crate::cli::{Cli, Command};
use clap::{Args, Subcommand};
use lore_core::DataDir;
use lore_engine::{Engine, EngineError, JobRecord};
use std::net::SocketAddr;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on. Anything but loopback needs a token.
    #[arg(long, default_value = lore_server::DEFAULT_ADDR)]
    pub addr: SocketAddr,
    /// Bearer token required on every route but /health (prefer the environment variable:
    /// command lines are visible to other users).
    #[arg(long, env = "LORE_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Do not watch folder stores and the brain for changes.
    #[arg(long)]
    pub no_watch: bool,
}

#[derive(Subcommand, Debug)]
pub enum JobsCommand {
    /// Recent jobs, newest first (the default).
    List,
    /// One job in full.
    Show { id: String },
    /// Stop a job: pending jobs never start, running ones stop at the next file.
    Cancel { id: String },
}

fn data_dir(cli: &Cli) -> anyhow::Result<DataDir> {
    let cwd = std::env::current_dir()?;
    Ok(DataDir::resolve(cli.data_dir.as_deref(), &cwd)
        .with_brain_dir(cli.brain_dir.as_deref(), &cwd))
}

/// Logs go to stderr only (stdout carries the MCP protocol for `lore mcp`).
fn init_logs(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("LORE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false)
        .try_init();
}

/// Keeps the exit code of engine errors (1 input, 2 not found, 3 internal).
fn server_error(e: lore_server::ServerError) -> anyhow::Error {
    match e {
        lore_server::ServerError::Engine(e) => e.into(),
        lore_server::ServerError::Options(msg) => EngineError::Input(msg).into(),
        other => other.into(),
    }
}

pub fn run(cli: &Cli) -> anyhow::Result<()> {
    let data = data_dir(cli)?;
    match &cli.command {
        Command::Mcp => {
            init_logs("warn");
            lore_server::mcp_stdio(data).map_err(server_error)
        }
        Command::Serve(a) => {
            init_logs("info,rmcp=warn");
            let opts = lore_server::ServeOptions {
                addr: a.addr,
                token: a.token.clone(),
                watch: !a.no_watch,
            };
            lore_server::serve(data, opts).map_err(server_error)
        }
        Command::Watch { stores } => {
            init_logs("info,rmcp=warn");
            lore_server::watch(data, stores.clone()).map_err(server_error)
        }
        Command::Jobs { command } => {
            let engine = Engine::open(data)?;
            match command.as_ref().unwrap_or(&JobsCommand::List) {
                JobsCommand::List => print_jobs(cli.json, &engine.jobs()?),
                JobsCommand::Show { id } => print_job(cli.json, &engine.job(id)?),
                JobsCommand::Cancel { id } => print_job(cli.json, &engine.cancel_job(id)?),
            }
        }
        _ => unreachable!("serve::run handles serving commands only"),
    }
}

fn age(ts: i64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(ts);
    match (now - ts).max(0) {
        s @ 0..=59 => format!("{s}s"),
        s @ 60..=3599 => format!("{}m", s / 60),
        s @ 3600..=86399 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86400),
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
        out!("{}", serde_json::to_string_pretty(jobs)?);
        return Ok(());
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
            target(j),
            progress(j)
        );
    }
    Ok(())
}

fn print_job(json: bool, j: &JobRecord) -> anyhow::Result<()> {
    if json {
        out!("{}", serde_json::to_string_pretty(j)?);
        return Ok(());
    }
    out!("id:        {}", j.id);
    out!("kind:      {} ({})", j.kind, target(j));
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
        out!("message:   {m}");
    }
    if let Some(e) = &j.error {
        out!("error:     {e}");
    }
    if let Some(r) = &j.result {
        out!("result:    {r}");
    }
    Ok(())
}
