//! The `lore` command line: `cli` turns the flags into the libraries' types, one function
//! per command calls `lore_engine::Engine` (or lore-eval, lore-bench, lore-server), and
//! `output` prints the result. No behaviour lives here that an MCP or REST adapter would need.

/// `println!` for command output: when stdout is closed (`lore search … | head`) the
/// process ends quietly instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            $crate::output::stdout_failed(e);
        }
    }};
}

mod agents;
mod bench;
mod brain;
mod cli;
mod eval;
mod output;
mod progress;
mod serve;

use anyhow::Context as _;
use clap::Parser;
use cli::{Cli, Command, DbCommand, GraphArgs, LocateArgs, ModelCommand, SearchArgs, StoreCommand};
use lore_core::DataDir;
use lore_engine::project::SyncOptions;
use lore_engine::{Engine, EngineError};
use progress::Bars;
use std::path::PathBuf;

/// candle allocates large buffers per operation; mimalloc embeds ~20% faster than glibc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // SAFETY: the first statement of main: the process has no other thread yet.
    unsafe { lore_engine::settle_threads() };
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
    // Any command logs what `LORE_LOG` asks for (`lore_engine=debug`: an index run's
    // phases); a server or a worker logs `info` without it.
    if std::env::var_os("LORE_LOG").is_some() {
        serve::init_logs("warn");
    }
    if let Err(e) = run(cli) {
        let code = match e.downcast_ref::<EngineError>() {
            Some(ee) => ee.kind().code(),
            None => 3,
        };
        eprintln!("error: {}", one_line(&e));
        std::process::exit(code);
    }
}

/// The error and its causes on one line, without repeating a cause the message already holds.
/// A parameter the engine names is named as the flag the user typed.
fn one_line(e: &anyhow::Error) -> String {
    if let Some(EngineError::Param { param, problem }) = e.downcast_ref::<EngineError>() {
        return format!("--{} {problem}", param.name().replace('_', "-"));
    }
    let mut msg = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !msg.contains(&c) {
            msg.push_str(": ");
            msg.push_str(&c);
        }
    }
    // One line, whatever a library's message holds.
    msg.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// What every command gets from the global flags.
struct Ctx {
    data: DataDir,
    /// The defaults of the lore.toml found from the working folder upward.
    settings: lore_engine::project::ProjectSettings,
    json: bool,
    bars: Bars,
    workers: lore_engine::Workers,
}

impl Ctx {
    fn open(&self) -> anyhow::Result<Engine> {
        settle_stale_writer(&self.data);
        let mut engine = Engine::open(self.data.clone())?;
        engine.config_mut().workers = self.workers;
        Ok(engine)
    }
}

/// Settles what a killed `lore serve` or `lore watch` left behind (its `writer.json`, its
/// running jobs) and says so on stderr; a failure to settle is only a warning.
pub(crate) fn settle_stale_writer(data: &DataDir) {
    match lore_engine::settle_stale_writer(data) {
        Ok(None) => {}
        Ok(Some(said)) => eprintln!("warning: {said}"),
        Err(e) => eprintln!("warning: could not settle a stopped writer's jobs: {e}"),
    }
}

