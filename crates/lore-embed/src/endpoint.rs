//! Embeddings from an OpenAI-compatible server (`POST {url}/embeddings`: Ollama, llama.cpp's
//! server, text-embeddings-inference, vLLM, hosted APIs), for a GPU or a code-trained model
//! that lore does not ship. Texts go in batches, several batches at once; a batch that fails
//! for a reason worth retrying (a timeout, a refused connection, 429, 5xx) is sent again
//! after a growing pause. Vectors are L2-normalised here, as lore's scores assume, and every
//! one must have the dimension of the first.

use crate::EmbedError;
use serde_json::{Value, json};
use std::sync::OnceLock;
use std::time::Duration;

/// Base URL of the API (`http://127.0.0.1:11434/v1`; requests go to `{url}/embeddings`).
pub const ENV_URL: &str = "LORE_EMBED_URL";
/// Model name sent with every request.
pub const ENV_MODEL: &str = "LORE_EMBED_MODEL";
/// Optional bearer token.
pub const ENV_API_KEY: &str = "LORE_EMBED_API_KEY";

/// Where and how to ask for embeddings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointConfig {
    pub url: String,
    pub model: String,
    pub api_key: Option<String>,
    /// Texts per request.
    pub batch: usize,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Longest one request may take.
    pub timeout: Duration,
    /// Attempts per batch, the first included.
    pub attempts: u32,
}

impl EndpointConfig {
    pub fn new(url: impl Into<String>, model: impl Into<String>) -> EndpointConfig {
        EndpointConfig {
            url: url.into(),
            model: model.into(),
            api_key: None,
            batch: 64,
            concurrency: 4,
            timeout: Duration::from_secs(60),
            attempts: 4,
        }
    }

    /// The endpoint `LORE_EMBED_URL` and `LORE_EMBED_MODEL` name; `None` when no URL is set.
    pub fn from_env() -> Result<Option<EndpointConfig>, EmbedError> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let Some(url) = var(ENV_URL) else {
            return Ok(None);
        };
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(EmbedError::EndpointConfig(format!(
                "{ENV_URL}={url} is not an http:// or https:// URL (e.g. http://127.0.0.1:11434/v1)"
            )));
        }
        let model = var(ENV_MODEL).ok_or_else(|| {
            EmbedError::EndpointConfig(format!(
                "{ENV_URL} is set but {ENV_MODEL} is not: name the embedding model the \
                 server should run"
            ))
        })?;
        let mut cfg = EndpointConfig::new(url.trim_end_matches('/'), model);
        cfg.api_key = var(ENV_API_KEY);
        Ok(Some(cfg))
    }
}

pub(crate) struct Endpoint {
    cfg: EndpointConfig,
    agent: ureq::Agent,
    /// The dimension of the first vector received.
    dim: OnceLock<usize>,
}

impl Endpoint {
    pub fn new(cfg: EndpointConfig) -> Endpoint {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(cfg.timeout))
            .http_status_as_error(false)
            .user_agent(concat!("lore/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Endpoint {
            cfg,
            agent,
            dim: OnceLock::new(),
        }
    }

    pub fn model(&self) -> &str {
        &self.cfg.model
    }

    /// The vectors' dimension, asking the server once if nothing was embedded yet.
    pub fn dim(&self) -> Result<usize, EmbedError> {
        if let Some(d) = self.dim.get() {
            return Ok(*d);
        }
        self.embed(&["dimension probe"])?;
        self.dim
            .get()
            .copied()
            .ok_or_else(|| EmbedError::Endpoint("the server returned no vector".into()))
    }

    /// One unit vector per text, in order.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let batches: Vec<&[&str]> = texts.chunks(self.cfg.batch.max(1)).collect();
        let mut out: Vec<Vec<f32>> = Vec::with_capacity(texts.len());
        for wave in batches.chunks(self.cfg.concurrency.max(1)) {
            let answers: Vec<Result<Vec<Vec<f32>>, EmbedError>> = std::thread::scope(|s| {
                let running: Vec<_> = wave
                    .iter()
                    .map(|batch| s.spawn(move || self.batch_with_retries(batch)))
                    .collect();
                running
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(EmbedError::Endpoint("an embedding request panicked".into()))
                        })
                    })
                    .collect()
            });
            for a in answers {
                out.extend(a?);
            }
        }
        Ok(out)
    }

    fn batch_with_retries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut pause = Duration::from_millis(250);
        let mut attempt = 1;
        loop {
            match self.batch(texts) {
                Err(Failure::Retry(why)) if attempt < self.cfg.attempts => {
                    tracing::warn!(
                        "embedding request failed ({why}); trying again in {pause:?} (attempt {} of {})",
                        attempt + 1,
                        self.cfg.attempts
                    );
                    std::thread::sleep(pause);
                    pause *= 2;
                    attempt += 1;
                }
                Err(Failure::Retry(why)) => {
                    return Err(EmbedError::Endpoint(format!(
                        "{why} (after {attempt} attempts)"
                    )));
                }
                Err(Failure::Fatal(e)) => return Err(e),
                Ok(v) => return Ok(v),
            }
        }
    }

    fn batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, Failure> {
        let url = format!("{}/embeddings", self.cfg.url);
        let fatal = |m: String| Failure::Fatal(EmbedError::Endpoint(format!("{url}: {m}")));
        let body = json!({"model": self.cfg.model, "input": texts});
        let mut req = self
            .agent
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json");
        if let Some(key) = &self.cfg.api_key {
            req = req.header("Authorization", format!("Bearer {key}"));
        }
        let mut resp = req
            .send(body.to_string())
            .map_err(|e| Failure::Retry(format!("{url}: {e}")))?;
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .read_to_string()
            .map_err(|e| Failure::Retry(format!("{url}: {e}")))?;
        if status == 429 || status >= 500 {
            return Err(Failure::Retry(format!(
                "{url}: status {status}: {}",
                cut(&text)
            )));
        }
        if !(200..300).contains(&status) {
            return Err(fatal(format!("status {status}: {}", cut(&text))));
        }
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| fatal(format!("not JSON ({e}): {}", cut(&text))))?;
        let data = v["data"]
            .as_array()
            .ok_or_else(|| fatal(format!("no `data` list in {}", cut(&text))))?;
        if data.len() != texts.len() {
            return Err(fatal(format!(
                "{} vectors for {} texts",
                data.len(),
                texts.len()
            )));
        }
        let mut out: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        for (n, item) in data.iter().enumerate() {
            let i = item["index"].as_u64().map_or(n, |i| i as usize);
            let mut v: Vec<f32> = item["embedding"]
                .as_array()
                .ok_or_else(|| fatal(format!("item {n} has no `embedding` list")))?
                .iter()
                .map(|x| x.as_f64().map(|f| f as f32))
                .collect::<Option<_>>()
                .ok_or_else(|| fatal(format!("item {n}'s embedding is not all numbers")))?;
            let dim = *self.dim.get_or_init(|| v.len());
            if v.len() != dim || dim == 0 {
                return Err(fatal(format!(
                    "a vector of {} dimensions after vectors of {dim}",
                    v.len()
                )));
            }
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 0.0 {
                v.iter_mut().for_each(|x| *x /= norm);
            }
            match out.get_mut(i) {
                Some(slot @ None) => *slot = Some(v),
                _ => return Err(fatal(format!("item {n} has a bad or repeated index {i}"))),
            }
        }
        Ok(out.into_iter().flatten().collect())
    }
}

