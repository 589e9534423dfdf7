//! Wiki pages from `ingest-raw`: `wiki/<type>s/<slug>.md` with frontmatter (title, type,
//! sources, updated). Everything is planned first — paths, contents, warnings — and only
//! then written, all files staged before any is renamed into place; a dry run stops after
//! the plan.

use crate::frontmatter::Frontmatter;
use crate::fs::{Staged, resolve};
use crate::{Brain, BrainError, MAX_FILE_BYTES, WIKI, now_rfc3339};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::PathBuf;

/// The page types a wiki holds; each has its folder `wiki/<type>s/`.
pub const PAGE_TYPES: &[&str] = &[
    "concept",
    "decision",
    "howto",
    "project",
    "reference",
    "tool",
];

/// Longest title accepted, in characters.
const MAX_TITLE: usize = 200;
/// Longest slug, in characters.
const MAX_SLUG: usize = 80;

/// One page to add or merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawPage {
    pub title: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub content: String,
}

/// What `ingest-raw` was asked.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RawIngest {
    pub source: String,
    pub pages: Vec<RawPage>,
    #[serde(default)]
    pub dry_run: bool,
}

/// A page as it will be written.
#[derive(Debug, Clone)]
pub struct PlannedPage {
    /// Relative to the brain dir (`wiki/concepts/retry-backoff.md`).
    pub path: String,
    pub content: String,
    /// It exists and gets a new section.
    pub merged: bool,
    /// It already says this; nothing to write.
    pub unchanged: bool,
    target: PathBuf,
}

#[derive(Debug, Clone, Default)]
pub struct IngestPlan {
    pub pages: Vec<PlannedPage>,
    pub warnings: Vec<String>,
}

/// What `ingest-raw` did (or, in a dry run, would do).
#[derive(Debug, Clone, Default, Serialize)]
pub struct IngestReport {
    /// Every page touched, relative to the brain dir, in request order.
    pub pages: Vec<String>,
    pub warnings: Vec<String>,
    pub dry_run: bool,
    pub created: usize,
    pub merged: usize,
    pub unchanged: usize,
}

impl IngestPlan {
    pub fn report(&self, dry_run: bool) -> IngestReport {
        IngestReport {
            pages: self.pages.iter().map(|p| p.path.clone()).collect(),
            warnings: self.warnings.clone(),
            dry_run,
            created: self
                .pages
                .iter()
                .filter(|p| !p.merged && !p.unchanged)
                .count(),
            merged: self
                .pages
                .iter()
                .filter(|p| p.merged && !p.unchanged)
                .count(),
            unchanged: self.pages.iter().filter(|p| p.unchanged).count(),
        }
    }
}

/// A page type as given (`Concept`, ` howto `) in its canonical form, or an error naming
/// the accepted ones.
pub fn page_type(kind: &str) -> Result<&'static str, String> {
    let k = kind.trim().to_ascii_lowercase();
    let k = k
        .strip_suffix('s')
        .filter(|s| PAGE_TYPES.contains(s))
        .unwrap_or(&k);
    PAGE_TYPES
        .iter()
        .find(|t| **t == k)
        .copied()
        .ok_or_else(|| {
            format!(
                "unknown page type {kind:?}; use one of {}",
                PAGE_TYPES.join(", ")
            )
        })
}

/// A file name from a title: lowercase letters and digits, runs of anything else as one
/// `-`, at most 80 characters. `None` when the title has no letter or digit.
pub fn slug(title: &str) -> Option<String> {
    let mut out = String::new();
    let mut dash = false;
    for c in title.chars() {
        if c.is_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.extend(c.to_lowercase());
        } else {
            dash = true;
        }
        if out.chars().count() >= MAX_SLUG {
            break;
        }
    }
    let out: String = out.chars().take(MAX_SLUG).collect();
    let out = out.trim_end_matches('-').to_string();
    (!out.is_empty()).then_some(out)
}

/// The source as one trimmed line.
fn clean_source(source: &str) -> String {
    source.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Drops a leading `# Title` line from new content when it repeats the page title.
fn without_title_heading<'a>(content: &'a str, title: &str) -> &'a str {
    let trimmed = content.trim_start();
    if let Some(rest) = trimmed.strip_prefix("# ") {
        let (first, after) = rest.split_once('\n').unwrap_or((rest, ""));
        if first.trim().eq_ignore_ascii_case(title.trim()) {
            return after;
        }
    }
    content
}

fn new_page(title: &str, kind: &str, source: &str, content: &str, now: &str) -> String {
    let mut fm = Frontmatter::default();
    fm.set("title", title);
    fm.set("type", kind);
    fm.set_list("sources", vec![source.to_string()]);
    fm.set("updated", now);
    let body = content.trim();
    let body = if body.starts_with("# ") {
        format!("{body}\n")
    } else {
        format!("# {title}\n\n{body}\n")
    };
    format!("{}\n{body}", fm.render())
}

