//! The web page in a real browser: Debian's Chromium, headless, loads the page `lore serve`
//! answers at `/`, runs its script against the REST API and hands back the DOM it built
//! (`--dump-dom` after the page's network and timers settle) and a screenshot, written
//! under `target/web-screenshots/`. Needs `chromium` (`LORE_CHROMIUM` names another);
//! without it these skip locally and fail under CI (`.ci/run` installs it).

/// Whether `lore` keeps its catalog in PostgreSQL here (the `*_postgres` suites).
const ON_POSTGRES: bool = false;

mod common;
#[path = "web/driver.rs"]
mod driver;

use common::serve::{Server, post};
use common::{Lore, copy_shop, run_command, write};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn chromium_or_skip() -> Option<PathBuf> {
    tool_or_skip("LORE_CHROMIUM", "chromium", "chromium")
}

/// The program `env` names (else `bin`), if `--version` runs; under CI its absence fails,
/// naming the Debian `package` that has it.
fn tool_or_skip(env: &str, bin: &str, package: &str) -> Option<PathBuf> {
    let bin = std::env::var_os(env)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(bin));
    let found = Command::new(&bin)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        if std::env::var_os("CI").is_some() {
            panic!(
                "CI is set but {} does not run; install Debian's {package}",
                bin.display()
            );
        }
        eprintln!("skipping: no {} to drive (set {env})", bin.display());
        return None;
    }
    Some(bin)
}

/// Chromium without a window or any request of its own (the machine's network is closed).
const HEADLESS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// Headless Chromium on `url` with a fresh profile, as the machine's closed network needs
/// it (no background requests); `extra` picks what it prints or writes.
fn browse(chromium: &Path, root: &Path, url: &str, extra: &[&str]) -> String {
    let profile = tempfile::tempdir_in(root).expect("profile dir");
    let mut cmd = Command::new(chromium);
    cmd.args(HEADLESS)
        .args([
            "--hide-scrollbars",
            "--window-size=1280,800",
            "--virtual-time-budget=15000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url);
    let out = run_command(&mut cmd, Duration::from_secs(120));
    assert_eq!(out.code, 0, "chromium failed on {url}: {}", out.stderr);
    out.stdout
}

fn dom(chromium: &Path, root: &Path, url: &str) -> String {
    browse(chromium, root, url, &["--dump-dom"])
}

/// A screenshot of `url` as `target/web-screenshots/NAME.png`, for people to look at.
fn screenshot(chromium: &Path, root: &Path, url: &str, name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/web-screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    let file = dir.join(format!("{name}.png"));
    browse(
        chromium,
        root,
        url,
        &[&format!("--screenshot={}", file.display())],
    );
    assert!(
        file.metadata().is_ok_and(|m| m.len() > 1000),
        "{name}.png was not written"
    );
}

/// The text between `<tag …>` and `</tag>` of the first element that has `marker` in its
/// opening tag.
fn element<'a>(dom: &'a str, marker: &str, tag: &str) -> Option<&'a str> {
    let at = dom.find(marker)?;
    let start = dom[at..].find('>')? + at + 1;
    let end = dom[start..].find(&format!("</{tag}>"))? + start;
    Some(&dom[start..end])
}

/// The page's test world: chromium, a test root, and `lore serve` (with `env`) over a
/// lexical store of the Python shop fixture (no model needed) plus a note holding markup.
fn shop(env: &[(&str, &str)]) -> Option<(PathBuf, Lore, Server)> {
    let chromium = chromium_or_skip()?;
    let lore = Lore::without_model();
    let src = copy_shop(&lore);
    write(
        &src,
        "NOTES.md",
        "# Checkout notes\n\nDiscount codes are applied at checkout. \
         <script>document.title = 'pwned'</script><img src=x onerror=\"document.title='pwned'\">\n",
    );
    lore.ok(&[
        "store",
        "add",
        "shop",
        src.to_str().unwrap(),
        "--embed",
        "none",
    ]);
    let server = Server::start_with(&lore, &["--addr", "127.0.0.1:0", "--no-watch"], env);
    Some((chromium, lore, server))
}

