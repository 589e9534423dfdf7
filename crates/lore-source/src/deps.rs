//! A project's dependencies at the versions its lockfiles pin, and where their source is
//! already on this machine: the cargo registry's unpacked crates, `node_modules/`, a
//! virtual environment's `site-packages` (a package's files as its `RECORD` names them),
//! the Go module cache. Nothing here reaches the network.
//!
//! Lockfiles read: `Cargo.lock`, `package-lock.json`, `requirements.txt` (pinned `==`
//! lines), `uv.lock`, `poetry.lock`, `go.mod`. A dependency is direct when the project's
//! own manifest names it (`Cargo.toml` of the root and its workspace members,
//! `package.json`, `pyproject.toml`, `requirements.txt`, `go.mod` without `// indirect`).

use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

/// The places caches are looked for; from the environment unless a caller says otherwise.
#[derive(Debug, Clone, Default)]
pub struct Caches {
    /// `$CARGO_HOME`, else `~/.cargo`.
    pub cargo_home: Option<PathBuf>,
    /// `$GOMODCACHE`, else `$GOPATH/pkg/mod`, else `~/go/pkg/mod`.
    pub go_mod_cache: Option<PathBuf>,
    /// `$VIRTUAL_ENV`, else `.venv` or `venv` in the project.
    pub virtual_env: Option<PathBuf>,
}

impl Caches {
    pub fn from_env(project: &Path) -> Caches {
        let env = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let home = env("HOME");
        Caches {
            cargo_home: env("CARGO_HOME").or_else(|| home.as_ref().map(|h| h.join(".cargo"))),
            go_mod_cache: env("GOMODCACHE")
                .or_else(|| env("GOPATH").map(|p| p.join("pkg/mod")))
                .or_else(|| home.as_ref().map(|h| h.join("go/pkg/mod"))),
            virtual_env: env("VIRTUAL_ENV").or_else(|| {
                [".venv", "venv"]
                    .iter()
                    .map(|d| project.join(d))
                    .find(|d| d.join("pyvenv.cfg").is_file())
            }),
        }
    }
}

/// A lockfile that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct LockfileError {
    pub path: String,
    pub message: String,
}

/// The lockfiles read, by name.
pub const LOCKFILES: [&str; 6] = [
    "Cargo.lock",
    "package-lock.json",
    "requirements.txt",
    "uv.lock",
    "poetry.lock",
    "go.mod",
];

/// The nearest folder from `dir` upward that holds a lockfile.
pub fn find_project(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| LOCKFILES.iter().any(|f| d.join(f).is_file()))
        .map(Path::to_path_buf)
}

/// Every dependency the lockfiles in `project` pin (or only those of `lockfile`), sorted,
/// each once per ecosystem, name and version.
pub fn read(project: &Path, lockfile: Option<&Path>) -> Result<Vec<Dependency>, LockfileError> {
    let files: Vec<PathBuf> = match lockfile {
        Some(f) => vec![f.to_path_buf()],
        None => LOCKFILES
            .iter()
            .map(|f| project.join(f))
            .filter(|f| f.is_file())
            .collect(),
    };
    let mut out = BTreeSet::new();
    for file in files {
        let shown = file
            .strip_prefix(project)
            .unwrap_or(&file)
            .display()
            .to_string();
        let fail = |message: String| LockfileError {
            path: shown.clone(),
            message,
        };
        let text = std::fs::read_to_string(&file).map_err(|e| fail(e.to_string()))?;
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let dir = file.parent().unwrap_or(project);
        let mut sums = Archives::new();
        let found: Vec<(Ecosystem, String, String, bool)> = match name {
            "Cargo.lock" => cargo(&text, &cargo_direct(dir), &mut sums).map_err(fail)?,
            "package-lock.json" => npm(&text, &mut sums).map_err(fail)?,
            "uv.lock" | "poetry.lock" => {
                python_lock(&text, &python_direct(dir), &mut sums).map_err(fail)?
            }
            "go.mod" => {
                // go.sum beside it holds each module zip's h1: digest.
                if let Ok(sum) = std::fs::read_to_string(dir.join("go.sum")) {
                    go_sums(&sum, &mut sums);
                }
                go(&text)
            }
            // Any other name is read as a requirements file.
            _ => requirements(&text),
        };
        for (ecosystem, name, version, direct) in found {
            let archive = sums
                .remove(&(name.clone(), version.clone()))
                .unwrap_or_default();
            out.insert(Dependency {
                ecosystem,
                name,
                version,
                direct,
                lockfile: shown.clone(),
                checksum: archive.checksum,
                archive: archive.url,
            });
        }
    }
    Ok(out.into_iter().collect())
}

