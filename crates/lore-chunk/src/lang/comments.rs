//! Comments and Python docstrings as doc text: markers, quotes and indentation stripped.

pub(crate) fn is_comment(kind: &str) -> bool {
    matches!(
        kind,
        "comment"
            | "comments"
            | "line_comment"
            | "block_comment"
            | "documentation_comment"
            | "haddock"
    )
}

/// Whether a comment `text` whose last line is `last` documents the code that starts on
/// line `line`: right above it, or — the nearest JSDoc block (`/** … */`) in JavaScript or
/// TypeScript — up to two blank lines above (express writes them so).
pub(crate) fn documents(
    lang: lore_core::Language,
    text: &str,
    nearest: bool,
    last: u32,
    line: u32,
) -> bool {
    use lore_core::Language::{JavaScript, Tsx, TypeScript};
    last + 1 >= line
        || (nearest
            && matches!(lang, JavaScript | TypeScript | Tsx)
            && text.starts_with("/**")
            && last + 3 >= line)
}

/// `\r\n` and lone `\r` as `\n`.
fn normalize_newlines(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Strips comment markers from one comment node's text.
pub(crate) fn strip_comment(text: &str) -> String {
    let text = normalize_newlines(text);
    let block = text.trim_start().starts_with("/*");
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut l = line.trim();
        for p in [
            "///", "//!", "//", "/**", "/*!", "/*", "(**", "(*", "#", "-- |", "--", "%%", "%",
        ] {
            if let Some(r) = l.strip_prefix(p) {
                l = r;
                break;
            }
        }
        if block || text.trim_start().starts_with("(*") {
            if let Some(r) = l.strip_suffix("*/").or_else(|| l.strip_suffix("*)")) {
                l = r;
            }
            let t = l.trim_start();
            if let Some(r) = t.strip_prefix('*') {
                l = r;
            }
        }
        lines.push(l.trim().to_string());
    }
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

/// The text of a Python string literal without prefix, quotes and indentation.
pub(super) fn clean_py_string(text: &str) -> String {
    let text = normalize_newlines(text);
    let mut t = text.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    for q in ["\"\"\"", "'''", "\"", "'"] {
        if t.len() >= 2 * q.len() && t.starts_with(q) && t.ends_with(q) {
            t = &t[q.len()..t.len() - q.len()];
            break;
        }
    }
    let lines: Vec<&str> = t.lines().map(str::trim).collect();
    lines.join("\n").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_markers() {
        assert_eq!(strip_comment("/// Hello\n"), "Hello");
        assert_eq!(
            strip_comment("/**\n * Does X.\n * @param a thing\n */"),
            "Does X.\n@param a thing"
        );
        assert_eq!(strip_comment("# note"), "note");
        assert_eq!(strip_comment("/* one */"), "one");
        assert_eq!(
            clean_py_string("r\"\"\"Doc\n    more\n    \"\"\""),
            "Doc\nmore"
        );
        assert_eq!(clean_py_string("'x'"), "x");
    }
}