enum Failure {
    /// Worth sending again: a timeout, a refused connection, 429, 5xx.
    Retry(String),
    Fatal(EmbedError),
}

/// The first 200 characters of a body, on one line.
fn cut(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &one[..at]),
        None => one,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;
    use std::sync::{Arc, Mutex};

    /// A server answering each request with the next of `replies` (status, or 0 for
    /// "embed every input as a vector of `dim` numbers"); records the batch sizes.
    fn server(replies: Vec<(u16, usize)>) -> (String, Arc<Mutex<Vec<usize>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let replies = Arc::new(Mutex::new(replies.into_iter()));
        std::thread::spawn(move || {
            for conn in listener.incoming().map_while(Result::ok) {
                let mut reader = BufReader::new(conn.try_clone().unwrap());
                let mut len = 0;
                loop {
                    let mut h = String::new();
                    reader.read_line(&mut h).unwrap();
                    if h.trim().is_empty() {
                        break;
                    }
                    if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap();
                    }
                }
                let mut body = vec![0; len];
                reader.read_exact(&mut body).unwrap();
                let req: Value = serde_json::from_slice(&body).unwrap();
                let n = req["input"].as_array().map_or(0, Vec::len);
                log.lock().unwrap().push(n);
                let (status, dim) = replies.lock().unwrap().next().unwrap_or((200, 3));
                let text = if status == 200 {
                    let data: Vec<Value> = (0..n)
                        .rev()
                        .map(|i| json!({"index": i, "embedding": vec![i as f32 + 1.0; dim]}))
                        .collect();
                    json!({"data": data}).to_string()
                } else {
                    "{\"error\": {\"message\": \"busy\"}}".to_string()
                };
                let mut conn = conn;
                let _ = write!(
                    conn,
                    "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                    text.len()
                );
            }
        });
        (url, seen)
    }

    fn endpoint(url: &str) -> Endpoint {
        let mut cfg = EndpointConfig::new(url, "m");
        cfg.batch = 4;
        cfg.concurrency = 2;
        cfg.timeout = Duration::from_secs(10);
        Endpoint::new(cfg)
    }

    #[test]
    fn batches_come_back_in_order_and_unit_length() {
        let (url, seen) = server(vec![]);
        let e = endpoint(&url);
        let texts: Vec<String> = (0..10).map(|i| format!("t{i}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let v = e.embed(&refs).unwrap();
        assert_eq!(v.len(), 10);
        let mut sizes = seen.lock().unwrap().clone();
        sizes.sort();
        assert_eq!(sizes, [2, 4, 4]);
        for row in &v {
            let norm: f32 = row.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-5);
        }
        assert_eq!(e.dim().unwrap(), 3);
    }

    #[test]
    fn busy_servers_are_retried_and_bad_answers_are_not() {
        let (url, seen) = server(vec![(503, 3), (429, 3), (200, 3)]);
        assert_eq!(endpoint(&url).embed(&["a"]).unwrap().len(), 1);
        assert_eq!(seen.lock().unwrap().len(), 3);
        let (url, seen) = server(vec![(400, 3)]);
        let err = endpoint(&url).embed(&["a"]).unwrap_err().to_string();
        assert!(err.contains("status 400") && err.contains("busy"), "{err}");
        assert_eq!(seen.lock().unwrap().len(), 1);
        let (url, _) = server(vec![(500, 3); 4]);
        let err = endpoint(&url).embed(&["a"]).unwrap_err().to_string();
        assert!(err.contains("after 4 attempts"), "{err}");
    }

    #[test]
    fn a_change_of_dimension_is_refused() {
        let (url, _) = server(vec![(200, 3), (200, 5)]);
        let e = endpoint(&url);
        e.embed(&["a"]).unwrap();
        let err = e.embed(&["b"]).unwrap_err().to_string();
        assert!(err.contains("5 dimensions after vectors of 3"), "{err}");
    }
}