fn cargo(
    text: &str,
    direct: &BTreeSet<String>,
    sums: &mut Archives,
) -> Result<Vec<(Ecosystem, String, String, bool)>, String> {
    #[derive(serde::Deserialize)]
    struct Lock {
        #[serde(default)]
        package: Vec<Package>,
    }
    #[derive(serde::Deserialize)]
    struct Package {
        name: String,
        version: String,
        #[serde(default)]
        source: Option<String>,
        #[serde(default)]
        checksum: Option<String>,
    }
    let lock: Lock = toml::from_str(text).map_err(|e| e.message().to_string())?;
    Ok(lock
        .package
        .into_iter()
        // Workspace members and path dependencies have no source: they are the project.
        .filter(|p| {
            p.source
                .as_deref()
                .is_some_and(|s| s.starts_with("registry+"))
        })
        .map(|p| {
            sums.insert(
                (p.name.clone(), p.version.clone()),
                Archive {
                    url: None,
                    checksum: p.checksum.clone(),
                },
            );
            let d = direct.contains(&p.name);
            (Ecosystem::Cargo, p.name, p.version, d)
        })
        .collect())
}

/// The crates the root `Cargo.toml` and its workspace members name as dependencies.
fn cargo_direct(dir: &Path) -> BTreeSet<String> {
    let read = |p: &Path| -> Option<toml::Table> {
        toml::from_str(&std::fs::read_to_string(p).ok()?).ok()
    };
    let mut names = BTreeSet::new();
    let Some(root) = read(&dir.join("Cargo.toml")) else {
        return names;
    };
    let mut manifests = vec![root.clone()];
    let members = root
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .cloned()
        .unwrap_or_default();
    for m in members.iter().filter_map(|m| m.as_str()) {
        // `crates/*` (one level of globbing, what workspaces use) or a plain path.
        let dirs: Vec<PathBuf> = match m.strip_suffix("/*") {
            Some(parent) => std::fs::read_dir(dir.join(parent))
                .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default(),
            None => vec![dir.join(m)],
        };
        manifests.extend(dirs.iter().filter_map(|d| read(&d.join("Cargo.toml"))));
    }
    for manifest in &manifests {
        let tables = ["dependencies", "dev-dependencies", "build-dependencies"];
        let workspace = manifest
            .get("workspace")
            .and_then(|w| w.get("dependencies"));
        for deps in tables
            .iter()
            .filter_map(|t| manifest.get(*t))
            .chain(workspace)
            .filter_map(|t| t.as_table())
        {
            for (key, spec) in deps {
                // `foo = { package = "bar" }` depends on bar.
                let name = spec.get("package").and_then(|p| p.as_str()).unwrap_or(key);
                names.insert(name.to_string());
            }
        }
    }
    names
}

fn npm(text: &str, sums: &mut Archives) -> Result<Vec<(Ecosystem, String, String, bool)>, String> {
    let lock: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let packages = lock["packages"]
        .as_object()
        .ok_or("no \"packages\" (lockfileVersion 2 or 3 is read; run npm install to update it)")?;
    let root = &packages.get("").cloned().unwrap_or_default();
    let direct: BTreeSet<&str> = [
        "dependencies",
        "devDependencies",
        "optionalDependencies",
        "peerDependencies",
    ]
    .iter()
    .filter_map(|k| root[*k].as_object())
    .flat_map(|o| o.keys().map(String::as_str))
    .collect();
    let mut out = Vec::new();
    for (path, p) in packages {
        // Only what npm installed: `node_modules/<name>` at any depth, not links or the root.
        let Some(name) = path.rsplit_once("node_modules/").map(|(_, n)| n) else {
            continue;
        };
        let (Some(version), false) = (p["version"].as_str(), p["link"] == true) else {
            continue;
        };
        let top = path == &format!("node_modules/{name}");
        if top {
            sums.insert(
                (name.to_string(), version.to_string()),
                Archive {
                    url: p["resolved"].as_str().map(str::to_string),
                    checksum: p["integrity"].as_str().map(str::to_string),
                },
            );
        }
        out.push((
            Ecosystem::Npm,
            name.to_string(),
            version.to_string(),
            top && direct.contains(name),
        ));
    }
    Ok(out)
}

