//! Exact evidence: a query that a unit holds word for word (an error message, a log line)
//! is answered by that unit first, whatever fusion made of it; and a body-less overload
//! stub ranks below the implementation it declares. Questions ("how are scores fused",
//! "where is X defined") are the intents' and fusion's to rank: a file that merely repeats
//! the question (a test set, an FAQ, a doc quoting it) is no evidence of the answer.

/// The query as a phrase to look for verbatim, or `None` when it is too loose to be
/// evidence: a phrase needs four words and 16 characters (an error message, a log line);
/// a single word must look like an identifier (`url_for`, `Flask.run`, `parseQuery`).
/// Lowercased, white space folded, surrounding quotes and backticks dropped.
pub(crate) fn phrase(query: &str) -> Option<String> {
    let q = query
        .trim()
        .trim_matches(|c: char| matches!(c, '"' | '\'' | '`'))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    // A question ("how are scores fused?") is no literal: files that repeat it (a test, an
    // FAQ, an eval set) are not its answer. Messages start otherwise ("Could not …").
    let first = q.split(' ').next().unwrap_or("");
    if q.ends_with('?') || QUESTION_WORDS.contains(&first) {
        return None;
    }
    let words = q.split(' ').count();
    let identifier = words == 1
        && q.len() >= 4
        && (q.contains('_') || q.contains('.') || q.contains("::") || is_camel(query.trim()));
    ((words >= 4 && q.len() >= 16) || identifier).then_some(q)
}

/// First words of a question or a request, never of an error message or a log line.
const QUESTION_WORDS: [&str; 13] = [
    "how", "what", "where", "why", "which", "who", "whom", "whose", "when", "does", "explain",
    "show", "find",
];

fn is_camel(w: &str) -> bool {
    w.chars().skip(1).any(|c| c.is_ascii_uppercase()) && w.chars().any(|c| c.is_ascii_lowercase())
}

/// Whether `content` holds `phrase` (from [`phrase`]), white space folded.
pub(crate) fn holds(content: &str, phrase: &str) -> bool {
    let mut folded = String::with_capacity(content.len());
    let mut space = false;
    for c in content.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !folded.is_empty() {
            folded.push(' ');
        }
        space = false;
        folded.extend(c.to_lowercase());
    }
    folded.contains(phrase)
}

/// A declaration without a body that only types another one: Python's `@overload`
/// (or `@typing.overload`) stubs, whose body is `...`, and TypeScript's overload
/// signatures (`export function nextTick(): Promise<void>` above the implementation, and a
/// method's `query(key: string): string | undefined` above its own).
/// A window of a long unit is not one: its declaration opens the body (`{` ends a line).
pub(crate) fn is_overload_stub(c: &lore_core::Chunk) -> bool {
    is_stub(c.kind, c.language, &c.content)
}

/// [`is_overload_stub`] of a unit's text.
pub(crate) fn is_stub(
    kind: lore_core::ChunkKind,
    language: lore_core::Language,
    content: &str,
) -> bool {
    use lore_core::Language as L;
    let script = matches!(language, L::TypeScript | L::Tsx | L::JavaScript);
    let mut lines = content.lines().map(str::trim).filter(|l| {
        !l.is_empty() && !l.starts_with("//") && !l.starts_with('*') && !l.starts_with("/*")
    });
    let Some(first) = lines.next() else {
        return false;
    };
    let python = (first == "@overload" || first == "@typing.overload" || first == "@t.overload")
        && content.trim_end().ends_with("...");
    let code = first.strip_prefix("export ").unwrap_or(first);
    // Code lines only: a doc comment's example may open blocks of its own.
    let bodiless = !content.trim_end().ends_with('}')
        && !first.ends_with('{')
        && !lines.any(|l| l.ends_with('{'));
    let typescript =
        (code.starts_with("function ") || code.starts_with("async function ")) && bodiless;
    let method =
        script && kind == lore_core::ChunkKind::Method && bodiless && is_method_signature(first);
    python || typescript || method
}

/// Whether a line opens a TypeScript method's signature: modifiers, then a name, then its
/// parameters or type parameters (`public static query<T>(key: string)`).
fn is_method_signature(line: &str) -> bool {
    let rest = lore_core::unmodified(line);
    let Some(open) = rest.find(['(', '<']) else {
        return false;
    };
    let name = &rest[..open];
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '#'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_and_identifiers_are_evidence_loose_words_are_not() {
        assert_eq!(
            phrase("  \"Could not  locate a Flask application\" ").as_deref(),
            Some("could not locate a flask application")
        );
        assert_eq!(phrase("url_for").as_deref(), Some("url_for"));
        assert_eq!(phrase("parseQuery").as_deref(), Some("parsequery"));
        assert_eq!(phrase("fusion"), None);
        assert_eq!(phrase("the Fusion enum"), None);
        // Questions are not literals; messages that start like one word of them still are.
        assert_eq!(phrase("how are bm25 and vector scores fused"), None);
        assert_eq!(phrase("is the retry backoff capped at 30 s?"), None);
        assert_eq!(
            phrase("Is a directory (os error 21)").as_deref(),
            Some("is a directory (os error 21)")
        );
    }

    #[test]
    fn content_holds_a_phrase_across_line_breaks() {
        let code =
            "raise NoAppException(\n    \"Could not locate a Flask\"\n    \" application.\")";
        assert!(holds(code, "could not locate a flask"));
        assert!(!holds(code, "could not locate a flask application"));
        assert!(holds("x = url_for('a')", "url_for"));
    }

    #[test]
    fn overload_stubs() {
        use lore_core::ChunkKind::{Function, Method, Module};
        use lore_core::Language::{Rust, TypeScript};
        let stub = |content| is_stub(Function, TypeScript, content);
        let is_overload_stub = |kind, content| is_stub(kind, TypeScript, content);
        assert!(stub("export function nextTick(): Promise<void>"));
        assert!(stub(
            "/** Waits. */\nexport function on(cb: () => void): Off"
        ));
        assert!(!stub("export function f() {\n  return 1\n}"));
        assert!(!stub("export const f = (a: number) => a + 1"));
        assert!(stub("@overload\ndef get(self, key: str) -> str: ..."));
        assert!(stub(
            "@typing.overload\ndef get(\n    self, key: str\n) -> str:\n    ..."
        ));
        assert!(!stub("def get(self, key):\n    return self.d[key]"));
        // A method's overload signatures, with their doc comment.
        let query = "/**\n * Reads a query parameter.\n * app.get('/', (c) => {\n */\nquery(key: string): string | undefined";
        assert!(is_overload_stub(Method, query));
        assert!(is_overload_stub(
            Method,
            "public static parse<T>(s: string): T"
        ));
        assert!(!is_overload_stub(
            Method,
            "query(key?: string) {\n  return this.q[key]\n}"
        ));
        // A call at module level is not a declaration.
        assert!(!is_overload_stub(Module, "register(app)"));
        assert!(!is_overload_stub(Method, "get value(): T"));
        // The first window of a long function or method opens its body.
        assert!(!stub(
            "export function parse(input: string): Root {\n  reset()\n  const a = 1"
        ));
        assert!(!is_overload_stub(
            Method,
            "query(key?: string) {\n  const all = this.q\n  if (key) {"
        ));
        // Rust is not TypeScript.
        assert!(!is_stub(
            Method,
            Rust,
            "pub(super) fn plan(&mut self) -> Plan"
        ));
    }
}
