//! Documentation sites: a polite same-site crawl that mirrors each HTML page as a markdown
//! file, so a web store is indexed like a folder.
//!
//! Scope: pages of the start page's origin under its folder (the start page's final URL,
//! after redirects; `https://docs.rs/tokio` counts as the folder `/tokio/`). URLs with a
//! query string are not followed (search pages, sort orders: crawler traps). robots.txt is
//! obeyed, `Crawl-delay` included (one request at a time then). The crawl goes breadth first,
//! level by level, `concurrency` requests at a time, until `max_pages` pages are kept or
//! `max_depth` links away from the start.
//!
//! A page at URL path `/a/b.html` is mirrored as `a/b.html.md`, `/a/b/` as `a/b/index.md`;
//! `page_url` maps a mirror path back to its URL.
//!
//! Re-crawls are conditional: the mirror keeps, in a hidden manifest, each kept page's
//! `ETag`/`Last-Modified` and links; the next crawl sends them back, and a page the server
//! answers `304 Not Modified` is copied from the old mirror and its stored links followed,
//! without being downloaded or parsed again.

mod fetch;
mod html;
mod robots;
mod url;

use fetch::*;

pub use html::{Page, html_to_markdown, read_page};
pub use robots::Robots;
pub use url::WebUrl;

use crate::SourceError;
use crate::filter::glob_set;
use crate::net::{self, FetchPolicy, non_public};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

/// How far and how fast a crawl goes, and which pages it keeps.
#[derive(Debug, Clone)]
pub struct CrawlOptions {
    /// Most pages kept.
    pub max_pages: usize,
    /// Most links followed away from the start page.
    pub max_depth: usize,
    /// Requests in flight at once (1 when robots.txt sets a crawl delay).
    pub concurrency: usize,
    /// Larger pages are skipped.
    pub max_page_bytes: u64,
    /// Per request, connection to last byte.
    pub timeout: Duration,
    /// Globs over the URL path without its leading `/` (`tokio/runtime/index.html`): pages
    /// kept. Pages outside them are still read for their links. Empty keeps every page.
    pub includes: Vec<String>,
    /// Pages neither fetched nor kept.
    pub excludes: Vec<String>,
    /// Where requests may go (a server's crawl: public addresses only).
    pub policy: FetchPolicy,
}

impl Default for CrawlOptions {
    fn default() -> Self {
        CrawlOptions {
            max_pages: 500,
            max_depth: 8,
            concurrency: 4,
            max_page_bytes: 1024 * 1024,
            timeout: Duration::from_secs(30),
            includes: Vec::new(),
            excludes: Vec::new(),
            policy: FetchPolicy::default(),
        }
    }
}

/// What a crawl did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct CrawlReport {
    /// `scheme://host[:port]` of the pages; mirror paths are relative to it.
    pub site: String,
    /// The folder the crawl stayed in (a URL ending in `/`).
    pub scope: String,
    /// Pages written to the mirror.
    pub pages: usize,
    /// Pages fetched (kept or read only for their links).
    pub fetched: usize,
    /// Of those, pages the server said had not changed since the last crawl (HTTP 304):
    /// copied from the previous mirror.
    pub unchanged: usize,
    /// Pages not kept, with why (HTTP errors, not HTML, too large).
    pub skipped: Vec<SkippedPage>,
    /// In-scope links left unvisited because `max_pages` or `max_depth` was reached.
    pub unvisited: usize,
    /// What the user should know, e.g. that the pages hold almost no text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub elapsed_ms: u64,
}

/// A kept page with fewer words than this (its title aside) is "thin".
const THIN_WORDS: usize = 25;

/// The mirror's record of its pages (a hidden name: the index walk skips it).
const MANIFEST: &str = ".lore-crawl.json";

/// What a crawl learnt about one kept page: enough for the next crawl to ask the server
/// whether it changed, and to go on without it when it did not.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct PageRecord {
    /// The URL that answered (after redirects).
    url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_modified: Option<String>,
    /// Its links on the same site, resolved.
    links: Vec<String>,
    nofollow: bool,
    /// Its file in the mirror.
    file: String,
    thin: bool,
}

/// Records by the URL asked for.
type Manifest = HashMap<String, PageRecord>;

