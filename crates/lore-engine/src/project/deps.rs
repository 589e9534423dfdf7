//! Dependency stores: each dependency a project's lockfiles pin, indexed from the source
//! already on this machine as a store named `dep:<ecosystem>:<name>@<version>`. A version
//! is indexed once per data dir and shared by every project that locks it; which projects
//! use which stores is kept in `<data>/deps/projects.json`, so `lore deps` drops a project's
//! claim on versions its lockfile moved away from and `lore deps gc` removes the versions
//! no project uses. Dependency stores are kept for keyword search and the code graph unless
//! asked to embed (a dependency's source is often larger than the project's own).

use crate::{Engine, EngineError, Progress};
use lore_core::{AddStore, StoreKind};
use lore_index::StoreRecord;
use lore_source::deps::{self, Caches};
pub use lore_source::deps::{Dependency, Ecosystem, LOCKFILES, find_project};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How `lore deps` runs.
#[derive(Debug, Clone, Default)]
pub struct DepsOptions {
    /// One lockfile instead of every one in the project.
    pub lockfile: Option<PathBuf>,
    /// Transitive dependencies too (default: the ones the project's manifests name).
    pub all: bool,
    /// With vectors (default: keyword search and the code graph only).
    pub embed: bool,
    /// Say what would be indexed; index nothing.
    pub dry_run: bool,
    /// Download what is not on the machine (crates: the published archive, verified
    /// against Cargo.lock's checksum) into `<data>/deps/src/`.
    pub fetch: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DepStatus {
    /// Indexed by this run.
    Indexed,
    /// Indexed before (by this project or another): shared as it is.
    Present,
    /// Its source is not on this machine (not in the caches looked at).
    NotFound,
    /// Downloaded (`--fetch`), verified and indexed by this run.
    Fetched,
    /// `--fetch` could not get it (see `error`); nothing was kept.
    FetchFailed,
    /// A dry run found it and would index it.
    WouldIndex,
    /// A store by its name exists but reads another source: not made by `lore deps`
    /// (see `error`), neither counted nor searched as this dependency.
    Mismatch,
}

#[derive(Debug, Clone, Serialize)]
pub struct DepEntry {
    #[serde(flatten)]
    pub dependency: Dependency,
    pub store: String,
    pub status: DepStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunks: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One locked version of a dependency: its store (and whether it is indexed) and where
/// its source is.
#[derive(Debug, Clone, Serialize)]
pub struct DepInfo {
    #[serde(flatten)]
    pub dependency: Dependency,
    pub store: String,
    pub indexed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DepsReport {
    pub project: PathBuf,
    pub dry_run: bool,
    /// Locked dependencies seen, and of them the ones taken (direct unless `--all`).
    pub locked: usize,
    pub taken: usize,
    pub indexed: usize,
    pub fetched: usize,
    pub present: usize,
    pub not_found: usize,
    pub deps: Vec<DepEntry>,
    /// Lockfile entries whose name or version is not of their ecosystem's grammar
    /// (`<lockfile>: <why>`): refused before any file was looked at.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// Dependency stores this project used before and no longer locks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
    pub elapsed_ms: u64,
}

/// Which projects use which dependency stores.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Usage {
    projects: BTreeMap<String, BTreeSet<String>>,
}

fn usage_path(engine: &Engine) -> PathBuf {
    engine.data_dir().root().join("deps").join("projects.json")
}

fn read_usage(engine: &Engine) -> Usage {
    std::fs::read_to_string(usage_path(engine))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

fn write_usage(engine: &Engine, usage: &Usage) -> Result<(), EngineError> {
    let path = usage_path(engine);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| EngineError::io(dir.display().to_string(), e))?;
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_string_pretty(usage).unwrap_or_default();
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, &path))
        .map_err(|e| EngineError::io(path.display().to_string(), e))
}

/// A dependency store's name is `dep:…`.
pub fn is_dep_store(name: &str) -> bool {
    name.starts_with("dep:")
}

/// The package and version a dependency store holds: `dep:npm:@types+node@20.1.0` →
/// (`@types/node`, `20.1.0`).
pub fn package_of(store: &str) -> Option<(String, String)> {
    let rest = store.strip_prefix("dep:")?;
    let (_, named) = rest.split_once(':')?;
    let (name, version) = named.rsplit_once('@')?;
    (!name.is_empty() && !version.is_empty()).then(|| (name.replace('+', "/"), version.to_string()))
}

/// A dependency store is fixed at its label's version: when the live environment it was
/// read from (`node_modules`, a virtual environment) now holds another version, why it is
/// not read again. `lore deps` makes the store of the installed version.
pub(crate) fn moved_on(store: &StoreRecord) -> Option<String> {
    let rest = store.name.strip_prefix("dep:")?;
    let ecosystem = match rest.split_once(':')?.0 {
        "npm" => Ecosystem::Npm,
        "python" => Ecosystem::Python,
        _ => return None,
    };
    let (name, version) = package_of(&store.name)?;
    let now = deps::installed_instead(ecosystem, &name, &version, &store.root)?;
    Some(format!(
        "{}: its source ({}) now holds {name} {now}, not {version}; the store keeps {version} \
         as it was indexed (run `lore deps` to index the installed version as its own store)",
        store.name,
        store.root.display()
    ))
}

