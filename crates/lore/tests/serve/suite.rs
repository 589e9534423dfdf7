// The serve suite itself, included by `serve.rs` (the embedded catalog) and
// `serve_postgres.rs` (PostgreSQL), whose roots set `ON_POSTGRES` and `mod common`.

use common::serve::{
    Server, agent, answer, get, mcp_client, post, post_declaring, python_mcp_or_skip,
    wait_for_writer, wait_job,
};
use common::site::Site;
use common::{Lore, files_under, run_command, write};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const TOKEN: &str = "test-token-5f1c0ab2";

/// A world with the fixture project indexed as store `proj`.
fn indexed_project() -> Option<(Lore, PathBuf)> {
    let (lore, root) = Lore::with_project_or_skip()?;
    lore.ok(&["store", "add", "proj", root.to_str().unwrap()]);
    Some((lore, root))
}

/// For the MCP client tests: a world with the project indexed, when the Python MCP SDK and
/// the model are here, and the `--add NAME=PATH` argument of a second folder to add.
fn mcp_world() -> Option<(Lore, String)> {
    if !python_mcp_or_skip() {
        return None;
    }
    let (lore, _) = indexed_project()?;
    let extra = lore.path("notes");
    write(
        &extra,
        "giraffes.md",
        "# Giraffes\n\nTall animals with long necks.\n",
    );
    let add = format!("notes={}", extra.display());
    Some((lore, add))
}

#[test]
fn mcp_over_stdio_with_the_python_sdk() {
    let Some((lore, add)) = mcp_world() else {
        return;
    };
    let data = lore.data();
    let model = common::model_dir().expect("model");
    let m = mcp_client(
        &lore,
        "client.py",
        &["stdio", common::BIN, data.to_str().unwrap(), "--add", &add],
        &[("LORE_MODEL_DIR", model.to_str().unwrap())],
    );
    eprintln!("stdio: {m}");
    assert!(m["first_search_ms"].as_f64().unwrap() > 0.0);
    // The client opened its first result after the search (`get_full_context`) and marked
    // it useful (`feedback`): both recorded, on that unit.
    let list = lore.json(&["feedback", "list"]);
    let rows = list.as_array().unwrap();
    let mut kinds: Vec<&str> = rows.iter().filter_map(|r| r["kind"].as_str()).collect();
    kinds.sort_unstable();
    assert_eq!(kinds, ["opened", "useful"], "{list}");
    assert_eq!(rows[0]["chunk_id"], rows[1]["chunk_id"], "{list}");
    // The stdio server added the store in its own process; the CLI sees it.
    let info = lore.json(&["store", "info", "notes"]);
    assert_eq!(info["files"], 1, "{info}");
}

#[test]
fn mcp_over_http_with_the_python_sdk() {
    let Some((lore, add)) = mcp_world() else {
        return;
    };
    // The folder the client adds is in the test's root, which the server may read.
    let root = lore.root().display().to_string();
    let server = Server::start(
        &lore,
        &["--addr", "127.0.0.1:0", "--no-watch", "--allow-path", &root],
    );
    let mcp = server.api("/mcp");
    let m = mcp_client(&lore, "client.py", &["http", &mcp, "--add", &add], &[]);
    eprintln!("http (initialize): {m}");
    // The SDK's default negotiation (server/discover, newer protocol) works too.
    let m = mcp_client(&lore, "client.py", &["http", &mcp, "--mode", "auto"], &[]);
    eprintln!("http (auto): {m}");
}

/// The MCP Inspector's CLI (`LORE_MCP_INSPECTOR`: its `mcp-inspector` script, installed next to
/// Node 22 in the same `node_modules/.bin`, as `.ci/run` does), over HTTP and stdio.
#[test]
fn mcp_inspector_cli_lists_tools_and_searches() {
    let Some(inspector) = std::env::var_os("LORE_MCP_INSPECTOR").map(PathBuf::from) else {
        if std::env::var_os("CI").is_some() {
            panic!("CI is set but LORE_MCP_INSPECTOR (the Inspector CLI's mcp-inspector) is not");
        }
        eprintln!("skipping: LORE_MCP_INSPECTOR (the Inspector CLI) is not set");
        return;
    };
    let Some((lore, _)) = indexed_project() else {
        return;
    };
    // Its own Node (22) first on PATH.
    let bin_dir = inspector.parent().expect("inspector dir").to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let run = |target: &[&str], extra: &[&str]| {
        let mut cmd = Command::new(&inspector);
        lore.set_database(&mut cmd);
        cmd.env("PATH", &path)
            .arg("--cli")
            .args(target)
            .args(extra)
            .current_dir(lore.root());
        let out = run_command(&mut cmd, Duration::from_secs(180));
        assert_eq!(
            out.code, 0,
            "inspector {target:?} {extra:?}:\n{}\n{}",
            out.stdout, out.stderr
        );
        serde_json::from_str::<Value>(&out.stdout)
            .unwrap_or_else(|e| panic!("inspector printed non-JSON ({e}): {}", out.stdout))
    };
    let check = |target: &[&str]| {
        let tools = run(target, &["--method", "tools/list"]);
        let names: Vec<&str> = tools["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert!(
            names.contains(&"search") && names.contains(&"stores"),
            "{names:?}"
        );
        let found = run(
            target,
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "search",
                "--tool-arg",
                "query=levenshtein edit distance",
            ],
        );
        let text = found["content"][0]["text"].as_str().expect("text");
        let resp: Value = serde_json::from_str(text).expect("search JSON");
        assert_eq!(resp["results"][0]["path"], "src/edit.rs", "{resp}");
    };
    let server = Server::no_watch(&lore, &[]);
    check(&[&server.api("/mcp"), "--transport", "http"]);
    drop(server);
    let data = lore.data();
    check(&[common::BIN, "--data-dir", data.to_str().unwrap(), "mcp"]);
}

