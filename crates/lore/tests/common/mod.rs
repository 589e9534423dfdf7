//! Helpers for driving the real `lore` binary: an isolated temp world per test (data dir,
//! HOME, XDG dirs), the model gate, and assertions on exit codes, JSON and error lines;
//! `serve` drives `lore serve` over HTTP and the Python MCP SDK clients.

#![allow(dead_code)]

pub mod embeddings;
pub mod fixture;
pub mod serve;
pub mod site;

use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_lore");

/// Longest any single `lore` run may take before the test fails instead of hanging.
const RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// The variables that point lore at an LLM: children see them only where a test sets them.
pub const LLM_VARS: [&str; 3] = ["LORE_LLM_URL", "LORE_LLM_MODEL", "LORE_LLM_API_KEY"];

/// The embedding model dir: `$LORE_MODEL_DIR`, else the shared one `lore model fetch` uses,
/// fetched once (under a lock) when missing; `None`, after saying why, when tests that need
/// it must skip. Under CI a missing model is an error, not a skip.
pub fn model_dir() -> Option<PathBuf> {
    match lore_embed::shared_model_dir() {
        Ok(d) => Some(d),
        Err(e) => {
            if std::env::var_os("CI").is_some() {
                panic!(
                    "CI is set but the embedding model cannot be had: {e}; point LORE_MODEL_DIR \
                     at a directory with config.json, tokenizer.json and model.safetensors"
                );
            }
            eprintln!("skipping: no embedding model ({e})");
            None
        }
    }
}

/// What one `lore` run produced.
#[derive(Debug)]
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

/// An isolated world for one test: a temp root holding the data dir, a fake HOME, and any
/// source folders the test creates. Children never see the user's data dir or model cache.
pub struct Lore {
    tmp: tempfile::TempDir,
    model: Option<PathBuf>,
    /// The PostgreSQL database of this world's catalog (the `*_postgres` suites).
    database: Option<String>,
    /// Whether dropping this world drops `database` (a replica shares its owner's).
    owns_database: bool,
}

/// Whether this test binary runs `lore` on PostgreSQL (its root's `ON_POSTGRES`).
pub fn on_postgres() -> bool {
    crate::ON_POSTGRES
}

/// A fresh database on the test server (`LORE_TEST_DATABASE_URL`, started by
/// `.ci/postgres`) named after `tag`; `None` after a notice when there is no server here.
/// Under CI a missing server is an error, not a skip.
pub fn fresh_database(tag: &str) -> Option<String> {
    let Ok(url) = std::env::var("LORE_TEST_DATABASE_URL") else {
        if std::env::var_os("CI").is_some() {
            panic!("CI is set but LORE_TEST_DATABASE_URL is not (.ci/postgres start)");
        }
        eprintln!("skipping: no PostgreSQL (LORE_TEST_DATABASE_URL is not set)");
        return None;
    };
    let name: String = tag
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let admin = lore_index::Sql::postgres(&url, &Default::default()).expect("test server");
    admin
        .batch(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .expect("drop");
    admin
        .batch(&format!("CREATE DATABASE {name}"))
        .expect("create");
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, format!("?{q}")),
        None => (url.as_str(), String::new()),
    };
    let (server, _) = base.rsplit_once('/').expect("a database in the URL");
    Some(format!("{server}/{name}{query}"))
}

impl Drop for Lore {
    fn drop(&mut self) {
        if !self.owns_database {
            return;
        }
        if let (Some(db), Ok(url)) = (&self.database, std::env::var("LORE_TEST_DATABASE_URL"))
            && let Ok(admin) = lore_index::Sql::postgres(&url, &Default::default())
        {
            let name = db
                .rsplit('/')
                .next()
                .unwrap_or("")
                .split('?')
                .next()
                .unwrap_or("");
            let _ = admin.batch(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        }
    }
}

impl Lore {
    /// A world whose children may use the embedding model at `model`.
    pub fn with_model(model: PathBuf) -> Lore {
        Lore::new(Some(model))
    }

    /// A world with the model, or `None` (after a skip notice) when there is none here.
    pub fn with_model_or_skip() -> Option<Lore> {
        if on_postgres() && std::env::var_os("LORE_TEST_DATABASE_URL").is_none() {
            fresh_database("none")?;
        }
        model_dir().map(Lore::with_model)
    }

