//! A store's folder opened once and read beneath that handle without following a symbolic
//! link at any step. A path checked and then opened by name can be swapped in between (a
//! folder renamed and replaced by a symlink to elsewhere); a handle cannot. So the root is
//! resolved to its real path, opened one component at a time from `/` with `O_NOFOLLOW`
//! (the folder opened is the one at that real path), checked against `Reads`, and every
//! folder listed and file read after that is opened relative to it: in one `openat2` with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` where the kernel has it, else one `openat` per
//! component with `O_NOFOLLOW`. Files are opened non-blocking (a FIFO never stalls a walk)
//! and read only when the handle is a regular file — with one link only, when reads are
//! confined (a hard link shares its inode with a file that may lie outside).

use crate::options::SkipReason;
use crate::{Reads, SourceError};
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{self as rfs, FileType, Mode, OFlags};
use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// Whether `openat2` may be tried (cleared the first time the kernel or a sandbox refuses it).
#[cfg(target_os = "linux")]
static OPENAT2: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// A folder opened once; everything under it is opened relative to it.
#[derive(Debug)]
pub struct Tree {
    fd: OwnedFd,
    real: PathBuf,
    /// Refuse files with more than one link (reads are confined to some folders).
    single_link: bool,
}

/// What a walk learns of one entry without opening it.
pub(crate) struct EntryStat {
    pub kind: FileType,
    pub size: u64,
    pub mtime_ns: i64,
    pub links: u64,
}

fn io(e: rustix::io::Errno) -> std::io::Error {
    std::io::Error::from(e)
}

impl Tree {
    /// Opens the folder `root` as described above; `reads` must allow its real path.
    pub fn open(root: &Path, reads: &Reads) -> Result<Tree, SourceError> {
        let shown = root.display().to_string();
        let real =
            std::fs::canonicalize(root).map_err(|_| SourceError::NotAFolder(shown.clone()))?;
        let mut fd = rfs::open(
            "/",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| SourceError::Io("/".into(), io(e)))?;
        for c in real.components() {
            let Component::Normal(name) = c else {
                continue;
            };
            fd = rfs::openat(
                &fd,
                name,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| {
                SourceError::Io(
                    shown.clone(),
                    std::io::Error::other(format!(
                        "changed while it was opened (a folder on the way is no longer one: {})",
                        io(e)
                    )),
                )
            })?;
        }
        // The handle is the folder at `real`: the check cannot be raced.
        reads.check(&real, "folder")?;
        Ok(Tree {
            fd,
            real,
            single_link: *reads != Reads::Anywhere,
        })
    }

    /// The folder's real path, as opened.
    pub fn real(&self) -> &Path {
        &self.real
    }

    /// Opens `rel` (relative, plain names only) beneath the root, following no link.
    fn open_beneath(&self, rel: &Path, flags: OFlags) -> std::io::Result<OwnedFd> {
        let flags = flags | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let names: Vec<&OsStr> = rel
            .components()
            .map(|c| match c {
                Component::Normal(n) => Ok(n),
                _ => Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("{} is not a plain relative path", rel.display()),
                )),
            })
            .collect::<Result<_, _>>()?;
        if names.is_empty() {
            return rfs::openat(&self.fd, ".", flags, Mode::empty()).map_err(io);
        }
        #[cfg(target_os = "linux")]
        if OPENAT2.load(std::sync::atomic::Ordering::Relaxed) {
            use rfs::ResolveFlags as R;
            let how = R::BENEATH | R::NO_SYMLINKS | R::NO_MAGICLINKS;
            match rfs::openat2(&self.fd, rel, flags, Mode::empty(), how) {
                Err(e)
                    if e == rustix::io::Errno::NOSYS
                        || e == rustix::io::Errno::PERM
                        || e == rustix::io::Errno::INVAL =>
                {
                    OPENAT2.store(false, std::sync::atomic::Ordering::Relaxed);
                }
                done => return done.map_err(io),
            }
        }
        let mut cur: Option<OwnedFd> = None;
        for (i, name) in names.iter().enumerate() {
            let step = if i + 1 == names.len() {
                flags
            } else {
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
            };
            let at: BorrowedFd<'_> = cur.as_ref().map_or(self.fd.as_fd(), |f| f.as_fd());
            cur = Some(rfs::openat(at, *name, step, Mode::empty()).map_err(io)?);
        }
        cur.ok_or_else(|| std::io::Error::other("empty path"))
    }

    /// The entries of the folder `rel`: each name with what `lstat` says of it.
    pub(crate) fn list(
        &self,
        rel: &Path,
    ) -> std::io::Result<Vec<(PathBuf, std::io::Result<EntryStat>)>> {
        let fd = self.open_beneath(rel, OFlags::RDONLY | OFlags::DIRECTORY)?;
        let mut dir = rfs::Dir::new(fd).map_err(io)?;
        let mut out = Vec::new();
        while let Some(entry) = dir.read() {
            let entry = entry.map_err(io)?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let name = OsStr::from_bytes(name).to_os_string();
            let at = dir.fd().map_err(io)?;
            let stat = rfs::statat(at, name.as_os_str(), rfs::AtFlags::SYMLINK_NOFOLLOW)
                .map(|s| entry_stat(&s))
                .map_err(io);
            out.push((PathBuf::from(name), stat));
        }
        Ok(out)
    }

    /// Reads the file `rel` as text (as `read_text`), opened beneath the root: a symlink
    /// anywhere on the way, a file that is not regular, or (confined) one with several
    /// links is not read.
    pub fn read_text(&self, rel: &str, max_bytes: u64) -> Result<String, SkipReason> {
        let unreadable = |e: std::io::Error| SkipReason::Unreadable(e.to_string());
        let fd = self
            .open_beneath(Path::new(rel), OFlags::RDONLY | OFlags::NONBLOCK)
            .map_err(unreadable)?;
        let stat = rfs::fstat(&fd).map_err(|e| unreadable(io(e)))?;
        let stat = entry_stat(&stat);
        if stat.kind != FileType::RegularFile {
            return Err(SkipReason::Unreadable("not a regular file".into()));
        }
        if self.single_link && stat.links > 1 {
            return Err(SkipReason::HardLink(stat.links));
        }
        read_limited(std::fs::File::from(fd), max_bytes)
    }

    /// Size and mtime of the regular file `rel` beneath the root (no link followed), or
    /// `None` when there is none (gone, a link, not a regular file, or, confined, a hard link).
    pub fn file_stat(&self, rel: &str) -> Option<(u64, i64)> {
        let fd = self
            .open_beneath(Path::new(rel), OFlags::RDONLY | OFlags::NONBLOCK)
            .ok()?;
        let stat = entry_stat(&rfs::fstat(&fd).ok()?);
        (stat.kind == FileType::RegularFile && !(self.single_link && stat.links > 1))
            .then_some((stat.size, stat.mtime_ns))
    }

    /// Whether files with several links are refused.
    pub(crate) fn single_link(&self) -> bool {
        self.single_link
    }
}

