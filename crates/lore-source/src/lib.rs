//! Where lore's files come from. Walks folders (gitignore-aware, size-capped, binary-free),
//! judges single paths as a walk would (`PathFilter`, for watchers), keeps shallow git
//! clones and mirrors documentation sites as markdown (`web`). Knows nothing of chunks or
//! indexes.

mod confine;
pub mod deps;
mod filter;
pub mod git;
pub mod net;
mod options;
mod tree;
mod walk;
pub mod web;

pub use confine::Reads;
pub use filter::PathFilter;
pub use net::FetchPolicy;
pub use options::{SkipReason, WalkOptions};
pub use tree::Tree;
pub use walk::{IgnoredTop, SourceFile, Walk, mtime_ns, read_text, validate_globs, walk};

/// SHA-256 of `bytes` in lower-case hex: an archive's digest, a trusted file's.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("{0} does not exist or is not a folder")]
    NotAFolder(String),
    #[error("bad glob {0:?}: {1}")]
    BadGlob(String, String),
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
    #[error("git {action} failed for {target}: {message}")]
    Git {
        action: &'static str,
        target: String,
        message: String,
    },
    #[error("{url}: {message}")]
    Web { url: String, message: String },
    /// A fetch the policy does not allow (a server's: private address, local transport).
    #[error("{target}: {reason}")]
    Refused { target: String, reason: String },
}
