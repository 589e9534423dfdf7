//! The brain as the clients of its design call it: plain HTTP JSON-RPC on `POST /mcp` (a
//! raw TCP client sending only the headers Go's `http.Post` sends, and `curl` as the
//! design's smoke lines use it), and `lore mcp` over stdio seeing notes written by hand.
//! No MCP SDK here: these clients know JSON-RPC and nothing of streamable HTTP.

/// Whether `lore` keeps its catalog in PostgreSQL here (the `*_postgres` suites).
const ON_POSTGRES: bool = false;

mod common;

use common::serve::Server;
use common::{Lore, write};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A raw HTTP/1.1 POST with exactly `headers` (plus Host, Content-Length, Connection):
/// status, content type and body.
fn raw_post(url: &str, headers: &[(&str, &str)], body: &str) -> (u16, String, String) {
    let rest = url.strip_prefix("http://").expect("http URL");
    let (host, path) = rest.split_once('/').expect("a path");
    let mut s = TcpStream::connect(host).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let mut req = format!(
        "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).expect("send");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("read");
    let (head, body) = out.split_once("\r\n\r\n").expect("a header block");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let ctype = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-type")
                .then(|| v.trim().to_string())
        })
        .unwrap_or_default();
    (status, ctype, body.to_string())
}

/// What Go's `http.Post(url, "application/json", body)` sends: no Accept header.
fn go_post(url: &str, body: &Value) -> (u16, String, String) {
    raw_post(
        url,
        &[
            ("User-Agent", "Go-http-client/1.1"),
            ("Content-Type", "application/json"),
            ("Accept-Encoding", "gzip"),
        ],
        &body.to_string(),
    )
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
}

/// A JSON-RPC answer to a tool call: the tool's result parsed from its text, or the error
/// text when the tool failed.
fn tool_result(answer: &Value) -> Result<Value, String> {
    let result = &answer["result"];
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("not a tool result: {answer}"));
    if result["isError"] == json!(true) {
        return Err(text.to_string());
    }
    Ok(serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}")))
}

#[test]
fn plain_json_rpc_clients_get_json_answers() {
    let lore = Lore::without_model();
    let llm = common::one_page_llm();
    // The file brain_ingest reads is in the test's root, which the server may read.
    let root = lore.root().display().to_string();
    let server = Server::start_with(
        &lore,
        &["--addr", "127.0.0.1:0", "--no-watch", "--allow-path", &root],
        &[("LORE_LLM_URL", &llm.url()), ("LORE_LLM_MODEL", "fake")],
    );
    let mcp = server.api("/mcp");

    // What a plain client accepts gets JSON: nothing said, anything, JSON.
    let log = call(
        1,
        "session_log",
        json!({"session_id": "go-1", "skill": "smoke"}),
    );
    for accept in [None, Some("*/*"), Some("application/json")] {
        let mut headers = vec![("Content-Type", "application/json")];
        headers.extend(accept.map(|a| ("Accept", a)));
        let (status, ctype, body) = raw_post(&mcp, &headers, &log.to_string());
        assert_eq!(status, 200, "Accept {accept:?}: {body}");
        assert!(ctype.starts_with("application/json"), "{accept:?}: {ctype}");
        let answer: Value = serde_json::from_str(&body).expect("a JSON body");
        let logged = tool_result(&answer).unwrap();
        assert_eq!(logged["status"], "ok", "{logged}");
        assert_eq!(logged["session_id"], "go-1", "{logged}");
    }
    // A client that asks for a stream gets one; one that takes neither is refused.
    let (status, ctype, body) = raw_post(
        &mcp,
        &[
            ("Content-Type", "application/json"),
            ("Accept", "text/event-stream"),
        ],
        &log.to_string(),
    );
    assert_eq!(status, 200, "{body}");
    assert!(ctype.starts_with("text/event-stream"), "{ctype}");
    assert!(body.contains("data:") && body.contains("go-1"), "{body}");
    let (status, _, body) = raw_post(
        &mcp,
        &[
            ("Content-Type", "application/json"),
            ("Accept", "text/html"),
        ],
        &log.to_string(),
    );
    assert_eq!(status, 406, "{body}");

    // initialize without params is answered.
    let (status, _, body) = go_post(
        &mcp,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {}}),
    );
    assert_eq!(status, 200, "{body}");
    let init: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "lore", "{init}");
    assert!(init["result"]["protocolVersion"].is_string(), "{init}");
    // What cannot be filled in is named.
    let (_, _, body) = go_post(
        &mcp,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "initialize",
                "params": {"clientInfo": {"name": 7}}}),
    );
    let bad: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("clientInfo"),
        "{bad}"
    );

    // brain_query's schema offers mode; limit 0 means the default.
    let (_, _, body) = go_post(
        &mcp,
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
    );
    let tools: Value = serde_json::from_str(&body).unwrap();
    let query_tool = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "brain_query")
        .expect("brain_query listed")
        .clone();
    assert!(
        query_tool["inputSchema"]["properties"]["mode"].is_object(),
        "{query_tool}"
    );
    for (i, name) in ["bilby", "numbat", "quoll", "dunnart", "kowari", "mulgara"]
        .iter()
        .enumerate()
    {
        let (_, _, body) = go_post(
            &mcp,
            &call(
                10 + i as u64,
                "brain_write",
                json!({"content": format!("The {name} is an Australian marsupial."),
                       "filename": name}),
            ),
        );
        tool_result(&serde_json::from_str(&body).unwrap()).unwrap();
    }
    let (_, _, body) = go_post(
        &mcp,
        &call(20, "brain_query", json!({"query": "marsupial", "limit": 0})),
    );
    let found = tool_result(&serde_json::from_str(&body).unwrap()).unwrap();
    assert_eq!(found["results"].as_array().unwrap().len(), 5, "{found}");

    // brain_ingest: an empty content beside a path is no content; the source defaults to
    // the file's name without its extension.
    let doc = lore.path("field-notes.md");
    std::fs::write(&doc, "# Numbats\n\nNumbats eat termites.\n").unwrap();
    let (_, _, body) = go_post(
        &mcp,
        &call(
            21,
            "brain_ingest",
            json!({"path": doc.display().to_string(), "content": "", "dry_run": true}),
        ),
    );
    let ingested = tool_result(&serde_json::from_str(&body).unwrap()).unwrap();
    assert_eq!(ingested["source"], "field-notes", "{ingested}");

    // The design's smoke line, as written (curl sends Accept: */*).
    if Command::new("curl").arg("--version").output().is_ok() {
        let out = Command::new("curl")
            .args([
                "-s",
                "-X",
                "POST",
                &mcp,
                "-H",
                "Content-Type: application/json",
            ])
            .arg("-d")
            .arg(
                call(
                    30,
                    "session_log",
                    json!({"session_id": "curl-1", "phase": "smoke"}),
                )
                .to_string(),
            )
            .output()
            .expect("curl");
        let text = String::from_utf8_lossy(&out.stdout);
        let answer: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("curl got {text:?}: {e}"));
        let logged = tool_result(&answer).unwrap();
        assert_eq!(
            (&logged["status"], &logged["session_id"]),
            (&json!("ok"), &json!("curl-1"))
        );
    } else {
        eprintln!("curl is not installed: the curl smoke line was not run");
    }
}

