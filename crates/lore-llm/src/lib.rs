//! The LLM client of lore (the search-quality judge today, ingestion later). Two backends:
//!
//! - an OpenAI-compatible chat-completions endpoint: `LORE_LLM_URL` is the API's base URL
//!   (e.g. `http://127.0.0.1:8080/v1`; requests go to `{url}/chat/completions`),
//!   `LORE_LLM_MODEL` the model name, `LORE_LLM_API_KEY` an optional bearer token;
//! - a command, run through the shell (`sh -c COMMAND`): the prompt is written to its
//!   **standard input**, its standard output is the answer. It is killed (with every process
//!   it started) when it runs past the timeout.
//!
//! [`LlmClient::complete`] sends one prompt; [`ask_json`] asks for a JSON value of a type,
//! validates it, and on invalid output retries with the validation error appended to the
//! conversation.

mod command;
mod error;
#[cfg(any(test, feature = "fake-server"))]
pub mod fake_server;
mod http;
mod json;

pub use error::LlmError;
pub use json::{JsonAnswer, JsonValues, RETRY_PAUSE, ask_json, extract_json, json_values};

use std::time::Duration;

/// Base URL of an OpenAI-compatible API.
pub const ENV_URL: &str = "LORE_LLM_URL";
/// Model name sent with every request.
pub const ENV_MODEL: &str = "LORE_LLM_MODEL";
/// Optional bearer token.
pub const ENV_API_KEY: &str = "LORE_LLM_API_KEY";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One turn of a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Message {
        Message {
            role: Role::System,
            content: content.into(),
        }
    }
    pub fn user(content: impl Into<String>) -> Message {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }
    pub fn assistant(content: impl Into<String>) -> Message {
        Message {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// Where prompts go.
#[derive(Clone, PartialEq, Eq)]
pub enum Backend {
    /// An OpenAI-compatible API: `POST {url}/chat/completions`.
    Endpoint {
        url: String,
        model: String,
        api_key: Option<String>,
    },
    /// A shell command: prompt on stdin, answer on stdout.
    Command { command: String },
}

impl std::fmt::Debug for Backend {
    // Never prints the API key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Backend::Endpoint {
                url,
                model,
                api_key,
            } => f
                .debug_struct("Endpoint")
                .field("url", url)
                .field("model", model)
                .field("api_key", &api_key.as_ref().map(|_| "<set>"))
                .finish(),
            Backend::Command { command } => {
                f.debug_struct("Command").field("command", command).finish()
            }
        }
    }
}

impl Backend {
    /// One line saying what answers (no secrets): `model M at URL` or `command `C``.
    pub fn describe(&self) -> String {
        match self {
            Backend::Endpoint { url, model, .. } => format!("model {model} at {url}"),
            Backend::Command { command } => format!("command `{command}`"),
        }
    }
}

/// What may configure a backend; each field unset or empty counts as absent.
#[derive(Debug, Clone, Default)]
pub struct LlmSettings {
    pub command: Option<String>,
    pub url: Option<String>,
    pub model: Option<String>,
    pub api_key: Option<String>,
}

fn given(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

impl LlmSettings {
    /// `LORE_LLM_URL`, `LORE_LLM_MODEL` and `LORE_LLM_API_KEY` from the environment.
    pub fn from_env() -> LlmSettings {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        LlmSettings {
            command: None,
            url: var(ENV_URL),
            model: var(ENV_MODEL),
            api_key: var(ENV_API_KEY),
        }
    }

    /// The backend these settings name: a command when one is given, else the endpoint.
    /// `command_hint` completes the error when nothing is configured (e.g. "pass
    /// --judge-cmd").
    pub fn backend(&self, command_hint: &str) -> Result<Backend, LlmError> {
        if let Some(command) = given(&self.command) {
            return Ok(Backend::Command {
                command: command.to_string(),
            });
        }
        match (given(&self.url), given(&self.model)) {
            (Some(url), Some(model)) => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(LlmError::Config(format!(
                        "{ENV_URL} must be an http:// or https:// URL (the API's base, e.g. \
                         http://127.0.0.1:8080/v1), not {url:?}"
                    )));
                }
                Ok(Backend::Endpoint {
                    url: url.trim_end_matches('/').to_string(),
                    model: model.to_string(),
                    api_key: given(&self.api_key).map(String::from),
                })
            }
            (Some(_), None) => Err(LlmError::Config(format!(
                "{ENV_URL} is set but {ENV_MODEL} is not; set the model name too, or {command_hint}"
            ))),
            (None, Some(_)) => Err(LlmError::Config(format!(
                "{ENV_MODEL} is set but {ENV_URL} is not; set the API's base URL too, or {command_hint}"
            ))),
            (None, None) => Err(LlmError::NotConfigured {
                command_hint: command_hint.to_string(),
            }),
        }
    }
}

