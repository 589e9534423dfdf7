//! Session logs: `sessions/<session_id>.jsonl`, one JSON line per event.
//!
//! Each line is built whole in memory and written with one `write_all` to a file opened
//! for appending (`O_APPEND`), under an exclusive advisory lock on that file: writers in
//! this process and in others take turns, so lines never interleave.

use crate::fs::resolve;
use crate::{Brain, BrainError, SESSIONS, now_rfc3339_millis};
use serde::{Deserialize, Serialize};
use std::io::Write;

/// Longest line appended, in bytes.
const MAX_LINE: usize = 256 * 1024;

/// One event of an agent's session.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SessionEntry {
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_root: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_used: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The line as written: the timestamp first, then the entry's fields.
#[derive(Serialize)]
struct Line<'a> {
    timestamp: &'a str,
    #[serde(flatten)]
    entry: &'a SessionEntry,
}

/// What `log_session` appended.
#[derive(Debug, Clone, Serialize)]
pub struct Logged {
    /// Always `ok` (the answer the brain's design documents).
    pub status: &'static str,
    pub session_id: String,
    /// Relative to the brain dir: `sessions/<session_id>.jsonl`.
    pub path: String,
    pub timestamp: String,
}

/// Session ids: 1–128 letters, digits, `.`, `_` or `-`, not starting with a dot.
pub fn validate_session_id(id: &str) -> Result<(), BrainError> {
    let ok = !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(BrainError::Input(format!(
            "invalid session_id {id:?}: use 1-128 letters, digits, '.', '_' or '-', not starting with '.'"
        )))
    }
}

impl Brain {
    /// Appends one line to the session's log.
    pub fn log_session(&self, entry: &SessionEntry) -> Result<Logged, BrainError> {
        let (line, logged) = session_line(entry)?;
        self.append_session_line(&entry.session_id, &line)?;
        Ok(logged)
    }

    /// Appends a line made by [`session_line`] to its session's log.
    pub fn append_session_line(&self, session_id: &str, line: &str) -> Result<(), BrainError> {
        validate_session_id(session_id)?;
        let name = format!("{session_id}.jsonl");
        let target = resolve(self.root(), SESSIONS, std::slice::from_ref(&name), true)?;
        let io = |e| BrainError::io(format!("{SESSIONS}/{name}"), e);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&target)
            .map_err(io)?;
        file.lock().map_err(io)?;
        let written = file.write_all(line.as_bytes()).map_err(io);
        let _ = file.unlock();
        written
    }
}

