//! Issue 52: what a repository *says* — its folders and links, its `lore.toml`, its
//! lockfiles — cannot make lore read or write outside what the operator allowed. Each
//! attack runs through the binary or the server, against a secret outside every allowed
//! folder, and must be refused before anything is read or written.

/// Whether `lore` keeps its catalog in PostgreSQL here (the `*_postgres` suites).
const ON_POSTGRES: bool = false;

mod common;

use common::serve::{Server, get, post};
use common::{Lore, Out, run_command, write};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const SECRET: &str = "quokkasecret";

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A folder outside every allowed one, holding the secret.
fn secret_folder(lore: &Lore) -> PathBuf {
    let outside = lore.path("outside");
    write(&outside, "SECRET.txt", format!("the {SECRET} lives here\n"));
    outside
}

/// `lore ARGS` run in `dir`.
fn run_in(lore: &Lore, dir: &Path, args: &[&str]) -> Out {
    let mut cmd = lore.command(args);
    cmd.current_dir(dir);
    run_command(&mut cmd, Duration::from_secs(120))
}

/// POSTs a job to `route` (202) and waits for it; its last record.
fn run_job(server: &Server, route: &str, body: Value) -> Value {
    let (status, job) = post(&server.api(route), &body);
    assert_eq!(status, 202, "{job}");
    common::serve::wait_job(server, job["id"].as_str().unwrap(), Duration::from_secs(60))
}

/// Item 1: a folder renamed back and forth between a real folder and a symlink to the
/// secret's, while the server adds stores over it 200 times: no add ever reads the secret.
/// A hard link to an outside file is refused under `--allow-path`.
#[test]
fn a_folder_swapped_for_a_symlink_mid_walk_leaks_nothing() {
    let lore = Lore::without_model();
    let outside = secret_folder(&lore);
    let allowed = lore.path("allowed");
    let proj = allowed.join("proj");
    write(&proj, "a.md", "# Plain\n\nNothing to see.\n");
    write(&proj, "real/inside.md", "# Inside\n\nA real folder.\n");
    std::os::unix::fs::symlink(&outside, proj.join("link")).unwrap();
    std::fs::hard_link(outside.join("SECRET.txt"), proj.join("hard.txt")).unwrap();

    let server = Server::start_with(
        &lore,
        &[
            "--addr",
            "127.0.0.1:0",
            "--no-watch",
            "--allow-path",
            s(&allowed),
        ],
        &[],
    );
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, proj) = (stop.clone(), proj.clone());
        std::thread::spawn(move || {
            let (zzz, real, link) = (proj.join("zzz"), proj.join("real"), proj.join("link"));
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                for from in [&real, &link] {
                    if std::fs::rename(from, &zzz).is_ok() {
                        let _ = std::fs::rename(&zzz, from);
                        swaps += 1;
                    }
                }
            }
            swaps
        })
    };
    let (mut hard_link_refused, mut met_the_swap) = (0, 0);
    for i in 0..200 {
        let name = format!("p{i}");
        let job = run_job(
            &server,
            "/api/stores",
            json!({"name": name, "source": proj, "embed": "none"}),
        );
        assert_eq!(job["status"], "done", "{job}");
        let result = job["result"].to_string();
        if result.contains("a hard link (2 links)") {
            hard_link_refused += 1;
        }
        // The walk met the name as a folder and found a link there when it opened it:
        // where a walk by path would have listed the secret's folder.
        if result.contains("\"path\":\"zzz\"") {
            met_the_swap += 1;
        }
    }
    eprintln!("{met_the_swap} of 200 adds opened zzz after it was swapped for the link");
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 200, "the folder was swapped only {swaps} times");
    assert_eq!(hard_link_refused, 200, "the hard link was read");
    let (status, found) = post(
        &server.api("/api/search"),
        &json!({"query": SECRET, "mode": "fts", "limit": 50}),
    );
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["results"], json!([]), "the secret leaked: {found}");
    // Nothing outside was even listed: no store holds a path under the swapped name that
    // came from the secret's folder.
    for i in (0..200).step_by(20) {
        let (_, info) = get(&server.api(&format!("/api/stores/p{i}")));
        assert!(!info.to_string().contains("SECRET"), "{info}");
    }
}

