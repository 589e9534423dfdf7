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
        for line in block.lines() {
            let trimmed = line.trim_start();
            // `  - item` under a `key:` with no value.
            if let Some(item) = trimmed
                .strip_prefix("- ")
                .or_else(|| (trimmed == "-").then_some(""))
                && line.starts_with([' ', '-'])
                && let Some(Entry::List(_, items)) = entries.last_mut()
            {
                items.push(unquote(item.trim()));
                continue;
            }
            if line.starts_with([' ', '\t', '#']) || trimmed.is_empty() {
                entries.push(Entry::Raw(line.to_string()));
                continue;
            }
            match line.split_once(':') {
                Some((key, value)) if is_key(key) => {
                    let value = value.trim();
                    if value.is_empty() {
                        entries.push(Entry::List(key.to_string(), Vec::new()));
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
        for e in &self.entries {
            match e {
                Entry::Scalar(k, v) => out.push_str(&format!("{k}: {}\n", quote(v))),
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
