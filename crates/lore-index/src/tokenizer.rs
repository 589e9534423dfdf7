//! A code-aware tokenizer: identifiers are also split into their camelCase and snake_case
//! parts, so `parseJsonBody`, `parse_json_body` and "parse json body" meet in the index.

pub use tantivy::tokenizer::TextAnalyzer;
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, Stemmer, StopWordFilter, Token, TokenStream, Tokenizer,
};

/// The text of each of the BM25 fields (`fts::FIELDS`) for one chunk: its content (with its context line), its
/// symbol and parent, its headings, its path.
pub fn field_texts(path: &str, chunk: &lore_core::Chunk) -> [String; 4] {
    let mut symbol = String::new();
    for s in [&chunk.symbol, &chunk.parent].into_iter().flatten() {
        symbol.push_str(s);
        symbol.push(' ');
    }
    let content = match &chunk.context {
        Some(ctx) => format!("{ctx}\n{}", chunk.content),
        None => chunk.content.clone(),
    };
    [content, symbol, chunk.headings.join("\n"), path.to_string()]
}

/// Splits text into words and words into identifier parts.
///
/// With `keep_whole`, a compound identifier is emitted whole as well as in parts; the index
/// analyzer keeps it (so an exact identifier is a rare, strong term), the query analyzer too.
#[derive(Clone, Default)]
pub struct CodeTokenizer {
    tokens: Vec<Token>,
}

pub struct CodeTokenStream<'a> {
    tokens: &'a mut [Token],
    next: usize,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        self.tokens.clear();
        let mut position = 0;
        for (start, word) in words(text) {
            let parts = identifier_parts(word);
            let mut push = |from: usize, to: usize| {
                self.tokens.push(Token {
                    offset_from: start + from,
                    offset_to: start + to,
                    position,
                    text: word[from..to].to_string(),
                    position_length: 1,
                });
                position += 1;
            };
            if parts.len() > 1 {
                push(0, word.len());
            }
            for (from, to) in parts {
                push(from, to);
            }
        }
        CodeTokenStream {
            tokens: &mut self.tokens,
            next: 0,
        }
    }
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }
    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

/// Runs of alphanumerics and underscores, with their byte offsets.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = text.char_indices().peekable();
    std::iter::from_fn(move || {
        while let Some(&(_, c)) = rest.peek() {
            if is_word_char(c) {
                break;
            }
            rest.next();
        }
        let (start, _) = *rest.peek()?;
        let mut end = start;
        while let Some(&(i, c)) = rest.peek() {
            if !is_word_char(c) {
                break;
            }
            end = i + c.len_utf8();
            rest.next();
        }
        Some((start, &text[start..end]))
    })
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Byte ranges of the parts of an identifier: split at `_`, at lower→Upper and at the
/// end of an acronym (`HTTPServer` → `HTTP`, `Server`). Digits stay with their part.
pub fn identifier_parts(word: &str) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut start: Option<usize> = None;
    for (i, &(at, c)) in chars.iter().enumerate() {
        if c == '_' {
            if let Some(s) = start.take() {
                parts.push((s, at));
            }
            continue;
        }
        if let Some(s) = start {
            let prev = chars[i - 1].1;
            let next = chars.get(i + 1).map(|&(_, n)| n);
            let boundary = c.is_uppercase()
                && (prev.is_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_uppercase() && next.is_some_and(|n| n.is_lowercase())));
            if boundary {
                parts.push((s, at));
                start = Some(at);
            }
        } else {
            start = Some(at);
        }
    }
    if let Some(s) = start {
        parts.push((s, word.len()));
    }
    parts
}

/// The analyzer used for every text field, at index and at query time.
pub fn code_analyzer() -> TextAnalyzer {
    let stop = StopWordFilter::new(Language::English)
        .unwrap_or_else(|| StopWordFilter::remove(Vec::<String>::new()));
    TextAnalyzer::builder(CodeTokenizer::default())
        .filter(RemoveLongFilter::limit(48))
        .filter(LowerCaser)
        .filter(stop)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// The analyzed terms of `text`, in order, duplicates kept.
pub fn analyze(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(word: &str) -> Vec<&str> {
        identifier_parts(word)
            .into_iter()
            .map(|(a, b)| &word[a..b])
            .collect()
    }

    #[test]
    fn splits_identifiers() {
        assert_eq!(parts("parseJsonBody"), ["parse", "Json", "Body"]);
        assert_eq!(parts("parse_json_body"), ["parse", "json", "body"]);
        assert_eq!(parts("HTTPServer"), ["HTTP", "Server"]);
        assert_eq!(parts("__init__"), ["init"]);
        assert_eq!(parts("base64Encode"), ["base64", "Encode"]);
        assert_eq!(parts("x"), ["x"]);
        assert_eq!(parts("größeÄnderung"), ["größe", "Änderung"]);
    }

    #[test]
    fn camel_snake_and_words_meet() {
        let mut a = code_analyzer();
        let camel = analyze(&mut a, "fn parseJsonBody(x)");
        assert!(camel.contains(&"pars".to_string()), "{camel:?}");
        assert!(camel.contains(&"json".to_string()));
        assert!(camel.contains(&"bodi".to_string()));
        assert!(camel.contains(&"parsejsonbodi".to_string()));
        let words = analyze(&mut a, "parse the JSON body");
        for w in &words {
            assert!(camel.contains(w), "{w} missing from {camel:?}");
        }
        let snake = analyze(&mut a, "parse_json_body");
        assert!(snake.contains(&"json".to_string()));
    }
}
