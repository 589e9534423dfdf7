//! The `lore` command line: parses arguments, calls `lore_engine::Engine`, prints results.
//! No behaviour lives here that an MCP or REST adapter would need.

/// `println!` for command output: when stdout is closed (`lore search … | head`) the
/// process ends quietly instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            $crate::stdout_failed(e);
        }
    }};
}

mod brain;
mod cli;
mod output;
mod progress;
mod serve;

use clap::Parser;
use cli::{Cli, Command, ModelCommand, StoreCommand};
use lore_core::{DataDir, StoreKind};
use lore_engine::{
    AddStore, Detail, Direction, Engine, EngineError, GraphQuery, Intent, Mode, SearchRequest,
};
use progress::Bars;

/// candle allocates large buffers per operation; mimalloc embeds ~20% faster than glibc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => 0,
                _ => 1,
            };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    if let Err(e) = run(cli) {
        let code = match e.downcast_ref::<EngineError>() {
            Some(ee) => ee.kind().code(),
            None => 3,
        };
        eprintln!("error: {}", one_line(&e));
        std::process::exit(code);
    }
}

/// Output could not be written: a closed pipe is the reader's choice, anything else an error.
fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: cannot write to stdout: {e}");
    std::process::exit(3);
}

/// The error and its causes on one line, without repeating a cause the message already holds.
fn one_line(e: &anyhow::Error) -> String {
    let mut msg = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !msg.contains(&c) {
            msg.push_str(": ");
            msg.push_str(&c);
        }
    }
    msg
}

fn open(cli: &Cli) -> anyhow::Result<Engine> {
    let cwd = std::env::current_dir()?;
    let data = DataDir::resolve(cli.data_dir.as_deref(), &cwd)
        .with_brain_dir(cli.brain_dir.as_deref(), &cwd);
    Ok(Engine::open(data)?)
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let json = cli.json;
    let bars = Bars::new(cli.quiet || json);
    match &cli.command {
        Command::Store { command } => {
            let mut engine = open(&cli)?;
            match command {
                StoreCommand::Add(a) => {
                    let req = AddStore {
                        name: a.name.clone(),
                        source: a.source.clone(),
                        kind: a.r#type.map(|t| match t {
                            cli::StoreType::Folder => StoreKind::Folder,
                            cli::StoreType::Repo => StoreKind::Repo,
                            cli::StoreType::Web => StoreKind::Web,
                        }),
                        branch: a.branch.clone(),
                        includes: a.include.clone(),
                        excludes: a.exclude.clone(),
                        description: a.description.clone(),
                        max_file_bytes: a.max_file_size,
                        max_pages: a.max_pages,
                        max_depth: a.max_depth,
                    };
                    let (store, report) = engine.add_store(&req, &bars)?;
                    bars.clear();
                    output::store_added(json, &store, &report)?;
                }
                StoreCommand::List => output::store_list(json, &engine.stores()?)?,
                StoreCommand::Info { name } => output::store_info(json, &engine.store_info(name)?)?,
                StoreCommand::Remove { name } => {
                    let removed = engine.remove_store(name)?;
                    output::store_removed(json, &removed)?;
                }
            }
        }
        Command::Index { stores, full } => {
            let mut engine = open(&cli)?;
            let reports = engine.index(stores, *full, &bars)?;
            bars.clear();
            output::index_reports(json, &reports)?;
        }
        Command::Sync { stores } => {
            let mut engine = open(&cli)?;
            let reports = engine.sync(stores, &bars)?;
            bars.clear();
            output::index_reports(json, &reports)?;
        }
        Command::Search(s) => {
            let engine = open(&cli)?;
            let req = SearchRequest {
                query: s.query.clone(),
                stores: s
                    .stores
                    .iter()
                    .flat_map(|v| v.split(','))
                    .map(str::trim)
                    .filter(|v| !v.is_empty())
                    .map(String::from)
                    .collect(),
                mode: match s.mode {
                    cli::ModeArg::Hybrid => Mode::Hybrid,
                    cli::ModeArg::Vector => Mode::Vector,
                    cli::ModeArg::Fts => Mode::Fts,
                },
                limit: s.limit,
                threshold: s.threshold,
                per_file: s.per_file,
                freshness: true,
                priors: true,
                detail: match s.detail {
                    cli::DetailArg::Minimal => Detail::Minimal,
                    cli::DetailArg::Contextual => Detail::Contextual,
                    cli::DetailArg::Full => Detail::Full,
                },
                intent: s.intent.map(|i| match i {
                    cli::IntentArg::FindDefinition => Intent::FindDefinition,
                    cli::IntentArg::FindImplementation => Intent::FindImplementation,
                    cli::IntentArg::FindUsage => Intent::FindUsage,
                    cli::IntentArg::FindPattern => Intent::FindPattern,
                    cli::IntentArg::FindDocumentation => Intent::FindDocumentation,
                }),
            };
            let resp = engine.search(&req)?;
            output::search(json, &resp)?;
        }
        Command::Context { id } => {
            let engine = open(&cli)?;
            output::context(json, &engine.context(id)?)?;
        }
        Command::Graph {
            direction,
            symbol,
            stores,
        } => {
            let engine = open(&cli)?;
            let q = GraphQuery {
                symbol: symbol.clone(),
                direction: match direction {
                    cli::DirectionArg::Callers => Direction::Callers,
                    cli::DirectionArg::Callees => Direction::Callees,
                    cli::DirectionArg::Definition => Direction::Definition,
                },
                stores: stores.clone(),
            };
            output::graph(json, &engine.graph(&q)?)?;
        }
        Command::Brain { command } => {
            let mut engine = open(&cli)?;
            brain::run(&cli, &mut engine, command)?;
        }
        Command::Model { command } => {
            let engine = open(&cli)?;
            match command {
                ModelCommand::Fetch => {
                    let dir = engine.fetch_model(&bars)?;
                    bars.clear();
                    output::model_fetched(json, &dir)?;
                }
                ModelCommand::Info => output::model_info(json, &engine.model_dir())?,
            }
        }
        Command::Eval { command } => {
            let mut engine = open(&cli)?;
            lore_eval::cli::run(&mut engine, command, json, &bars)?;
        }
        Command::Mcp | Command::Serve(_) | Command::Watch { .. } | Command::Jobs { .. } => {
            serve::run(&cli)?
        }
        Command::Bench(args) => {
            let mut engine = open(&cli)?;
            lore_eval::bench::run(&mut engine, args, json, &bars)?;
        }
    }
    Ok(())
}
