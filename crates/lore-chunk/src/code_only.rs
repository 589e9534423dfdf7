//! A unit's text without its comments and string literals: the names its code uses, not
//! the words of its docs (a docstring that mentions JSON does not make `json` an import
//! the unit uses).

use crate::lang::{children, is_comment};
use crate::text::Src;
use lore_core::Language;
use tree_sitter::Node;

/// String literal nodes of the supported grammars.
fn is_string(kind: &str) -> bool {
    matches!(
        kind,
        "string"
            | "string_literal"
            | "raw_string_literal"
            | "interpreted_string_literal"
            | "template_string"
            | "char_literal"
            | "character_literal"
            | "text_block"
    )
}

/// Code inside a string literal: `f"{x}"`, `` `${x}` ``.
fn is_interpolation(kind: &str) -> bool {
    matches!(kind, "interpolation" | "template_substitution")
}

/// `text` (code of `language`, a whole file or one unit of it) with every comment and
/// string literal blanked: their characters become spaces, line breaks stay, and code
/// interpolated into a string stays. Text that is not code, or that does not parse, comes
/// back as it is.
pub fn code_only(language: Language, text: &str) -> String {
    if matches!(language, Language::Markdown | Language::Text) {
        return text.to_string();
    }
    let src = Src::new(text);
    let Some((tree, _)) = crate::code::parse_code(&src, language) else {
        return text.to_string();
    };
    let mut blank: Vec<(usize, usize)> = Vec::new();
    let mut stack: Vec<Node> = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        let kind = n.kind();
        if is_comment(kind) {
            blank.push((n.start_byte(), n.end_byte()));
            continue;
        }
        if is_string(kind) {
            // The literal minus the code interpolated into it, which is walked on.
            let mut at = n.start_byte();
            for c in children(n) {
                if is_interpolation(c.kind()) {
                    blank.push((at, c.start_byte()));
                    at = c.end_byte();
                    stack.push(c);
                }
            }
            blank.push((at, n.end_byte()));
            continue;
        }
        stack.extend(children(n));
    }
    let mut bytes = text.as_bytes().to_vec();
    for (s, e) in blank {
        for b in bytes.iter_mut().take(e.min(text.len())).skip(s) {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(language: Language, text: &str) -> Vec<String> {
        code_only(language, text)
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .filter(|w| !w.is_empty())
            .map(String::from)
            .collect()
    }

    #[test]
    fn comments_and_strings_are_blanked_interpolations_kept() {
        let py = "def from_prefixed_env(self, prefix: str = \"FLASK\") -> bool:\n        \"\"\"Load values as json.loads; see types.\"\"\"\n        # json again\n        value = loads(f\"{prefix}_{os.sep}\")\n        return True\n";
        let w = words(Language::Python, py);
        assert!(!w.contains(&"json".to_string()), "{w:?}");
        assert!(!w.contains(&"types".to_string()), "{w:?}");
        assert!(!w.contains(&"FLASK".to_string()), "{w:?}");
        for kept in ["loads", "prefix", "os", "sep", "str", "bool"] {
            assert!(w.contains(&kept.to_string()), "{kept}: {w:?}");
        }
        let out = code_only(Language::Python, py);
        assert_eq!(out.len(), py.len());
        assert_eq!(out.lines().count(), py.lines().count());

        let ts = "function f(a: Store) {\n  // uses json\n  return `${a.get()} json`;\n}\n";
        let w = words(Language::TypeScript, ts);
        assert!(w.contains(&"get".to_string()) && !w.contains(&"json".to_string()));

        let rs = "/// Reads json.\nfn f() { let s = \"serde\"; g(s) }\n";
        let w = words(Language::Rust, rs);
        assert!(!w.contains(&"json".to_string()) && !w.contains(&"serde".to_string()));
        assert!(w.contains(&"g".to_string()));

        let md = "# json\n";
        assert_eq!(code_only(Language::Markdown, md), md);
        // Non-ASCII inside a string leaves valid text of the same length.
        let py = "x = \"héllo — ünïcode\"  # ça\n";
        assert_eq!(code_only(Language::Python, py).len(), py.len());
    }
}
