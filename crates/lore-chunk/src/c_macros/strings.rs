//! Strings joined with macros: `printk(KERN_ERR DRV_NAME ": failed\n")`,
//! `"max " __stringify(SG_MAX) ")"`. The grammar joins string literals only; in C a
//! name or a call next to a string literal is always a macro that expands to one, so the
//! names and calls among such literals become blanks and the literals join.

use super::{is_caps, matching, next_significant, skip_literal};

/// Calls that expand to a string literal.
const STRING_CALLS: [&str; 6] = [
    "__stringify",
    "__stringify_1",
    "stringify",
    "__MODULE_STRING",
    "pr_fmt",
    "dev_fmt",
];

#[derive(Clone, Copy, PartialEq)]
enum Token {
    /// A string literal.
    Literal,
    /// A name in capitals or a call of `STRING_CALLS`: a string when next to one.
    Stringy,
    Other,
}

/// Blanks (in `out`) the macros joined to string literals in `text`; whether any were.
/// Preprocessor lines are left alone: a definition's body is not C the grammar reads.
pub(super) fn blank_string_macros(text: &str, out: &mut [u8]) -> bool {
    let b = text.as_bytes();
    let mut tokens: Vec<(Token, usize, usize)> = Vec::new();
    let mut line_start = true;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let first_on_line = std::mem::replace(&mut line_start, false);
        if c == b'#' && first_on_line {
            // The directive with its continuations.
            while i < b.len() && !(b[i] == b'\n' && b[i - 1] != b'\\') {
                i += 1;
            }
            tokens.push((Token::Other, i, i));
            continue;
        }
        if b[i..].starts_with(b"//") {
            i = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |n| i + n);
            continue;
        }
        if b[i..].starts_with(b"/*") {
            i = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
            continue;
        }
        let start = i;
        let token = match c {
            b'"' => {
                i = skip_literal(b, i);
                Token::Literal
            }
            b'\'' => {
                i = skip_literal(b, i);
                Token::Other
            }
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let word = &text[start..i];
                let open = next_significant(b, i).filter(|&o| b[o] == b'(');
                match open {
                    Some(o) if STRING_CALLS.contains(&word) => match matching(b, o) {
                        Some(close) => {
                            i = close + 1;
                            Token::Stringy
                        }
                        None => Token::Other,
                    },
                    // `L"…"`, `u8"…"`: a literal's prefix.
                    None if is_caps(word) && b.get(i) != Some(&b'"') => Token::Stringy,
                    _ => Token::Other,
                }
            }
            _ => {
                i += 1;
                Token::Other
            }
        };
        tokens.push((token, start, i));
    }
    let mut changed = false;
    for run in tokens.split(|t| t.0 == Token::Other) {
        let literal = run.iter().any(|t| t.0 == Token::Literal);
        if !literal || run.len() < 2 {
            continue;
        }
        for &(_, from, to) in run.iter().filter(|t| t.0 == Token::Stringy) {
            for x in &mut out[from..to] {
                if *x != b'\n' {
                    *x = b' ';
                }
            }
            changed = true;
        }
    }
    changed
}
