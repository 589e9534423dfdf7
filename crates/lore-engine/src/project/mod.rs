//! A project's knowledge in one file: `lore.toml` beside the code names its stores (source,
//! globs, caps, description), so every teammate and agent gets the same ones with `lore
//! sync`. Sync plans first (create, update in place, replace, index), refuses a plan that
//! would replace a store unless told yes, then carries it out; `lore init` writes the file
//! from the stores there are.
//!
//! ```toml
//! [stores.code]
//! source = "."                  # a folder (relative to this file), a git URL, or a site
//! include = ["src/**", "docs/**"]
//! exclude = ["target/**"]
//! description = "the service's code and docs"
//!
//! [stores.tokio-docs]
//! source = "https://tokio.rs/tokio/tutorial"
//! max_pages = 200
//! ```

pub mod deps;
pub mod trust;

use crate::{Engine, EngineError};
use lore_core::{AddStore, StoreKind};
use lore_index::StoreRecord;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The project file's name, looked for from the working directory upward.
pub const PROJECT_FILE: &str = "lore.toml";

/// `lore.toml` as read: its folder (where relative sources start), its stores by name and
/// its settings.
#[derive(Debug, Clone)]
pub struct Project {
    pub path: PathBuf,
    /// SHA-256 of the file's text: what `lore trust` records.
    pub hash: String,
    pub stores: BTreeMap<String, StoreDef>,
    /// The line each store's table starts on, for errors.
    pub lines: BTreeMap<String, usize>,
    pub settings: ProjectSettings,
}

/// Defaults a project sets for the commands run inside it (flags and the environment
/// still win).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectSettings {
    /// Search and locate mode.
    pub mode: Option<crate::Mode>,
    /// Search detail.
    pub detail: Option<crate::Detail>,
    /// The brain dir, absolute (written relative to the project file).
    pub brain_dir: Option<PathBuf>,
    /// The project file and its store names: what searches inside it search by default.
    pub project: Option<(PathBuf, Vec<String>)>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectToml {
    #[serde(default)]
    settings: Option<toml::Spanned<SettingsToml>>,
    #[serde(default)]
    stores: BTreeMap<String, toml::Spanned<StoreDef>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsToml {
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    detail: Option<String>,
    #[serde(default)]
    brain_dir: Option<String>,
}

/// One store as the project file defines it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreDef {
    /// A folder (absolute, or relative to the project file), a git URL or local repository,
    /// or a web store's start page.
    pub source: String,
    /// `folder`, `repo` or `web`; inferred from `source` when absent.
    #[serde(default, rename = "type")]
    pub kind: Option<DefKind>,
    #[serde(default)]
    pub branch: Option<String>,
    #[serde(default)]
    pub include: Vec<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// Largest file indexed, in bytes.
    #[serde(default)]
    pub max_file_size: Option<u64>,
    #[serde(default)]
    pub max_pages: Option<usize>,
    #[serde(default)]
    pub max_depth: Option<usize>,
    /// `model` (default) or `none`: keyword search and the code graph only.
    #[serde(default)]
    pub embed: Option<Embed>,
    /// Index what the source's ignore files exclude (`--no-ignore`).
    #[serde(default)]
    pub no_ignore: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DefKind {
    Folder,
    Repo,
    Web,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Embed {
    Model,
    None,
}

/// The line `offset` falls on in `text` (1-based).
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

impl Project {
    /// The nearest `lore.toml` from `dir` upward.
    pub fn find(dir: &Path) -> Option<PathBuf> {
        dir.ancestors()
            .map(|d| d.join(PROJECT_FILE))
            .find(|p| p.is_file())
    }

    /// Reads and checks a project file: unknown keys, values of the wrong type and invalid
    /// store names are errors naming the line.
    pub fn read(path: &Path) -> Result<Project, EngineError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| EngineError::Input(format!("cannot read {}: {e}", path.display())))?;
        Project::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Project, EngineError> {
        let shown = path.display();
        let parsed: ProjectToml = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| format!(" line {}", line_of(text, s.start)))
                .unwrap_or_default();
            EngineError::Input(format!(
                "{shown}{at}: {}",
                e.message().trim_end_matches('\n')
            ))
        })?;
        let mut stores = BTreeMap::new();
        let mut lines = BTreeMap::new();
        for (name, def) in parsed.stores {
            let line = line_of(text, def.span().start);
            lines.insert(name.clone(), line);
            let fail = |why: String| {
                EngineError::Input(format!("{shown} line {line}: store {name:?}: {why}"))
            };
            lore_core::validate_store_name(&name).map_err(&fail)?;
            if name == lore_core::BRAIN_STORE {
                return Err(fail(
                    "the brain store is built in; give this store another name".into(),
                ));
            }
            let def = def.into_inner();
            if def.source.trim().is_empty() {
                return Err(fail(
                    "`source` is empty: give a folder, a git URL or a site".into(),
                ));
            }
            stores.insert(name, def);
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut settings = ProjectSettings::default();
        if let Some(set) = parsed.settings {
            let line = line_of(text, set.span().start);
            let fail =
                |why: String| EngineError::Input(format!("{shown} line {line}: [settings] {why}"));
            let set = set.into_inner();
            if let Some(m) = set.mode {
                settings.mode = Some(crate::Mode::parse(&m).ok_or_else(|| {
                    fail(format!("mode {m:?} is not one of hybrid, vector, fts"))
                })?);
            }
            if let Some(d) = set.detail {
                settings.detail = Some(crate::Detail::parse(&d).ok_or_else(|| {
                    fail(format!(
                        "detail {d:?} is not one of minimal, contextual, full"
                    ))
                })?);
            }
            settings.brain_dir = set
                .brain_dir
                .filter(|b| !b.trim().is_empty())
                .map(|b| dir.join(b.trim()));
        }
        settings.project = Some((dir.join(PROJECT_FILE), stores.keys().cloned().collect()));
        Ok(Project {
            path: dir.join(PROJECT_FILE),
            hash: lore_source::sha256_hex(text.as_bytes()),
            stores,
            lines,
            settings,
        })
    }

    /// `path line N: store "name"`, the start of every error about one of its stores.
    pub(crate) fn at(&self, name: &str) -> String {
        match self.lines.get(name) {
            Some(line) => format!("{} line {line}: store {name:?}", self.path.display()),
            None => format!("{}: store {name:?}", self.path.display()),
        }
    }

    /// The folder relative sources start from.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// The store `name` as an add request: a relative folder resolved against the project.
    pub(crate) fn add_request(&self, name: &str, def: &StoreDef) -> AddStore {
        let kind = def.kind.map(|k| match k {
            DefKind::Folder => StoreKind::Folder,
            DefKind::Repo => StoreKind::Repo,
            DefKind::Web => StoreKind::Web,
        });
        let source = def.source.trim();
        let remote = source.contains("://") || source.starts_with("git@");
        let source = if remote || Path::new(source).is_absolute() {
            source.to_string()
        } else {
            self.dir().join(source).to_string_lossy().into_owned()
        };
        AddStore {
            name: name.to_string(),
            source,
            kind,
            branch: def.branch.clone(),
            includes: def.include.clone(),
            excludes: def.exclude.clone(),
            description: def.description.clone(),
            max_file_bytes: def.max_file_size,
            max_pages: def.max_pages,
            max_depth: def.max_depth,
            lexical_only: def.embed == Some(Embed::None),
            no_ignore: def.no_ignore,
        }
    }
}