/// One function per command; this only dispatches.
fn run(cli: Cli) -> anyhow::Result<()> {
    // A lore.toml that does not parse stops every command but the two that report on it
    // (sync, naming the line) or replace it (init).
    // Its brain_dir is followed only once the file is trusted (`lore trust`).
    let settings = match lore_engine::project::Project::find(&std::env::current_dir()?) {
        None => Default::default(),
        Some(path) => match lore_engine::project::Project::read(&path) {
            Ok(p) => {
                let (settings, warning) = lore_engine::trust::settings(&p);
                // `trust` and `sync` say what the file asks themselves.
                let says = matches!(cli.command, Command::Trust { .. } | Command::Sync { .. });
                if let Some(w) = warning.filter(|_| !says) {
                    eprintln!("warning: {w}");
                }
                settings
            }
            Err(_)
                if matches!(
                    cli.command,
                    Command::Sync { .. } | Command::Init { .. } | Command::Trust { .. }
                ) =>
            {
                Default::default()
            }
            Err(e) => return Err(e.into()),
        },
    };
    // Under `lore serve`, a project's brain dir must lie under an --allow-path.
    if let (Command::Serve(args), Some(brain), None) =
        (&cli.command, &settings.brain_dir, &cli.brain_dir)
    {
        lore_engine::trust::serve_brain(brain, &args.allow_paths)?;
    }
    let data = cli.data(settings.brain_dir.as_deref())?;
    if let Some(dir) = data.passed_over()
        && !matches!(cli.command, Command::Trust { .. })
    {
        eprintln!(
            "warning: {} is a data dir you have not trusted (a cloned repository may carry \
             one), so lore uses {}; run `lore trust {}` to use it",
            dir.display(),
            data.root().display(),
            dir.display()
        );
    }
    let ctx = Ctx {
        data,
        settings,
        json: cli.json,
        bars: Bars::new(cli.quiet || cli.json),
        workers: cli.workers,
    };
    match cli.command {
        Command::Store { command } => store(&ctx, command),
        Command::Index {
            stores,
            full,
            reembed,
            embed,
        } => index(&ctx, &stores, full, reembed, embed),
        Command::Sync {
            stores,
            project,
            no_project,
            yes,
            dry_run,
            prune,
        } => {
            let found = match project {
                Some(p) => Some(p),
                None if no_project => None,
                None => lore_engine::project::Project::find(&std::env::current_dir()?),
            };
            match found {
                Some(path) => sync_project(
                    &ctx,
                    &path,
                    &stores,
                    SyncOptions {
                        yes,
                        dry_run,
                        prune,
                    },
                ),
                None if yes || dry_run || prune => Err(lore_engine::EngineError::Input(
                    "--yes, --dry-run and --prune are for a lore.toml, and none was found from here upward \
                     (write one with `lore init`)"
                        .into(),
                )
                .into()),
                None => sync(&ctx, &stores),
            }
        }
        Command::Init { project, force } => init(&ctx, project, force),
        Command::Trust { project, revoke } => trust(&ctx, project, revoke),
        Command::Doctor { store, deep } => doctor(&ctx, store.as_deref(), deep),
        Command::Search(args) => search(&ctx, args),
        Command::Locate(args) => locate(&ctx, args),
        Command::Context { id } => context(&ctx, &id),
        Command::Graph(args) => graph(&ctx, args),
        Command::Grep(args) => output::grep(ctx.json, &ctx.open()?.grep(&args.request())?),
        Command::Impact(args) => output::impact(ctx.json, &ctx.open()?.impact(&args.request()?)?),
        Command::Patterns { stores, limit } => {
            let engine = ctx.open()?;
            let names = if stores.is_empty() {
                engine.stores()?.into_iter().map(|s| s.store.name).collect()
            } else {
                stores
            };
            let lists = names
                .iter()
                .map(|n| engine.patterns(n, limit))
                .collect::<Result<Vec<_>, _>>()?;
            output::patterns(ctx.json, &lists)
        }
        Command::Map { store, tokens } => {
            let map = ctx.open()?.map(&store, tokens)?;
            if ctx.json {
                output::print_json(&map)
            } else {
                print!("{}", map.text);
                Ok(())
            }
        }
        Command::Unreached { store, exported } => {
            output::unreached(ctx.json, &ctx.open()?.unreached(&store, exported)?)
        }
        Command::Brain { command } => brain::run(&mut ctx.open()?, ctx.json, command),
        Command::Model { command } => model(&ctx, command),
        Command::Eval { command } => eval::run(&mut ctx.open()?, command, ctx.json, &ctx.bars),
        Command::Bench(args) => bench::run(&mut ctx.open()?, args, ctx.json, &ctx.bars),
        Command::Mcp { command: None } => serve::mcp(ctx.data),
        Command::Mcp {
            command:
                Some(cli::McpCommand::Install {
                    client,
                    http,
                    token_env,
                    project,
                    print,
                }),
        } => mcp_install(&ctx, client, http, token_env, project, print),
        Command::Serve(args) => serve::serve(ctx.data, args, ctx.workers),
        Command::Worker { lease, until_idle } => worker(&ctx, lease, until_idle),
        Command::Feedback { target, arg, query } => feedback(&ctx, &target, arg, query),
        Command::Deps {
            command,
            project,
            lockfile,
            all,
            direct: _,
            embed,
            dry_run,
            fetch,
        } => match command {
            Some(cli::DepsCommand::Gc { dry_run }) => deps_gc(&ctx, dry_run),
            Some(cli::DepsCommand::Info { name }) => {
                let project = dep_project(project)?;
                let info = ctx.open()?.dependency_info(&project, &name)?;
                if ctx.json {
                    return output::print_json(&info);
                }
                for d in &info {
                    let at = d
                        .source
                        .as_ref()
                        .map_or("not on this machine".to_string(), |p| {
                            p.display().to_string()
                        });
                    let indexed = if d.indexed {
                        "indexed"
                    } else {
                        "not indexed (lore deps)"
                    };
                    out!(
                        "{} {} ({}, {}{}): {indexed}; source {at}",
                        d.dependency.name,
                        d.dependency.version,
                        d.dependency.ecosystem.as_str(),
                        d.dependency.lockfile,
                        if d.dependency.direct { ", direct" } else { "" }
                    );
                }
                Ok(())
            }
            None => deps(
                &ctx,
                project,
                &lore_engine::deps::DepsOptions {
                    lockfile,
                    all,
                    embed,
                    dry_run,
                    fetch,
                },
            ),
        },
        Command::Watch { stores } => serve::watch(ctx.data, stores),
        Command::Jobs { command } => serve::jobs(ctx.data, ctx.json, command),
        Command::Db { command } => db(&ctx, command),
    }
}

