//! Text a grammar fails on, rewritten so that it parses, every byte keeping its offset
//! (same length, the same lines): per-language patches `code::parse_code` tries when the
//! first parse has errors, keeping a patched tree only when it reads more. The kernel's C
//! has its own (`c_macros.rs`).

/// psql's meta-commands (`\echo … \quit` atop an extension script, `\pset` in tests) are
/// no SQL: their lines become blanks, so the statements around them parse (same length,
/// same offsets).
pub(crate) fn blank_psql_commands(text: &str) -> Option<String> {
    let mut bytes = text.as_bytes().to_vec();
    let mut changed = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if body.starts_with('\\') {
            bytes[offset..offset + body.len()].fill(b' ');
            changed = true;
        }
        offset += line.len();
    }
    // Whole lines became spaces: still UTF-8.
    changed.then(|| String::from_utf8(bytes).ok()).flatten()
}

/// PowerShell's grammar fails on a command argument that is a path starting with a
/// variable (`Import-Module $PSScriptRoot\p.psm1`, `. $root/lib.ps1`): the path after the
/// variable becomes part of its name (`$PSScriptRoot__p_psm1`), one variable, same length.
/// Strings and comments are left alone.
pub(crate) fn join_variable_paths(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut changed = false;
    let mut i = 0;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        match b[i] {
            b'#' => i = text[i..].find('\n').map_or(b.len(), |n| i + n),
            b'\'' | b'"' => {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q {
                    i += 1 + usize::from(b[i] == b'`');
                }
                i += 1;
            }
            b'$' if b.get(i + 1).copied().is_some_and(word) => {
                i += 1;
                while i < b.len() && word(b[i]) {
                    i += 1;
                }
                if matches!(b.get(i), Some(b'\\' | b'/'))
                    && b.get(i + 1).copied().is_some_and(|c| word(c) || c == b'.')
                {
                    while i < b.len() && (word(b[i]) || matches!(b[i], b'\\' | b'/' | b'.' | b'-'))
                    {
                        out[i] = if word(b[i]) { b[i] } else { b'_' };
                        i += 1;
                    }
                    changed = true;
                }
            }
            _ => i += 1,
        }
    }
    changed.then(|| String::from_utf8(out).ok()).flatten()
}

/// What TypeScript's grammar fails on, written so that it parses, the text keeping its
/// length (so every offset holds): `None` when nothing needed it.
///
/// - The grammar inserts no semicolon before a line that starts with `<`, so a member of
///   an interface or class that begins with a type parameter list (`<\n  P extends
///   string,\n>(…): R`, an overloaded call signature or a generic arrow property) right
///   after a member written without `;` fails to parse, and with it the rest of the file.
///   The last indentation byte of such a line becomes the `;` it missed.
/// - Nor before a member named by the operators `in` or `instanceof` (`in?: string` among
///   SVG attributes), which it reads as continuing the line above: the same `;`.
/// - It does not know TypeScript 5's `export type * from './types'`: `type` there becomes
///   blanks, a star re-export it knows.
/// - An import type with more after its name (`import('@babel/types').Statement[]`,
///   `import('x').A<B>`) fails: in a type position, `import('…')` becomes an identifier
///   of underscores, so the rest reads as a qualified type name.
pub(crate) fn patch_typescript(text: &str) -> Option<String> {
    let mut bytes = text.as_bytes().to_vec();
    let mut changed = false;
    let mut prev_end: Option<u8> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let indent = body.len() - body.trim_start().len();
        let code = body.trim();
        let comment = code.starts_with("//") || code.starts_with("/*") || code.starts_with('*');
        if (code.starts_with('<') || operator_named_member(code))
            && indent > 0
            && prev_end.is_some_and(|c| c.is_ascii_alphanumeric() || b")]}>'\"`_$".contains(&c))
        {
            bytes[offset + indent - 1] = b';';
            changed = true;
        }
        if let Some(rest) = code.strip_prefix("export type ")
            && rest.trim_start().starts_with('*')
        {
            let at = offset + indent + "export ".len();
            bytes[at..at + "type".len()].fill(b' ');
            changed = true;
        }
        if !comment {
            for (from, to) in import_types(body) {
                bytes[offset + from..offset + to].fill(b'_');
                changed = true;
            }
        }
        if !code.is_empty() && !comment {
            prev_end = code.bytes().last();
        }
        offset += line.len();
    }
    changed.then(|| String::from_utf8(bytes).ok()).flatten()
}

