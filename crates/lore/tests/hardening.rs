//! Hardening (issue 13), through the binary and a plain HTTP client: what a server may read
//! (`--allow-path`) and fetch (`--allow-private-fetch`), JSON-RPC errors for what `/mcp`
//! cannot parse, control characters in text output, and the query cap. The CLI and
//! `lore mcp` on stdio, which act for the user, keep reading and fetching anything.

/// Whether `lore` keeps its catalog in PostgreSQL here (the `*_postgres` suites).
const ON_POSTGRES: bool = false;

mod common;

use common::serve::{Server, agent, get, post};
use common::site::Site;
use common::{Lore, Spawned, write};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// `lore serve` on a free loopback port, no watcher, with `extra` flags and `env`.
fn serve(lore: &Lore, extra: &[&str], env: &[(&str, &str)]) -> Server {
    let mut args = vec!["--addr", "127.0.0.1:0", "--no-watch"];
    args.extend_from_slice(extra);
    Server::start_with(lore, &args, env)
}

/// A POST with a raw body: status, content type and the body parsed as JSON (`Null` when it
/// is not JSON).
fn raw_post(url: &str, content_type: &str, body: &str) -> (u16, String, Value) {
    let mut resp = agent()
        .post(url)
        .header("Content-Type", content_type)
        .send(body)
        .expect("HTTP request");
    let status = resp.status().as_u16();
    let ctype = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let text = resp.body_mut().read_to_string().unwrap_or_default();
    (
        status,
        ctype,
        serde_json::from_str(&text).unwrap_or(Value::Null),
    )
}

/// A `tools/call` over HTTP MCP: the tool's text, and whether it is a tool error.
fn mcp_tool(server: &Server, tool: &str, arguments: Value) -> (String, bool) {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": tool, "arguments": arguments}});
    let (status, answer) = post(&server.api("/mcp"), &call);
    assert_eq!(status, 200, "{answer}");
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("not a tool result: {answer}"))
        .to_string();
    (text, answer["result"]["isError"] == json!(true))
}

/// The error text of a 4xx REST answer.
#[track_caller]
fn refused(answer: (u16, Value), status: u16, what: &str) -> String {
    let (got, body) = answer;
    assert_eq!(got, status, "{what}: {body}");
    body["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: no error in {body}"))
        .to_string()
}

