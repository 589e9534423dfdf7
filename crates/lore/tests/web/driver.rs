//! A W3C WebDriver client for the page's interaction tests: Debian's `chromedriver`
//! (package chromium-driver) drives headless Chromium; the test types into inputs, clicks
//! and reads the DOM as a person would. Plain HTTP JSON through `ureq`, no client crate.

use serde_json::{Value, json};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The key W3C WebDriver names an element reference by.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

pub struct Driver {
    child: Child,
    base: String,
    session: String,
    _profile: tempfile::TempDir,
}

/// `chromedriver` (or `LORE_CHROMEDRIVER`), if it runs; under CI its absence fails.
pub fn chromedriver_or_skip() -> Option<std::path::PathBuf> {
    crate::tool_or_skip("LORE_CHROMEDRIVER", "chromedriver", "chromium-driver")
}

/// `bin` as chromedriver needs it: a bare name looked up on PATH.
fn on_path(bin: &Path) -> std::path::PathBuf {
    if bin.components().count() > 1 {
        return bin.to_path_buf();
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(bin))
        .find(|p| p.is_file())
        .unwrap_or_else(|| bin.to_path_buf())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn call(method: &str, url: &str, body: Option<Value>) -> Value {
    let agent = crate::common::serve::agent();
    let (status, v) = crate::common::serve::answer(match (method, body) {
        (_, Some(b)) => agent
            .post(url)
            .content_type("application/json")
            .send(b.to_string()),
        ("DELETE", None) => agent.delete(url).call(),
        _ => agent.get(url).call(),
    });
    assert!(status < 400, "{method} {url}: {status} {v}");
    v
}

impl Driver {
    /// chromedriver on a free port and one headless Chromium session (fresh profile under
    /// `root`).
    pub fn start(chromedriver: &Path, chromium: &Path, root: &Path) -> Driver {
        Self::start_with(chromedriver, chromium, root, &[])
    }

    /// As `start`, with more Chromium arguments (a window size, a colour scheme).
    pub fn start_with(chromedriver: &Path, chromium: &Path, root: &Path, extra: &[&str]) -> Driver {
        let port = free_port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let base = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        while ureq::get(&format!("{base}/status")).call().is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "chromedriver did not answer"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = tempfile::tempdir_in(root).expect("profile dir");
        let mut args: Vec<String> = crate::HEADLESS.iter().map(|a| a.to_string()).collect();
        if !extra.iter().any(|a| a.starts_with("--window-size")) {
            args.push("--window-size=1280,800".into());
        }
        args.extend(extra.iter().map(|a| a.to_string()));
        args.push(format!("--user-data-dir={}", profile.path().display()));
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": on_path(chromium).display().to_string(),
                "args": args
            }
        }}});
        let mut driver = Driver {
            child,
            base,
            session: String::new(),
            _profile: profile,
        };
        let v = call("POST", &format!("{}/session", driver.base), Some(caps));
        driver.session = v["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {v}"))
            .to_string();
        driver
    }

    fn url(&self, path: &str) -> String {
        format!("{}/session/{}{path}", self.base, self.session)
    }

    pub fn goto(&self, url: &str) {
        call("POST", &self.url("/url"), Some(json!({ "url": url })));
    }

    /// The element `css` selects, waited for up to 20 s.
    pub fn find(&self, css: &str) -> String {
        let started = Instant::now();
        loop {
            let (status, v) = crate::common::serve::answer(
                crate::common::serve::agent()
                    .post(&self.url("/element"))
                    .content_type("application/json")
                    .send(json!({"using": "css selector", "value": css}).to_string()),
            );
            if status == 200
                && let Some(id) = v["value"][ELEMENT].as_str()
            {
                return id.to_string();
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "no element {css} in:\n{}",
                self.source()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css);
        call(
            "POST",
            &self.url(&format!("/element/{id}/value")),
            Some(json!({ "text": text })),
        );
    }

    pub fn click(&self, css: &str) {
        let id = self.find(css);
        call(
            "POST",
            &self.url(&format!("/element/{id}/click")),
            Some(json!({})),
        );
    }

    pub fn source(&self) -> String {
        call("GET", &self.url("/source"), None)["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits up to `secs` for the page's DOM to satisfy `ok`; returns it.
    pub fn wait_for(&self, secs: u64, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let src = self.source();
            if ok(&src) {
                return src;
            }
            assert!(
                started.elapsed() < Duration::from_secs(secs),
                "{what}: not within {secs} s:\n{src}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The current value of the input `css` selects (what is typed, not the attribute).
    pub fn value(&self, css: &str) -> String {
        let id = self.find(css);
        call(
            "GET",
            &self.url(&format!("/element/{id}/property/value")),
            None,
        )["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Runs `script` (a function body) in the page; returns what it returns.
    pub fn execute(&self, script: &str) -> Value {
        call(
            "POST",
            &self.url("/execute/sync"),
            Some(json!({ "script": script, "args": [] })),
        )["value"]
            .clone()
    }

    pub fn current_url(&self) -> String {
        call("GET", &self.url("/url"), None)["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = ureq::delete(&self.url("")).call();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