/// PEP 503 normalised: lower case, runs of `-_.` as one `-`.
pub fn python_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// The leading name of a requirement (`requests[socks]>=2; python_version>"3"`).
fn requirement_name(req: &str) -> &str {
    let end = req
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(req.len());
    &req[..end]
}

fn requirements(text: &str) -> Vec<(Ecosystem, String, String, bool)> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter_map(|l| {
            let (name, version) = l.split_once("==")?;
            let version = version.split([';', ' ', ',']).next()?.trim();
            let name = requirement_name(name.trim());
            (!name.is_empty() && !version.is_empty()).then(|| {
                (
                    Ecosystem::Python,
                    python_name(name),
                    version.to_string(),
                    true,
                )
            })
        })
        .collect()
}

/// The names `pyproject.toml` lists: `[project] dependencies` and Poetry's tables.
fn python_direct(dir: &Path) -> BTreeSet<String> {
    let Some(t) = std::fs::read_to_string(dir.join("pyproject.toml"))
        .ok()
        .and_then(|t| toml::from_str::<toml::Table>(&t).ok())
    else {
        return BTreeSet::new();
    };
    let mut names = BTreeSet::new();
    if let Some(deps) = t
        .get("project")
        .and_then(|p| p.get("dependencies"))
        .and_then(|d| d.as_array())
    {
        names.extend(
            deps.iter()
                .filter_map(|d| d.as_str())
                .map(|d| python_name(requirement_name(d))),
        );
    }
    let poetry = t.get("tool").and_then(|t| t.get("poetry"));
    for table in ["dependencies", "dev-dependencies"] {
        if let Some(deps) = poetry.and_then(|p| p.get(table)).and_then(|d| d.as_table()) {
            names.extend(
                deps.keys()
                    .filter(|k| *k != "python")
                    .map(|k| python_name(k)),
            );
        }
    }
    names
}

fn python_lock(
    text: &str,
    direct: &BTreeSet<String>,
    sums: &mut Archives,
) -> Result<Vec<(Ecosystem, String, String, bool)>, String> {
    #[derive(serde::Deserialize)]
    struct Lock {
        #[serde(default)]
        package: Vec<Package>,
    }
    #[derive(serde::Deserialize)]
    struct Package {
        name: String,
        version: String,
        #[serde(default)]
        source: Option<toml::Value>,
        /// uv: the source archive, `{url, hash = "sha256:…"}`.
        #[serde(default)]
        sdist: Option<toml::Value>,
    }
    let lock: Lock = toml::from_str(text).map_err(|e| e.message().to_string())?;
    Ok(lock
        .package
        .into_iter()
        // uv lists the project itself (an editable or virtual source): not a dependency.
        .filter(|p| {
            !p.source
                .as_ref()
                .and_then(|s| s.as_table())
                .is_some_and(|s| s.contains_key("editable") || s.contains_key("virtual"))
        })
        .map(|p| {
            let name = python_name(&p.name);
            let d = direct.contains(&name);
            if let Some(sdist) = p.sdist.as_ref().and_then(|s| s.as_table()) {
                let field = |k: &str| sdist.get(k).and_then(|v| v.as_str()).map(str::to_string);
                sums.insert(
                    (name.clone(), p.version.clone()),
                    Archive {
                        url: field("url"),
                        checksum: field("hash"),
                    },
                );
            }
            (Ecosystem::Python, name, p.version, d)
        })
        .collect())
}

/// `module version h1:…` lines of go.sum (the zip's digest; `/go.mod` lines are the
/// manifest's own and left out).
fn go_sums(text: &str, sums: &mut Archives) {
    for line in text.lines() {
        let mut parts = line.split_whitespace();
        if let (Some(module), Some(version), Some(hash)) =
            (parts.next(), parts.next(), parts.next())
            && !version.ends_with("/go.mod")
            && hash.starts_with("h1:")
        {
            sums.insert(
                (module.to_string(), version.to_string()),
                Archive {
                    url: None,
                    checksum: Some(hash.to_string()),
                },
            );
        }
    }
}