/// `existing` with a section from `source` appended and its frontmatter brought up to
/// date; `None` when the page already holds this content.
fn merged_page(
    existing: &str,
    title: &str,
    kind: &str,
    source: &str,
    content: &str,
    now: &str,
) -> Option<String> {
    let (fm, body) = Frontmatter::split(existing);
    let addition = without_title_heading(content, title).trim();
    if body.contains(addition) {
        return None;
    }
    let mut fm = fm.unwrap_or_default();
    if fm.get("title").is_none() {
        let heading = body
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .map(str::trim)
            .unwrap_or(title);
        fm.set("title", heading);
    }
    if fm.get("type").is_none() {
        fm.set("type", kind);
    }
    let mut sources = fm.list("sources");
    if !sources.iter().any(|s| s == source) {
        sources.push(source.to_string());
    }
    fm.set_list("sources", sources);
    fm.set("updated", now);
    let date = now.get(..10).unwrap_or(now);
    Some(format!(
        "{}\n{}\n\n## From {source} ({date})\n\n{addition}\n",
        fm.render(),
        body.trim()
    ))
}

impl Brain {
    /// Checks a request and works out every page's path and content without writing.
    pub fn plan_ingest(&self, req: &RawIngest) -> Result<IngestPlan, BrainError> {
        let source = clean_source(&req.source);
        if source.is_empty() {
            return Err(BrainError::Input(
                "`source` is empty; say where the pages come from (a file, a URL, a session)"
                    .into(),
            ));
        }
        if source.chars().count() > 500 {
            return Err(BrainError::Input(
                "`source` is longer than 500 characters; give a short name or URL".into(),
            ));
        }
        if req.pages.is_empty() {
            return Err(BrainError::Input(
                "`pages` is empty; send at least one {title, type, content}".into(),
            ));
        }
        // Check every page before reading anything.
        let mut checked = Vec::with_capacity(req.pages.len());
        for (i, p) in req.pages.iter().enumerate() {
            let n = i + 1;
            let title = p.title.split_whitespace().collect::<Vec<_>>().join(" ");
            if title.is_empty() {
                return Err(BrainError::Input(format!("page {n} has an empty title")));
            }
            if title.chars().count() > MAX_TITLE {
                return Err(BrainError::Input(format!(
                    "page {n} has a title longer than {MAX_TITLE} characters; shorten it"
                )));
            }
            let kind =
                page_type(&p.kind).map_err(|e| BrainError::Input(format!("page {n}: {e}")))?;
            if p.content.trim().is_empty() {
                return Err(BrainError::Input(format!(
                    "page {n} ({title:?}) has empty content"
                )));
            }
            if p.content.len() > MAX_FILE_BYTES {
                return Err(BrainError::Input(format!(
                    "page {n} ({title:?}) is {} bytes; a page is at most {MAX_FILE_BYTES} bytes (split it)",
                    p.content.len()
                )));
            }
            let slug = slug(&title).ok_or_else(|| {
                BrainError::Input(format!(
                    "page {n} ({title:?}): the title needs a letter or a digit to name a file"
                ))
            })?;
            checked.push((title, kind, slug, p.content.as_str()));
        }
        let now = now_rfc3339();
        let mut plan = IngestPlan::default();
        // Pages planned so far by path, so a second page with the same path merges into
        // the first one's planned content.
        let mut by_path: HashMap<String, usize> = HashMap::new();
        for (title, kind, slug, content) in checked {
            let folder = format!("{kind}s");
            let parts = vec![folder.clone(), format!("{slug}.md")];
            let path = format!("{WIKI}/{folder}/{slug}.md");
            let target = resolve(self.root(), WIKI, &parts, false)?;
            let earlier = by_path.get(&path).copied();
            let existing = match earlier {
                Some(i) => Some(plan.pages[i].content.clone()),
                None => match std::fs::read_to_string(&target) {
                    Ok(text) => Some(text),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                    Err(e) => return Err(BrainError::io(path.clone(), e)),
                },
            };
            let page = match existing {
                None => PlannedPage {
                    path: path.clone(),
                    content: new_page(&title, kind, &source, content, &now),
                    merged: false,
                    unchanged: false,
                    target,
                },
                Some(text) => match merged_page(&text, &title, kind, &source, content, &now) {
                    Some(merged) => {
                        plan.warnings.push(if earlier.is_some() {
                            format!("{path} appears twice in this request; merged the second page into the first")
                        } else {
                            format!("{path} already exists; merged a new section from {source} into it")
                        });
                        PlannedPage {
                            path: path.clone(),
                            content: merged,
                            merged: true,
                            unchanged: false,
                            target,
                        }
                    }
                    None => {
                        plan.warnings
                            .push(format!("{path} already holds this content; left unchanged"));
                        PlannedPage {
                            path: path.clone(),
                            content: text,
                            merged: true,
                            unchanged: true,
                            target,
                        }
                    }
                },
            };
            match earlier {
                Some(i) => {
                    // The earlier entry carries the merged content (and stays new if it was).
                    plan.pages[i].content = page.content;
                    plan.pages[i].unchanged &= page.unchanged;
                }
                None => {
                    by_path.insert(path, plan.pages.len());
                    plan.pages.push(page);
                }
            }
        }
        Ok(plan)
    }