/// Search → open a result's context → follow a caller, each by its URL, in the browser.
#[test]
fn search_open_a_result_and_follow_a_caller_in_the_browser() {
    let Some((chromium, lore, server)) = shop(&[]) else {
        return;
    };
    let page = |q: &str| format!("{}/?{q}", server.url);

    // The page answers the URL's search with the results as agents get them.
    let search = page("q=apply_code&mode=fts");
    let d = dom(&chromium, lore.root(), &search);
    let first = element(&d, "class=\"first\"", "li").unwrap_or_else(|| panic!("no results:\n{d}"));
    assert!(first.contains("apply_code"), "{first}");
    assert!(first.contains("shop:shop/cart.py:33-"), "{first}");
    let status = element(&d, "id=\"status\"", "section").unwrap_or_default();
    assert!(
        status.contains("results in") && status.contains("fts"),
        "{status}"
    );
    screenshot(&chromium, lore.root(), &search, "search");

    // The same search through the API names the result; `&id=` opens its context.
    let (code, r) = post(
        &server.api("/api/search"),
        &json!({"query": "apply_code", "mode": "fts"}),
    );
    assert_eq!(code, 200, "{r}");
    let id = r["results"][0]["id"].as_str().unwrap().to_string();
    let opened = page(&format!("q=apply_code&mode=fts&id={id}"));
    let d = dom(&chromium, lore.root(), &opened);
    let context = element(&d, "id=\"context\"", "article").unwrap_or_else(|| panic!("{d}"));
    // The unit the search showed, the method (its class is small enough to be one chunk,
    // but the result's id names the method alone).
    assert!(context.contains("<h2>Cart.apply_code</h2>"), "{context}");
    assert!(context.contains("class=\"code\""), "the code: {context}");
    // Coloured as Python: keywords, and the text still whole.
    assert!(
        context.contains("<span class=\"tok-keyword\">def</span> apply_code(<span class=\"tok-keyword\">self</span>, code):"),
        "{context}"
    );
    assert!(context.contains("<h3>Callers</h3>"), "{context}");
    assert!(context.contains("<h3>Outline</h3>"), "{context}");
    screenshot(&chromium, lore.root(), &opened, "context");

    // An id the results do not list still opens; one that names nothing says so, in the
    // pane, rather than leaving it blank.
    let d = dom(
        &chromium,
        lore.root(),
        &page("q=apply_code&mode=fts&id=garbage"),
    );
    let bad = element(&d, "id=\"context\"", "article").unwrap_or_else(|| panic!("{d}"));
    assert!(bad.contains("is not a result id"), "{bad}");
    let d = dom(&chromium, lore.root(), &page(&format!("id={id}")));
    let alone = element(&d, "id=\"context\"", "article").unwrap_or_else(|| panic!("{d}"));
    assert!(
        alone.contains("<h2>Cart.apply_code</h2>"),
        "a result id alone opens its unit: {alone}"
    );

    // A caller is a link to its own unit: the file and line it starts on, which opens it.
    let href = context
        .split("href=\"")
        .filter_map(|s| s.split('"').next())
        .find(|h| h.contains("view=file") && h.contains("cli.py"))
        .unwrap_or_else(|| panic!("no link to the caller main: {context}"))
        .replace("&amp;", "&");
    assert!(href.contains("line="), "{href}");
    let d = dom(&chromium, lore.root(), &format!("{}/{href}", server.url));
    let caller = element(&d, "id=\"context\"", "article").unwrap_or_else(|| panic!("{d}"));
    assert!(
        caller.contains("<h2>main</h2>") && caller.contains("shop/cli.py"),
        "{caller}"
    );
}

/// A symbol's callers and callees two levels deep, each node a link to its own graph.
#[test]
fn the_graph_view_shows_callers_and_callees_two_levels_deep() {
    let Some((chromium, lore, server)) = shop(&[]) else {
        return;
    };
    let d = dom(
        &chromium,
        lore.root(),
        &format!("{}/?graph=apply_discount", server.url),
    );
    let graph = element(&d, "id=\"context\"", "article").unwrap_or_else(|| panic!("{d}"));
    assert!(
        graph.contains("def apply_discount(amount, code=None, vip=False)"),
        "{graph}"
    );
    assert!(
        graph.contains("Callers (4 resolved, 0 by name only)"),
        "{graph}"
    );
    // Cart.total calls it, and Cart.describe calls Cart.total: two levels.
    let callers = graph
        .split("class=\"graph callers\"")
        .nth(1)
        .and_then(|rest| rest.split("class=\"graph callees\"").next())
        .unwrap_or_else(|| panic!("{graph}"));
    assert!(callers.contains(">Cart.total</a>"), "{callers}");
    assert!(
        callers.contains("?graph=Cart.describe"),
        "the second level: {callers}"
    );
    assert_eq!(
        callers
            .matches(">test_discount_codes_are_case_insensitive</a>")
            .count(),
        1,
        "once: {callers}"
    );
    assert!(graph.contains("class=\"graph callees\""), "{graph}");
    screenshot(
        &chromium,
        lore.root(),
        &format!("{}/?graph=Cart.total", server.url),
        "graph",
    );
}

