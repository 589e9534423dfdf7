//! Notes in `knowledge/`: what an agent learned, one markdown file each.

use crate::frontmatter::Frontmatter;
use crate::fs::{Staged, relative_parts, resolve};
use crate::{Brain, BrainError, KNOWLEDGE, MAX_FILE_BYTES};
use lore_core::UtcTime;
use serde::{Deserialize, Serialize};

/// A note to write.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Note {
    pub content: String,
    /// Relative to `knowledge/`; `.md` is appended when missing. Default:
    /// `<UTC yyyy-mm-dd-HHMMSS>-auto.md`.
    #[serde(default)]
    pub filename: Option<String>,
    /// Frontmatter `type` (e.g. insight, bug, decision).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// Frontmatter `domain` (e.g. rust, billing).
    #[serde(default)]
    pub domain: Option<String>,
}

/// What `write_note` did.
#[derive(Debug, Clone, Serialize)]
pub struct NoteWritten {
    /// Relative to the brain dir, `/`-separated: `knowledge/…`.
    pub path: String,
    /// False when a note of that name was replaced.
    pub created: bool,
    pub bytes: usize,
}

/// A frontmatter value from an argument: one line, trimmed; empty means absent.
fn field(name: &str, v: Option<&str>) -> Result<Option<String>, BrainError> {
    let Some(v) = v.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    if v.contains(['\n', '\r']) || v.chars().count() > 100 {
        return Err(BrainError::Input(format!(
            "`{name}` must be one short line (at most 100 characters), like insight or rust"
        )));
    }
    Ok(Some(v.to_string()))
}

/// `<UTC yyyy-mm-dd-HHMMSS>-auto`, with `-N` from the second try on.
fn default_stem(now: UtcTime, attempt: u32) -> String {
    let base = format!(
        "{:04}-{:02}-{:02}-{:02}{:02}{:02}-auto",
        now.year, now.month, now.day, now.hour, now.minute, now.second
    );
    if attempt == 0 {
        base
    } else {
        format!("{base}-{}", attempt + 1)
    }
}

impl Brain {
    /// The note's text: its content, with `type`/`domain` set in its frontmatter when given
    /// (added, or merged into frontmatter the content already has).
    fn note_text(note: &Note) -> Result<String, BrainError> {
        if note.content.trim().is_empty() {
            return Err(BrainError::Input(
                "`content` is empty; write what you learned".into(),
            ));
        }
        if note.content.len() > MAX_FILE_BYTES {
            return Err(BrainError::Input(format!(
                "`content` is {} bytes; notes are at most {MAX_FILE_BYTES} bytes (split it, or use brain_ingest)",
                note.content.len()
            )));
        }
        let kind = field("type", note.kind.as_deref())?;
        let domain = field("domain", note.domain.as_deref())?;
        if kind.is_none() && domain.is_none() {
            let mut text = note.content.clone();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            return Ok(text);
        }
        let (fm, body) = Frontmatter::split(&note.content);
        let mut fm = fm.unwrap_or_default();
        if let Some(k) = &kind {
            fm.set("type", k);
        }
        if let Some(d) = &domain {
            fm.set("domain", d);
        }
        let body = body.trim_start_matches(['\n', '\r']);
        let mut text = format!("{}\n{body}", fm.render());
        if !text.ends_with('\n') {
            text.push('\n');
        }
        Ok(text)
    }

    /// The checked parts of a note's file name under `knowledge/`, `.md` appended.
    fn note_parts(filename: &str) -> Result<Vec<String>, BrainError> {
        // A path given relative to the brain dir (`knowledge/x.md`) means the same file.
        let name = filename.trim();
        let name = name
            .strip_prefix("knowledge/")
            .filter(|rest| !rest.is_empty())
            .unwrap_or(name);
        let mut parts = relative_parts(name, KNOWLEDGE)?;
        if let Some(last) = parts.last_mut()
            && !last.ends_with(".md")
        {
            last.push_str(".md");
        }
        Ok(parts)
    }

    /// Checks a note without writing: its text and where it would go (`knowledge/…`).
    pub fn check_note(&self, note: &Note) -> Result<(), BrainError> {
        Self::note_text(note)?;
        if let Some(name) = &note.filename {
            let parts = Self::note_parts(name)?;
            resolve(self.root(), KNOWLEDGE, &parts, false)?;
        }
        Ok(())
    }

