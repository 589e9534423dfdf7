//! What shapes a run: [`JudgeSettings`] from defaults, then a TOML config file (flags are
//! applied over them by the caller).

use super::JudgeError;
use lore_engine::{Detail, Mode};
use lore_llm::{LlmClient, LlmSettings};
use serde::Deserialize;
use std::path::Path;
use std::time::Duration;

/// Everything that shapes a run. Defaults: 15 queries, limit 10, hybrid, all stores,
/// 3 retries, 60 s per LLM call, minimal detail, intents inferred, the LLM from the
/// environment.
#[derive(Debug, Clone)]
pub struct JudgeSettings {
    pub query_count: usize,
    pub search_limit: usize,
    pub mode: Mode,
    /// Store names; empty means all stores.
    pub stores: Vec<String>,
    pub max_retries: u32,
    /// Per LLM call (one request, or one run of the command).
    pub timeout: Duration,
    pub detail: Detail,
    /// Search with each query's generated intent, as `--intent` would; off, lore infers
    /// it from the wording, as in an agent's plain search.
    pub given_intent: bool,
    pub llm: LlmSettings,
}

impl Default for JudgeSettings {
    fn default() -> Self {
        JudgeSettings {
            query_count: 15,
            search_limit: 10,
            mode: Mode::Hybrid,
            stores: Vec::new(),
            max_retries: 3,
            timeout: Duration::from_secs(60),
            detail: Detail::Minimal,
            given_intent: false,
            llm: LlmSettings::default(),
        }
    }
}

/// The config file: every key optional, unknown keys rejected.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    query_count: Option<usize>,
    search_limit: Option<usize>,
    search_mode: Option<String>,
    stores: Option<Vec<String>>,
    max_retries: Option<u32>,
    timeout_secs: Option<u64>,
    detail: Option<String>,
    given_intent: Option<bool>,
    judge: Option<JudgeSection>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct JudgeSection {
    command: Option<String>,
    url: Option<String>,
    model: Option<String>,
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset.min(text.len()))
        .map_or(1, |t| t.matches('\n').count() + 1)
}

pub fn parse_mode(s: &str) -> Option<Mode> {
    Mode::parse(s.trim().to_ascii_lowercase().as_str())
}

pub fn parse_detail(s: &str) -> Option<Detail> {
    Detail::parse(s.trim().to_ascii_lowercase().as_str())
}

impl JudgeSettings {
    /// The defaults, with the LLM the environment names (`LORE_LLM_*`).
    pub fn from_env() -> JudgeSettings {
        JudgeSettings {
            llm: LlmSettings::from_env(),
            ..Default::default()
        }
    }