#[allow(clippy::unnecessary_cast)] // the field types differ between targets
fn entry_stat(s: &rfs::Stat) -> EntryStat {
    EntryStat {
        kind: FileType::from_raw_mode(s.st_mode as _),
        size: s.st_size as u64,
        mtime_ns: (s.st_mtime as i64)
            .saturating_mul(1_000_000_000)
            .saturating_add(s.st_mtime_nsec as i64),
        links: s.st_nlink as u64,
    }
}

/// Reads at most `max_bytes` of `file` as text: `Err` says why it is not indexable.
pub(crate) fn read_limited(file: std::fs::File, max_bytes: u64) -> Result<String, SkipReason> {
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

/// A small file read by path without following a symlink at its last step and only when it
/// is a regular file (an ignore file: never a FIFO, a device or an endless stream), at
/// most `max_bytes`; `None` when it cannot be.
pub(crate) fn read_small(path: &Path, max_bytes: u64) -> Option<Vec<u8>> {
    let fd = rfs::open(
        path,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    let stat = rfs::fstat(&fd).ok()?;
    if FileType::from_raw_mode(stat.st_mode as _) != FileType::RegularFile {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::from(fd)
        .take(max_bytes)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_read_through_a_symlink_or_a_hard_link_when_confined() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("SECRET.txt"), "secret").unwrap();
        std::fs::write(root.join("sub/a.txt"), "a").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        std::os::unix::fs::symlink(outside.join("SECRET.txt"), root.join("file-link")).unwrap();
        std::fs::hard_link(outside.join("SECRET.txt"), root.join("hard.txt")).unwrap();

        let anywhere = Tree::open(&root, &Reads::Anywhere).unwrap();
        assert_eq!(anywhere.read_text("sub/a.txt", 100).unwrap(), "a");
        assert!(anywhere.read_text("link/SECRET.txt", 100).is_err());
        assert!(anywhere.read_text("file-link", 100).is_err());
        assert!(anywhere.read_text("../outside/SECRET.txt", 100).is_err());
        // Unconfined (the CLI), a hard link is read like any file.
        assert_eq!(anywhere.read_text("hard.txt", 100).unwrap(), "secret");

        let confined = Tree::open(
            &root,
            &Reads::within(std::slice::from_ref(&root), "t").unwrap(),
        )
        .unwrap();
        assert_eq!(
            confined.read_text("hard.txt", 100),
            Err(SkipReason::HardLink(2))
        );
        // The root itself must be allowed, by its real path.
        let other = Reads::within(std::slice::from_ref(&outside), "t").unwrap();
        assert!(matches!(
            Tree::open(&root, &other),
            Err(SourceError::Refused { .. })
        ));
        assert!(matches!(
            Tree::open(&root.join("link"), &other),
            Ok(t) if t.real() == std::fs::canonicalize(&outside).unwrap()
        ));
    }
}
