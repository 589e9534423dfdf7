//! Every flag of `lore`, by concept. clap lives here and only here: each command's flags
//! become the libraries' plain types (engine enums and requests, eval and bench options),
//! and the command modules import this one, never the reverse.

mod brain;
mod eval;
mod search;
mod serve;
mod store;

pub use brain::BrainCommand;
pub use eval::{BenchArgs, CompareArgs, EvalCommand, IntentsArgs, JudgeArgs, LabeledArgs};
pub use search::{GraphArgs, SearchArgs};
pub use serve::{JobsCommand, ServeArgs};
pub use store::{ModelCommand, StoreCommand};

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand};
use lore_core::{DataDir, StoreKind};
use lore_engine::{Detail, Direction, Intent, Mode};
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
    pub fn data(&self) -> std::io::Result<DataDir> {
        let cwd = std::env::current_dir()?;
        Ok(DataDir::resolve(self.data_dir.as_deref(), &cwd)
            .with_brain_dir(self.brain_dir.as_deref(), &cwd))
    }
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
    },
    /// Pull repo stores, then index every store incrementally.
    Sync {
        /// Stores to sync (default: all).
        stores: Vec<String>,
    },
    /// Search stores.
    Search(SearchArgs),
    /// Show the whole unit behind a search result id.
    Context {
        /// A result id printed by `lore search`.
        id: String,
    },
    /// Callers, callees or the definition of a symbol, from the code graph.
    Graph(GraphArgs),
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
    /// Speak MCP on stdin/stdout (for Claude Code, Cursor and other agents).
    Mcp,
    /// Serve REST (/api) and MCP (/mcp) on one port, keeping folder stores and the brain fresh.
    Serve(ServeArgs),
    /// Keep folder stores and the brain fresh without a server: re-index files as they change.
    Watch {
        /// Folder stores (or `brain`) to watch (default: all of them).
        stores: Vec<String>,
    },
    /// Background jobs (add, index, sync) started through MCP or REST.
    Jobs {
        #[command(subcommand)]
        command: Option<JobsCommand>,
    },
}

/// Comma-separated values, possibly given several times (`--stores a,b --stores c`), as one
/// list without blanks.
fn split_list(values: &[String]) -> Vec<String> {
    values
        .iter()
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(String::from)
        .collect()
}

/// A flag whose values are the names of an engine enum, spelled and parsed by the engine
/// (`Mode::as_str`/`Mode::parse`…): the names are written once, and `--help` lists them.
#[derive(Clone)]
pub struct EngineNames<T> {
    names: Vec<&'static str>,
    parse: fn(&str) -> Option<T>,
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for EngineNames<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let name =
            PossibleValuesParser::new(self.names.iter().copied()).parse_ref(cmd, arg, value)?;
        (self.parse)(&name)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.names.iter().map(|n| PossibleValue::new(*n))))
    }
}

/// `hybrid`, `vector`, `fts`.
pub fn modes() -> EngineNames<Mode> {
    EngineNames {
        names: [Mode::Hybrid, Mode::Vector, Mode::Fts]
            .map(Mode::as_str)
            .to_vec(),
        parse: Mode::parse,
    }
}

/// `minimal`, `contextual`, `full`.
pub fn details() -> EngineNames<Detail> {
    EngineNames {
        names: [Detail::Minimal, Detail::Contextual, Detail::Full]
            .map(Detail::as_str)
            .to_vec(),
        parse: Detail::parse,
    }
}

/// `find-definition`, … (`Intent::ALL`).
pub fn intents() -> EngineNames<Intent> {
    EngineNames {
        names: Intent::ALL.map(Intent::as_str).to_vec(),
        parse: Intent::parse,
    }
}

/// `callers`, `callees`, `definition` (`Direction` has no list of names; a test holds these
/// to its `parse`).
pub fn directions() -> EngineNames<Direction> {
    EngineNames {
        names: vec!["callers", "callees", "definition"],
        parse: Direction::parse,
    }
}

/// The kinds of store a user adds: `folder`, `repo`, `web` (the brain is made by lore).
pub fn store_kinds() -> EngineNames<StoreKind> {
    EngineNames {
        names: [StoreKind::Folder, StoreKind::Repo, StoreKind::Web]
            .map(StoreKind::as_str)
            .to_vec(),
        parse: StoreKind::parse,
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

    fn all_parse<T>(values: EngineNames<T>) {
        assert!(!values.names.is_empty());
        for n in values.names {
            assert!((values.parse)(n).is_some(), "{n}");
        }
    }

    #[test]
    fn every_listed_name_parses() {
        all_parse(modes());
        all_parse(details());
        all_parse(intents());
        all_parse(directions());
        all_parse(store_kinds());
    }

    #[test]
    fn lists_split_on_commas() {
        let v = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(split_list(&v(&["a, b", ",", "c"])), v(&["a", "b", "c"]));
    }
}