    /// A world with the model and the fixture project written (not indexed) at `proj/`, or
    /// `None` (after a skip notice) when there is no model here.
    pub fn with_project_or_skip() -> Option<(Lore, PathBuf)> {
        let lore = Lore::with_model_or_skip()?;
        let proj = lore.path("proj");
        fixture::write_project(&proj);
        Some((lore, proj))
    }

    /// A world whose children have no model (LORE_MODEL_DIR removed, HOME in the temp dir).
    pub fn without_model() -> Lore {
        Lore::new(None)
    }

    fn new(model: Option<PathBuf>) -> Lore {
        // No leading dot: the walker skips hidden folders, and the tempdir is not hidden.
        let tmp = tempfile::Builder::new()
            .prefix("lore-cli-test-")
            .tempdir()
            .expect("tempdir");
        std::fs::create_dir_all(tmp.path().join("home")).unwrap();
        // Without a server (outside CI) a PostgreSQL suite's model-free worlds run on the
        // embedded catalog; its worlds with the model skip (`with_model_or_skip`).
        let database = if on_postgres() {
            let tag = tmp
                .path()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .to_string();
            fresh_database(&tag)
        } else {
            None
        };
        Lore {
            tmp,
            model,
            database,
            owns_database: true,
        }
    }

    /// Another machine's world on this world's catalog database: its own temp root and
    /// data dir, the same PostgreSQL database (dropped with this world, not that one).
    pub fn replica(&self) -> Lore {
        let tmp = tempfile::Builder::new()
            .prefix("lore-cli-replica-")
            .tempdir()
            .expect("tempdir");
        std::fs::create_dir_all(tmp.path().join("home")).unwrap();
        Lore {
            tmp,
            model: self.model.clone(),
            database: self.database.clone(),
            owns_database: false,
        }
    }

    pub fn root(&self) -> &Path {
        self.tmp.path()
    }

    /// A path inside the test's temp root.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    pub fn data(&self) -> PathBuf {
        self.tmp.path().join("data")
    }

    /// Points `cmd`'s HOME and XDG dirs at this world's fake home.
    pub fn set_home(&self, cmd: &mut Command) {
        let home = self.path("home");
        cmd.env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("HOME", home);
    }

    /// A `lore` command with this world's data dir and a sanitised environment (no LLM).
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.arg("--data-dir")
            .arg(self.data())
            .arg("--quiet")
            .args(args);
        self.set_home(&mut c);
        for k in LLM_VARS {
            c.env_remove(k);
        }
        c.env("LORE_DATA_DIR", self.data())
            // Never reach the network for the model: hub skipped, pip has no index.
            .env("HF_HUB_OFFLINE", "1")
            .env("PIP_NO_INDEX", "1")
            .env("PIP_CONFIG_FILE", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("NO_COLOR", "1")
            .current_dir(self.root())
            .stdin(Stdio::null());
        match &self.model {
            Some(m) => c.env("LORE_MODEL_DIR", m),
            None => c.env_remove("LORE_MODEL_DIR"),
        };
        self.set_database(&mut c);
        c
    }

    /// Points `cmd` (and the `lore` it starts) at this world's catalog database, if any.
    pub fn set_database(&self, cmd: &mut Command) {
        match &self.database {
            Some(db) => cmd.env("LORE_DATABASE_URL", db),
            None => cmd.env_remove("LORE_DATABASE_URL"),
        };
    }

    /// The PostgreSQL database of this world's catalog, if it has one.
    pub fn database(&self) -> Option<&str> {
        self.database.as_deref()
    }