#[test]
fn off_loopback_needs_a_token_on_every_route_but_health() {
    let lore = Lore::without_model();
    // No token: refused before anything listens.
    let out = lore.run(&["serve", "--addr", "0.0.0.0:0"]);
    assert_eq!(out.code, 1, "{out:?}");
    let err = common::one_error_line(&out.stderr, &["serve"]);
    assert!(err.contains("token") && err.contains("LORE_TOKEN"), "{err}");

    let server = Server::start_with(&lore, &["--addr", "0.0.0.0:0"], &[("LORE_TOKEN", TOKEN)]);
    assert!(
        server.url.starts_with("http://127.0.0.1:"),
        "{}",
        server.url
    );
    assert_eq!(get(&server.api("/health")).0, 200);
    let (status, body) = get(&server.api("/api/stores"));
    assert_eq!(status, 401, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("bearer token"),
        "{body}"
    );
    let with = |token: &str| {
        answer(
            agent()
                .get(&server.api("/api/stores"))
                .header("Authorization", &format!("Bearer {token}"))
                .call(),
        )
    };
    assert_eq!(with("wrong-token").0, 401);
    let (status, body) = with(TOKEN);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!([]));
    assert_eq!(get(&server.api("/api/openapi.json")).0, 401);

    // MCP is behind the same token.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let mcp = |token: Option<&str>, message: &Value| {
        let mut req = agent()
            .post(&server.api("/mcp"))
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-06-18");
        if let Some(t) = token {
            req = req.header("Authorization", &format!("Bearer {t}"));
        }
        answer(
            req.content_type("application/json")
                .send(message.to_string()),
        )
    };
    assert_eq!(mcp(None, &init).0, 401);
    let (status, body) = mcp(Some(TOKEN), &init);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["serverInfo"]["name"], "lore", "{body}");

    // A notification gets no body; protocol errors are JSON-RPC errors with their codes.
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, body) = mcp(Some(TOKEN), &note);
    assert_eq!((status, body), (202, Value::Null));
    let unknown_method = json!({"jsonrpc": "2.0", "id": 2, "method": "no/such/method"});
    let (_, body) = mcp(Some(TOKEN), &unknown_method);
    assert_eq!(body["error"]["code"], -32601, "{body}");
    let unknown_tool = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "no_such_tool", "arguments": {}}});
    let (_, body) = mcp(Some(TOKEN), &unknown_tool);
    assert_eq!(body["error"]["code"], -32602, "{body}");
    // A tool that runs and fails is a tool result flagged as an error.
    let bad_store = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": "x", "stores": "nope"}}});
    let (_, body) = mcp(Some(TOKEN), &bad_store);
    assert_eq!(body["result"]["isError"], true, "{body}");
    let text = body["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("no store named"), "{text}");
}

/// Every file under `dir`, relative, sorted, but SQLite's -wal/-shm files.
fn files_but_journals(dir: &Path) -> Vec<String> {
    let mut out = files_under(dir);
    out.retain(|f| !f.ends_with("-wal") && !f.ends_with("-shm"));
    out
}

#[test]
fn rest_rejects_bad_requests_and_touches_no_file() {
    let lore = Lore::without_model();
    let folder = lore.path("folder");
    write(&folder, "a.md", "# A\n");
    let server = Server::no_watch(&lore, &[]);
    let data = lore.data();
    let before = files_but_journals(lore.root());

    // Oversized bodies, REST and MCP: refused from the declared length, before any of it is
    // read (a client still sending would otherwise see a reset instead of the answer).
    let big = 2 * 1024 * 1024;
    let (status, body) = post_declaring(&server, "/api/search", big, "");
    assert_eq!(status, 413, "{body}");
    assert!(
        body["error"].as_str().unwrap_or("").contains("larger than"),
        "{body}"
    );
    let accept = "Accept: application/json, text/event-stream\r\n";
    let (status, body) = post_declaring(&server, "/mcp", big, accept);
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"]["code"], -32600, "{body}");

    // Traversal in store names, paths and ids: 4xx, nothing created.
    let abs = folder.display().to_string();
    let inside = data.join("stores").display().to_string();
    for (method, path, body) in [
        ("GET", "/api/stores/..%2F..%2Fescape", None),
        ("DELETE", "/api/stores/..%2Fescape", None),
        ("POST", "/api/stores/..%2F..%2Fescape/index", None),
        ("GET", "/api/results/..%2F..%2Fetc%2Fpasswd", None),
        ("GET", "/api/jobs/..%2F..%2Fescape", None),
        ("POST", "/api/jobs/..%2Fescape/cancel", None),
        ("GET", "/api/stores/../../escape", None),
        (
            "POST",
            "/api/stores",
            Some(json!({"name": "../escape", "source": abs})),
        ),
        (
            "POST",
            "/api/stores",
            Some(json!({"name": "ok", "source": "../../escape"})),
        ),
        (
            "POST",
            "/api/stores",
            Some(json!({"name": "ok", "source": "folder/../../escape"})),
        ),
        (
            "POST",
            "/api/stores",
            Some(json!({"name": "ok", "source": inside})),
        ),
        (
            "POST",
            "/api/stores",
            Some(json!({"name": "ok", "source": "file:///x/../../escape"})),
        ),
    ] {
        let url = server.api(path);
        let resp = match (method, body) {
            ("GET", _) => agent().get(&url).call(),
            ("DELETE", _) => agent().delete(&url).call(),
            (_, Some(b)) => agent()
                .post(&url)
                .content_type("application/json")
                .send(b.to_string()),
            (_, None) => agent().post(&url).send_empty(),
        };
        let (status, body) = answer(resp);
        assert!(
            (400..500).contains(&status),
            "{method} {path}: {status} {body}"
        );
        if status != 404 {
            assert!(body["error"].is_string(), "{method} {path}: {body}");
        }
    }
    assert!(!lore.root().join("escape").exists());
    assert_eq!(get(&server.api("/api/stores")).1, json!([]));

    // Unknown things are 404; bad JSON 400/415/422; every error is JSON.
    for (path, want) in [
        ("/api/stores/nope", 404),
        ("/api/results/0123456789abcdef", 404),
        ("/api/jobs/0123456789abcdef", 404),
        ("/api/nothing-here", 404),
    ] {
        let (status, body) = get(&server.api(path));
        assert_eq!(status, want, "{path}: {body}");
        assert!(body["error"].is_string(), "{path}: {body}");
    }
    let search = server.api("/api/search");
    let (status, body) = post(&search, &json!({"query": "x", "stores": ["nope"]}));
    assert_eq!(status, 404, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("no store named"),
        "{body}"
    );
    assert_eq!(post(&search, &json!({"query": ""})).0, 400);
    assert_eq!(post(&search, &json!({"limit": 3})).0, 400);
    assert_eq!(
        post(&search, &json!({"query": "x", "limit": "many"})).0,
        400
    );
    assert_eq!(post(&search, &json!([1, 2])).0, 422);
    let raw = |ct: &str, body: &str| {
        answer(
            agent()
                .post(&search)
                .content_type(ct)
                .send(body.to_string()),
        )
        .0
    };
    assert_eq!(raw("application/json", "{bad"), 400);
    assert_eq!(raw("text/plain", "{\"query\": \"x\"}"), 415);

    // DNS rebinding and cross-site requests are refused.
    let (status, _) = answer(
        agent()
            .get(&server.api("/health"))
            .header("Host", "evil.example")
            .call(),
    );
    assert_eq!(status, 403);
    let (status, _) = answer(
        agent()
            .get(&server.api("/api/stores"))
            .header("Origin", "http://evil.example")
            .call(),
    );
    assert_eq!(status, 403);

    let (status, doc) = get(&server.api("/api/openapi.json"));
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");

    assert_eq!(
        files_but_journals(lore.root()),
        before,
        "a bad request changed files"
    );
}

