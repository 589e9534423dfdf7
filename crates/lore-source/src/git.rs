//! Shallow clones and updates through the `git` command line (no libgit2 build); for
//! measuring, a scratch work tree moved from commit to commit and a history of changes.
//!
//! Under a server's `FetchPolicy` git runs over http(s) and ssh only, to hosts whose
//! addresses are public (checked before git runs; git's own lookups are pinned to the checked
//! addresses and it follows no redirect), never `file://`, `git://` or remote helpers such
//! as `ext::`, which run commands.

use crate::SourceError;
use crate::net::{self, FetchPolicy};
use std::path::{Path, PathBuf};
use std::process::Command;

/// True when `source` looks like a git URL rather than a local path.
pub fn looks_like_url(source: &str) -> bool {
    source.contains("://") || source.starts_with("git@") || source.ends_with(".git")
}

/// How git would reach a source.
#[derive(Debug, PartialEq)]
enum Transport<'a> {
    /// A folder on this machine.
    Path,
    /// `scheme://authority/…`.
    Url { scheme: String, authority: &'a str },
    /// `[user@]host:path` (ssh).
    Scp { host: &'a str },
    /// `helper::address`: a remote helper (`ext::` runs a command).
    Helper(&'a str),
}

fn is_scheme(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// How git reads `source`, by git's own rules: `scheme://`, then `helper::`, then a colon
/// before any slash (scp-like ssh), else a path.
fn transport(source: &str) -> Transport<'_> {
    if let Some((scheme, rest)) = source.split_once("://")
        && is_scheme(scheme)
    {
        let authority = rest.split('/').next().unwrap_or("");
        return Transport::Url {
            scheme: scheme.to_ascii_lowercase(),
            authority,
        };
    }
    if let Some((helper, _)) = source.split_once("::")
        && is_scheme(helper)
    {
        return Transport::Helper(helper);
    }
    let colon = if source.starts_with('[') {
        source
            .find(']')
            .and_then(|end| source[end..].find(':').map(|c| end + c))
    } else {
        source.find(':')
    };
    match colon {
        Some(c) if !source[..c].contains('/') => Transport::Scp { host: &source[..c] },
        _ => Transport::Path,
    }
}

/// True when git reads `source` as a folder on this machine (a path, not a URL, not
/// `host:path`, not `helper::address`).
pub fn is_local(source: &str) -> bool {
    transport(source) == Transport::Path
}

/// Checks that git may fetch `source` under `policy`. Returns the `-c` settings that hold
/// git to what was checked: only the transport in use, and for http(s) no redirect and the
/// host's lookups pinned to the checked addresses.
pub fn check_source(source: &str, policy: FetchPolicy) -> Result<Vec<String>, SourceError> {
    if policy == FetchPolicy::default() {
        return Ok(Vec::new());
    }
    let refused = |reason: String| SourceError::Refused {
        target: source.to_string(),
        reason,
    };
    let not_network = |what: &str| {
        refused(format!(
            "git over {what} is not allowed from a server; give an https:// or ssh URL \
             (or the repository's folder, where the server may read it)"
        ))
    };
    let (scheme, host, port) = match transport(source) {
        Transport::Path => {
            // A folder the caller allowed: cloned over file://, and nothing else.
            return Ok(vec![
                "protocol.allow=never".into(),
                "protocol.file.allow=always".into(),
            ]);
        }
        Transport::Helper(helper) => return Err(not_network(&format!("{helper}::"))),
        Transport::Scp { host } => {
            let host = host.rsplit('@').next().unwrap_or(host);
            ("ssh", host.to_string(), 22)
        }
        Transport::Url { scheme, authority } => {
            let (scheme, default) = match scheme.as_str() {
                "http" => ("http", 80),
                "https" => ("https", 443),
                "ssh" | "git+ssh" | "ssh+git" => ("ssh", 22),
                other => return Err(not_network(&format!("{other}://"))),
            };
            let (host, port) = net::host_port(authority, default)
                .ok_or_else(|| refused(format!("no host or a bad port in {authority:?}")))?;
            (scheme, host, port)
        }
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if bare.is_empty() || bare.starts_with('-') {
        return Err(refused(format!("{host:?} is not a host name")));
    }
    let mut settings = vec![
        "protocol.allow=never".to_string(),
        format!("protocol.{scheme}.allow=always"),
    ];
    if policy.public_only {
        let addrs = net::resolve_public(&host, port).map_err(refused)?;
        if scheme != "ssh" {
            settings.push("http.followRedirects=false".into());
            if bare.parse::<std::net::IpAddr>().is_err() {
                let pinned: Vec<String> = addrs
                    .iter()
                    .map(|a| match a.ip() {
                        std::net::IpAddr::V6(v6) => format!("[{v6}]"),
                        v4 => v4.to_string(),
                    })
                    .collect();
                settings.push(format!(
                    "http.curloptResolve={bare}:{port}:{}",
                    pinned.join(",")
                ));
            }
        }
    }
    Ok(settings)
}

/// `git -c S` for each setting.
fn with_settings(cmd: &mut Command, settings: &[String]) {
    for s in settings {
        cmd.arg("-c").arg(s);
    }
}

fn run(action: &'static str, target: &str, cmd: &mut Command) -> Result<String, SourceError> {
    let out = cmd
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_ASKPASS", "true")
        .output()
        .map_err(|e| SourceError::Git {
            action,
            target: target.to_string(),
            message: format!("cannot run git ({e}); is git installed?"),
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let message = stderr
            .lines()
            .rev()
            .find(|l| l.starts_with("fatal:") || l.starts_with("error:"))
            .or_else(|| stderr.lines().last())
            .unwrap_or("unknown error")
            .trim()
            .to_string();
        return Err(SourceError::Git {
            action,
            target: target.to_string(),
            message,
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Shallow-clones `source` (URL or local repo path) into `dest`, which must not exist, as
/// `policy` allows (`check_source`). Clones into a sibling temp folder first, so a failed
/// clone leaves nothing behind.
pub fn clone(
    source: &str,
    dest: &Path,
    branch: Option<&str>,
    policy: FetchPolicy,
) -> Result<(), SourceError> {
    let settings = check_source(source, policy)?;
    let url = if looks_like_url(source) {
        source.to_string()
    } else {
        let p =
            std::fs::canonicalize(source).map_err(|e| SourceError::Io(source.to_string(), e))?;
        format!("file://{}", p.display())
    };
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .map_err(|e| SourceError::Io(parent.display().to_string(), e))?;
    let tmp = parent.join(format!(
        ".{}.cloning",
        dest.file_name().and_then(|n| n.to_str()).unwrap_or("repo")
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    let mut cmd = Command::new("git");
    with_settings(&mut cmd, &settings);
    cmd.args(["clone", "--quiet", "--depth", "1", "--single-branch"]);
    if let Some(b) = branch {
        cmd.args(["--branch", b]);
    }
    cmd.arg("--").arg(&url).arg(&tmp);
    if let Err(e) = run("clone", source, &mut cmd) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, dest).map_err(|e| SourceError::Io(dest.display().to_string(), e))
}

/// Brings a shallow clone up to date with its remote branch (fetch, then hard reset), its
/// remote checked against `policy` first. Returns the new HEAD commit.
pub fn pull(dir: &Path, branch: Option<&str>, policy: FetchPolicy) -> Result<String, SourceError> {
    let target = dir.display().to_string();
    let refspec = branch.unwrap_or("HEAD");
    let settings = if policy == FetchPolicy::default() {
        Vec::new()
    } else {
        let origin = run(
            "remote",
            &target,
            Command::new("git")
                .arg("-C")
                .arg(dir)
                .args(["remote", "get-url", "origin"]),
        )?;
        // A local origin was allowed when the store was added (file:// is how a local
        // repository is cloned); anything else is checked like a new clone.
        match origin.strip_prefix("file://") {
            Some(path) => check_source(path, policy)?,
            None => check_source(&origin, policy)?,
        }
    };
    let mut fetch = Command::new("git");
    with_settings(&mut fetch, &settings);
    run(
        "fetch",
        &target,
        fetch
            .arg("-C")
            .arg(dir)
            .args(["fetch", "--quiet", "--depth", "1", "origin", refspec]),
    )?;
    run(
        "reset",
        &target,
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["reset", "--quiet", "--hard", "FETCH_HEAD"]),
    )?;
    head(dir)
}

pub fn head(dir: &Path) -> Result<String, SourceError> {
    run(
        "rev-parse",
        &dir.display().to_string(),
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["rev-parse", "HEAD"]),
    )
}

/// The git directory of `dir`: `dir/.git` for a work tree, else `dir` itself (a bare
/// repository or a mirror).
pub fn git_dir(dir: &Path) -> PathBuf {
    let dotgit = dir.join(".git");
    if dotgit.exists() {
        dotgit
    } else {
        dir.to_path_buf()
    }
}

fn in_repo(repo: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("--git-dir").arg(git_dir(repo));
    cmd
}

/// The committer time of `commit` in `repo` (Unix seconds).
pub fn commit_time(repo: &Path, commit: &str) -> Result<i64, SourceError> {
    let out = run(
        "log",
        commit,
        in_repo(repo).args(["log", "-1", "--format=%ct", commit, "--"]),
    )?;
    out.trim().parse().map_err(|_| SourceError::Git {
        action: "log",
        target: commit.to_string(),
        message: format!("no commit time in {out:?}"),
    })
}

/// Makes `work_tree` hold `commit` of `repo` without touching the repository: git's own
/// index for the tree lives in `index_file`, so moving one work tree from commit to commit
/// rewrites only the files that differ (and an incremental index re-reads only those).
pub fn check_out_into(
    repo: &Path,
    work_tree: &Path,
    index_file: &Path,
    commit: &str,
) -> Result<(), SourceError> {
    std::fs::create_dir_all(work_tree)
        .map_err(|e| SourceError::Io(work_tree.display().to_string(), e))?;
    run(
        "read-tree",
        commit,
        in_repo(repo)
            .env("GIT_INDEX_FILE", index_file)
            .arg("--work-tree")
            .arg(work_tree)
            .args(["read-tree", "-u", "--reset", commit]),
    )?;
    Ok(())
}

/// Every file path in `rev`'s tree.
pub fn files_at(repo: &Path, rev: &str) -> Result<std::collections::HashSet<String>, SourceError> {
    let out = run(
        "ls-tree",
        rev,
        in_repo(repo).args(["ls-tree", "-r", "--name-only", rev]),
    )?;
    Ok(out.lines().map(str::to_string).collect())
}

/// One commit of a history: its message and the files it changed.
#[derive(Debug, Clone)]
pub struct CommitChange {
    pub commit: String,
    /// The first parent: the commit the change was made on.
    pub parent: String,
    pub time: i64,
    pub message: String,
    /// (path, lines added + removed); binary files count 0.
    pub files: Vec<(String, u64)>,
}

/// The last `max` non-merge commits reachable from `rev` (newest first), with the files
/// each changed. Root commits are left out (they have no parent to look from).
pub fn changes(repo: &Path, rev: &str, max: usize) -> Result<Vec<CommitChange>, SourceError> {
    const START: &str = "\x1e";
    const END: &str = "\x1f";
    let format = format!("--format={START}%H %P%n%ct%n%B{END}");
    let out = run(
        "log",
        rev,
        in_repo(repo)
            .args(["log", "--no-merges", "--numstat", "--no-renames"])
            .arg(format!("--max-count={max}"))
            .arg(format)
            .args([rev, "--"]),
    )?;
    let mut changes = Vec::new();
    for record in out.split(START).filter(|r| !r.trim().is_empty()) {
        let Some((head, rest)) = record.split_once(END) else {
            continue;
        };
        let mut lines = head.lines();
        let ids: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
        let (Some(commit), Some(parent)) = (ids.first(), ids.get(1)) else {
            continue;
        };
        let time = lines
            .next()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        let message = lines.collect::<Vec<_>>().join("\n").trim().to_string();
        let files = rest
            .lines()
            .filter_map(|l| {
                let mut cols = l.splitn(3, '\t');
                let added = cols.next()?;
                let removed = cols.next()?;
                let path = cols.next()?;
                let n = added.parse::<u64>().unwrap_or(0) + removed.parse::<u64>().unwrap_or(0);
                Some((path.to_string(), n))
            })
            .collect();
        changes.push(CommitChange {
            commit: commit.to_string(),
            parent: parent.to_string(),
            time,
            message,
            files,
        });
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn clone_then_pull_follows_the_remote() {
        let dir = tempfile::tempdir().unwrap();
        let origin = dir.path().join("origin");
        std::fs::create_dir_all(&origin).unwrap();
        git(&origin, &["init", "-q", "-b", "main"]);
        std::fs::write(origin.join("a.txt"), "one").unwrap();
        git(&origin, &["add", "."]);
        git(&origin, &["commit", "-qm", "one"]);

        let dest = dir.path().join("clones/1");
        let any = FetchPolicy::default();
        clone(origin.to_str().unwrap(), &dest, Some("main"), any).unwrap();
        assert_eq!(std::fs::read_to_string(dest.join("a.txt")).unwrap(), "one");

        std::fs::write(origin.join("a.txt"), "two").unwrap();
        git(&origin, &["commit", "-qam", "two"]);
        pull(&dest, Some("main"), any).unwrap();
        assert_eq!(std::fs::read_to_string(dest.join("a.txt")).unwrap(), "two");
        // A server may pull a local origin it was allowed to clone.
        std::fs::write(origin.join("a.txt"), "three").unwrap();
        git(&origin, &["commit", "-qam", "three"]);
        pull(&dest, Some("main"), FetchPolicy::server(false)).unwrap();
        assert_eq!(
            std::fs::read_to_string(dest.join("a.txt")).unwrap(),
            "three"
        );
        let server_clone = dir.path().join("clones/s");
        clone(
            origin.to_str().unwrap(),
            &server_clone,
            None,
            FetchPolicy::server(false),
        )
        .unwrap();
        assert!(server_clone.join("a.txt").is_file());

        let err = clone(
            "file:///nonexistent/repo",
            &dir.path().join("clones/2"),
            None,
            any,
        )
        .unwrap_err();
        assert!(err.to_string().contains("git clone failed"), "{err}");
        assert!(!dir.path().join("clones/2").exists());
        assert!(!dir.path().join("clones/.2.cloning").exists());
    }

    #[test]
    fn a_server_runs_git_over_public_network_transports_only() {
        let server = FetchPolicy::server(false);
        for (source, needle) in [
            ("file:///etc/repo.git", "file://"),
            ("git://example.com/r.git", "git://"),
            ("ext::sh -c touch% /tmp/pwned", "ext::"),
            ("fd::17/r.git", "fd::"),
            ("ftp://example.com/r.git", "ftp://"),
            ("https://127.0.0.1/r.git", "loopback"),
            ("https://localhost:8443/r.git", "loopback"),
            ("http://169.254.169.254/r.git", "link-local"),
            ("ssh://git@10.0.0.7:2222/r.git", "private"),
            ("git@192.168.1.2:team/r.git", "private"),
            ("[::1]:r.git", "loopback"),
            ("https://[::ffff:127.0.0.1]/r.git", "loopback"),
            ("ssh://-oProxyCommand=x/r.git", "not a host name"),
        ] {
            let err = check_source(source, server).unwrap_err().to_string();
            assert!(err.contains(needle), "{source}: {err}");
            let dest = tempfile::tempdir().unwrap();
            let err = clone(source, &dest.path().join("c"), None, server).unwrap_err();
            assert!(err.to_string().contains(needle), "{source}: {err}");
            assert!(!dest.path().join("c").exists());
        }
        // With private addresses allowed, only the transport is checked.
        let private = FetchPolicy::server(true);
        assert_eq!(
            check_source("https://127.0.0.1:8443/r.git", private).unwrap(),
            ["protocol.allow=never", "protocol.https.allow=always"]
        );
        assert!(check_source("ext::sh -c x", private).is_err());
        // Public hosts are pinned to the addresses checked, and redirects are not followed.
        assert_eq!(
            check_source("https://93.184.216.34/r.git", server).unwrap(),
            [
                "protocol.allow=never",
                "protocol.https.allow=always",
                "http.followRedirects=false"
            ]
        );
        assert_eq!(
            check_source("git@93.184.216.34:r.git", server).unwrap(),
            ["protocol.allow=never", "protocol.ssh.allow=always"]
        );
        // Local folders are the caller's to allow; the CLI runs anything.
        assert_eq!(
            check_source("/srv/repos/r.git", server).unwrap(),
            ["protocol.allow=never", "protocol.file.allow=always"]
        );
        assert!(
            check_source("ext::sh -c x", FetchPolicy::default())
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_work_tree_moves_between_commits_and_history_lists_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        git(&repo, &["init", "-q"]);
        std::fs::write(repo.join("a.py"), "x = 1\n").unwrap();
        std::fs::write(repo.join("b.py"), "y = 1\n").unwrap();
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-q", "-m", "first"]);
        let first = head(&repo).unwrap();
        std::fs::write(repo.join("a.py"), "x = 2\nz = 3\n").unwrap();
        std::fs::remove_file(repo.join("b.py")).unwrap();
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "Fix x (#12)\n\nlonger body"]);
        let second = head(&repo).unwrap();

        let wt = tmp.path().join("wt");
        let index = tmp.path().join("wt.index");
        check_out_into(&repo, &wt, &index, &first).unwrap();
        assert_eq!(std::fs::read_to_string(wt.join("b.py")).unwrap(), "y = 1\n");
        check_out_into(&repo, &wt, &index, &second).unwrap();
        assert!(!wt.join("b.py").exists());
        assert_eq!(
            std::fs::read_to_string(wt.join("a.py")).unwrap(),
            "x = 2\nz = 3\n"
        );
        assert!(commit_time(&repo, &second).unwrap() >= commit_time(&repo, &first).unwrap());
        assert!(check_out_into(&repo, &wt, &index, "0123456789abcdef").is_err());

        // The root commit has no parent and is left out.
        let log = changes(&repo, "HEAD", 10).unwrap();
        assert_eq!(log.len(), 1, "{log:?}");
        assert_eq!(log[0].commit, second);
        assert_eq!(log[0].parent, first);
        assert_eq!(log[0].message, "Fix x (#12)\n\nlonger body");
        let mut files = log[0].files.clone();
        files.sort();
        assert_eq!(files, [("a.py".to_string(), 3), ("b.py".to_string(), 1)]);
    }
}