/// A module path as the Go module cache and proxy write it: upper case as `!` + lower.
fn go_escape(module: &str) -> String {
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

/// Where `--fetch` downloads Go modules from: the first entry of `GOPROXY` that is a URL.
pub fn go_proxy() -> Option<String> {
    std::env::var("GOPROXY").ok().and_then(|p| {
        p.split([',', '|'])
            .map(str::trim)
            .find(|e| e.starts_with("http"))
            .map(|e| e.trim_end_matches('/').to_string())
    })
}

/// Go's `h1:` digest of a module zip (dirhash Hash1): SHA-256 over the lines
/// `<sha256 hex of the file>  <name>\n` of its files, sorted by name, in base64.
fn go_h1(files: &mut [(String, Vec<u8>)]) -> String {
    use sha2::Digest as _;
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut summary = String::new();
    for (name, bytes) in files.iter() {
        let hex: String = sha2::Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        summary.push_str(&format!("{hex}  {name}\n"));
    }
    format!("h1:{}", base64(&sha2::Sha256::digest(summary.as_bytes())))
}

/// A Go module zip checked against its go.sum digest and unpacked to `target`: every file
/// under `module@version/`, nothing else, no path out of the folder.
fn unpack_go_zip(
    bytes: &[u8],
    dep: &Dependency,
    expected: &str,
    dir: &Path,
    target: &Path,
) -> Result<(), String> {
    use std::io::Read as _;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let prefix = format!("{}@{}/", dep.name, dep.version);
    let mut files = Vec::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).map_err(|e| e.to_string())?;
        if f.is_dir() {
            continue;
        }
        let name = f.name().map_err(|e| e.to_string())?.to_string();
        let Some(rel) = name.strip_prefix(&prefix) else {
            return Err(format!("{name} is outside {prefix}"));
        };
        if rel.starts_with('/') || rel.split('/').any(|p| p == ".." || p.is_empty()) {
            return Err(format!("{name} leaves the module's folder"));
        }
        let mut data = Vec::new();
        f.read_to_end(&mut data).map_err(|e| e.to_string())?;
        files.push((name, data));
    }
    let got = go_h1(&mut files);
    if got != expected {
        return Err(format!(
            "its digest is {got}, go.sum says {expected}; refused, nothing kept"
        ));
    }
    let root = dir.join("module");
    for (name, data) in &files {
        let path = root.join(&name[prefix.len()..]);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::write(&path, data).map_err(|e| e.to_string())?;
    }
    std::fs::rename(&root, target).map_err(|e| e.to_string())
}

fn go(text: &str) -> Vec<(Ecosystem, String, String, bool)> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let l = line.trim();
        let spec = if in_block {
            if l == ")" {
                in_block = false;
                continue;
            }
            l
        } else if l == "require (" {
            in_block = true;
            continue;
        } else if let Some(rest) = l.strip_prefix("require ") {
            rest
        } else {
            continue;
        };
        let indirect = spec.contains("// indirect");
        let mut parts = spec.split_whitespace();
        if let (Some(module), Some(version)) = (parts.next(), parts.next())
            && version.starts_with('v')
        {
            out.push((
                Ecosystem::Go,
                module.to_string(),
                version.to_string(),
                !indirect,
            ));
        }
    }
    out
}

/// Where `dep`'s source is on this machine, if it is.
pub fn locate(dep: &Dependency, project: &Path, caches: &Caches) -> Option<Located> {
    let folder = |root: PathBuf| {
        root.is_dir().then_some(Located {
            root,
            includes: Vec::new(),
        })
    };
    match dep.ecosystem {
        Ecosystem::Cargo => {
            // registry/src/<index>/<name>-<version>, one folder per registry index.
            let src = caches.cargo_home.as_ref()?.join("registry/src");
            let want = format!("{}-{}", dep.name, dep.version);
            let mut indexes: Vec<PathBuf> = std::fs::read_dir(&src)
                .ok()?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect();
            indexes.sort();
            indexes.into_iter().find_map(|i| folder(i.join(&want)))
        }
        Ecosystem::Npm => {
            let root = project.join("node_modules").join(&dep.name);
            let manifest: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(root.join("package.json")).ok()?)
                    .ok()?;
            (manifest["version"] == dep.version.as_str()).then_some(())?;
            folder(root)
        }
        Ecosystem::Go => {
            let escaped = go_escape(&dep.name);
            folder(
                caches
                    .go_mod_cache
                    .as_ref()?
                    .join(format!("{escaped}@{}", dep.version)),
            )
        }
        Ecosystem::Python => python_files(dep, caches.virtual_env.as_ref()?),
    }
}