#[test]
fn jobs_run_report_progress_cancel_and_keep_one_writer() {
    let Some((lore, root)) = Lore::with_project_or_skip() else {
        return;
    };
    // Folders in the test's root and a site on loopback: the server is allowed both.
    let allowed = lore.root().display().to_string();
    let server = Server::start(
        &lore,
        &[
            "--addr",
            "127.0.0.1:0",
            "--no-watch",
            "--allow-path",
            &allowed,
            "--allow-private-fetch",
        ],
    );

    // Add through REST: a job, polled to done, then searchable.
    let (status, job) = post(
        &server.api("/api/stores"),
        &json!({"name": "proj", "source": root.display().to_string()}),
    );
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().expect("job id").to_string();
    let job = wait_job(&server, &id, Duration::from_secs(120));
    assert_eq!(job["status"], "done", "{job}");
    assert_eq!(job["progress"]["files_done"], 5, "{job}");
    assert_eq!(job["result"]["report"]["added"], 5, "{job}");
    let (status, resp) = post(
        &server.api("/api/search"),
        &json!({"query": "great-circle distance between two points on Earth", "limit": 3}),
    );
    assert_eq!(status, 200, "{resp}");
    assert_eq!(resp["results"][0]["path"], "geo/geo.go", "{resp}");
    assert_eq!(resp["stores"][0]["store"], "proj", "{resp}");
    let (status, unit) = get(&server.api(&format!(
        "/api/results/{}",
        resp["results"][0]["id"].as_str().unwrap()
    )));
    assert_eq!(status, 200, "{unit}");
    assert!(unit["content"].as_str().unwrap().contains("HaversineKm"));
    let (status, graph) = get(&server.api("/api/graph?symbol=HaversineKm&direction=definition"));
    assert_eq!(status, 200, "{graph}");
    assert_eq!(graph["definitions"][0]["path"], "geo/geo.go", "{graph}");
    assert_eq!(get(&server.api("/api/graph?symbol=HaversineKm")).0, 400);
    // The same questions as JSON bodies, as `/api/search` takes them.
    let (status, graph) = post(
        &server.api("/api/graph"),
        &json!({"symbol": "HaversineKm", "direction": "definition"}),
    );
    assert_eq!(graph["definitions"][0]["path"], "geo/geo.go", "{status} {graph}");
    let (status, grep) = post(
        &server.api("/api/grep"),
        &json!({"pattern": "func HaversineKm", "glob": ["geo/*"], "maxLines": 5}),
    );
    assert_eq!(grep["units"][0]["path"], "geo/geo.go", "{status} {grep}");
    let (status, grep) = get(&server.api("/api/grep?pattern=func%20HaversineKm&glob=geo/*"));
    assert_eq!(grep["lines"], 1, "{status} {grep}");
    assert_eq!(
        get(&server.api("/api/graph?symbol=NoSuchThing&direction=callers")).0,
        404
    );
    let (status, again) = post(
        &server.api("/api/stores"),
        &json!({"name": "proj", "source": root.display().to_string()}),
    );
    assert_eq!(status, 409, "{again}");

    // A web store through REST: the job keeps its type, and results carry the page URL.
    let site = Site::start(&[(
        "/docs/",
        "<html><head><title>Feeder</title></head><body><main><h1>Feeder</h1><p>The quoll \
         feeder dispenses pellets at dawn and at dusk, every day of the year. Refill the \
         hopper weekly and check the motor when the quolls start queueing at noon.</p></main></body></html>",
    )]);
    let (status, job) = post(
        &server.api("/api/stores"),
        &json!({"name": "site", "source": site.url("/docs/"), "type": "web", "maxPages": 5}),
    );
    assert_eq!(status, 202, "{job}");
    let job = wait_job(
        &server,
        job["id"].as_str().unwrap(),
        Duration::from_secs(60),
    );
    assert_eq!(job["status"], "done", "{job}");
    assert_eq!(job["result"]["report"]["crawl"]["pages"], 1, "{job}");
    assert!(job["result"]["report"].get("warnings").is_none(), "{job}");
    let (_, resp) = post(
        &server.api("/api/search"),
        &json!({"query": "when does the feeder dispense pellets", "stores": ["site"]}),
    );
    assert_eq!(
        resp["results"][0]["url"],
        site.url("/docs/").as_str(),
        "{resp}"
    );

    // The server is the one writer: a CLI write fails, naming it; reads still work.
    let err = lore.fails(&["index", "proj"], 1);
    assert!(
        err.contains("lore serve (pid") && err.contains(&server.url),
        "{err}"
    );
    assert_eq!(lore.json(&["store", "info", "proj"])["files"], 5);

    // A long add, cancelled while it embeds: every file is searchable by keyword already
    // (progressive indexing), what was embedded stays, and the next run embeds the rest.
    let big = lore.path("big");
    for i in 0..250 {
        let sections: String = (0..4)
            .map(|j| format!("## Part {j}\n\nA short note about topic number {i}, part {j}.\n\n"))
            .collect();
        write(&big, &format!("notes/n{i:03}.md"), format!("# Note {i}\n\n{sections}"));
    }
    let (status, job) = post(
        &server.api("/api/stores"),
        &json!({"name": "big", "source": big.display().to_string()}),
    );
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let (_, job) = get(&server.api(&format!("/api/jobs/{id}")));
        assert!(
            ["pending", "running"].contains(&job["status"].as_str().unwrap()),
            "{job}"
        );
        if job["progress"]["chunks_done"].as_u64().unwrap_or(0) > 0 {
            break;
        }
        assert!(Instant::now() < deadline, "job too slow: {job}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, job) = post(&server.api(&format!("/api/jobs/{id}/cancel")), &json!({}));
    assert_eq!(status, 200, "{job}");
    assert_eq!(job["cancel_requested"], true, "{job}");
    let job = wait_job(&server, &id, Duration::from_secs(60));
    assert_eq!(job["status"], "cancelled", "{job}");
    let (_, store) = get(&server.api("/api/stores/big"));
    assert_eq!(store["files"], 250, "{store}");
    let (chunks, had) = (
        store["chunks"].as_u64().unwrap(),
        store["embedded"].as_u64().unwrap(),
    );
    assert!(had < chunks, "{store}");
    let (_, found) = post(
        &server.api("/api/search"),
        &json!({"query": "topic number 7", "stores": ["big"], "mode": "fts"}),
    );
    assert!(!found["results"].as_array().unwrap().is_empty(), "{found}");

    // The CLI sees the jobs (another process, same catalog).
    let jobs = lore.json(&["jobs"]);
    let statuses: Vec<&str> = jobs
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["cancelled", "done", "done"], "{jobs}");
    let shown = lore.ok(&["jobs", "show", &id]);
    assert!(shown.contains("status:    cancelled"), "{shown}");

    // Index again: the rest is indexed; then remove the store.
    let (status, job) = post(&server.api("/api/stores/big/index"), &json!({}));
    assert_eq!(status, 202, "{job}");
    let job = wait_job(
        &server,
        job["id"].as_str().unwrap(),
        Duration::from_secs(180),
    );
    assert_eq!(job["status"], "done", "{job}");
    assert_eq!(
        job["result"][0]["embedded"].as_u64(),
        Some(chunks - had),
        "{job}"
    );
    let (_, store) = get(&server.api("/api/stores/big"));
    assert_eq!((&store["files"], &store["embedded"]), (&json!(250), &json!(chunks)));
    let (status, removed) = answer(agent().delete(&server.api("/api/stores/big")).call());
    assert_eq!(status, 200, "{removed}");
    assert_eq!(get(&server.api("/api/stores/big")).0, 404);
    drop(server);
}