#[test]
fn hybrid_brain_query_returns_only_matches() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let server = Server::no_watch(&lore, &[]);
    let mcp = server.api("/mcp");
    for (i, (name, text)) in [
        (
            "quolls",
            "Quolls are carnivorous marsupials native to Australia.",
        ),
        (
            "retry",
            "The retry policy uses exponential backoff with jitter.",
        ),
        ("deploys", "Deploys go through the staging cluster first."),
    ]
    .iter()
    .enumerate()
    {
        let (_, _, body) = go_post(
            &mcp,
            &call(
                i as u64,
                "brain_write",
                json!({"content": text, "filename": name}),
            ),
        );
        tool_result(&serde_json::from_str(&body).unwrap()).unwrap();
    }
    let query = |q: &str| {
        let (_, _, body) = go_post(&mcp, &call(9, "brain_query", json!({"query": q})));
        tool_result(&serde_json::from_str(&body).unwrap()).unwrap()
    };
    let none = query("zzqqxx");
    assert_eq!(none["mode"], "hybrid", "{none}");
    assert_eq!(none["results"], json!([]), "{none}");
    assert!(
        none["note"].as_str().is_some_and(|n| n.contains("nothing")),
        "{none}"
    );
    // A match by meaning alone still counts.
    let meant = query("pouched predators");
    assert_eq!(
        meant["results"][0]["path"], "knowledge/quolls.md",
        "{meant}"
    );
    assert!(meant.get("note").is_none(), "{meant}");

    // Issue 29, item 9: near-empty notes do not pad an unrelated query.
    for (i, name) in ["x1", "x2", "x3"].iter().enumerate() {
        let (_, _, body) = go_post(
            &mcp,
            &call(
                20 + i as u64,
                "brain_write",
                json!({"content": "x", "filename": name}),
            ),
        );
        tool_result(&serde_json::from_str(&body).unwrap()).unwrap();
    }
    for q in ["zzqqxx", "flurbo glimmick wezzle"] {
        let none = query(q);
        assert_eq!(none["results"], json!([]), "{q}: {none}");
    }
    let meant = query("pouched predators");
    assert_eq!(
        meant["results"][0]["path"], "knowledge/quolls.md",
        "{meant}"
    );
}

/// `lore mcp` over stdio: JSON-RPC lines in, lines out.
struct StdioMcp {
    child: common::Spawned,
    stdin: std::process::ChildStdin,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl StdioMcp {
    fn start(lore: &Lore) -> StdioMcp {
        let mut cmd = lore.command(&["mcp"]);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = common::Spawned(cmd.spawn().expect("spawn lore mcp"));
        let stdin = child.0.stdin.take().unwrap();
        let stdout = child.0.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        StdioMcp {
            child,
            stdin,
            lines,
            next_id: 0,
        }
    }

    fn send(&mut self, msg: &Value) {
        writeln!(self.stdin, "{msg}").expect("write to lore mcp");
    }

    /// Sends a request and waits for the answer with its id.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            let msg: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    fn tool(&mut self, name: &str, arguments: Value) -> Result<Value, String> {
        let answer = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        tool_result(&answer)
    }
}

