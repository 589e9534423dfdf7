//! YAML frontmatter: the small subset lore writes (`key: value`, lists of strings) read
//! back leniently. Lines it does not understand (a person's hand-written YAML) are kept
//! as they are, so rewriting a page never loses them.

/// One entry of a frontmatter block, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Scalar(String, String),
    List(String, Vec<String>),
    /// A line kept verbatim (comments, nested maps, anything else).
    Raw(String),
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontmatter {
    pub entries: Vec<Entry>,
}

impl Frontmatter {
    /// Splits `text` into its frontmatter (if it opens with a `---` line closed by another)
    /// and the body after it.
    pub fn split(text: &str) -> (Option<Frontmatter>, &str) {
        let text_no_bom = text.strip_prefix('\u{feff}').unwrap_or(text);
        let Some(rest) = text_no_bom
            .strip_prefix("---\n")
            .or_else(|| text_no_bom.strip_prefix("---\r\n"))
        else {
            return (None, text);
        };
        let mut offset = 0;
        for line in rest.split_inclusive('\n') {
            let bare = line.trim_end_matches(['\n', '\r']);
            if bare == "---" || bare == "..." {
                let block = &rest[..offset];
                let body = &rest[offset + line.len()..];
                return (Some(Frontmatter::parse(block)), body);
            }
            offset += line.len();
        }
        (None, text)
    }

    fn parse(block: &str) -> Frontmatter {
        let mut entries: Vec<Entry> = Vec::new();
        // Whether the last entry is a `key:` list still taking `  - item` lines.
        let mut open_list = false;
        // Lines end at `\n` only: a `\r` before it is the line's own (a raw line keeps it,
        // values are trimmed), so a CRLF block reads back the same after a rewrite.
        for line in block.split_inclusive('\n') {
            let line = line.strip_suffix('\n').unwrap_or(line);
            if open_list
                && let Some(item) = list_item(line)
                && let Some(Entry::List(_, items)) = entries.last_mut()
            {
                items.push(unquote(item.trim()));
                continue;
            }
            open_list = false;
            let trimmed = line.trim_start();
            if line.starts_with([' ', '\t', '#']) || trimmed.is_empty() {
                entries.push(Entry::Raw(line.to_string()));
                continue;
            }
            match line.split_once(':') {
                Some((key, value)) if is_key(key) => {
                    let value = value.trim();
                    if value.is_empty() {
                        entries.push(Entry::List(key.to_string(), Vec::new()));
                        open_list = true;
                    } else if let Some(inner) =
                        value.strip_prefix('[').and_then(|v| v.strip_suffix(']'))
                    {
                        let items = split_inline(inner);
                        entries.push(Entry::List(key.to_string(), items));
                    } else {
                        entries.push(Entry::Scalar(key.to_string(), unquote(value)));
                    }
                }
                _ => entries.push(Entry::Raw(line.to_string())),
            }
        }
        Frontmatter { entries }
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.iter().find_map(|e| match e {
            Entry::Scalar(k, v) if k == key => Some(v.as_str()),
            _ => None,
        })
    }

