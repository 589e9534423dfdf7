//! Flags of `lore serve` and `lore jobs`.

use clap::{Args, Subcommand};
use std::net::SocketAddr;
use std::path::PathBuf;

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
    /// A folder clients may have read: folder stores, local repositories and files to
    /// ingest must be under one (repeatable; symlinks are resolved first). Without it the
    /// server reads no file a client names.
    #[arg(long = "allow-path", value_name = "DIR")]
    pub allow_paths: Vec<PathBuf>,
    /// Let web and git stores fetch loopback, private and link-local addresses (refused by
    /// default, after name resolution and on every redirect).
    #[arg(long)]
    pub allow_private_fetch: bool,
    /// Longest query (and code-graph symbol) a client may send, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = lore_server::DEFAULT_MAX_QUERY_BYTES)]
    pub max_query_bytes: usize,
    /// Largest file a client's store may index, in bytes: a client may ask for less
    /// (`maxFileSize`), never more.
    #[arg(long, value_name = "BYTES", default_value_t = lore_server::DEFAULT_MAX_FILE_BYTES)]
    pub max_file_size: u64,
    /// On PostgreSQL, search the database itself rather than a read copy of each store
    /// kept in the data dir (BM25 and vectors, rebuilt in the background when a store
    /// changes; the database answers until it is current).
    #[arg(long)]
    pub no_read_copy: bool,
}

impl ServeArgs {
    pub fn options(self) -> lore_server::ServeOptions {
        lore_server::ServeOptions {
            addr: self.addr,
            token: self.token,
            watch: !self.no_watch,
            allow_paths: self.allow_paths,
            allow_private_fetch: self.allow_private_fetch,
            max_query_bytes: self.max_query_bytes,
            max_file_bytes: self.max_file_size,
            workers: lore_engine::Workers::None,
            read_copy: !self.no_read_copy,
        }
    }
}

#[derive(Subcommand, Debug, Default)]
pub enum JobsCommand {
    /// Recent jobs, newest first (the default).
    #[default]
    List,
    /// One job in full.
    Show { id: String },
    /// Stop a job: pending jobs never start, running ones stop at the next file.
    Cancel { id: String },
}
