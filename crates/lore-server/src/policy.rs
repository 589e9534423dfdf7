//! What a server may read and fetch for its clients, and how long a query may be.
//!
//! `lore serve` answers anyone who can reach its port (on loopback, any local user, without
//! a token): it reads only under the folders its operator allowed (`--allow-path`), checked
//! on the real path (symlinks resolved) before anything is read, and fetches only public
//! addresses unless told otherwise (`--allow-private-fetch`). `lore mcp` on stdio is started
//! by the user's own agent and answers nobody else: it reads and fetches like the CLI.

use crate::error::AppError;
use lore_core::StoreKind;
use lore_engine::AddStore;
use lore_source::FetchPolicy;
use std::path::{Path, PathBuf};

/// Default cap on a query's length (`--max-query-bytes`).
pub const DEFAULT_MAX_QUERY_BYTES: usize = 8 * 1024;

/// Default cap on the files a client's store may index (`--max-file-size`): the engine's
/// own default, so a client may only lower it. One 60 MB file is 87,000 chunks to embed.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1024 * 1024;

pub use lore_source::Reads;

/// A read check's refusal as a client sees it: outside the allowed folders is forbidden,
/// an unopenable path under one is a bad request.
pub(crate) fn read_error(e: lore_source::SourceError) -> AppError {
    match e {
        lore_source::SourceError::Refused { .. } => AppError::Forbidden(e.to_string()),
        other => AppError::BadRequest(other.to_string()),
    }
}

/// `path` as the real path this server may read (`Reads::check`), or the client's error.
pub(crate) fn check_read(reads: &Reads, path: &Path, what: &str) -> Result<PathBuf, AppError> {
    reads.check(path, what).map_err(read_error)
}

/// What one server lets its clients do.
#[derive(Debug, Clone)]
pub struct Policy {
    pub reads: Reads,
    pub fetch: FetchPolicy,
    pub max_query_bytes: usize,
    /// Largest `maxFileSize` a client may ask for.
    pub max_file_bytes: u64,
}

impl Policy {
    /// The CLI's rules (stdio): read and fetch anything; queries still capped.
    pub fn local() -> Policy {
        Policy {
            reads: Reads::Anywhere,
            fetch: FetchPolicy::default(),
            max_query_bytes: DEFAULT_MAX_QUERY_BYTES,
            max_file_bytes: u64::MAX,
        }
    }

