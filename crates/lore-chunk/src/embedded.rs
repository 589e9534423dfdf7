//! Components that hold their script inside markup (`.vue`, `.svelte`): each `<script>`
//! block is parsed in the language its `lang` names (TypeScript, else JavaScript) and
//! everything around it is blanked, newlines kept, so every offset and line of the tree
//! is the file's own. The markup stays in the file's chunks as text between units.

use lore_core::Language;

/// The file's text with only its script blocks left, and their grammar; `None` without a
/// script block.
pub(crate) fn script_only(text: &str) -> Option<(String, Language)> {
    let lower = text.to_ascii_lowercase();
    let mut out: Vec<u8> = text
        .bytes()
        .map(|b| if b == b'\n' || b == b'\r' { b } else { b' ' })
        .collect();
    let mut grammar = Language::JavaScript;
    let mut found = false;
    let mut from = 0;
    while let Some(at) = lower[from..].find("<script").map(|i| from + i) {
        let Some(open_end) = lower[at..].find('>').map(|i| at + i + 1) else {
            break;
        };
        let attrs = &lower[at + "<script".len()..open_end - 1];
        let Some(close) = lower[open_end..].find("</script").map(|i| open_end + i) else {
            break;
        };
        if attrs.contains("lang=\"ts\"")
            || attrs.contains("lang='ts'")
            || attrs.contains("lang=\"typescript\"")
            || attrs.contains("lang=ts")
        {
            grammar = Language::TypeScript;
        }
        out[open_end..close].copy_from_slice(&text.as_bytes()[open_end..close]);
        found = true;
        from = close;
    }
    found
        .then(|| String::from_utf8(out).ok())
        .flatten()
        .map(|s| (s, grammar))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_script_is_left_in_place() {
        let vue = "<template>\n  <p>{{ n }}</p>\n</template>\n<script setup lang=\"ts\">\nconst n = 1\n</script>\n";
        let (code, grammar) = script_only(vue).unwrap();
        assert_eq!(grammar, Language::TypeScript);
        assert_eq!(code.len(), vue.len());
        assert_eq!(code.lines().nth(4), Some("const n = 1"));
        assert!(
            code.lines().take(4).all(|l| l.trim().is_empty()),
            "{code:?}"
        );
        assert!(script_only("<template><p/></template>").is_none());
        let svelte = "<script>\n  let count = 0;\n</script>\n<button>{count}</button>\n";
        assert_eq!(script_only(svelte).unwrap().1, Language::JavaScript);
    }
}
