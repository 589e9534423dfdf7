//! robots.txt (RFC 9309): the group for our user agent (else `*`), `Allow`/`Disallow` by
//! longest match with `*` and `$`, and `Crawl-delay`.

use std::time::Duration;

/// The product token lore's groups are matched by.
pub const AGENT: &str = "lore";

/// Longest `Crawl-delay` obeyed, in seconds.
pub const MAX_CRAWL_DELAY_SECS: f64 = 60.0;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Robots {
    /// `(allow, pattern)`.
    rules: Vec<(bool, String)>,
    pub crawl_delay: Option<Duration>,
    /// `Sitemap:` URLs (they belong to no group).
    pub sitemaps: Vec<String>,
}

impl Robots {
    /// Rules for `AGENT` from a robots.txt body. No group for it or `*` allows everything.
    pub fn parse(text: &str) -> Robots {
        #[derive(Default)]
        struct Group {
            agents: Vec<String>,
            robots: Robots,
        }
        let mut groups: Vec<Group> = Vec::new();
        let mut sitemaps = Vec::new();
        let mut in_agents = false;
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
            if key == "sitemap" {
                sitemaps.push(value.to_string());
                continue;
            }
            if key == "user-agent" {
                if !in_agents {
                    groups.push(Group::default());
                    in_agents = true;
                }
                if let Some(g) = groups.last_mut() {
                    g.agents.push(value.to_ascii_lowercase());
                }
                continue;
            }
            in_agents = false;
            let Some(g) = groups.last_mut() else { continue };
            match key.as_str() {
                "allow" | "disallow" if !value.is_empty() => {
                    g.robots.rules.push((key == "allow", value.to_string()))
                }
                "crawl-delay" => {
                    // Capped: `Duration::from_secs_f64` panics past u64 seconds (a fuzzed
                    // `Crawl-delay: 1e300`), and the crawl sleeps this long before each page.
                    g.robots.crawl_delay = value
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s >= 0.0)
                        .map(|s| Duration::from_secs_f64(s.min(MAX_CRAWL_DELAY_SECS)))
                }
                _ => {}
            }
        }
        let pick = |want: &dyn Fn(&str) -> bool| {
            let mut chosen: Option<Robots> = None;
            for g in groups.iter().filter(|g| g.agents.iter().any(|a| want(a))) {
                // Several groups for the same agent are merged (RFC 9309, 2.2.1).
                let c = chosen.get_or_insert_with(Robots::default);
                c.rules.extend(g.robots.rules.iter().cloned());
                c.crawl_delay = c.crawl_delay.or(g.robots.crawl_delay);
            }
            chosen
        };
        let mut robots = pick(&|a| a == AGENT)
            .or_else(|| pick(&|a| a == "*"))
            .unwrap_or_default();
        robots.sitemaps = sitemaps;
        robots
    }

    /// Whether `path` (with its query) may be fetched: the longest matching rule wins, an
    /// `Allow` on a tie.
    pub fn allows(&self, path: &str) -> bool {
        let mut best: Option<(usize, bool)> = None;
        for (allow, pattern) in &self.rules {
            if matches(pattern, path) {
                let len = pattern.len();
                best = match best {
                    Some((l, a)) if l > len || (l == len && a) => Some((l, a)),
                    _ => Some((len, *allow)),
                };
            }
        }
        best.is_none_or(|(_, allow)| allow)
    }
}

/// A robots.txt path pattern: a prefix match where `*` is any run of characters and a
/// final `$` anchors the end.
fn matches(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let parts: Vec<&str> = pattern.split('*').collect();
    let Some(first) = parts.first() else {
        return true;
    };
    let Some(mut rest) = path.strip_prefix(first) else {
        return false;
    };
    for (i, part) in parts.iter().enumerate().skip(1) {
        let last = i + 1 == parts.len();
        if last && anchored {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    !anchored || rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_our_group_else_star() {
        let txt = "User-agent: *\nDisallow: /private/\n\nUser-agent: Lore\nUser-agent: other\nDisallow: /lore-only/\nCrawl-delay: 0.5\nSitemap: https://d.io/sitemap.xml\n";
        let r = Robots::parse(txt);
        assert!(!r.allows("/lore-only/x"));
        assert!(r.allows("/private/x"));
        assert_eq!(r.crawl_delay, Some(Duration::from_millis(500)));
        assert_eq!(r.sitemaps, ["https://d.io/sitemap.xml"]);
        let star = Robots::parse("user-agent: *\ndisallow: /private/ # comment\n");
        assert!(!star.allows("/private/a.html"));
        assert!(star.allows("/public/a.html"));
        assert!(Robots::parse("").allows("/anything"));
        assert!(Robots::parse("User-agent: *\nDisallow:\n").allows("/x"));
    }

    #[test]
    fn longest_match_wins_with_wildcards() {
        let r = Robots::parse(
            "User-agent: *\nDisallow: /docs/\nAllow: /docs/guide/\nDisallow: /*.pdf$\nDisallow: /*?sort=\n",
        );
        assert!(!r.allows("/docs/api.html"));
        assert!(r.allows("/docs/guide/intro.html"));
        assert!(!r.allows("/files/a.pdf"));
        assert!(r.allows("/files/a.pdf.html"));
        assert!(!r.allows("/list?sort=name"));
        assert!(r.allows("/list?page=2"));
        let all = Robots::parse("User-agent: *\nDisallow: /\n");
        assert!(!all.allows("/"));
        assert!(!all.allows("/index.html"));
    }
}
