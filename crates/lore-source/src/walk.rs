use crate::SourceError;
use crate::filter::{PathFilter, glob_set, slash_path};
use crate::options::{SkipReason, WalkOptions};
use crate::tree::{Tree, read_limited};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A file found by a walk. `rel` uses `/` separators on every platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    pub rel: String,
    pub abs: PathBuf,
    pub size: u64,
    pub mtime_ns: i64,
}

#[derive(Debug, Default)]
pub struct Walk {
    /// The root as opened: read the files through it (`Tree::read_text`), never by path.
    pub tree: Option<Arc<Tree>>,
    pub files: Vec<SourceFile>,
    pub skipped: Vec<(String, SkipReason)>,
    /// Folders of `WalkOptions::leave_out` that the walk met and did not enter (relative).
    pub left_out: Vec<String>,
    /// The ignore rule that left out most of the root's own entries, when it left out more
    /// than half of them: a tree whose ignore file excludes everything at its top (Debian's
    /// kernel source ships `/*` then `!/debian/`) is worth a warning.
    pub ignored_top: Option<IgnoredTop>,
}

/// One ignore rule that hid most of a walk's top level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredTop {
    /// The rule as written, e.g. `/*`.
    pub rule: String,
    /// The ignore file it is in, relative to the root when it lies under it.
    pub file: String,
    /// Entries of the root it left out, and the root's entries in all.
    pub ignored: usize,
    pub entries: usize,
}

/// Checks globs without walking (so bad input fails before anything is written).
pub fn validate_globs(opts: &WalkOptions) -> Result<(), SourceError> {
    glob_set(&opts.includes)?;
    glob_set(&opts.excludes)?;
    Ok(())
}

pub fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// Lists the files under `root` that a store indexes, sorted by path: those `PathFilter`
/// keeps (ignore files, hidden names, globs) within the size cap (stat only: nothing is
/// read). Every folder is listed through the root's handle (`Tree`): no symbolic link is
/// followed, including one swapped in for a folder while the walk runs.
pub fn walk(root: &Path, opts: &WalkOptions) -> Result<Walk, SourceError> {
    let tree = Tree::open(root, &opts.reads)?;
    let mut filter = PathFilter::new(tree.real(), opts)?;
    let mut out = Walk::default();
    let unreadable =
        |rel: &Path, e: std::io::Error| (slash_path(rel), SkipReason::Unreadable(e.to_string()));
    let mut dirs = vec![PathBuf::new()];
    let mut top: Vec<(String, String, usize)> = Vec::new();
    let mut top_entries = 0;
    while let Some(dir) = dirs.pop() {
        let entries = match tree.list(&dir) {
            Ok(e) => e,
            Err(e) => {
                out.skipped.push(unreadable(&dir, e));
                continue;
            }
        };
        let chain = filter.chain(&dir);
        let at_top = dir.as_os_str().is_empty();
        for (name, stat) in entries {
            let rel = dir.join(name);
            if at_top {
                top_entries += 1;
                let is_dir = stat
                    .as_ref()
                    .is_ok_and(|s| s.kind == rustix::fs::FileType::Directory);
                if let Some((rule, file)) = filter.ignored_by(&chain, &rel, is_dir) {
                    match top.iter_mut().find(|t| t.0 == rule && t.1 == file) {
                        Some(t) => t.2 += 1,
                        None => top.push((rule, file, 1)),
                    }
                }
            }
            let stat = match stat {
                Ok(s) => s,
                Err(e) => {
                    out.skipped.push(unreadable(&rel, e));
                    continue;
                }
            };
            if stat.kind == rustix::fs::FileType::Directory {
                if filter.left_out(&rel) {
                    out.left_out.push(slash_path(&rel));
                } else if filter.judge(&chain, &rel, true) {
                    dirs.push(rel);
                }
                continue;
            }
            if stat.kind != rustix::fs::FileType::RegularFile
                || !filter.judge(&chain, &rel, false)
                || !filter.globs_keep(&rel)
            {
                continue;
            }
            let rel_str = slash_path(&rel);
            if stat.size > opts.max_file_bytes {
                out.skipped.push((rel_str, SkipReason::TooLarge(stat.size)));
                continue;
            }
            if tree.single_link() && stat.links > 1 {
                out.skipped
                    .push((rel_str, SkipReason::HardLink(stat.links)));
                continue;
            }
            out.files.push(SourceFile {
                abs: tree.real().join(&rel),
                rel: rel_str,
                size: stat.size,
                mtime_ns: stat.mtime_ns,
            });
        }
    }
    out.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.ignored_top = top
        .into_iter()
        .max_by_key(|t| t.2)
        .filter(|t| t.2 >= 2 && t.2 * 2 > top_entries)
        .map(|(rule, file, ignored)| {
            let file = Path::new(&file)
                .strip_prefix(tree.real())
                .map_or(file.clone(), slash_path);
            IgnoredTop {
                rule,
                file,
                ignored,
                entries: top_entries,
            }
        });
    out.tree = Some(Arc::new(tree));
    Ok(out)
}

