//! `lore deps` offline, through the binary: a Rust project whose Cargo.lock pins a crate
//! the local cargo registry holds (one of this workspace's own dependencies), a JS project
//! with a `node_modules` written here, and a Python virtual environment made here with pip
//! installing a wheel built here. Searches with `--deps` answer from the locked versions;
//! a lockfile change indexes only the version that changed and gc drops the old one.

use crate::common::{Lore, run_command, write};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The version of `name` this workspace's own Cargo.lock pins (so the registry has it).
fn workspace_version(name: &str) -> String {
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock"))
        .expect("the workspace's Cargo.lock");
    let at = lock
        .find(&format!("name = \"{name}\"\nversion = \""))
        .unwrap_or_else(|| panic!("{name} in Cargo.lock"));
    let rest = &lock[at..];
    let v = rest.split("version = \"").nth(1).unwrap();
    v[..v.find('"').unwrap()].to_string()
}

fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cargo"))
}

/// A wheel of `tiny-pkg` 1.2.0 (one module with one function), built by hand: a zip with
/// the package and its dist-info, as `pip install` takes it.
fn tiny_wheel(dir: &Path) -> PathBuf {
    let wheel = dir.join("tiny_pkg-1.2.0-py3-none-any.whl");
    let script = format!(
        "import zipfile\n\
         w = zipfile.ZipFile({:?}, 'w')\n\
         w.writestr('tiny_pkg/__init__.py', 'def frobnicate_widgets(n):\\n    \"\"\"Frobnicates n widgets.\"\"\"\\n    return n * 2\\n')\n\
         w.writestr('tiny_pkg-1.2.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: tiny-pkg\\nVersion: 1.2.0\\n')\n\
         w.writestr('tiny_pkg-1.2.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n\
         w.writestr('tiny_pkg-1.2.0.dist-info/RECORD', 'tiny_pkg/__init__.py,,\\ntiny_pkg-1.2.0.dist-info/METADATA,,\\ntiny_pkg-1.2.0.dist-info/WHEEL,,\\ntiny_pkg-1.2.0.dist-info/RECORD,,\\n')\n\
         w.close()\n",
        wheel.display().to_string()
    );
    let out = run_command(
        Command::new("python3").args(["-c", &script]),
        Duration::from_secs(60),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    wheel
}

fn entry<'a>(r: &'a Value, store: &str) -> &'a Value {
    r["deps"]
        .as_array()
        .and_then(|d| d.iter().find(|e| e["store"] == store))
        .unwrap_or_else(|| panic!("no {store} in {r}"))
}

fn in_app(lore: &Lore, app: &Path, args: &[&str]) -> Value {
    let mut cmd = lore.command(args);
    cmd.current_dir(app)
        .env("CARGO_HOME", cargo_home())
        .env_remove("VIRTUAL_ENV");
    let out = run_command(&mut cmd, Duration::from_secs(300));
    assert_eq!(out.code, 0, "lore {args:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

fn lock_left_pad(app: &Path, version: &str) {
    write(
        app,
        "package-lock.json",
        format!(
            r#"{{"name": "app", "lockfileVersion": 3, "packages": {{
                "": {{"name": "app", "dependencies": {{"left-pad": "^1.3.0"}}}},
                "node_modules/left-pad": {{"version": "{version}", "integrity": "sha512-x"}}}}}}"#
        ),
    );
    write(
        app,
        "node_modules/left-pad/package.json",
        format!(r#"{{"name": "left-pad", "version": "{version}", "main": "index.js"}}"#),
    );
}