/// What sync does, or did, to one store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncAction {
    /// Not in the data dir yet: added and indexed.
    Create,
    /// Its globs, caps or description changed: updated in place, then indexed (only the
    /// files the change touches).
    Update,
    /// Its source, type, branch or embedding changed: removed and added again.
    Replace,
    /// Defined as it is: indexed (incrementally).
    Index,
}

/// One store's step.
#[derive(Debug, Clone, Serialize)]
pub struct SyncStep {
    pub store: String,
    pub action: SyncAction,
    /// What differs, for updates and replacements (`source: A → B`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<String>,
    /// Files and chunks after the step (absent in a dry run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunks: Option<u64>,
    /// What its index run did: files added, changed and deleted (absent in a dry run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub added: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted: Option<usize>,
}

/// What `sync` did (or, in a dry run, would do).
#[derive(Debug, Clone, Serialize)]
pub struct SyncReport {
    pub project: PathBuf,
    pub dry_run: bool,
    pub steps: Vec<SyncStep>,
    /// The project's own stores (a folder or local repository under its folder) that the
    /// file no longer names: left as they are, or removed with `prune`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_in_project: Vec<String>,
    /// Those of them removed (`SyncOptions::prune`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pruned: Vec<String>,
}

/// How to sync.
#[derive(Debug, Clone, Copy, Default)]
pub struct SyncOptions {
    /// Replace stores whose source changed (their index is rebuilt).
    pub yes: bool,
    /// Plan only.
    pub dry_run: bool,
    /// Remove the project's own stores the file no longer names (a store renamed in it).
    pub prune: bool,
}