/// The stores with their counts and freshness, and the jobs (none yet here).
#[test]
fn the_stores_view_lists_stores_and_jobs() {
    let Some((chromium, lore, server)) = shop(&[]) else {
        return;
    };
    let (code, info) = common::serve::get(&server.api("/api/stores/shop"));
    assert_eq!(code, 200, "{info}");
    let d = dom(
        &chromium,
        lore.root(),
        &format!("{}/?view=stores", server.url),
    );
    let row = element(&d, "data-store=\"shop\"", "tr").unwrap_or_else(|| panic!("{d}"));
    let cells: Vec<&str> = row
        .split("<td>")
        .skip(1)
        .map(|c| c.split("</td>").next().unwrap_or(""))
        .collect();
    assert!(
        cells[0].contains(">shop</a>"),
        "the name links to its files: {row}"
    );
    assert_eq!(
        &cells[1..5],
        [
            "folder",
            &info["files"].to_string(),
            &info["chunks"].to_string(),
            "keyword only"
        ],
        "{row}"
    );
    assert!(cells[5].ends_with("s ago"), "{row}");
    assert!(d.contains("no jobs yet"), "{d}");
    let status = element(&d, "id=\"status\"", "section").unwrap_or_default();
    assert!(status.contains("1 stores · 0 jobs"), "{status}");
    screenshot(
        &chromium,
        lore.root(),
        &format!("{}/?view=stores", server.url),
        "stores",
    );
}

/// Text from the index is shown, never run: a note's `<script>` and `onerror` stay inert,
/// and the page is served with a policy that allows its own files only.
#[test]
fn markup_in_results_renders_inert() {
    let Some((chromium, lore, server)) = shop(&[]) else {
        return;
    };
    let d = dom(
        &chromium,
        lore.root(),
        &format!(
            "{}/?q=discount+codes+checkout&mode=fts&detail=contextual",
            server.url
        ),
    );
    assert!(
        d.contains("<title>lore</title>"),
        "the title was changed: {d}"
    );
    assert!(d.contains("NOTES.md"), "{d}");
    assert!(
        d.contains("&lt;script&gt;"),
        "the note's markup as text: {d}"
    );
    assert_eq!(
        d.matches("<script").count(),
        6,
        "only the page's own scripts: {d}"
    );
    assert!(!d.contains("<img"), "{d}");
    let resp = ureq::get(&format!("{}/", server.url))
        .call()
        .expect("the page");
    let csp = resp
        .headers()
        .get("content-security-policy")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    assert!(
        csp.contains("default-src 'none'") && csp.contains("script-src 'self'"),
        "{csp}"
    );
}

/// With a token, the page itself loads (it holds no data), the API refuses it, and the page
/// asks for the token.
#[test]
fn a_token_protected_server_asks_for_the_token() {
    let Some((chromium, lore, server)) = shop(&[("LORE_TOKEN", "s3cret-token-for-the-test")])
    else {
        return;
    };
    let d = dom(
        &chromium,
        lore.root(),
        &format!("{}/?q=apply_code&mode=fts", server.url),
    );
    let tag = d
        .find("id=\"token-box\"")
        .map(|i| &d[i.saturating_sub(20)..i + 40]);
    assert!(
        tag.is_some_and(|t| !t.contains("hidden")),
        "the token box shows: {d}"
    );
    let status = element(&d, "id=\"status\"", "section").unwrap_or_default();
    assert!(status.contains("bearer token"), "{status}");
    assert!(
        !d.contains("class=\"first\""),
        "no results without the token: {d}"
    );
}

