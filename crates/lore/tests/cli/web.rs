//! Web stores: a documentation site on loopback crawled, searched, synced after edits, and
//! bad sites refused cleanly.

use crate::common::site::Site;
use crate::common::{Lore, assert_first};

const INDEX: &str = r#"<!doctype html><html><head><title>Quollkit docs</title></head><body>
<nav><a href="/">Home</a> <a href="guide/">Guide</a> <a href="api.html">API</a>
<a href="private/keys.html">Keys</a> <a href="/blog/post.html">Blog</a>
<a href="https://elsewhere.invalid/x">elsewhere</a> <a href="api.html?sort=desc">sorted</a></nav>
<main><h1>Quollkit</h1><p>Quollkit feeds marsupials on a schedule.</p></main></body></html>"#;

const GUIDE: &str = r#"<html><head><title>Guide</title></head><body><main><h1>Guide</h1>
<p>Read <a href="install.html#top">the install notes</a>, then <a href="../api.html">the API</a>.</p>
</main></body></html>"#;

const INSTALL: &str = r#"<html><head><title>Install</title></head><body><main>
<h1>Installing Quollkit</h1><p>Build the feeder daemon from source with <code>make feeder</code>,
then start it with <code>quollkit serve --port 9</code>.</p>
<a href="gone.html">an old page</a></main></body></html>"#;

const API: &str = r#"<html><head><title>API</title></head><body><article><h1>API reference</h1>
<h2>feed_quoll(name, grams)</h2><p>Dispenses pellets to one quoll and returns the remaining
stock in grams.</p></article><footer>Copyright Quollkit</footer></body></html>"#;

const FAQ: &str = r#"<html><head><title>FAQ</title></head><body><main><h1>FAQ</h1>
<h2>How often are quolls fed?</h2><p>Twice a day: the feeder opens its hopper at dawn and
again at dusk, and logs every portion it drops.</p></main></body></html>"#;

