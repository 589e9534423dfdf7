//! Fetching pages: one GET with the validators of the last crawl, redirects followed by
//! hand (each hop checked against the fetch policy), bodies bounded, HTML told apart.

use super::*;

/// What one GET answered.
#[derive(Debug)]
pub(super) struct Response {
    pub(super) status: u16,
    /// Lowercased `Content-Type`, empty when absent.
    pub(super) ctype: String,
    /// The URL answered, after redirects.
    pub(super) final_url: String,
    pub(super) etag: Option<String>,
    pub(super) last_modified: Option<String>,
    pub(super) body: String,
}

impl Response {
    pub(super) fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

pub(super) enum Fetched {
    Html {
        url: WebUrl,
        html: String,
        etag: Option<String>,
        last_modified: Option<String>,
    },
    /// 304 Not Modified: the page as the last crawl kept it.
    Unchanged(PageRecord),
    Skipped(String),
}

pub(super) struct Fetcher {
    pub(super) agent: ureq::Agent,
    pub(super) max_bytes: u64,
    /// Check each URL's host before asking for it: public addresses only, and the agent
    /// goes through a proxy, which resolves names out of the resolver's sight.
    pub(super) check_hosts: bool,
}

/// Most redirects followed from one URL.
pub(super) const MAX_REDIRECTS: usize = 10;

/// Resolves names as ureq does, refusing every address that is not public (`net`): each
/// connection a public-only crawl makes — every page, every redirect — passes here, so a
/// name cannot resolve one way when checked and another when connected to.
#[derive(Debug, Default)]
pub(super) struct PublicResolver {
    pub(super) inner: ureq::unversioned::resolver::DefaultResolver,
    /// Tests: addresses that stand for public ones (servers on loopback).
    #[cfg(test)]
    pub(super) public: Vec<std::net::SocketAddr>,
}

impl ureq::unversioned::resolver::Resolver for PublicResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: ureq::unversioned::transport::NextTimeout,
    ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
        let addrs = self.inner.resolve(uri, config, timeout)?;
        let host = uri.host().unwrap_or_default();
        // The proxy is the operator's choice; what goes through it is checked in `get`.
        if config
            .proxy()
            .is_some_and(|p| p.host().eq_ignore_ascii_case(host))
        {
            return Ok(addrs);
        }
        #[cfg(test)]
        let addrs_judged = addrs.iter().filter(|a| !self.public.contains(a));
        #[cfg(not(test))]
        let addrs_judged = addrs.iter();
        for a in addrs_judged {
            if let Some(why) = non_public(a.ip()) {
                return Err(ureq::Error::Io(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    net::refusal(host, a.ip(), why),
                )));
            }
        }
        Ok(addrs)
    }
}

/// A transport error in one line; a refused address is its refusal alone.
pub(super) fn describe(e: ureq::Error) -> String {
    match e {
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => io.to_string(),
        e => e.to_string(),
    }
}

impl Fetcher {
    pub(super) fn new(opts: &CrawlOptions) -> Fetcher {
        Fetcher::with_resolver(opts, PublicResolver::default())
    }