/// Polls `found` every 100 ms for up to 20 s; returns how long it took.
fn eventually(what: &str, mut found: impl FnMut() -> bool) -> Duration {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        if found() {
            return started.elapsed();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("{what}: not found within 20 s");
}

#[test]
fn edits_under_a_watched_store_are_found_within_seconds() {
    let Some((lore, root)) = indexed_project() else {
        return;
    };

    // Under `lore serve`. A build writing under the gitignored target/ schedules nothing.
    write(&root, ".gitignore", "target/\n");
    std::fs::create_dir_all(root.join("target/debug")).unwrap();
    let server = Server::start_with(
        &lore,
        &["--addr", "127.0.0.1:0"],
        &[("LORE_LOG", WATCH_LOG)],
    );
    std::thread::sleep(Duration::from_millis(500));
    for i in 0..200 {
        write(
            &root,
            &format!("target/debug/out{i}.rs"),
            "pub fn built() {}\n",
        );
    }
    std::thread::sleep(SETTLE);
    let path = root.join("src/edit.rs");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("\n/// Counts quokkas in the marsupial census.\npub fn quokka_census() -> u32 {\n    42\n}\n");
    std::fs::write(&path, text).unwrap();
    let took = eventually("quokka_census through lore serve", || {
        let (_, resp) = post(
            &server.api("/api/search"),
            &json!({"query": "quokka census", "mode": "fts", "limit": 1}),
        );
        resp["results"][0]["symbol"] == "quokka_census"
    });
    eprintln!("serve: an edit was searchable after {took:?}");
    assert_eq!(watched_changes(&server, "proj"), 1, "{}", server.log());
    let (_, resp) = post(
        &server.api("/api/search"),
        &json!({"query": "quokka", "mode": "fts"}),
    );
    assert_eq!(resp["stores"][0]["changed_files"], 0, "{resp}");
    drop(server);

    // Under `lore watch`, without a server; it is the writer meanwhile.
    let mut watcher = lore.spawn(&["watch", "proj"]);
    wait_for_writer(
        &lore,
        &mut watcher,
        Duration::from_secs(30),
        "lore watch",
        None,
    );
    std::thread::sleep(Duration::from_millis(500));
    write(
        &root,
        "docs/wombat.md",
        "# Wombats\n\nWombats leave cube-shaped droppings.\n",
    );
    let took = eventually("wombat through lore watch", || {
        let out = lore.run(&["--json", "search", "cube-shaped droppings", "--mode", "fts"]);
        out.code == 0
            && serde_json::from_str::<Value>(&out.stdout)
                .is_ok_and(|r| r["results"][0]["path"] == "docs/wombat.md")
    });
    eprintln!("watch: a new file was searchable after {took:?}");
    let err = lore.fails(&["index"], 1);
    assert!(err.contains("lore watch (pid"), "{err}");
    drop(watcher);
}

/// The server's log with the watcher's debug lines (one per re-index it asks for).
const WATCH_LOG: &str = "info,lore_server::watch=debug";

/// Long enough for the watcher to have asked for a re-index (debounce 400 ms) had the last
/// events counted: batches written this far apart cannot be merged into one.
const SETTLE: Duration = Duration::from_secs(2);

/// How many re-indexes of `store` the watcher asked for because of changes on disk.
fn watched_changes(server: &Server, store: &str) -> usize {
    server
        .log()
        .matches(&format!("{store} changed on disk"))
        .count()
}

#[test]
fn the_brain_is_watched_and_ignored_paths_schedule_nothing() {
    let lore = Lore::without_model();
    lore.json(&[
        "brain",
        "write",
        "# Numbats\n\nNumbats eat termites.",
        "--filename",
        "numbat",
    ]);
    // The brain lives in the data dir (the default); drafts/ is ignored by a nested
    // .gitignore, scratch/ is outside the brain's globs (knowledge/ and wiki/ only).
    let brain = lore.data().join("brain");
    write(&brain, "knowledge/.gitignore", "drafts/\n");
    std::fs::create_dir_all(brain.join("knowledge/drafts")).unwrap();
    std::fs::create_dir_all(brain.join("scratch")).unwrap();
    let server = Server::start_with(
        &lore,
        &["--addr", "127.0.0.1:0"],
        &[("LORE_LOG", WATCH_LOG)],
    );
    eventually("the brain watched", || {
        server.log().contains("watching brain")
    });
    let found = |query: &str, path: &str| {
        let (_, q) = post(
            &server.api("/api/brain/query"),
            &json!({"query": query, "mode": "fts", "limit": 1}),
        );
        q["results"][0]["path"] == path
    };

    // A note edited in an editor is found by its new text.
    write(
        &brain,
        "knowledge/numbat.md",
        "# Numbats\n\nNumbats are striped marsupials.\n",
    );
    eventually("a note edited on disk", || {
        found("striped marsupials", "knowledge/numbat.md")
    });
    // The watcher may still be debouncing that edit's events (found already by the
    // server's first look at the brain): let it finish before counting.
    std::thread::sleep(SETTLE);
    let before = watched_changes(&server, "brain");
    // Picked up by the watcher, or by the server's first look at the brain when the edit
    // landed before it (a slower catalog, e.g. PostgreSQL, makes that likelier).
    assert!(
        before >= 1 || server.log().contains("re-indexed brain: "),
        "{}",
        server.log()
    );

    // Many files on ignored paths: no re-index; then a new note: one.
    for i in 0..100 {
        write(
            &brain,
            &format!("knowledge/drafts/d{i}.md"),
            "# Draft\n\nbandicoot\n",
        );
        write(
            &brain,
            &format!("scratch/s{i}.md"),
            "# Scratch\n\nbandicoot\n",
        );
    }
    std::thread::sleep(SETTLE);
    write(
        &brain,
        "knowledge/quokka.md",
        "# Quokkas\n\nQuokkas smile at tourists.\n",
    );
    eventually("a new note", || {
        found("smile tourists", "knowledge/quokka.md")
    });
    // A brain query brings the brain up to date itself (it need not wait for the
    // watcher): let the watcher's debounce of that edit end before counting its events.
    std::thread::sleep(SETTLE);
    assert_eq!(
        watched_changes(&server, "brain"),
        before + 1,
        "{}",
        server.log()
    );
    let (_, q) = post(
        &server.api("/api/brain/query"),
        &json!({"query": "bandicoot", "mode": "fts"}),
    );
    assert_eq!(q["results"], json!([]), "{q}");

    // lore's own write is indexed at once; the watcher may re-index once more (finding
    // nothing) but does not feed itself.
    let (status, w) = post(
        &server.api("/api/brain/write"),
        &json!({"content": "Bilbies have big ears.", "filename": "bilby"}),
    );
    assert_eq!(status, 200, "{w}");
    assert!(found("big ears", "knowledge/bilby.md"));
    std::thread::sleep(SETTLE);
    let settled = watched_changes(&server, "brain");
    assert!(settled <= before + 2, "{}", server.log());
    std::thread::sleep(SETTLE);
    assert_eq!(
        watched_changes(&server, "brain"),
        settled,
        "{}",
        server.log()
    );
    drop(server);
}

/// `/health` names the catalog's database and whether it answers. On PostgreSQL, while the
/// database refuses connections (its sessions ended, as in a restart) every request answers
/// 503 "database unreachable", and the first request once it is back is answered, by the
/// same server process.
#[test]
fn health_reports_the_database_and_requests_outlive_its_outage() {
    let lore = Lore::without_model();
    if ON_POSTGRES && lore.database().is_none() {
        return;
    }
    let notes = lore.path("notes");
    write(&notes, "giraffes.md", "# Giraffes\n\nTall animals with long necks.\n");
    lore.ok(&["store", "add", "notes", notes.to_str().unwrap(), "--embed", "none"]);
    let server = Server::start(&lore, &["--addr", "127.0.0.1:0", "--no-watch"]);
    let search = || {
        post(
            &server.api("/api/search"),
            &json!({ "query": "giraffes", "mode": "fts" }),
        )
    };
    let (status, health) = get(&server.api("/health"));
    assert_eq!(status, 200, "{health}");
    let backend = if ON_POSTGRES { "postgres" } else { "sqlite" };
    assert_eq!(health["database"]["backend"], backend, "{health}");
    assert_eq!(health["database"]["reachable"], true, "{health}");
    assert_eq!(search().0, 200);
    let Some(url) = lore.database() else {
        return;
    };

    let name = url.rsplit('/').next().unwrap().split('?').next().unwrap();
    let admin = lore_index::Sql::postgres(
        &std::env::var("LORE_TEST_DATABASE_URL").unwrap(),
        &Default::default(),
    )
    .unwrap();
    let allow = |yes: bool| {
        admin
            .batch(&format!("ALTER DATABASE {name} WITH ALLOW_CONNECTIONS {yes}"))
            .unwrap();
    };
    allow(false);
    admin
        .query_int(
            &format!(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
                 WHERE datname = '{name}'"
            ),
            &[],
        )
        .unwrap();
    let (status, body) = search();
    allow(true);
    assert_eq!(status, 503, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("database unreachable"),
        "{body}"
    );
    allow(false);
    let (status, health) = get(&server.api("/health"));
    allow(true);
    assert_eq!(status, 503, "{health}");
    assert_eq!(health["status"], "unavailable", "{health}");
    assert_eq!(health["database"]["reachable"], false, "{health}");

    let (status, body) = search();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["results"][0]["path"], "giraffes.md", "{body}");
    assert_eq!(get(&server.api("/health")).0, 200);
}