/// Sends prompts to a [`Backend`] with a timeout per call.
#[derive(Clone)]
pub struct LlmClient {
    backend: Backend,
    timeout: Duration,
    temperature: Option<f32>,
    agent: ureq::Agent,
}

impl std::fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmClient")
            .field("backend", &self.backend)
            .field("timeout", &self.timeout)
            .field("temperature", &self.temperature)
            .finish()
    }
}

impl LlmClient {
    /// A client whose every call (one request, or one run of the command) ends within
    /// `timeout`.
    pub fn new(backend: Backend, timeout: Duration) -> LlmClient {
        let agent = http::agent(timeout);
        LlmClient {
            backend,
            timeout,
            temperature: None,
            agent,
        }
    }

    /// The sampling temperature sent to an endpoint (none: the server's default). Commands
    /// ignore it.
    pub fn with_temperature(mut self, temperature: Option<f32>) -> LlmClient {
        self.temperature = temperature;
        self
    }

    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// One prompt, one answer.
    pub fn complete(&self, system: &str, user: &str) -> Result<String, LlmError> {
        self.chat(&[Message::system(system), Message::user(user)])
    }

    /// The answer to a conversation. A command gets the conversation as one text (see
    /// [`render_conversation`]).
    pub fn chat(&self, messages: &[Message]) -> Result<String, LlmError> {
        match &self.backend {
            Backend::Endpoint {
                url,
                model,
                api_key,
            } => http::chat(
                &self.agent,
                url,
                model,
                api_key.as_deref(),
                self.temperature,
                self.timeout,
                messages,
            ),
            Backend::Command { command } => {
                command::run(command, &render_conversation(messages), self.timeout)
            }
        }
    }
}

/// A conversation as one prompt text, for backends that take a single prompt: the system
/// text, then each turn; earlier answers are marked as such.
pub fn render_conversation(messages: &[Message]) -> String {
    let mut out = String::new();
    for m in messages {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        match m.role {
            Role::System | Role::User => out.push_str(m.content.trim_end()),
            Role::Assistant => {
                out.push_str("Your previous answer was:\n<<<\n");
                out.push_str(m.content.trim_end());
                out.push_str("\n>>>");
            }
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_choice_and_errors() {
        let s = LlmSettings::default();
        let e = s.backend("pass --judge-cmd").unwrap_err();
        assert_eq!(
            e.to_string(),
            "no LLM configured: set LORE_LLM_URL and LORE_LLM_MODEL, or pass --judge-cmd"
        );
        assert!(e.is_fatal());

        let s = LlmSettings {
            url: Some("http://127.0.0.1:8080/v1/".into()),
            model: Some("m".into()),
            api_key: Some("secret".into()),
            ..Default::default()
        };
        let b = s.backend("x").unwrap();
        assert_eq!(
            b,
            Backend::Endpoint {
                url: "http://127.0.0.1:8080/v1".into(),
                model: "m".into(),
                api_key: Some("secret".into())
            }
        );
        assert!(!format!("{b:?}").contains("secret"));
        assert_eq!(b.describe(), "model m at http://127.0.0.1:8080/v1");

        // A command wins over an endpoint.
        let s = LlmSettings {
            command: Some("my-llm --json".into()),
            ..s
        };
        assert_eq!(
            s.backend("x").unwrap().describe(),
            "command `my-llm --json`"
        );

        let s = LlmSettings {
            url: Some("http://h/v1".into()),
            command: Some("  ".into()),
            ..Default::default()
        };
        let e = s.backend("pass --judge-cmd").unwrap_err().to_string();
        assert!(e.contains("LORE_LLM_MODEL is set") || e.contains("LORE_LLM_URL is set"));
        let s = LlmSettings {
            url: Some("127.0.0.1:8080".into()),
            model: Some("m".into()),
            ..Default::default()
        };
        assert!(s.backend("x").unwrap_err().to_string().contains("http://"));
    }

    #[test]
    fn conversation_text() {
        let text = render_conversation(&[
            Message::system("sys"),
            Message::user("q"),
            Message::assistant("bad"),
            Message::user("fix it"),
        ]);
        assert_eq!(
            text,
            "sys\n\nq\n\nYour previous answer was:\n<<<\nbad\n>>>\n\nfix it\n"
        );
    }
}