/// The brain view: notes, wiki pages and session logs listed; a note opened renders its
/// markdown (headings, lists, code, links) and frontmatter, its markup inert and a
/// `javascript:` link shown as text; a session log reads as a timeline.
#[test]
fn the_brain_view_lists_and_renders_notes_safely() {
    let Some((chromium, lore, server)) = shop(&[]) else {
        return;
    };
    let brain = lore.data().join("brain");
    write(
        &brain,
        "knowledge/checkout/discounts.md",
        "---\ntype: insight\ndomain: billing\n---\n# Discount codes\n\nApplied at **checkout**, see \
         [the cart](cart.md) and [docs](https://example.org/d).\n\n- one code per order\n- codes expire\n\n\
         ```\napply_code(cart, \"SAVE10\")\n```\n\n<script>document.title = 'pwned'</script>\
         <img src=x onerror=\"document.title='pwned'\"> [click](javascript:document.title='pwned')\n",
    );
    write(
        &brain,
        "knowledge/checkout/cart.md",
        "# Cart\n\nHolds items.\n",
    );
    write(
        &brain,
        "sessions/s-7.jsonl",
        "{\"timestamp\":\"2026-12-01T10:00:00.000Z\",\"session_id\":\"s-7\",\"phase\":\"plan\",\"message\":\"read the cart\"}\n\
         {\"timestamp\":\"2026-12-01T10:05:00.000Z\",\"session_id\":\"s-7\",\"final_status\":\"ok\",\"duration_ms\":300000}\n",
    );
    let page = |q: &str| format!("{}/?view=brain{q}", server.url);

    let d = dom(&chromium, lore.root(), &page(""));
    let notes = element(&d, "data-area=\"knowledge\"", "ul").unwrap_or_else(|| panic!("{d}"));
    assert!(
        notes.contains("Discount codes") && notes.contains("insight · billing"),
        "{notes}"
    );
    assert!(notes.contains("knowledge/checkout/cart.md"), "{notes}");
    let logs = element(&d, "data-area=\"sessions\"", "ul").unwrap_or_default();
    assert!(logs.contains("sessions/s-7.jsonl"), "{logs}");
    assert!(d.contains("id=\"note-form\""), "the write form: {d}");
    screenshot(&chromium, lore.root(), &page(""), "brain");

    let url = page("&path=knowledge/checkout/discounts.md");
    let d = dom(&chromium, lore.root(), &url);
    let body = element(&d, "class=\"markdown\"", "div").unwrap_or_else(|| panic!("{d}"));
    assert!(body.contains("<h3>Discount codes</h3>"), "{body}");
    assert!(body.contains("<strong>checkout</strong>"), "{body}");
    assert!(body.contains("<li>one code per order</li>"), "{body}");
    assert!(body.contains("apply_code(cart, \"SAVE10\")"), "{body}");
    assert!(
        body.contains("href=\"?view=brain&amp;path=knowledge%2Fcheckout%2Fcart.md\""),
        "a relative note link opens that note: {body}"
    );
    assert!(body.contains("href=\"https://example.org/d\""), "{body}");
    assert!(body.contains("&lt;script&gt;"), "markup as text: {body}");
    assert!(body.contains("click (javascript:"), "{body}");
    assert!(
        !body.contains("<img") && !body.contains("href=\"javascript"),
        "{body}"
    );
    assert!(
        d.contains("<title>lore</title>"),
        "the title was changed: {d}"
    );
    let fm = element(&d, "class=\"frontmatter\"", "table").unwrap_or_default();
    assert!(fm.contains("<th>domain</th><td>billing</td>"), "{fm}");
    screenshot(&chromium, lore.root(), &url, "brain-note");

    let d = dom(&chromium, lore.root(), &page("&path=sessions/s-7.jsonl"));
    let timeline = element(&d, "class=\"timeline\"", "ol").unwrap_or_else(|| panic!("{d}"));
    let plan = timeline.find("read the cart").expect("first event");
    let done = timeline.find("duration_ms: 300000").expect("second event");
    assert!(plan < done, "oldest first: {timeline}");

    let d = dom(
        &chromium,
        lore.root(),
        &page("&path=knowledge/../../secret.md"),
    );
    let status = element(&d, "id=\"status\"", "section").unwrap_or_default();
    assert!(
        status.contains("error:") && status.contains(".."),
        "{status}"
    );
}

