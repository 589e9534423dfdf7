//! Every flag of `lore`, by concept. clap lives here and only here: each command's flags
//! become the libraries' plain types (engine enums and requests, eval and bench options),
//! and the command modules import this one, never the reverse.

mod brain;
mod eval;
mod search;
mod serve;
mod store;

pub use brain::BrainCommand;
pub use eval::{
    BenchArgs, CompareArgs, EvalCommand, EvalLocateArgs, FeedbackArgs, IntentsArgs, JudgeArgs,
    LabeledArgs, RunsArgs,
};
pub use search::{GraphArgs, GrepArgs, ImpactArgs, LocateArgs, SearchArgs};
pub use serve::{JobsCommand, ServeArgs};
pub use store::{ModelCommand, StoreCommand};

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand};
use lore_core::{DataDir, StoreKind};
use lore_engine::{Detail, Direction, Intent, Mode, Workers};
use std::ffi::OsStr;
use std::path::PathBuf;

/// lore: a local knowledge engine for AI agents. Index folders and git repos, then search
/// them with hybrid BM25 + vector search.
#[derive(Parser, Debug)]
#[command(name = "lore", version, propagate_version = true)]
pub struct Cli {
    /// Data dir (default: $LORE_DATA_DIR, else a .lore/ found upward, else the XDG data dir).
    #[arg(long, global = true, env = "LORE_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Brain dir (default: $LORE_BRAIN_DIR, else brain/ in the data dir).
    #[arg(long, global = true, env = "LORE_BRAIN_DIR", value_name = "DIR")]
    pub brain_dir: Option<PathBuf>,
    /// Keep the catalog, BM25 and vectors in PostgreSQL (with pgvector) instead of the data
    /// dir: postgres://USER:PASSWORD@HOST:PORT/DB[?sslmode=require]. Several machines can
    /// then share one index. Default: $LORE_DATABASE_URL, else the embedded SQLite catalog.
    #[arg(
        long,
        global = true,
        env = "LORE_DATABASE_URL",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub database: Option<String>,
    /// On PostgreSQL, how index runs share their files with `lore worker`s on any
    /// machine: none (this process indexes alone), share (batches that this process and
    /// workers claim), only (batches for workers; this process plans and waits).
    #[arg(long, global = true, env = "LORE_WORKERS", value_name = "HOW", default_value = "none", value_parser = workers())]
    pub workers: Workers,
    /// Print JSON (for scripts) instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// No progress bars.
    #[arg(long, short, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The data dir and brain dir the flags (or the environment, or the folders above the
    /// current one) name.
    /// A project's `brain_dir` counts when neither the flag nor `LORE_BRAIN_DIR` says.
    pub fn data(&self, project_brain: Option<&std::path::Path>) -> std::io::Result<DataDir> {
        let cwd = std::env::current_dir()?;
        let env_brain = std::env::var_os("LORE_BRAIN_DIR").is_some_and(|v| !v.is_empty());
        let brain = match (self.brain_dir.as_deref(), env_brain) {
            (None, false) => project_brain,
            (flag, _) => flag,
        };
        Ok(DataDir::resolve(self.data_dir.as_deref(), &cwd)
            .with_brain_dir(brain, &cwd)
            .with_database(self.database.as_deref()))
    }
}

