//! Absolute http(s) URLs and RFC 3986 reference resolution: just what a same-site crawl
//! needs (links are resolved against their page, fragments dropped, hosts compared
//! case-insensitively).

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WebUrl {
    /// `http` or `https`.
    scheme: String,
    /// `host[:port]`, lowercased.
    authority: String,
    /// Starts with `/`.
    path: String,
    query: Option<String>,
}

impl WebUrl {
    /// Parses an absolute `http://` or `https://` URL; anything else is `None`.
    pub fn parse(s: &str) -> Option<WebUrl> {
        let s = s.trim();
        let (scheme, rest) = s.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return None;
        }
        // Trimmed again without the fragment: `/a #x` is `/a`, as the URL prints and
        // reparses (fuzz target `url`).
        let rest = rest.split('#').next().unwrap_or(rest).trim_end();
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let authority = rest[..end].to_ascii_lowercase();
        // No user info (`user@host`) and no whitespace: such links are not pages of a site.
        if authority.is_empty() || authority.contains(['@', ' ', '\\']) {
            return None;
        }
        // The default port is dropped only after a plain or bracketed host: `a:80:80` kept
        // whole, else it printed as `a:80`, which parses as another URL (fuzz target `url`).
        let authority = match (scheme.as_str(), authority.rsplit_once(':')) {
            ("http", Some((host, "80"))) | ("https", Some((host, "443")))
                if !host.contains(':') || (host.starts_with('[') && host.ends_with(']')) =>
            {
                host.to_string()
            }
            _ => authority,
        };
        // `https://:443` has no host once its default port is dropped.
        if authority.is_empty() {
            return None;
        }
        let (path, query) = split_query(&rest[end..]);
        Some(WebUrl {
            scheme,
            authority,
            path: if path.is_empty() {
                "/".into()
            } else {
                remove_dot_segments(path)
            },
            query,
        })
    }

    /// Resolves `href` against this URL (RFC 3986, section 5.2). Links to other schemes
    /// (`mailto:`, `javascript:`) give `None`; the fragment is dropped.
    pub fn join(&self, href: &str) -> Option<WebUrl> {
        let href = href.trim();
        let href = href.split('#').next().unwrap_or(href).trim_end();
        if let Some(colon) = href.find(':') {
            let scheme = &href[..colon];
            let is_scheme = !scheme.is_empty()
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
            if is_scheme && !href[..colon].contains('/') {
                return WebUrl::parse(href);
            }
        }
        if let Some(rest) = href.strip_prefix("//") {
            return WebUrl::parse(&format!("{}://{rest}", self.scheme));
        }
        let (path, query) = split_query(href);
        let mut url = self.clone();
        if path.is_empty() {
            if query.is_some() {
                url.query = query;
            }
            return Some(url);
        }
        url.query = query;
        url.path = if path.starts_with('/') {
            remove_dot_segments(path)
        } else {
            let dir = &self.path[..self.path.rfind('/').map_or(0, |i| i + 1)];
            remove_dot_segments(&format!("{dir}{path}"))
        };
        Some(url)
    }

    pub fn path(&self) -> &str {
        &self.path
    }
    pub fn query(&self) -> Option<&str> {
        self.query.as_deref()
    }
    /// The host (IPv6 in brackets) and port the URL connects to.
    pub fn host_port(&self) -> Option<(String, u16)> {
        let default = if self.scheme == "https" { 443 } else { 80 };
        crate::net::host_port(&self.authority, default)
    }
    /// `scheme://authority`.
    pub fn origin(&self) -> String {
        format!("{}://{}", self.scheme, self.authority)
    }
    /// The path and query, as robots.txt rules match them.
    pub fn path_and_query(&self) -> String {
        match &self.query {
            Some(q) => format!("{}?{q}", self.path),
            None => self.path.clone(),
        }
    }
}

impl fmt::Display for WebUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.origin(), self.path_and_query())
    }
}

fn split_query(s: &str) -> (&str, Option<String>) {
    match s.split_once('?') {
        Some((p, q)) => (p, Some(q.to_string())),
        None => (s, None),
    }
}

/// RFC 3986, section 5.2.4, on an absolute path.
fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *seg {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                out.pop();
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    format!("/{}", out.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn join(base: &str, href: &str) -> Option<String> {
        WebUrl::parse(base)?.join(href).map(|u| u.to_string())
    }

    #[test]
    fn parses_only_http() {
        let u = WebUrl::parse("HTTPS://Docs.Example.com:443/a/./b/../c?x=1#top").unwrap();
        assert_eq!(u.to_string(), "https://docs.example.com/a/c?x=1");
        assert_eq!(u.origin(), "https://docs.example.com");
        assert_eq!(
            WebUrl::parse("http://127.0.0.1:8080").unwrap().to_string(),
            "http://127.0.0.1:8080/"
        );
        for bad in [
            "ftp://x/y",
            "docs.rs/tokio",
            "mailto:a@b.c",
            "https://",
            "https://u@h/",
        ] {
            assert!(WebUrl::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn resolves_references_as_rfc_3986() {
        // Examples of RFC 3986, section 5.4.1 (those a crawl meets).
        let base = "http://a/b/c/d;p?q";
        for (href, want) in [
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g/"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q"),
            ("g#s", "http://a/b/c/g"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            ("./g/.", "http://a/b/c/g/"),
            ("g/../h", "http://a/b/c/h"),
            ("https://other/x", "https://other/x"),
        ] {
            assert_eq!(join(base, href).as_deref(), Some(want), "{href}");
        }
        assert_eq!(join(base, "mailto:x@y"), None);
        assert_eq!(join(base, "javascript:void(0)"), None);
    }
}
