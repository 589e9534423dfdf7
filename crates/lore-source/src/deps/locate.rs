//! Where a dependency's source already is on this machine: the cargo registry's unpacked
//! crates, `node_modules/`, a virtual environment's `site-packages`, the Go module cache.

use super::{Dependency, Ecosystem, Located, go_escape, python_name};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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

/// Where `dep`'s source is on this machine, if it is: a folder whose real path lies under
/// the cache it was looked for in (a `node_modules/x` symlink to elsewhere is not `x`).
/// A dependency that fails `Dependency::check` is never looked for.
pub fn locate(dep: &Dependency, project: &Path, caches: &Caches) -> Option<Located> {
    dep.check().ok()?;
    let folder = |base: &Path, rel: &Path| {
        let root = std::fs::canonicalize(base.join(rel)).ok()?;
        (root.is_dir() && root.starts_with(std::fs::canonicalize(base).ok()?)).then_some(Located {
            root,
            includes: Vec::new(),
        })
    };
    match dep.ecosystem {
        Ecosystem::Cargo => {
            // registry/src/<index>/<name>-<version>, one folder per registry index.
            let src = caches.cargo_home.as_ref()?.join("registry/src");
            let want = format!("{}-{}", dep.name, dep.version);
            let mut indexes: Vec<std::ffi::OsString> = std::fs::read_dir(&src)
                .ok()?
                .filter_map(|e| e.ok().map(|e| e.file_name()))
                .collect();
            indexes.sort();
            indexes
                .into_iter()
                .find_map(|i| folder(&src, &Path::new(&i).join(&want)))
        }
        Ecosystem::Npm => {
            // Where the lockfile says npm put it (nested under the package that needs
            // this version when the top holds another), else the top.
            let modules = project.join("node_modules");
            let rel = dep
                .installed
                .as_deref()
                .and_then(|p| p.strip_prefix("node_modules/"))
                .filter(|rel| {
                    rel.ends_with(&dep.name)
                        && Path::new(rel)
                            .components()
                            .all(|c| matches!(c, std::path::Component::Normal(_)))
                })
                .unwrap_or(&dep.name);
            let at = folder(&modules, Path::new(rel))?;
            let manifest: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(at.root.join("package.json")).ok()?)
                    .ok()?;
            (manifest["version"] == dep.version.as_str()).then_some(at)
        }
        Ecosystem::Go => {
            let escaped = go_escape(&dep.name);
            folder(
                caches.go_mod_cache.as_ref()?,
                Path::new(&format!("{escaped}@{}", dep.version)),
            )
        }
        Ecosystem::Python => python_files(dep, caches.virtual_env.as_ref()?),
    }
}

/// What a live environment now holds at a dependency store's root, when it is not the
/// version the store is labelled with: an npm package's `package.json` version, or for a
/// Python store (rooted at `site-packages`) the version of the package's `.dist-info`.
/// `None` when the root still holds the label's version, or cannot tell (cargo and Go
/// caches and fetched archives are folders per version: they never change in place).
pub fn installed_instead(
    ecosystem: Ecosystem,
    name: &str,
    version: &str,
    root: &Path,
) -> Option<String> {
    match ecosystem {
        Ecosystem::Npm => {
            let text = std::fs::read_to_string(root.join("package.json")).ok()?;
            let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
            let now = manifest["version"].as_str()?;
            (now != version).then(|| now.to_string())
        }
        Ecosystem::Python => {
            let want = python_name(name);
            let versions: Vec<String> = std::fs::read_dir(root)
                .ok()?
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    let (dist, v) = n.strip_suffix(".dist-info")?.rsplit_once('-')?;
                    (python_name(dist) == want).then(|| v.to_string())
                })
                .collect();
            if versions.iter().any(|v| v == version) {
                return None;
            }
            Some(
                versions
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "none".to_string()),
            )
        }
        Ecosystem::Cargo | Ecosystem::Go => None,
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
    // The venv may be the project's own `.venv`: its site-packages must lie inside it.
    let site = std::fs::canonicalize(lib.join("site-packages")).ok()?;
    if !site.starts_with(std::fs::canonicalize(venv).ok()?) {
        return None;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
            installed: None,
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
