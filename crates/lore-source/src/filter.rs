//! What a walk keeps, path by path: the one answer to "would `walk` index this path", used by
//! the walk itself and by watchers judging file-system events.
//!
//! Ignore files apply as the `ignore` crate's walker applies them with `require_git(false)`
//! and `parents(true)`: the `.ignore`, `.gitignore` and `.git/info/exclude` of the folder
//! holding a path and of every folder above it, up past the root (no repository needed),
//! deepest first; a `.ignore` match beats a `.gitignore` match, which beats an exclude match.
//! An ignored folder is not entered, so nothing under it is kept whatever it says. A hidden
//! name (leading `.`) is skipped unless a rule whitelists it. The store's globs then judge
//! files (not folders).

use crate::SourceError;
use crate::options::WalkOptions;
use globset::{Glob, GlobSet, GlobSetBuilder};
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The ignore files of one folder.
pub(crate) struct Rules {
    ignore: Gitignore,
    git: Gitignore,
    exclude: Gitignore,
}

impl Rules {
    /// `None` when the folder has no rules. Unreadable files and bad lines are skipped, as
    /// the `ignore` crate does.
    fn read(dir: &Path) -> Option<Arc<Rules>> {
        // Read as a regular file only, never through a symlink at its last step, and
        // capped: a repository's `.gitignore` may be a FIFO, a device or a link elsewhere.
        let load = |file: PathBuf| {
            let Some(bytes) = crate::tree::read_small(&file, MAX_IGNORE_FILE) else {
                return Gitignore::empty();
            };
            let mut b = GitignoreBuilder::new(dir);
            for (i, line) in bytes.split(|&c| c == b'\n').enumerate() {
                let Ok(line) = std::str::from_utf8(line) else {
                    continue;
                };
                let line = line.strip_suffix('\r').unwrap_or(line);
                // Git reads a file that starts with a byte-order mark without it.
                let line = if i == 0 {
                    line.trim_start_matches('\u{feff}')
                } else {
                    line
                };
                let _ = b.add_line(Some(file.clone()), line);
            }
            b.build().unwrap_or_else(|_| Gitignore::empty())
        };
        let rules = Rules {
            ignore: load(dir.join(".ignore")),
            git: load(dir.join(".gitignore")),
            exclude: git_dir(dir).map_or_else(Gitignore::empty, |g| load(g.join("info/exclude"))),
        };
        let empty = rules.ignore.is_empty() && rules.git.is_empty() && rules.exclude.is_empty();
        (!empty).then(|| Arc::new(rules))
    }
}

/// The git dir of a repository rooted at `dir`: `.git`, or for a worktree (`.git` is a
/// `gitdir:` file) the common dir it names.
fn git_dir(dir: &Path) -> Option<PathBuf> {
    let dot_git = dir.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    if meta.is_dir() {
        return Some(dot_git);
    }
    let text = String::from_utf8(crate::tree::read_small(&dot_git, 4096)?).ok()?;
    let linked = dir.join(text.lines().next()?.strip_prefix("gitdir: ")?);
    let common =
        String::from_utf8(crate::tree::read_small(&linked.join("commondir"), 4096)?).ok()?;
    Some(linked.join(common.lines().next()?))
}

/// Largest ignore file read (git has no limit; 1 MiB is far past any real one).
const MAX_IGNORE_FILE: u64 = 1024 * 1024;

pub(crate) fn glob_set(globs: &[String]) -> Result<Option<GlobSet>, SourceError> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut b = GlobSetBuilder::new();
    for g in globs {
        let glob =
            Glob::new(g).map_err(|e| SourceError::BadGlob(g.clone(), e.kind().to_string()))?;
        b.add(glob);
        // `src/**` style globs should also match when given as a bare folder name.
        if !g.contains('*') && !g.contains('?') && !g.contains('[') {
            let deep = format!("{}/**", g.trim_end_matches('/'));
            if let Ok(glob) = Glob::new(&deep) {
                b.add(glob);
            }
        }
    }
    b.build()
        .map(Some)
        .map_err(|e| SourceError::BadGlob(globs.join(","), e.to_string()))
}

