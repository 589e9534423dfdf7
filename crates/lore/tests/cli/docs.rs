//! The README and docs/ stay true: every relative link resolves, and every `lore` command
//! the README shows in a code block is one the binary has.

use crate::common::Lore;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The relative link targets of a markdown file (`](target)`, anchors dropped).
fn links(text: &str) -> Vec<String> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(|t| t.split('#').next().unwrap_or("").to_string())
        .filter(|t| !t.is_empty() && !t.contains("://") && !t.starts_with("mailto:"))
        .collect()
}

#[test]
fn readme_and_docs_links_resolve_and_commands_exist() {
    let root = repo();
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p);
        }
    }
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for target in links(&text) {
            let at = file.parent().unwrap().join(&target);
            assert!(
                at.exists(),
                "{}: link {target} leads nowhere",
                file.display()
            );
        }
    }

    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let lore = Lore::without_model();
    let mut in_block = false;
    let mut checked = 0;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        let Some(rest) = line.trim().strip_prefix("lore ").filter(|_| in_block) else {
            continue;
        };
        // The subcommand and, for those with their own, the sub-subcommand.
        let words: Vec<&str> = rest
            .split_whitespace()
            .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
            .take(2)
            .collect();
        let mut args = words.clone();
        args.push("--help");
        let out = lore.run(&args);
        let ok = out.code == 0 || (words.len() == 2 && lore.run(&[words[0], "--help"]).code == 0);
        assert!(
            ok,
            "README shows `lore {rest}`, which the binary does not know: {}",
            out.stderr
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} commands found in the README");
}

/// The Kubernetes manifests in `deploy/kubernetes/` are valid objects of the Kubernetes API
/// (checked by `kubernetes-validate --strict`, which `.ci/run` installs from PyPI into its
/// virtual environment beside `$LORE_PYTHON`: no cluster needed), and every container runs
/// a `lore` command the binary has, with flags it takes.
#[test]
fn kubernetes_manifests_validate_and_run_real_commands() {
    let python = crate::common::serve::python();
    let validator = Path::new(&python).with_file_name("kubernetes-validate");
    if !validator.is_file() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but {} is missing: pip install kubernetes-validate",
            validator.display()
        );
        eprintln!("skipping: kubernetes-validate is not installed beside {python}");
        return;
    }
    let dir = repo().join("deploy/kubernetes");
    let mut manifests: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    manifests.sort();
    assert!(manifests.len() >= 3, "{manifests:?}");
    let out = crate::common::run_command(
        std::process::Command::new(&validator)
            .arg("--strict")
            .args(&manifests),
        std::time::Duration::from_secs(120),
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(
        out.stdout.matches(" passed for resource ").count()
            + out.stderr.matches(" passed for resource ").count(),
        4,
        "{out:?}"
    );

    // Each container's args (PyYAML comes with the validator), run with --help.
    let script = "import sys, json, yaml\n\
                  for path in sys.argv[1:]:\n\
                  \x20   for doc in yaml.safe_load_all(open(path)):\n\
                  \x20       spec = doc['spec'].get('template', {}).get('spec', {})\n\
                  \x20       for c in spec.get('initContainers', []) + spec.get('containers', []):\n\
                  \x20           print(json.dumps(c['args']))\n";
    let out = crate::common::run_command(
        std::process::Command::new(&python)
            .args(["-c", script])
            .args(&manifests),
        std::time::Duration::from_secs(60),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lore = Lore::without_model();
    let mut checked = 0;
    for line in out.stdout.lines() {
        let args: Vec<String> = serde_json::from_str(line).unwrap();
        // The subcommand words, then every flag with its value: `--help` after them
        // checks that clap knows each one.
        let mut cmd: Vec<&str> = args.iter().map(String::as_str).collect();
        cmd.push("--help");
        let run = lore.run(&cmd);
        assert_eq!(
            run.code,
            0,
            "deploy/kubernetes runs `lore {}`: {}",
            args.join(" "),
            run.stderr
        );
        checked += 1;
    }
    assert_eq!(checked, 5, "{}", out.stdout);
}

/// The reference cannot drift from the code: every REST route of the OpenAPI document the
/// server serves, every MCP tool `lore mcp` lists and every `lore` subcommand is named in
/// the docs (README.md or docs/).
#[test]
fn every_route_tool_and_command_is_documented() {
    let root = repo();
    let mut docs = std::fs::read_to_string(root.join("README.md")).unwrap();
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            docs.push_str(&std::fs::read_to_string(p).unwrap());
        }
    }
    let openapi: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("crates/lore-server/src/openapi.json")).unwrap(),
    )
    .unwrap();
    let mut missing = Vec::new();
    for path in openapi["paths"].as_object().unwrap().keys() {
        if !docs.contains(&format!("{path}`"))
            && !docs.contains(&format!("{path}["))
            && !docs.contains(&format!("{path}?"))
        {
            missing.push(format!("route {path}"));
        }
    }
    // The tools as an MCP client lists them.
    let lore = Lore::without_model();
    let mut child = lore
        .command(&["mcp"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    use std::io::{BufRead, Write};
    for msg in [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut tools = Vec::new();
    for line in stdout.lines().map_while(Result::ok) {
        let msg: serde_json::Value = serde_json::from_str(&line).unwrap();
        if msg["id"] == 2 {
            tools = msg["result"]["tools"].as_array().unwrap().clone();
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    assert!(tools.len() >= 10, "{tools:?}");
    for t in &tools {
        let name = t["name"].as_str().unwrap();
        if !docs.contains(&format!("`{name}`")) && !docs.contains(&format!("`{name} ")) {
            missing.push(format!("MCP tool {name}"));
        }
    }
    // The subcommands `lore --help` lists.
    let help = lore.ok(&["--help"]);
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 15, "{help}");
    for c in commands {
        if !docs.contains(&format!("lore {c}")) {
            missing.push(format!("command lore {c}"));
        }
    }
    assert!(missing.is_empty(), "not in README.md or docs/: {missing:?}");
}
