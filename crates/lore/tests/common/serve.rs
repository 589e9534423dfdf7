//! Serving: a running `lore serve` (its URL read from the data dir's writer.json), a small
//! HTTP client, and the Python MCP SDK clients under `tests/mcp`.

use super::{Lore, Spawned, run_command};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A running `lore serve` and its base URL. Its stderr (`LORE_LOG`, `info` unless `env`
/// says otherwise) goes to a file in the test's root; `log()` reads it.
pub struct Server {
    child: Spawned,
    pub url: String,
    log: PathBuf,
}

impl Server {
    /// `lore serve ARGS`.
    pub fn start(lore: &Lore, args: &[&str]) -> Server {
        Server::start_with(lore, args, &[])
    }

    /// `lore serve` on a free loopback port without a watcher, with `env` set.
    pub fn no_watch(lore: &Lore, env: &[(&str, &str)]) -> Server {
        Server::start_with(lore, &["--addr", "127.0.0.1:0", "--no-watch"], env)
    }

    /// `lore serve ARGS` with `env` set; returns once writer.json names it.
    pub fn start_with(lore: &Lore, args: &[&str], env: &[(&str, &str)]) -> Server {
        static STARTED: AtomicUsize = AtomicUsize::new(0);
        let n = STARTED.fetch_add(1, Ordering::Relaxed);
        let log = lore.path(&format!("serve-{n}.log"));
        let mut all = vec!["serve"];
        all.extend_from_slice(args);
        let mut cmd = lore.command(&all);
        cmd.env("LORE_LOG", "info");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = Spawned(
            cmd.stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).expect("log file"))
                .spawn()
                .expect("spawn lore serve"),
        );
        let info = wait_for_writer(
            lore,
            &mut child,
            Duration::from_secs(60),
            "lore serve",
            Some(&log),
        );
        let url = info["url"].as_str().expect("url").to_string();
        Server { child, url, log }
    }

    /// Kills the server with SIGKILL (as a crash would); false if it had already exited.
    pub fn kill(&mut self) -> bool {
        let running = matches!(self.child.0.try_wait(), Ok(None));
        if running {
            let _ = self.child.0.kill();
        }
        let _ = self.child.0.wait();
        running
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The URL of `path` (`/api/…`, `/mcp`) on this server.
    pub fn api(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }
}