/// Driven as a person would: in the stores view, add a folder store through the form and
/// watch its job finish; then type a query, press Enter, move to the first result with the
/// arrow key and open it with Enter.
#[test]
fn a_person_adds_a_store_and_searches_it_with_the_keyboard() {
    let Some(chromedriver) = driver::chromedriver_or_skip() else {
        return;
    };
    let Some((chromium, lore, server)) = shop(&[]) else {
        return;
    };
    drop(server);
    let root = lore.root().display().to_string();
    let server = Server::start_with(
        &lore,
        &["--addr", "127.0.0.1:0", "--no-watch", "--allow-path", &root],
        &[],
    );
    let docs = lore.path("docs");
    write(
        &docs,
        "guide.md",
        "# Refunds\n\nA refund returns the payment to the card within five days.\n",
    );
    let b = driver::Driver::start(&chromedriver, &chromium, lore.root());
    b.goto(&format!("{}/?view=stores", server.url));
    b.type_into("form.add-store input[name=name]", "docs");
    b.type_into("form.add-store input[name=source]", docs.to_str().unwrap());
    b.click("form.add-store select[name=embed] option[value=none]");
    b.click("form.add-store button");
    let d = b.wait_for(60, "the new store listed and its job done", |d| {
        d.contains("data-store=\"docs\"") && d.contains("data-status=\"done\"")
    });
    let row = element(&d, "data-store=\"docs\"", "tr").unwrap_or_default();
    assert!(row.contains("keyword only"), "{row}");
    let (code, info) = common::serve::get(&server.api("/api/stores/docs"));
    assert_eq!((code, info["files"].as_u64()), (200, Some(1)), "{info}");

    b.goto(&format!("{}/", server.url));
    b.type_into("#q", "refund payment card\u{E007}");
    b.wait_for(30, "results", |d| d.contains("class=\"first\""));
    assert!(
        b.current_url().contains("q=refund+payment+card"),
        "the search is in the URL: {}",
        b.current_url()
    );
    b.type_into("#q", "\u{E015}");
    b.type_into("#results li.first", "\u{E007}");
    let d = b.wait_for(30, "the first result's context", |d| {
        element(d, "id=\"context\"", "article").is_some_and(|c| c.contains("<h2>"))
    });
    let context = element(&d, "id=\"context\"", "article").unwrap_or_default();
    assert!(context.contains("guide.md"), "{context}");
    assert!(b.current_url().contains("&id="), "{}", b.current_url());
}

/// Driven as a person would: write a note in the brain view's form, land on it rendered,
/// then find it with the brain search.
#[test]
fn a_person_writes_a_note_and_finds_it() {
    let Some(chromedriver) = driver::chromedriver_or_skip() else {
        return;
    };
    let Some((chromium, lore, server)) = shop(&[]) else {
        return;
    };
    let b = driver::Driver::start(&chromedriver, &chromium, lore.root());
    b.goto(&format!("{}/?view=brain", server.url));
    b.type_into("#note-form input[name=filename]", "animals/wombat");
    b.type_into("#note-form input[name=type]", "fact");
    b.type_into(
        "#note-form textarea",
        "# Wombat burrows\n\nWombats dig **long** burrows with their claws.",
    );
    b.click("#note-form button");
    let d = b.wait_for(30, "the written note shown", |d| {
        d.contains("<h3>Wombat burrows</h3>")
    });
    assert!(d.contains("<strong>long</strong>"), "{d}");
    assert!(d.contains("<th>type</th><td>fact</td>"), "{d}");
    assert!(
        b.current_url()
            .contains("path=knowledge%2Fanimals%2Fwombat.md"),
        "{}",
        b.current_url()
    );
    assert!(
        lore.data()
            .join("brain/knowledge/animals/wombat.md")
            .is_file()
    );

    b.type_into(".brain-search input", "burrows claws\u{E007}");
    let d = b.wait_for(30, "the note found", |d| {
        d.contains("data-path=\"knowledge/animals/wombat.md\"")
    });
    assert!(d.contains("Matches for"), "{d}");

    // A bad name is refused with the tool's own error, and nothing is written.
    b.goto(&format!("{}/?view=brain", server.url));
    b.type_into("#note-form input[name=filename]", "../escape");
    b.type_into("#note-form textarea", "x");
    b.click("#note-form button");
    let status = b.wait_for(30, "the refusal", |d| {
        element(d, "id=\"status\"", "section").is_some_and(|s| s.contains("error:"))
    });
    let status = element(&status, "id=\"status\"", "section").unwrap_or_default();
    assert!(status.contains(".."), "{status}");
    assert!(!lore.data().join("brain/escape.md").exists());
}