/// A Python package in a virtual environment: its `site-packages` and the top-level
/// folders and modules its `RECORD` lists (never the dist-info, scripts or caches).
fn python_files(dep: &Dependency, venv: &Path) -> Option<Located> {
    let lib = std::fs::read_dir(venv.join("lib"))
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("python"))
        })?;
    let site = lib.join("site-packages");
    let want = python_name(&dep.name);
    let dist = std::fs::read_dir(&site)
        .ok()?
        .filter_map(|e| e.ok())
        .find(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".dist-info")
                .and_then(|s| s.rsplit_once('-'))
                .is_some_and(|(name, version)| python_name(name) == want && version == dep.version)
        })?;
    let record = std::fs::read_to_string(dist.path().join("RECORD")).ok()?;
    let mut tops = BTreeMap::new();
    for line in record.lines() {
        let path = line.split(',').next().unwrap_or("").trim();
        if path.is_empty() || path.starts_with("..") || path.starts_with('/') {
            continue;
        }
        let (top, rest) = path.split_once('/').unwrap_or((path, ""));
        if top.ends_with(".dist-info") || top == "__pycache__" || top.ends_with(".data") {
            continue;
        }
        let glob = if rest.is_empty() {
            top.to_string()
        } else {
            format!("{top}/**")
        };
        tops.insert(top.to_string(), glob);
    }
    (!tops.is_empty()).then(|| Located {
        root: site,
        includes: tops.into_values().collect(),
    })
}

/// Where `--fetch` downloads crates from: `LORE_CRATES_URL`, the registry's download URL
/// (the `dl` of its index's config.json), without a trailing slash.
pub fn crates_url() -> Option<String> {
    std::env::var("LORE_CRATES_URL")
        .ok()
        .filter(|u| !u.trim().is_empty())
        .map(|u| u.trim().trim_end_matches('/').to_string())
}

/// Largest archive downloaded.
const MAX_ARCHIVE: u64 = 64 * 1024 * 1024;