fn project_key(project: &Path) -> String {
    std::fs::canonicalize(project)
        .unwrap_or_else(|_| project.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// The lockfiles of `project` read, as an input error when one cannot be.
fn read_locked(project: &Path, lockfile: Option<&Path>) -> Result<deps::Locked, EngineError> {
    deps::read(project, lockfile)
        .map_err(|e| EngineError::Input(format!("cannot read the lockfile {e}")))
}

/// Where `lore deps` takes `dep`'s source from: the local caches, else an archive an
/// earlier `--fetch` unpacked under `fetched` (`<data>/deps/src`).
fn expected_source(
    dep: &Dependency,
    project: &Path,
    caches: &Caches,
    fetched: &Path,
) -> Option<deps::Located> {
    deps::locate(dep, project, caches).or_else(|| {
        let earlier = fetched.join(dep.ecosystem.as_str()).join(dep.folder());
        earlier.is_dir().then(|| deps::Located {
            root: std::fs::canonicalize(&earlier).unwrap_or(earlier),
            includes: Vec::new(),
        })
    })
}

/// Whether a `dep:` store is the one `lore deps` makes: it reads the source `lore deps`
/// would choose (`expected`); or that source is gone from this machine and so is the
/// store's folder (a cache cleaned since) or holds another version now; or it was indexed on another machine sharing
/// the catalog, whose caches this one cannot see.
fn genuine(rec: &StoreRecord, expected: Option<&deps::Located>) -> bool {
    let elsewhere = rec
        .host
        .as_deref()
        .is_some_and(|h| h != crate::record::host_name());
    match expected {
        _ if elsewhere => true,
        Some(l) => l.root == rec.root && l.includes == rec.includes,
        // Its live source moved on to another version: still the store of its label.
        None => !rec.root.exists() || moved_on(rec).is_some(),
    }
}

impl Engine {
    /// Where `--fetch` unpacks archives: `<data>/deps/src/<ecosystem>/<name>-<version>`.
    fn fetch_dir(&self) -> PathBuf {
        self.data_dir().root().join("deps").join("src")
    }

    /// Indexes the dependencies `project`'s lockfiles pin, from the sources on this machine.
    pub fn deps(
        &mut self,
        project: &Path,
        opts: &DepsOptions,
        progress: &dyn Progress,
    ) -> Result<DepsReport, EngineError> {
        let started = Instant::now();
        let deps::Locked {
            deps: locked,
            refused,
        } = read_locked(project, opts.lockfile.as_deref())?;
        if locked.is_empty() && refused.is_empty() {
            return Err(EngineError::Input(format!(
                "no locked dependencies in {} (looked for {})",
                project.display(),
                deps::LOCKFILES.join(", ")
            )));
        }
        let caches = Caches::from_env(project);
        let taken: Vec<&Dependency> = locked.iter().filter(|d| opts.all || d.direct).collect();
        let mut entries = Vec::new();
        let src = self.fetch_dir();
        for (i, dep) in taken.iter().enumerate() {
            let store = dep.store_name();
            let mut located = expected_source(dep, project, &caches, &src);
            let existing = self.catalog.store(&store)?;
            // A store by this name that reads elsewhere was not made by `lore deps`: it is
            // reported, never counted as this dependency or searched for it.
            if let Some(rec) = existing.as_ref().filter(|r| !genuine(r, located.as_ref())) {
                entries.push(DepEntry {
                    dependency: (*dep).clone(),
                    store: store.clone(),
                    status: DepStatus::Mismatch,
                    error: Some(format!(
                        "store {store} reads {}, not {}; it was not made by `lore deps` \
                         (remove it with `lore store remove {store}`)",
                        rec.root.display(),
                        located.as_ref().map_or_else(
                            || "this dependency's source".to_string(),
                            |l| l.root.display().to_string()
                        )
                    )),
                    source: located.map(|l| l.root),
                    files: None,
                    chunks: None,
                });
                continue;
            }
            let exists = existing.is_some();
            let mut error = existing.as_ref().and_then(moved_on);
            let mut fetched = false;
            if located.is_none() && !exists && opts.fetch && !opts.dry_run {
                progress.message(&format!("[{}/{}] fetching {store}", i + 1, taken.len()));
                match deps::fetch(dep, &src.join(dep.ecosystem.as_str())) {
                    Ok(at) => {
                        located = Some(at);
                        fetched = true;
                    }
                    Err(e) => error = Some(e),
                }
            }
            let status = match (&located, exists, opts.dry_run) {
                (_, true, _) => DepStatus::Present,
                (None, false, _) if error.is_some() => DepStatus::FetchFailed,
                (None, false, _) => DepStatus::NotFound,
                (Some(_), false, true) => DepStatus::WouldIndex,
                (Some(at), false, false) => {
                    progress.message(&format!("[{}/{}] {store}", i + 1, taken.len()));
                    self.add_store_as_deps(
                        &AddStore {
                            name: store.clone(),
                            source: at.root.to_string_lossy().into_owned(),
                            kind: Some(StoreKind::Folder),
                            includes: at.includes.clone(),
                            description: Some(format!(
                                "{} {} ({}, locked in {})",
                                dep.name,
                                dep.version,
                                dep.ecosystem.as_str(),
                                dep.lockfile
                            )),
                            lexical_only: !opts.embed,
                            ..AddStore::default()
                        },
                        progress,
                    )?;
                    if fetched {
                        DepStatus::Fetched
                    } else {
                        DepStatus::Indexed
                    }
                }
            };
            let (files, chunks) = match status {
                DepStatus::Indexed | DepStatus::Fetched | DepStatus::Present => {
                    let info = self.store_info(&store)?;
                    (Some(info.stats.files), Some(info.stats.chunks))
                }
                _ => (None, None),
            };
            entries.push(DepEntry {
                dependency: (*dep).clone(),
                store,
                status,
                source: located.map(|l| l.root),
                files,
                chunks,
                error,
            });
        }
        let count = |s: DepStatus| entries.iter().filter(|e| e.status == s).count();
        let mut report = DepsReport {
            project: project.to_path_buf(),
            dry_run: opts.dry_run,
            locked: locked.len(),
            taken: taken.len(),
            indexed: count(DepStatus::Indexed),
            fetched: count(DepStatus::Fetched),
            present: count(DepStatus::Present),
            not_found: count(DepStatus::NotFound),
            deps: Vec::new(),
            refused,
            dropped: Vec::new(),
            elapsed_ms: 0,
        };
        if !opts.dry_run {
            let mut usage = read_usage(self);
            let now: BTreeSet<String> = entries
                .iter()
                .filter(|e| {
                    matches!(
                        e.status,
                        DepStatus::Indexed | DepStatus::Fetched | DepStatus::Present
                    )
                })
                .map(|e| e.store.clone())
                .collect();
            let before = usage.projects.insert(project_key(project), now.clone());
            report.dropped = before
                .unwrap_or_default()
                .difference(&now)
                .cloned()
                .collect();
            write_usage(self, &usage)?;
        }
        report.deps = entries;
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(report)
    }

    /// The dependency stores of `project` that exist: one per locked version (all locked
    /// dependencies, direct or not), never another version of the same package.
    pub fn project_dep_stores(&self, project: &Path) -> Result<Vec<String>, EngineError> {
        let caches = Caches::from_env(project);
        let src = self.fetch_dir();
        let mut out = Vec::new();
        for d in read_locked(project, None)?.deps {
            let name = d.store_name();
            if let Some(rec) = self.catalog.store(&name)?
                && genuine(&rec, expected_source(&d, project, &caches, &src).as_ref())
            {
                out.push(name);
            }
        }
        Ok(out)
    }

    /// Which versions of `name` `project` locks, whether each is indexed, and where its
    /// source is on this machine: no search.
    pub fn dependency_info(&self, project: &Path, name: &str) -> Result<Vec<DepInfo>, EngineError> {
        let caches = Caches::from_env(project);
        let src = self.fetch_dir();
        let wanted = name.trim().to_lowercase();
        let mut out = Vec::new();
        for d in read_locked(project, None)?.deps {
            let same = d.name.to_lowercase() == wanted
                || (d.ecosystem == Ecosystem::Python && d.name == deps::python_name(&wanted));
            if !same {
                continue;
            }
            let store = d.store_name();
            let located = expected_source(&d, project, &caches, &src);
            let indexed = self
                .catalog
                .store(&store)?
                .is_some_and(|rec| genuine(&rec, located.as_ref()));
            out.push(DepInfo {
                source: located.map(|l| l.root),
                dependency: d,
                store,
                indexed,
            });
        }
        if out.is_empty() {
            return Err(EngineError::NotFound(format!(
                "{name} is not in the lockfiles of {}",
                project.display()
            )));
        }
        Ok(out)
    }

    /// Removes the dependency stores no project uses (`dry_run`: names them only).
    pub fn deps_gc(&mut self, dry_run: bool) -> Result<Vec<String>, EngineError> {
        let usage = read_usage(self);
        let used: BTreeSet<&String> = usage.projects.values().flatten().collect();
        let unused: Vec<String> = self
            .catalog
            .stores()?
            .into_iter()
            .map(|s| s.name)
            .filter(|n| is_dep_store(n) && !used.contains(n))
            .collect();
        if !dry_run {
            for name in &unused {
                self.remove_store(name)?;
            }
        }
        Ok(unused)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dependency_store_names_its_package_and_version() {
        assert_eq!(
            package_of("dep:npm:@types+node@20.1.0"),
            Some(("@types/node".into(), "20.1.0".into()))
        );
        assert_eq!(
            package_of("dep:cargo:serde@1.0.228"),
            Some(("serde".into(), "1.0.228".into()))
        );
        assert_eq!(package_of("docs"), None);
        assert_eq!(package_of("dep:cargo:broken"), None);
    }
}
