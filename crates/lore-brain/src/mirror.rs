//! The brain dir as a mirror of a shared copy. When servers share one catalog (on
//! PostgreSQL), the catalog holds the brain's notes, pages and session lines, and each
//! server's brain dir is a copy people can read and edit. The engine keeps the two in step
//! with a three-way comparison per file: what the dir and the shared copy hold now against
//! what both held at the last sync ([`step`]). This module owns the dir's side: writing
//! what was pulled (never half-written), keeping a conflicting hand edit beside the
//! shared version, and writing a session log whole. What is shared is what the brain
//! store indexes (the engine walks the dir as its index run does).

use crate::fs::{Staged, relative_parts, resolve};
use crate::{Brain, BrainError, KNOWLEDGE, SESSIONS, WIKI};

/// What one sync does with one file, from its content hash at the last sync (`base`), in
/// the brain dir (`local`) and in the shared copy (`remote`); `None`: absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Both sides agree (nothing to do but remember it).
    Same,
    /// The shared copy changed: write it to the dir.
    Pull,
    /// The shared copy removed it: remove it from the dir.
    PullDelete,
    /// The dir changed (a hand edit, or a write of this server): share it.
    Push,
    /// The dir lost it since the last sync: remove it from the shared copy.
    PushDelete,
    /// Both changed, differently, since the last sync: the shared copy wins and the dir's
    /// version is kept beside it as a conflict copy (`<path>.conflict-<host>`), which is
    /// neither indexed nor shared.
    Conflict,
}

/// The three-way rule (see [`Step`]). Without a base (a first sync, or a dir that lost
/// its record) a file on one side only is shared, and different content on both is a
/// conflict.
pub fn step(base: Option<&str>, local: Option<&str>, remote: Option<&str>) -> Step {
    if local == remote {
        return Step::Same;
    }
    if local == base {
        return if remote.is_some() {
            Step::Pull
        } else {
            Step::PullDelete
        };
    }
    if remote == base {
        return if local.is_some() {
            Step::Push
        } else {
            Step::PushDelete
        };
    }
    match (local, remote) {
        (Some(_), None) => Step::Push,
        (None, Some(_)) => Step::Pull,
        _ => Step::Conflict,
    }
}

impl Brain {
    /// Writes a shared file into the dir, replacing what is there (never half-written).
    pub fn mirror_put(&self, path: &str, content: &str) -> Result<(), BrainError> {
        let (area, parts) = shared_parts(path)?;
        let target = resolve(self.root(), area, &parts, true)?;
        Staged::write(&target, content.as_bytes())?.publish()
    }

    /// Removes a file the shared copy no longer has (a missing one is fine).
    pub fn mirror_remove(&self, path: &str) -> Result<(), BrainError> {
        let (area, parts) = shared_parts(path)?;
        let target = resolve(self.root(), area, &parts, false)?;
        match std::fs::remove_file(&target) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(BrainError::io(path.to_string(), e))
            }
            _ => Ok(()),
        }
    }

    /// Moves the dir's version of `path` aside as `<path>.conflict-<tag>`, returning that
    /// name (relative to the brain dir). An older conflict copy of the same tag is replaced.
    pub fn mirror_keep_conflict(&self, path: &str, tag: &str) -> Result<String, BrainError> {
        let (area, parts) = shared_parts(path)?;
        let target = resolve(self.root(), area, &parts, false)?;
        let tag: String = tag
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let name = format!("{path}.conflict-{tag}");
        let aside = target.with_file_name(format!(
            "{}.conflict-{tag}",
            target.file_name().unwrap_or_default().to_string_lossy()
        ));
        std::fs::rename(&target, &aside).map_err(|e| BrainError::io(name.clone(), e))?;
        Ok(name)
    }

    /// Writes a session's whole log (`lines`, each ending in a newline) as the shared copy
    /// holds it, replacing the dir's.
    pub fn mirror_session(&self, session_id: &str, lines: &[String]) -> Result<(), BrainError> {
        crate::validate_session_id(session_id)?;
        let name = format!("{session_id}.jsonl");
        let target = resolve(self.root(), SESSIONS, std::slice::from_ref(&name), true)?;
        Staged::write(&target, lines.concat().as_bytes())?.publish()
    }
}

/// The area and checked parts of a shared path (`knowledge/…` or `wiki/…`, ending `.md`).
fn shared_parts(path: &str) -> Result<(&'static str, Vec<String>), BrainError> {
    let (area, rest) = path
        .split_once('/')
        .ok_or_else(|| BrainError::Input(format!("{path:?} is not inside knowledge/ or wiki/")))?;
    let area = match area {
        KNOWLEDGE => KNOWLEDGE,
        WIKI => WIKI,
        _ => {
            return Err(BrainError::Input(format!(
                "{path:?} is not inside knowledge/ or wiki/"
            )));
        }
    };
    if !rest.ends_with(".md") {
        return Err(BrainError::Input(format!(
            "{path:?} is not a markdown file"
        )));
    }
    Ok((area, relative_parts(rest, area)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_way_steps() {
        use Step::*;
        let (a, b) = (Some("a"), Some("b"));
        // Unchanged, or changed the same way on both sides.
        assert_eq!(step(a, a, a), Same);
        assert_eq!(step(None, b, b), Same);
        assert_eq!(step(a, None, None), Same);
        // One side changed.
        assert_eq!(step(a, a, b), Pull);
        assert_eq!(step(None, None, b), Pull);
        assert_eq!(step(a, a, None), PullDelete);
        assert_eq!(step(a, b, a), Push);
        assert_eq!(step(None, b, None), Push);
        assert_eq!(step(a, None, a), PushDelete);
        // Both changed.
        assert_eq!(step(a, b, Some("c")), Conflict);
        assert_eq!(step(None, a, b), Conflict);
        // Edited on one side, deleted on the other: the edit is kept.
        assert_eq!(step(a, b, None), Push);
        assert_eq!(step(a, None, b), Pull);
    }

    #[test]
    fn the_dir_side_writes_removes_and_keeps_conflicts() {
        let dir = tempfile::tempdir().unwrap();
        let brain = Brain::new(dir.path());
        brain.init().unwrap();
        brain.mirror_put("knowledge/a/x.md", "# X\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("knowledge/a/x.md")).unwrap(),
            "# X\n"
        );
        let aside = brain
            .mirror_keep_conflict("knowledge/a/x.md", "host-1")
            .unwrap();
        assert_eq!(aside, "knowledge/a/x.md.conflict-host-1");
        assert!(dir.path().join(&aside).is_file());
        assert!(!dir.path().join("knowledge/a/x.md").exists());
        brain.mirror_put("wiki/concepts/y.md", "# Y\n").unwrap();
        brain.mirror_remove("wiki/concepts/y.md").unwrap();
        brain.mirror_remove("wiki/concepts/y.md").unwrap();
        assert!(!dir.path().join("wiki/concepts/y.md").exists());

        for bad in [
            "../x.md",
            "sessions/s.jsonl",
            "knowledge/x.txt",
            "knowledge/../../x.md",
        ] {
            assert!(brain.mirror_put(bad, "x").is_err(), "{bad}");
        }
        brain
            .mirror_session("s1", &["{\"a\":1}\n".into(), "{\"a\":2}\n".into()])
            .unwrap();
        let log = std::fs::read_to_string(dir.path().join("sessions/s1.jsonl")).unwrap();
        assert_eq!(log.lines().count(), 2);
        assert!(brain.mirror_session("../s", &[]).is_err());
    }
}
