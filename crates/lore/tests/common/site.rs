//! A small documentation site on loopback for web-store tests: pages the test can change
//! between crawls, an `ETag` per page version (a matching `If-None-Match` is answered
//! `304 Not Modified`), and a log of every path requested.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct State {
    pages: HashMap<String, String>,
    requests: Vec<String>,
    not_modified: Vec<String>,
}

/// The entity tag of a page body.
fn etag(body: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    body.hash(&mut h);
    format!("\"{:x}\"", h.finish())
}

pub struct Site {
    pub base: String,
    state: Arc<Mutex<State>>,
}

impl Site {
    /// Serves `pages` (path → body; `robots.txt` as text/plain, the rest as HTML) until the
    /// test process ends. Unknown paths answer 404.
    pub fn start(pages: &[(&str, &str)]) -> Site {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State::default()));
        let site = Site { base, state };
        for (path, body) in pages {
            site.set(path, body);
        }
        let state = site.state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let state = state.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    if reader.read_line(&mut line).is_err() {
                        return;
                    }
                    // Read the headers; only If-None-Match matters.
                    let mut header = String::new();
                    let mut if_none_match = None;
                    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                        if let Some((name, value)) = header.split_once(':')
                            && name.eq_ignore_ascii_case("if-none-match")
                        {
                            if_none_match = Some(value.trim().to_string());
                        }
                        header.clear();
                    }
                    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let body = {
                        let mut s = state.lock().unwrap();
                        s.requests.push(path.clone());
                        let body = s.pages.get(&path).cloned();
                        if body
                            .as_deref()
                            .map(etag)
                            .is_some_and(|e| Some(e) == if_none_match)
                        {
                            s.not_modified.push(path.clone());
                            let _ = write!(
                                stream,
                                "HTTP/1.1 304 Not Modified\r\nConnection: close\r\n\r\n"
                            );
                            return;
                        }
                        body
                    };
                    let ctype = if path.ends_with(".txt") {
                        "text/plain"
                    } else {
                        "text/html; charset=utf-8"
                    };
                    let (status, tag, body) = match body {
                        Some(b) => ("200 OK", etag(&b), b),
                        None => ("404 Not Found", String::new(), "not found".to_string()),
                    };
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nETag: {tag}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                });
            }
        });
        site
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn set(&self, path: &str, body: &str) {
        let mut s = self.state.lock().unwrap();
        s.pages.insert(path.to_string(), body.to_string());
    }

    pub fn remove(&self, path: &str) {
        self.state.lock().unwrap().pages.remove(path);
    }

    /// Every path requested so far, in order.
    pub fn requests(&self) -> Vec<String> {
        self.state.lock().unwrap().requests.clone()
    }

    /// The paths answered `304 Not Modified` so far, sorted.
    pub fn not_modified(&self) -> Vec<String> {
        let mut paths = self.state.lock().unwrap().not_modified.clone();
        paths.sort();
        paths
    }
}