/// Issue 13, item 1: a server reads files only under the folders its operator allowed
/// (`--allow-path`), symlinks resolved first; nothing is read (and no LLM asked) for a path
/// it refuses. `lore mcp` on stdio reads like the CLI.
#[test]
fn server_reads_only_under_allow_path() {
    let lore = Lore::without_model();
    let llm = common::one_page_llm();
    let url = llm.url();
    let env = [("LORE_LLM_URL", url.as_str()), ("LORE_LLM_MODEL", "fake")];
    let allowed = lore.path("allowed");
    write(&allowed, "doc.md", "# Numbats\n\nNumbats eat termites.\n");
    let secret = lore.path("secret");
    write(&secret, "hostname", "secret-host-name\n");
    std::os::unix::fs::symlink(secret.join("hostname"), allowed.join("link.md")).unwrap();
    std::os::unix::fs::symlink(&secret, allowed.join("out")).unwrap();

    let server = serve(&lore, &["--allow-path", s(&allowed)], &env);
    let ingest = server.api("/api/brain/ingest-path");
    for path in [
        secret.join("hostname"),
        allowed.join("link.md"),
        allowed.join("out/hostname"),
        secret.join("missing.md"),
        PathBuf::from("/etc/hostname"),
    ] {
        let what = format!("ingest-path {}", path.display());
        let err = refused(
            post(&ingest, &json!({"path": path, "dryRun": true})),
            403,
            &what,
        );
        assert!(err.contains("--allow-path"), "{what}: {err}");
        assert!(!err.contains("secret-host-name"), "{what}: {err}");
    }
    let (text, is_error) = mcp_tool(
        &server,
        "brain_ingest",
        json!({"path": secret.join("hostname"), "dry_run": true}),
    );
    assert!(is_error && text.contains("--allow-path"), "{text}");
    assert!(
        llm.requests().is_empty(),
        "the LLM was asked about a refused file: {:?}",
        llm.requests()
    );
    // Under an allowed folder: read.
    let (status, body) = post(
        &ingest,
        &json!({"path": allowed.join("doc.md"), "dryRun": true}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(llm.requests().len(), 1);

    // Folder stores (and local repositories) only under an allowed folder.
    let stores = server.api("/api/stores");
    for (source, kind) in [
        (secret.clone(), "folder"),
        (allowed.join("out"), "folder"),
        (PathBuf::from("/etc"), "folder"),
        (secret.clone(), "repo"),
    ] {
        let what = format!("add {kind} {}", source.display());
        let err = refused(
            post(
                &stores,
                &json!({"name": "s", "source": source, "type": kind, "include": "passwd"}),
            ),
            403,
            &what,
        );
        assert!(err.contains("--allow-path"), "{what}: {err}");
    }
    let (text, is_error) = mcp_tool(
        &server,
        "stores",
        json!({"action": "add", "name": "etc", "source": "/etc"}),
    );
    assert!(is_error && text.contains("--allow-path"), "{text}");
    assert_eq!(
        get(&server.api("/api/jobs")).1,
        json!([]),
        "a job was queued"
    );
    // An allowed folder is accepted (the job then fails here for want of the model).
    let (status, job) = post(
        &stores,
        &json!({"name": "doc", "source": allowed.display().to_string()}),
    );
    assert_eq!(status, 202, "{job}");
    drop(server);

    // Without --allow-path a server reads no file at all.
    let server = serve(&lore, &[], &env);
    let err = refused(
        post(
            &server.api("/api/brain/ingest-path"),
            &json!({"path": allowed.join("doc.md"), "dryRun": true}),
        ),
        403,
        "ingest-path without --allow-path",
    );
    assert!(err.contains("--allow-path"), "{err}");
    let err = refused(
        post(
            &server.api("/api/stores"),
            &json!({"name": "doc2", "source": allowed.display().to_string()}),
        ),
        403,
        "add without --allow-path",
    );
    assert!(err.contains("--allow-path"), "{err}");
    drop(server);
    assert_eq!(llm.requests().len(), 1);

    // `lore mcp` on stdio is the user's own agent: it reads what the user can, like the CLI.
    let answer = common::serve::stdio_tool(
        &lore,
        None,
        &env,
        "brain_ingest",
        json!({"path": secret.join("hostname"), "dry_run": true}),
    );
    assert_ne!(answer["result"]["isError"], json!(true), "{answer}");
    assert_eq!(llm.requests().len(), 2);
}

/// A git repository at `dir` with one committed file.
fn repo_with(dir: &Path, rel: &str, text: &str) {
    write(dir, rel, text);
    common::git(dir, &["init", "--quiet", "--initial-branch=main"]);
    common::git(dir, &["add", "."]);
    common::git(dir, &["commit", "--quiet", "-m", "one"]);
}

/// Issue 29, item 1: a local repository under an allowed folder that pulls objects from
/// outside it — through `objects/info/alternates` (a `clone --shared`), a `.git` gitfile (a
/// `git worktree`), or a symlink in its git dir — is refused before git reads anything.
#[test]
fn local_repositories_are_confined_whole() {
    let lore = Lore::without_model();
    let allowed = lore.path("allowed");
    let outside = lore.path("outside");
    repo_with(&outside, "secret.md", "# Secret\n\nOutside words.\n");
    std::fs::create_dir_all(&allowed).unwrap();
    common::git(
        &allowed,
        &[
            "clone",
            "--quiet",
            "--bare",
            "--shared",
            s(&outside),
            "shared.git",
        ],
    );
    common::git(
        &outside,
        &["worktree", "add", "--quiet", s(&allowed.join("wt"))],
    );
    common::git(
        &allowed,
        &["clone", "--quiet", "--bare", s(&outside), "linked.git"],
    );
    let objects = allowed.join("linked.git/objects");
    std::fs::rename(&objects, allowed.join("moved-objects")).unwrap();
    std::os::unix::fs::symlink(outside.join(".git/objects"), &objects).unwrap();
    // A repository wholly inside is accepted.
    repo_with(&allowed.join("own"), "doc.md", "# Own\n");

    let server = serve(&lore, &["--allow-path", s(&allowed)], &[]);
    let stores = server.api("/api/stores");
    for (name, why) in [
        ("shared.git", "alternate"),
        ("wt", "git dir"),
        ("linked.git", "symlink"),
    ] {
        let source = allowed.join(name);
        let what = format!("add repo {name}");
        let err = refused(
            post(
                &stores,
                &json!({"name": "r", "source": source, "type": "repo"}),
            ),
            403,
            &what,
        );
        assert!(
            err.contains("--allow-path") && err.contains(why),
            "{what}: {err}"
        );
    }
    assert_eq!(
        get(&server.api("/api/jobs")).1,
        json!([]),
        "a job was queued"
    );
    let (status, job) = post(
        &stores,
        &json!({"name": "own", "source": allowed.join("own"), "type": "repo"}),
    );
    assert_eq!(status, 202, "{job}");
}

/// POSTs a job to `route` (202) and waits for it to finish; its last record.
#[track_caller]
fn run_job(server: &Server, route: &str, body: Value) -> Value {
    let (status, job) = post(&server.api(route), &body);
    assert_eq!(status, 202, "{job}");
    common::serve::wait_job(
        server,
        job["id"].as_str().unwrap(),
        Duration::from_secs(120),
    )
}

/// Whether a BM25 search of `store` for `query` finds nothing.
fn finds_nothing(server: &Server, store: &str, query: &str) -> bool {
    let (status, found) = post(
        &server.api("/api/search"),
        &json!({"query": query, "stores": [store], "mode": "fts"}),
    );
    assert_eq!(status, 200, "{found}");
    found["results"] == json!([])
}

/// Issue 29, items 2 and 3: a folder store's root is checked again on every index run (a
/// folder swapped for a symlink out is refused, and nothing outside becomes searchable),
/// and a store whose folder holds lore's data dir leaves the data dir out, saying so.
#[test]
fn stores_stay_confined_after_they_are_added() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    // The data dir is `<root>/data`: allow the whole root, so the data dir is inside it.
    let root = lore.root().to_path_buf();
    let docs = lore.path("docs");
    write(&docs, "numbats.md", "# Numbats\n\nNumbats eat termites.\n");
    let outside = tempfile::tempdir().unwrap();
    write(
        outside.path(),
        "secret.md",
        "# Quolls\n\nQuolls hunt at night.\n",
    );
    lore.ok(&[
        "brain",
        "write",
        "Wombats dig burrows.",
        "--filename",
        "private-note",
    ]);
    // The operator's own store, added with the CLI before the server starts, outside
    // `--allow-path`: the server re-indexes it until it is swapped for a symlink.
    let own = tempfile::tempdir().unwrap();
    let mine = own.path().join("mine");
    write(&mine, "dingoes.md", "# Dingoes\n\nDingoes howl at dusk.\n");
    lore.ok(&["store", "add", "mine", s(&mine)]);

    let server = serve(&lore, &["--allow-path", s(&root)], &[]);
    let job = run_job(&server, "/api/stores/mine/index", json!({}));
    assert_eq!(job["status"], "done", "{job}");
    let job = run_job(
        &server,
        "/api/stores",
        json!({"name": "docs", "source": docs}),
    );
    assert_eq!(job["status"], "done", "{job}");

    // Item 3: the whole root, data dir and brain included, as one store.
    let job = run_job(
        &server,
        "/api/stores",
        json!({"name": "all", "source": root}),
    );
    assert_eq!(job["status"], "done", "{job}");
    assert!(job["result"].to_string().contains("left out data"), "{job}");
    assert!(
        finds_nothing(&server, "all", "wombats dig burrows"),
        "the brain's note was indexed as a file"
    );

    // Item 2: the folder swapped for a symlink to one outside; re-indexing is refused.
    std::fs::remove_dir_all(&docs).unwrap();
    std::os::unix::fs::symlink(outside.path(), &docs).unwrap();
    let job = run_job(&server, "/api/stores/docs/index", json!({}));
    assert_eq!(job["status"], "failed", "{job}");
    assert!(job["error"].to_string().contains("--allow-path"), "{job}");
    assert!(
        finds_nothing(&server, "docs", "quolls hunt at night"),
        "an outside file became searchable"
    );
    std::fs::remove_dir_all(&mine).unwrap();
    std::os::unix::fs::symlink(outside.path(), &mine).unwrap();
    let job = run_job(&server, "/api/stores/mine/index", json!({}));
    assert_eq!(job["status"], "failed", "{job}");
    assert!(
        finds_nothing(&server, "mine", "quolls hunt at night"),
        "an outside file became searchable through the operator's store"
    );
}

/// Issue 13, item 3: a server fetches only public addresses — checked after DNS, for web
/// and git stores, before anything is fetched — and runs git only over http(s) and ssh.
#[test]
fn server_fetches_only_public_addresses() {
    let lore = Lore::without_model();
    let site = Site::start(&[
        ("/robots.txt", ""),
        (
            "/docs/",
            "<html><body><main><p>Feeder</p></main></body></html>",
        ),
    ]);
    let server = serve(&lore, &[], &[]);
    let stores = server.api("/api/stores");
    let private = [
        (site.url("/docs/"), "web"),
        ("http://localhost:9/docs/".into(), "web"),
        ("http://169.254.169.254/latest/meta-data/".into(), "web"),
        ("http://10.1.2.3/docs/".into(), "web"),
        ("http://[::1]:9/docs/".into(), "web"),
        ("http://[::ffff:127.0.0.1]:9/docs/".into(), "web"),
        // What the system resolver reads as 127.0.0.1.
        ("http://2130706433:9/docs/".into(), "web"),
        ("http://0x7f000001:9/docs/".into(), "web"),
        (site.url("/repo.git"), "repo"),
        ("https://127.0.0.1:9/r.git".into(), "repo"),
        ("ssh://git@192.168.0.1/r.git".into(), "repo"),
        ("git@127.0.0.1:r.git".into(), "repo"),
    ];
    for (source, kind) in &private {
        let what = format!("add {kind} {source}");
        let (status, body) = post(
            &stores,
            &json!({"name": "s", "source": source, "type": kind}),
        );
        assert!((400..500).contains(&status), "{what}: {status} {body}");
        let err = body["error"].as_str().unwrap_or_default();
        assert!(err.contains("--allow-private-fetch"), "{what}: {err}");
    }
    // Schemes that would make git read files or run commands.
    for source in [
        "file:///etc/r.git",
        "ext::sh -c touch% /tmp/lore-pwned",
        "git://127.0.0.1/r.git",
        "fd::17/r.git",
    ] {
        let (status, body) = post(
            &stores,
            &json!({"name": "s", "source": source, "type": "repo"}),
        );
        assert!((400..500).contains(&status), "{source}: {status} {body}");
    }
    let (text, is_error) = mcp_tool(
        &server,
        "stores",
        json!({"action": "add", "name": "s", "source": site.url("/docs/"), "type": "web"}),
    );
    assert!(is_error && text.contains("--allow-private-fetch"), "{text}");
    assert_eq!(
        get(&server.api("/api/jobs")).1,
        json!([]),
        "a job was queued"
    );
    assert!(
        site.requests().is_empty(),
        "the site was fetched: {:?}",
        site.requests()
    );
}

/// Issue 13, item 3: with `--allow-private-fetch` the server crawls a loopback site, and
/// the CLI always may.
#[test]
fn private_fetches_with_the_flag_and_from_the_cli() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let page = "<html><head><title>Feeder</title></head><body><main><h1>Feeder</h1><p>The \
                quoll feeder dispenses pellets at dawn and at dusk, every day of the year. \
                Refill the hopper weekly.</p></main></body></html>";
    let site = Site::start(&[("/robots.txt", ""), ("/docs/", page)]);
    let added = lore.json(&["store", "add", "cli", &site.url("/docs/"), "--type", "web"]);
    assert_eq!(added["report"]["crawl"]["pages"], 1, "{added}");

    let server = serve(&lore, &["--allow-private-fetch"], &[]);
    let (status, job) = post(
        &server.api("/api/stores"),
        &json!({"name": "site", "source": site.url("/docs/"), "type": "web"}),
    );
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().expect("job id").to_string();
    let deadline = Instant::now() + Duration::from_secs(120);
    let job = loop {
        let (_, job) = get(&server.api(&format!("/api/jobs/{id}")));
        if ["done", "failed", "cancelled"].contains(&job["status"].as_str().unwrap_or("")) {
            break job;
        }
        assert!(Instant::now() < deadline, "job too slow: {job}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(job["status"], "done", "{job}");
    assert_eq!(job["result"]["report"]["crawl"]["pages"], 1, "{job}");
}

/// Issue 13, item 4: what `/mcp` cannot parse is answered with a JSON-RPC error object
/// (-32700 parse error, -32600 invalid request), not plain text.
#[test]
fn mcp_parse_errors_are_json_rpc_errors() {
    let lore = Lore::without_model();
    let server = serve(&lore, &[], &[]);
    let mcp = server.api("/mcp");
    let ping = r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#;
    for (body, code, id) in [
        ("{bad", -32700, Value::Null),
        ("", -32700, Value::Null),
        ("[]", -32600, Value::Null),
        (&*format!("[{ping}, {ping}]"), -32600, Value::Null),
        ("\"tools/list\"", -32600, Value::Null),
        ("42", -32600, Value::Null),
        ("null", -32600, Value::Null),
        (
            r#"{"jsonrpc": "2.0", "id": 7, "method": 5}"#,
            -32600,
            json!(7),
        ),
        (r#"{"id": "a", "method": "ping"}"#, -32600, json!("a")),
        // Issue 29, item 11: a tools/call without usable params is invalid params.
        (
            r#"{"jsonrpc": "2.0", "id": 8, "method": "tools/call"}"#,
            -32602,
            json!(8),
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "search", "arguments": "q"}}"#,
            -32602,
            json!(9),
        ),
    ] {
        let (status, ctype, answer) = raw_post(&mcp, "application/json", body);
        assert_eq!(status, 400, "{body:?}: {answer}");
        assert!(ctype.starts_with("application/json"), "{body:?}: {ctype}");
        assert_eq!(answer["jsonrpc"], "2.0", "{body:?}: {answer}");
        assert_eq!(answer["id"], id, "{body:?}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{body:?}: {answer}");
        assert!(answer["error"]["message"].is_string(), "{answer}");
    }
    // Not JSON at all: still a JSON-RPC error, with the status that says so.
    let (status, ctype, answer) = raw_post(&mcp, "text/plain", ping);
    assert_eq!(status, 415, "{answer}");
    assert!(ctype.starts_with("application/json"), "{ctype}");
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    // A well-formed request is answered as before.
    let (status, _, answer) = raw_post(&mcp, "application/json", ping);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["result"], json!({}), "{answer}");
}

