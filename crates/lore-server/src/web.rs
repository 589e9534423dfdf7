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
const SVG: &str = "image/svg+xml";

/// Each file: its path, its text and its type. `app.js` holds the helpers the others use
/// and the router; the page loads them in this order.
const FILES: [(&str, &str, &str); 9] = [
    ("/", include_str!("../web/index.html"), HTML),
    ("/app.js", include_str!("../web/app.js"), JS),
    ("/highlight.js", include_str!("../web/highlight.js"), JS),
    ("/stores.js", include_str!("../web/stores.js"), JS),
    ("/graph.js", include_str!("../web/graph.js"), JS),
    ("/brain.js", include_str!("../web/brain.js"), JS),
    ("/judge.js", include_str!("../web/judge.js"), JS),
    ("/app.css", include_str!("../web/app.css"), CSS),
    ("/favicon.svg", include_str!("../web/favicon.svg"), SVG),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The page's scripts share one global scope: a name two of them declare at the top
    /// level would make the later one replace the earlier for both.
    #[test]
    fn no_two_scripts_declare_one_name() {
        let mut seen = std::collections::HashMap::new();
        for (path, body, kind) in FILES {
            if kind != JS {
                continue;
            }
            for line in body.lines() {
                let decl = ["async function ", "function ", "const ", "let ", "class "]
                    .iter()
                    .find_map(|k| line.strip_prefix(k));
                let Some(rest) = decl else { continue };
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                    .collect();
                if let Some(other) = seen.insert(name.clone(), path) {
                    panic!("{name} is declared by both {other} and {path}");
                }
            }
        }
        assert!(
            seen.contains_key("api") && seen.contains_key("showGraph"),
            "{seen:?}"
        );
    }
}