/// Judge runs: two real `lore eval judge` runs (the judge a command answering fixed scores)
/// drawn as a trend of their averages and listed; one opened shows its summary and each
/// query's scores and the judge's words. `lore eval runs` lists the same.
#[test]
fn the_judge_view_charts_runs_and_opens_one() {
    let Some((chromium, lore, server)) = shop(&[]) else {
        return;
    };
    write(
        lore.root(),
        "queries.json",
        json!({"queries": [
            {"query": "apply a discount code", "intent": "find-implementation"},
            {"query": "cart total", "intent": "find-definition"}
        ]})
        .to_string(),
    );
    write(
        lore.root(),
        "judge.sh",
        format!(
            "#!/bin/sh\ncat > /dev/null\ncat '{}'\n",
            lore.path("answer.json").display()
        ),
    );
    let judge_cmd = format!("sh '{}'", lore.path("judge.sh").display());
    let mut names = Vec::new();
    for (overall, words) in [
        (0.5, "misses the checkout"),
        (0.75, "finds apply_code first"),
    ] {
        let answer = json!({
            "scores": {"relevance": 0.75, "ranking": overall, "coverage": 0.5, "snippetQuality": 1, "overall": overall},
            "analysis": {"relevance": "r", "ranking": "k", "coverage": "c", "snippetQuality": "s", "overall": words},
            "suggestions": ["Rank definitions first"],
            "resultAssessments": [{"rank": 1, "source": "x", "relevant": true}]
        });
        write(lore.root(), "answer.json", answer.to_string());
        let run = lore.json(&[
            "eval",
            "judge",
            "--judge-cmd",
            &judge_cmd,
            "--queries-file",
            "queries.json",
            "--mode",
            "fts",
            "--limit",
            "3",
        ]);
        assert_eq!(run["judgedQueries"], 2, "{run}");
        let out = run["out"].as_str().unwrap();
        names.push(out.rsplit('/').next().unwrap().to_string());
    }
    let listed = lore.json(&["eval", "runs"]);
    let listed: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(listed, names, "oldest first");

    let url = format!("{}/?view=judge", server.url);
    let d = dom(&chromium, lore.root(), &url);
    let chart = element(&d, "class=\"trend\"", "svg").unwrap_or_else(|| panic!("{d}"));
    assert_eq!(
        chart.matches("<polyline").count(),
        5,
        "one line per dimension: {chart}"
    );
    assert_eq!(
        chart.matches("<circle").count(),
        10,
        "a point per run and dimension"
    );
    for name in &names {
        let row = element(&d, &format!("data-run=\"{name}\""), "tr").unwrap_or_default();
        assert!(row.contains("fts") && row.contains("2/2"), "{row}");
    }
    let newest = element(&d, &format!("data-run=\"{}\"", names[1]), "tr").unwrap_or_default();
    assert!(newest.contains(">0.750<"), "{newest}");
    screenshot(&chromium, lore.root(), &url, "judge");

    let url = format!("{}/?view=judge&run={}", server.url, names[1]);
    let d = dom(&chromium, lore.root(), &url);
    let queries = element(&d, "class=\"runs queries\"", "table").unwrap_or_else(|| panic!("{d}"));
    assert!(queries.contains("apply a discount code"), "{queries}");
    assert!(
        queries.contains("finds apply_code first"),
        "the judge's words: {queries}"
    );
    assert!(d.contains("Focus: coverage"), "{d}");
    assert!(d.contains("Rank definitions first"), "{d}");

    let (code, err) = common::serve::get(&server.api("/api/eval/runs/none.jsonl"));
    assert_eq!(code, 404, "{err}");
    let (code, err) = common::serve::get(&server.api("/api/eval/runs/..%2Fsecret.jsonl"));
    assert_eq!(code, 400, "{err}");
}