/// Issue 29, item 11: over stdio too, a line that is not JSON and a malformed tools/call
/// get their JSON-RPC errors instead of silence, and the session goes on.
#[test]
fn stdio_answers_what_it_cannot_parse() {
    let lore = Lore::without_model();
    let mut child = Spawned(
        lore.command(&["mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn lore mcp"),
    );
    let mut stdin = child.0.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.0.stdout.take().expect("stdout")).lines();
    let mut next = || -> Value {
        let line = lines.next().expect("an answer").expect("a line");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line}: {e}"))
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}});
    writeln!(stdin, "{init}").unwrap();
    assert_eq!(next()["id"], 1);
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    writeln!(stdin, "{{bad json").unwrap();
    let answer = next();
    assert_eq!(
        (&answer["id"], &answer["error"]["code"]),
        (&Value::Null, &json!(-32700)),
        "{answer}"
    );
    writeln!(
        stdin,
        r#"{{"jsonrpc": "2.0", "id": 3, "method": "tools/call"}}"#
    )
    .unwrap();
    let answer = next();
    assert_eq!(
        (&answer["id"], &answer["error"]["code"]),
        (&json!(3), &json!(-32602)),
        "{answer}"
    );
    writeln!(stdin, r#"{{"jsonrpc": "2.0", "id": 4, "method": "ping"}}"#).unwrap();
    let answer = next();
    assert_eq!(
        (&answer["id"], &answer["result"]),
        (&json!(4), &json!({})),
        "{answer}"
    );
}