/// Two worlds on one PostgreSQL database, each with its own data dir (as on two machines);
/// `None` off PostgreSQL.
fn two_machines() -> Option<(Lore, Lore)> {
    if !ON_POSTGRES {
        return None;
    }
    let a = Lore::without_model();
    a.database()?;
    let b = a.replica();
    Some((a, b))
}

/// A server of `lore` that may read `a`'s files, logging at `log`.
fn start_on(lore: &Lore, a: &Lore, log: &str) -> Server {
    let allow = a.root().display().to_string();
    Server::start_with(
        lore,
        &["--addr", "127.0.0.1:0", "--allow-path", &allow],
        &[("LORE_LOG", log)],
    )
}

/// Two servers (two data dirs, as on two machines) on one PostgreSQL database: a folder
/// both could watch is watched by one of them, so each change is indexed once; the other
/// still finds it. Two index runs of one store at once: each ends done, or refused naming
/// the server that holds the store, never failed half-way.
#[test]
fn two_servers_on_one_database_watch_and_index_each_store_once() {
    let Some((a, b)) = two_machines() else {
        return;
    };
    let notes = a.path("notes");
    write(&notes, "a.md", "# Alpha\n\nfirst note\n");
    a.ok(&["store", "add", "notes", notes.to_str().unwrap(), "--embed", "none"]);
    let start = |lore: &Lore| start_on(lore, &a, WATCH_LOG);
    let (sa, sb) = (start(&a), start(&b));
    std::thread::sleep(SETTLE);
    for k in 0..3 {
        write(&notes, &format!("n{k}.md"), format!("# Note {k}\n\nzebra{k} stripes\n"));
        std::thread::sleep(SETTLE);
    }
    let counts = (watched_changes(&sa, "notes"), watched_changes(&sb, "notes"));
    assert!(
        counts == (3, 0) || counts == (0, 3),
        "one server indexes each change: {counts:?}\n{}\n{}",
        sa.log(),
        sb.log()
    );
    for s in [&sa, &sb] {
        let (status, body) = post(
            &s.api("/api/search"),
            &json!({ "query": "zebra2", "mode": "fts" }),
        );
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["results"][0]["path"], "n2.md", "{body}");
    }

    for _ in 0..3 {
        let submit = |s: &Server| {
            let (status, job) = post(&s.api("/api/stores/notes/index"), &json!({ "full": true }));
            assert_eq!(status, 202, "{job}");
            job["id"].as_str().unwrap().to_string()
        };
        let (ja, jb) = std::thread::scope(|t| {
            let ha = t.spawn(|| submit(&sa));
            let hb = t.spawn(|| submit(&sb));
            (ha.join().unwrap(), hb.join().unwrap())
        });
        for (s, id) in [(&sa, ja), (&sb, jb)] {
            let job = wait_job(s, &id, Duration::from_secs(60));
            let error = job["error"].as_str().unwrap_or_default();
            assert!(
                job["status"] == "done" || error.contains("is being indexed by"),
                "{job}"
            );
        }
    }
    let (_, info) = get(&sa.api("/api/stores/notes"));
    assert_eq!(info["files"], 4, "{info}");
}