/// `lore worker`: batches of any store's index runs, until Ctrl-C (or none is left).
fn worker(ctx: &Ctx, lease: i64, until_idle: bool) -> anyhow::Result<()> {
    if lease < 1 {
        anyhow::bail!("--lease must be at least 1 second");
    }
    // Claims, completions, give-backs, lost leases, retries and outages, one line each
    // (`LORE_LOG_FORMAT=json` for JSON lines).
    serve::init_logs("info");
    let mut engine = ctx.open()?;
    // Ctrl-C ends the process: the batch in hand goes to another worker once its lease
    // runs out, and its files are committed whole or not at all.
    let report = engine.run_worker(lease, until_idle, &|| false, &ctx.bars)?;
    ctx.bars.clear();
    output::worker_report(ctx.json, &report)
}

/// Reads (status) or migrates the schema without opening an engine; copies stores in or
/// out of PostgreSQL.
fn db(ctx: &Ctx, command: DbCommand) -> anyhow::Result<()> {
    let other =
        |dir: Option<PathBuf>| dir.map_or_else(|| DataDir::new(ctx.data.root()), DataDir::new);
    let copied = match command {
        DbCommand::Status => {
            return output::db_status(ctx.json, &lore_engine::db_status(&ctx.data)?);
        }
        DbCommand::Migrate => {
            return output::db_status(ctx.json, &lore_engine::db_migrate(&ctx.data)?);
        }
        DbCommand::Reindex => {
            ctx.open()?.reindex_catalog()?;
            return output::done(ctx.json, "the catalog's indexes were rebuilt");
        }
        DbCommand::Import { from } => ctx.open()?.db_import(&other(from), &ctx.bars)?,
        DbCommand::Export { to } => ctx.open()?.db_export(&other(to), &ctx.bars)?,
    };
    ctx.bars.clear();
    output::stores_copied(ctx.json, &copied)
}

fn store(ctx: &Ctx, command: StoreCommand) -> anyhow::Result<()> {
    let mut engine = ctx.open()?;
    match command {
        StoreCommand::Add(args) => {
            let (store, report, existed) = engine.add_or_index(&args.store()?, &ctx.bars)?;
            ctx.bars.clear();
            output::store_added(ctx.json, &store, &report, existed)
        }
        StoreCommand::List => output::store_list(ctx.json, &engine.stores()?),
        StoreCommand::Info { name } => output::store_info(ctx.json, &engine.store_info(&name)?),
        StoreCommand::Remove { name } => {
            output::store_removed(ctx.json, &engine.remove_store(&name)?)
        }
    }
}

fn index(
    ctx: &Ctx,
    stores: &[String],
    full: bool,
    reembed: bool,
    embed: bool,
) -> anyhow::Result<()> {
    let mut engine = ctx.open()?;
    let reports = if reembed {
        engine.reembed(stores, &ctx.bars)?
    } else if embed {
        engine.embed_stores(stores, &ctx.bars)?
    } else {
        engine.index(stores, full, &ctx.bars)?
    };
    ctx.bars.clear();
    output::index_reports(ctx.json, &reports)
}

