//! Exact evidence: a query that a unit holds word for word (an error message, a log line)
//! is answered by that unit first, whatever fusion made of it; and a body-less overload
//! stub ranks below the implementation it declares. Questions about a symbol ("where is X
//! defined", a bare identifier) are the intents' to rank: a file that merely repeats the
//! question (a test set, an FAQ) is no evidence of the answer.

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
    let words = q.split(' ').count();
    let identifier = words == 1
        && q.len() >= 4
        && (q.contains('_') || q.contains('.') || q.contains("::") || is_camel(query.trim()));
    ((words >= 4 && q.len() >= 16) || identifier).then_some(q)
}

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
/// (or `@typing.overload`) stubs, whose body is `...`.
pub(crate) fn is_overload_stub(content: &str) -> bool {
    let mut lines = content.lines().map(str::trim).filter(|l| !l.is_empty());
    let Some(first) = lines.next() else {
        return false;
    };
    (first == "@overload" || first == "@typing.overload" || first == "@t.overload")
        && content.trim_end().ends_with("...")
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
        assert!(is_overload_stub(
            "@overload\ndef get(self, key: str) -> str: ..."
        ));
        assert!(is_overload_stub(
            "@typing.overload\ndef get(\n    self, key: str\n) -> str:\n    ..."
        ));
        assert!(!is_overload_stub(
            "def get(self, key):\n    return self.d[key]"
        ));
    }
}