/// On PostgreSQL a server searches its own read copy of a store once it has built one
/// (BM25 in its data dir), with the answers the database gives; a store changed through
/// the other server is searched in the database until the copy catches up, never older.
#[test]
fn a_server_searches_its_read_copy_and_never_an_older_store() {
    let Some((a, b)) = two_machines() else {
        return;
    };
    let notes = a.path("notes");
    for k in 0..3 {
        write(&notes, &format!("n{k}.md"), format!("# Note {k}\n\nzebra{k} stripes\n"));
    }
    a.ok(&["store", "add", "notes", notes.to_str().unwrap(), "--embed", "none"]);
    let start = |lore: &Lore| start_on(lore, &a, "info");
    let (sa, sb) = (start(&a), start(&b));
    let search = |s: &Server, query: &str| {
        let (status, body) = post(
            &s.api("/api/search"),
            &json!({ "query": query, "mode": "fts", "limit": 5 }),
        );
        assert_eq!(status, 200, "{body}");
        body["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["path"].as_str().unwrap().to_string(), r["score"].to_string()))
            .collect::<Vec<_>>()
    };
    let copies = |s: &Server| s.log().matches("read copy at generation").count();
    let from_database = search(&sb, "zebra1 stripes");
    assert_eq!(from_database[0].0, "n1.md", "{from_database:?}");
    eventually("B's read copy", || copies(&sb) == 1);
    assert!(
        files_under(&b.data()).iter().any(|f| f.contains("replica/fts")),
        "the copy is in B's data dir"
    );
    assert_eq!(search(&sb, "zebra1 stripes"), from_database, "the copy answers alike");
    let doctor = b.json(&["doctor", "notes"]);
    assert!(
        doctor.to_string().contains("read copy is current at generation"),
        "{doctor:#}"
    );

    // A's change: B finds it at once (its copy is behind, so it reads the database) and
    // builds a new copy.
    write(&notes, "n3.md", "# Note 3\n\nokapi stripes\n");
    let (status, job) = post(&sa.api("/api/stores/notes/index"), &json!({}));
    assert_eq!(status, 202, "{job}");
    let job = wait_job(&sa, job["id"].as_str().unwrap(), Duration::from_secs(60));
    assert_eq!(job["status"], "done", "{job}");
    assert_eq!(search(&sb, "okapi")[0].0, "n3.md");
    eventually("B's second copy", || copies(&sb) == 2);
    assert_eq!(search(&sb, "okapi")[0].0, "n3.md");
    assert_eq!(search(&sb, "zebra1 stripes")[0].0, "n1.md");

    // Removed through A: B's copy goes when B next starts.
    let (status, removed) = answer(agent().delete(&sa.api("/api/stores/notes")).call());
    assert_eq!(status, 200, "{removed}");
    drop(sb);
    let has_copy = || files_under(&b.data()).iter().any(|f| f.contains("replica/"));
    assert!(has_copy());
    let sb = start(&b);
    eventually("B's copy removed", || !has_copy());
    assert!(sb.log().contains("removed the read copies of 1 stores"), "{}", sb.log());

    // A server told not to keep copies builds none: a new store is searched in the
    // database only.
    drop(sb);
    let allow = a.root().display().to_string();
    let sb = Server::start_with(
        &b,
        &["--addr", "127.0.0.1:0", "--allow-path", &allow, "--no-read-copy"],
        &[("LORE_LOG", "info")],
    );
    let (status, job) = post(
        &sa.api("/api/stores"),
        &json!({"name": "again", "source": notes.display().to_string(), "embed": "none"}),
    );
    assert_eq!(status, 202, "{job}");
    let job = wait_job(&sa, job["id"].as_str().unwrap(), Duration::from_secs(60));
    assert_eq!(job["status"], "done", "{job}");
    assert_eq!(search(&sb, "okapi")[0].0, "n3.md");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(copies(&sb), 0, "{}", sb.log());
    assert!(!has_copy());
}

#[test]
fn two_servers_share_one_brain() {
    let Some((a, b)) = two_machines() else {
        return;
    };
    let start = |lore: &Lore| Server::start(lore, &["--addr", "127.0.0.1:0"]);
    let (sa, mut sb) = (start(&a), start(&b));
    let found = |s: &Server, query: &str, path: &str| {
        let (status, q) = post(
            &s.api("/api/brain/query"),
            &json!({"query": query, "mode": "fts", "limit": 1}),
        );
        assert_eq!(status, 200, "{q}");
        q["results"][0]["path"] == path
    };

    // 20 notes written through both servers at once: each found through both.
    std::thread::scope(|t| {
        for k in 0..20 {
            let s = if k % 2 == 0 { &sa } else { &sb };
            t.spawn(move || {
                let (status, w) = post(
                    &s.api("/api/brain/write"),
                    &json!({"content": format!("# Note {k}\n\nmarsupial{k} facts\n"), "filename": format!("n{k}")}),
                );
                assert_eq!(status, 200, "{w}");
            });
        }
    });
    for k in 0..20 {
        for s in [&sa, &sb] {
            assert!(
                found(s, &format!("marsupial{k}"), &format!("knowledge/n{k}.md")),
                "note {k} through {}",
                s.url
            );
        }
    }

    // Hand edits on both machines: found through both.
    let (brain_a, brain_b) = (a.data().join("brain"), b.data().join("brain"));
    write(&brain_a, "knowledge/hand-a.md", "# Hand A\n\nplatypus by hand\n");
    write(&brain_b, "knowledge/hand-b.md", "# Hand B\n\nechidna by hand\n");
    for s in [&sa, &sb] {
        eventually("a hand edit on A", || {
            found(s, "platypus", "knowledge/hand-a.md")
        });
        eventually("a hand edit on B", || found(s, "echidna", "knowledge/hand-b.md"));
    }

    // The same page ingested through both: one page, with both sources.
    for (s, source, text) in [
        (&sa, "doc-a", "Retry with backoff."),
        (&sb, "doc-b", "Jitter avoids herds."),
    ] {
        let (status, r) = post(
            &s.api("/api/brain/ingest-raw"),
            &json!({"source": source, "pages": [{"title": "Retry Policy", "type": "concept", "content": text}]}),
        );
        assert_eq!(status, 200, "{r}");
        assert_eq!(r["pages"], json!(["wiki/concepts/retry-policy.md"]), "{r}");
    }
    // Session lines logged through both, into one session.
    for k in 0..10 {
        let s = if k % 2 == 0 { &sa } else { &sb };
        let (status, r) = post(
            &s.api("/api/brain/log"),
            &json!({"session_id": "shared", "message": format!("step {k}")}),
        );
        assert_eq!(status, 200, "{r}");
    }

    // Both dirs converge on the same brain.
    let tree = |brain: &Path| {
        let mut files = files_under(brain);
        files.retain(|f| !f.starts_with("sessions/"));
        files
    };
    let lines = |brain: &Path| {
        std::fs::read_to_string(brain.join("sessions/shared.jsonl"))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    eventually("both dirs in step", || {
        tree(&brain_a).len() == 23 && tree(&brain_a) == tree(&brain_b)
    });
    eventually("every session line in both dirs", || {
        lines(&brain_a) == 10 && lines(&brain_b) == 10
    });
    let page = std::fs::read_to_string(brain_b.join("wiki/concepts/retry-policy.md")).unwrap();
    assert!(
        page.contains("doc-a") && page.contains("doc-b") && page.contains("Jitter"),
        "{page}"
    );

    // Restarted, B still finds everything.
    drop(sb);
    sb = start(&b);
    for k in [0, 7, 19] {
        assert!(found(&sb, &format!("marsupial{k}"), &format!("knowledge/n{k}.md")));
    }
    assert!(found(&sb, "platypus", "knowledge/hand-a.md"));
    assert!(found(&sb, "jitter", "wiki/concepts/retry-policy.md"));
    assert_eq!(tree(&brain_a), tree(&brain_b));
}

/// MCP `stores {action: "sync"}` syncs the lore.toml of the folder the server started in:
/// a dry run plans, a sync creates and indexes, a bad file is an error naming its line.
#[test]
fn mcp_sync_brings_the_servers_project_in_step() {
    let lore = Lore::without_model();
    write(&lore.path("notes"), "a.md", "# Alpha\n\nAlpha notes.\n");
    write(
        lore.root(),
        "lore.toml",
        "[stores.notes]\nsource = \"notes\"\nembed = \"none\"\n",
    );
    let root = lore.root().display().to_string();
    let server = Server::start_with(
        &lore,
        &["--addr", "127.0.0.1:0", "--no-watch", "--allow-path", &root],
        &[],
    );
    let sync = |args: Value| {
        let mut arguments = json!({"action": "sync"});
        arguments.as_object_mut().unwrap().extend(args.as_object().unwrap().clone());
        let (status, answer) = post(
            &server.api("/mcp"),
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "stores", "arguments": arguments}}),
        );
        assert_eq!(status, 200, "{answer}");
        let result = &answer["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default().to_string();
        (result["isError"] == true, text)
    };
    let (failed, plan) = sync(json!({"dryRun": true}));
    assert!(!failed, "{plan}");
    let plan: Value = serde_json::from_str(&plan).unwrap();
    assert_eq!(plan["steps"][0]["action"], "create", "{plan}");
    assert_eq!(plan["dry_run"], true);
    assert!(lore.json(&["store", "list"]).as_array().unwrap().is_empty());

    let (failed, done) = sync(json!({}));
    assert!(!failed, "{done}");
    let done: Value = serde_json::from_str(&done).unwrap();
    assert_eq!(done["steps"][0]["files"], 1, "{done}");
    let (status, found) = post(
        &server.api("/api/search"),
        &json!({"query": "alpha notes", "mode": "fts", "stores": ["notes"]}),
    );
    assert_eq!(status, 200, "{found}");
    assert!(found["results"][0]["path"] == "a.md", "{found}");

    write(lore.root(), "lore.toml", "[stores.notes]\nsource = \"notes\"\nembedding = \"none\"\n");
    let (failed, err) = sync(json!({}));
    assert!(failed && err.contains("lore.toml line 3"), "{err}");
}