/// Issue 13, item 5: text output escapes control characters of file names, sources and
/// content, so each record stays on its line (JSON keeps them as they are).
#[test]
fn text_output_escapes_control_characters() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let dir = lore.path("odd\nfolder");
    write(
        &dir,
        "evil\nname\x1b[31m.md",
        "# Wombat burrows\n\nWombats dig long burrows\x1b]0;pwned\x07 with their claws.\n",
    );
    write(&dir, "bin\rary\n.dat", [0u8, 1, 2, 0, 255, 0]);
    let out = lore.ok(&["store", "add", "odd", s(&dir)]);
    let raw_controls = |text: &str| {
        text.chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
    };
    assert!(!raw_controls(&out), "{out:?}");
    assert!(out.contains("odd\\nfolder"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.contains("skipped bin\\rary\\n.dat (")),
        "{out}"
    );
    for args in [
        &["store", "list"][..],
        &["store", "info", "odd"],
        &[
            "search",
            "wombat burrows claws",
            "--mode",
            "fts",
            "--detail",
            "full",
        ],
    ] {
        let out = lore.ok(args);
        assert!(!raw_controls(&out), "{args:?}: {out:?}");
        assert!(!out.contains("odd\nfolder"), "{args:?}: {out}");
    }
    let out = lore.ok(&["search", "wombat burrows claws", "--mode", "fts"]);
    let first = out.lines().next().unwrap_or_default();
    assert!(first.starts_with(" 1. "), "{out}");
    assert!(first.contains("evil\\nname\\u{1b}[31m.md:"), "{out}");
    let json = lore.search("wombat burrows claws", "fts", &[]);
    assert_eq!(
        json["results"][0]["path"], "evil\nname\x1b[31m.md",
        "{json}"
    );
}