    /// Writes a plan: every changed page is staged (written and synced under a temp name)
    /// before any is renamed into place, so a failure while writing leaves no page
    /// half-written and none of them changed.
    pub fn apply(&self, plan: &IngestPlan) -> Result<(), BrainError> {
        let mut staged = Vec::new();
        for page in plan.pages.iter().filter(|p| !p.unchanged) {
            let parts: Vec<String> = page
                .path
                .strip_prefix(&format!("{WIKI}/"))
                .unwrap_or(&page.path)
                .split('/')
                .map(String::from)
                .collect();
            // Folders are created now, and checked again on the way.
            let target = resolve(self.root(), WIKI, &parts, true)?;
            if target.file_name() != page.target.file_name() {
                return Err(BrainError::Escape(format!(
                    "{} moved while it was being written; try again",
                    page.path
                )));
            }
            staged.push(Staged::write(&target, page.content.as_bytes())?);
        }
        for s in staged {
            s.publish()?;
        }
        Ok(())
    }

    /// Plans, then (unless a dry run) writes.
    pub fn ingest_raw(&self, req: &RawIngest) -> Result<IngestReport, BrainError> {
        let plan = self.plan_ingest(req)?;
        if !req.dry_run {
            self.apply(&plan)?;
        }
        Ok(plan.report(req.dry_run))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(title: &str, kind: &str, content: &str) -> RawPage {
        RawPage {
            title: title.into(),
            kind: kind.into(),
            content: content.into(),
        }
    }

    fn files(dir: &std::path::Path) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                if e.path().is_dir() {
                    stack.push(e.path());
                } else {
                    out.push(e.path().strip_prefix(dir).unwrap().display().to_string());
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn slugs() {
        assert_eq!(
            slug("Retry Backoff (v2)!").as_deref(),
            Some("retry-backoff-v2")
        );
        assert_eq!(slug("  Café au lait ").as_deref(), Some("café-au-lait"));
        assert_eq!(slug("../../etc/passwd").as_deref(), Some("etc-passwd"));
        assert_eq!(slug("???"), None);
        assert_eq!(slug(&"ab ".repeat(100)).unwrap().chars().count(), 80);
        assert!(!slug(&"ab ".repeat(100)).unwrap().ends_with('-'));
    }

    #[test]
    fn types() {
        assert_eq!(page_type(" Concept").unwrap(), "concept");
        assert_eq!(page_type("howtos").unwrap(), "howto");
        assert!(page_type("poem").unwrap_err().contains("concept, decision"));
        assert!(page_type("").is_err());
    }

    #[test]
    fn new_pages_then_a_merge_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let brain = Brain::new(dir.path());
        let req = RawIngest {
            source: "docs/retry.md".into(),
            pages: vec![
                page(
                    "Retry backoff",
                    "concept",
                    "Waits double after each failure.",
                ),
                page(
                    "Use jitter",
                    "decision",
                    "# Use jitter\n\nAdd random jitter.",
                ),
            ],
            dry_run: false,
        };
        let report = brain.ingest_raw(&req).unwrap();
        assert_eq!(
            report.pages,
            [
                "wiki/concepts/retry-backoff.md",
                "wiki/decisions/use-jitter.md"
            ]
        );
        assert!(report.warnings.is_empty());
        assert_eq!(report.created, 2);
        let text =
            std::fs::read_to_string(dir.path().join("wiki/concepts/retry-backoff.md")).unwrap();
        let (fm, body) = Frontmatter::split(&text);
        let fm = fm.unwrap();
        assert_eq!(fm.get("title"), Some("Retry backoff"));
        assert_eq!(fm.get("type"), Some("concept"));
        assert_eq!(fm.list("sources"), ["docs/retry.md"]);
        assert!(fm.get("updated").unwrap().ends_with('Z'));
        assert_eq!(
            body,
            "\n# Retry backoff\n\nWaits double after each failure.\n"
        );
        let jitter =
            std::fs::read_to_string(dir.path().join("wiki/decisions/use-jitter.md")).unwrap();
        assert_eq!(jitter.matches("# Use jitter").count(), 1, "{jitter}");

        // The same page from another source: merged, attributed, with a warning.
        let again = RawIngest {
            source: "https://example.invalid/retries".into(),
            pages: vec![page("Retry Backoff", "concept", "Cap the wait at 30 s.")],
            dry_run: false,
        };
        let report = brain.ingest_raw(&again).unwrap();
        assert_eq!(report.merged, 1);
        assert!(
            report.warnings[0].contains("already exists"),
            "{:?}",
            report.warnings
        );
        let text =
            std::fs::read_to_string(dir.path().join("wiki/concepts/retry-backoff.md")).unwrap();
        let (fm, body) = Frontmatter::split(&text);
        assert_eq!(
            fm.unwrap().list("sources"),
            ["docs/retry.md", "https://example.invalid/retries"]
        );
        assert!(body.contains("Waits double after each failure."));
        assert!(
            body.contains("## From https://example.invalid/retries ("),
            "{body}"
        );
        assert!(body.trim_end().ends_with("Cap the wait at 30 s."));

        // Sending it once more changes nothing.
        let report = brain.ingest_raw(&again).unwrap();
        assert_eq!(report.unchanged, 1);
        assert!(report.warnings[0].contains("left unchanged"));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("wiki/concepts/retry-backoff.md")).unwrap(),
            text
        );
    }

    #[test]
    fn dry_run_writes_nothing_and_reports_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let brain = Brain::new(dir.path());
        let mut req = RawIngest {
            source: "s".into(),
            pages: vec![
                page("A", "tool", "one"),
                page("a", "tools", "two"),
                page("B", "howto", "three"),
            ],
            dry_run: true,
        };
        let dry = brain.ingest_raw(&req).unwrap();
        assert!(dry.dry_run);
        assert_eq!(dry.pages, ["wiki/tools/a.md", "wiki/howtos/b.md"]);
        assert_eq!(dry.warnings.len(), 1, "{:?}", dry.warnings);
        assert!(dry.warnings[0].contains("twice"));
        assert_eq!(dry.created, 2);
        assert!(files(dir.path()).is_empty(), "{:?}", files(dir.path()));
        req.dry_run = false;
        let real = brain.ingest_raw(&req).unwrap();
        assert_eq!((real.pages, real.warnings), (dry.pages, dry.warnings));
        let a = std::fs::read_to_string(dir.path().join("wiki/tools/a.md")).unwrap();
        assert!(
            a.contains("one") && a.contains("## From s (") && a.contains("two"),
            "{a}"
        );
        assert_eq!(files(dir.path()), ["wiki/howtos/b.md", "wiki/tools/a.md"]);
    }

    #[test]
    fn bad_requests_write_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let brain = Brain::new(dir.path());
        let ok = page("Fine", "concept", "text");
        for (source, pages, needle) in [
            ("", vec![ok.clone()], "`source` is empty"),
            ("  \n ", vec![ok.clone()], "`source` is empty"),
            ("s", vec![], "`pages` is empty"),
            (
                "s",
                vec![ok.clone(), page("X", "poem", "t")],
                "unknown page type",
            ),
            (
                "s",
                vec![ok.clone(), page(" ", "concept", "t")],
                "empty title",
            ),
            (
                "s",
                vec![ok.clone(), page("X", "concept", "  ")],
                "empty content",
            ),
            (
                "s",
                vec![ok.clone(), page("!!", "concept", "t")],
                "letter or a digit",
            ),
        ] {
            let req = RawIngest {
                source: source.into(),
                pages,
                dry_run: false,
            };
            let e = brain.ingest_raw(&req).unwrap_err();
            assert!(e.is_input() && e.to_string().contains(needle), "{e}");
        }
        assert!(files(dir.path()).is_empty());
    }

    #[test]
    fn hand_written_pages_keep_their_lines() {
        let dir = tempfile::tempdir().unwrap();
        let brain = Brain::new(dir.path());
        let path = dir.path().join("wiki/concepts/caching.md");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "# Caching\n\nWritten by hand.\n").unwrap();
        let req = RawIngest {
            source: "notes".into(),
            pages: vec![page("caching", "concept", "Invalidate on write.")],
            dry_run: false,
        };
        brain.ingest_raw(&req).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let (fm, body) = Frontmatter::split(&text);
        assert_eq!(fm.unwrap().get("title"), Some("Caching"));
        assert!(body.contains("Written by hand.") && body.contains("Invalidate on write."));
    }
}