/// Rust items written inside a macro that only wraps them (`cfg_rt! { pub fn spawn(…) {…}
/// }`, tokio's and many crates' way to gate items on features) are tokens to the grammar,
/// so the functions are no units and their calls nobody's. The wrapper's `name! {` and its
/// closing `}` become blanks, the text keeping its length (so every offset holds) and the
/// items inside reading as items: `None` when there is no such macro. A macro whose body
/// does not start with an item (`macro_rules!`, `cfg_if!`'s `if #[cfg(…)]`) is left alone.
pub(crate) fn unwrap_item_macros(text: &str) -> Option<String> {
    const ITEM: [&str; 16] = [
        "pub ", "pub(", "fn ", "async ", "unsafe ", "const ", "static ", "impl", "struct ",
        "enum ", "trait ", "type ", "mod ", "use ", "#[", "///",
    ];
    let mut bytes = text.as_bytes().to_vec();
    let mut changed = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.trim();
        let start = offset;
        offset += line.len();
        let Some(name) = code
            .strip_suffix('{')
            .map(str::trim_end)
            .and_then(|c| c.strip_suffix('!'))
        else {
            continue;
        };
        let wrapper = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == ':')
            && !matches!(
                name,
                "macro_rules" | "cfg_if" | "cfg_if::cfg_if" | "lazy_static"
            );
        if !wrapper {
            continue;
        }
        let Some(brace) = line.rfind('{') else {
            continue;
        };
        let open = start + brace;
        let Some(close) = closing_brace(text, open) else {
            continue;
        };
        let first = text[open + 1..close].trim_start();
        if !ITEM.iter().any(|k| first.starts_with(k)) {
            continue;
        }
        let from = start + (line.len() - line.trim_start().len());
        bytes[from..=open].fill(b' ');
        bytes[close] = b' ';
        changed = true;
    }
    changed.then(|| String::from_utf8(bytes).ok()).flatten()
}

/// The `}` that closes the Rust `{` at byte `open`, past strings, characters and
/// comments.
fn closing_brace(text: &str, open: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i += text[i..].find('\n')?;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += text[i..].find("*/")? + 1;
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            // A character (`'{'`, `'\''`), not a lifetime (`'a`).
            b'\'' if b.get(i + 1) == Some(&b'\\') => {
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') => i += 2,
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether a line declares a member named `in` or `instanceof`, or either followed by
/// digits, which the grammar reads as the operator and a number (`in?: string`, `in2?:
/// Numberish`, `in = 2`).
fn operator_named_member(code: &str) -> bool {
    ["instanceof", "in"].iter().any(|op| {
        code.strip_prefix(op).is_some_and(|rest| {
            rest.trim_start_matches(|c: char| c.is_ascii_digit())
                .trim_start()
                .starts_with(['?', ':', '='])
        })
    })
}

/// The byte ranges of `import('…')` in a type position of `line` (after `:`, `|`, `&` or
/// `<`) that a type name follows (`.Statement`), not a promise's method.
fn import_types(line: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = line[from..].find("import(").map(|i| from + i) {
        from = at + "import(".len();
        let typed = line[..at].trim_end().ends_with([':', '|', '&', '<']);
        let rest = &line[from..];
        let Some(quote) = rest.chars().next().filter(|c| matches!(c, '\'' | '"')) else {
            continue;
        };
        let Some(close) = rest[1..].find(quote).map(|i| i + 2) else {
            continue;
        };
        let Some(after) = rest[close..].strip_prefix(").") else {
            continue;
        };
        let method = ["then", "catch", "finally"]
            .iter()
            .any(|m| after.starts_with(m));
        if typed && !method {
            out.push((at, from + close + 1));
        }
    }
    out
}