#[derive(Subcommand, Debug)]
pub enum McpCommand {
    /// Register lore with an agent client, in the file and shape it reads (an existing file
    /// keeps its other entries): stdio by default (the client runs `lore mcp` in the
    /// project), or a running `lore serve` with --http.
    Install {
        #[arg(long, value_enum)]
        client: crate::agents::Client,
        /// A `lore serve`'s MCP endpoint (`http://HOST:PORT/mcp`) instead of stdio.
        #[arg(long, value_name = "URL")]
        http: Option<String>,
        /// With --http: the environment variable the client reads the bearer token from
        /// (the token itself is never written).
        #[arg(long, value_name = "VAR", requires = "http")]
        token_env: Option<String>,
        /// The project whose client file is written (default: the current folder).
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        /// Print the registration instead of writing it.
        #[arg(long)]
        print: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum DepsCommand {
    /// Which version of NAME this project locks, whether it is indexed, and where its
    /// source is.
    Info { name: String },
    /// Remove the dependency stores no project uses any more.
    Gc {
        /// Name them; remove nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Add, list, inspect and remove stores.
    Store {
        #[command(subcommand)]
        command: StoreCommand,
    },
    /// Re-index stores (incremental unless --full).
    Index {
        /// Stores to index (default: all).
        stores: Vec<String>,
        /// Rebuild from scratch instead of only changed files.
        #[arg(long)]
        full: bool,
        /// Drop the stores' vectors and embed them again (in full) with this lore's
        /// embedder: after switching models (`LORE_EMBED_URL`, or back to the built-in one).
        #[arg(long)]
        reembed: bool,
        /// Embed stores added with `--embed none` from now on.
        #[arg(long, conflicts_with = "reembed")]
        embed: bool,
    },
    /// With a lore.toml (found from here upward): create its missing stores, update
    /// changed definitions, replace a store whose source changed (with --yes), and index
    /// them. Without one: pull repo stores, then index every store incrementally.
    Sync {
        /// Stores to sync (default: all; not with a lore.toml).
        stores: Vec<String>,
        /// The project file (default: the nearest lore.toml from here upward).
        #[arg(long, value_name = "FILE")]
        project: Option<PathBuf>,
        /// Ignore any lore.toml: pull and index the data dir's stores.
        #[arg(long, conflicts_with = "project")]
        no_project: bool,
        /// Replace stores whose source, type, branch or embedding changed (their index is
        /// rebuilt).
        #[arg(long)]
        yes: bool,
        /// Print what would be done; change nothing.
        #[arg(long)]
        dry_run: bool,
        /// Remove this project's stores (folders under it) that the lore.toml no longer
        /// names, e.g. after a store was renamed in it.
        #[arg(long)]
        prune: bool,
    },
    /// Write a lore.toml here (or at --project) from the stores there are, to commit
    /// beside the code: `lore sync` then recreates them on any machine.
    Init {
        /// Where to write (default: ./lore.toml).
        #[arg(long, value_name = "FILE")]
        project: Option<PathBuf>,
        /// Replace an existing file.
        #[arg(long)]
        force: bool,
    },
    /// Trust a project's lore.toml as it is now: `lore sync` then does what it asks beyond
    /// its own folder (stores read from elsewhere, sites and remote repositories fetched,
    /// the brain kept elsewhere). A changed file asks again. Given a `.lore` folder: use it
    /// as the data dir of commands run below it (one a clone carries is passed over until
    /// then).
    Trust {
        /// The lore.toml or its folder, or a `.lore` data dir (default: the nearest
        /// lore.toml from here upward).
        project: Option<PathBuf>,
        /// Forget the trust instead.
        #[arg(long)]
        revoke: bool,
    },
    /// Check that each store's catalog, BM25 index and vector snapshot agree (reads only;
    /// exit 1 and the repair command for each problem found).
    Doctor {
        /// The store to check (default: all).
        store: Option<String>,
        /// Also compare every index of the catalog file with its table (SQLite's
        /// integrity_check; slower): what a damaged catalog needs.
        #[arg(long)]
        deep: bool,
    },
    /// Search stores.
    Search(SearchArgs),
    /// From a task (an issue, a bug report, a traceback) to the files and units to change.
    Locate(LocateArgs),
    /// Show the whole unit behind a search result id.
    Context {
        /// A result id printed by `lore search`.
        id: String,
    },
    /// Callers, callees or the definition of a symbol, from the code graph.
    Graph(GraphArgs),
    /// The lines a pattern matches in the stores' files (ripgrep's rules), found through
    /// each store's trigram index, each shown in the unit around it.
    Grep(GrepArgs),
    /// What a change can break: the callers and users of changed symbols, files or a diff,
    /// transitively, with the tests and entry points among them.
    Impact(ImpactArgs),
    /// The idioms a store repeats (units making the same distinctive calls, carrying the
    /// same decorators), largest first.
    Patterns {
        /// Stores (default: all).
        stores: Vec<String>,
        /// Patterns listed per store (0: all).
        #[arg(short = 'n', long, default_value_t = 20)]
        limit: usize,
    },
    /// A map of a store within a token budget: its modules (communities of the code
    /// graph), hubs, entry points.
    Map {
        /// The store to map.
        store: String,
        /// Tokens the map may take.
        #[arg(long, default_value_t = lore_engine::DEFAULT_MAP_TOKENS)]
        tokens: usize,
    },
    /// Functions and methods of a store nothing calls or uses, each with why it counts as
    /// unreached (dead code).
    #[command(visible_alias = "dead-code")]
    Unreached {
        /// The store to check.
        store: String,
        /// Count exported definitions too (an application's; a library's are its API).
        #[arg(long)]
        exported: bool,
    },
    /// The brain: notes, wiki pages and session logs that agents keep, searchable at once.
    Brain {
        #[command(subcommand)]
        command: BrainCommand,
    },
    /// Manage the embedding model.
    Model {
        #[command(subcommand)]
        command: ModelCommand,
    },
    /// Measure retrieval quality.
    Eval {
        #[command(subcommand)]
        command: EvalCommand,
    },
    /// Measure indexing and query speed.
    Bench(BenchArgs),
    /// Speak MCP on stdin/stdout (for Claude Code, Cursor and other agents); `lore mcp
    /// install --client NAME` registers lore with a client.
    Mcp {
        #[command(subcommand)]
        command: Option<McpCommand>,
    },
    /// Serve REST (/api) and MCP (/mcp) on one port, keeping folder stores and the brain fresh.
    Serve(ServeArgs),
    /// Keep folder stores and the brain fresh without a server: re-index files as they change.
    Watch {
        /// Folder stores (or `brain`) to watch (default: all of them).
        stores: Vec<String>,
    },
    /// The catalog's database: its schema version, and migrating it (PostgreSQL).
    Db {
        #[command(subcommand)]
        command: DbCommand,
    },
    /// Index the dependencies this project's lockfiles pin (Cargo.lock, package-lock.json,
    /// requirements.txt, uv.lock, poetry.lock, go.mod) at exactly those versions, from the
    /// sources already on this machine, as stores dep:<ecosystem>:<name>@<version>.
    Deps {
        #[command(subcommand)]
        command: Option<DepsCommand>,
        /// The project (default: the nearest folder from here upward with a lockfile).
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        /// Read only this lockfile.
        #[arg(long, value_name = "FILE")]
        lockfile: Option<PathBuf>,
        /// Transitive dependencies too (default: those the project's manifests name).
        #[arg(long, conflicts_with = "direct")]
        all: bool,
        /// Only the dependencies the manifests name (the default).
        #[arg(long)]
        direct: bool,
        /// Embed them too (default: keyword search and the code graph only).
        #[arg(long)]
        embed: bool,
        /// Say what would be indexed; index nothing.
        #[arg(long)]
        dry_run: bool,
        /// Download what is not on this machine (crates: the published archive, verified
        /// against Cargo.lock's checksum; from $LORE_CRATES_URL; Go modules from $GOPROXY).
        #[arg(long)]
        fetch: bool,
    },
    /// Teach lore which results helped: `lore feedback RESULT_ID useful|not-useful [--query
    /// Q]`; `lore feedback list [STORE]` shows what was recorded, `lore feedback reset
    /// [STORE]` forgets it, `lore feedback off|on STORE` stops or resumes recording and
    /// using it for one store.
    Feedback {
        /// A result id, or `list`, `reset`, `on` or `off`.
        target: String,
        /// `useful` or `not-useful` (after a result id); a store name (after list, reset,
        /// on or off).
        arg: Option<String>,
        /// The query the result answered (its words count most for the same words again).
        #[arg(long)]
        query: Option<String>,
    },
    /// Index for a PostgreSQL catalog from any machine: claim the batches of index runs
    /// started with `--workers share|only`, read, chunk and embed their files (a folder
    /// store's files at its root path, shared with this machine) and commit them.
    Worker {
        /// Seconds a claimed batch stays this worker's without a renewal: a killed
        /// worker's batch goes to another after it.
        #[arg(long, default_value_t = lore_engine::BATCH_LEASE_SECS, value_name = "SECS")]
        lease: i64,
        /// Stop when no batch is waiting (default: wait for more until Ctrl-C).
        #[arg(long)]
        until_idle: bool,
    },
    /// Background jobs (add, index, sync) started through MCP or REST.
    Jobs {
        #[command(subcommand)]
        command: Option<JobsCommand>,
    },
}

#[derive(Subcommand, Debug)]
pub enum DbCommand {
    /// Which database holds the catalog, its schema version and the newest this lore knows.
    Status,
    /// Bring the schema up to date (under a lock: safe while other lore processes start).
    Migrate,
    /// Rebuild the catalog file's own indexes from its tables: the repair `lore doctor
    /// --deep` names when only they are damaged.
    Reindex,
    /// Copy the stores of an embedded data dir (default: this one) into the PostgreSQL
    /// database, with their vectors: nothing is re-read or embedded.
    Import {
        /// The data dir to copy from.
        #[arg(value_name = "DATA_DIR")]
        from: Option<PathBuf>,
    },
    /// Copy the PostgreSQL database's stores into an embedded data dir (default: this one),
    /// with their vectors; its BM25 indexes are built from the copied chunks.
    Export {
        /// The data dir to copy into.
        #[arg(value_name = "DATA_DIR")]
        to: Option<PathBuf>,
    },
}

/// Comma-separated values, possibly given several times (`--stores a,b --stores c`), as one
/// list without blanks or repeats.
pub(crate) fn split_list(values: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values.iter().flat_map(|v| v.split(',')).map(str::trim) {
        if !v.is_empty() && !out.iter().any(|o| o == v) {
            out.push(v.to_string());
        }
    }
    out
}

/// A flag whose values are an engine enum's, by the engine's names (`Mode::ALL` and
/// `Mode::as_str`, …): the names are written once, and `--help` lists them.
#[derive(Clone)]
pub struct EngineNames<T: 'static> {
    values: &'static [T],
    name: fn(T) -> &'static str,
}

impl<T: Copy + Send + Sync + 'static> TypedValueParser for EngineNames<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let names = self.values.iter().map(|&v| (self.name)(v));
        let typed = PossibleValuesParser::new(names).parse_ref(cmd, arg, value)?;
        self.values
            .iter()
            .copied()
            .find(|&v| (self.name)(v) == typed)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let names = self.values.iter().map(|&v| (self.name)(v));
        Some(Box::new(names.map(PossibleValue::new)))
    }
}

