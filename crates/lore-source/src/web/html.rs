//! One parse of an HTML page gives what the crawl needs: its main content as markdown, its
//! title, its links and what its robots meta tag allows.

use htmd::{HtmlToMarkdown, Node};
use markup5ever_rcdom::NodeData;
use std::rc::Rc;

/// Elements that are never content: code, styling, embedded media and page chrome.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "head", "nav", "aside",
    "footer", "form", "button",
];

fn converter() -> HtmlToMarkdown {
    HtmlToMarkdown::builder()
        .skip_tags(SKIPPED.to_vec())
        .build()
}

/// `class`es of links to a page's source view (rustdoc's "Source", Sphinx's "[source]").
const SOURCE_LINK_CLASSES: &[&str] = &["src", "srclink", "viewcode-link"];

fn has_class(el: &htmd::Element, classes: &[&str]) -> bool {
    el.attrs
        .iter()
        .find(|a| &*a.name.local == "class")
        .is_some_and(|a| a.value.split_whitespace().any(|c| classes.contains(&c)))
}

/// The converter for crawled pages: links become their text and images their alt text.
/// Link targets are noise to an index (a rustdoc signature carries one per type) and the
/// page's own URL travels with every result. Generator chrome is dropped: source-view
/// links, in-page links whose text is a mark rather than a word (the `§`/`¶` permalink
/// after every heading, `ⓘ` tooltips), and rustdoc's "Expand description" toggles.
fn page_converter() -> HtmlToMarkdown {
    use htmd::element_handler::{HandlerResult, Handlers};
    HtmlToMarkdown::builder()
        .skip_tags(SKIPPED.to_vec())
        .add_handler(vec!["a"], |h: &dyn Handlers, el: htmd::Element| {
            if has_class(&el, SOURCE_LINK_CLASSES) {
                return Some(HandlerResult::from(""));
            }
            let in_page = el
                .attrs
                .iter()
                .any(|a| &*a.name.local == "href" && a.value.starts_with('#'));
            let text = h.walk_children(el.node);
            // A mark, not a word: `§`, `¶`, `#`, or one non-ASCII sign such as `ⓘ` (which
            // Unicode counts as a letter).
            let word = text.content.trim();
            let mark = !word.chars().any(char::is_alphanumeric)
                || (word.chars().nth(1).is_none() && !word.is_ascii());
            if in_page && mark {
                return Some(HandlerResult::from(""));
            }
            Some(text)
        })
        .add_handler(vec!["summary"], |h: &dyn Handlers, el: htmd::Element| {
            if has_class(&el, &["hideme"]) {
                return Some(HandlerResult::from(""));
            }
            Some(h.walk_children(el.node))
        })
        .add_handler(vec!["img"], |_: &dyn Handlers, el: htmd::Element| {
            let alt = el.attrs.iter().find(|a| &*a.name.local == "alt");
            Some(HandlerResult::from(alt.map_or("", |a| &*a.value)))
        })
        .build()
}

/// Markdown of a whole HTML document, without scripts, styles, navigation and other
/// non-content elements.
pub fn html_to_markdown(html: &str) -> std::io::Result<String> {
    Ok(tidy(converter().convert(html)?))
}

/// Markdown as an index wants it: identifiers unescaped, in-page anchor links (the
/// `[Heading](#heading)` that doc generators wrap headings in) reduced to their text.
fn tidy(md: String) -> String {
    drop_anchor_links(&unescape_identifiers(md))
}