    /// Starts `lore` without waiting (stdout/stderr discarded). The child is killed if the
    /// guard is dropped while it still runs (e.g. when an assertion fails).
    pub fn spawn(&self, args: &[&str]) -> Spawned {
        Spawned(
            self.command(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn lore"),
        )
    }

    /// Runs `lore` to completion (with a generous timeout so a hang fails the test).
    pub fn run(&self, args: &[&str]) -> Out {
        run_command(&mut self.command(args), RUN_TIMEOUT)
    }

    /// Runs `lore`, expecting success; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(
            out.code, 0,
            "lore {args:?} failed with {}\nstdout:\n{}\nstderr:\n{}",
            out.code, out.stdout, out.stderr
        );
        assert!(
            !out.stderr.contains("panicked"),
            "lore {args:?} panicked:\n{}",
            out.stderr
        );
        out.stdout
    }

    /// Runs `lore --json …`, expecting success; returns the parsed document.
    pub fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let stdout = self.ok(&all);
        serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("lore {args:?}: bad JSON ({e}):\n{stdout}"))
    }

    /// Runs `lore`, expecting exit `code` and a single `error: ` line on stderr; returns it.
    pub fn fails(&self, args: &[&str], code: i32) -> String {
        let out = self.run(args);
        assert_eq!(
            out.code, code,
            "lore {args:?}: expected exit {code}, got {}\nstdout:\n{}\nstderr:\n{}",
            out.code, out.stdout, out.stderr
        );
        one_error_line(&out.stderr, args)
    }

    /// Search results as JSON (`--json search QUERY --mode MODE` plus `extra`).
    pub fn search(&self, query: &str, mode: &str, extra: &[&str]) -> Value {
        let mut args = vec!["search", query, "--mode", mode];
        args.extend_from_slice(extra);
        self.json(&args)
    }

    /// The data dir's store folder for `name` (`<data>/stores/<id>`).
    pub fn store_dir(&self, name: &str) -> PathBuf {
        let info = self.json(&["store", "info", name]);
        let id = info["id"].as_i64().expect("store id");
        self.data().join("stores").join(id.to_string())
    }
}

/// A running child process, killed and reaped on drop.
pub struct Spawned(pub Child);

impl Drop for Spawned {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Asserts that stderr is exactly one non-empty `error: ` line with no panic text.
pub fn one_error_line(stderr: &str, args: &[&str]) -> String {
    assert!(
        !stderr.contains("panicked"),
        "lore {args:?} panicked:\n{stderr}"
    );
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        lines.len(),
        1,
        "lore {args:?}: expected one error line, got:\n{stderr}"
    );
    assert!(
        lines[0].starts_with("error: "),
        "lore {args:?}: stderr is not an error line: {stderr}"
    );
    lines[0].to_string()
}

/// Runs a command with piped output, failing the test if it outlives `timeout`.
pub fn run_command(cmd: &mut Command, timeout: Duration) -> Out {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    let status = wait_timeout(&mut child, timeout).unwrap_or_else(|| {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{cmd:?} did not finish within {timeout:?}");
    });
    Out {
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

fn drain(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    })
}

/// Waits for `child` up to `timeout`; `None` if it is still running.
pub fn wait_timeout(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every file under `dir`, relative and sorted (none when it does not exist); symlinked
/// folders are listed, not followed.
pub fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() && !p.is_symlink() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// Copies the folder `from` to `to`, recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// The engine's python-shop graph fixture copied to `shop/` in the test's root.
pub fn copy_shop(lore: &Lore) -> PathBuf {
    let shop = lore.path("shop");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../lore-engine/tests/fixtures/graph/python-shop");
    copy_dir(&fixture, &shop);
    shop
}

/// Writes `content` to `root/rel`, creating folders.
pub fn write(root: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, content).unwrap();
}

/// 1-based number of the first line of `text` containing `needle`.
pub fn line_of(text: &str, needle: &str) -> u64 {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in text")) as u64
        + 1
}

/// The paths of a search response's results, in rank order.
pub fn paths(resp: &Value) -> Vec<String> {
    resp["results"]
        .as_array()
        .expect("results array")
        .iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect()
}

/// Asserts that `path` is the first result of a search response.
#[track_caller]
pub fn assert_first(resp: &Value, path: &str) {
    let got = paths(resp);
    assert_eq!(
        got.first().map(String::as_str),
        Some(path),
        "query {} ({}): expected {path} first, got {got:?}",
        resp["query"],
        resp["mode"]
    );
}

/// Runs `git` in `dir` with a throwaway identity, asserting success.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Unix seconds now.
pub fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// A fake LLM that answers every page request with one concept page, "Numbat notes".
pub fn one_page_llm() -> lore_llm::fake_server::FakeLlm {
    use lore_llm::fake_server::{FakeLlm, Reply};
    FakeLlm::start(|_, _| {
        Reply::Content(
            serde_json::json!({"pages": [{"title": "Numbat notes", "type": "concept",
                                          "content": "Numbats eat termites."}]})
            .to_string(),
        )
    })
    .expect("fake LLM")
}
