//! The web page: five static files compiled into the binary, served at `/` with a strict
//! Content-Security-Policy. It is a client of the REST API like any other (no second code
//! path); it holds no data, so it is served without the token the API asks for.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

const INDEX: &str = include_str!("../web/index.html");
const SCRIPT: &str = include_str!("../web/app.js");
const BRAIN_SCRIPT: &str = include_str!("../web/brain.js");
const JUDGE_SCRIPT: &str = include_str!("../web/judge.js");
const STYLE: &str = include_str!("../web/app.css");

/// The page's own files only: no inline script or style, no third-party request, no frames.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Paths of the page's files (served without the API token).
pub(crate) const PATHS: [&str; 5] = ["/", "/app.js", "/brain.js", "/judge.js", "/app.css"];

fn file(body: &'static str, content_type: &'static str) -> Response {
    let mut resp = body.into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

pub(crate) async fn index() -> Response {
    file(INDEX, "text/html; charset=utf-8")
}

pub(crate) async fn script() -> Response {
    file(SCRIPT, "text/javascript; charset=utf-8")
}

pub(crate) async fn brain_script() -> Response {
    file(BRAIN_SCRIPT, "text/javascript; charset=utf-8")
}

pub(crate) async fn judge_script() -> Response {
    file(JUDGE_SCRIPT, "text/javascript; charset=utf-8")
}

pub(crate) async fn style() -> Response {
    file(STYLE, "text/css; charset=utf-8")
}
