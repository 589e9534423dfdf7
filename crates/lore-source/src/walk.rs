use crate::SourceError;
use crate::filter::{PathFilter, glob_set, slash_path};
use std::io::Read;
use std::path::{Path, PathBuf};

/// What a walk keeps.
#[derive(Debug, Clone)]
pub struct WalkOptions {
    /// Globs over the relative path; empty means everything.
    pub includes: Vec<String>,
    pub excludes: Vec<String>,
    pub max_file_bytes: u64,
    /// Folders never entered, by real path (lore's data dir and brain when a store's
    /// source holds them): listed in `Walk::left_out` when met.
    pub leave_out: Vec<PathBuf>,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            includes: Vec::new(),
            excludes: Vec::new(),
            max_file_bytes: 1024 * 1024,
            leave_out: Vec::new(),
        }
    }
}

/// A file found by a walk. `rel` uses `/` separators on every platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    pub rel: String,
    pub abs: PathBuf,
    pub size: u64,
    pub mtime_ns: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    TooLarge(u64),
    Binary,
    NotUtf8,
    Unreadable(String),
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::TooLarge(n) => write!(f, "too large ({n} bytes)"),
            SkipReason::Binary => write!(f, "binary"),
            SkipReason::NotUtf8 => write!(f, "not UTF-8"),
            SkipReason::Unreadable(e) => write!(f, "unreadable: {e}"),
        }
    }
}

#[derive(Debug, Default)]
pub struct Walk {
    pub files: Vec<SourceFile>,
    pub skipped: Vec<(String, SkipReason)>,
    /// Folders of `WalkOptions::leave_out` that the walk met and did not enter (relative).
    pub left_out: Vec<String>,
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
/// read). Symbolic links are not followed.
pub fn walk(root: &Path, opts: &WalkOptions) -> Result<Walk, SourceError> {
    if !root.is_dir() {
        return Err(SourceError::NotAFolder(root.display().to_string()));
    }
    let mut filter = PathFilter::new(root, opts)?;
    let mut out = Walk::default();
    let unreadable =
        |rel: &Path, e: std::io::Error| (slash_path(rel), SkipReason::Unreadable(e.to_string()));
    let mut dirs = vec![PathBuf::new()];
    while let Some(dir) = dirs.pop() {
        let entries = match std::fs::read_dir(root.join(&dir)) {
            Ok(e) => e,
            Err(e) => {
                out.skipped.push(unreadable(&dir, e));
                continue;
            }
        };
        let chain = filter.chain(&dir);
        for entry in entries {
            let (entry, kind) = match entry.and_then(|e| e.file_type().map(|t| (e, t))) {
                Ok(e) => e,
                Err(e) => {
                    out.skipped.push(unreadable(&dir, e));
                    continue;
                }
            };
            let rel = dir.join(entry.file_name());
            if kind.is_dir() {
                if filter.left_out(&rel) {
                    out.left_out.push(slash_path(&rel));
                } else if filter.judge(&chain, &rel, true) {
                    dirs.push(rel);
                }
                continue;
            }
            if !kind.is_file() || !filter.judge(&chain, &rel, false) || !filter.globs_keep(&rel) {
                continue;
            }
            let meta = match entry.metadata() {
                Ok(m) => m,
                Err(e) => {
                    out.skipped.push(unreadable(&rel, e));
                    continue;
                }
            };
            let rel_str = slash_path(&rel);
            if meta.len() > opts.max_file_bytes {
                out.skipped
                    .push((rel_str, SkipReason::TooLarge(meta.len())));
                continue;
            }
            out.files.push(SourceFile {
                rel: rel_str,
                abs: root.join(&rel),
                size: meta.len(),
                mtime_ns: mtime_ns(&meta),
            });
        }
    }
    out.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

/// Reads a file as text: `Err` says why it is not indexable (binary, not UTF-8, unreadable).
pub fn read_text(path: &Path, max_bytes: u64) -> Result<String, SkipReason> {
    let file = std::fs::File::open(path).map_err(|e| SkipReason::Unreadable(e.to_string()))?;
    let mut bytes = Vec::new();
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| SkipReason::Unreadable(e.to_string()))?;
    if bytes.len() as u64 > max_bytes {
        return Err(SkipReason::TooLarge(bytes.len() as u64));
    }
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(SkipReason::Binary);
    }
    String::from_utf8(bytes).map_err(|_| SkipReason::NotUtf8)
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
