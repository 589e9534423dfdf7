//! Shallow clones and updates through the `git` command line (no libgit2 build).

use crate::SourceError;
use std::path::Path;
use std::process::Command;

/// True when `source` looks like a git URL rather than a local path.
pub fn looks_like_url(source: &str) -> bool {
    source.contains("://") || source.starts_with("git@") || source.ends_with(".git")
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

/// Shallow-clones `source` (URL or local repo path) into `dest`, which must not exist.
/// Clones into a sibling temp folder first, so a failed clone leaves nothing behind.
pub fn clone(source: &str, dest: &Path, branch: Option<&str>) -> Result<(), SourceError> {
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

/// Brings a shallow clone up to date with its remote branch (fetch, then hard reset).
/// Returns the new HEAD commit.
pub fn pull(dir: &Path, branch: Option<&str>) -> Result<String, SourceError> {
    let target = dir.display().to_string();
    let refspec = branch.unwrap_or("HEAD");
    run(
        "fetch",
        &target,
        Command::new("git")
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
        clone(origin.to_str().unwrap(), &dest, Some("main")).unwrap();
        assert_eq!(std::fs::read_to_string(dest.join("a.txt")).unwrap(), "one");

        std::fs::write(origin.join("a.txt"), "two").unwrap();
        git(&origin, &["commit", "-qam", "two"]);
        pull(&dest, Some("main")).unwrap();
        assert_eq!(std::fs::read_to_string(dest.join("a.txt")).unwrap(), "two");

        let err = clone(
            "file:///nonexistent/repo",
            &dir.path().join("clones/2"),
            None,
        )
        .unwrap_err();
        assert!(err.to_string().contains("git clone failed"), "{err}");
        assert!(!dir.path().join("clones/2").exists());
        assert!(!dir.path().join("clones/.2.cloning").exists());
    }
}