/// A name that starts with a dot.
fn hidden(rel: &Path) -> bool {
    rel.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
}

/// A path relative to the root with `/` separators on every platform.
pub(crate) fn slash_path(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Judges paths under one root as `walk` would. Ignore files are read once per folder, on
/// first use: build a new filter when one of them changes.
pub struct PathFilter {
    /// Canonical, as the ignore files above it are found from its real path.
    root: PathBuf,
    includes: Option<GlobSet>,
    excludes: Option<GlobSet>,
    /// Rules of the folders above the root, nearest first.
    above: Vec<Arc<Rules>>,
    /// Rules of folders under the root by relative path (the root's is the empty path).
    below: HashMap<PathBuf, Option<Arc<Rules>>>,
    /// Folders never entered (`WalkOptions::leave_out`).
    leave_out: Vec<PathBuf>,
    /// `WalkOptions::no_ignore`: no ignore file is read.
    no_ignore: bool,
}

impl PathFilter {
    /// Fails only on a bad glob.
    pub fn new(root: &Path, opts: &WalkOptions) -> Result<PathFilter, SourceError> {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        Ok(PathFilter {
            includes: glob_set(&opts.includes)?,
            excludes: glob_set(&opts.excludes)?,
            above: if opts.no_ignore {
                Vec::new()
            } else {
                root.ancestors().skip(1).filter_map(Rules::read).collect()
            },
            below: HashMap::new(),
            leave_out: opts.leave_out.clone(),
            no_ignore: opts.no_ignore,
            root,
        })
    }

    /// Whether `walk` lists the file at `rel` (relative to the root), its size aside: no
    /// folder on the way is ignored or hidden, nor is the file, and the globs keep it. The
    /// file need not exist: a deleted file is judged by its path.
    pub fn keeps_file(&mut self, rel: &Path) -> bool {
        self.enters_parents(rel) && self.keeps_entry(rel, false) && self.globs_keep(rel)
    }

    /// Whether `walk` enters the folder at `rel` (globs judge files only).
    pub fn enters(&mut self, rel: &Path) -> bool {
        self.enters_parents(rel) && (rel.as_os_str().is_empty() || self.keeps_entry(rel, true))
    }

    fn enters_parents(&mut self, rel: &Path) -> bool {
        let parents: Vec<PathBuf> = rel
            .ancestors()
            .skip(1)
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .collect();
        // Outermost first: an ignored folder hides whatever its inner rules say.
        parents.iter().rev().all(|p| self.keeps_entry(p, true))
    }

    /// The entry `rel` of a folder the walk entered, by ignore files and hidden names.
    pub(crate) fn keeps_entry(&mut self, rel: &Path, is_dir: bool) -> bool {
        let chain = self.chain(rel.parent().unwrap_or(Path::new("")));
        self.judge(&chain, rel, is_dir)
    }

    /// The rules that apply to entries of the folder `dir`, deepest first.
    pub(crate) fn chain(&mut self, dir: &Path) -> Vec<Arc<Rules>> {
        let mut chain = Vec::new();
        for d in dir.ancestors() {
            let no_ignore = self.no_ignore;
            let rules = self.below.entry(d.to_path_buf()).or_insert_with(|| {
                if no_ignore {
                    return None;
                }
                let abs = if d.as_os_str().is_empty() {
                    self.root.clone()
                } else {
                    self.root.join(d)
                };
                Rules::read(&abs)
            });
            chain.extend(rules.clone());
        }
        chain.extend(self.above.iter().cloned());
        chain
    }

    /// An entry against the rules of its folders (`chain`, from `chain`).
    pub(crate) fn judge(&self, chain: &[Arc<Rules>], rel: &Path, is_dir: bool) -> bool {
        if is_dir && self.left_out(rel) {
            return false;
        }
        match self.rule_for(chain, rel, is_dir) {
            Match::Ignore(_) => false,
            Match::Whitelist(_) => true,
            Match::None => !hidden(rel),
        }
    }

    /// The rule that ignores a (not hidden) entry, as written, and the file it is in.
    pub(crate) fn ignored_by(
        &self,
        chain: &[Arc<Rules>],
        rel: &Path,
        is_dir: bool,
    ) -> Option<(String, String)> {
        match self.rule_for(chain, rel, is_dir) {
            Match::Ignore(glob) if !hidden(rel) => Some((
                glob.original().to_string(),
                glob.from()
                    .map_or_else(String::new, |f| f.display().to_string()),
            )),
            _ => None,
        }
    }

    /// The deciding rule of the chain for an entry: `.ignore` beats `.gitignore`, which
    /// beats git's exclude file; within each, the deepest folder's rules first.
    fn rule_for<'a>(
        &self,
        chain: &'a [Arc<Rules>],
        rel: &Path,
        is_dir: bool,
    ) -> Match<&'a ignore::gitignore::Glob> {
        let path = self.root.join(rel);
        let first = |pick: fn(&Rules) -> &Gitignore| {
            chain
                .iter()
                .map(|r| pick(r).matched(&path, is_dir))
                .find(|m| !m.is_none())
                .unwrap_or(Match::None)
        };
        first(|r| &r.ignore)
            .or(first(|r| &r.git))
            .or(first(|r| &r.exclude))
    }

    /// Whether the folder at `rel` is one never entered.
    pub(crate) fn left_out(&self, rel: &Path) -> bool {
        !self.leave_out.is_empty() && self.leave_out.contains(&self.root.join(rel))
    }

    /// The include and exclude globs over a file's relative path.
    pub(crate) fn globs_keep(&self, rel: &Path) -> bool {
        let rel = slash_path(rel);
        self.includes.as_ref().is_none_or(|g| g.is_match(&rel))
            && !self.excludes.as_ref().is_some_and(|g| g.is_match(&rel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn filter(root: &Path, includes: &[&str], excludes: &[&str]) -> PathFilter {
        let opts = WalkOptions {
            includes: includes.iter().map(|s| s.to_string()).collect(),
            excludes: excludes.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        PathFilter::new(root, &opts).unwrap()
    }

    /// A project with a repository's exclude file, nested ignore files and a negation.
    fn project() -> tempfile::TempDir {
        let dir = tempfile::Builder::new().prefix("filter").tempdir().unwrap();
        let root = dir.path();
        write(root, ".gitignore", "target/\n*.log\n!keep.log\n");
        write(root, ".git/info/exclude", "secret.txt\n");
        write(root, "web/.gitignore", "node_modules/\n/dist\n");
        write(root, "web/.ignore", "!dist\n!.well-known\n");
        write(root, "target/.gitignore", "!*\n");
        for rel in [
            "src/lib.rs",
            "src/deep/mod.rs",
            "src/debug.log",
            "src/keep.log",
            "target/debug/build.rs",
            "web/app.ts",
            "web/node_modules/x/index.js",
            "web/dist/bundle.js",
            "web/lib/dist/y.js",
            "secret.txt",
            ".env",
            "src/.cache/c.rs",
            "notes/a.md",
            "web/.well-known/security.txt",
        ] {
            write(root, rel, "x");
        }
        dir
    }

    #[test]
    fn ignore_files_hidden_names_and_negation() {
        let dir = project();
        let mut f = filter(dir.path(), &[], &[]);
        let keeps = |f: &mut PathFilter, rel: &str| f.keeps_file(Path::new(rel));
        assert!(keeps(&mut f, "src/lib.rs"));
        assert!(keeps(&mut f, "src/deep/mod.rs"));
        // A gitignored folder, whatever it holds (even a `.gitignore` whitelisting all).
        assert!(!keeps(&mut f, "target/debug/build.rs"));
        assert!(!f.enters(Path::new("target")));
        assert!(!f.enters(Path::new("target/debug")));
        // Patterns and their negation.
        assert!(!keeps(&mut f, "src/debug.log"));
        assert!(keeps(&mut f, "src/keep.log"));
        // Nested: `node_modules/` anywhere below web/, `/dist` only at web/ — but web/.ignore
        // whitelists it, and `.ignore` wins over `.gitignore`.
        assert!(!keeps(&mut f, "web/node_modules/x/index.js"));
        assert!(keeps(&mut f, "web/dist/bundle.js"));
        assert!(keeps(&mut f, "web/lib/dist/y.js"));
        assert!(keeps(&mut f, "web/app.ts"));
        // The repository's exclude file.
        assert!(!keeps(&mut f, "secret.txt"));
        // Hidden names, files and folders.
        assert!(!keeps(&mut f, ".env"));
        assert!(!keeps(&mut f, "src/.cache/c.rs"));
        assert!(!keeps(&mut f, ".git/config"));
        assert!(!f.enters(Path::new(".git")));
        assert!(keeps(&mut f, "web/.well-known/security.txt"));
        // Paths that do not exist (deleted) are judged by their names.
        assert!(keeps(&mut f, "src/gone.rs"));
        assert!(!keeps(&mut f, "target/gone.rs"));
        assert!(!keeps(&mut f, "web/node_modules/gone/index.js"));
        assert!(f.enters(Path::new("")));
        assert!(f.enters(Path::new("src/new")));
    }

    #[test]
    fn globs_judge_files_not_folders() {
        let dir = project();
        let mut f = filter(dir.path(), &["src/**/*.rs", "notes"], &["src/deep"]);
        assert!(f.keeps_file(Path::new("src/lib.rs")));
        assert!(f.keeps_file(Path::new("notes/a.md")));
        assert!(!f.keeps_file(Path::new("src/deep/mod.rs")));
        assert!(!f.keeps_file(Path::new("web/app.ts")));
        // Ignore rules still apply inside included folders.
        assert!(!f.keeps_file(Path::new("target/x.rs")));
        assert!(f.enters(Path::new("web")));
        assert!(f.enters(Path::new("src/deep")));
        assert!(matches!(
            PathFilter::new(
                dir.path(),
                &WalkOptions {
                    excludes: vec!["[".into()],
                    ..Default::default()
                }
            ),
            Err(SourceError::BadGlob(..))
        ));
    }

    #[test]
    fn rules_above_the_root_apply() {
        let dir = project();
        let mut f = filter(&dir.path().join("web"), &[], &[]);
        assert!(f.keeps_file(Path::new("app.ts")));
        assert!(!f.keeps_file(Path::new("node_modules/x/index.js")));
        assert!(!f.keeps_file(Path::new("trace.log")));
    }

    /// The filter says yes to exactly the files the walk lists, and without globs those are
    /// the files the `ignore` crate's walker lists with the same settings.
    #[test]
    fn agrees_with_the_walk_and_the_ignore_crate() {
        let dir = project();
        let root = dir.path();
        for (includes, excludes) in [(vec![], vec![]), (vec!["**/*.rs", "web"], vec!["web/dist"])] {
            let mut f = filter(root, &includes, &excludes);
            let opts = WalkOptions {
                includes: includes.iter().map(|s| s.to_string()).collect(),
                excludes: excludes.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            };
            let walked: Vec<String> = crate::walk(root, &opts)
                .unwrap()
                .files
                .into_iter()
                .map(|f| f.rel)
                .collect();
            let mut kept = Vec::new();
            let mut stack = vec![PathBuf::new()];
            while let Some(d) = stack.pop() {
                for e in std::fs::read_dir(root.join(&d)).unwrap() {
                    let rel = d.join(e.unwrap().file_name());
                    if root.join(&rel).is_dir() {
                        stack.push(rel);
                    } else if f.keeps_file(&rel) {
                        kept.push(slash_path(&rel));
                    }
                }
            }
            kept.sort();
            assert_eq!(walked, kept);
            if includes.is_empty() {
                let mut reference: Vec<String> = ignore::WalkBuilder::new(root)
                    .git_global(false)
                    .require_git(false)
                    .build()
                    .filter_map(Result::ok)
                    .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                    .map(|e| slash_path(e.path().strip_prefix(root).unwrap()))
                    .collect();
                reference.sort();
                assert_eq!(walked, reference);
            }
        }
    }
}