/// Downloads `dep`'s published archive, verifies it against the lockfile's digest and
/// unpacks it under `dest` (`dest/<name>-<version>`): a crate from `LORE_CRATES_URL`, an npm
/// tarball and a Python sdist from where the lockfile says (`resolved`, uv's `sdist`). An
/// archive whose digest differs, or that has none to check, is refused and nothing is kept.
pub fn fetch(dep: &Dependency, dest: &Path) -> Result<Located, String> {
    let folder = format!("{}-{}", dep.name.replace('/', "+"), dep.version);
    let target = dest.join(&folder);
    if target.is_dir() {
        return Ok(Located {
            root: target,
            includes: Vec::new(),
        });
    }
    let Some(expected) = dep.checksum.as_deref() else {
        return Err(
            "the lockfile records no digest to verify the archive against; not fetched".into(),
        );
    };
    let url = match (dep.ecosystem, dep.archive.as_deref()) {
        (Ecosystem::Cargo, _) => {
            let Some(base) = crates_url() else {
                return Err("set LORE_CRATES_URL to the registry's download URL (the `dl` of its index's config.json) to fetch crates".into());
            };
            format!("{base}/{}/{}-{}.crate", dep.name, dep.name, dep.version)
        }
        (Ecosystem::Npm | Ecosystem::Python, Some(url)) => url.to_string(),
        (Ecosystem::Npm | Ecosystem::Python, None) => {
            return Err(
                "the lockfile names no archive to fetch (uv.lock's sdist, package-lock's resolved)"
                    .into(),
            );
        }
        (Ecosystem::Go, _) => {
            let Some(proxy) = go_proxy() else {
                return Err("set GOPROXY to a module proxy URL to fetch Go modules".into());
            };
            format!("{proxy}/{}/@v/{}.zip", go_escape(&dep.name), dep.version)
        }
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(std::time::Duration::from_secs(120)))
        .http_status_as_error(false)
        .user_agent(concat!("lore/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut resp = agent.get(&url).call().map_err(|e| format!("{url}: {e}"))?;
    if resp.status() != 200 {
        return Err(format!("{url}: HTTP {}", resp.status().as_u16()));
    }
    let bytes = resp
        .body_mut()
        .with_config()
        .limit(MAX_ARCHIVE)
        .read_to_vec()
        .map_err(|e| format!("{url}: {e}"))?;
    // Unpacked beside the target, then renamed: a failure leaves nothing behind.
    std::fs::create_dir_all(dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    let tmp = dest.join(format!(".{folder}.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    if dep.ecosystem == Ecosystem::Go {
        // A module zip's digest is over its files, not its bytes.
        let done = std::fs::create_dir_all(&tmp)
            .map_err(|e| e.to_string())
            .and_then(|_| unpack_go_zip(&bytes, dep, expected, &tmp, &target));
        let _ = std::fs::remove_dir_all(&tmp);
        done.map_err(|e| format!("{url}: {e}"))?;
        return Ok(Located {
            root: target,
            includes: Vec::new(),
        });
    }
    if let Err(why) = verify(&bytes, expected) {
        return Err(format!("{url}: {why}; refused, nothing kept"));
    }
    let unpacked = (|| -> Result<(), String> {
        std::fs::create_dir_all(&tmp).map_err(|e| e.to_string())?;
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
        for entry in archive.entries().map_err(|e| e.to_string())? {
            let mut entry = entry.map_err(|e| e.to_string())?;
            // `unpack_in` refuses paths that leave the folder (`..`, absolute).
            if !entry.unpack_in(&tmp).map_err(|e| e.to_string())? {
                return Err("the archive holds a path outside its folder".into());
            }
        }
        // One top folder (`name-version/` for crates and sdists, `package/` for npm).
        let tops: Vec<PathBuf> = std::fs::read_dir(&tmp)
            .map_err(|e| e.to_string())?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        let [inner] = &tops[..] else {
            return Err(format!(
                "the archive has {} top folders, not one",
                tops.len()
            ));
        };
        std::fs::rename(inner, &target).map_err(|e| e.to_string())
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    unpacked.map_err(|e| format!("{url}: {e}; nothing kept"))?;
    Ok(Located {
        root: target,
        includes: Vec::new(),
    })
}

/// Whether `bytes` have the digest `expected`: SHA-256 hex (optionally `sha256:`-prefixed)
/// or an npm integrity string `sha512-<base64>`.
fn verify(bytes: &[u8], expected: &str) -> Result<(), String> {
    use sha2::Digest as _;
    let expected = expected.trim();
    if let Some(b64) = expected.strip_prefix("sha512-") {
        let got = base64(&sha2::Sha512::digest(bytes));
        return if got == b64 {
            Ok(())
        } else {
            Err(format!("its sha512 is {got}, the lockfile says {b64}"))
        };
    }
    let hex = expected.strip_prefix("sha256:").unwrap_or(expected);
    let got: String = sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    if got.eq_ignore_ascii_case(hex) {
        Ok(())
    } else {
        Err(format!("its SHA-256 is {got}, the lockfile says {hex}"))
    }
}

/// Standard base64 with padding (what npm's integrity strings use).
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lockfiles_are_read_with_direct_dependencies_marked() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/*\"]\n[workspace.dependencies]\nserde = \"1\"\n",
        )
        .unwrap();
        std::fs::create_dir_all(d.join("crates/a")).unwrap();
        std::fs::write(
            d.join("crates/a/Cargo.toml"),
            "[package]\nname = \"a\"\n[dependencies]\njson = { package = \"serde_json\", version = \"1\" }\n",
        )
        .unwrap();
        std::fs::write(
            d.join("Cargo.lock"),
            "version = 4\n[[package]]\nname = \"a\"\nversion = \"0.1.0\"\n\n\
             [[package]]\nname = \"serde\"\nversion = \"1.0.228\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n\
             [[package]]\nname = \"serde_json\"\nversion = \"1.0.1\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n\
             [[package]]\nname = \"itoa\"\nversion = \"1.0.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n",
        )
        .unwrap();
        std::fs::write(
            d.join("package-lock.json"),
            r#"{"lockfileVersion": 3, "packages": {
                "": {"dependencies": {"left-pad": "^1"}},
                "node_modules/left-pad": {"version": "1.3.0"},
                "node_modules/@scope/x": {"version": "2.0.0"},
                "node_modules/left-pad/node_modules/left-pad": {"version": "1.0.0"}}}"#,
        )
        .unwrap();
        std::fs::write(
            d.join("requirements.txt"),
            "# pins\nRequests[socks]==2.31.0 ; python_version > '3'\nflask>=2\n",
        )
        .unwrap();
        std::fs::write(
            d.join("go.mod"),
            "module x\n\nrequire (\n\tgithub.com/BurntSushi/toml v1.3.2\n\tgolang.org/x/text v0.14.0 // indirect\n)\n",
        )
        .unwrap();
        let deps = read(d, None).unwrap();
        let got: Vec<(String, bool)> = deps.iter().map(|d| (d.store_name(), d.direct)).collect();
        assert_eq!(
            got,
            [
                ("dep:cargo:itoa@1.0.0".to_string(), false),
                ("dep:cargo:serde@1.0.228".into(), true),
                ("dep:cargo:serde_json@1.0.1".into(), true),
                ("dep:npm:@scope+x@2.0.0".into(), false),
                ("dep:npm:left-pad@1.0.0".into(), false),
                ("dep:npm:left-pad@1.3.0".into(), true),
                ("dep:python:requests@2.31.0".into(), true),
                ("dep:go:github.com+BurntSushi+toml@v1.3.2".into(), true),
                ("dep:go:golang.org+x+text@v0.14.0".into(), false),
            ]
        );
        for d in &deps {
            assert!(
                lore_core::validate_store_name(&d.store_name()).is_ok(),
                "{}",
                d.store_name()
            );
        }
        std::fs::write(d.join("bad.lock"), "not = [toml").unwrap();
        assert!(read(d, Some(&d.join("Cargo.lock"))).is_ok());
        let e = read(d, Some(&d.join("package-lock.json"))).unwrap();
        assert_eq!(e.len(), 3);
    }

    #[test]
    fn digests_are_checked_in_each_lockfile_form() {
        assert_eq!(base64(b"hello"), "aGVsbG8=");
        assert_eq!(base64(b"hi!"), "aGkh");
        let sha256 = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
        assert!(verify(b"hello", sha256).is_ok());
        assert!(verify(b"hello", &format!("sha256:{sha256}")).is_ok());
        assert!(verify(b"hellO", sha256).is_err());
        let sha512 = "sha512-m3HSJL1i83hdltRq0+o9czGb+8KJDKra4t/3JRlnPKcjI8PZm6XBHXx6zG4UuMXaDEZjR1wuXDre9G9zvN7AQw==";
        assert!(
            verify(b"hello", sha512).is_ok(),
            "{}",
            base64(&<sha2::Sha512 as sha2::Digest>::digest(b"hello"))
        );
        assert!(verify(b"other", sha512).is_err());
    }

    #[test]
    fn a_python_package_is_its_record() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("venv/lib/python3.11/site-packages");
        std::fs::create_dir_all(site.join("Tiny_Pkg-1.2.dist-info")).unwrap();
        std::fs::write(
            site.join("Tiny_Pkg-1.2.dist-info/RECORD"),
            "tiny_pkg/__init__.py,sha256=x,10\ntiny_pkg/__pycache__/a.pyc,,\ntiny_helper.py,,\n\
             Tiny_Pkg-1.2.dist-info/RECORD,,\n../../../bin/tiny,,\n",
        )
        .unwrap();
        let dep = Dependency {
            ecosystem: Ecosystem::Python,
            name: "tiny-pkg".into(),
            version: "1.2".into(),
            direct: true,
            lockfile: "requirements.txt".into(),
            checksum: None,
            archive: None,
        };
        let caches = Caches {
            virtual_env: Some(dir.path().join("venv")),
            ..Caches::default()
        };
        let at = locate(&dep, dir.path(), &caches).unwrap();
        assert_eq!(at.root, site);
        assert_eq!(at.includes, ["tiny_helper.py", "tiny_pkg/**"]);
    }
}