#[test]
fn deps_index_locked_versions_offline_and_follow_the_lockfile() {
    let lore = Lore::without_model();
    let app = lore.path("app");
    let globset = workspace_version("globset");
    let aho = workspace_version("aho-corasick");
    write(
        &app,
        "Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dependencies]\nglobset = \"0.4\"\n",
    );
    write(
        &app,
        "Cargo.lock",
        format!(
            "version = 4\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\"globset\"]\n\n\
             [[package]]\nname = \"globset\"\nversion = \"{globset}\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n\
             [[package]]\nname = \"aho-corasick\"\nversion = \"{aho}\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n"
        ),
    );
    write(&app, "package.json", r#"{"name": "app", "dependencies": {"left-pad": "^1.3.0"}}"#);
    lock_left_pad(&app, "1.3.0");
    write(
        &app,
        "node_modules/left-pad/index.js",
        "/** Pads a string on the left to a length. */\nfunction leftPad(str, len, ch) {\n  return String(ch || ' ').repeat(Math.max(0, len - String(str).length)) + str;\n}\nmodule.exports = leftPad;\n",
    );
    write(&app, "requirements.txt", "tiny-pkg==1.2.0\n");
    let venv = run_command(
        Command::new("python3").args(["-m", "venv", app.join(".venv").to_str().unwrap()]),
        Duration::from_secs(120),
    );
    assert_eq!(venv.code, 0, "python3 -m venv: {}", venv.stderr);
    let wheel = tiny_wheel(lore.root());
    let pip = run_command(
        Command::new(app.join(".venv/bin/pip")).args([
            "install",
            "--no-index",
            "--no-deps",
            "--disable-pip-version-check",
            wheel.to_str().unwrap(),
        ]),
        Duration::from_secs(120),
    );
    assert_eq!(pip.code, 0, "pip install: {}", pip.stderr);

    // Direct dependencies of each ecosystem, from the caches; the transitive crate not.
    let r = in_app(&lore, &app, &["--json", "deps"]);
    assert_eq!(r["locked"], 4, "{r}");
    assert_eq!(r["taken"], 3, "{r}");
    let cargo = entry(&r, &format!("dep:cargo:globset@{globset}"));
    assert_eq!(cargo["status"], "indexed", "{r}");
    assert!(cargo["files"].as_u64().unwrap() > 3, "{cargo}");
    assert_eq!(entry(&r, "dep:npm:left-pad@1.3.0")["files"], 2, "{r}");
    let py = entry(&r, "dep:python:tiny-pkg@1.2.0");
    assert_eq!(py["files"], 1, "the package's own file, not pip's: {py}");

    // A search over the project's dependencies answers from the locked versions.
    let hit = in_app(&lore, &app, &["--json", "search", "leftPad", "--deps", "--mode", "fts"]);
    assert_eq!(hit["results"][0]["store"], "dep:npm:left-pad@1.3.0", "{hit}");
    assert_eq!(hit["results"][0]["package"], "left-pad", "{hit}");
    assert_eq!(hit["results"][0]["version"], "1.3.0", "{hit}");
    let hit = in_app(&lore, &app, &["--json", "search", "GlobSetBuilder", "--deps", "--mode", "fts"]);
    assert_eq!(hit["results"][0]["store"], format!("dep:cargo:globset@{globset}"), "{hit}");
    let hit = in_app(&lore, &app, &["--json", "search", "frobnicate widgets", "--deps", "--mode", "fts"]);
    assert_eq!(hit["results"][0]["path"], "tiny_pkg/__init__.py", "{hit}");

    // Again: nothing to index. --all would take the transitive crate too.
    let again = in_app(&lore, &app, &["--json", "deps"]);
    assert_eq!((again["indexed"].as_u64(), again["present"].as_u64()), (Some(0), Some(3)), "{again}");
    let all = in_app(&lore, &app, &["--json", "deps", "--all", "--dry-run"]);
    assert_eq!(entry(&all, &format!("dep:cargo:aho-corasick@{aho}"))["status"], "would_index", "{all}");

    // A dependency store is fixed at its version: npm installing another left-pad in place
    // is not read into dep:npm:left-pad@1.3.0 (the run says why), and `deps` keeps it.
    let js = std::fs::read_to_string(app.join("node_modules/left-pad/index.js")).unwrap();
    write(&app, "node_modules/left-pad/package.json", r#"{"name": "left-pad", "version": "1.3.9"}"#);
    write(&app, "node_modules/left-pad/index.js", "function rightPadOnly(s) { return s; }\n");
    let idx = in_app(&lore, &app, &["--json", "index", "dep:npm:left-pad@1.3.0"]);
    assert!(idx.to_string().contains("now holds left-pad 1.3.9, not 1.3.0"), "{idx}");
    let hit = in_app(&lore, &app, &["--json", "search", "rightPadOnly", "--deps", "--mode", "fts"]);
    assert!(!hit.to_string().contains("function rightPadOnly"), "{hit}");
    assert!(hit["warnings"].to_string().contains("keeps 1.3.0 as it was indexed"), "{hit}");
    let kept = in_app(&lore, &app, &["--json", "deps"]);
    let pad = entry(&kept, "dep:npm:left-pad@1.3.0");
    assert_eq!(pad["status"], "present", "{kept}");
    assert!(pad["error"].as_str().unwrap().contains("now holds"), "{kept}");
    write(&app, "node_modules/left-pad/index.js", js);

    // The lockfile moves left-pad on: only that version is indexed, the old one dropped,
    // and gc removes it (no project uses it).
    lock_left_pad(&app, "1.3.1");
    let moved = in_app(&lore, &app, &["--json", "deps"]);
    assert_eq!(moved["indexed"], 1, "{moved}");
    assert_eq!(entry(&moved, "dep:npm:left-pad@1.3.1")["status"], "indexed");
    assert_eq!(moved["dropped"], serde_json::json!(["dep:npm:left-pad@1.3.0"]), "{moved}");
    let hit = in_app(&lore, &app, &["--json", "search", "leftPad", "--deps", "--mode", "fts"]);
    assert_eq!(hit["results"][0]["store"], "dep:npm:left-pad@1.3.1", "never another version: {hit}");
    let gc = in_app(&lore, &app, &["--json", "deps", "gc"]);
    assert_eq!(gc["stores"], serde_json::json!(["dep:npm:left-pad@1.3.0"]), "{gc}");
    let stores = lore.json(&["store", "list"]);
    assert!(!stores.to_string().contains("left-pad@1.3.0"), "{stores}");
}

/// Direct crates are those Cargo.lock's own packages depend on, at the version each asked
/// for (a transitive older `sha2` is not direct; a target-only `rustix` is); an npm package
/// nested under another (`debug/node_modules/ms`) is found where the lock puts it.
#[test]
fn direct_crates_by_version_and_nested_node_modules() {
    let lore = Lore::without_model();
    let app = lore.path("app");
    let registry = "registry+https://github.com/rust-lang/crates.io-index";
    write(&app, "Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\n");
    write(
        &app,
        "Cargo.lock",
        format!(
            "version = 4\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\n\
             dependencies = [\"rustix\", \"sha2 0.11.0\"]\n\n\
             [[package]]\nname = \"sha2\"\nversion = \"0.10.9\"\nsource = \"{registry}\"\n\n\
             [[package]]\nname = \"sha2\"\nversion = \"0.11.0\"\nsource = \"{registry}\"\n\n\
             [[package]]\nname = \"rustix\"\nversion = \"1.1.2\"\nsource = \"{registry}\"\n"
        ),
    );
    write(&app, "package.json", r#"{"name": "app", "dependencies": {"debug": "^4"}}"#);
    write(
        &app,
        "package-lock.json",
        r#"{"name": "app", "lockfileVersion": 3, "packages": {
            "": {"name": "app", "dependencies": {"debug": "^4"}},
            "node_modules/debug": {"version": "4.3.4"},
            "node_modules/debug/node_modules/ms": {"version": "2.1.2"},
            "node_modules/ms": {"version": "2.1.3"}}}"#,
    );
    for (dir, version, body) in [
        ("node_modules/debug", "4.3.4", "function createDebug(ns) { return ns; }\n"),
        ("node_modules/debug/node_modules/ms", "2.1.2", "function parseDuration(s) { return s; }\n"),
        ("node_modules/ms", "2.1.3", "function msNewer(s) { return s; }\n"),
    ] {
        let name = dir.rsplit('/').next().unwrap();
        write(&app, &format!("{dir}/package.json"), format!(r#"{{"name": "{name}", "version": "{version}"}}"#));
        write(&app, &format!("{dir}/index.js"), body);
    }
    let plan = in_app(&lore, &app, &["--json", "deps", "--dry-run", "--lockfile", "Cargo.lock"]);
    let taken: Vec<&str> = plan["deps"].as_array().unwrap().iter().map(|e| e["store"].as_str().unwrap()).collect();
    assert_eq!(taken, ["dep:cargo:rustix@1.1.2", "dep:cargo:sha2@0.11.0"], "{plan}");

    let r = in_app(&lore, &app, &["--json", "deps", "--all", "--lockfile", "package-lock.json"]);
    let nested = entry(&r, "dep:npm:ms@2.1.2");
    assert_eq!(nested["status"], "indexed", "{r}");
    assert!(nested["source"].as_str().unwrap().ends_with("node_modules/debug/node_modules/ms"), "{r}");
    assert_eq!(entry(&r, "dep:npm:ms@2.1.3")["status"], "indexed", "{r}");
    let hit = in_app(&lore, &app, &["--json", "search", "parseDuration", "--deps", "--mode", "fts"]);
    assert_eq!(hit["results"][0]["store"], "dep:npm:ms@2.1.2", "{hit}");
}

/// `--fetch`: a crate not on the machine is downloaded from the registry's URL (a local
/// server here, `LORE_CRATES_URL`), checked against Cargo.lock's SHA-256 and indexed; one
/// whose archive does not match is refused and nothing of it is kept.
#[test]
fn fetched_crates_are_verified_against_the_lockfile() {
    let lore = Lore::without_model();
    let app = lore.path("app");
    let served = lore.path("served");
    // Two archives as crates.io serves them: <name>-<version>/ inside a .crate (tar.gz).
    let script = format!(
        "import tarfile, io, hashlib, os\n\
         def crate(name, version, lib):\n\
         \x20   d = os.path.join({served:?}, 'crates', name)\n\
         \x20   os.makedirs(d, exist_ok=True)\n\
         \x20   path = os.path.join(d, f'{{name}}-{{version}}.crate')\n\
         \x20   with tarfile.open(path, 'w:gz') as t:\n\
         \x20       for rel, text in [('Cargo.toml', f'[package]\\nname = \"{{name}}\"\\nversion = \"{{version}}\"\\n'), ('src/lib.rs', lib)]:\n\
         \x20           data = text.encode()\n\
         \x20           info = tarfile.TarInfo(f'{{name}}-{{version}}/{{rel}}')\n\
         \x20           info.size = len(data)\n\
         \x20           t.addfile(info, io.BytesIO(data))\n\
         \x20   print(hashlib.sha256(open(path, 'rb').read()).hexdigest())\n\
         crate('mini', '1.0.0', '/// Squares a number the mini way.\\npub fn mini_square(x: u32) -> u32 {{ x * x }}\\n')\n\
         crate('bad', '2.0.0', 'pub fn bad() {{}}\\n')\n\
         import base64\n\
         def tgz(path, top, files):\n\
         \x20   with tarfile.open(path, 'w:gz') as t:\n\
         \x20       for rel, text in files:\n\
         \x20           data = text.encode()\n\
         \x20           info = tarfile.TarInfo(top + '/' + rel)\n\
         \x20           info.size = len(data)\n\
         \x20           t.addfile(info, io.BytesIO(data))\n\
         \x20   return open(path, 'rb').read()\n\
         npm = tgz(os.path.join({served:?}, 'tiny-npm-3.0.0.tgz'), 'package', [('package.json', '{{\"name\": \"tiny-npm\", \"version\": \"3.0.0\"}}'), ('index.js', 'function npmTwirl(x) {{ return x; }}\\n')])\n\
         print('sha512-' + base64.b64encode(hashlib.sha512(npm).digest()).decode())\n\
         sd = tgz(os.path.join({served:?}, 'tinysd-0.1.0.tar.gz'), 'tinysd-0.1.0', [('tinysd/__init__.py', 'def sdist_whirl():\\n    return 1\\n')])\n\
         print('sha256:' + hashlib.sha256(sd).hexdigest())\n\
         import zipfile\n\
         d = os.path.join({served:?}, 'example.com', '!tiny', '@v')\n\
         os.makedirs(d, exist_ok=True)\n\
         files = [('example.com/Tiny@v1.0.0/go.mod', 'module example.com/Tiny\\n'), ('example.com/Tiny@v1.0.0/tiny.go', 'package tiny\\n\\nfunc GoSpindle() int {{ return 1 }}\\n')]\n\
         with zipfile.ZipFile(os.path.join(d, 'v1.0.0.zip'), 'w') as z:\n\
         \x20   for n, t in files: z.writestr(n, t)\n\
         summary = ''.join(hashlib.sha256(t.encode()).hexdigest() + '  ' + n + '\\n' for n, t in sorted(files))\n\
         print('h1:' + base64.b64encode(hashlib.sha256(summary.encode()).digest()).decode())\n",
        served = served.display().to_string()
    );
    let out = run_command(Command::new("python3").args(["-c", &script]), Duration::from_secs(60));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let sums: Vec<&str> = out.stdout.lines().collect();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let mut server = Command::new("python3")
        .args(["-m", "http.server", "--bind", "127.0.0.1", &port.to_string(), "--directory"])
        .arg(&served)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3 -m http.server");
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(started.elapsed() < Duration::from_secs(30), "http.server did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    write(
        &app,
        "Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dependencies]\nmini = \"1\"\nbad = \"2\"\n",
    );
    let registry = "registry+https://github.com/rust-lang/crates.io-index";
    write(
        &app,
        "Cargo.lock",
        format!(
            "version = 4\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\"bad\", \"mini\"]\n\n\
             [[package]]\nname = \"mini\"\nversion = \"1.0.0\"\nsource = \"{registry}\"\nchecksum = \"{}\"\n\n\
             [[package]]\nname = \"bad\"\nversion = \"2.0.0\"\nsource = \"{registry}\"\nchecksum = \"{}\"\n",
            sums[0],
            "0".repeat(64)
        ),
    );
    write(
        &app,
        "package.json",
        r#"{"name": "app", "dependencies": {"tiny-npm": "^3"}}"#,
    );
    write(
        &app,
        "package-lock.json",
        format!(
            r#"{{"lockfileVersion": 3, "packages": {{"": {{"dependencies": {{"tiny-npm": "^3"}}}},
                "node_modules/tiny-npm": {{"version": "3.0.0",
                  "resolved": "http://127.0.0.1:{port}/tiny-npm-3.0.0.tgz", "integrity": "{}"}}}}}}"#,
            sums[2]
        ),
    );
    write(&app, "pyproject.toml", "[project]\nname = \"app\"\ndependencies = [\"tinysd>=0.1\"]\n");
    write(
        &app,
        "uv.lock",
        format!(
            "version = 1\n\n[[package]]\nname = \"tinysd\"\nversion = \"0.1.0\"\n\
             sdist = {{ url = \"http://127.0.0.1:{port}/tinysd-0.1.0.tar.gz\", hash = \"{}\" }}\n",
            sums[3]
        ),
    );
    write(&app, "go.mod", "module app\n\nrequire example.com/Tiny v1.0.0\n");
    write(
        &app,
        "go.sum",
        format!(
            "example.com/Tiny v1.0.0 {}\nexample.com/Tiny v1.0.0/go.mod h1:ignored=\n",
            sums[4]
        ),
    );
    let empty_home = lore.path("cargo-home");
    std::fs::create_dir_all(&empty_home).unwrap();
    let run = |args: &[&str]| {
        let mut cmd = lore.command(args);
        cmd.current_dir(&app)
            .env("CARGO_HOME", &empty_home)
            .env("LORE_CRATES_URL", format!("http://127.0.0.1:{port}/crates"))
            .env("GOPROXY", format!("http://127.0.0.1:{port},direct"))
            .env("GOMODCACHE", lore.path("no-go-cache"));
        let out = run_command(&mut cmd, Duration::from_secs(120));
        assert_eq!(out.code, 0, "lore {args:?}: {}", out.stderr);
        serde_json::from_str::<Value>(&out.stdout).unwrap()
    };

    let local = run(&["--json", "deps"]);
    assert_eq!(local["not_found"], 5, "not on the machine, not fetched: {local}");
    let r = run(&["--json", "deps", "--fetch"]);
    let _ = server.kill();
    let _ = server.wait();
    let mini = entry(&r, "dep:cargo:mini@1.0.0");
    assert_eq!(mini["status"], "fetched", "{r}");
    assert_eq!(mini["files"], 2, "{r}");
    let bad = entry(&r, "dep:cargo:bad@2.0.0");
    assert_eq!(bad["status"], "fetch_failed", "{r}");
    assert!(bad["error"].as_str().unwrap().contains("SHA-256"), "{bad}");
    let kept = lore.data().join("deps/src/cargo");
    let mut left: Vec<String> = std::fs::read_dir(&kept)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    left.sort();
    assert_eq!(left, ["mini-1.0.0"], "nothing of the refused archive, no temp folder");
    let hit = run(&["--json", "search", "mini_square", "--deps", "--mode", "fts"]);
    assert_eq!(hit["results"][0]["store"], "dep:cargo:mini@1.0.0", "{hit}");
    // An npm tarball checked against its sha512 integrity, a uv sdist against its sha256.
    assert_eq!(entry(&r, "dep:npm:tiny-npm@3.0.0")["status"], "fetched", "{r}");
    assert_eq!(entry(&r, "dep:python:tinysd@0.1.0")["status"], "fetched", "{r}");
    let hit = run(&["--json", "search", "npmTwirl", "--deps", "--mode", "fts"]);
    assert_eq!(hit["results"][0]["version"], "3.0.0", "{hit}");
    let hit = run(&["--json", "search", "sdist_whirl", "--deps", "--mode", "fts"]);
    assert_eq!(hit["results"][0]["package"], "tinysd", "{hit}");
    // A Go module zip from the proxy, checked against go.sum's h1: digest of its files.
    assert_eq!(entry(&r, "dep:go:example.com+Tiny@v1.0.0")["status"], "fetched", "{r}");
    let hit = run(&["--json", "search", "GoSpindle", "--deps", "--mode", "fts"]);
    assert_eq!(hit["results"][0]["package"], "example.com/Tiny", "{hit}");
}