    pub fn list(&self, key: &str) -> Vec<String> {
        self.entries
            .iter()
            .find_map(|e| match e {
                Entry::List(k, v) if k == key => Some(v.clone()),
                Entry::Scalar(k, v) if k == key => Some(vec![v.clone()]),
                _ => None,
            })
            .unwrap_or_default()
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|e| match e {
            Entry::Scalar(k, _) | Entry::List(k, _) => k == key,
            Entry::Raw(_) => false,
        })
    }

    /// Sets `key` to a string, in place if it exists, else at the end.
    pub fn set(&mut self, key: &str, value: &str) {
        let e = Entry::Scalar(key.to_string(), value.to_string());
        match self.position(key) {
            Some(i) => self.entries[i] = e,
            None => self.entries.push(e),
        }
    }

    pub fn set_list(&mut self, key: &str, values: Vec<String>) {
        let e = Entry::List(key.to_string(), values);
        match self.position(key) {
            Some(i) => self.entries[i] = e,
            None => self.entries.push(e),
        }
    }

    /// The block with its `---` fences and a trailing newline.
    pub fn render(&self) -> String {
        let mut out = String::from("---\n");
        let next_is_item = |i: usize| matches!(self.entries.get(i + 1), Some(Entry::Raw(line)) if list_item(line).is_some());
        for (i, e) in self.entries.iter().enumerate() {
            match e {
                Entry::Scalar(k, v) => out.push_str(&format!("{k}: {}\n", quote(v))),
                // In flow form when the next line is a hand-written `  - x` that the
                // list's block form would take in as one of its items.
                Entry::List(k, items) if next_is_item(i) => {
                    let items: Vec<String> = items.iter().map(|v| quote(v)).collect();
                    out.push_str(&format!("{k}: [{}]\n", items.join(", ")));
                }
                Entry::List(k, items) => {
                    out.push_str(&format!("{k}:\n"));
                    for item in items {
                        out.push_str(&format!("  - {}\n", quote(item)));
                    }
                }
                Entry::Raw(line) => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        out.push_str("---\n");
        out
    }
}

/// The item of a block list line: `  - item`, `- item` or a bare `-`.
fn list_item(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    if !line.starts_with([' ', '-']) {
        return None;
    }
    trimmed
        .strip_prefix("- ")
        .or_else(|| (trimmed.trim_end() == "-").then_some(""))
}

fn is_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A scalar as YAML: plain when that reads back as the same string, else double-quoted
/// (JSON string syntax is valid YAML).
pub fn quote(v: &str) -> String {
    let plain = !v.is_empty()
        && v.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.' | '/' | '+'))
        && !v.starts_with([' ', '-', '.'])
        && !v.ends_with(' ')
        && !matches!(
            v.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "~"
        )
        && v.parse::<f64>().is_err();
    if plain {
        v.to_string()
    } else {
        serde_json::to_string(v).unwrap_or_else(|_| format!("\"{}\"", v.replace('"', "'")))
    }
}

fn unquote(v: &str) -> String {
    if v.starts_with('"')
        && let Ok(s) = serde_json::from_str::<String>(v)
    {
        return s;
    }
    if let Some(inner) = v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    v.to_string()
}

/// `a, "b, c", 'd'` → [a, "b, c", d].
fn split_inline(inner: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in inner.chars() {
        match quote {
            Some(q) => {
                current.push(c);
                if escaped {
                    escaped = false;
                } else if c == '\\' && q == '"' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == ',' => {
                items.push(unquote(current.trim()));
                current.clear();
            }
            None => {
                if c == '"' || c == '\'' {
                    quote = Some(c);
                }
                current.push(c);
            }
        }
    }
    if !current.trim().is_empty() {
        items.push(unquote(current.trim()));
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_unknown_lines() {
        let text = "---\ntitle: \"Retry: backoff\"\ntype: concept\nsources:\n  - a.md\n  - \"b, c\"\n# a comment\nextra:\n  nested: 1\ntags: [x, \"y, z\"]\nupdated: 2026-11-30T10:15:00Z\n---\n# Body\n";
        let (fm, body) = Frontmatter::split(text);
        let fm = fm.unwrap();
        assert_eq!(body, "# Body\n");
        assert_eq!(fm.get("title"), Some("Retry: backoff"));
        assert_eq!(fm.get("type"), Some("concept"));
        assert_eq!(fm.list("sources"), ["a.md", "b, c"]);
        assert_eq!(fm.list("tags"), ["x", "y, z"]);
        assert_eq!(fm.get("updated"), Some("2026-11-30T10:15:00Z"));
        let again = fm.render();
        let (fm2, _) = Frontmatter::split(&again);
        assert_eq!(fm2.unwrap(), fm);
        assert!(again.contains("# a comment\n") && again.contains("  nested: 1\n"));
    }

    /// A round trip is the identity on what it read: entries, and the block it renders.
    fn assert_round_trip(fm: &Frontmatter) {
        let rendered = fm.render();
        let (again, _) = Frontmatter::split(&rendered);
        assert_eq!(again.as_ref(), Some(fm), "{rendered:?}");
        assert_eq!(again.map(|f| f.render()), Some(rendered));
    }

    #[test]
    fn carriage_returns_before_line_ends_survive_a_rewrite() {
        // `str::lines` took one `\r` off each line: a raw `x\r\r\n` lost a `\r` per rewrite.
        let text =
            "---\r\ntitle: t\r\n  odd line\r\r\r\n\r\nsources:\r\n  - a.md\r\n---\r\nbody\r\n";
        let (fm, body) = Frontmatter::split(text);
        let fm = fm.unwrap();
        assert_eq!(body, "body\r\n");
        assert_eq!(fm.get("title"), Some("t"));
        assert_eq!(fm.list("sources"), ["a.md"]);
        assert!(fm.entries.contains(&Entry::Raw("  odd line\r\r\r".into())));
        assert_round_trip(&fm);
    }

    #[test]
    fn a_list_set_over_a_scalar_leaves_hand_written_items_after_it_alone() {
        // `sources: x` then `  - y` (not YAML): the item line is kept raw. A list written in
        // place of the scalar used to take that line in as its own item on the next read.
        let text = "---\nsources: notes/a.md\n  - \"https://x.io/q, b\"\nupdated: now\n---\n";
        let mut fm = Frontmatter::split(text).0.unwrap();
        assert_eq!(fm.get("sources"), Some("notes/a.md"));
        fm.set_list("sources", vec!["a".into(), "b, c".into()]);
        assert_round_trip(&fm);
        let (back, _) = Frontmatter::split(&fm.render());
        let back = back.unwrap();
        assert_eq!(back.list("sources"), ["a", "b, c"]);
        assert!(
            back.entries
                .contains(&Entry::Raw("  - \"https://x.io/q, b\"".into()))
        );
        fm.set_list("sources", Vec::new());
        assert_round_trip(&fm);
        // Block lists read as before: items under `key:`, also at column 0.
        let (fm, _) = Frontmatter::split("---\ntags:\n- a\n  - b\n-\n---\n");
        assert_eq!(fm.unwrap().list("tags"), ["a", "b", ""]);
    }

    #[test]
    fn no_frontmatter() {
        for text in ["# Title\n", "---\nunclosed: yes\n", "", "--- \nx: 1\n---\n"] {
            let (fm, body) = Frontmatter::split(text);
            assert!(fm.is_none(), "{text:?}");
            assert_eq!(body, text);
        }
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("concept"), "concept");
        assert_eq!(quote("web dev/rust"), "web dev/rust");
        for tricky in [
            "yes",
            "",
            "1.5",
            "a: b",
            "#x",
            "- x",
            "line\nbreak",
            "'q'",
            "ünï",
        ] {
            let q = quote(tricky);
            let fm = Frontmatter {
                entries: vec![Entry::Scalar("k".into(), tricky.into())],
            };
            let (back, _) = Frontmatter::split(&fm.render());
            assert_eq!(back.unwrap().get("k"), Some(tricky), "{tricky:?} as {q}");
        }
    }
}