/// A project folder holding a `lore.toml` that asks for more than its own folder.
fn hostile_project(lore: &Lore, outside: &Path) -> PathBuf {
    let proj = lore.path("clone");
    write(&proj, "src/app.py", "def handler():\n    return 1\n");
    write(
        &proj,
        "lore.toml",
        format!(
            "[settings]\nbrain_dir = \"../outside/brain\"\n\n\
             [stores.code]\nsource = \".\"\nembed = \"none\"\n\n\
             [stores.secret]\nsource = \"{}\"\nembed = \"none\"\n\n\
             [stores.site]\nsource = \"http://127.0.0.1:9/\"\ntype = \"web\"\n",
            s(outside)
        ),
    );
    proj
}

/// Item 2: a cloned `lore.toml` that reads outside its folder, fetches over the network or
/// moves the brain is refused (CLI and MCP) until `lore trust`; a changed file asks
/// again; a file that asks for nothing more syncs without trust; under `lore serve` a
/// project's brain dir must lie under an `--allow-path`, trusted or not.
#[test]
fn a_cloned_project_file_is_obeyed_only_once_trusted() {
    let lore = Lore::without_model();
    let outside = secret_folder(&lore);
    let proj = hostile_project(&lore, &outside);
    let toml = proj.join("lore.toml");

    let out = run_in(&lore, &proj, &["sync"]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let err = common::one_error_line(&out.stderr, &["sync"]);
    for needle in [
        "not trusted, and it asks to",
        &format!("read {}, outside the project's folder", s(&outside)),
        "fetch http://127.0.0.1:9/ over the network (store \"site\")",
        "keep the brain, which lore reads and writes",
        &format!("run `lore trust {}`", s(&toml)),
    ] {
        assert!(err.contains(needle), "{needle:?} not in {err}");
    }
    assert_eq!(
        lore.json(&["store", "list"]),
        json!([]),
        "a store was created"
    );

    // The MCP tool is refused the same way.
    let answer =
        common::serve::stdio_tool(&lore, Some(&proj), &[], "stores", json!({"action": "sync"}));
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    assert_eq!(answer["result"]["isError"], json!(true), "{answer}");
    assert!(text.contains("not trusted"), "{answer}");
    assert_eq!(
        lore.json(&["store", "list"]),
        json!([]),
        "MCP created a store"
    );

    // The brain stays where it was, with a warning, until the file is trusted.
    let out = run_in(
        &lore,
        &proj,
        &["brain", "write", "Numbats eat termites.", "--filename", "n"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("brain_dir") && out.stderr.contains("not followed"),
        "{}",
        out.stderr
    );
    assert!(!outside.join("brain").exists(), "the brain moved outside");

    // Trusted: sync does what it asks (the web store fails to connect; the others exist).
    let trusted = run_in(&lore, &proj, &["--json", "trust"]);
    assert_eq!(trusted.code, 0, "{}", trusted.stderr);
    let t: Value = serde_json::from_str(&trusted.stdout).unwrap();
    assert_eq!(t["trusted"], true, "{t}");
    assert_eq!(t["asks"].as_array().map(Vec::len), Some(3), "{t}");
    let plan = run_in(&lore, &proj, &["--json", "sync", "--dry-run"]);
    assert_eq!(plan.code, 0, "{}", plan.stderr);

    // Changed after it was trusted: refused again, saying so.
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{text}\n[stores.more]\nsource = \"/\"\n")).unwrap();
    let out = run_in(&lore, &proj, &["sync", "--dry-run"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("changed since you trusted it"),
        "{}",
        out.stderr
    );

    // A file asking for nothing beyond its folder needs no trust; its stores are read as
    // if `--allow-path` were its folder.
    let plain = lore.path("plain");
    write(&plain, "src/lib.rs", "pub fn plain() {}\n");
    write(
        &plain,
        "lore.toml",
        "[stores.plain]\nsource = \".\"\nembed = \"none\"\n",
    );
    let out = run_in(&lore, &plain, &["sync"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let found = lore.search("plain", "fts", &["--stores", "plain"]);
    assert_eq!(common::paths(&found)[0], "src/lib.rs", "{found}");

    // `lore serve` in a trusted checkout whose brain_dir lies outside every --allow-path.
    std::fs::write(&toml, &text).unwrap();
    assert_eq!(run_in(&lore, &proj, &["trust"]).code, 0);
    let out = run_in(
        &lore,
        &proj,
        &[
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--no-watch",
            "--allow-path",
            s(&proj),
        ],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("must lie under an --allow-path"),
        "{}",
        out.stderr
    );
    assert!(
        !outside.join("brain").exists(),
        "the brain was created outside"
    );
}

/// Item 3: lockfile names and versions that are paths are refused before any file is
/// looked at; a `node_modules/x` symlink to elsewhere is not `x`.
#[test]
fn lockfile_names_and_versions_are_not_paths() {
    let lore = Lore::without_model();
    let outside = secret_folder(&lore);
    write(
        &outside,
        "package.json",
        r#"{"name": "x", "version": "1.0.0"}"#,
    );
    let proj = lore.path("app");
    let abs = s(&outside).trim_start_matches('/');
    write(
        &proj,
        "package.json",
        r#"{"dependencies": {"left-pad": "1.0.0", "x": "1.0.0"}}"#,
    );
    write(
        &proj,
        "package-lock.json",
        format!(
            r#"{{"lockfileVersion": 3, "packages": {{"": {{"dependencies": {{"left-pad": "1.0.0", "x": "1.0.0"}}}},
                "node_modules//{abs}": {{"version": "1.0.0"}},
                "node_modules/left-pad": {{"version": "1.0.0"}},
                "node_modules/x": {{"version": "1.0.0/../../../../escape",
                    "resolved": "http://127.0.0.1:9/x.tgz", "integrity": "sha512-AAAA"}}}}}}"#
        ),
    );
    std::fs::create_dir_all(proj.join("node_modules")).unwrap();
    std::os::unix::fs::symlink(&outside, proj.join("node_modules/left-pad")).unwrap();
    write(
        &outside,
        "package.json",
        r#"{"name": "left-pad", "version": "1.0.0"}"#,
    );

    let report = lore.json(&["deps", "--project", s(&proj), "--all", "--fetch"]);
    let refused = report["refused"].to_string();
    assert!(
        refused.contains(&format!("\\\"/{abs}\\\" is not a npm package name")),
        "{report}"
    );
    assert!(refused.contains("is not a npm version"), "{report}");
    assert_eq!(report["deps"].as_array().map(Vec::len), Some(1), "{report}");
    // The symlinked folder is not left-pad's source: --fetch would have to get it (and
    // finds no digest to check it against).
    assert_eq!(
        report["deps"][0]["status"], "fetch_failed",
        "the symlink was followed: {report}"
    );
    assert_eq!(
        lore.json(&["store", "list"]),
        json!([]),
        "a store was created"
    );
    assert!(!lore.root().join("escape").exists() && !lore.path("data/escape").exists());
}