fn sync(ctx: &Ctx, stores: &[String]) -> anyhow::Result<()> {
    let mut engine = ctx.open()?;
    let reports = engine.sync(stores, &ctx.bars)?;
    ctx.bars.clear();
    output::index_reports(ctx.json, &reports)
}

/// `lore sync` from a project file: plan, then (unless a dry run) do it.
fn sync_project(
    ctx: &Ctx,
    path: &std::path::Path,
    stores: &[String],
    opts: SyncOptions,
) -> anyhow::Result<()> {
    use lore_engine::project::Project;
    if !stores.is_empty() {
        return Err(lore_engine::EngineError::Input(format!(
            "{} names the stores to sync; give no store names (or --no-project to sync \
             only some of the data dir's stores)",
            path.display()
        ))
        .into());
    }
    let project = Project::read(path)?;
    let mut engine = ctx.open()?;
    // In a terminal, a replacement is confirmed here (no changes nothing, and is no
    // error); elsewhere it needs --yes.
    let mut opts = opts;
    if !opts.yes
        && !opts.dry_run
        && !ctx.json
        && std::io::IsTerminal::is_terminal(&std::io::stdin())
    {
        let replaced: Vec<String> = engine
            .sync_plan(&project)?
            .into_iter()
            .filter(|s| s.action == lore_engine::project::SyncAction::Replace)
            .map(|s| format!("{} ({})", s.store, s.changes.join("; ")))
            .collect();
        if !replaced.is_empty() {
            eprint!(
                "replace {} and rebuild the index? [y/N] ",
                replaced.join(", ")
            );
            let mut answer = String::new();
            std::io::stdin().read_line(&mut answer)?;
            if !matches!(answer.trim(), "y" | "Y" | "yes") {
                eprintln!("nothing was changed");
                return Ok(());
            }
            opts.yes = true;
        }
    }
    let report = engine.sync_project(&project, opts, &ctx.bars)?;
    ctx.bars.clear();
    output::sync_report(ctx.json, &report)
}

/// `lore init`: a lore.toml from the stores there are; never over an existing one unless
/// --force, and written whole or not at all.
/// `lore mcp install`: lore registered with an agent client (or the registration printed).
fn mcp_install(
    ctx: &Ctx,
    client: agents::Client,
    http: Option<String>,
    token_env: Option<String>,
    project: Option<PathBuf>,
    print: bool,
) -> anyhow::Result<()> {
    let transport = match http {
        Some(url) => agents::Transport::Http { url, token_env },
        None => {
            let exe = std::env::current_exe().context("where lore itself is")?;
            agents::Transport::Stdio {
                exe: exe.to_string_lossy().into_owned(),
            }
        }
    };
    let project = match project {
        Some(p) => p,
        None => std::env::current_dir()?,
    };
    let path = agents::config_path(client, &project)?;
    if print {
        let text = agents::registered(client, &transport, None)?;
        if ctx.json {
            return output::print_json(&serde_json::json!({"path": path, "text": text}));
        }
        out!("# {}\n{}", path.display(), text.trim_end());
        return Ok(());
    }
    let existing = match std::fs::read_to_string(&path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => anyhow::bail!("cannot read {}: {e}", path.display()),
    };
    let text = agents::registered(client, &transport, existing.as_deref())
        .map_err(|e| lore_engine::EngineError::Input(format!("{}: {e:#}", path.display())))?;
    agents::write_whole(&path, &text)?;
    if ctx.json {
        return output::print_json(&serde_json::json!({"path": path, "written": true}));
    }
    out!(
        "registered lore in {}; restart the client (or reload its MCP servers) to use it",
        path.display()
    );
    Ok(())
}

