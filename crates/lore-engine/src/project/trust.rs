//! Whether the user trusts a project file. `lore.toml` arrives with a clone, so it is the
//! repository's word, not the operator's: a file that asks for more than its own folder —
//! a store read from outside it, anything fetched from the network, the brain kept
//! elsewhere — is obeyed only once the user has run `lore trust` on it. Trust is the file's
//! real path and SHA-256, kept in the user's config dir (never in a data dir, which a
//! repository may carry); a changed file asks again. A file that asks for nothing more
//! needs no trust, but its local stores are then read as if `--allow-path` were its folder,
//! so a folder swapped for a symlink meanwhile is refused too.

use crate::EngineError;
use crate::project::{DefKind, Project, ProjectSettings};
use lore_source::{Reads, SourceError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// The trust file's name in the config dir.
const TRUST_FILE: &str = "trusted.json";

/// What a project file asks for and whether the user trusts it as it is now.
#[derive(Debug, Clone, Serialize)]
pub struct Trust {
    pub project: PathBuf,
    /// Each thing it asks for beyond its own folder, as a verb phrase ("read /x, outside
    /// the project's folder /p (store \"x\")").
    pub asks: Vec<String>,
    /// Trusted as it is now (its SHA-256 recorded by `lore trust`).
    pub trusted: bool,
    /// Trusted once, but the file changed since.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub changed: bool,
}

impl Trust {
    /// Whether lore may do what the file asks.
    pub fn allowed(&self) -> bool {
        self.trusted || self.asks.is_empty()
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct TrustList {
    /// Real path of a project file → SHA-256 of the text trusted.
    files: BTreeMap<String, String>,
}

fn trust_path() -> Result<PathBuf, EngineError> {
    lore_core::DataDir::config_dir()
        .map(|d| d.join(TRUST_FILE))
        .ok_or_else(|| {
            EngineError::Input(
                "neither XDG_CONFIG_HOME nor HOME is set: lore keeps what you trust in \
                 $XDG_CONFIG_HOME/lore/trusted.json"
                    .into(),
            )
        })
}

fn read_list() -> TrustList {
    trust_path()
        .ok()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

fn key(project: &Project) -> String {
    std::fs::canonicalize(&project.path)
        .unwrap_or_else(|_| project.path.clone())
        .to_string_lossy()
        .into_owned()
}

/// The project's folder, as a real path.
fn home(project: &Project) -> Option<PathBuf> {
    std::fs::canonicalize(project.dir()).ok()
}

/// What `project` asks for beyond its own folder.
pub fn asks(project: &Project) -> Vec<String> {
    let mut asks = Vec::new();
    if let Some(b) = &project.settings.brain_dir {
        asks.push(format!(
            "keep the brain, which lore reads and writes, at {} ([settings] brain_dir)",
            b.display()
        ));
    }
    let home = home(project);
    let inside = Reads::Within(home.iter().cloned().collect());
    let shown_home = home
        .as_deref()
        .unwrap_or(project.dir())
        .display()
        .to_string();
    for (name, def) in &project.stores {
        let req = project.add_request(name, def);
        let source = req.source.as_str();
        if def.kind == Some(DefKind::Web)
            || source.contains("://")
            || lore_source::git::looks_like_url(source)
        {
            asks.push(format!("fetch {source} over the network (store {name:?})"));
            continue;
        }
        let path = Path::new(source);
        let outside = match std::fs::canonicalize(path) {
            Ok(_) if def.kind == Some(DefKind::Repo) => {
                matches!(inside.check_repo(path), Err(SourceError::Refused { .. }))
            }
            Ok(_) => matches!(
                inside.check(path, "folder"),
                Err(SourceError::Refused { .. })
            ),
            // Not there yet: inside only if it is so by its words alone.
            Err(_) => {
                !home.as_deref().is_some_and(|h| path.starts_with(h))
                    || path.components().any(|c| c == Component::ParentDir)
            }
        };
        if outside {
            asks.push(format!(
                "read {source}, outside the project's folder {shown_home} (store {name:?})"
            ));
        }
    }
    asks
}

/// What `project` asks for and whether it is trusted as it is now.
pub fn status(project: &Project) -> Trust {
    let recorded = read_list().files.remove(&key(project));
    Trust {
        project: project.path.clone(),
        asks: asks(project),
        trusted: recorded.as_deref() == Some(project.hash.as_str()),
        changed: recorded.is_some_and(|h| h != project.hash),
    }
}

/// Refuses a project file that asks for more than its folder and is not trusted, naming
/// each thing it asks for and the command that trusts it. Nothing is done before this.
pub fn require(project: &Project) -> Result<(), EngineError> {
    let t = status(project);
    if t.allowed() {
        return Ok(());
    }
    let path = project.path.display();
    let state = if t.changed {
        "changed since you trusted it"
    } else {
        "not trusted"
    };
    Err(SourceError::Refused {
        target: path.to_string(),
        reason: format!(
            "{state}, and it asks to {}. Nothing was done: read the file, then run \
             `lore trust {path}` if you want what it asks (a changed file asks again)",
            t.asks.join("; ")
        ),
    }
    .into())
}

/// Records `project` as trusted as it is now.
pub fn trust(project: &Project) -> Result<Trust, EngineError> {
    edit(|list| {
        list.files.insert(key(project), project.hash.clone());
    })?;
    Ok(status(project))
}

/// Forgets `project`'s trust.
pub fn revoke(project: &Project) -> Result<Trust, EngineError> {
    edit(|list| {
        list.files.remove(&key(project));
    })?;
    Ok(status(project))
}

/// The trust file changed by `f`, written whole.
fn edit(f: impl FnOnce(&mut TrustList)) -> Result<(), EngineError> {
    let path = trust_path()?;
    let mut list = read_list();
    f(&mut list);
    write_whole(
        &path,
        &serde_json::to_string_pretty(&list).unwrap_or_default(),
    )
}

/// The settings of `project` that lore follows: all of them when it is trusted, else all
/// but `brain_dir`, with a warning that says it was left out.
pub fn settings(project: &Project) -> (ProjectSettings, Option<String>) {
    let mut settings = project.settings.clone();
    let Some(brain) = settings.brain_dir.take() else {
        return (settings, None);
    };
    let t = status(project);
    if t.trusted {
        settings.brain_dir = Some(brain);
        return (settings, None);
    }
    let warning = format!(
        "{} sets brain_dir = {}, which is not followed: the file is {}; run `lore trust {}` \
         to follow it",
        project.path.display(),
        brain.display(),
        if t.changed {
            "changed since you trusted it"
        } else {
            "not trusted"
        },
        project.path.display()
    );
    (settings, Some(warning))
}

/// The reads an index run for an untrusted project file may make: its own folder only
/// (within `reads`, when `reads` is narrower).
pub(crate) fn narrowed(project: &Project, reads: &Reads) -> Option<Reads> {
    if status(project).trusted {
        return None;
    }
    let home = home(project)?;
    match reads {
        Reads::Anywhere => Some(Reads::Within(vec![home])),
        Reads::Within(dirs) if dirs.iter().any(|d| home.starts_with(d)) => {
            Some(Reads::Within(vec![home]))
        }
        Reads::Within(_) => None,
    }
}

/// A project file's `brain_dir` under `lore serve` (`allow`: its `--allow-path`s): the
/// server reads and writes its brain there for every client, so it must lie under one,
/// trusted file or not.
pub fn serve_brain(brain: &Path, allow: &[PathBuf]) -> Result<(), EngineError> {
    let reads = Reads::within(allow, "--allow-path").map_err(EngineError::Input)?;
    reads
        .check_new(brain, "the project's brain_dir")
        .map(drop)
        .map_err(|e| {
            EngineError::Input(format!(
                "{e}\nunder `lore serve`, lore.toml's [settings] brain_dir must lie under an \
                 --allow-path: allow its folder, or give --brain-dir"
            ))
        })
}

/// Trusts (or, with `revoke`, forgets) the folder `dir` as a data dir found upward (a
/// `.lore/`): `lore_core::DataDir::resolve` uses it from then on. Returns its real path.
pub fn trust_data_dir(dir: &Path, revoke: bool) -> Result<PathBuf, EngineError> {
    let real =
        std::fs::canonicalize(dir).map_err(|e| EngineError::io(dir.display().to_string(), e))?;
    let file = lore_core::DataDir::trusted_data_dirs_file()
        .ok_or_else(|| EngineError::Input("neither XDG_CONFIG_HOME nor HOME is set".into()))?;
    let shown = real.to_string_lossy().into_owned();
    let mut lines: Vec<String> = std::fs::read_to_string(&file)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.is_empty() && *l != shown)
        .map(str::to_string)
        .collect();
    if !revoke {
        lines.push(shown);
    }
    write_whole(&file, &(lines.join("\n") + "\n"))?;
    Ok(real)
}

/// `text` written to `path` whole: a temp file beside it renamed over it.
fn write_whole(path: &Path, text: &str) -> Result<(), EngineError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| EngineError::io(dir.display().to_string(), e))?;
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| EngineError::io(path.display().to_string(), e))
}