/// The line an entry is logged as (timestamped now, ending in a newline), and the answer
/// that says so; nothing is written.
pub fn session_line(entry: &SessionEntry) -> Result<(String, Logged), BrainError> {
    validate_session_id(&entry.session_id)?;
    let timestamp = now_rfc3339_millis();
    let mut line = serde_json::to_string(&Line {
        timestamp: &timestamp,
        entry,
    })
    .map_err(|e| BrainError::Input(format!("cannot encode the entry: {e}")))?;
    line.push('\n');
    if line.len() > MAX_LINE {
        return Err(BrainError::Input(format!(
            "the entry is {} bytes; a session log line is at most {MAX_LINE} bytes (shorten `message`)",
            line.len()
        )));
    }
    Ok((
        line,
        Logged {
            status: "ok",
            session_id: entry.session_id.clone(),
            path: format!("{SESSIONS}/{}.jsonl", entry.session_id),
            timestamp,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn ids_with_path_characters_are_refused() {
        for bad in [
            "",
            "../x",
            "a/b",
            ".hidden",
            "a b",
            "x\n",
            &"x".repeat(129),
            "a\\b",
        ] {
            assert!(validate_session_id(bad).is_err(), "{bad:?}");
        }
        for good in ["s1", "2026-11-30.run_7", "ABC-def"] {
            assert!(validate_session_id(good).is_ok(), "{good:?}");
        }
        let dir = tempfile::tempdir().unwrap();
        let brain = Brain::new(dir.path());
        let e = brain
            .log_session(&SessionEntry {
                session_id: "../escape".into(),
                ..Default::default()
            })
            .unwrap_err();
        assert!(e.is_input());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_line_per_entry_with_a_utc_timestamp() {
        let dir = tempfile::tempdir().unwrap();
        let brain = Brain::new(dir.path());
        let logged = brain
            .log_session(&SessionEntry {
                session_id: "s1".into(),
                skill: Some("review".into()),
                duration_ms: Some(1200),
                message: Some("line one\nline \"two\"".into()),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(logged.path, "sessions/s1.jsonl");
        brain
            .log_session(&SessionEntry {
                session_id: "s1".into(),
                final_status: Some("done".into()),
                ..Default::default()
            })
            .unwrap();
        let text = std::fs::read_to_string(dir.path().join("sessions/s1.jsonl")).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert!(text.starts_with("{\"timestamp\":"), "{text}");
        let ts = lines[0]["timestamp"].as_str().unwrap();
        assert_eq!(ts.len(), "2026-11-30T10:15:00.123Z".len(), "{ts}");
        assert!(ts.ends_with('Z'));
        assert_eq!(lines[0]["message"], "line one\nline \"two\"");
        assert_eq!(lines[0]["duration_ms"], 1200);
        assert!(lines[0].get("phase").is_none());
        assert_eq!(lines[1]["final_status"], "done");
    }

    /// Appends `LORE_BRAIN_TEST_LINES` lines as `LORE_BRAIN_TEST_WRITER` to the brain at
    /// `LORE_BRAIN_TEST_DIR`; does nothing when that is unset (a normal test run).
    #[test]
    fn child_process_writer() {
        let Some(dir) = std::env::var_os("LORE_BRAIN_TEST_DIR") else {
            return;
        };
        let var = |k: &str| std::env::var(k).unwrap_or_default();
        let writer: usize = var("LORE_BRAIN_TEST_WRITER").parse().unwrap();
        let lines: usize = var("LORE_BRAIN_TEST_LINES").parse().unwrap();
        append_lines(&Brain::new(dir), writer, lines);
    }

    fn append_lines(brain: &Brain, w: usize, lines: usize) {
        for i in 0..lines {
            // Lines of different lengths, some past a page, so a torn write would show.
            let filler = "x".repeat((w * 977 + i * 131) % 6000);
            brain
                .log_session(&SessionEntry {
                    session_id: "shared".into(),
                    skill: Some(format!("writer-{w}")),
                    message: Some(format!("{i}:{filler}")),
                    ..Default::default()
                })
                .unwrap();
        }
    }

    /// Every line whole and each writer's lines in its own order.
    fn check_lines(text: &str, writers: usize, lines: usize) {
        let mut seen = vec![0usize; writers];
        for line in text.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let w: usize = v["skill"].as_str().unwrap()[7..].parse().unwrap();
            let (i, filler) = v["message"].as_str().unwrap().split_once(':').unwrap();
            assert_eq!(i.parse::<usize>().unwrap(), seen[w]);
            assert_eq!(filler.len(), (w * 977 + seen[w] * 131) % 6000);
            seen[w] += 1;
        }
        assert_eq!(seen, vec![lines; writers]);
    }

    #[test]
    fn appends_from_other_processes_never_interleave() {
        let dir = tempfile::tempdir().unwrap();
        let exe = std::env::current_exe().unwrap();
        const PROCESSES: usize = 3;
        const LINES: usize = 300;
        let children: Vec<_> = (0..PROCESSES)
            .map(|w| {
                std::process::Command::new(&exe)
                    .args(["--exact", "session::tests::child_process_writer", "--quiet"])
                    .env("LORE_BRAIN_TEST_DIR", dir.path())
                    .env("LORE_BRAIN_TEST_WRITER", w.to_string())
                    .env("LORE_BRAIN_TEST_LINES", LINES.to_string())
                    .stdout(std::process::Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        // This process writes too, meanwhile.
        append_lines(&Brain::new(dir.path()), PROCESSES, LINES);
        for mut c in children {
            assert!(c.wait().unwrap().success());
        }
        let text = std::fs::read_to_string(dir.path().join("sessions/shared.jsonl")).unwrap();
        check_lines(&text, PROCESSES + 1, LINES);
    }

    #[test]
    fn concurrent_appends_never_interleave() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        const WRITERS: usize = 8;
        const LINES: usize = 500;
        let threads: Vec<_> = (0..WRITERS)
            .map(|w| {
                let brain = Brain::new(&root);
                std::thread::spawn(move || append_lines(&brain, w, LINES))
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let text = std::fs::read_to_string(root.join("sessions/shared.jsonl")).unwrap();
        check_lines(&text, WRITERS, LINES);
    }
}
