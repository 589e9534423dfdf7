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

/// Blanks the block comments of `b` in `out`, keeping line breaks and the backslash before
/// each; whether there were any.
fn blank_comments(b: &[u8], out: &mut [u8]) -> bool {
    let mut changed = false;
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'"' {
            i = super::skip_literal(b, i);
            continue;
        }
        if &b[i..i + 2] != b"/*" {
            i += 1;
            continue;
        }
        let end = b[i + 2..]
            .windows(2)
            .position(|w| w == b"*/")
            .map_or(b.len(), |n| i + 2 + n + 2);
        for k in i..end {
            let line_end = || {
                b[k + 1..]
                    .iter()
                    .find(|c| !matches!(c, b' ' | b'\t' | b'\r'))
                    .is_none_or(|&c| c == b'\n')
            };
            let kept = b[k] == b'\n' || (b[k] == b'\\' && line_end());
            if !kept {
                out[k] = b' ';
            }
        }
        changed = true;
        i = end;
    }
    changed
}

/// Whether the trimmed line is an assembler directive (`.macro name`, `.endm`, `.irp n,0,1`),
/// which C never starts a line with between declarations.
fn assembler_line(line: &str) -> bool {
    line.strip_prefix('.')
        .is_some_and(|d| d.starts_with(|c: char| c.is_ascii_lowercase()) && !d.contains('='))
}

/// Whether the trimmed line is a `#define` or `#undef`.
fn is_definition(line: &str) -> bool {
    line.strip_prefix('#')
        .map(str::trim_start)
        .is_some_and(|d| d.starts_with("define") || d.starts_with("undef"))
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
    /// Its condition is whether the file is read as assembly.
    assembly: bool,
}

/// For a conditional on `__ASSEMBLY__` alone, whether its first branch is the assembly.
fn assembly_first(keyword: &str, condition: &str) -> Option<bool> {
    let condition = condition.split("/*").next().unwrap_or("");
    let condition = condition.split("//").next().unwrap_or("");
    let c: String = condition.chars().filter(|c| !c.is_whitespace()).collect();
    match (keyword, c.as_str()) {
        ("ifdef", "__ASSEMBLY__") => Some(true),
        ("ifndef", "__ASSEMBLY__") => Some(false),
        ("if", "defined(__ASSEMBLY__)" | "defined__ASSEMBLY__" | "__ASSEMBLY__") => Some(true),
        ("if", "!defined(__ASSEMBLY__)" | "!defined__ASSEMBLY__" | "!__ASSEMBLY__") => Some(false),
        _ => None,
    }
}

