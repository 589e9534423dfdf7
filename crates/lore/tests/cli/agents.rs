//! `lore mcp install`: each client's file written in the shape it reads, other entries
//! kept, a file that does not parse left untouched, `--print` writing nothing.

use crate::common::{Lore, run_command, write};
use serde_json::Value;
use std::time::Duration;

#[test]
fn mcp_install_writes_each_clients_file() {
    let lore = Lore::without_model();
    let proj = lore.path("proj");
    write(
        &proj,
        ".cursor/mcp.json",
        r#"{"mcpServers": {"other": {"command": "x"}}}"#,
    );
    let p = proj.to_str().unwrap();
    let read = |rel: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(proj.join(rel)).unwrap()).unwrap()
    };

    lore.ok(&["mcp", "install", "--client", "claude-code", "--project", p]);
    let v = read(".mcp.json");
    assert_eq!(
        v["mcpServers"]["lore"]["args"],
        serde_json::json!(["mcp"]),
        "{v}"
    );
    let exe = v["mcpServers"]["lore"]["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(std::path::Path::new(&exe).is_file(), "{exe}");
    // The command it wrote starts an MCP server that answers.
    let mut check = std::process::Command::new(&exe);
    check.args(["--version"]);
    assert_eq!(run_command(&mut check, Duration::from_secs(30)).code, 0);

    lore.ok(&["mcp", "install", "--client", "cursor", "--project", p]);
    let v = read(".cursor/mcp.json");
    assert_eq!(v["mcpServers"]["other"]["command"], "x", "kept: {v}");
    assert_eq!(v["mcpServers"]["lore"]["command"], exe.as_str());

    let url = "http://127.0.0.1:7411/mcp";
    lore.ok(&[
        "mcp",
        "install",
        "--client",
        "vscode",
        "--project",
        p,
        "--http",
        url,
        "--token-env",
        "LORE_TOKEN",
    ]);
    let v = read(".vscode/mcp.json");
    assert_eq!(v["servers"]["lore"]["type"], "http", "{v}");
    assert_eq!(v["servers"]["lore"]["url"], url);
    assert_eq!(v["inputs"][0]["password"], true, "{v}");

    lore.ok(&["mcp", "install", "--client", "gemini", "--project", p]);
    assert!(read(".gemini/settings.json")["mcpServers"]["lore"].is_object());

    // Codex's TOML, in CODEX_HOME.
    let codex = lore.path("codex");
    write(&codex, "config.toml", "model = \"o3\"\n");
    let mut cmd = lore.command(&["mcp", "install", "--client", "codex"]);
    cmd.env("CODEX_HOME", &codex);
    assert_eq!(run_command(&mut cmd, Duration::from_secs(30)).code, 0);
    let text = std::fs::read_to_string(codex.join("config.toml")).unwrap();
    assert!(
        text.starts_with("model = \"o3\"\n\n[mcp_servers.lore]\ncommand = "),
        "{text}"
    );
    let mut again = lore.command(&["mcp", "install", "--client", "codex"]);
    again.env("CODEX_HOME", &codex);
    let out = run_command(&mut again, Duration::from_secs(30));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("already has [mcp_servers.lore]"),
        "{}",
        out.stderr
    );

    // A file that is not JSON is left as it is; --print writes nothing.
    write(&proj, ".gemini/settings.json", "{ not json");
    let out = lore.run(&["mcp", "install", "--client", "gemini", "--project", p]);
    assert_ne!(out.code, 0);
    assert!(
        out.stderr.contains("not valid JSON; left as it is"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read_to_string(proj.join(".gemini/settings.json")).unwrap(),
        "{ not json"
    );
    let printed = lore.ok(&[
        "mcp",
        "install",
        "--client",
        "claude-code",
        "--print",
        "--project",
        lore.path("empty").to_str().unwrap(),
    ]);
    assert!(printed.contains("\"mcpServers\""), "{printed}");
    assert!(!lore.path("empty").exists());
}
