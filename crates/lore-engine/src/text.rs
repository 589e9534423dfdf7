//! Small text helpers shared by the layers that describe a unit.

/// The first sentence (or line) of a doc comment.
pub(crate) fn first_sentence(doc: &str) -> Option<String> {
    let para = doc.split("\n\n").next()?.trim();
    let joined = para.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = joined
        .char_indices()
        .find(|&(i, c)| {
            c == '.'
                && joined[i + 1..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace)
        })
        .map(|(i, _)| i + 1)
        .unwrap_or(joined.len());
    let s = joined[..end].trim();
    (!s.is_empty()).then(|| s.chars().take(240).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentences() {
        assert_eq!(
            first_sentence("Adds an item. Then more.").as_deref(),
            Some("Adds an item.")
        );
        assert_eq!(
            first_sentence("Uses v1.2 rules\nand more\n\nDetails").as_deref(),
            Some("Uses v1.2 rules and more")
        );
        assert_eq!(first_sentence("  \n"), None);
    }
}
