use serde::{Deserialize, Serialize};

/// Where a store's files come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreKind {
    /// A folder on this machine, indexed in place.
    Folder,
    /// A git repository (URL or local path), shallow-cloned into the data dir.
    Repo,
    /// The brain dir: notes and wiki pages agents write, re-indexed on every write.
    Brain,
    /// A documentation site, crawled into the data dir as one markdown file per page.
    Web,
}

/// How a web store is crawled, and the site its pages came from (the defaults are
/// `lore_source::web::CrawlOptions`').
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebSettings {
    /// Most pages kept per crawl.
    pub max_pages: usize,
    /// Most links followed away from the start page.
    pub max_depth: usize,
    /// `scheme://host[:port]` the pages were fetched from (known after the first crawl):
    /// a page's URL is the site and its path in the store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
}

/// A store to add, as a user asks for it (CLI flags, MCP/REST arguments, a job record):
/// the engine checks it and resolves what is left open.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AddStore {
    /// Letters, digits, '.', '_' or '-' (see `validate_store_name`).
    pub name: String,
    /// A folder path, a git URL or local repository, or a web store's start page.
    pub source: String,
    /// Inferred from `source` when absent: URLs are repos, paths are folders. Serialised
    /// as `type` (a job's own tag is `kind`).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<StoreKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub includes: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excludes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_file_bytes: Option<u64>,
    /// Web stores: most pages kept, most links followed from the start page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_pages: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<usize>,
    /// Keyword search and the code graph only, no vectors (`--embed none`): for huge
    /// vendored trees, or a machine without the model. `lore index --embed` fills it later.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lexical_only: bool,
    /// Index what ignore files (`.gitignore`, `.ignore`, `.git/info/exclude`) exclude, as
    /// ripgrep's `--no-ignore` does; hidden names are still skipped.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_ignore: bool,
}

impl StoreKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StoreKind::Folder => "folder",
            StoreKind::Repo => "repo",
            StoreKind::Brain => "brain",
            StoreKind::Web => "web",
        }
    }

    pub fn parse(s: &str) -> Option<StoreKind> {
        match s {
            "folder" => Some(StoreKind::Folder),
            "repo" => Some(StoreKind::Repo),
            "brain" => Some(StoreKind::Brain),
            "web" => Some(StoreKind::Web),
            _ => None,
        }
    }
}

/// What a store name may hold, said in errors.
pub const STORE_NAME_RULE: &str = "use 1-128 letters, digits, '.', '_', '-', ':', '@' or '+', \
                                   starting with a letter or digit";

/// A store name for a source given without one: its last path segment, `.git` dropped,
/// other characters than a name's as `-` (`…/my app` → `my-app`,
/// `https://github.com/tokio-rs/tokio.git` → `tokio`). `None` when nothing is left.
pub fn store_name_from(source: &str) -> Option<String> {
    let last = source
        .trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\', ':'])
        .next()?;
    let last = last.strip_suffix(".git").unwrap_or(last);
    let name: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '@' | '+') {
                c
            } else {
                '-'
            }
        })
        .skip_while(|c| !c.is_ascii_alphanumeric())
        .take(128)
        .collect();
    validate_store_name(&name).ok().map(|()| name)
}

/// Store names: 1–128 chars of `[A-Za-z0-9._:@+-]`, starting with a letter or digit
/// (`dep:cargo:serde@1.0.228` names a dependency at its locked version). Never a path
/// separator: stores live under their ids, and names travel in URL paths.
pub fn validate_store_name(name: &str) -> Result<(), String> {
    let ok_len = !name.is_empty() && name.len() <= 128;
    let ok_first = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    let ok_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | ':' | '@' | '+'));
    if ok_len && ok_first && ok_chars {
        Ok(())
    } else {
        Err(format!("invalid store name {name:?}: {STORE_NAME_RULE}"))
    }
}

/// The name of the brain's store (one per data dir or shared catalog).
pub const BRAIN_STORE: &str = "brain";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_names() {
        for good in [
            "react",
            "my-notes",
            "a.b_c",
            "9lives",
            "dep:npm:@types+node@20.1.0",
        ] {
            assert!(validate_store_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "../x",
            "a/b",
            "-x",
            "a b",
            &"x".repeat(129),
            ".hidden",
            "a\\b",
            ":x",
        ] {
            assert!(validate_store_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_source_alone_names_its_store() {
        for (source, name) in [
            ("/home/me/src/sinatra", Some("sinatra")),
            ("/home/me/src/my app/", Some("my-app")),
            ("https://github.com/tokio-rs/tokio.git", Some("tokio")),
            ("git@github.com:owner/repo.git", Some("repo")),
            ("https://docs.rs/", Some("docs.rs")),
            ("C:\\work\\proj", Some("proj")),
            ("/", None),
            ("/srv/.hidden", Some("hidden")),
            ("/srv/___", None),
        ] {
            assert_eq!(store_name_from(source).as_deref(), name, "{source}");
        }
    }
}
