//! Flags of `lore serve` and `lore jobs`.

use clap::{Args, Subcommand};
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

impl ServeArgs {
    pub fn options(self) -> lore_server::ServeOptions {
        lore_server::ServeOptions {
            addr: self.addr,
            token: self.token,
            watch: !self.no_watch,
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
