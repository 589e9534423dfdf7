//! One writer per data dir: an OS file lock, released when the process exits (even on kill -9).

use crate::IndexError;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::Path;

pub struct WriterLock {
    _file: File,
}

impl WriterLock {
    /// Takes the lock or fails at once with a message naming the holder.
    pub fn acquire(path: &Path) -> Result<WriterLock, IndexError> {
        let io = |e| IndexError::Io(path.display().to_string(), e);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                let who = if holder.is_empty() {
                    "another lore process".to_string()
                } else {
                    format!("another lore process (pid {holder})")
                };
                return Err(IndexError::Locked(format!(
                    "{who} is writing to this data dir ({}); wait for it to finish or stop it",
                    path.parent().unwrap_or(path).display()
                )));
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        write!(file, "{}", std::process::id()).map_err(io)?;
        Ok(WriterLock { _file: file })
    }
}

/// Whether some process holds the lock at `path` now (a process killed with -9 holds
/// nothing, whatever pid the file still names). Takes nothing: a free lock is released at
/// once.
pub fn is_held(path: &Path) -> bool {
    match File::open(path) {
        Ok(file) => matches!(file.try_lock(), Err(TryLockError::WouldBlock)),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_writer_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("writer.lock");
        let first = WriterLock::acquire(&path).unwrap();
        let err = WriterLock::acquire(&path).err().unwrap().to_string();
        assert!(
            err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        assert!(is_held(&path));
        drop(first);
        assert!(!is_held(&path));
        WriterLock::acquire(&path).unwrap();
    }
}
