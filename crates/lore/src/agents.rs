//! `lore mcp install`: registers lore with an agent client, in the file and the shape that
//! client reads — stdio (the client starts `lore mcp` in the project) or HTTP (a running
//! `lore serve`, its token taken from the environment, never written into the file). An
//! existing file keeps every other entry; one that does not parse is left untouched.

use anyhow::{Context, bail};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The clients lore can register with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    /// Claude Code: `.mcp.json` in the project.
    ClaudeCode,
    /// Cursor: `.cursor/mcp.json` in the project.
    Cursor,
    /// VS Code (Copilot agent mode): `.vscode/mcp.json` in the project.
    Vscode,
    /// Gemini CLI: `.gemini/settings.json` in the project.
    Gemini,
    /// OpenAI Codex CLI: `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`).
    Codex,
}

/// How the client reaches lore.
pub enum Transport {
    /// The client runs `EXE mcp`.
    Stdio { exe: String },
    /// A `lore serve` at `url` (ending in `/mcp`); the bearer token, when the server needs
    /// one, from the environment variable `token_env`.
    Http {
        url: String,
        token_env: Option<String>,
    },
}

/// Where `client`'s configuration lives, for a project at `project`.
pub fn config_path(client: Client, project: &Path) -> anyhow::Result<PathBuf> {
    Ok(match client {
        Client::ClaudeCode => project.join(".mcp.json"),
        Client::Cursor => project.join(".cursor/mcp.json"),
        Client::Vscode => project.join(".vscode/mcp.json"),
        Client::Gemini => project.join(".gemini/settings.json"),
        Client::Codex => match std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty()) {
            Some(home) => PathBuf::from(home).join("config.toml"),
            None => PathBuf::from(std::env::var_os("HOME").context("HOME is not set")?)
                .join(".codex/config.toml"),
        },
    })
}

/// The `lore` entry for a JSON client.
fn json_entry(client: Client, t: &Transport) -> Value {
    match t {
        Transport::Stdio { exe } => match client {
            Client::Vscode => json!({"type": "stdio", "command": exe, "args": ["mcp"]}),
            _ => json!({"command": exe, "args": ["mcp"]}),
        },
        Transport::Http { url, token_env } => {
            // Each client's own way of reading a variable from the environment.
            let bearer = token_env.as_ref().map(|v| match client {
                Client::ClaudeCode => format!("Bearer ${{{v}}}"),
                Client::Cursor => format!("Bearer ${{env:{v}}}"),
                Client::Vscode => "Bearer ${input:lore-token}".to_string(),
                Client::Gemini | Client::Codex => format!("Bearer ${v}"),
            });
            let mut entry = Map::new();
            match client {
                Client::ClaudeCode | Client::Vscode => {
                    entry.insert("type".into(), json!("http"));
                    entry.insert("url".into(), json!(url));
                }
                Client::Gemini => {
                    entry.insert("httpUrl".into(), json!(url));
                }
                Client::Cursor | Client::Codex => {
                    entry.insert("url".into(), json!(url));
                }
            }
            if let Some(b) = bearer {
                entry.insert("headers".into(), json!({"Authorization": b}));
            }
            Value::Object(entry)
        }
    }
}

/// The `[mcp_servers.lore]` table for Codex.
fn codex_table(t: &Transport) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    match t {
        Transport::Stdio { exe } => {
            format!(
                "[mcp_servers.lore]\ncommand = {}\nargs = [\"mcp\"]\n",
                q(exe)
            )
        }
        Transport::Http { url, token_env } => {
            let mut s = format!("[mcp_servers.lore]\nurl = {}\n", q(url));
            if let Some(v) = token_env {
                s.push_str(&format!("bearer_token_env_var = {}\n", q(v)));
            }
            s
        }
    }
}