    /// Writes a note to `knowledge/` (temp file, then rename): a named note replaces the
    /// file of that name; an unnamed one gets a fresh timestamped name.
    pub fn write_note(&self, note: &Note) -> Result<NoteWritten, BrainError> {
        let text = Self::note_text(note)?;
        let bytes = text.len();
        if let Some(name) = &note.filename {
            let parts = Self::note_parts(name)?;
            // Checked before any folder is made, then again while making them.
            resolve(self.root(), KNOWLEDGE, &parts, false)?;
            let target = resolve(self.root(), KNOWLEDGE, &parts, true)?;
            let created = !target.exists();
            Staged::write(&target, text.as_bytes())?.publish()?;
            return Ok(NoteWritten {
                path: format!("{KNOWLEDGE}/{}", parts.join("/")),
                created,
                bytes,
            });
        }
        let now = UtcTime::now();
        for attempt in 0..1000 {
            let name = format!("{}.md", default_stem(now, attempt));
            let parts = vec![name.clone()];
            let target = resolve(self.root(), KNOWLEDGE, &parts, true)?;
            if target.exists() {
                continue;
            }
            if Staged::write(&target, text.as_bytes())?.publish_new()? {
                return Ok(NoteWritten {
                    path: format!("{KNOWLEDGE}/{name}"),
                    created: true,
                    bytes,
                });
            }
        }
        Err(BrainError::Input(
            "a thousand notes were written this second; give a filename".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_are_timestamped_and_never_clobbered() {
        let dir = tempfile::tempdir().unwrap();
        let brain = Brain::new(dir.path());
        let note = Note {
            content: "Use exponential backoff.".into(),
            ..Default::default()
        };
        let a = brain.write_note(&note).unwrap();
        let b = brain.write_note(&note).unwrap();
        assert_ne!(a.path, b.path);
        for w in [&a, &b] {
            let name = w.path.strip_prefix("knowledge/").unwrap();
            // 2026-11-30-101500-auto.md or …-auto-2.md
            assert_eq!(&name[4..5], "-", "{name}");
            assert_eq!(&name[10..11], "-", "{name}");
            assert!(name.contains("-auto"), "{name}");
            assert!(name.ends_with(".md"), "{name}");
            assert!(w.created);
        }
        assert_eq!(
            std::fs::read_to_string(dir.path().join(&a.path)).unwrap(),
            "Use exponential backoff.\n"
        );
        assert_eq!(
            default_stem(UtcTime::from_unix(1_796_033_700), 0),
            "2026-11-30-101500-auto"
        );
        assert_eq!(
            default_stem(UtcTime::from_unix(1_796_033_700), 2),
            "2026-11-30-101500-auto-3"
        );
    }

    #[test]
    fn names_get_md_and_frontmatter_when_typed() {
        let dir = tempfile::tempdir().unwrap();
        let brain = Brain::new(dir.path());
        let w = brain
            .write_note(&Note {
                content: "Borrows end at last use.".into(),
                filename: Some("rust/nll".into()),
                kind: Some("insight".into()),
                domain: Some("rust".into()),
            })
            .unwrap();
        assert_eq!(w.path, "knowledge/rust/nll.md");
        assert_eq!(
            std::fs::read_to_string(dir.path().join(&w.path)).unwrap(),
            "---\ntype: insight\ndomain: rust\n---\n\nBorrows end at last use.\n"
        );
        // Brain-relative names mean the same file; writing again replaces it.
        let again = brain
            .write_note(&Note {
                content: "---\ntitle: NLL\ntype: old\n---\nBody.".into(),
                filename: Some("knowledge/rust/nll.md".into()),
                kind: Some("fact".into()),
                domain: None,
            })
            .unwrap();
        assert_eq!(again.path, w.path);
        assert!(!again.created);
        assert_eq!(
            std::fs::read_to_string(dir.path().join(&w.path)).unwrap(),
            "---\ntitle: NLL\ntype: fact\n---\n\nBody.\n"
        );
        let x = brain
            .write_note(&Note {
                content: "x".into(),
                filename: Some("list.txt".into()),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(x.path, "knowledge/list.txt.md");
    }

    #[test]
    fn bad_notes_write_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let brain = Brain::new(dir.path().join("brain"));
        std::fs::create_dir_all(dir.path().join("brain/knowledge")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), dir.path().join("brain/knowledge/link"))
            .unwrap();
        let escape = outside.path().join("abs.md").display().to_string();
        for (content, filename, kind) in [
            ("", None, None),
            (" \n\t", Some("x.md"), None),
            ("ok", Some("../x.md"), None),
            ("ok", Some("../../x"), None),
            ("ok", Some(escape.as_str()), None),
            ("ok", Some("a/../../x.md"), None),
            ("ok", Some("link/x.md"), None),
            ("ok", Some("link/new/deeper.md"), None),
            ("ok", Some("x.md"), Some("two\nlines")),
        ] {
            let note = Note {
                content: content.into(),
                filename: filename.map(String::from),
                kind: kind.map(String::from),
                domain: None,
            };
            assert!(brain.check_note(&note).is_err(), "{filename:?}");
            let e = brain.write_note(&note).unwrap_err();
            assert!(e.is_input(), "{filename:?}: {e}");
        }
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
        assert_eq!(
            std::fs::read_dir(dir.path().join("brain/knowledge"))
                .unwrap()
                .count(),
            usize::from(cfg!(unix))
        );
        assert!(!dir.path().join("x.md").exists());
    }
}