/// Reads a file by path as text: `Err` says why it is not indexable (binary, not UTF-8,
/// unreadable). A store's files are read through its walk's `Tree` instead.
pub fn read_text(path: &Path, max_bytes: u64) -> Result<String, SkipReason> {
    let file = std::fs::File::open(path).map_err(|e| SkipReason::Unreadable(e.to_string()))?;
    read_limited(file, max_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_gitignore_aware_with_globs_and_caps() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        std::fs::write(root.join("src/a.rs"), "fn a() {}").unwrap();
        std::fs::write(root.join("src/deep/b.py"), "def b(): pass").unwrap();
        std::fs::write(root.join("target/out.rs"), "fn x() {}").unwrap();
        std::fs::write(root.join("x.log"), "log").unwrap();
        std::fs::write(root.join("big.txt"), vec![b'a'; 2000]).unwrap();
        let opts = WalkOptions {
            max_file_bytes: 1000,
            ..Default::default()
        };
        let w = walk(root, &opts).unwrap();
        let rels: Vec<_> = w.files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(rels, ["src/a.rs", "src/deep/b.py"]);
        assert_eq!(
            w.skipped,
            [("big.txt".to_string(), SkipReason::TooLarge(2000))]
        );

        let only_py = WalkOptions {
            includes: vec!["**/*.py".into()],
            ..Default::default()
        };
        let rels: Vec<_> = walk(root, &only_py)
            .unwrap()
            .files
            .into_iter()
            .map(|f| f.rel)
            .collect();
        assert_eq!(rels, ["src/deep/b.py"]);
        let no_deep = WalkOptions {
            excludes: vec!["src/deep".into()],
            ..Default::default()
        };
        let rels: Vec<_> = walk(root, &no_deep)
            .unwrap()
            .files
            .into_iter()
            .map(|f| f.rel)
            .collect();
        assert_eq!(rels, ["big.txt", "src/a.rs"]);

        let bad = WalkOptions {
            includes: vec!["src/[".into()],
            ..Default::default()
        };
        assert!(matches!(walk(root, &bad), Err(SourceError::BadGlob(..))));
        assert!(matches!(
            walk(&root.join("nope"), &opts),
            Err(SourceError::NotAFolder(_))
        ));
    }

    #[test]
    fn an_ignore_file_that_hides_the_top_is_named_and_no_ignore_reads_past_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for rel in ["kernel/sched.c", "mm/slab.c", "debian/rules", "README"] {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), "x").unwrap();
        }
        std::fs::write(root.join(".gitignore"), "/*\n!/debian/\n").unwrap();
        let w = walk(root, &WalkOptions::default()).unwrap();
        let rels: Vec<_> = w.files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(rels, ["debian/rules"]);
        let top = w.ignored_top.expect("the rule is named");
        assert_eq!((top.rule.as_str(), top.file.as_str()), ("/*", ".gitignore"));
        // kernel, mm, README; `.gitignore` is hidden and `debian` whitelisted.
        assert_eq!((top.ignored, top.entries), (3, 5));

        let all = WalkOptions {
            no_ignore: true,
            ..Default::default()
        };
        let w = walk(root, &all).unwrap();
        let rels: Vec<_> = w.files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(
            rels,
            ["README", "debian/rules", "kernel/sched.c", "mm/slab.c"]
        );
        assert!(w.ignored_top.is_none());

        // A usual project: one build folder of five entries is no warning.
        std::fs::write(root.join(".gitignore"), "/kernel/\n").unwrap();
        assert!(
            walk(root, &WalkOptions::default())
                .unwrap()
                .ignored_top
                .is_none()
        );
    }

    #[test]
    fn read_text_rejects_binary_and_non_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("a.bin");
        std::fs::write(&bin, [1u8, 0, 2, 3]).unwrap();
        assert_eq!(read_text(&bin, 100).unwrap_err(), SkipReason::Binary);
        let latin1 = dir.path().join("l.txt");
        std::fs::write(&latin1, [b'c', b'a', b'f', 0xe9]).unwrap();
        assert_eq!(read_text(&latin1, 100).unwrap_err(), SkipReason::NotUtf8);
        let ok = dir.path().join("ok.txt");
        std::fs::write(&ok, "héllo").unwrap();
        assert_eq!(read_text(&ok, 100).unwrap(), "héllo");
        assert!(matches!(
            read_text(&dir.path().join("none"), 100),
            Err(SkipReason::Unreadable(_))
        ));
    }
}