/// `text` with lore registered for `client`: the whole new file. `existing` is the file as
/// it is (`None`: there is none).
pub fn registered(client: Client, t: &Transport, existing: Option<&str>) -> anyhow::Result<String> {
    if client == Client::Codex {
        let mut text = existing.unwrap_or_default().to_string();
        if text.lines().any(|l| l.trim() == "[mcp_servers.lore]") {
            bail!(
                "it already has [mcp_servers.lore]; remove that table to register lore again \
                 (or use --print)"
            );
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&codex_table(t));
        return Ok(text);
    }
    let mut doc: Value = match existing.filter(|t| !t.trim().is_empty()) {
        Some(text) => serde_json::from_str(text).context("it is not valid JSON; left as it is")?,
        None => json!({}),
    };
    let Some(root) = doc.as_object_mut() else {
        bail!("it is not a JSON object; left as it is");
    };
    let key = if client == Client::Vscode {
        "servers"
    } else {
        "mcpServers"
    };
    let servers = root.entry(key).or_insert_with(|| json!({}));
    let Some(servers) = servers.as_object_mut() else {
        bail!("its {key:?} is not an object; left as it is");
    };
    servers.insert("lore".into(), json_entry(client, t));
    if client == Client::Vscode
        && let Transport::Http {
            token_env: Some(_), ..
        } = t
    {
        let inputs = root.entry("inputs").or_insert_with(|| json!([]));
        if let Some(list) = inputs.as_array_mut()
            && !list.iter().any(|i| i["id"] == "lore-token")
        {
            list.push(json!({"type": "promptString", "id": "lore-token",
                             "description": "lore's bearer token (LORE_TOKEN)", "password": true}));
        }
    }
    Ok(serde_json::to_string_pretty(&doc)? + "\n")
}

/// Writes `text` to `path` whole: a new temp file beside it (never an existing file or a
/// link a checkout placed there), renamed over it.
pub fn write_whole(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("config");
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
        .and_then(|_| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        bail!("cannot write {}: {e}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio() -> Transport {
        Transport::Stdio {
            exe: "/usr/bin/lore".into(),
        }
    }

    #[test]
    fn each_client_gets_its_own_shape_and_keeps_other_entries() {
        let other = r#"{"mcpServers": {"other": {"command": "x"}}, "theme": "dark"}"#;
        let text = registered(Client::ClaudeCode, &stdio(), Some(other)).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["mcpServers"]["other"]["command"], "x");
        assert_eq!(v["mcpServers"]["lore"]["args"], json!(["mcp"]));
        assert_eq!(v["theme"], "dark");

        let v: Value =
            serde_json::from_str(&registered(Client::Vscode, &stdio(), None).unwrap()).unwrap();
        assert_eq!(v["servers"]["lore"]["type"], "stdio");

        let http = Transport::Http {
            url: "http://127.0.0.1:7411/mcp".into(),
            token_env: Some("LORE_TOKEN".into()),
        };
        let v: Value =
            serde_json::from_str(&registered(Client::Vscode, &http, None).unwrap()).unwrap();
        assert_eq!(
            v["servers"]["lore"]["headers"]["Authorization"],
            "Bearer ${input:lore-token}"
        );
        assert_eq!(v["inputs"][0]["id"], "lore-token");
        let v: Value =
            serde_json::from_str(&registered(Client::Cursor, &http, None).unwrap()).unwrap();
        assert_eq!(
            v["mcpServers"]["lore"]["headers"]["Authorization"],
            "Bearer ${env:LORE_TOKEN}"
        );
        let v: Value =
            serde_json::from_str(&registered(Client::Gemini, &http, None).unwrap()).unwrap();
        assert_eq!(
            v["mcpServers"]["lore"]["httpUrl"],
            "http://127.0.0.1:7411/mcp"
        );

        let toml = registered(Client::Codex, &http, Some("model = \"o3\"")).unwrap();
        assert_eq!(
            toml,
            "model = \"o3\"\n\n[mcp_servers.lore]\nurl = \"http://127.0.0.1:7411/mcp\"\n\
             bearer_token_env_var = \"LORE_TOKEN\"\n"
        );
        assert!(registered(Client::Codex, &stdio(), Some(&toml)).is_err());
        assert!(registered(Client::Cursor, &stdio(), Some("{not json")).is_err());
        assert!(registered(Client::Cursor, &stdio(), Some("[1]")).is_err());
    }
}