/// MCP `dependency_info` and `search {deps: true}` answer for the project the server
/// started in: the locked version, where its source is, and results from that version only.
#[test]
fn mcp_answers_about_the_projects_locked_dependencies() {
    let lore = Lore::without_model();
    let root = lore.root();
    write(root, "package.json", r#"{"name": "app", "dependencies": {"left-pad": "^1"}}"#);
    write(
        root,
        "package-lock.json",
        r#"{"lockfileVersion": 3, "packages": {"": {"dependencies": {"left-pad": "^1"}},
            "node_modules/left-pad": {"version": "1.3.0"}}}"#,
    );
    write(root, "node_modules/left-pad/package.json", r#"{"name": "left-pad", "version": "1.3.0"}"#);
    write(
        root,
        "node_modules/left-pad/index.js",
        "function leftPad(str, len) {\n  return str.padStart(len);\n}\nmodule.exports = leftPad;\n",
    );
    let r = lore.json(&["deps"]);
    assert_eq!(r["indexed"], 1, "{r}");
    let server = Server::no_watch(&lore, &[]);
    let call = |tool: &str, arguments: Value| {
        let (status, answer) = post(
            &server.api("/mcp"),
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments}}),
        );
        assert_eq!(status, 200, "{answer}");
        let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_default();
        serde_json::from_str::<Value>(text).unwrap_or_else(|_| json!({ "error": text }))
    };
    let info = call("dependency_info", json!({"name": "left-pad"}));
    assert_eq!(info[0]["version"], "1.3.0", "{info}");
    assert_eq!(info[0]["indexed"], true, "{info}");
    assert!(info[0]["source"].as_str().unwrap().ends_with("node_modules/left-pad"), "{info}");
    let found = call("search", json!({"query": "leftPad", "deps": true, "mode": "fts"}));
    assert_eq!(found["results"][0]["store"], "dep:npm:left-pad@1.3.0", "{found}");
    let missing = call("dependency_info", json!({"name": "right-pad"}));
    assert!(missing["error"].as_str().unwrap_or("").contains("not in the lockfiles"), "{missing}");
}