impl Engine {
    /// Inside a project (`project`: its file and store names), what a search or locate
    /// that names no stores (and not `all`) searches: those of the project's stores that
    /// exist. `stores` is set so; the scope in words, when the project chose it. Every
    /// adapter (the CLI inside the project, `lore mcp` started there) scopes the same way.
    pub fn project_scope(
        &self,
        project: Option<&(PathBuf, Vec<String>)>,
        stores: &mut Vec<String>,
        all: bool,
    ) -> Option<String> {
        let (path, names) = project?;
        if !stores.is_empty() {
            return None;
        }
        if all {
            return Some("every store (all)".into());
        }
        let existing: Vec<String> = names
            .iter()
            .filter(|n| matches!(self.catalog.store(n), Ok(Some(_))))
            .cloned()
            .collect();
        if existing.is_empty() {
            return Some(format!(
                "every store: none of the stores {} names exists yet (`lore sync` creates them)",
                path.display()
            ));
        }
        let scope = format!(
            "the stores of {} ({}); --all (MCP: stores [\"*\"]) searches every store",
            path.display(),
            existing.join(", ")
        );
        *stores = existing;
        Some(scope)
    }

    /// `lore.toml` text for the project's own stores: those whose folder or local
    /// repository lies under `dir` (written relative to it), defaults left out; and the
    /// names of the stores left out (the brain, dependency stores, other folders, remote
    /// sources), for the caller to say.
    pub fn project_toml(&self, dir: &Path) -> Result<(String, Vec<String>), EngineError> {
        let real_dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let mut out = String::from(
            "# lore's stores for this project: `lore sync` creates, updates and indexes them.\n",
        );
        let mut left_out = Vec::new();
        for s in self.catalog.stores()? {
            if !own_store(&s, &real_dir) {
                if s.kind != StoreKind::Brain {
                    left_out.push(s.name);
                }
                continue;
            }
            out.push_str(&format!("\n[stores.{}]\n", key(&s.name)));
            let source = match Path::new(&s.source).strip_prefix(&real_dir) {
                Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
                Ok(rel) => rel.to_string_lossy().into_owned(),
                Err(_) => s.source.clone(),
            };
            out.push_str(&format!("source = {}\n", quote(&source)));
            if s.kind == StoreKind::Repo && !lore_source::git::looks_like_url(&s.source) {
                out.push_str("type = \"repo\"\n");
            }
            if let Some(b) = &s.branch {
                out.push_str(&format!("branch = {}\n", quote(b)));
            }
            for (key, list) in [("include", &s.includes), ("exclude", &s.excludes)] {
                if !list.is_empty() {
                    let items: Vec<String> = list.iter().map(|g| quote(g)).collect();
                    out.push_str(&format!("{key} = [{}]\n", items.join(", ")));
                }
            }
            if let Some(d) = &s.description {
                out.push_str(&format!("description = {}\n", quote(d)));
            }
            if s.max_file_bytes != self.config.max_file_bytes {
                out.push_str(&format!("max_file_size = {}\n", s.max_file_bytes));
            }
            if let Some(w) = &s.web {
                let d = crate::record::default_web();
                if w.max_pages != d.max_pages {
                    out.push_str(&format!("max_pages = {}\n", w.max_pages));
                }
                if w.max_depth != d.max_depth {
                    out.push_str(&format!("max_depth = {}\n", w.max_depth));
                }
            }
            if crate::record::lexical_only(&s) {
                out.push_str("embed = \"none\"\n");
            }
            if s.no_ignore {
                out.push_str("no_ignore = true\n");
            }
        }
        Ok((out, left_out))
    }
}

/// How `rec` differs from the definition `req` (whose kind and recorded source are `kind`
/// and `source`).
pub(crate) fn diff(
    rec: &StoreRecord,
    req: &AddStore,
    kind: StoreKind,
    source: &str,
    max_file_bytes: u64,
) -> (SyncAction, Vec<String>) {
    let mut replace = Vec::new();
    if rec.kind != kind {
        replace.push(format!("type: {} → {}", rec.kind.as_str(), kind.as_str()));
    }
    if rec.source != source {
        replace.push(format!("source: {} → {source}", rec.source));
    }
    if rec.branch != req.branch {
        let b = |b: &Option<String>| b.clone().unwrap_or_else(|| "default".into());
        replace.push(format!("branch: {} → {}", b(&rec.branch), b(&req.branch)));
    }
    if crate::record::lexical_only(rec) != req.lexical_only {
        let e = |none: bool| if none { "none" } else { "model" };
        replace.push(format!(
            "embed: {} → {}",
            e(crate::record::lexical_only(rec)),
            e(req.lexical_only)
        ));
    }
    if !replace.is_empty() {
        return (SyncAction::Replace, replace);
    }
    let mut update = Vec::new();
    let list = |l: &[String]| format!("[{}]", l.join(", "));
    if rec.includes != req.includes {
        update.push(format!(
            "include: {} → {}",
            list(&rec.includes),
            list(&req.includes)
        ));
    }
    if rec.excludes != req.excludes {
        update.push(format!(
            "exclude: {} → {}",
            list(&rec.excludes),
            list(&req.excludes)
        ));
    }
    if rec.description != req.description {
        update.push("description".into());
    }
    if rec.no_ignore != req.no_ignore {
        update.push(format!("no_ignore: {} → {}", rec.no_ignore, req.no_ignore));
    }
    if rec.max_file_bytes != max_file_bytes {
        update.push(format!(
            "max_file_size: {} → {max_file_bytes}",
            rec.max_file_bytes
        ));
    }
    if let Some(w) = &rec.web {
        let d = crate::record::default_web();
        let (pages, depth) = (
            req.max_pages.unwrap_or(d.max_pages),
            req.max_depth.unwrap_or(d.max_depth),
        );
        if w.max_pages != pages {
            update.push(format!("max_pages: {} → {pages}", w.max_pages));
        }
        if w.max_depth != depth {
            update.push(format!("max_depth: {} → {depth}", w.max_depth));
        }
    }
    if update.is_empty() {
        (SyncAction::Index, update)
    } else {
        (SyncAction::Update, update)
    }
}