    /// A fetcher whose public-only agent resolves through `resolver`.
    pub(super) fn with_resolver(opts: &CrawlOptions, resolver: PublicResolver) -> Fetcher {
        // Redirects are followed in `get`, one checked hop at a time.
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(opts.timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(concat!(
                "lore/",
                env!("CARGO_PKG_VERSION"),
                " (docs indexer)"
            ))
            .build();
        let public = opts.policy.public_only;
        let check_hosts = public && config.proxy().is_some();
        let agent = if public {
            ureq::Agent::with_parts(
                config,
                ureq::unversioned::transport::DefaultConnector::default(),
                resolver,
            )
        } else {
            config.into()
        };
        Fetcher {
            agent,
            max_bytes: opts.max_page_bytes,
            check_hosts,
        }
    }

    /// One GET, its body read up to `limit` bytes, redirects followed (each hop checked like
    /// the first); `Err` is a transport failure (or an oversized body, a refused address) in
    /// one line. With `since`, the request is conditional on the page having changed since
    /// that record.
    pub(super) fn get(
        &self,
        url: &str,
        limit: u64,
        since: Option<&PageRecord>,
    ) -> Result<Response, String> {
        let mut current = url.to_string();
        let mut redirects = 0;
        let mut resp = loop {
            if self.check_hosts {
                let (host, port) = WebUrl::parse(&current)
                    .and_then(|u| u.host_port())
                    .ok_or_else(|| format!("{current} is not an http(s) URL"))?;
                net::resolve_public(&host, port)?;
            }
            let mut req = self.agent.get(&current);
            if let Some(r) = since {
                if let Some(etag) = &r.etag {
                    req = req.header("If-None-Match", etag);
                }
                if let Some(date) = &r.last_modified {
                    req = req.header("If-Modified-Since", date);
                }
            }
            let resp = req.call().map_err(describe)?;
            let status = resp.status().as_u16();
            if !matches!(status, 301 | 302 | 303 | 307 | 308) {
                break resp;
            }
            let location = resp
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| format!("HTTP {status} without a Location"))?;
            redirects += 1;
            if redirects > MAX_REDIRECTS {
                return Err(format!("more than {MAX_REDIRECTS} redirects"));
            }
            current = WebUrl::parse(&current)
                .and_then(|u| u.join(location))
                .ok_or_else(|| format!("redirected to {location:?}, not an http(s) URL"))?
                .to_string();
        };
        let status = resp.status().as_u16();
        let final_url = current;
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let ctype = header("content-type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let (etag, last_modified) = (header("etag"), header("last-modified"));
        let mut bytes = Vec::new();
        resp.body_mut()
            .as_reader()
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())?;
        if bytes.len() as u64 > limit {
            return Err(format!("larger than {limit} bytes"));
        }
        Ok(Response {
            status,
            ctype,
            final_url,
            etag,
            last_modified,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        })
    }

    /// GETs a page; conditionally when `previous` (the last crawl's record of it) has a
    /// validator and its file is still in the old mirror `old`.
    pub(super) fn page(&self, url: &WebUrl, previous: Option<&PageRecord>, old: &Path) -> Fetched {
        let previous = previous.filter(|p| {
            (p.etag.is_some() || p.last_modified.is_some()) && old.join(&p.file).is_file()
        });
        let r = match self.get(&url.to_string(), self.max_bytes, previous) {
            Ok(r) => r,
            Err(e) => return Fetched::Skipped(e),
        };
        if let (304, Some(p)) = (r.status, previous) {
            return Fetched::Unchanged(p.clone());
        }
        let html = r.ctype.is_empty()
            || r.ctype.starts_with("text/html")
            || r.ctype.starts_with("application/xhtml");
        if !r.ok() {
            Fetched::Skipped(format!("HTTP {}", r.status))
        } else if !html {
            Fetched::Skipped(format!("not HTML ({})", r.ctype))
        } else {
            match WebUrl::parse(&r.final_url) {
                Some(url) => Fetched::Html {
                    url,
                    html: r.body,
                    etag: r.etag,
                    last_modified: r.last_modified,
                },
                None => Fetched::Skipped(format!("redirected to {}", r.final_url)),
            }
        }
    }

    pub(super) fn robots(&self, site: &str) -> Result<Robots, SourceError> {
        let url = format!("{site}/robots.txt");
        match self.get(&url, 512 * 1024, None) {
            Ok(r) if r.ok() => Ok(Robots::parse(&r.body)),
            Ok(r) if r.status >= 500 => Err(web_error(
                &url,
                format!(
                    "answered HTTP {}; robots.txt must be readable before a crawl, try again later",
                    r.status
                ),
            )),
            // No robots.txt (4xx): everything is allowed.
            Ok(_) => Ok(Robots::default()),
            Err(e) => Err(web_error(&url, e)),
        }
    }

    /// Page URLs the site's sitemaps list (those robots.txt names, else `/sitemap.xml`),
    /// following a sitemap index one level. A sitemap that cannot be read gives nothing:
    /// links are still followed.
    pub(super) fn sitemap_pages(&self, site: &str, robots: &Robots) -> Vec<String> {
        let mut maps = robots.sitemaps.clone();
        if maps.is_empty() {
            maps.push(format!("{site}/sitemap.xml"));
        }
        let mut pages = Vec::new();
        let mut read = 0;
        while let Some(map) = maps.pop() {
            // Only the site's own sitemaps, and not too many of them.
            if read == MAX_SITEMAPS || !map.starts_with(&format!("{site}/")) {
                continue;
            }
            read += 1;
            let xml = match self.get(&map, 16 * 1024 * 1024, None) {
                Ok(r) if r.ok() => r.body,
                _ => continue,
            };
            if xml.contains("<sitemapindex") {
                maps.extend(sitemap_locs(&xml));
            } else {
                pages.extend(sitemap_locs(&xml));
            }
        }
        pages
    }
}