/// Feedback end to end: a result opened through REST after a search is recorded; an
/// explicit mark (CLI, REST, MCP) lifts the unit, says so in `why`, stays in its store, and
/// `--no-feedback` ranks without it; list and reset show and forget it.
#[test]
fn opened_and_marked_results_teach_the_ranking() {
    let lore = Lore::without_model();
    let src = lore.path("src");
    // Two near-equal answers: the lift, bounded, decides between them.
    for (file, body) in [
        ("first.py", "def retry_first(attempt):\n    \"\"\"Retry after a failed attempt.\"\"\"\n    return attempt\n"),
        ("second.py", "def retry_later(attempt):\n    \"\"\"Retry after a failed attempt.\"\"\"\n    return attempt\n"),
    ] {
        write(&src, file, body);
    }
    lore.ok(&["store", "add", "code", src.to_str().unwrap(), "--embed", "none"]);
    let search = |extra: &[&str]| {
        let mut args = vec!["search", "retry after a failed attempt", "--mode", "fts"];
        args.extend_from_slice(extra);
        lore.json(&args)
    };
    let before = search(&[]);
    let first = before["results"][0]["path"].as_str().unwrap().to_string();
    let other = before["results"][1].clone();
    assert_ne!(other["path"], first, "{before}");

    // Marked useful from the CLI: the other unit now leads, and says why.
    let id = other["id"].as_str().unwrap();
    lore.ok(&["feedback", id, "useful", "--query", "retry after a failed attempt"]);
    let after = search(&[]);
    assert_eq!(after["results"][0]["id"], other["id"], "{after}");
    assert!(after["results"][0]["reason"].as_str().unwrap().contains("feedback: useful 1×"), "{after}");
    let plain = search(&["--no-feedback"]);
    assert_eq!(plain["results"][0]["path"], first.as_str(), "{plain}");
    let err = lore.fails(&["feedback", id, "maybe"], 1);
    assert!(err.contains("useful or not-useful"), "{err}");

    // Through the server: a search redone with other words at once, nothing opened,
    // records the first one's results as missed; a search, then the result opened, is
    // recorded as opened.
    let server = Server::no_watch(&lore, &[]);
    let (status, passed) = post(&server.api("/api/search"), &json!({"query": "retry", "mode": "fts"}));
    assert_eq!(passed["results"].as_array().map(Vec::len), Some(2), "{passed}");
    assert_eq!(status, 200, "{passed}");
    let (status, found) = post(&server.api("/api/search"), &json!({"query": "failed attempt", "mode": "fts"}));
    assert_eq!(status, 200, "{found}");
    let opened = found["results"][0]["id"].as_str().unwrap().to_string();
    // A GET (a page, an <img> on another site) looks and records nothing; an agent's POST
    // records the open.
    let (status, _) = get(&server.api(&format!("/api/results/{opened}")));
    assert_eq!(status, 200);
    let (status, _) = post(&server.api(&format!("/api/results/{opened}")), &json!({}));
    assert_eq!(status, 200);
    let (status, marked) = post(&server.api("/api/feedback"), &json!({"id": opened, "useful": false}));
    assert_eq!(status, 200, "{marked}");
    assert_eq!(marked["kind"], "not_useful");
    let (status, bad) = post(&server.api("/api/feedback"), &json!({"id": "zz", "useful": true}));
    assert_eq!(status, 400, "{bad}");
    // What the searches taught is written off their path, within seconds.
    let missed = || {
        lore.json(&["feedback", "list", "code"])
            .as_array()
            .map_or(0, |rows| rows.iter().filter(|r| r["kind"] == "missed").count())
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while missed() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(250));
    }
    drop(server);
    let list = lore.json(&["feedback", "list", "code"]);
    let mut kinds: Vec<&str> = list.as_array().unwrap().iter().filter_map(|r| r["kind"].as_str()).collect();
    kinds.sort_unstable();
    assert_eq!(kinds, ["missed", "missed", "not_useful", "opened", "useful"], "{list}");
    let opened_row = list.as_array().unwrap().iter().find(|r| r["kind"] == "opened").unwrap();
    assert_eq!(opened_row["shown_rank"], 1, "where the search showed it: {list}");
    let reset = lore.json(&["feedback", "reset", "code"]);
    assert_eq!(reset["removed"], 5);
    let back = search(&[]);
    assert_eq!(back["results"][0]["path"], first.as_str(), "forgotten: {back}");

    // Off for the store: its marks no longer lift anything, new ones are refused; on
    // again, the kept mark lifts again.
    lore.ok(&["feedback", id, "useful", "--query", "retry after a failed attempt"]);
    assert_eq!(search(&[])["results"][0]["id"], other["id"]);
    let off = lore.json(&["feedback", "off", "code"]);
    assert_eq!(off["feedback"], false, "{off}");
    let unlifted = search(&[]);
    assert_eq!(unlifted["results"][0]["path"], first.as_str(), "off: {unlifted}");
    let err = lore.fails(&["feedback", id, "useful"], 1);
    assert!(err.contains("feedback is off for store code"), "{err}");
    let err = lore.fails(&["feedback", "off"], 1);
    assert!(err.contains("lore feedback off STORE"), "{err}");
    lore.ok(&["feedback", "on", "code"]);
    assert_eq!(search(&[])["results"][0]["id"], other["id"], "on again");
}
