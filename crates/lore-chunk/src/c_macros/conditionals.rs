//! Conditional compilation where the C grammar cannot follow it: `#if`/`#else`/`#endif`
//! lines inside a list, a body or an unfinished statement. The grammar reads a
//! conditional as a group of whole declarations or statements; the kernel puts them
//! anywhere (`else if` under `#if IS_ENABLED(CONFIG_IPV6)`, half a condition under
//! `#ifdef`). Bytes keep their offsets and lines: what is dropped becomes blanks.

/// A conditional directive's keyword (`if`, `ifdef`, `ifndef`, `elif`, `else`, `endif`)
/// when the trimmed line is one.
fn conditional(line: &str) -> Option<&'static str> {
    let d = line.strip_prefix('#')?.trim_start();
    ["ifdef", "ifndef", "if", "elif", "else", "endif"]
        .into_iter()
        .find(|k| {
            d.starts_with(k)
                && d[k.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric() && c != '_')
        })
}

/// One open conditional: whether it stands inside code (then it is read as one branch
/// or all), whether its lines now are dropped, whether a branch was read, and whether
/// its lines now go unread (a later branch of one between declarations: the braces of
/// `#ifdef X void f(a) { #else void f(b) { #endif` count once).
struct Frame {
    inside: bool,
    dropping: bool,
    taken: bool,
    unread: bool,
}

/// Each conditional that stands inside a body, a list or an unfinished statement read
/// as its first branch (`#if 0`: its other one) or, `every`, as all its branches in a
/// row: its directive lines (and the branches not read) become blanks in `out`.
/// Conditionals between whole declarations are left to the grammar. Whether any was.
pub(super) fn blank_conditionals(text: &str, out: &mut [u8], every: bool) -> bool {
    let b = text.as_bytes();
    let mut changed = false;
    let mut frames: Vec<Frame> = Vec::new();
    // Code read so far (directives and unread lines aside): brace depth, the last
    // significant byte, and whether a block comment is open.
    let (mut depth, mut last, mut comment) = (0usize, b';', false);
    let mut at = 0;
    while at < b.len() {
        // The logical line: a directive's backslash continuations belong to it.
        let mut end = text[at..].find('\n').map_or(b.len(), |n| at + n);
        let line = text[at..end].trim();
        let keyword = (!comment).then(|| conditional(line)).flatten();
        if line.starts_with('#') && !comment {
            while b[at..end].trim_ascii_end().ends_with(b"\\") && end < b.len() {
                end = text[end + 1..].find('\n').map_or(b.len(), |n| end + 1 + n);
            }
        }
        let top = frames.last();
        let dropping = top.is_some_and(|f| f.dropping);
        let unread = top.is_some_and(|f| f.unread);
        // Between declarations: after `;`, `}`, `{` or `)` (a function's head) at the top.
        let inside = depth > 0 || !matches!(last, b';' | b'}' | b'{' | b')');
        let blank_line = match keyword {
            Some(k @ ("if" | "ifdef" | "ifndef")) => {
                // In a dropped branch it is dropped whole; in an unread one, left unread.
                let inside = dropping || (inside && !unread);
                let zero = !every && k == "if" && line[1..].trim_start()[2..].trim() == "0";
                frames.push(Frame {
                    inside,
                    dropping: dropping || (inside && zero),
                    taken: dropping || !zero,
                    unread,
                });
                inside
            }
            Some(k) => match frames.last_mut() {
                None => false,
                Some(_) if k == "endif" => frames.pop().is_some_and(|f| f.inside),
                Some(f) if f.inside => {
                    // `#elif`, `#else`: dropped after a branch read; read after `#if 0`.
                    if !every {
                        f.dropping = f.taken;
                        f.taken = true;
                    }
                    true
                }
                Some(f) => {
                    f.unread = true;
                    false
                }
            },
            None if dropping => true,
            None => {
                if !unread && (!line.starts_with('#') || comment) {
                    (depth, last, comment) = scan(&b[at..end], depth, last, comment);
                }
                false
            }
        };
        if blank_line {
            for x in &mut out[at..end] {
                if *x != b'\n' && *x != b'\r' {
                    *x = b' ';
                }
            }
            changed = true;
        }
        at = end + 1;
    }
    changed
}

/// Brace depth, last significant byte and open block comment after `line`.
fn scan(line: &[u8], mut depth: usize, mut last: u8, mut comment: bool) -> (usize, u8, bool) {
    let mut i = 0;
    while i < line.len() {
        let c = line[i];
        if comment {
            if line[i..].starts_with(b"*/") {
                comment = false;
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        match c {
            b'/' if line.get(i + 1) == Some(&b'/') => break,
            b'/' if line.get(i + 1) == Some(&b'*') => {
                comment = true;
                i += 2;
                continue;
            }
            b'"' | b'\'' => {
                let mut j = i + 1;
                while j < line.len() && line[j] != c {
                    j += if line[j] == b'\\' { 2 } else { 1 };
                }
                i = j + 1;
                last = c;
                continue;
            }
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            last = c;
        }
        i += 1;
    }
    (depth, last, comment)
}