/// The add form as a person meets it: each refusal is shown beside the form and stays,
/// with what was typed, while the jobs list refreshes; browsing a store's files reaches a
/// unit; the call graph is drawn and its nodes are links; a narrow window stacks the panes
/// and a dark scheme darkens the page.
#[test]
fn the_add_form_keeps_errors_and_input_and_the_store_can_be_browsed() {
    let Some(chromedriver) = driver::chromedriver_or_skip() else {
        return;
    };
    let Some((chromium, lore, server)) = shop(&[]) else {
        return;
    };
    drop(server);
    let allowed = lore.path("allowed");
    std::fs::create_dir_all(&allowed).unwrap();
    let outside = lore.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let server = Server::start_with(
        &lore,
        &[
            "--addr",
            "127.0.0.1:0",
            "--no-watch",
            "--allow-path",
            allowed.to_str().unwrap(),
        ],
        &[],
    );
    let b = driver::Driver::start(&chromedriver, &chromium, lore.root());
    b.goto(&format!("{}/?view=stores", server.url));
    let missing = allowed.join("nope");
    for (name, source, said) in [
        ("bad name!", allowed.to_str().unwrap(), "name"),
        ("rel", "relative/path", "relative"),
        ("out", outside.to_str().unwrap(), "allow"),
        ("gone", missing.to_str().unwrap(), "nope"),
        ("shop", allowed.to_str().unwrap(), "exists"),
    ] {
        b.execute(
            "for (const f of ['name', 'source']) \
             document.querySelector(`form.add-store input[name=${f}]`).value = '';",
        );
        b.type_into("form.add-store input[name=name]", name);
        b.type_into("form.add-store input[name=source]", source);
        b.click("form.add-store button");
        let d = b.wait_for(20, "the refusal shown", |d| {
            element(d, "form-error", "p").is_some_and(|e| e.contains("could not add"))
        });
        let shown = element(&d, "form-error", "p").unwrap_or_default();
        assert!(shown.to_lowercase().contains(said), "{name}: {shown}");
        // Still there after two refreshes of the view, as typed.
        std::thread::sleep(Duration::from_millis(3200));
        let d = b.source();
        assert!(
            element(&d, "form-error", "p").is_some_and(|e| e.contains("could not add")),
            "{name}: the error went away: {d}"
        );
        assert_eq!(b.value("form.add-store input[name=name]"), name);
        assert_eq!(b.value("form.add-store input[name=source]"), source);
    }

    // Browse: the store's top folder, a sub-folder, a file's outline, a unit.
    b.goto(&format!("{}/?view=files&store=shop", server.url));
    b.click("ul.tree li.dir a");
    b.wait_for(20, "the shop folder", |d| d.contains("cart.py"));
    b.click("ul.tree a[href*='cart.py']");
    let d = b.wait_for(20, "cart.py's outline", |d| d.contains("class=\"outline\""));
    assert!(d.contains("apply_code"), "{d}");
    b.click("ul.outline a[href*='id=']");
    b.wait_for(20, "a unit of cart.py", |d| {
        element(d, "id=\"context\"", "article").is_some_and(|c| c.contains("class=\"code\""))
    });

    // The graph: drawn, a node followed by a click.
    b.goto(&format!("{}/?graph=apply_code", server.url));
    b.wait_for(20, "the drawn graph", |d| d.contains("class=\"callgraph\""));
    b.click("svg.callgraph a.node:not(.center)");
    b.wait_for(20, "the clicked node's graph", |_| {
        b.current_url().contains("graph=") && !b.current_url().contains("graph=apply_code")
    });

    // The store's map, reached from the stores view: modules and hubs, a hub to its graph.
    b.goto(&format!("{}/?view=stores", server.url));
    b.wait_for(20, "the stores table", |d| d.contains("map-link"));
    b.click("a.map-link");
    let d = b.wait_for(20, "the map", |d| d.contains("Hubs: most referenced"));
    assert!(d.contains("Modules: files that call each other"), "{d}");
    b.click("ul.map a.graph-link");
    b.wait_for(20, "a hub's graph", |d| d.contains("class=\"callgraph\""));
    drop(b);

    // 800 px: one column, the unit below the results; a dark scheme: a dark background.
    let b = driver::Driver::start_with(
        &chromedriver,
        &chromium,
        lore.root(),
        &[
            "--window-size=800,900",
            "--force-dark-mode",
            "--blink-settings=preferredColorScheme=0",
        ],
    );
    b.goto(&format!("{}/?q=apply_code&mode=fts", server.url));
    b.click("#results li.first");
    b.wait_for(20, "the unit open", |d| {
        element(d, "id=\"context\"", "article").is_some_and(|c| c.contains("class=\"code\""))
    });
    let columns = b.execute(
        "return getComputedStyle(document.querySelector('main')).gridTemplateColumns.split(' ').length;",
    );
    assert_eq!(columns, json!(1), "one column at 800 px");
    let bg = b.execute("return getComputedStyle(document.body).backgroundColor;");
    assert_eq!(bg, json!("rgb(15, 18, 22)"), "the dark scheme's background");
}