/// Item 4: `dep:` names are `lore deps`'s own, through the server and the CLI.
#[test]
fn dependency_stores_cannot_be_forged() {
    let lore = Lore::without_model();
    let allowed = lore.path("allowed");
    write(&allowed, "index.js", "module.exports = 1;\n");
    let err = lore.fails(&["store", "add", "dep:npm:left-pad@1.0.0", s(&allowed)], 1);
    assert!(err.contains("`lore deps` makes them"), "{err}");
    let server = Server::start_with(
        &lore,
        &[
            "--addr",
            "127.0.0.1:0",
            "--no-watch",
            "--allow-path",
            s(&allowed),
        ],
        &[],
    );
    let (status, body) = post(
        &server.api("/api/stores"),
        &json!({"name": "dep:npm:x@1", "source": allowed, "embed": "none"}),
    );
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap_or("").contains("dep:"),
        "{body}"
    );
}

/// Items 5 and 6: no GET writes (a page on any site can send one), an agent's open is a
/// JSON POST; errors do not reveal the server's data dir.
#[test]
fn no_get_writes_and_errors_keep_the_data_dir_to_themselves() {
    let lore = Lore::without_model();
    let code = lore.path("code");
    write(&code, "retry.py", "def retry_after_failure():\n    pass\n");
    lore.ok(&["store", "add", "code", s(&code), "--embed", "none"]);
    let server = Server::no_watch(&lore, &[]);
    let (status, found) = post(
        &server.api("/api/search"),
        &json!({"query": "retry_after_failure", "mode": "fts"}),
    );
    assert_eq!(status, 200, "{found}");
    let id = found["results"][0]["id"]
        .as_str()
        .expect("a result")
        .to_string();
    let (status, _) = get(&server.api(&format!("/api/results/{id}")));
    assert_eq!(status, 200);

    let data = s(&lore.data()).to_string();
    for path in [
        "/api/eval/runs/..%2f..%2fsecret",
        "/api/eval/runs/2026-01-01T00-00-00Z.jsonl",
    ] {
        let (status, body) = get(&server.api(path));
        assert!(status >= 400, "{path}: {body}");
        assert!(
            !body.to_string().contains(&data),
            "{path} names the data dir: {body}"
        );
    }
    let judge = lore.data().join("eval/judge");
    std::fs::create_dir_all(&judge).unwrap();
    std::fs::write(judge.join("2026-01-01T00-00-00Z.jsonl"), "not json\n").unwrap();
    let (status, body) = get(&server.api("/api/eval/runs/2026-01-01T00-00-00Z.jsonl"));
    assert!(status >= 400, "{body}");
    assert!(
        !body.to_string().contains(&data),
        "a bad run names the data dir: {body}"
    );
    drop(server);
    let list = lore.json(&["feedback", "list", "code"]);
    assert_eq!(list, json!([]), "a GET recorded feedback: {list}");

    // The agent's POST is recorded.
    let server = Server::no_watch(&lore, &[]);
    let (_, found) = post(
        &server.api("/api/search"),
        &json!({"query": "retry_after_failure", "mode": "fts"}),
    );
    let id = found["results"][0]["id"].as_str().unwrap().to_string();
    let (status, body) = post(&server.api(&format!("/api/results/{id}")), &json!({}));
    assert_eq!(status, 200, "{body}");
    drop(server);
    let list = lore.json(&["feedback", "list", "code"]);
    assert_eq!(list[0]["kind"], "opened", "{list}");
}

