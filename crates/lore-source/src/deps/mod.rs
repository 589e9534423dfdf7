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
pub use locate::{Caches, installed_instead, locate};
pub use lockfiles::{LOCKFILES, Locked, LockfileError, find_project, python_name, read};

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
    /// npm: where the lockfile says it is installed (`node_modules/debug/node_modules/ms`
    /// for a copy nested under the package that needs another version).
    #[serde(skip)]
    pub installed: Option<String>,
}

/// What a lockfile says of a package's published archive.
#[derive(Debug, Clone, Default)]
struct Archive {
    url: Option<String>,
    checksum: Option<String>,
    /// npm: the lockfile's path of its installed copy (the shortest when several).
    installed: Option<String>,
}

type Archives = BTreeMap<(String, String), Archive>;

impl Dependency {
    /// Checks the name and version against the ecosystem's grammar. A lockfile is the
    /// repository's word, not the operator's: both become parts of paths (a cache folder, a
    /// download target, a store name), so anything that could name another folder — `/`,
    /// `..`, a leading `.`, a character the registry never publishes — is refused before any
    /// file is looked at.
    pub fn check(&self) -> Result<(), String> {
        let name_ok = match self.ecosystem {
            // crates.io: ASCII letters, digits, `-` and `_`, at most 64.
            Ecosystem::Cargo => {
                self.name.len() <= 64 && segment(&self.name, |c| c == '-' || c == '_')
            }
            // npm: `name` or `@scope/name`, URL-safe characters, at most 214.
            Ecosystem::Npm => {
                let npm_part = |p: &str| segment(p, |c| matches!(c, '-' | '_' | '.' | '~'));
                self.name.len() <= 214
                    && match self.name.strip_prefix('@') {
                        Some(scoped) => scoped
                            .split_once('/')
                            .is_some_and(|(s, n)| npm_part(s) && npm_part(n)),
                        None => npm_part(&self.name),
                    }
            }
            // PEP 508 names: letters, digits, `-`, `_`, `.`.
            Ecosystem::Python => segment(&self.name, |c| matches!(c, '-' | '_' | '.')),
            // A module path: `/`-separated elements of letters, digits and `-._~`.
            Ecosystem::Go => {
                self.name.len() <= 500
                    && self
                        .name
                        .split('/')
                        .all(|e| segment(e, |c| matches!(c, '-' | '_' | '.' | '~')))
            }
        };
        if !name_ok {
            return Err(format!(
                "{:?} is not a {} package name",
                self.name,
                self.ecosystem.as_str()
            ));
        }
        // Versions: semver (cargo, npm, Go's `v` + semver) or PEP 440, a letter or digit
        // first, then letters, digits and `.+-_!`.
        let version_ok = self.version.len() <= 128
            && segment(&self.version, |c| matches!(c, '.' | '+' | '-' | '_' | '!'))
            && !self.version.contains("..")
            && (self.ecosystem != Ecosystem::Go || self.version.starts_with('v'));
        if !version_ok {
            return Err(format!(
                "{:?} is not a {} version",
                self.version,
                self.ecosystem.as_str()
            ));
        }
        Ok(())
    }

    /// The folder a fetched archive is unpacked to, under the ecosystem's fetch folder: one
    /// path component built from the checked name and version.
    pub fn folder(&self) -> String {
        format!("{}-{}", self.name.replace('/', "+"), self.version)
    }

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

/// Whether `s` is a non-empty run of ASCII letters, digits and the characters `more`
/// allows, starting with a letter or digit (so never `.`, `..` or a hidden name).
fn segment(s: &str, more: impl Fn(char) -> bool) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || more(c))
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
