use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// Neither an endpoint nor a command is configured.
    #[error("no LLM configured: set LORE_LLM_URL and LORE_LLM_MODEL, or {command_hint}")]
    NotConfigured { command_hint: String },
    /// Part of the configuration is there, part is missing or wrong.
    #[error("{0}")]
    Config(String),
    #[error("the LLM did not answer within {}s", .0.as_secs_f64())]
    Timeout(Duration),
    /// The endpoint could not be reached or the connection broke.
    #[error("cannot reach the LLM at {url}: {message}")]
    Transport { url: String, message: String },
    /// The endpoint answered with an HTTP error status.
    #[error("the LLM endpoint {url} answered HTTP {status}: {body}")]
    Status {
        url: String,
        status: u16,
        body: String,
    },
    /// The endpoint answered 2xx, but not in the chat-completions shape.
    #[error("the LLM endpoint {url} gave an unexpected answer: {message}")]
    BadResponse { url: String, message: String },
    /// The command could not be started (not found, not executable).
    #[error("cannot run the LLM command `{command}`: {source}")]
    CommandSpawn {
        command: String,
        #[source]
        source: std::io::Error,
    },
    /// The command ran but failed.
    #[error("the LLM command `{command}` failed ({status}): {stderr}")]
    CommandFailed {
        command: String,
        status: String,
        /// The exit code, when it exited.
        code: Option<i32>,
        stderr: String,
    },
    /// The answer holds no JSON, or JSON that does not fit what was asked.
    #[error("{0}")]
    InvalidAnswer(String),
    /// Retries ran out; `last` is the last attempt's error.
    #[error("{last} (gave up after {attempts} attempts)")]
    Exhausted { attempts: u32, last: Box<LlmError> },
}

impl LlmError {
    /// An error that no retry and no other prompt can fix: the configuration, the
    /// credentials or the command itself is wrong. Callers should stop, not go on with
    /// the next prompt.
    pub fn is_fatal(&self) -> bool {
        match self {
            LlmError::NotConfigured { .. }
            | LlmError::Config(_)
            | LlmError::CommandSpawn { .. } => true,
            // Wrong key, no such model or path.
            LlmError::Status { status, .. } => matches!(status, 401 | 403 | 404),
            // The shell's "not executable" and "not found".
            LlmError::CommandFailed { code, .. } => matches!(code, Some(126 | 127)),
            LlmError::Exhausted { last, .. } => last.is_fatal(),
            _ => false,
        }
    }

    /// The endpoint could not be reached at all (refused, no route, a name that does not
    /// resolve), on the last attempt when retries ran out.
    pub fn is_unreachable(&self) -> bool {
        match self {
            LlmError::Transport { .. } => true,
            LlmError::Exhausted { last, .. } => last.is_unreachable(),
            _ => false,
        }
    }

    /// An error worth another attempt with the same prompt (the network, a busy server).
    pub(crate) fn is_transient(&self) -> bool {
        match self {
            LlmError::Timeout(_)
            | LlmError::Transport { .. }
            | LlmError::BadResponse { .. }
            | LlmError::CommandFailed { .. } => true,
            LlmError::Status { status, .. } => matches!(status, 408 | 409 | 429 | 500..=599),
            _ => false,
        }
    }

    /// The number of attempts made when retries ran out, else 1.
    pub fn attempts(&self) -> u32 {
        match self {
            LlmError::Exhausted { attempts, .. } => *attempts,
            _ => 1,
        }
    }
}

/// At most `max` characters of `s` on one line, for error messages.
pub(crate) fn one_line_prefix(s: &str, max: usize) -> String {
    let flat: String = s
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(max + 1)
        .collect();
    if flat.chars().count() > max {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    } else {
        flat
    }
}
