//! A local OpenAI-compatible embeddings server (`POST /v1/embeddings`) for tests: each text
//! becomes a deterministic 64-dimension vector (its words hashed into buckets), so texts
//! that share words are near. lore talks to it exactly as to a real server.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

pub const DIM: usize = 64;
pub const MODEL: &str = "fake-embed";

pub struct FakeEmbeddings {
    url: String,
    requests: Arc<AtomicUsize>,
}

impl FakeEmbeddings {
    pub fn start() -> FakeEmbeddings {
        FakeEmbeddings::start_slow(std::time::Duration::ZERO)
    }

    /// A server that takes `delay` over every embedding request (a slow model).
    pub fn start_slow(delay: std::time::Duration) -> FakeEmbeddings {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
        let requests = Arc::new(AtomicUsize::new(0));
        let count = requests.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().map_while(Result::ok) {
                let count = count.clone();
                std::thread::spawn(move || answer(conn, &count, delay));
            }
        });
        FakeEmbeddings { url, requests }
    }

    /// The base URL, for `LORE_EMBED_URL`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Embedding requests answered so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::Relaxed)
    }
}

/// The vector of `text`: word counts hashed into `DIM` buckets (lore normalises it).
pub fn vector(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; DIM];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let h = word
            .to_lowercase()
            .bytes()
            .fold(1469598103934665603u64, |h, b| {
                (h ^ b as u64).wrapping_mul(1099511628211)
            });
        v[(h % DIM as u64) as usize] += 1.0;
    }
    v[0] += 0.01;
    v
}

fn answer(conn: TcpStream, count: &AtomicUsize, delay: std::time::Duration) {
    let mut reader = BufReader::new(conn.try_clone().expect("clone"));
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut length = 0;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (status, reply) = if !line.starts_with("POST /v1/embeddings") {
        (404, json!({"error": {"message": "not found"}}))
    } else if req["model"] != MODEL {
        (
            400,
            json!({"error": {"message": format!("no model {}", req["model"])}}),
        )
    } else {
        count.fetch_add(1, Ordering::Relaxed);
        std::thread::sleep(delay);
        let texts: Vec<&str> = req["input"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let data: Vec<Value> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": vector(t)}))
            .collect();
        (200, json!({"object": "list", "model": MODEL, "data": data}))
    };
    let text = reply.to_string();
    let mut conn = conn;
    let _ = write!(
        conn,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
}
