//! Lockfiles and manifests read: which dependency is locked at which version, whether the
//! project's own manifest names it, and what the lockfile says of its archive.

use super::{Archive, Archives, Dependency, Ecosystem};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A TOML lockfile's `[[package]]` tables (Cargo.lock, uv.lock, poetry.lock).
#[derive(serde::Deserialize)]
struct Lock<P> {
    #[serde(default = "Vec::new")]
    package: Vec<P>,
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

/// What the lockfiles pin: the dependencies whose name and version pass
/// `Dependency::check`, and a line for each entry refused.
#[derive(Debug, Default)]
pub struct Locked {
    pub deps: Vec<Dependency>,
    /// `<lockfile>: <why>`, one per refused entry.
    pub refused: Vec<String>,
}

/// Every dependency the lockfiles in `project` pin (or only those of `lockfile`), sorted,
/// each once per ecosystem, name and version; entries whose name or version is not of the
/// ecosystem's grammar are refused (`Locked::refused`), never looked up.
pub fn read(project: &Path, lockfile: Option<&Path>) -> Result<Locked, LockfileError> {
    let files: Vec<PathBuf> = match lockfile {
        Some(f) => vec![f.to_path_buf()],
        None => LOCKFILES
            .iter()
            .map(|f| project.join(f))
            .filter(|f| f.is_file())
            .collect(),
    };
    let mut out = std::collections::BTreeMap::new();
    let mut refused = Vec::new();
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
            "Cargo.lock" => cargo(&text, &mut sums).map_err(fail)?,
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
            let dep = Dependency {
                ecosystem,
                name,
                version,
                direct,
                lockfile: shown.clone(),
                checksum: archive.checksum,
                archive: archive.url,
                installed: archive.installed,
            };
            match dep.check() {
                // Once per package and version (npm may install one in several places).
                Ok(()) => match out.entry((ecosystem, dep.name.clone(), dep.version.clone())) {
                    std::collections::btree_map::Entry::Vacant(v) => {
                        v.insert(dep);
                    }
                    std::collections::btree_map::Entry::Occupied(mut o) => {
                        o.get_mut().direct |= dep.direct;
                    }
                },
                Err(why) => refused.push(format!("{shown}: {why}; refused")),
            }
        }
    }
    refused.sort();
    refused.dedup();
    Ok(Locked {
        deps: out.into_values().collect(),
        refused,
    })
}