pub fn modes() -> EngineNames<Mode> {
    EngineNames {
        values: &Mode::ALL,
        name: Mode::as_str,
    }
}

pub fn details() -> EngineNames<Detail> {
    EngineNames {
        values: &Detail::ALL,
        name: Detail::as_str,
    }
}

pub fn intents() -> EngineNames<Intent> {
    EngineNames {
        values: &Intent::ALL,
        name: Intent::as_str,
    }
}

pub fn workers() -> EngineNames<Workers> {
    EngineNames {
        values: &Workers::ALL,
        name: Workers::as_str,
    }
}

/// `Direction` has no list or names of its own; a test holds these to its `parse`.
pub fn directions() -> EngineNames<Direction> {
    EngineNames {
        values: &[
            Direction::Callers,
            Direction::Callees,
            Direction::Definition,
        ],
        name: |d| match d {
            Direction::Callers => "callers",
            Direction::Callees => "callees",
            Direction::Definition => "definition",
        },
    }
}

/// The kinds of store a user adds (the brain is made by lore).
pub fn store_kinds() -> EngineNames<StoreKind> {
    EngineNames {
        values: &[StoreKind::Folder, StoreKind::Repo, StoreKind::Web],
        name: StoreKind::as_str,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    /// The CLI's names are the ones MCP and REST callers type.
    fn names_parse<T: Copy + PartialEq + std::fmt::Debug>(
        values: EngineNames<T>,
        parse: fn(&str) -> Option<T>,
    ) {
        for &v in values.values {
            assert_eq!(parse((values.name)(v)), Some(v));
        }
    }

    #[test]
    fn every_name_parses() {
        names_parse(modes(), Mode::parse);
        names_parse(details(), Detail::parse);
        names_parse(intents(), Intent::parse);
        names_parse(directions(), Direction::parse);
        names_parse(store_kinds(), StoreKind::parse);
    }

    #[test]
    fn lists_split_on_commas() {
        let v = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(split_list(&v(&["a, b", ",", "c"])), v(&["a", "b", "c"]));
        assert_eq!(split_list(&v(&["a,b", "b", "a"])), v(&["a", "b"]));
    }
}
