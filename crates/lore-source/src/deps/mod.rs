//! A project's dependencies at the versions its lockfiles pin, and where their source is
//! already on this machine: the cargo registry's unpacked crates, `node_modules/`, a
//! virtual environment's `site-packages` (a package's files as its `RECORD` names them),
//! the Go module cache. Nothing here reaches the network.
//!
//! Lockfiles read: `Cargo.lock`, `package-lock.json`, `requirements.txt` (pinned `==`
//! lines), `uv.lock`, `poetry.lock`, `go.mod`. A dependency is direct when the project's
//! own manifest names it (`Cargo.toml` of the root and its workspace members,
//! `package.json`, `pyproject.toml`, `requirements.txt`, `go.mod` without `// indirect`).

mod fetch;
mod locate;
mod lockfiles;

pub use fetch::{crates_url, fetch, go_proxy};
pub use locate::{Caches, locate};
pub use lockfiles::{LOCKFILES, LockfileError, find_project, python_name, read};

use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Ecosystem {
    Cargo,
    Npm,
    Python,
    Go,
}

impl Ecosystem {
    pub fn as_str(self) -> &'static str {
        match self {
            Ecosystem::Cargo => "cargo",
            Ecosystem::Npm => "npm",
            Ecosystem::Python => "python",
            Ecosystem::Go => "go",
        }
    }
}

/// One locked dependency.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Dependency {
    pub ecosystem: Ecosystem,
    pub name: String,
    pub version: String,
    /// Named by the project's own manifest (not only pulled in by another dependency).
    pub direct: bool,
    /// The lockfile it was read from, relative to the project.
    pub lockfile: String,
    /// The archive's digest as the lockfile records it: SHA-256 hex (Cargo.lock),
    /// `sha512-<base64>` (package-lock.json), `sha256:<hex>` (uv.lock).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// Where the lockfile says the published archive is (npm's `resolved`, uv's sdist).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive: Option<String>,
}

/// What a lockfile says of a package's published archive.
#[derive(Debug, Clone, Default)]
struct Archive {
    url: Option<String>,
    checksum: Option<String>,
}

type Archives = BTreeMap<(String, String), Archive>;

impl Dependency {
    /// Its store's name: `dep:<ecosystem>:<name>@<version>` (a `/` of a scoped npm package
    /// or a Go module path becomes `+`).
    pub fn store_name(&self) -> String {
        format!(
            "dep:{}:{}@{}",
            self.ecosystem.as_str(),
            self.name.replace('/', "+"),
            self.version
        )
    }
}

/// Where a dependency's source is: a folder, and (for a Python package, whose files sit in
/// `site-packages` beside other packages') the globs that are its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Located {
    pub root: PathBuf,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub includes: Vec<String>,
}

/// A module path as the Go module cache and proxy write it: upper case as `!` + lower.
pub(crate) fn go_escape(module: &str) -> String {
    let mut escaped = String::new();
    for c in module.chars() {
        if c.is_ascii_uppercase() {
            escaped.push('!');
            escaped.push(c.to_ascii_lowercase());
        } else {
            escaped.push(c);
        }
    }
    escaped
}
