//! Paths that stay inside their folder, and files that are never half-written.
//!
//! A relative name is checked as text first (no `..`, not absolute, no hidden or empty
//! components), then against the disk: every folder on the way that exists is
//! canonicalized and must stay under the area's real path, so a symlink out of it is
//! refused; folders that do not exist yet are created one by one and checked again.
//! Contents are written to a hidden temp file in the target's folder, synced, then
//! renamed over the target (or hard-linked, when an existing file must not be replaced).

use crate::BrainError;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Longest file or folder name accepted, in bytes (file systems allow 255).
const MAX_NAME_BYTES: usize = 200;
/// Deepest nesting accepted under an area.
const MAX_DEPTH: usize = 8;

/// The components of a relative name that must stay inside its area, checked as text.
pub(crate) fn relative_parts(name: &str, area: &str) -> Result<Vec<String>, BrainError> {
    let escape = |why: &str| {
        BrainError::Escape(format!(
            "filename {name:?} {why}; give a relative name inside {area}/ such as notes/retry.md"
        ))
    };
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return Err(BrainError::Input(format!(
            "the filename is empty; give a relative name inside {area}/ or leave it out"
        )));
    }
    if trimmed.chars().any(|c| c.is_control() || c == '\\') {
        return Err(escape("holds a control character or a backslash"));
    }
    if trimmed.starts_with('/') || Path::new(trimmed).is_absolute() {
        return Err(escape("is absolute"));
    }
    let mut parts = Vec::new();
    for c in Path::new(trimmed).components() {
        match c {
            Component::Normal(s) => {
                let s = s.to_str().ok_or_else(|| escape("is not UTF-8"))?;
                if s.starts_with('.') {
                    return Err(BrainError::Input(format!(
                        "filename {name:?} has a hidden part {s:?}, which search skips; name it without the leading dot"
                    )));
                }
                if s.len() > MAX_NAME_BYTES {
                    return Err(BrainError::Input(format!(
                        "filename {name:?} has a part longer than {MAX_NAME_BYTES} bytes; shorten it"
                    )));
                }
                parts.push(s.to_string());
            }
            Component::CurDir => {}
            Component::ParentDir => return Err(escape("contains `..` and would leave the folder")),
            Component::RootDir | Component::Prefix(_) => return Err(escape("is absolute")),
        }
    }
    if parts.is_empty() {
        return Err(escape("names no file"));
    }
    if parts.len() > MAX_DEPTH {
        return Err(BrainError::Input(format!(
            "filename {name:?} is nested deeper than {MAX_DEPTH} folders; flatten it"
        )));
    }
    Ok(parts)
}

/// `area` under `root`, created if missing; its real path must stay under the real root.
fn real_area(root: &Path, area: &str, create: bool) -> Result<Option<PathBuf>, BrainError> {
    let dir = root.join(area);
    if create {
        std::fs::create_dir_all(&dir).map_err(|e| BrainError::io(dir.display().to_string(), e))?;
    }
    let real_root = match std::fs::canonicalize(root) {
        Ok(p) => p,
        Err(e) if !create && e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(BrainError::io(root.display().to_string(), e)),
    };
    let real = match std::fs::canonicalize(&dir) {
        Ok(p) => p,
        Err(e) if !create && e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(BrainError::io(dir.display().to_string(), e)),
    };
    if !real.starts_with(&real_root) || !real.is_dir() {
        return Err(BrainError::Escape(format!(
            "{area}/ in the brain dir is a link to {}, outside the brain dir; make it a plain folder",
            real.display()
        )));
    }
    Ok(Some(real))
}

/// Where `parts` (a checked relative name) lands under `root/area`: the real path of its
/// folder joined with its file name. With `create`, missing folders are made; without,
/// only what exists is checked (a dry run). Fails if any existing folder on the way, or
/// the file itself, is a symlink that leads out of the area, or the file is a symlink.
pub(crate) fn resolve(
    root: &Path,
    area: &str,
    parts: &[String],
    create: bool,
) -> Result<PathBuf, BrainError> {
    let shown = format!("{area}/{}", parts.join("/"));
    let escape = |why: String| {
        BrainError::Escape(format!(
            "{shown} {why}; nothing was written. Give a name inside {area}/"
        ))
    };
    let Some(base) = real_area(root, area, create)? else {
        // Nothing exists yet, so nothing on the way can be a link.
        return Ok(root.join(area).join(parts.join("/")));
    };
    let (file, folders) = parts
        .split_last()
        .ok_or_else(|| BrainError::Input(format!("{shown} names no file")))?;
    let mut dir = base.clone();
    let mut exists = true;
    for part in folders {
        let next = dir.join(part);
        if exists {
            match std::fs::symlink_metadata(&next) {
                Ok(_) => {
                    let real = std::fs::canonicalize(&next)
                        .map_err(|e| BrainError::io(next.display().to_string(), e))?;
                    if !real.starts_with(&base) {
                        return Err(escape(format!(
                            "goes through {part}, a link out of {area}/"
                        )));
                    }
                    if !real.is_dir() {
                        return Err(BrainError::Input(format!(
                            "{shown}: {part} is a file, not a folder; pick another name"
                        )));
                    }
                    dir = real;
                    continue;
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => exists = false,
                Err(e) => return Err(BrainError::io(next.display().to_string(), e)),
            }
        }
        if create {
            match std::fs::create_dir(&next) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(BrainError::io(next.display().to_string(), e)),
            }
            let real = std::fs::canonicalize(&next)
                .map_err(|e| BrainError::io(next.display().to_string(), e))?;
            if !real.starts_with(&base) {
                return Err(escape(format!(
                    "goes through {part}, a link out of {area}/"
                )));
            }
            dir = real;
        } else {
            dir = next;
        }
    }
    let target = dir.join(file);
    match std::fs::symlink_metadata(&target) {
        Ok(m) if m.file_type().is_symlink() => Err(escape(
            "is a symbolic link; replace it with a plain file or pick another name".into(),
        )),
        Ok(m) if m.is_dir() => Err(BrainError::Input(format!(
            "{shown} is a folder; pick a file name"
        ))),
        _ => Ok(target),
    }
}