/// Issue 13, item 6: queries are capped (8 KiB unless `--max-query-bytes` says otherwise)
/// with an error that does not echo them; no error echoes a long argument whole.
#[test]
fn queries_are_capped_and_never_echoed_whole() {
    let lore = Lore::without_model();
    let server = serve(&lore, &[], &[]);
    let long = "wombat ".repeat(2000);
    for (route, body) in [
        ("/api/search", json!({"query": long})),
        ("/api/brain/query", json!({"query": long})),
    ] {
        let err = refused(post(&server.api(route), &body), 400, route);
        assert!(
            err.contains("8192") && err.contains("--max-query-bytes"),
            "{route}: {err}"
        );
        assert!(err.len() < 300, "{route}: an error of {} bytes", err.len());
    }
    let symbol = "w".repeat(10_000);
    let err = refused(
        get(&server.api(&format!("/api/graph?symbol={symbol}&direction=callers"))),
        400,
        "graph",
    );
    assert!(err.len() < 300 && err.contains("8192"), "{err}");
    let (text, is_error) = mcp_tool(&server, "search", json!({"query": long}));
    assert!(
        is_error && text.contains("8192") && text.len() < 300,
        "{text}"
    );
    // Just at the cap, the query passes it (and fails for want of stores instead).
    let err = refused(
        post(
            &server.api("/api/search"),
            &json!({"query": "w".repeat(8192)}),
        ),
        400,
        "query at the cap",
    );
    assert!(err.contains("no stores"), "{err}");
    // A long value where a word is expected is shown cut.
    let err = refused(
        post(
            &server.api("/api/search"),
            &json!({"query": "x", "mode": "m".repeat(100_000)}),
        ),
        400,
        "long mode",
    );
    assert!(err.contains("`mode`") && err.len() < 400, "{err}");
    drop(server);

    // The cap is the operator's to set.
    let lore = Lore::without_model();
    let server = serve(&lore, &["--max-query-bytes", "64"], &[]);
    let err = refused(
        post(
            &server.api("/api/search"),
            &json!({"query": "q".repeat(65)}),
        ),
        400,
        "over a cap of 64",
    );
    assert!(err.contains("64"), "{err}");
    let err = refused(
        post(
            &server.api("/api/search"),
            &json!({"query": "q".repeat(64)}),
        ),
        400,
        "at a cap of 64",
    );
    assert!(err.contains("no stores"), "{err}");
}