/// Cargo.lock's registry packages. Direct are those the project's own packages (the
/// workspace members and path dependencies: no `source`) list as dependencies: Cargo.lock
/// names each as `name` when one version is locked, else `name version`, so the version
/// a manifest asked for (`sha2 = "0.11"` beside a transitive 0.10) and every target's
/// table (`[target.'cfg(unix)'.dependencies]`) are as cargo resolved them.
fn cargo(
    text: &str,
    sums: &mut Archives,
) -> Result<Vec<(Ecosystem, String, String, bool)>, String> {
    #[derive(serde::Deserialize)]
    struct Package {
        name: String,
        version: String,
        #[serde(default)]
        source: Option<String>,
        #[serde(default)]
        checksum: Option<String>,
        #[serde(default)]
        dependencies: Vec<String>,
    }
    let lock: Lock<Package> = toml::from_str(text).map_err(|e| e.message().to_string())?;
    let mut direct: BTreeSet<(&str, Option<&str>)> = BTreeSet::new();
    for p in lock.package.iter().filter(|p| p.source.is_none()) {
        for d in &p.dependencies {
            let mut words = d.split_whitespace();
            if let Some(name) = words.next() {
                direct.insert((name, words.next()));
            }
        }
    }
    let is_direct = |p: &Package| {
        direct.contains(&(p.name.as_str(), None))
            || direct.contains(&(p.name.as_str(), Some(p.version.as_str())))
    };
    let mut out = Vec::new();
    // Workspace members and path dependencies have no source: they are the project.
    for p in &lock.package {
        if !p
            .source
            .as_deref()
            .is_some_and(|s| s.starts_with("registry+"))
        {
            continue;
        }
        sums.insert(
            (p.name.clone(), p.version.clone()),
            Archive {
                checksum: p.checksum.clone(),
                ..Archive::default()
            },
        );
        out.push((
            Ecosystem::Cargo,
            p.name.clone(),
            p.version.clone(),
            is_direct(p),
        ));
    }
    Ok(out)
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
        let archive = sums
            .entry((name.to_string(), version.to_string()))
            .or_default();
        if archive
            .installed
            .as_ref()
            .is_none_or(|i| i.len() > path.len())
        {
            *archive = Archive {
                url: p["resolved"].as_str().map(str::to_string),
                checksum: p["integrity"].as_str().map(str::to_string),
                installed: Some(path.clone()),
            };
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
    struct Package {
        name: String,
        version: String,
        #[serde(default)]
        source: Option<toml::Value>,
        /// uv: the source archive, `{url, hash = "sha256:…"}`.
        #[serde(default)]
        sdist: Option<toml::Value>,
    }
    let lock: Lock<Package> = toml::from_str(text).map_err(|e| e.message().to_string())?;
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
                        installed: None,
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
                    checksum: Some(hash.to_string()),
                    ..Archive::default()
                },
            );
        }
    }
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
            "version = 4\n[[package]]\nname = \"a\"\nversion = \"0.1.0\"\n\
             dependencies = [\"rustix\", \"serde\", \"serde_json\", \"sha2 0.11.0\"]\n\n\
             [[package]]\nname = \"sha2\"\nversion = \"0.10.9\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n\
             [[package]]\nname = \"sha2\"\nversion = \"0.11.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n\
             [[package]]\nname = \"rustix\"\nversion = \"1.1.2\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n\
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
                "node_modules/left-pad/node_modules/left-pad": {"version": "1.0.0"},
                "node_modules/@scope/x/node_modules/left-pad": {"version": "1.0.0"}}}"#,
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
        let locked = read(d, None).unwrap();
        assert_eq!(locked.refused, Vec::<String>::new());
        let deps = locked.deps;
        let got: Vec<(String, bool)> = deps.iter().map(|d| (d.store_name(), d.direct)).collect();
        assert_eq!(
            got,
            [
                ("dep:cargo:itoa@1.0.0".to_string(), false),
                ("dep:cargo:rustix@1.1.2".into(), true),
                ("dep:cargo:serde@1.0.228".into(), true),
                ("dep:cargo:serde_json@1.0.1".into(), true),
                ("dep:cargo:sha2@0.10.9".into(), false),
                ("dep:cargo:sha2@0.11.0".into(), true),
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
        assert_eq!(e.deps.len(), 3);
        // One store for a version npm installed twice, found where the lock put it.
        let nested = deps
            .iter()
            .find(|d| d.store_name() == "dep:npm:left-pad@1.0.0");
        assert_eq!(
            nested.and_then(|d| d.installed.as_deref()),
            Some("node_modules/@scope/x/node_modules/left-pad")
        );
    }

    /// Names and versions that would name another folder are refused, whatever the
    /// lockfile: absolute paths, `..`, hidden names, separators where the grammar has none.
    #[test]
    fn names_and_versions_that_are_paths_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let reg = "source = \"registry+https://github.com/rust-lang/crates.io-index\"";
        std::fs::write(
            d.join("Cargo.lock"),
            format!(
                "[[package]]\nname = \"/abs/path\"\nversion = \"1.0.0\"\n{reg}\n\n\
                 [[package]]\nname = \"evil\"\nversion = \"1.0.0/../../../../x\"\n{reg}\n\n\
                 [[package]]\nname = \"..\"\nversion = \"1.0.0\"\n{reg}\n\n\
                 [[package]]\nname = \"ok\"\nversion = \"1.0.0-rc.1+build\"\n{reg}\n"
            ),
        )
        .unwrap();
        std::fs::write(
            d.join("package-lock.json"),
            r#"{"lockfileVersion": 3, "packages": {"": {},
                "node_modules//abs/path": {"version": "1.0.0"},
                "node_modules/@s/../../x": {"version": "1.0.0"},
                "node_modules/.hidden": {"version": "1.0.0"},
                "node_modules/fine": {"version": "../1.0.0"},
                "node_modules/@s/good": {"version": "2.0.0"}}}"#,
        )
        .unwrap();
        std::fs::write(d.join("go.mod"), "module x\nrequire ../../etc v1.0.0\n").unwrap();
        let locked = read(d, None).unwrap();
        let names: Vec<String> = locked.deps.iter().map(Dependency::store_name).collect();
        assert_eq!(
            names,
            ["dep:cargo:ok@1.0.0-rc.1+build", "dep:npm:@s+good@2.0.0"]
        );
        assert_eq!(locked.refused.len(), 8, "{:#?}", locked.refused);
        assert!(
            locked
                .refused
                .iter()
                .any(|r| r.contains("\"/abs/path\" is not a cargo package name")),
            "{:#?}",
            locked.refused
        );
    }
}
