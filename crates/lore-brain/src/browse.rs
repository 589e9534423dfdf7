//! Reading the brain as a person browses it: every note, page and session log with the
//! fields a list shows, and one file whole — frontmatter apart from the body, a session
//! log as its events. Names are checked as writes check them (nothing outside the three
//! folders, no link followed out), and nothing here writes.

use crate::frontmatter::{Entry, Frontmatter};
use crate::fs::{relative_parts, resolve};
use crate::{Brain, BrainError, KNOWLEDGE, MAX_FILE_BYTES, SESSIONS, WIKI};
use serde::Serialize;
use std::path::Path;

/// Most files listed; a brain larger than this lists its newest and says so.
pub const MAX_LISTED: usize = 5_000;
/// Largest session log read whole, in bytes; a longer one shows its last events.
const MAX_SESSION_BYTES: u64 = 4 * 1024 * 1024;

/// A file of the brain as a list shows it.
#[derive(Debug, Clone, Serialize)]
pub struct BrainFile {
    /// Relative to the brain dir, `/`-separated: `knowledge/…`, `wiki/…`, `sessions/…`.
    pub path: String,
    /// `knowledge`, `wiki` or `sessions`.
    pub area: &'static str,
    pub title: String,
    /// Frontmatter `type`, when there is one.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// Frontmatter `updated`, else the file's modification time (RFC 3339, UTC).
    pub updated: String,
    pub bytes: u64,
}

/// The brain's files, newest first.
#[derive(Debug, Clone, Serialize)]
pub struct BrainListing {
    pub files: Vec<BrainFile>,
    /// More files exist than [`MAX_LISTED`]; the oldest were left out.
    pub truncated: bool,
}

/// One file whole.
#[derive(Debug, Clone, Serialize)]
pub struct BrainDocument {
    #[serde(flatten)]
    pub file: BrainFile,
    /// Every frontmatter entry in file order (`[key, value]`; lists joined by `, `).
    pub frontmatter: Vec<(String, String)>,
    /// The markdown after the frontmatter (empty for a session log).
    pub body: String,
    /// A session log's events, oldest first (each line's JSON; a line that is not JSON
    /// is kept as `{"unparsed": line}`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<serde_json::Value>,
    /// Events before these were left out (a log above 4 MiB shows its end).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub events_cut: bool,
}

impl Brain {
    /// Every note (`knowledge/**/*.md`), page (`wiki/**/*.md`) and session log
    /// (`sessions/*.jsonl`), newest first. Hidden names and symbolic links are skipped.
    pub fn list_files(&self) -> Result<BrainListing, BrainError> {
        let mut files = Vec::new();
        for area in [KNOWLEDGE, WIKI, SESSIONS] {
            let dir = self.root().join(area);
            let ext = if area == SESSIONS { "jsonl" } else { "md" };
            walk(&dir, area, ext, 0, &mut |path, rel, meta| {
                files.push(describe(path, area, rel, meta)?);
                Ok(())
            })?;
        }
        files.sort_by(|a: &BrainFile, b| b.updated.cmp(&a.updated).then(a.path.cmp(&b.path)));
        let truncated = files.len() > MAX_LISTED;
        files.truncate(MAX_LISTED);
        Ok(BrainListing { files, truncated })
    }