/// Each conditional that stands inside a body, a list or an unfinished statement read
/// as its first branch (`#if 0`: its other one) or, `every`, as all its branches in a
/// row: its directive lines (and the branches not read) become blanks in `out`.
/// Conditionals between whole declarations are left to the grammar. A `#define` or
/// `#undef` inside a list (an enum's, an initializer's) becomes blanks too, and so do the
/// comments inside a multi-line definition. Whether anything was blanked.
pub(super) fn blank_conditionals(text: &str, out: &mut [u8], every: bool) -> bool {
    let b = text.as_bytes();
    let mut changed = false;
    let mut frames: Vec<Frame> = Vec::new();
    let mut code = Code::default();
    let mut at = 0;
    while at < b.len() {
        // The logical line: a directive's backslash continuations belong to it.
        let mut end = text[at..].find('\n').map_or(b.len(), |n| at + n);
        let line = text[at..end].trim();
        let keyword = (!code.comment).then(|| conditional(line)).flatten();
        if line.starts_with('#') && !code.comment {
            let mut last_line = at;
            while b[last_line..end].trim_ascii_end().ends_with(b"\\") && end < b.len() {
                last_line = end + 1;
                end = text[end + 1..].find('\n').map_or(b.len(), |n| end + 1 + n);
            }
            // A comment before a continuation ends the grammar's reading of a definition's
            // body: the rest would read as code.
            changed |= blank_comments(&b[at..last_line], &mut out[at..last_line]);
        }
        let top = frames.last();
        let dropping = top.is_some_and(|f| f.dropping);
        let unread = top.is_some_and(|f| f.unread);
        // Between declarations: after `;`, `}`, `{` or `)` (a function's head) at the top.
        let inside = !code.braces.is_empty() || !matches!(code.last, b';' | b'}' | b'{' | b')');
        let blank_line = match keyword {
            Some(k @ ("if" | "ifdef" | "ifndef")) => {
                // Assembly (`#ifdef __ASSEMBLY__`) is never C: its branch is dropped
                // wherever it stands. Otherwise, in a dropped branch it is dropped whole;
                // in an unread one, left unread.
                let condition = line[1..].trim_start()[k.len()..].trim();
                let assembly = assembly_first(k, condition).filter(|_| !unread);
                let inside = dropping || assembly.is_some() || (inside && !unread);
                let zero = !every && k == "if" && condition == "0";
                let skip = zero || assembly == Some(true);
                frames.push(Frame {
                    inside,
                    dropping: dropping || (inside && skip),
                    taken: dropping || !skip,
                    unread,
                    assembly: assembly.is_some(),
                });
                inside
            }
            Some(k) => match frames.last_mut() {
                None => false,
                Some(_) if k == "endif" => frames.pop().is_some_and(|f| f.inside),
                Some(f) if f.inside => {
                    // `#elif`, `#else`: dropped after a branch read; read after `#if 0`.
                    if !every || f.assembly {
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
            // Assembler in a header with no `__ASSEMBLY__` guard: a `.macro` … `.endm`
            // block, or a line of a directive (`.irp`, `.set`) between declarations.
            None if !unread && code.braces.is_empty() && assembler_line(line) => {
                code.assembler =
                    line.starts_with(".macro") || code.assembler && !line.starts_with(".endm");
                true
            }
            None if code.assembler => {
                code.assembler = !line.starts_with(".endm");
                true
            }
            // A macro defined for a few lines inside code (an X-macro's `#define x(n)`
            // in an enum): the grammar takes a definition between declarations only.
            None if code.in_list() && !unread && is_definition(line) => true,
            None => {
                if !unread && (!line.starts_with('#') || code.comment) {
                    code.scan(&b[at..end]);
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

/// Code read so far (directives and unread lines aside): the braces open, each a list's
/// (an initializer's or an enum's) or a body's; the last significant byte; whether an
/// `enum` was read since the last `;` or brace; whether a block comment is open.
struct Code {
    braces: Vec<bool>,
    last: u8,
    enum_head: bool,
    comment: bool,
    /// Inside an assembler `.macro` block.
    assembler: bool,
}

impl Default for Code {
    fn default() -> Code {
        Code {
            braces: Vec::new(),
            last: b';',
            enum_head: false,
            comment: false,
            assembler: false,
        }
    }
}

impl Code {
    fn in_list(&self) -> bool {
        self.braces.last() == Some(&true)
    }

    fn scan(&mut self, line: &[u8]) {
        let mut i = 0;
        while i < line.len() {
            let c = line[i];
            if self.comment {
                if line[i..].starts_with(b"*/") {
                    self.comment = false;
                    i += 2;
                } else {
                    i += 1;
                }
                continue;
            }
            match c {
                b'/' if line.get(i + 1) == Some(&b'/') => break,
                b'/' if line.get(i + 1) == Some(&b'*') => {
                    self.comment = true;
                    i += 2;
                    continue;
                }
                b'"' | b'\'' => {
                    let mut j = i + 1;
                    while j < line.len() && line[j] != c {
                        j += if line[j] == b'\\' { 2 } else { 1 };
                    }
                    i = j + 1;
                    self.last = c;
                    continue;
                }
                _ if c.is_ascii_alphabetic() || c == b'_' => {
                    let end = line[i..]
                        .iter()
                        .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                        .map_or(line.len(), |n| i + n);
                    self.enum_head |= &line[i..end] == b"enum";
                    self.last = line[end - 1];
                    i = end;
                    continue;
                }
                b'{' => {
                    let list = self.enum_head
                        || self.last == b'='
                        || (self.in_list() && matches!(self.last, b',' | b'{'));
                    self.braces.push(list);
                    self.enum_head = false;
                }
                b'}' => {
                    self.braces.pop();
                }
                b';' => self.enum_head = false,
                _ => {}
            }
            if !c.is_ascii_whitespace() {
                self.last = c;
            }
            i += 1;
        }
    }
}
