//! The web page: static files compiled into the binary, served at `/` with a strict
//! Content-Security-Policy. It is a client of the REST API like any other (no second code
//! path); it holds no data, so it is served without the token the API asks for.

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// Each file: its path, its text and its type. `app.js` holds the helpers the others use
/// and the router; the page loads them in this order.
const FILES: [(&str, &str, &str); 6] = [
    ("/", include_str!("../web/index.html"), HTML),
    ("/app.js", include_str!("../web/app.js"), JS),
    ("/highlight.js", include_str!("../web/highlight.js"), JS),
    ("/brain.js", include_str!("../web/brain.js"), JS),
    ("/judge.js", include_str!("../web/judge.js"), JS),
    ("/app.css", include_str!("../web/app.css"), CSS),
];

/// The page's own files only: no inline script or style, no third-party request, no frames.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Whether `path` is one of the page's files (served without the API token).
pub(crate) fn is_page(path: &str) -> bool {
    FILES.iter().any(|(p, _, _)| *p == path)
}

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

/// `router` with a route for each of the page's files.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>(mut router: Router<S>) -> Router<S> {
    for (path, body, kind) in FILES {
        router = router.route(path, get(move || async move { file(body, kind) }));
    }
    router
}