/// `[text](#fragment)` → `text`.
fn drop_anchor_links(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut rest = md;
    while let Some(mid) = rest.find("](#") {
        let close = rest[mid..].find(')').map(|i| mid + i);
        let open = rest[..mid].rfind('[');
        match (open, close) {
            (Some(open), Some(close)) if !rest[open + 1..mid].contains(['[', ']', '\n']) => {
                out.push_str(&rest[..open]);
                out.push_str(&rest[open + 1..mid]);
                rest = &rest[close + 1..];
            }
            _ => {
                out.push_str(&rest[..mid + 3]);
                rest = &rest[mid + 3..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The converter escapes every `_`; inside a word it cannot start emphasis (CommonMark),
/// so `feed\_quoll` is written back as `feed_quoll`, the identifier readers search for.
fn unescape_identifiers(md: String) -> String {
    if !md.contains("\\_") {
        return md;
    }
    let b = md.as_bytes();
    let word = |i: usize| {
        b.get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    };
    let mut out = String::with_capacity(md.len());
    let mut last = 0;
    for (i, _) in md.match_indices("\\_") {
        if i > 0 && word(i - 1) && word(i + 2) {
            out.push_str(&md[last..i]);
            last = i + 1;
        }
    }
    out.push_str(&md[last..]);
    out
}

#[derive(Debug, Default)]
pub struct Page {
    pub title: Option<String>,
    /// The main content (`<main>`, `role="main"`, `<article>`, else `<body>`) as markdown,
    /// led by the title as a heading when the content has no heading of its own.
    pub markdown: String,
    /// `href`s of the page's links, as written (resolve them against `base`).
    pub links: Vec<String>,
    /// `<base href>`, when the page sets one.
    pub base: Option<String>,
    /// `<meta name="robots" content="noindex">`: do not keep the page.
    pub noindex: bool,
    /// `nofollow` in the robots meta tag: do not follow its links.
    pub nofollow: bool,
}

fn element(node: &Node) -> Option<&str> {
    match &node.data {
        NodeData::Element { name, .. } => Some(&name.local),
        _ => None,
    }
}

fn attr(node: &Node, key: &str) -> Option<String> {
    match &node.data {
        NodeData::Element { attrs, .. } => attrs
            .borrow()
            .iter()
            .find(|a| &*a.name.local == key)
            .map(|a| a.value.to_string()),
        _ => None,
    }
}

fn text_of(node: &Node, out: &mut String) {
    if let NodeData::Text { contents } = &node.data {
        out.push_str(&contents.borrow());
    }
    for child in node.children.borrow().iter() {
        text_of(child, out);
    }
}

#[derive(Default)]
struct Found {
    main: Option<Rc<Node>>,
    article: Option<Rc<Node>>,
    body: Option<Rc<Node>>,
}

fn walk(node: &Rc<Node>, page: &mut Page, found: &mut Found) {
    if let Some(name) = element(node) {
        match name {
            "title" if page.title.is_none() => {
                let mut t = String::new();
                text_of(node, &mut t);
                let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
                page.title = (!t.is_empty()).then_some(t);
            }
            "base" if page.base.is_none() => page.base = attr(node, "href"),
            "meta" => {
                let name = attr(node, "name").unwrap_or_default().to_ascii_lowercase();
                if name == "robots" || name == super::robots::AGENT {
                    let content = attr(node, "content")
                        .unwrap_or_default()
                        .to_ascii_lowercase();
                    page.noindex |= content.contains("noindex") || content.contains("none");
                    page.nofollow |= content.contains("nofollow") || content.contains("none");
                }
            }
            "a" | "area" => {
                let rel = attr(node, "rel").unwrap_or_default().to_ascii_lowercase();
                if let Some(href) = attr(node, "href")
                    && !rel.split_whitespace().any(|r| r == "nofollow")
                {
                    page.links.push(href);
                }
            }
            "main" if found.main.is_none() => found.main = Some(node.clone()),
            "article" if found.article.is_none() => found.article = Some(node.clone()),
            "body" if found.body.is_none() => found.body = Some(node.clone()),
            _ => {}
        }
        if found.main.is_none() && attr(node, "role").is_some_and(|r| r == "main") {
            found.main = Some(node.clone());
        }
    }
    for child in node.children.borrow().iter() {
        walk(child, page, found);
    }
}

/// Reads an HTML page.
pub fn read_page(html: &str) -> std::io::Result<Page> {
    let conv = page_converter();
    let doc = conv.html_to_tree(html)?;
    let mut page = Page::default();
    let mut found = Found::default();
    walk(&doc, &mut page, &mut found);
    let content = found
        .main
        .or(found.article)
        .or(found.body)
        .unwrap_or_else(|| doc.clone());
    let markdown = tidy(conv.tree_to_markdown(&content));
    page.markdown = match &page.title {
        Some(title) if !markdown.trim_start().starts_with("# ") => {
            format!("# {title}\n\n{markdown}\n")
        }
        _ => format!("{markdown}\n"),
    };
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_content_links_and_meta() {
        let html = r##"<!doctype html><html><head><title>Runtime | Docs</title>
            <base href="/docs/"><meta name="robots" content="NOFOLLOW"></head>
            <body><nav><a href="/nav-only">Home</a></nav>
            <main><h2>Spawning</h2><p>Use <code>spawn</code> to start a task.</p>
            <a href="tasks.html#top">Tasks</a> <a rel="nofollow" href="/login">log in</a>
            <script>var x = 1;</script></main>
            <footer>(c) someone</footer></body></html>"##;
        let page = read_page(html).unwrap();
        assert_eq!(page.title.as_deref(), Some("Runtime | Docs"));
        assert_eq!(page.base.as_deref(), Some("/docs/"));
        assert!(page.nofollow && !page.noindex);
        assert_eq!(page.links, ["/nav-only", "tasks.html#top"]);
        assert!(page.markdown.starts_with("# Runtime | Docs\n\n## Spawning"));
        assert!(page.markdown.contains("Use `spawn` to start a task."));
        let page = read_page("<main><h2>feed_quoll(a_b, _x)</h2><p>__init__</p></main>").unwrap();
        assert!(
            page.markdown.contains("## feed_quoll(a_b, \\_x)"),
            "{}",
            page.markdown
        );
        for chrome in ["Home", "(c) someone", "var x"] {
            assert!(!page.markdown.contains(chrome), "{chrome}");
        }
    }

    #[test]
    fn links_become_text_on_pages_and_anchors_in_documents() {
        let html = r##"<main><h2><a href="#moving">Moving values</a></h2><p>See <a href="#x">x</a>,
            <a href="other.html" title="t">other</a> and <img src="a.png" alt="a diagram">.</p>
            </main>"##;
        let page = read_page(html).unwrap();
        assert!(
            page.markdown.starts_with("## Moving values\n"),
            "{}",
            page.markdown
        );
        assert!(
            page.markdown.contains("See x, other and a diagram."),
            "{}",
            page.markdown
        );
        // Documents (brain ingest) keep their links; only in-page anchors become text.
        let doc = html_to_markdown(html).unwrap();
        assert!(doc.starts_with("## Moving values\n"), "{doc}");
        assert!(doc.contains("See x, [other](other.html \"t\")"), "{doc}");
    }

    #[test]
    fn generator_chrome_is_dropped() {
        // As rustdoc writes a type page; Sphinx's `¶` permalinks look the same.
        let html = r##"<main><h1>Struct Vec <span class="since">1.0.0</span> ·
            <a class="src" href="../../src/vec.rs.html#397">Source</a></h1>
            <details class="toggle top-doc" open><summary class="hideme"><span>Expand
            description</span></summary><p>A growable array.</p>
            <h2 id="examples">Examples<a href="#examples" class="anchor">§</a></h2>
            <div class="example-wrap"><a href="#" class="tooltip" title="panics">ⓘ</a>
            <pre>let v = Vec::new();</pre></div>
            <p>See <a href="#capacity">Capacity</a>.</p></details></main>"##;
        let md = read_page(html).unwrap().markdown;
        for chrome in ["Source", "Expand", "§", "ⓘ"] {
            assert!(!md.contains(chrome), "{chrome} in {md}");
        }
        assert!(md.contains("## Examples\n"), "{md}");
        assert!(md.contains("See Capacity."), "{md}");
        assert!(md.contains("A growable array."), "{md}");
    }

    #[test]
    fn falls_back_to_article_then_body() {
        let page = read_page("<html><body><h1>Title</h1><p>Body text.</p></body></html>").unwrap();
        assert_eq!(page.markdown, "# Title\n\nBody text.\n");
        let page = read_page("<body><div>chrome</div><article><h1>A</h1><p>x</p></article></body>")
            .unwrap();
        assert_eq!(page.markdown, "# A\n\nx\n");
        let page = read_page(r#"<meta name="robots" content="noindex"><p>x</p>"#).unwrap();
        assert!(page.noindex && !page.nofollow);
    }
}