/// Waits until the data dir's writer.json names `child` as the writer; returns the record.
/// Fails the test, with the log at `log` if any, when `child` exits first or `timeout` passes.
pub fn wait_for_writer(
    lore: &Lore,
    child: &mut Spawned,
    timeout: Duration,
    what: &str,
    log: Option<&Path>,
) -> Value {
    let log = || {
        log.and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default()
    };
    let info_path = lore.data().join("writer.json");
    let pid = u64::from(child.0.id());
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(Some(status)) = child.0.try_wait() {
            panic!("{what} exited with {status}:\n{}", log());
        }
        if let Ok(text) = std::fs::read_to_string(&info_path)
            && let Ok(info) = serde_json::from_str::<Value>(&text)
            && info["pid"].as_u64() == Some(pid)
        {
            return info;
        }
        assert!(
            Instant::now() < deadline,
            "{what} did not start:\n{}",
            log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Polls job `id` until it finishes; returns its last record (fails after `timeout`).
pub fn wait_job(server: &Server, id: &str, timeout: Duration) -> Value {
    let deadline = Instant::now() + timeout;
    loop {
        let (status, job) = get(&server.api(&format!("/api/jobs/{id}")));
        assert_eq!(status, 200, "{job}");
        if ["done", "failed", "cancelled"].contains(&job["status"].as_str().unwrap_or("")) {
            return job;
        }
        assert!(
            Instant::now() < deadline,
            "job {id} still {} after {timeout:?}: {job}\n{}",
            job["status"],
            server.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An HTTP client that returns error statuses as responses and gives up after 120 s.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .new_agent()
}

/// Status and JSON body (`Value::Null` when the body is empty or not JSON).
pub fn answer(resp: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> (u16, Value) {
    let mut resp = resp.expect("HTTP request");
    let status = resp.status().as_u16();
    let text = resp
        .body_mut()
        .with_config()
        .limit(64 * 1024 * 1024)
        .read_to_string()
        .unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// POSTs to `path` declaring a `Content-Length` of `len` bytes but sending none of them, as a
/// client does before it streams a big upload; returns the status and JSON body the server
/// answers from the headers alone (it must not wait for the body).
pub fn post_declaring(server: &Server, path: &str, len: usize, extra: &str) -> (u16, Value) {
    use std::io::{Read, Write};
    let host = server.url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(host).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("read timeout");
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n{extra}Content-Length: {len}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).expect("send headers");
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("read the answer");
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

pub fn get(url: &str) -> (u16, Value) {
    answer(agent().get(url).call())
}

/// POSTs `body` as JSON on a new connection.
pub fn post(url: &str, body: &Value) -> (u16, Value) {
    post_with(&agent(), url, body)
}

/// POSTs `body` as JSON through `agent` (which keeps its connections alive).
pub fn post_with(agent: &ureq::Agent, url: &str, body: &Value) -> (u16, Value) {
    answer(
        agent
            .post(url)
            .content_type("application/json")
            .send(body.to_string()),
    )
}

/// The Python that runs the MCP SDK clients: `$LORE_PYTHON` (`.ci/run`'s virtual
/// environment), else `python3`.
pub fn python() -> String {
    std::env::var("LORE_PYTHON")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "python3".into())
}

/// True when `python()` can import the MCP SDK; under CI its absence is a failure.
pub fn python_mcp_or_skip() -> bool {
    let ok = Command::new(python())
        .args(["-c", "import mcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        if std::env::var_os("CI").is_some() {
            panic!(
                "CI is set but {} cannot import the MCP SDK; install it with `pip install mcp`",
                python()
            );
        }
        eprintln!("skipping: the Python MCP SDK (`pip install mcp`) is not installed");
    }
    ok
}

/// Runs `tests/mcp/SCRIPT ARGS` (a client on the Python MCP SDK) in the test's root, with the
/// world's HOME, none of the caller's LORE_LLM_* variables, and `env`; asserts it succeeded
/// and returns the JSON line it printed last (its measurements).
pub fn mcp_client(lore: &Lore, script: &str, args: &[&str], env: &[(&str, &str)]) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp")
        .join(script);
    let mut cmd = Command::new(python());
    cmd.arg(path).args(args).current_dir(lore.root());
    // A stdio server inherits the LORE_ variables; keep only the ones the test means.
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("LORE_LLM") {
            cmd.env_remove(k);
        }
    }
    lore.set_home(&mut cmd);
    lore.set_database(&mut cmd);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run_command(&mut cmd, Duration::from_secs(300));
    assert_eq!(
        out.code, 0,
        "{script} {args:?} failed\nstdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    let line = out.stdout.lines().last().unwrap_or("");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{script} printed {line:?}: {e}"))
}

/// `lore mcp` on stdio, started in `dir` (default: where the test runs) with `env`: one
/// `tools/call`, its answer.
pub fn stdio_tool(
    lore: &Lore,
    dir: Option<&Path>,
    env: &[(&str, &str)],
    tool: &str,
    arguments: Value,
) -> Value {
    let mut cmd = lore.command(&["mcp"]);
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = Spawned(
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn lore mcp"),
    );
    let mut stdin = child.0.stdin.take().expect("stdin");
    let stdout = BufReader::new(child.0.stdout.take().expect("stdout"));
    for msg in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": tool, "arguments": arguments}}),
    ] {
        writeln!(stdin, "{msg}").expect("write to lore mcp");
    }
    for line in stdout.lines().map_while(Result::ok) {
        let msg: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
        if msg["id"] == json!(2) {
            return msg;
        }
    }
    panic!("lore mcp closed without answering {tool}");
}