/// `lore trust`: records (or, with `revoke`, forgets) the project file as trusted as it is
/// now, after saying what it asks for.
fn trust(ctx: &Ctx, project: Option<PathBuf>, revoke: bool) -> anyhow::Result<()> {
    use lore_engine::project::Project;
    let is_data_dir = |p: &PathBuf| p.file_name() == Some(std::ffi::OsStr::new(".lore"));
    let path = match project {
        Some(p) if p.is_dir() && !is_data_dir(&p) => p.join(lore_engine::project::PROJECT_FILE),
        Some(p) => p,
        None => Project::find(&std::env::current_dir()?).ok_or_else(|| {
            lore_engine::EngineError::Input(format!(
                "no {} here or above; give the file to trust",
                lore_engine::project::PROJECT_FILE
            ))
        })?,
    };
    if is_data_dir(&path) && path.is_dir() {
        let real = lore_engine::trust::trust_data_dir(&path, revoke)?;
        let verb = if revoke { "no longer uses" } else { "uses" };
        if ctx.json {
            return output::print_json(&serde_json::json!({"data_dir": real, "trusted": !revoke}));
        }
        out!(
            "lore {verb} {} as the data dir of commands run below its folder",
            real.display()
        );
        return Ok(());
    }
    let project = Project::read(&path)?;
    let report = if revoke {
        lore_engine::trust::revoke(&project)?
    } else {
        lore_engine::trust::trust(&project)?
    };
    output::trust_report(ctx.json, &report)
}

fn init(ctx: &Ctx, project: Option<PathBuf>, force: bool) -> anyhow::Result<()> {
    let path = match project {
        Some(p) => p,
        None => std::env::current_dir()?.join(lore_engine::project::PROJECT_FILE),
    };
    if path.exists() && !force {
        return Err(lore_engine::EngineError::Input(format!(
            "{} exists; edit it, or pass --force to write it again from the stores there are",
            path.display()
        ))
        .into());
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let (text, left_out) = ctx.open()?.project_toml(dir)?;
    // A new file (never one that exists, nor a symlink a checkout placed there), renamed
    // over the target.
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        lore_engine::project::PROJECT_FILE,
        std::process::id()
    ));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
        .and_then(|_| std::fs::rename(&tmp, &path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            anyhow::anyhow!("cannot write {}: {e}", path.display())
        })?;
    // The user wrote it from their own stores: it is trusted as written.
    lore_engine::trust::trust(&lore_engine::project::Project::read(&path)?)?;
    if ctx.json {
        return output::print_json(
            &serde_json::json!({"path": path, "stores": text.matches("[stores.").count(), "left_out": left_out}),
        );
    }
    out!(
        "wrote {} ({} stores); commit it, and `lore sync` recreates them anywhere",
        path.display(),
        text.matches("\n[stores.").count()
    );
    if !left_out.is_empty() {
        out!(
            "left out (not under {}): {}; add them by hand if the project needs them",
            dir.display(),
            left_out.join(", ")
        );
    }
    Ok(())
}

/// Reads only: the data dir is not opened for writing (nor created).
fn doctor(ctx: &Ctx, store: Option<&str>, deep: bool) -> anyhow::Result<()> {
    settle_stale_writer(&ctx.data);
    let report = lore_engine::doctor(&ctx.data, store, deep)?;
    output::doctor(ctx.json, &report)?;
    if !report.healthy {
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        std::process::exit(1);
    }
    Ok(())
}

fn search(ctx: &Ctx, args: SearchArgs) -> anyhow::Result<()> {
    let deps = args.deps;
    let all = args.scope.all;
    let engine = ctx.open()?;
    let mut req = args.request(&ctx.settings);
    // With --deps alone, the dependencies are the scope; inside a project, with its stores.
    let mut scope = engine.project_scope(ctx.settings.project.as_ref(), &mut req.stores, all);
    if deps {
        let project = dep_project(None)?;
        let stores = engine.project_dep_stores(&project)?;
        if stores.is_empty() {
            return Err(EngineError::Input(format!(
                "no dependency of {} is indexed yet: run `lore deps` there first",
                project.display()
            ))
            .into());
        }
        req.stores.extend(stores);
        scope = scope.map(|s| format!("{s}; and the project's dependencies (--deps)"));
    }
    let mut resp = engine.search(&req)?;
    resp.scope = scope;
    output::search(ctx.json, &resp)
}