static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// A file written and synced under a hidden temp name beside its target, not yet visible
/// under the target's name. Dropped without `publish`, it is removed.
pub(crate) struct Staged {
    temp: PathBuf,
    target: PathBuf,
    published: bool,
}

impl Staged {
    pub fn write(target: &Path, bytes: &[u8]) -> Result<Staged, BrainError> {
        let dir = target.parent().unwrap_or(Path::new("."));
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temp = dir.join(format!(
            ".{name}.{}-{}.tmp",
            std::process::id(),
            TEMP_SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let staged = Staged {
            temp,
            target: target.to_path_buf(),
            published: false,
        };
        let io = |e| BrainError::io(staged.temp.display().to_string(), e);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&staged.temp)
            .map_err(io)?;
        f.write_all(bytes).map_err(io)?;
        f.sync_all().map_err(io)?;
        Ok(staged)
    }

    /// Makes the file visible under its name, replacing what was there.
    pub fn publish(mut self) -> Result<(), BrainError> {
        std::fs::rename(&self.temp, &self.target)
            .map_err(|e| BrainError::io(self.target.display().to_string(), e))?;
        self.published = true;
        Ok(())
    }

    /// Makes the file visible under its name only if nothing is there yet; `Ok(false)`
    /// when the name is taken (the temp file is then removed).
    pub fn publish_new(mut self) -> Result<bool, BrainError> {
        match std::fs::hard_link(&self.temp, &self.target) {
            Ok(()) => {
                let _ = std::fs::remove_file(&self.temp);
                self.published = true;
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(BrainError::io(self.target.display().to_string(), e)),
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.published {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_leave_the_folder_are_refused() {
        for bad in [
            "../x.md",
            "a/../../x.md",
            "/etc/passwd",
            "..",
            "a/..",
            "x\\..\\y.md",
            "a\0b",
            "./",
        ] {
            let e = relative_parts(bad, "knowledge").unwrap_err();
            assert!(matches!(e, BrainError::Escape(_)), "{bad:?}: {e}");
        }
        for bad in ["", "  ", ".hidden.md", "a/.git/x.md"] {
            let e = relative_parts(bad, "knowledge").unwrap_err();
            assert!(matches!(e, BrainError::Input(_)), "{bad:?}: {e}");
        }
        assert!(relative_parts(&format!("{}.md", "x".repeat(300)), "knowledge").is_err());
        assert!(relative_parts(&"a/".repeat(12), "knowledge").is_err());
        assert_eq!(
            relative_parts("./rust/borrowck.md", "knowledge").unwrap(),
            ["rust", "borrowck.md"]
        );
        assert_eq!(
            relative_parts("café notes.md", "knowledge").unwrap(),
            ["café notes.md"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_are_refused_and_nothing_is_created_through_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("brain");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(root.join("knowledge")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("knowledge/out")).unwrap();
        std::os::unix::fs::symlink(outside.join("f.md"), root.join("knowledge/f.md")).unwrap();
        let parts = |s: &str| relative_parts(s, "knowledge").unwrap();
        for create in [false, true] {
            let e = resolve(&root, "knowledge", &parts("out/x.md"), create).unwrap_err();
            assert!(matches!(e, BrainError::Escape(_)), "{e}");
            let e = resolve(&root, "knowledge", &parts("out/deeper/x.md"), create).unwrap_err();
            assert!(matches!(e, BrainError::Escape(_)), "{e}");
            let e = resolve(&root, "knowledge", &parts("f.md"), create).unwrap_err();
            assert!(e.to_string().contains("symbolic link"), "{e}");
        }
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);

        // A link inside the area is fine.
        std::fs::create_dir_all(root.join("knowledge/real")).unwrap();
        std::os::unix::fs::symlink(root.join("knowledge/real"), root.join("knowledge/alias"))
            .unwrap();
        let t = resolve(&root, "knowledge", &parts("alias/x.md"), true).unwrap();
        assert!(t.ends_with("knowledge/real/x.md"), "{}", t.display());

        // The area itself linked out of the brain dir.
        std::os::unix::fs::symlink(&outside, root.join("wiki")).unwrap();
        let e = resolve(&root, "wiki", &parts("x.md"), true).unwrap_err();
        assert!(matches!(e, BrainError::Escape(_)), "{e}");
    }

    #[test]
    fn staged_files_appear_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.md");
        let s = Staged::write(&target, b"first").unwrap();
        assert!(!target.exists());
        drop(s);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        Staged::write(&target, b"one").unwrap().publish().unwrap();
        Staged::write(&target, b"two").unwrap().publish().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "two");
        assert!(
            !Staged::write(&target, b"three")
                .unwrap()
                .publish_new()
                .unwrap()
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