/// Issue 29, item 7: after `kill -9` of `lore serve` nothing takes it for a running server:
/// the next lore command says it stopped uncleanly, marks its job interrupted and clears
/// its `writer.json`.
#[test]
fn a_killed_server_is_reported_and_its_job_interrupted() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let docs = lore.path("docs");
    let text = "Numbats eat termites in the woodland at dawn. ".repeat(60);
    for i in 0..300 {
        write(
            &docs,
            &format!("n{i}.md"),
            format!("# Note {i}\n\n{text}\n"),
        );
    }
    let mut server = serve(&lore, &["--allow-path", s(lore.root())], &[]);
    let (status, job) = post(
        &server.api("/api/stores"),
        &json!({"name": "docs", "source": docs}),
    );
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().expect("a job id").to_string();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (_, now) = get(&server.api(&format!("/api/jobs/{id}")));
        if now["status"] == "running" {
            break;
        }
        assert_eq!(now["status"], "pending", "{now}");
        assert!(Instant::now() < deadline, "the job never started: {now}");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(server.kill(), "the server had exited by itself");
    assert!(lore.data().join("writer.json").exists());

    let doctor = lore.run(&["doctor"]);
    let said = format!("{}{}", doctor.stdout, doctor.stderr);
    assert!(
        doctor.stderr.contains("lore serve (pid")
            && doctor.stderr.contains("stopped uncleanly")
            && doctor
                .stderr
                .contains(&format!("its job {id} was interrupted")),
        "{said}"
    );
    assert!(!said.contains("is writing"), "{said}");
    assert!(!lore.data().join("writer.json").exists());
    let shown = lore.json(&["jobs", "show", &id]);
    assert_eq!(shown["status"], "failed", "{shown}");
    assert!(
        shown["error"]
            .as_str()
            .is_some_and(|e| e.contains("stopped uncleanly")),
        "{shown}"
    );
    // Said once: the next command finds nothing to settle, and writes work.
    let again = lore.run(&["jobs"]);
    assert!(
        !again.stderr.contains("stopped uncleanly"),
        "{}",
        again.stderr
    );
    lore.ok(&[
        "brain",
        "write",
        "Bilbies dig burrows.",
        "--filename",
        "after",
    ]);
}