/// `lore feedback ID useful|not-useful`, `list [STORE]`, `reset [STORE]`.
fn feedback(
    ctx: &Ctx,
    target: &str,
    arg: Option<String>,
    query: Option<String>,
) -> anyhow::Result<()> {
    let engine = ctx.open()?;
    match target {
        "list" => {
            let rows = engine.feedback_list(arg.as_deref(), 200)?;
            if ctx.json {
                return output::print_json(&rows);
            }
            if rows.is_empty() {
                out!("no feedback recorded");
            }
            for r in &rows {
                let shown = r
                    .shown_rank
                    .map_or(String::new(), |n| format!(" (shown #{n})"));
                out!(
                    "{:016x}  {:<10} {:+.2}  {}  {}{shown}",
                    r.chunk_id,
                    r.kind,
                    r.weight,
                    r.client,
                    r.terms
                );
            }
            Ok(())
        }
        "on" | "off" => {
            let Some(store) = arg else {
                return Err(EngineError::Input(format!(
                    "say which store: lore feedback {target} STORE"
                ))
                .into());
            };
            let s = engine.set_feedback(&store, target == "on")?;
            if ctx.json {
                return output::print_json(
                    &serde_json::json!({ "store": s.name, "feedback": s.feedback }),
                );
            }
            out!(
                "feedback is {} for store {}",
                if s.feedback { "on" } else { "off" },
                s.name
            );
            Ok(())
        }
        "reset" => {
            let n = engine.feedback_reset(arg.as_deref())?;
            if ctx.json {
                return output::print_json(&serde_json::json!({ "removed": n }));
            }
            out!("forgot {n} feedback signals");
            Ok(())
        }
        id => {
            let useful = match arg.as_deref() {
                Some("useful") => true,
                Some("not-useful" | "not_useful") => false,
                other => {
                    return Err(EngineError::Input(format!(
                        "after the result id say useful or not-useful (got {})",
                        other.map_or("nothing".to_string(), |o| format!("{o:?}"))
                    ))
                    .into());
                }
            };
            let done = engine.feedback(&lore_engine::feedback::FeedbackRequest {
                result_id: id.to_string(),
                useful,
                query,
                client: "cli".into(),
            })?;
            if ctx.json {
                return output::print_json(&done);
            }
            out!("recorded {} on {} in {}", done.kind, done.id, done.store);
            Ok(())
        }
    }
}

/// The project whose dependencies are meant: `dir`, else the nearest folder from here
/// upward that has a lockfile.
fn dep_project(dir: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    let cwd = std::env::current_dir()?;
    match dir {
        Some(d) => Ok(d),
        None => lore_engine::deps::find_project(&cwd).ok_or_else(|| {
            EngineError::Input(format!(
                "no lockfile in {} or above it (looked for {}); give --project DIR",
                cwd.display(),
                lore_engine::deps::LOCKFILES.join(", ")
            ))
            .into()
        }),
    }
}

fn deps(
    ctx: &Ctx,
    project: Option<PathBuf>,
    opts: &lore_engine::deps::DepsOptions,
) -> anyhow::Result<()> {
    let project = dep_project(project)?;
    let mut engine = ctx.open()?;
    let report = engine.deps(&project, opts, &ctx.bars)?;
    ctx.bars.clear();
    output::deps_report(ctx.json, &report)
}

fn deps_gc(ctx: &Ctx, dry_run: bool) -> anyhow::Result<()> {
    let removed = ctx.open()?.deps_gc(dry_run)?;
    if ctx.json {
        return output::print_json(&serde_json::json!({"dry_run": dry_run, "stores": removed}));
    }
    let verb = if dry_run { "would remove" } else { "removed" };
    out!("{verb} {} dependency stores no project uses", removed.len());
    for s in &removed {
        out!("  {s}");
    }
    Ok(())
}

fn locate(ctx: &Ctx, args: LocateArgs) -> anyhow::Result<()> {
    let all = args.scope.all;
    let mut req = args.request(&ctx.settings)?;
    let engine = ctx.open()?;
    engine.project_scope(ctx.settings.project.as_ref(), &mut req.stores, all);
    output::locate(ctx.json, &engine.locate(&req)?)
}

fn context(ctx: &Ctx, id: &str) -> anyhow::Result<()> {
    output::context(ctx.json, &ctx.open()?.context(id)?)
}

fn graph(ctx: &Ctx, args: GraphArgs) -> anyhow::Result<()> {
    output::graph(ctx.json, &ctx.open()?.graph(&args.query())?)
}

fn model(ctx: &Ctx, command: ModelCommand) -> anyhow::Result<()> {
    let engine = ctx.open()?;
    match command {
        ModelCommand::Fetch => {
            let dir = engine.fetch_model(&ctx.bars)?;
            ctx.bars.clear();
            output::model_fetched(ctx.json, &dir)
        }
        ModelCommand::Info => output::model_info(ctx.json, &engine.model_dir()),
    }
}