/// `lore` in `dir` with `world`'s HOME and no data dir given: the one it finds.
fn found_data_dir_run(world: &Lore, dir: &Path, data_dir: Option<&Path>, args: &[&str]) -> Out {
    let mut cmd = std::process::Command::new(common::BIN);
    world.set_home(&mut cmd);
    cmd.env_remove("LORE_DATA_DIR")
        .env_remove("LORE_DATABASE_URL")
        .env_remove("LORE_BRAIN_DIR")
        .current_dir(dir)
        .arg("--quiet");
    if let Some(d) = data_dir {
        cmd.arg("--data-dir").arg(d);
    }
    cmd.args(args);
    run_command(&mut cmd, Duration::from_secs(60))
}

/// A `.lore/` data dir a clone carries (its catalog's store reads the secret's folder) is
/// passed over, with a warning, until the user trusts it; one the user had lore make is
/// theirs and used without asking.
#[test]
fn a_data_dir_a_clone_carries_is_passed_over_until_trusted() {
    let victim = Lore::without_model();
    let outside = secret_folder(&victim);
    let clone = victim.path("clone");
    write(&clone, "README.md", "# A project\n");
    let carried = clone.join(".lore");
    // Made by someone else's lore (another HOME), shipped inside the clone.
    let attacker = Lore::without_model();
    let made = found_data_dir_run(
        &attacker,
        attacker.root(),
        Some(&carried),
        &["store", "add", "loot", s(&outside), "--embed", "none"],
    );
    assert_eq!(made.code, 0, "{}", made.stderr);

    let out = found_data_dir_run(&victim, &clone, None, &["--json", "store", "list"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("is a data dir you have not trusted"),
        "{}",
        out.stderr
    );
    assert_eq!(
        serde_json::from_str::<Value>(&out.stdout).unwrap(),
        json!([])
    );
    let out = found_data_dir_run(&victim, &clone, None, &["sync"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = found_data_dir_run(
        &victim,
        &clone,
        None,
        &["--json", "search", SECRET, "--mode", "fts"],
    );
    assert!(!out.stdout.contains(SECRET), "{}", out.stdout);

    // Trusted: used.
    let out = found_data_dir_run(&victim, &clone, None, &["trust", ".lore"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = found_data_dir_run(&victim, &clone, None, &["--json", "store", "list"]);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    assert!(out.stdout.contains("\"loot\""), "{}", out.stdout);

    // One the user had lore make is used without asking.
    let mine = victim.path("mine");
    write(&mine, "lib.rs", "pub fn mine() {}\n");
    let out = found_data_dir_run(
        &victim,
        &mine,
        Some(&mine.join(".lore")),
        &["store", "add", "mine", ".", "--embed", "none"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = found_data_dir_run(&victim, &mine, None, &["--json", "store", "list"]);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    assert!(out.stdout.contains("\"mine\""), "{}", out.stdout);
}