/// A store added with vectors and cancelled while it embeds stops within a second or two,
/// the watcher queues no catch-up run of its own for it, and the store can then be removed.
#[test]
fn a_cancelled_add_stops_and_the_store_can_be_removed() {
    let Some(chromedriver) = driver::chromedriver_or_skip() else {
        return;
    };
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let src = lore.path("big");
    for f in 0..60 {
        let body: String = (0..40)
            .map(|i| format!("def handler_{f}_{i}(request):\n    return respond(request, {i})\n\n"))
            .collect();
        write(&src, &format!("mod_{f}.py"), body);
    }
    let root = lore.root().display().to_string();
    let server = Server::start_with(
        &lore,
        &["--addr", "127.0.0.1:0", "--allow-path", &root],
        &[],
    );
    let b = driver::Driver::start(&chromedriver, &chromium, lore.root());
    b.goto(&format!("{}/?view=stores", server.url));
    b.type_into("form.add-store input[name=name]", "big");
    b.type_into("form.add-store input[name=source]", src.to_str().unwrap());
    b.click("form.add-store button");
    b.wait_for(120, "embedding under way", |d| {
        d.contains("data-status=\"running\"") && d.contains("chunks ") && !d.contains("chunks 0/")
    });
    b.click("ul.jobs button.cancel");
    let started = std::time::Instant::now();
    let (mut jobs, mut status) = (json!([]), String::new());
    while started.elapsed() < Duration::from_secs(10) {
        (_, jobs) = common::serve::get(&server.api("/api/jobs"));
        status = jobs[0]["status"].as_str().unwrap_or_default().to_string();
        if status == "cancelled" {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(status, "cancelled", "{jobs}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "cancel took {:?}",
        started.elapsed()
    );
    let done = jobs[0]["progress"]["chunks_done"].as_u64().unwrap_or(0);
    let total = jobs[0]["progress"]["chunks_total"].as_u64().unwrap_or(0);
    assert!(done < total, "stopped part way: {jobs}");
    // The watcher starts watching the store meanwhile: no run of its own resumes the work.
    std::thread::sleep(Duration::from_secs(4));
    let (_, jobs) = common::serve::get(&server.api("/api/jobs"));
    let active: Vec<&Value> = jobs
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| matches!(j["status"].as_str(), Some("pending" | "running")))
        .collect();
    assert!(active.is_empty(), "{jobs}");
    let (code, removed) = common::serve::answer(
        common::serve::agent()
            .delete(&server.api("/api/stores/big"))
            .call(),
    );
    assert_eq!(code, 200, "{removed}");
}

/// A server with no store yet: the page says so and offers the add form, a search says
/// where in the page to add one, and no state gives command-line advice.
#[test]
fn an_empty_server_says_what_to_do_in_the_page() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let lore = Lore::without_model();
    let server = Server::start_with(&lore, &["--addr", "127.0.0.1:0", "--no-watch"], &[]);
    let home = dom(&chromium, lore.root(), &format!("{}/", server.url));
    let pane = element(&home, "id=\"context\"", "article").unwrap_or_else(|| panic!("{home}"));
    assert!(pane.contains("No stores yet"), "{pane}");
    assert!(pane.contains("class=\"add-store\""), "the add form: {pane}");
    let searched = dom(
        &chromium,
        lore.root(),
        &format!("{}/?q=refunds", server.url),
    );
    let status = element(&searched, "id=\"status\"", "section").unwrap_or_default();
    assert!(status.contains("stores view"), "{status}");
    for page in [&home, &searched] {
        assert!(
            !page.contains("`lore "),
            "command-line advice in the page: {page}"
        );
    }
}
