//! A small documentation site on loopback for web-store tests: pages the test can change
//! between crawls, and a log of every path requested.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct State {
    pages: HashMap<String, String>,
    requests: Vec<String>,
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
                    // Drain the headers.
                    let mut header = String::new();
                    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                        header.clear();
                    }
                    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let body = {
                        let mut s = state.lock().unwrap();
                        s.requests.push(path.clone());
                        s.pages.get(&path).cloned()
                    };
                    let ctype = if path.ends_with(".txt") {
                        "text/plain"
                    } else {
                        "text/html; charset=utf-8"
                    };
                    let (status, body) = match body {
                        Some(b) => ("200 OK", b),
                        None => ("404 Not Found", "not found".to_string()),
                    };
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
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
}