    /// Applies a TOML config file over these settings (keys it leaves out keep their
    /// value). `[judge] url`/`model` override the environment's; `[judge] command` selects
    /// the command backend.
    pub fn apply_file(&mut self, path: &Path) -> Result<(), JudgeError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            JudgeError::Input(format!("cannot read config {}: {e}", path.display()))
        })?;
        self.apply_toml(&text, &path.display().to_string())
    }

    /// As [`apply_file`](Self::apply_file), from text; `origin` names it in errors.
    pub fn apply_toml(&mut self, text: &str, origin: &str) -> Result<(), JudgeError> {
        let file: ConfigFile = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| format!(" line {}", line_of(text, s.start)))
                .unwrap_or_default();
            JudgeError::Input(format!(
                "config {origin}{at}: {}",
                e.message().trim().replace('\n', " ")
            ))
        })?;
        let bad =
            |key: &str, msg: String| JudgeError::Input(format!("config {origin}: {key} {msg}"));
        if let Some(v) = file.query_count {
            self.query_count = v;
        }
        if let Some(v) = file.search_limit {
            self.search_limit = v;
        }
        if let Some(v) = file.search_mode {
            self.mode = parse_mode(&v)
                .ok_or_else(|| bad("search_mode", format!("{v:?} is not hybrid, vector or fts")))?;
        }
        if let Some(v) = file.stores {
            self.stores = v;
        }
        if let Some(v) = file.max_retries {
            self.max_retries = v;
        }
        if let Some(v) = file.timeout_secs {
            self.timeout = Duration::from_secs(v);
        }
        if let Some(v) = file.detail {
            self.detail = parse_detail(&v).ok_or_else(|| {
                bad(
                    "detail",
                    format!("{v:?} is not minimal, contextual or full"),
                )
            })?;
        }
        if let Some(v) = file.given_intent {
            self.given_intent = v;
        }
        if let Some(j) = file.judge {
            if j.command.is_some() {
                self.llm.command = j.command;
            }
            if j.url.is_some() {
                self.llm.url = j.url;
            }
            if j.model.is_some() {
                self.llm.model = j.model;
            }
        }
        self.validate()
            .map_err(|e| JudgeError::Input(format!("config {origin}: {e}")))
    }

    /// Checks the values (ranges) and returns what is wrong.
    pub fn validate(&self) -> Result<(), JudgeError> {
        let err = |m: &str| Err(JudgeError::Input(m.to_string()));
        if !(1..=500).contains(&self.query_count) {
            return err("query_count must be between 1 and 500");
        }
        if !(1..=100).contains(&self.search_limit) {
            return err("search_limit must be between 1 and 100");
        }
        if self.max_retries > 20 {
            return err("max_retries must be at most 20");
        }
        if self.timeout.is_zero() {
            return err("timeout_secs must be at least 1");
        }
        Ok(())
    }

    /// The LLM client these settings describe.
    pub fn client(&self) -> Result<LlmClient, JudgeError> {
        let backend = self
            .llm
            .backend("pass --judge-cmd")
            .map_err(JudgeError::Llm)?;
        Ok(LlmClient::new(backend, self.timeout))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_defaults_file_and_errors() {
        let d = JudgeSettings::default();
        assert_eq!(
            (
                d.query_count,
                d.search_limit,
                d.mode,
                d.max_retries,
                d.timeout,
                d.detail
            ),
            (
                15,
                10,
                Mode::Hybrid,
                3,
                Duration::from_secs(60),
                Detail::Minimal
            )
        );
        assert!(d.stores.is_empty());

        let mut s = JudgeSettings::default();
        s.apply_toml(
            "query_count = 5\nsearch_limit = 3\nsearch_mode = \"fts\"\nstores = [\"a\", \"b\"]\n\
             max_retries = 1\ntimeout_secs = 7\ndetail = \"full\"\n\n[judge]\ncommand = \"my-llm\"\n\
             url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n",
            "t.toml",
        )
        .unwrap();
        assert_eq!(
            (
                s.query_count,
                s.search_limit,
                s.mode,
                s.max_retries,
                s.timeout,
                s.detail
            ),
            (5, 3, Mode::Fts, 1, Duration::from_secs(7), Detail::Full)
        );
        assert_eq!(s.stores, vec!["a", "b"]);
        assert_eq!(s.llm.command.as_deref(), Some("my-llm"));
        assert_eq!(s.llm.model.as_deref(), Some("m"));

        // Keys left out keep their value.
        let mut s = JudgeSettings::default();
        s.apply_toml("search_limit = 4\n", "t.toml").unwrap();
        assert_eq!((s.query_count, s.search_limit), (15, 4));

        for (text, want) in [
            (
                "query_count = 5\nquery_cont = 3\n",
                "t.toml line 2: unknown field `query_cont`",
            ),
            (
                "search_mode = \"bm25\"\n",
                "search_mode \"bm25\" is not hybrid, vector or fts",
            ),
            ("detail = \"huge\"\n", "detail \"huge\" is not minimal"),
            ("query_count = 0\n", "query_count must be between 1 and 500"),
            ("timeout_secs = 0\n", "timeout_secs must be at least 1"),
            ("query_count = \"many\"\n", "t.toml line 1:"),
            ("[judge\n", "t.toml line 1:"),
        ] {
            let e = JudgeSettings::default()
                .apply_toml(text, "t.toml")
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{text:?}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
            assert!(e.starts_with("config t.toml"), "{e}");
        }
    }
}