    /// Checks where a new store would read or fetch from, before a job exists; a local
    /// source becomes its real path (and its kind is fixed, as the engine would infer it).
    /// Name lookups run here: call it off the async threads.
    pub fn check_add(&self, add: &mut AddStore) -> Result<(), AppError> {
        if let Some(asked) = add.max_file_bytes
            && asked > self.max_file_bytes
        {
            return Err(AppError::BadRequest(format!(
                "`maxFileSize` {asked} is above this server's cap of {} bytes; ask for less, \
                 or its operator raises it with `lore serve --max-file-size BYTES`",
                self.max_file_bytes
            )));
        }
        let looks_remote = lore_source::git::looks_like_url(&add.source);
        let kind = add.kind.unwrap_or(if looks_remote {
            StoreKind::Repo
        } else {
            StoreKind::Folder
        });
        let refused = read_error;
        if self.fetch == FetchPolicy::default() && matches!(self.reads, Reads::Anywhere) {
            return Ok(());
        }
        let local = match kind {
            StoreKind::Web => {
                lore_source::web::check_start(&add.source, self.fetch).map_err(refused)?;
                false
            }
            StoreKind::Repo if !lore_source::git::is_local(&add.source) => {
                lore_source::git::check_source(&add.source, self.fetch).map_err(refused)?;
                false
            }
            StoreKind::Repo | StoreKind::Folder => true,
            // The engine refuses it with its own message.
            StoreKind::Brain => false,
        };
        if local {
            let source = Path::new(&add.source);
            let real = match kind {
                StoreKind::Repo => self.reads.check_repo(source),
                _ => self.reads.check(source, "folder"),
            }
            .map_err(read_error)?;
            add.source = real.to_string_lossy().into_owned();
            add.kind = Some(kind);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_only_under_allowed_folders_by_their_real_paths() {
        let dir = tempfile::tempdir().unwrap();
        let allowed = dir.path().join("allowed");
        let secret = dir.path().join("secret");
        std::fs::create_dir_all(allowed.join("sub")).unwrap();
        std::fs::create_dir_all(&secret).unwrap();
        std::fs::write(allowed.join("sub/doc.md"), "doc").unwrap();
        std::fs::write(secret.join("key"), "key").unwrap();
        std::os::unix::fs::symlink(secret.join("key"), allowed.join("key.md")).unwrap();
        std::os::unix::fs::symlink(&secret, allowed.join("out")).unwrap();
        std::os::unix::fs::symlink(allowed.join("sub/doc.md"), allowed.join("alias.md")).unwrap();

        let reads = Reads::within(std::slice::from_ref(&allowed), "--allow-path").unwrap();
        let real = std::fs::canonicalize(&allowed).unwrap();
        assert_eq!(
            check_read(&reads, &allowed.join("sub/doc.md"), "file").unwrap(),
            real.join("sub/doc.md")
        );
        // A symlink inside to a file inside is its target.
        assert_eq!(
            check_read(&reads, &allowed.join("alias.md"), "file").unwrap(),
            real.join("sub/doc.md")
        );
        for outside in [
            secret.join("key"),
            allowed.join("key.md"),
            allowed.join("out/key"),
            allowed.join("out"),
            secret.join("missing"),
            PathBuf::from("/"),
        ] {
            let err = check_read(&reads, &outside, "file").unwrap_err();
            assert!(matches!(err, AppError::Forbidden(_)), "{outside:?}: {err}");
            assert!(err.to_string().contains("--allow-path"), "{err}");
        }
        // Missing under an allowed folder: says so (the folder is the client's to know).
        let err = check_read(&reads, &real.join("sub/none.md"), "file").unwrap_err();
        assert!(matches!(err, AppError::BadRequest(_)), "{err}");

        let none = Reads::within(&[], "--allow-path").unwrap();
        let err = check_read(&none, &allowed.join("sub/doc.md"), "file").unwrap_err();
        assert!(err.to_string().contains("reads no local files"), "{err}");
        assert!(Reads::within(&[dir.path().join("nope")], "--allow-path").is_err());
        assert!(Reads::within(&[allowed.join("sub/doc.md")], "--allow-path").is_err());
        assert_eq!(
            check_read(&Reads::Anywhere, &secret.join("key"), "file").unwrap(),
            secret.join("key")
        );
    }

    #[test]
    fn new_stores_are_checked_before_any_job() {
        let dir = tempfile::tempdir().unwrap();
        let allowed = dir.path().join("allowed");
        std::fs::create_dir_all(allowed.join("repo.git/objects")).unwrap();
        let server = Policy {
            reads: Reads::within(std::slice::from_ref(&allowed), "--allow-path").unwrap(),
            fetch: FetchPolicy::server(false),
            max_query_bytes: DEFAULT_MAX_QUERY_BYTES,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        };
        let add = |source: &str, kind: Option<StoreKind>| AddStore {
            name: "s".into(),
            source: source.into(),
            kind,
            ..AddStore::default()
        };
        let mut a = add(&allowed.join("repo.git").display().to_string(), None);
        server.check_add(&mut a).unwrap();
        assert_eq!(a.kind, Some(StoreKind::Repo));
        for (source, kind) in [
            ("/etc", None),
            ("http://127.0.0.1:9/docs/", Some(StoreKind::Web)),
            ("https://localhost/r.git", None),
            ("git@10.0.0.1:r.git", None),
            ("file:///etc/r.git", None),
        ] {
            let err = server.check_add(&mut add(source, kind)).unwrap_err();
            assert!(matches!(err, AppError::Forbidden(_)), "{source}: {err}");
        }
        let err = server
            .check_add(&mut add("docs", Some(StoreKind::Web)))
            .unwrap_err();
        assert!(matches!(err, AppError::BadRequest(_)), "{err}");
        // The CLI's rules: nothing is checked or changed.
        let mut a = add("http://127.0.0.1:9/docs/", Some(StoreKind::Web));
        Policy::local().check_add(&mut a).unwrap();
        let mut a = add("/etc", None);
        Policy::local().check_add(&mut a).unwrap();
        assert_eq!((a.source.as_str(), a.kind), ("/etc", None));
    }
}
