//! A scripted OpenAI-compatible server on 127.0.0.1 for tests (feature `fake-server`):
//! records every request and answers `POST …/chat/completions` with what the script says.
//! Plain HTTP/1.1 over `std::net`, one thread per connection, `Connection: close`.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the server answers to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 with `choices[0].message.content` = this text.
    Content(String),
    /// This status with this body.
    Status(u16, String),
    /// Waits, then answers.
    Delayed(Duration, Box<Reply>),
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub authorization: Option<String>,
    /// The JSON body (`Null` when it was not JSON).
    pub body: Value,
}

impl Request {
    /// The `content` of every message of a chat request, in order.
    pub fn contents(&self) -> Vec<String> {
        self.body["messages"]
            .as_array()
            .map(|ms| {
                ms.iter()
                    .filter_map(|m| m["content"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The last message's content.
    pub fn last_content(&self) -> String {
        self.contents().pop().unwrap_or_default()
    }
}

type Script = dyn Fn(&Request, usize) -> Reply + Send + Sync;

pub struct FakeLlm {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
}

impl FakeLlm {
    /// Starts the server; `script(request, n)` decides the answer to the `n`-th request
    /// (0-based, in arrival order).
    pub fn start(
        script: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static,
    ) -> std::io::Result<FakeLlm> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let script: Arc<Script> = Arc::new(script);
        let (reqs, stopped) = (requests.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (reqs, script) = (reqs.clone(), script.clone());
                std::thread::spawn(move || {
                    let _ = serve(stream, &reqs, &*script);
                });
            }
        });
        Ok(FakeLlm {
            addr,
            requests,
            stop,
        })
    }

    /// The base URL to use as `LORE_LLM_URL`.
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

/// The text of a chat-completions answer with this content.
pub fn completion(content: &str) -> String {
    json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop"
        }]
    })
    .to_string()
}

fn serve(
    stream: TcpStream,
    requests: &Mutex<Vec<Request>>,
    script: &Script,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut length = 0usize;
    let mut authorization = None;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            let value = value.trim();
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse().unwrap_or(0),
                "authorization" => authorization = Some(value.to_string()),
                _ => {}
            }
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    let request = Request {
        method,
        path,
        authorization,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    let n = {
        let mut all = requests
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))?;
        all.push(request.clone());
        all.len() - 1
    };
    let mut reply = if request.method == "POST" && request.path.ends_with("/chat/completions") {
        script(&request, n)
    } else {
        Reply::Status(404, "{\"error\": {\"message\": \"not found\"}}".into())
    };
    while let Reply::Delayed(d, next) = reply {
        std::thread::sleep(d);
        reply = *next;
    }
    let (status, text) = match reply {
        Reply::Content(c) => (200, completion(&c)),
        Reply::Status(s, b) => (s, b),
        Reply::Delayed(..) => (500, String::new()),
    };
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )?;
    out.flush()
}