/// The manifest of the mirror at `dir`; empty when there is none or it cannot be read
/// (the crawl then fetches every page in full).
fn read_manifest(dir: &Path) -> Manifest {
    std::fs::read(dir.join(MANIFEST))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct SkippedPage {
    pub url: String,
    pub reason: String,
}

/// The mirror path of a page (relative, `/`-separated), `None` for paths a file cannot
/// stand for (empty or dot segments, hidden names).
pub fn page_path(url: &WebUrl) -> Option<String> {
    // One slash only: `//a` has an empty first segment (trimming them all mirrored
    // `https://h//a` onto `https://h/a`'s file; fuzz target `url`).
    let p = url.path().strip_prefix('/').unwrap_or(url.path());
    let segments: Vec<&str> = p.split('/').collect();
    let (last, dirs) = segments.split_last()?;
    if dirs
        .iter()
        .any(|s| s.is_empty() || s.starts_with('.') || s.len() > 200)
        || last.starts_with('.')
        || last.len() > 200
    {
        return None;
    }
    Some(if last.is_empty() {
        format!("{p}index.md")
    } else {
        format!("{p}.md")
    })
}

/// The URL of the page mirrored at `rel` on `site` (`scheme://host`).
pub fn page_url(site: &str, rel: &str) -> String {
    let p = rel.strip_suffix(".md").unwrap_or(rel);
    let p = match p.strip_suffix("index") {
        Some(dir) if dir.is_empty() || dir.ends_with('/') => dir,
        _ => p,
    };
    format!("{}/{p}", site.trim_end_matches('/'))
}

fn web_error(url: &str, message: impl Into<String>) -> SourceError {
    SourceError::Web {
        url: url.to_string(),
        message: message.into(),
    }
}

/// Most sitemap files read per crawl (an index may name many).
const MAX_SITEMAPS: usize = 20;

/// The `<loc>` values of a sitemap (XML entities in URLs decoded). Public for the fuzz
/// targets (`crates/lore-fuzz`) only.
#[doc(hidden)]
pub fn sitemap_locs(xml: &str) -> Vec<String> {
    xml.split("<loc>")
        .skip(1)
        .filter_map(|s| s.split_once("</loc>"))
        .map(|(loc, _)| {
            // `&amp;` last, so `&amp;lt;` decodes once, to `&lt;` (fuzz target `sitemap`).
            loc.trim()
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&amp;", "&")
        })
        .collect()
}

/// The crawl's folder: the start page's folder, a last segment without a dot counting as
/// a folder (`/tokio` → `/tokio/`).
fn scope_of(url: &WebUrl) -> String {
    let path = url.path();
    let last = path.rsplit('/').next().unwrap_or("");
    if last.is_empty() {
        path.to_string()
    } else if last.contains('.') {
        path[..path.len() - last.len()].to_string()
    } else {
        format!("{path}/")
    }
}

/// Checks that a crawl from `start` may begin under `policy`: an http(s) URL whose host
/// resolves to public addresses only, when the policy asks for that. (Every request of the
/// crawl is checked again as it connects.)
pub fn check_start(start: &str, policy: FetchPolicy) -> Result<(), SourceError> {
    let url = WebUrl::parse(start).ok_or_else(|| {
        web_error(
            start,
            "not an http:// or https:// URL of a documentation site",
        )
    })?;
    if policy.public_only {
        let (host, port) = url
            .host_port()
            .ok_or_else(|| web_error(start, "no host or a bad port"))?;
        net::resolve_public(&host, port).map_err(|reason| SourceError::Refused {
            target: start.to_string(),
            reason,
        })?;
    }
    Ok(())
}

/// Crawls the site at `start` into `dest`, which is replaced only when the crawl succeeds
/// (a failed crawl leaves the previous mirror as it was). `on_page` is called after each
/// page is fetched with the number fetched so far and the number known so far (fetched, or
/// queued in the level being fetched).
pub fn crawl(
    start: &str,
    dest: &Path,
    opts: &CrawlOptions,
    on_page: &(dyn Fn(usize, usize) + Sync),
) -> Result<CrawlReport, SourceError> {
    let started = Instant::now();
    let start_url = WebUrl::parse(start).ok_or_else(|| {
        web_error(
            start,
            "not an http:// or https:// URL of a documentation site",
        )
    })?;
    let includes = glob_set(&opts.includes)?;
    let excludes = glob_set(&opts.excludes)?;
    check_start(start, opts.policy)?;
    let fetcher = Fetcher::new(opts);

    // robots.txt first; then the start page decides the site and the scope (after its
    // redirects, whose target's robots.txt is read too when it is another origin). A
    // re-crawl asks for each page it kept last time only if it changed since.
    let allowed = |robots: &Robots, url: &WebUrl| {
        if robots.allows(&url.path_and_query()) {
            Ok(())
        } else {
            Err(web_error(
                &url.to_string(),
                "robots.txt of the site disallows this page for lore",
            ))
        }
    };
    let previous = read_manifest(dest);
    let mut robots = fetcher.robots(&start_url.origin())?;
    allowed(&robots, &start_url)?;
    let start_page = fetcher.page(&start_url, previous.get(start), dest);
    let asked = start_url;
    let start_url = match &start_page {
        Fetched::Html { url, .. } => url.clone(),
        Fetched::Unchanged(p) => WebUrl::parse(&p.url).unwrap_or_else(|| asked.clone()),
        Fetched::Skipped(why) => return Err(web_error(start, why.as_str())),
    };
    if start_url.origin() != asked.origin() {
        robots = fetcher.robots(&start_url.origin())?;
    }
    allowed(&robots, &start_url)?;
    let site = start_url.origin();
    let scope = scope_of(&start_url);
    let delay = robots.crawl_delay;
    let concurrency = if delay.is_some() {
        1
    } else {
        opts.concurrency.max(1)
    };

    let tmp = dest.with_extension("crawling");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| SourceError::Io(tmp.display().to_string(), e))?;
    let result = (|| {
        let mut report = CrawlReport {
            site: site.clone(),
            scope: format!("{site}{scope}"),
            ..Default::default()
        };
        let in_scope = |u: &WebUrl| {
            u.origin() == site
                && u.path().starts_with(&scope)
                && u.query().is_none()
                && !excludes
                    .as_ref()
                    .is_some_and(|x| x.is_match(u.path().trim_start_matches('/')))
        };
        let mut seen: HashSet<String> = HashSet::from([start_url.to_string()]);
        // Pages the sitemap lists join the start page's links: navigation that scripts
        // build is invisible to the crawl, the sitemap is not.
        let mut listed: Vec<WebUrl> = fetcher
            .sitemap_pages(&site, &robots)
            .iter()
            .filter_map(|u| WebUrl::parse(u))
            .filter(|u| in_scope(u) && robots.allows(&u.path_and_query()))
            .collect();
        // The start page is keyed by the URL the store was given, like the next crawl asks.
        let mut level = vec![(start_url.clone(), start.to_string(), Some(start_page))];
        let mut manifest = Manifest::new();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(concurrency)
            .build()
            .map_err(|e| web_error(&site, format!("cannot start the crawl threads: {e}")))?;
        let fetched = std::sync::atomic::AtomicUsize::new(0);
        let mut thin = 0;
        for depth in 0..=opts.max_depth {
            if level.is_empty() {
                break;
            }
            let room = opts.max_pages.saturating_sub(report.pages);
            if room == 0 {
                report.unvisited += level.len();
                break;
            }
            // A level may fetch a few more pages than there is room for; they give links.
            if level.len() > room * 2 {
                report.unvisited += level.len() - room * 2;
                level.truncate(room * 2);
            }
            let known = report.fetched + level.len();
            let pages: Vec<(WebUrl, String, Fetched)> = pool.install(|| {
                level
                    .into_par_iter()
                    .map(|(url, key, page)| {
                        let page = page.unwrap_or_else(|| {
                            if let Some(d) = delay {
                                std::thread::sleep(d);
                            }
                            fetcher.page(&url, previous.get(&key), dest)
                        });
                        let n = fetched.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                        on_page(n, known);
                        (url, key, page)
                    })
                    .collect()
            });
            report.fetched = fetched.load(std::sync::atomic::Ordering::Relaxed);
            let mut next = Vec::new();
            for (asked, key, page) in pages {
                let (url, mut record, markdown) = match page {
                    Fetched::Html {
                        url,
                        html,
                        etag,
                        last_modified,
                    } => {
                        let page = read_page(&html)
                            .map_err(|e| web_error(&url.to_string(), e.to_string()))?;
                        let base = page
                            .base
                            .as_deref()
                            .and_then(|b| url.join(b))
                            .unwrap_or_else(|| url.clone());
                        let links = page
                            .links
                            .iter()
                            .filter_map(|href| base.join(href))
                            .filter(|l| l.origin() == site)
                            .map(|l| l.to_string())
                            .collect();
                        let words = page.markdown.split_whitespace().count();
                        let title = page
                            .title
                            .as_deref()
                            .map_or(0, |t| t.split_whitespace().count() + 1);
                        let record = PageRecord {
                            url: url.to_string(),
                            etag,
                            last_modified,
                            links,
                            nofollow: page.nofollow,
                            file: String::new(),
                            thin: words.saturating_sub(title) < THIN_WORDS,
                        };
                        let markdown = (!page.noindex).then_some(page.markdown);
                        (url, record, markdown)
                    }
                    Fetched::Unchanged(record) => {
                        report.unchanged += 1;
                        match WebUrl::parse(&record.url) {
                            Some(url) => (url, record, None),
                            None => continue,
                        }
                    }
                    Fetched::Skipped(why) => {
                        report.skipped.push(SkippedPage {
                            url: asked.to_string(),
                            reason: why,
                        });
                        continue;
                    }
                };
                // A redirect out of scope, or onto a page already seen, is not kept.
                if url != asked && (!in_scope(&url) || !seen.insert(url.to_string())) {
                    continue;
                }
                if !record.nofollow {
                    for link in record.links.iter().filter_map(|l| WebUrl::parse(l)) {
                        if in_scope(&link)
                            && robots.allows(&link.path_and_query())
                            && seen.insert(link.to_string())
                        {
                            let key = link.to_string();
                            next.push((link, key, None));
                        }
                    }
                }
                let unchanged = !record.file.is_empty();
                let rel = url.path().trim_start_matches('/');
                let kept = includes.as_ref().is_none_or(|i| i.is_match(rel));
                if (markdown.is_none() && !unchanged) || !kept || report.pages >= opts.max_pages {
                    continue;
                }
                let Some(file) = page_path(&url) else {
                    report.skipped.push(SkippedPage {
                        url: url.to_string(),
                        reason: "no file name for this URL".into(),
                    });
                    continue;
                };
                let path = tmp.join(&file);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| SourceError::Io(parent.display().to_string(), e))?;
                }
                match markdown {
                    Some(text) => std::fs::write(&path, text),
                    None => std::fs::copy(dest.join(&record.file), &path).map(|_| ()),
                }
                .map_err(|e| SourceError::Io(path.display().to_string(), e))?;
                thin += usize::from(record.thin);
                report.pages += 1;
                record.file = file;
                manifest.insert(key, record);
            }
            if depth == 0 {
                for url in listed.drain(..) {
                    if seen.insert(url.to_string()) {
                        let key = url.to_string();
                        next.push((url, key, None));
                    }
                }
            }
            if depth == opts.max_depth {
                report.unvisited += next.len();
            }
            level = next;
        }
        let bytes = serde_json::to_vec(&manifest)
            .map_err(|e| web_error(&site, format!("cannot record the crawl: {e}")))?;
        std::fs::write(tmp.join(MANIFEST), bytes)
            .map_err(|e| SourceError::Io(tmp.join(MANIFEST).display().to_string(), e))?;
        if report.pages > 0 && thin * 2 > report.pages {
            report.warnings.push(format!(
                "{thin} of {} pages hold almost no text: the site may build its pages with \
                 JavaScript, which lore does not run; look for a static or print version of \
                 the docs, or index their source repository instead",
                report.pages
            ));
        }
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(report)
    })();
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    // Swap the new mirror in: the old one moves aside first, so a failure keeps one of them.
    let old = dest.with_extension("old");
    let _ = std::fs::remove_dir_all(&old);
    if dest.exists() {
        std::fs::rename(dest, &old).map_err(|e| SourceError::Io(dest.display().to_string(), e))?;
    }
    std::fs::rename(&tmp, dest).map_err(|e| SourceError::Io(dest.display().to_string(), e))?;
    let _ = std::fs::remove_dir_all(&old);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::net::{SocketAddr, TcpListener};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A loopback server answering every request with `response` (raw HTTP/1.1); counts
    /// the requests it gets.
    fn serve_raw(response: String) -> (SocketAddr, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let hits = Arc::new(AtomicUsize::new(0));
        let counted = hits.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                counted.fetch_add(1, Ordering::SeqCst);
                let _ = stream.write_all(response.as_bytes());
            }
        });
        (addr, hits)
    }

    fn redirect_to(location: &str) -> (SocketAddr, Arc<AtomicUsize>) {
        serve_raw(format!(
            "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\
             Connection: close\r\n\r\n"
        ))
    }

    #[test]
    fn public_only_fetches_check_every_hop() {
        let body = "<html><body>page</body></html>";
        let (page, page_hits) = serve_raw(format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        ));
        let (to_page, to_page_hits) = redirect_to(&format!("http://{page}/page"));
        let (to_metadata, _) = redirect_to("http://169.254.169.254/latest/meta-data/");
        let (to_localhost, _) = redirect_to("http://localhost:9/x");
        let opts = CrawlOptions {
            timeout: Duration::from_secs(10),
            policy: FetchPolicy::server(false),
            ..CrawlOptions::default()
        };
        // The redirecting servers stand for public sites; `page` is loopback, as it is.
        let resolver = PublicResolver {
            public: vec![to_page, to_metadata, to_localhost],
            ..PublicResolver::default()
        };
        let public = Fetcher::with_resolver(&opts, resolver);
        let err = public
            .get(&format!("http://{to_page}/"), 1000, None)
            .unwrap_err();
        assert!(
            err.contains("127.0.0.1 is a loopback address") && err.contains("--allow-private"),
            "{err}"
        );
        assert_eq!(to_page_hits.load(Ordering::SeqCst), 1);
        assert_eq!(
            page_hits.load(Ordering::SeqCst),
            0,
            "the redirect was followed"
        );
        let err = public
            .get(&format!("http://{to_metadata}/"), 1000, None)
            .unwrap_err();
        assert!(err.contains("169.254.169.254 is a link-local"), "{err}");
        let err = public
            .get(&format!("http://{to_localhost}/"), 1000, None)
            .unwrap_err();
        assert!(err.contains("localhost resolves to"), "{err}");
        let err = public
            .get(&format!("http://{page}/page"), 1000, None)
            .unwrap_err();
        assert!(err.contains("loopback"), "{err}");
        assert_eq!(page_hits.load(Ordering::SeqCst), 0);
        let err = check_start(&format!("http://{page}/docs/"), opts.policy).unwrap_err();
        assert!(err.to_string().contains("loopback"), "{err}");

        // Allowed anywhere (the CLI), the same redirect is followed to the page.
        let anywhere = Fetcher::new(&CrawlOptions {
            timeout: Duration::from_secs(10),
            ..CrawlOptions::default()
        });
        let r = anywhere
            .get(&format!("http://{to_page}/"), 1000, None)
            .unwrap();
        assert_eq!((r.status, r.body.as_str()), (200, body));
        assert_eq!(r.final_url, format!("http://{page}/page"));
        assert_eq!(page_hits.load(Ordering::SeqCst), 1);
        check_start(&format!("http://{page}/docs/"), FetchPolicy::default()).unwrap();
    }

    #[test]
    fn redirects_are_followed_relative_and_bounded() {
        let (looping, hits) = redirect_to("/again");
        let anywhere = Fetcher::new(&CrawlOptions {
            timeout: Duration::from_secs(10),
            ..CrawlOptions::default()
        });
        let err = anywhere
            .get(&format!("http://{looping}/"), 1000, None)
            .unwrap_err();
        assert!(err.contains("more than 10 redirects"), "{err}");
        assert_eq!(hits.load(Ordering::SeqCst), MAX_REDIRECTS + 1);
        let (elsewhere, _) = redirect_to("ftp://example.com/x");
        let err = anywhere
            .get(&format!("http://{elsewhere}/"), 1000, None)
            .unwrap_err();
        assert!(err.contains("not an http(s) URL"), "{err}");
    }

    #[test]
    fn mirror_paths_round_trip() {
        for (url, file) in [
            ("https://d.io/", "index.md"),
            ("https://d.io/tokio/", "tokio/index.md"),
            ("https://d.io/tokio/runtime.html", "tokio/runtime.html.md"),
            ("https://d.io/book/ch01", "book/ch01.md"),
        ] {
            let u = WebUrl::parse(url).unwrap();
            assert_eq!(page_path(&u).as_deref(), Some(file), "{url}");
            assert_eq!(page_url("https://d.io", file), url);
        }
        for bad in [
            "https://d.io/a//b",
            "https://d.io/.git/config",
            "https://d.io/a/.env",
        ] {
            assert_eq!(page_path(&WebUrl::parse(bad).unwrap()), None, "{bad}");
        }
    }

    #[test]
    fn sitemap_locations() {
        let xml = r#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
            <url><loc> https://d.io/docs/a.html </loc><lastmod>2026-01-01</lastmod></url>
            <url><loc>https://d.io/docs/b?x=1&amp;y=2</loc></url></urlset>"#;
        assert_eq!(
            sitemap_locs(xml),
            ["https://d.io/docs/a.html", "https://d.io/docs/b?x=1&y=2"]
        );
        assert!(sitemap_locs("not xml").is_empty());
    }

    #[test]
    fn scope_is_the_start_folder() {
        for (url, scope) in [
            ("https://d.io/tokio", "/tokio/"),
            ("https://d.io/tokio/", "/tokio/"),
            ("https://d.io/book/index.html", "/book/"),
            ("https://d.io", "/"),
        ] {
            assert_eq!(scope_of(&WebUrl::parse(url).unwrap()), scope, "{url}");
        }
    }
}