/// One raw HTTP/1.1 exchange with `server` (`head` is the request line and any headers,
/// without Host): the status and the body parsed as JSON (`Null` when it is not JSON).
fn raw_http(server: &Server, head: &str, body: &[u8]) -> (u16, Value) {
    use std::io::Read;
    let authority = server.url.trim_start_matches("http://").to_string();
    let mut conn = std::net::TcpStream::connect(&authority).expect("connect");
    conn.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut request =
        format!("{head}\r\nHost: {authority}\r\nConnection: close\r\n\r\n").into_bytes();
    request.extend_from_slice(body);
    // The server may answer (and close) before the whole body is sent.
    let _ = conn.write_all(&request);
    let mut answer = Vec::new();
    let _ = conn.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (
        status,
        serde_json::from_str(body.trim()).unwrap_or(Value::Null),
    )
}

/// Issue 29, item 11: every REST error is `{"error": …}` — axum's own rejections too.
#[test]
fn rest_errors_are_json() {
    let lore = Lore::without_model();
    let server = serve(&lore, &[], &[]);
    // A chunked body over the 1 MiB limit.
    let mut chunked = Vec::new();
    for _ in 0..20 {
        chunked.extend_from_slice(format!("{:x}\r\n", 65536).as_bytes());
        chunked.extend(std::iter::repeat_n(b' ', 65536));
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let cases: [(&str, &[u8], u16); 4] = [
        (
            "POST /api/search HTTP/1.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked",
            &chunked,
            413,
        ),
        ("GET /api/stores/%FF%FE HTTP/1.1", b"", 400),
        ("GET /api/search HTTP/1.1", b"", 405),
        ("GET /mcp HTTP/1.1\r\nAccept: text/event-stream", b"", 405),
    ];
    for (head, body, want) in cases {
        let (status, answer) = raw_http(&server, head, body);
        assert_eq!(status, want, "{head}: {answer}");
        assert!(
            answer["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{head}: {answer}"
        );
    }
}

/// Issue 29, item 4: one client's huge file cannot stall the server. `maxFileSize` above
/// the server's cap is refused; a brain write lands while the big file is embedded; a
/// cancel stops the job within one embedding step, not at the file's end.
#[test]
fn a_long_job_neither_ignores_cancel_nor_holds_up_writes() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let big = lore.path("big");
    let text: String = (0..4000)
        .map(|i| {
            format!(
                "## Burrow {i}\n\nWombat burrow {i} runs under the ridge; its tunnels meet \
                 at chamber {i} near the creek.\n\n"
            )
        })
        .collect();
    write(&big, "all.md", &text);
    let server = serve(
        &lore,
        &["--allow-path", s(lore.root()), "--max-file-size", "2000000"],
        &[],
    );
    let stores = server.api("/api/stores");
    let err = refused(
        post(
            &stores,
            &json!({"name": "big", "source": big, "maxFileSize": 60_000_000}),
        ),
        400,
        "maxFileSize above the cap",
    );
    assert!(err.contains("--max-file-size"), "{err}");
    let (status, job) = post(
        &stores,
        &json!({"name": "big", "source": big, "maxFileSize": 2_000_000}),
    );
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().expect("a job id").to_string();
    let job_url = server.api(&format!("/api/jobs/{id}"));
    let deadline = Instant::now() + Duration::from_secs(300);
    let total = loop {
        let (_, now) = get(&job_url);
        let p = &now["progress"];
        if p["chunks_done"].as_u64().unwrap_or(0) > 0 {
            break p["chunks_total"].as_u64().unwrap_or(0);
        }
        assert!(
            !now["status"]
                .as_str()
                .is_some_and(|s| s != "pending" && s != "running"),
            "{now}"
        );
        assert!(Instant::now() < deadline, "embedding never started: {now}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(total >= 4000, "{total} chunks");

    let t = Instant::now();
    let (status, wrote) = post(
        &server.api("/api/brain/write"),
        &json!({"content": "Bilbies dig spiral burrows.", "filename": "bilbies"}),
    );
    let write_ms = t.elapsed().as_millis();
    assert_eq!(status, 200, "{wrote}");
    let (_, now) = get(&job_url);
    eprintln!(
        "brain write while a {total}-chunk job ran: {write_ms} ms (job at {} chunks)",
        now["progress"]["chunks_done"]
    );
    assert_eq!(
        now["status"], "running",
        "the job ended before the write: {now}"
    );
    assert!(write_ms < 10_000, "the brain write waited {write_ms} ms");

    let t = Instant::now();
    let (status, _) = post(&server.api(&format!("/api/jobs/{id}/cancel")), &json!({}));
    assert_eq!(status, 200);
    let done = common::serve::wait_job(&server, &id, Duration::from_secs(60));
    eprintln!("cancel took {} ms", t.elapsed().as_millis());
    assert_eq!(done["status"], "cancelled", "{done}");
    assert!(
        done["progress"]["chunks_done"].as_u64().unwrap_or(0) < total,
        "the job ran to the end of the file: {done}"
    );
}

/// Issue 16, item 1 (progressive indexing): a store answers keyword and hybrid searches as
/// soon as its files are chunked, while its chunks are still being embedded, and a server
/// killed mid-embedding leaves a store whose next index run embeds only the rest.
#[test]
fn a_store_is_searchable_while_embedded_and_resumes_after_a_kill() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let docs = lore.path("docs");
    for f in 0..40 {
        let text: String = (0..100)
            .map(|i| {
                format!(
                    "## Burrow {f}-{i}\n\nWombat burrow {i} of ridge {f} runs under the creek.\n\n"
                )
            })
            .collect();
        write(&docs, &format!("ridge{f}.md"), text);
    }
    write(
        &docs,
        "quokka.md",
        "# Quokkas\n\nQuokkas smile for photographs on Rottnest Island.\n",
    );
    let mut server = serve(&lore, &["--allow-path", s(lore.root())], &[]);
    let (status, job) = post(
        &server.api("/api/stores"),
        &json!({"name": "docs", "source": docs}),
    );
    assert_eq!(status, 202, "{job}");
    let job_url = server.api(&format!("/api/jobs/{}", job["id"].as_str().unwrap()));
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let (_, now) = get(&job_url);
        if now["progress"]["chunks_done"].as_u64().unwrap_or(0) > 0 {
            break;
        }
        assert_ne!(
            now["status"], "done",
            "embedding ended before the test looked: {now}"
        );
        assert!(Instant::now() < deadline, "embedding never started: {now}");
        std::thread::sleep(Duration::from_millis(50));
    }
    for mode in ["fts", "hybrid"] {
        let (status, found) = post(
            &server.api("/api/search"),
            &json!({"query": "quokkas smiling on Rottnest", "mode": mode}),
        );
        assert_eq!(status, 200, "{found}");
        assert_eq!(
            found["results"][0]["path"], "quokka.md",
            "{mode}: {found:#}"
        );
        let embedded = found["stores"][0]["embedded"].as_f64().unwrap_or(1.0);
        assert!(embedded < 1.0, "{mode}: {found:#}");
    }
    assert!(server.kill());
    let before = lore.json(&["store", "info", "docs"]);
    let (chunks, had) = (
        before["chunks"].as_u64().unwrap(),
        before["embedded"].as_u64().unwrap(),
    );
    assert!(had < chunks, "{before}");
    let report = &lore.json(&["index", "docs"])[0];
    assert_eq!(
        report["embedded"].as_u64(),
        Some(chunks - had),
        "the resumed run embedded more than the rest: {report}"
    );
    let after = lore.json(&["store", "info", "docs"]);
    assert_eq!(after["embedded"], after["chunks"], "{after}");
    let found = lore.search("quokkas smiling on Rottnest", "vector", &[]);
    assert_eq!(found["results"][0]["path"], "quokka.md", "{found:#}");
    assert_eq!(found["stores"][0]["embedded"], 1.0, "{found:#}");
}