#[test]
fn stdio_sees_hand_written_notes_within_a_second() {
    let lore = Lore::without_model();
    lore.ok(&[
        "brain",
        "write",
        "Echidnas lay eggs.",
        "--filename",
        "first",
    ]);
    let mut mcp = StdioMcp::start(&lore);
    // initialize without params is answered here too.
    let init = mcp.request("initialize", json!({}));
    assert_eq!(init["result"]["serverInfo"]["name"], "lore", "{init}");
    mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let first = mcp
        .tool("brain_query", json!({"query": "echidnas"}))
        .unwrap();
    assert_eq!(first["results"][0]["path"], "knowledge/first.md", "{first}");

    write(
        &lore.data().join("brain"),
        "knowledge/hand2.md",
        "# Hand\n\nWombats have cube-shaped droppings.\n",
    );
    let written = Instant::now();
    loop {
        let found = mcp
            .tool("brain_query", json!({"query": "wombats"}))
            .unwrap();
        if found["results"][0]["path"] == "knowledge/hand2.md" {
            eprintln!(
                "the hand-written note was found after {:?}",
                written.elapsed()
            );
            break;
        }
        assert!(
            written.elapsed() < Duration::from_secs(1),
            "a note written by hand is not found after {:?}: {found}",
            written.elapsed()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(mcp.stdin);
    let _ = common::wait_timeout(&mut mcp.child.0, Duration::from_secs(10));

    // The CLI, which no watcher serves, looks at the brain on disk before answering.
    write(
        &lore.data().join("brain"),
        "knowledge/hand3.md",
        "Platypuses glow under ultraviolet light.\n",
    );
    let q = lore.json(&["brain", "query", "platypuses", "--mode", "fts"]);
    assert_eq!(q["results"][0]["path"], "knowledge/hand3.md", "{q}");

    // Issue 55, item 5: notes written by hand while nothing ran are answered by the very
    // first query of a fresh `lore mcp`, and listed by the CLI, with no wait in between.
    write(
        &lore.data().join("brain"),
        "knowledge/hand4.md",
        "# Quokkas\n\nQuokkas carry their young in a pouch.\n",
    );
    let answer = common::serve::stdio_tool(
        &lore,
        None,
        &[],
        "brain_query",
        json!({"query": "quokkas", "mode": "fts"}),
    );
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    let first: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {answer}"));
    assert_eq!(first["results"][0]["path"], "knowledge/hand4.md", "{first}");
    write(
        &lore.data().join("brain"),
        "knowledge/hand5.md",
        "# Numbats\n\nNumbats eat termites.\n",
    );
    let listed = lore.json(&["brain", "list"]).to_string();
    assert!(listed.contains("knowledge/hand5.md"), "{listed}");
}

/// Issue 29, item 8: `lore serve` indexes a brain that has notes but no store yet at start,
/// and watches its folder from the start: a note written by hand after it started is found.
#[test]
fn serve_indexes_and_watches_the_brain_from_the_start() {
    let lore = Lore::without_model();
    write(
        &lore.data().join("brain"),
        "knowledge/early.md",
        "# Early\n\nQuokkas smile for photographs.\n",
    );
    let server = Server::start(&lore, &["--addr", "127.0.0.1:0"]);
    let mcp = server.api("/mcp");
    let query = |q: &str| {
        let (status, _, body) = go_post(&mcp, &call(1, "brain_query", json!({"query": q})));
        assert_eq!(status, 200, "{body}");
        tool_result(&serde_json::from_str(&body).unwrap()).unwrap_or_else(|e| json!({"error": e}))
    };
    let until = |q: &str, path: &str| {
        let start = Instant::now();
        loop {
            let found = query(q);
            if found["results"][0]["path"] == path {
                return start.elapsed();
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "{path} is not found: {found}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    until("quokkas", "knowledge/early.md");
    write(
        &lore.data().join("brain"),
        "knowledge/later.md",
        "# Later\n\nNumbats eat termites.\n",
    );
    let took = until("numbats", "knowledge/later.md");
    eprintln!("the hand-written note was found after {took:?}");
    drop(server);

    // No brain folder at all when the server starts: the first note by hand is found too.
    let fresh = Lore::without_model();
    let server = Server::start(&fresh, &["--addr", "127.0.0.1:0"]);
    let mcp = server.api("/mcp");
    write(
        &fresh.data().join("brain"),
        "knowledge/first.md",
        "# First

Bilbies dig spiral burrows.
",
    );
    let start = Instant::now();
    loop {
        let (_, _, body) = go_post(&mcp, &call(1, "brain_query", json!({"query": "bilbies"})));
        let found = tool_result(&serde_json::from_str(&body).unwrap());
        if found
            .as_ref()
            .is_ok_and(|f| f["results"][0]["path"] == "knowledge/first.md")
        {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "a note in a brain made after start is not found: {found:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