#[test]
fn web_store_crawls_a_site_and_syncs() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let site = Site::start(&[
        ("/robots.txt", "User-agent: *\nDisallow: /docs/private/\n"),
        ("/docs/", INDEX),
        ("/docs/guide/", GUIDE),
        ("/docs/guide/install.html", INSTALL),
        ("/docs/api.html", API),
        ("/docs/private/keys.html", "<p>secret launch keys</p>"),
        ("/blog/post.html", "<p>out of scope</p>"),
        ("/docs/faq.html", FAQ),
    ]);
    // A page no link reaches (navigation built by a script) is found in the sitemap; the
    // sitemap's out-of-scope entries are not followed.
    site.set(
        "/sitemap.xml",
        &format!(
            "<urlset><url><loc>{0}/docs/faq.html</loc></url>\
             <url><loc>{0}/blog/post.html</loc></url></urlset>",
            site.base
        ),
    );
    let start = site.url("/docs/");
    let added = lore.json(&["store", "add", "qdocs", &start, "--type", "web"]);
    let (store, report) = (&added["store"], &added["report"]);
    assert_eq!(store["kind"], "web", "{added:#}");
    assert_eq!(store["web"]["site"], site.base.as_str(), "{added:#}");
    let crawl = &report["crawl"];
    assert_eq!(crawl["pages"], 5, "{added:#}");
    assert_eq!(crawl["scope"], start.as_str());
    assert_eq!(crawl["skipped"][0]["reason"], "HTTP 404", "{added:#}");
    assert_eq!(report["added"], 5, "{added:#}");
    assert_first(
        &lore.search("how many times a day are the quolls fed", "hybrid", &[]),
        "docs/faq.html.md",
    );

    // Disallowed, out-of-scope, query-string and off-site links are never requested.
    let requests = site.requests();
    for never in [
        "/docs/private/keys.html",
        "/blog/post.html",
        "/",
        "/docs/api.html?sort=desc",
    ] {
        assert!(
            !requests.iter().any(|r| r == never),
            "{never} requested: {requests:?}"
        );
    }
    assert_eq!(
        requests.iter().filter(|r| *r == "/docs/api.html").count(),
        1,
        "{requests:?}"
    );

    // Pages answer by content, with their URL; chrome (nav, footer) is not indexed.
    let resp = lore.search(
        "how do I build the feeder daemon from source",
        "hybrid",
        &[],
    );
    assert_first(&resp, "docs/guide/install.html.md");
    assert_eq!(
        resp["results"][0]["url"],
        site.url("/docs/guide/install.html").as_str()
    );
    let resp = lore.search("feed_quoll", "fts", &[]);
    assert_first(&resp, "docs/api.html.md");
    assert_eq!(resp["results"][0]["symbol"], "feed_quoll(name, grams)");
    assert!(
        lore.search("Copyright", "fts", &[])["results"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // Sync re-crawls: an edited page is re-indexed, a removed one disappears.
    site.set(
        "/docs/api.html",
        &API.replace("pellets", "eucalyptus biscuits"),
    );
    site.remove("/docs/guide/install.html");
    let reports = lore.json(&["sync", "qdocs"]);
    let r = &reports[0];
    assert_eq!(
        (&r["changed"], &r["deleted"], &r["unchanged"]),
        (&1.into(), &1.into(), &3.into()),
        "{r:#}"
    );
    // The re-crawl was conditional: the pages kept last time were asked for with their
    // ETag, and the three unchanged ones were not downloaded again (their links were still
    // followed: the guide's link to the removed page found it gone).
    assert_eq!(r["crawl"]["unchanged"], 3, "{r:#}");
    assert_eq!(
        site.not_modified(),
        ["/docs/", "/docs/faq.html", "/docs/guide/"],
        "{r:#}"
    );
    assert_eq!(
        r["crawl"]["skipped"][0]["url"],
        site.url("/docs/guide/install.html").as_str()
    );
    assert_first(
        &lore.search("eucalyptus biscuits", "fts", &[]),
        "docs/api.html.md",
    );
    assert!(
        lore.search("daemon", "fts", &[])["results"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // Nothing changed: every page answers 304, the mirror is the same, nothing re-indexed.
    let r = &lore.json(&["sync", "qdocs"])[0];
    assert_eq!(
        (&r["crawl"]["unchanged"], &r["unchanged"]),
        (&4.into(), &4.into()),
        "{r:#}"
    );
    assert_first(
        &lore.search("eucalyptus biscuits", "fts", &[]),
        "docs/api.html.md",
    );

    // A page cap or a depth cap keeps the crawl small and says what was left.
    for (name, cap, n, pages) in [
        ("capped", "--max-pages", "1", 1),
        ("shallow", "--max-depth", "1", 4),
    ] {
        let added = lore.json(&["store", "add", name, &start, "--type", "web", cap, n]);
        let crawl = &added["report"]["crawl"];
        assert_eq!(crawl["pages"], pages, "{added:#}");
        assert!(crawl["unvisited"].as_u64().unwrap() > 0, "{added:#}");
    }
}

#[test]
fn bad_web_sources_fail_cleanly() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let site = Site::start(&[
        ("/robots.txt", "User-agent: *\nDisallow: /closed/\n"),
        ("/closed/index.html", "<p>no</p>"),
        ("/notes.txt", "plain"),
    ]);
    for (source, code, says) in [
        (
            "docs.example/tokio".to_string(),
            1,
            "not an http:// or https:// URL",
        ),
        (site.url("/missing/"), 1, "HTTP 404"),
        (site.url("/closed/index.html"), 1, "robots.txt"),
        (site.url("/notes.txt"), 1, "not HTML"),
        ("http://127.0.0.1:9/".to_string(), 1, "127.0.0.1:9"),
    ] {
        let err = lore.fails(&["store", "add", "w", &source, "--type", "web"], code);
        assert!(err.contains(says), "{source}: {err}");
    }
    let err = lore.fails(
        &[
            "store",
            "add",
            "w",
            &site.url("/"),
            "--type",
            "web",
            "--max-pages",
            "0",
        ],
        1,
    );
    assert!(err.contains("--max-pages"), "{err}");
    let err = lore.fails(&["store", "add", "w", "/tmp", "--max-depth", "2"], 1);
    assert!(err.contains("web stores only"), "{err}");
    // robots.txt is read before the start page: a disallowed page is never requested.
    assert!(
        !site.requests().iter().any(|r| r == "/closed/index.html"),
        "{:?}",
        site.requests()
    );
    // Nothing was left behind.
    assert!(lore.json(&["store", "list"]).as_array().unwrap().is_empty());
    let web = lore.data().join("web");
    assert!(!web.exists() || std::fs::read_dir(&web).unwrap().count() == 0);

    // A site built by JavaScript is indexed as it comes, with a warning that says why it
    // holds so little (no silent empty index).
    site.set(
        "/app/",
        r#"<html><head><title>App docs</title></head><body><div id="root"></div>
        <script src="/app/bundle.js"></script></body></html>"#,
    );
    let out = lore.run(&["store", "add", "spa", &site.url("/app/"), "--type", "web"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("warning: 1 of 1 pages hold almost no text"),
        "{out:?}"
    );
}
