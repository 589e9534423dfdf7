//! A project's stores in `lore.toml`: `lore sync` creates, updates in place, replaces (only
//! with --yes) and indexes them; `lore init` writes the file, and a fresh data dir syncs
//! back to the same stores. Lexical stores (`embed = "none"`): no model needed.

use crate::common::{Lore, run_command, write};
use serde_json::Value;
use std::time::Duration;

fn step<'a>(report: &'a Value, store: &str) -> &'a Value {
    report["steps"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["store"] == store))
        .unwrap_or_else(|| panic!("no step for {store}: {report}"))
}

/// `lore ARGS` run from `dir` (where lore.toml is looked for, upward).
fn run_in(lore: &Lore, dir: &std::path::Path, args: &[&str]) -> crate::common::Out {
    let mut cmd = lore.command(args);
    cmd.current_dir(dir);
    run_command(&mut cmd, Duration::from_secs(120))
}

#[test]
fn lore_toml_creates_updates_replaces_and_recreates_stores() {
    let lore = Lore::without_model();
    let proj = lore.path("proj");
    write(&proj, "src/shop.py", "def checkout(cart):\n    return cart.total()\n");
    write(&proj, "docs/guide.md", "# Guide\n\nHow checkout works.\n");
    write(&proj, "notes/more.md", "# More\n\nOther notes.\n");
    let toml = |code_include: &str, docs_source: &str| {
        format!(
            "# the project's stores\n[stores.code]\nsource = \".\"\ninclude = [{code_include}]\n\
             embed = \"none\"\n\n[stores.docs]\nsource = \"{docs_source}\"\n\
             description = \"the guide\"\nembed = \"none\"\n"
        )
    };
    write(&proj, "lore.toml", toml("\"src/**\"", "docs"));

    // Found from a folder below the project; both stores created and indexed.
    let out = run_in(&lore, &proj.join("src"), &["--json", "sync"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(step(&r, "code")["action"], "create", "{r}");
    assert_eq!(step(&r, "code")["files"], 1, "{r}");
    assert_eq!(step(&r, "code")["added"], 1, "what the run did: {r}");
    assert_eq!(step(&r, "docs")["action"], "create");
    assert_eq!(step(&r, "docs")["files"], 1);
    let found = lore.search("checkout", "fts", &["--stores", "code"]);
    assert!(found.to_string().contains("src/shop.py"), "{found}");

    // Unchanged: indexed; a wider glob: updated in place (the new files indexed).
    let r = lore.json(&["sync", "--project", proj.join("lore.toml").to_str().unwrap()]);
    assert_eq!(step(&r, "code")["action"], "index", "{r}");
    write(&proj, "lore.toml", toml("\"src/**\", \"notes/**\"", "docs"));
    let r = lore.json(&["sync", "--project", proj.join("lore.toml").to_str().unwrap()]);
    let code = step(&r, "code");
    assert_eq!(code["action"], "update", "{r}");
    assert_eq!(code["files"], 2, "{r}");
    assert!(code["changes"][0].as_str().unwrap().starts_with("include: [src/**] → [src/**, notes/**]"), "{r}");

    // A changed source replaces the store, only when told yes; the refusal changes nothing.
    write(&proj, "lore.toml", toml("\"src/**\", \"notes/**\"", "notes"));
    let out = run_in(&lore, &proj, &["sync"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stderr.contains("--yes") && out.stderr.contains("docs (source:"), "{}", out.stderr);
    let info = lore.json(&["store", "info", "docs"]);
    assert!(info["source"].as_str().unwrap().ends_with("/docs"), "{info}");
    let dry = run_in(&lore, &proj, &["sync", "--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(dry.stdout.contains("would replace docs"), "{}", dry.stdout);
    // In a terminal it asks; "n" changes nothing and is no error (a pty from `script`).
    let sync = lore.command(&["sync"]);
    let line: Vec<String> = std::iter::once(sync.get_program())
        .chain(sync.get_args())
        .map(|a| format!("'{}'", a.to_string_lossy()))
        .collect();
    let mut tty = std::process::Command::new("script");
    tty.args(["-qec", &line.join(" "), "/dev/null"])
        .current_dir(&proj)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (k, v) in sync.get_envs() {
        match v {
            Some(v) => tty.env(k, v),
            None => tty.env_remove(k),
        };
    }
    let mut child = tty.spawn().expect("script (util-linux)");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"n\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown}");
    assert!(shown.contains("replace docs") && shown.contains("nothing was changed"), "{shown}");
    let info = lore.json(&["store", "info", "docs"]);
    assert!(info["source"].as_str().unwrap().ends_with("/docs"), "{info}");
    let out = run_in(&lore, &proj, &["--json", "sync", "--yes"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(step(&r, "docs")["action"], "replace", "{r}");
    let info = lore.json(&["store", "info", "docs"]);
    assert!(info["source"].as_str().unwrap().ends_with("/notes"), "{info}");

    // Errors name the line; nothing is synced.
    write(&proj, "bad.toml", "[stores.code]\nsource = \".\"\nglob = [\"x\"]\n");
    let err = lore.fails(&["sync", "--project", proj.join("bad.toml").to_str().unwrap()], 1);
    assert!(err.contains("bad.toml line 3") && err.contains("glob"), "{err}");

    // A store elsewhere is not this project's: not listed. One of its own that the file
    // no longer names (a store renamed in it) is listed, and --prune removes it.
    let other = lore.path("other");
    write(&other, "x.md", "# X\n");
    lore.ok(&["store", "add", "other", other.to_str().unwrap(), "--embed", "none"]);
    let notes = proj.join("notes");
    lore.ok(&["store", "add", "old-notes", notes.to_str().unwrap(), "--embed", "none"]);
    let toml_path = proj.join("lore.toml");
    let r = lore.json(&["sync", "--project", toml_path.to_str().unwrap()]);
    assert_eq!(r["not_in_project"], serde_json::json!(["old-notes"]), "{r}");
    assert_eq!(step(&r, "code")["added"], 0, "{r}");
    let out = run_in(&lore, &proj, &["sync"]);
    assert!(out.stdout.contains("`lore sync --prune` removes them): old-notes"), "{}", out.stdout);
    assert!(out.stdout.contains("indexed code (2 files, "), "{}", out.stdout);
    let r = lore.json(&["sync", "--prune", "--project", toml_path.to_str().unwrap()]);
    assert_eq!(r["pruned"], serde_json::json!(["old-notes"]), "{r}");
    let list = lore.json(&["store", "list"]).to_string();
    assert!(!list.contains("old-notes") && list.contains("\"other\""), "{list}");

    // init writes the stores there are; a fresh data dir syncs back to the same ones.
    let out = run_in(&lore, &proj, &["init"]);
    assert_eq!(out.code, 1, "an existing lore.toml is kept: {}", out.stdout);
    assert!(out.stderr.contains("--force"), "{}", out.stderr);
    let written = proj.join("lore.toml");
    let out = run_in(&lore, &proj, &["--json", "init", "--force"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Only the project's own stores: `other` (elsewhere) is left out, and said so.
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(r["left_out"], serde_json::json!(["other"]), "{r}");
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(text.contains("[stores.code]\nsource = \".\"\ninclude = [\"src/**\", \"notes/**\"]\nembed = \"none\"\n"), "{text}");
    assert!(text.contains("[stores.docs]\nsource = \"notes\"\ndescription = \"the guide\"\n"), "{text}");
    // Round trip: the file init wrote plans nothing but indexing.
    let plan = lore.json(&["sync", "--dry-run", "--project", written.to_str().unwrap()]);
    for s in plan["steps"].as_array().unwrap() {
        assert_eq!(s["action"], "index", "{plan}");
    }
    // On another machine the file (asking nothing beyond its folder) needs no trust.
    let fresh = Lore::without_model();
    let r = fresh.json(&["sync", "--project", written.to_str().unwrap()]);
    for name in ["code", "docs"] {
        let before = lore.json(&["store", "info", name]);
        assert_eq!(step(&r, name)["action"], "create", "{r}");
        assert_eq!(step(&r, name)["files"], before["files"], "{name}: {r}");
        assert_eq!(step(&r, name)["chunks"], before["chunks"], "{name}: {r}");
    }
}

/// `[settings]` set the defaults of commands run inside the project: the search mode and
/// detail, and the brain dir (relative to the file); flags still win.
#[test]
fn project_settings_are_the_defaults_inside_it() {
    let lore = Lore::without_model();
    let proj = lore.path("proj");
    write(&proj, "src/shop.py", "def checkout(cart):\n    return cart.total()\n");
    write(
        &proj,
        "lore.toml",
        "[settings]\nmode = \"fts\"\ndetail = \"contextual\"\nbrain_dir = \"docs/brain\"\n\n\
         [stores.code]\nsource = \".\"\nembed = \"none\"\n",
    );
    // brain_dir moves the brain: followed once the file is trusted.
    let out = run_in(&lore, &proj, &["sync"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("brain_dir"), "{}", out.stderr);
    let out = run_in(&lore, &proj, &["trust"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("trusted as it is now"), "{}", out.stdout);
    let out = run_in(&lore, &proj, &["sync"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = run_in(&lore, &proj.join("src"), &["--json", "search", "checkout"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(r["mode"], "fts", "{r}");
    assert!(r["results"][0]["context"].is_object(), "contextual detail: {r}");
    let out = run_in(&lore, &proj, &["--json", "search", "checkout", "--detail", "minimal"]);
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(r["results"][0]["context"].is_null(), "the flag wins: {r}");
    let out = run_in(&lore, &proj, &["brain", "write", "a note", "--filename", "n"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(proj.join("docs/brain/knowledge/n.md").is_file());

    // A broken file stops a search, naming the line; sync says the same.
    write(&proj, "lore.toml", "[settings]\nmode = \"fast\"\n");
    let out = run_in(&lore, &proj, &["search", "checkout"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("lore.toml line 1") && out.stderr.contains("fast"), "{}", out.stderr);
}

/// Inside a project, a search that names no stores searches the project's stores and says
/// so; `--all` searches every store; outside, every store.
#[test]
fn searches_inside_a_project_keep_to_its_stores() {
    let lore = Lore::without_model();
    let proj = lore.path("proj");
    write(&proj, "src/cart.py", "def checkout_basket(cart):\n    return cart\n");
    write(&proj, "lore.toml", "[stores.code]\nsource = \".\"\nembed = \"none\"\n");
    let other = lore.path("other");
    write(&other, "lib.rs", "pub fn checkout_basket() {}\n");
    lore.ok(&["store", "add", "other", other.to_str().unwrap(), "--embed", "none"]);
    assert_eq!(run_in(&lore, &proj, &["sync"]).code, 0);

    let out = run_in(&lore, &proj, &["--json", "search", "checkout_basket", "--mode", "fts"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    let stores: Vec<&str> = r["results"].as_array().unwrap().iter().filter_map(|h| h["store"].as_str()).collect();
    assert_eq!(stores, ["code"], "{r}");
    assert!(r["scope"].as_str().unwrap().contains("lore.toml (code)"), "{r}");

    let out = run_in(&lore, &proj, &["--json", "search", "checkout_basket", "--mode", "fts", "--all"]);
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(r["results"].as_array().map(Vec::len), Some(2), "{r}");
    let out = run_in(&lore, lore.root(), &["--json", "search", "checkout_basket", "--mode", "fts"]);
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(r["results"].as_array().map(Vec::len), Some(2), "{r}");
    assert!(r["scope"].is_null(), "{r}");

    // `lore mcp` started in the project scopes its searches the same way; ["*"] is all.
    let mcp = |args: Value| -> Value {
        let answer = crate::common::serve::stdio_tool(&lore, Some(&proj), &[], "search", args);
        let text = answer["result"]["content"][0]["text"].as_str().unwrap_or("");
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {answer}"))
    };
    let r = mcp(serde_json::json!({"query": "checkout_basket", "mode": "fts"}));
    assert_eq!(r["results"].as_array().map(Vec::len), Some(1), "{r}");
    assert_eq!(r["results"][0]["store"], "code", "{r}");
    assert!(r["scope"].as_str().unwrap().contains("lore.toml (code)"), "{r}");
    let r = mcp(serde_json::json!({"query": "checkout_basket", "mode": "fts", "stores": ["*"]}));
    assert_eq!(r["results"].as_array().map(Vec::len), Some(2), "{r}");
}

/// Store names are one per data dir: a second project's `[stores.code]` does not replace the
/// first's, even with --yes, and the refusal names the other project's file. Errors about
/// a store name its line.
#[test]
fn two_projects_do_not_replace_each_others_stores() {
    let lore = Lore::without_model();
    let (a, b) = (lore.path("a"), lore.path("b"));
    for p in [&a, &b] {
        write(p, "lore.toml", "# the app\n[stores.code]\nsource = \".\"\nembed = \"none\"\n");
        write(p, "main.py", "def main():\n    return 1\n");
    }
    let out = run_in(&lore, &a, &["sync"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = run_in(&lore, &b, &["sync", "--yes"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let shown_a = std::fs::canonicalize(&a).unwrap().join("lore.toml");
    assert!(
        out.stderr.contains("lore.toml line 2: store \"code\"")
            && out.stderr.contains(&format!("another project's, {}", shown_a.display())),
        "{}",
        out.stderr
    );
    let info = lore.json(&["store", "info", "code"]);
    assert!(info["source"].as_str().unwrap().ends_with("/a"), "{info}");

    write(&b, "lore.toml", "[stores.b-code]\nsource = \".\"\n\n[stores.gone]\nsource = \"missing\"\n");
    let out = run_in(&lore, &b, &["sync"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stderr.contains("lore.toml line 4: store \"gone\""), "{}", out.stderr);
}