/// A store of the project in `dir` (its real path): a folder or local repository under
/// it, made by the user (not the brain, not a dependency store). What `init` writes and
/// `sync --prune` may remove.
pub(crate) fn own_store(s: &StoreRecord, dir: &Path) -> bool {
    matches!(s.kind, StoreKind::Folder | StoreKind::Repo)
        && !crate::project::deps::is_dep_store(&s.name)
        && Path::new(&s.source).strip_prefix(dir).is_ok()
}

/// A TOML key: bare when it may be (letters, digits, `-`, `_`), else quoted
/// (`"my.store"`, `"v1+x@2"`).
fn key(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bare { name.to_string() } else { quote(name) }
}

/// A TOML basic string.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_line() {
        let p = Path::new("/p/lore.toml");
        let err = |t: &str| Project::parse(t, p).unwrap_err().to_string();
        let e = err("[stores.code]\nsource = \".\"\nglobs = [\"a\"]\n");
        assert!(e.contains("line 3") && e.contains("globs"), "{e}");
        let e = err("[stores.code]\nsource = \".\"\nembed = \"maybe\"\n");
        assert!(e.contains("line 3") && e.contains("model"), "{e}");
        let e = err("[stores.code]\nsource = 3\n");
        assert!(e.contains("line 2"), "{e}");
        let e = err("\n\n[stores.\"bad name\"]\nsource = \".\"\n");
        assert!(e.contains("line 3") && e.contains("bad name"), "{e}");
        let e = err("[settings]\nmode = \"fast\"\n");
        assert!(
            e.contains("line 1") && e.contains("hybrid, vector, fts"),
            "{e}"
        );
        let e = err("[settings]\ncolour = \"red\"\n");
        assert!(e.contains("line 2") && e.contains("colour"), "{e}");
        let set = Project::parse(
            "[settings]\nmode = \"fts\"\ndetail = \"full\"\nbrain_dir = \"docs/brain\"\n",
            p,
        )
        .unwrap()
        .settings;
        assert_eq!(set.mode, Some(crate::Mode::Fts));
        assert_eq!(set.detail, Some(crate::Detail::Full));
        assert_eq!(set.brain_dir.as_deref(), Some(Path::new("/p/docs/brain")));
        let ok = Project::parse(
            "[stores.a]\nsource = \"src\"\n[stores.b]\nsource = \"https://x.org/\"\n",
            p,
        )
        .unwrap();
        assert_eq!(ok.dir(), Path::new("/p"));
        assert_eq!(ok.add_request("a", &ok.stores["a"]).source, "/p/src");
        assert_eq!(
            ok.add_request("b", &ok.stores["b"]).source,
            "https://x.org/"
        );
    }

    #[test]
    fn store_names_that_are_no_bare_key_are_quoted() {
        assert_eq!(key("code"), "code");
        for name in ["my.store", "v1+x@2", "dep:cargo:anyhow@1.0.105"] {
            let t = format!("[stores.{}]\nsource = \".\"\n", key(name));
            let p = Project::parse(&t, Path::new("/p/lore.toml")).unwrap();
            assert!(p.stores.contains_key(name), "{t}");
        }
    }

    #[test]
    fn quoted_strings_read_back() {
        let s = "a \"b\" \\ c\nd";
        let t = format!("[stores.x]\nsource = {}\n", quote(s));
        let p = Project::parse(&t, Path::new("lore.toml")).unwrap();
        assert_eq!(p.stores["x"].source, s);
    }
}