    /// One file by its path relative to the brain dir (`knowledge/retry.md`).
    pub fn read_file(&self, path: &str) -> Result<BrainDocument, BrainError> {
        let trimmed = path.trim().trim_start_matches("./");
        let (area, rest) = trimmed.split_once('/').unwrap_or((trimmed, ""));
        let (area, ext) = match area {
            KNOWLEDGE => (KNOWLEDGE, "md"),
            WIKI => (WIKI, "md"),
            SESSIONS => (SESSIONS, "jsonl"),
            _ => {
                return Err(BrainError::Input(format!(
                    "{path:?} is not in the brain: give a path under knowledge/, wiki/ or sessions/"
                )));
            }
        };
        let parts = relative_parts(rest, area)?;
        let shown = format!("{area}/{}", parts.join("/"));
        if !shown.ends_with(&format!(".{ext}")) {
            return Err(BrainError::Input(format!(
                "{shown} is not a brain file: {area}/ holds .{ext} files"
            )));
        }
        let target = resolve(self.root(), area, &parts, false)?;
        let meta = match std::fs::metadata(&target) {
            Ok(m) if m.is_file() => m,
            Ok(_) => return Err(BrainError::Input(format!("{shown} is not a file"))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(BrainError::Missing(format!(
                    "{shown} is not in the brain dir; `lore brain list` shows what is"
                )));
            }
            Err(e) => return Err(BrainError::io(shown, e)),
        };
        let limit = if area == SESSIONS {
            MAX_SESSION_BYTES
        } else {
            MAX_FILE_BYTES as u64
        };
        let (text, cut) = read_capped(&target, meta.len(), limit, &shown)?;
        if area != SESSIONS && cut {
            return Err(BrainError::Input(format!(
                "{shown} is {} bytes, more than the {MAX_FILE_BYTES} a brain file may hold",
                meta.len()
            )));
        }
        let file = describe_text(&text, area, shown, &meta);
        if area == SESSIONS {
            let events = text
                .lines()
                .skip(usize::from(cut))
                .filter(|l| !l.trim().is_empty())
                .map(|l| {
                    serde_json::from_str(l).unwrap_or_else(|_| serde_json::json!({ "unparsed": l }))
                })
                .collect();
            return Ok(BrainDocument {
                file,
                frontmatter: Vec::new(),
                body: String::new(),
                events,
                events_cut: cut,
            });
        }
        let (fm, body) = Frontmatter::split(&text);
        let frontmatter = fm
            .map(|f| {
                f.entries
                    .into_iter()
                    .filter_map(|e| match e {
                        Entry::Scalar(k, v) => Some((k, v)),
                        Entry::List(k, v) => Some((k, v.join(", "))),
                        Entry::Raw(_) => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(BrainDocument {
            file,
            frontmatter,
            body: body.to_string(),
            events: Vec::new(),
            events_cut: false,
        })
    }
}

/// Files ending in `.ext` under `dir` (plain files and folders only, hidden names skipped),
/// with their path relative to the area.
fn walk(
    dir: &Path,
    rel: &str,
    ext: &str,
    depth: usize,
    found: &mut dyn FnMut(&Path, String, &std::fs::Metadata) -> Result<(), BrainError>,
) -> Result<(), BrainError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(BrainError::io(dir.display().to_string(), e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| BrainError::io(dir.display().to_string(), e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        // `symlink_metadata`: a link is neither followed nor listed.
        let meta = std::fs::symlink_metadata(&path)
            .map_err(|e| BrainError::io(path.display().to_string(), e))?;
        let child = format!("{rel}/{name}");
        if meta.is_dir() && depth < 8 {
            walk(&path, &child, ext, depth + 1, found)?;
        } else if meta.is_file() && name.ends_with(&format!(".{ext}")) {
            found(&path, child, &meta)?;
        }
    }
    Ok(())
}

/// A listed file: notes and pages read for their frontmatter, session logs not read.
fn describe(
    path: &Path,
    area: &'static str,
    rel: String,
    meta: &std::fs::Metadata,
) -> Result<BrainFile, BrainError> {
    if area == SESSIONS || meta.len() > MAX_FILE_BYTES as u64 {
        return Ok(describe_text("", area, rel, meta));
    }
    let text = std::fs::read_to_string(path).unwrap_or_default();
    Ok(describe_text(&text, area, rel, meta))
}

fn describe_text(
    text: &str,
    area: &'static str,
    path: String,
    meta: &std::fs::Metadata,
) -> BrainFile {
    let (fm, _) = Frontmatter::split(text);
    let get = |k: &str| {
        fm.as_ref()
            .and_then(|f| f.get(k))
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let title = if area == SESSIONS {
        let name = path.rsplit('/').next().unwrap_or(&path);
        name.strip_suffix(".jsonl").unwrap_or(name).to_string()
    } else {
        Brain::title_of(text, &path)
    };
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| lore_core::UtcTime::from_unix(d.as_secs() as i64).rfc3339())
        .unwrap_or_default();
    BrainFile {
        title,
        kind: get("type"),
        domain: get("domain"),
        sources: fm.as_ref().map(|f| f.list("sources")).unwrap_or_default(),
        updated: get("updated").unwrap_or(modified),
        bytes: meta.len(),
        area,
        path,
    }
}

/// The file's text, or its last `limit` bytes from a line start when longer (then `true`).
fn read_capped(
    path: &Path,
    len: u64,
    limit: u64,
    shown: &str,
) -> Result<(String, bool), BrainError> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).map_err(|e| BrainError::io(shown, e))?;
    let cut = len > limit;
    if cut {
        f.seek(SeekFrom::Start(len - limit))
            .map_err(|e| BrainError::io(shown, e))?;
    }
    let mut bytes = Vec::new();
    f.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| BrainError::io(shown, e))?;
    Ok((String::from_utf8_lossy(&bytes).into_owned(), cut))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Note, SessionEntry};

    fn brain() -> (tempfile::TempDir, Brain) {
        let dir = tempfile::tempdir().unwrap();
        let brain = Brain::new(dir.path().join("brain"));
        brain.init().unwrap();
        (dir, brain)
    }

    #[test]
    fn lists_notes_pages_and_sessions_with_their_fields() {
        let (_d, brain) = brain();
        brain
            .write_note(&Note {
                content: "# Retry with backoff\n\nDouble the pause.".into(),
                filename: Some("net/retry".into()),
                kind: Some("insight".into()),
                domain: Some("http".into()),
            })
            .unwrap();
        let page = brain.root().join("wiki/concepts/fusion.md");
        std::fs::create_dir_all(page.parent().unwrap()).unwrap();
        std::fs::write(
            &page,
            "---\ntitle: Fusion\ntype: concept\nsources:\n  - a.md\n  - b.md\nupdated: 2026-01-02T03:04:05Z\n---\nBody\n",
        )
        .unwrap();
        brain
            .log_session(&SessionEntry {
                session_id: "s-1".into(),
                message: Some("started".into()),
                ..Default::default()
            })
            .unwrap();
        std::fs::write(brain.root().join("knowledge/.hidden.md"), "x").unwrap();
        std::fs::write(brain.root().join("knowledge/notes.txt"), "x").unwrap();

        let listing = brain.list_files().unwrap();
        let paths: Vec<&str> = listing.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(listing.files.len(), 3, "{paths:?}");
        let note = listing
            .files
            .iter()
            .find(|f| f.path == "knowledge/net/retry.md")
            .unwrap();
        assert_eq!(note.title, "Retry with backoff");
        assert_eq!(note.kind.as_deref(), Some("insight"));
        assert_eq!(note.domain.as_deref(), Some("http"));
        let wiki = listing.files.iter().find(|f| f.area == "wiki").unwrap();
        assert_eq!(wiki.sources, ["a.md", "b.md"]);
        assert_eq!(wiki.updated, "2026-01-02T03:04:05Z");
        assert!(
            listing
                .files
                .iter()
                .any(|f| f.path == "sessions/s-1.jsonl" && f.title == "s-1")
        );
        // Newest first: the page's updated date is years before the files just written.
        assert_eq!(
            listing.files.last().unwrap().path,
            "wiki/concepts/fusion.md"
        );
    }

    #[test]
    fn reads_a_page_apart_from_its_frontmatter_and_a_log_as_events() {
        let (_d, brain) = brain();
        std::fs::write(
            brain.root().join("knowledge/a.md"),
            "---\ntype: bug\ntags: [x, y]\n---\n# A\n<script>alert(1)</script>\n",
        )
        .unwrap();
        let doc = brain.read_file("knowledge/a.md").unwrap();
        assert_eq!(
            doc.frontmatter,
            [
                ("type".into(), "bug".into()),
                ("tags".into(), "x, y".into())
            ]
        );
        assert_eq!(doc.body, "# A\n<script>alert(1)</script>\n");
        std::fs::write(
            brain.root().join("sessions/s.jsonl"),
            "{\"timestamp\":\"t1\",\"message\":\"one\"}\nnot json\n",
        )
        .unwrap();
        let log = brain.read_file("sessions/s.jsonl").unwrap();
        assert_eq!(log.events.len(), 2);
        assert_eq!(log.events[0]["message"], "one");
        assert_eq!(log.events[1]["unparsed"], "not json");
    }

    #[test]
    fn names_outside_the_brain_or_through_links_are_refused() {
        let (d, brain) = brain();
        std::fs::write(d.path().join("secret.md"), "secret").unwrap();
        for bad in [
            "../secret.md",
            "knowledge/../../secret.md",
            "/etc/passwd",
            "secret.md",
            "knowledge/",
            "knowledge/a.txt",
            "sessions/x.md",
        ] {
            let err = brain.read_file(bad).unwrap_err();
            assert!(
                matches!(err, BrainError::Input(_) | BrainError::Escape(_)),
                "{bad}: {err}"
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                d.path().join("secret.md"),
                brain.root().join("knowledge/l.md"),
            )
            .unwrap();
            assert!(matches!(
                brain.read_file("knowledge/l.md"),
                Err(BrainError::Escape(_))
            ));
            // Listed neither.
            assert!(brain.list_files().unwrap().files.is_empty());
        }
        let missing = brain.read_file("knowledge/none.md").unwrap_err();
        assert!(matches!(missing, BrainError::Missing(_)), "{missing}");
    }
}
