//! C as the Linux kernel (and code like it) writes it, made readable to the C grammar
//! without changing a byte's offset: annotation macros (`__init`, `__user`, `__rcu`,
//! `__printf(1, 2)`) become blanks; a loop macro (`list_for_each_entry(pos, head, member)
//! {`) becomes `while` and its arguments one comma expression; `DEFINE_PER_CPU(struct rq,
//! runqueues)` becomes the declaration it expands to; and `struct` inside `container_of(…)`
//! and its kin, where a type is an argument, is blanked. Strings, characters and comments are
//! left alone, but for macros joined to strings (`strings.rs`). Conditionals inside code are
//! read as one branch or all (`conditionals.rs`); the macros by name are in `words.rs`.
//! Every byte keeps its offset but the arguments of a `*_PM_OPS(…)` entry, which move left
//! on their line (lines never move). `code::parse_code` keeps the patched tree only when it
//! has fewer errors.

mod conditionals;
mod strings;
mod words;

use conditionals::blank_conditionals;
use words::{
    ATTR_CALLS, ATTRS, BIT_FIELD_TYPES, DECLARE_AS, KEYWORDS, TYPE_ARGS, TYPE_FIRST, UNWRAP,
};

/// The text with the kernel's macros made plain C, and conditionals inside code read as
/// all their branches (`every`) or the first (see `conditionals.rs`); `None` when there
/// were none.
pub(crate) fn patch_c(text: &str, every: bool) -> Option<String> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut changed = blank_conditionals(text, &mut out, every);
    changed |= strings::blank_string_macros(text, &mut out);
    let mut i = 0;
    // The last significant byte before the current one (for "at a statement's start").
    let mut prev = b'\n';
    // Inside a preprocessor directive (a line starting with `#`, and its continuations):
    // its end is a statement's start, whatever its last byte.
    let mut directive = false;
    let mut line_start = 0;
    // Braces open (outside literals and comments): in a body or a list when above zero.
    let mut depth = 0usize;
    while i < b.len() {
        let c = b[i];
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(b.len(), |n| i + n);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
                continue;
            }
            b'"' | b'\'' => {
                i = skip_literal(b, i);
                prev = c;
                continue;
            }
            b',' if next_code(b, i + 1).is_some_and(|j| b[j] == b')') => {
                // An empty last argument (`f(a, b, /* none */)`), which only a macro takes.
                out[i] = b' ';
                changed = true;
            }
            b',' if let Some((from, to)) = operator_argument(b, i + 1) => {
                // An operator as an argument (`ASSERTCMP(a, ==, b)`): a name in its place.
                blank(&mut out[from..to]);
                out[from] = b'_';
                changed = true;
            }
            b':' if unnamed_bit_field(b, i) => {
                // `u32 : 14;`, which the grammar reads only with a name: `u32 _: 14;`.
                out[i - 1] = b'_';
                changed = true;
            }
            b'.' if b[i..].starts_with(b"...") => {
                changed |= gnu_ellipsis(text, &mut out, i, prev);
                prev = b'.';
                i += 3;
                continue;
            }
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                // Only a whole token, not the tail of a longer one.
                let word = &text[start..i];
                let open = next_significant(b, i).filter(|&j| b[j] == b'(');
                if depth > 0
                    && let Some(o) = open
                    && !matches!(word, "for" | "if" | "while" | "switch" | "asm" | "__asm__")
                    && struct_group(word).is_none()
                {
                    changed |= blank_statement_arguments(b, &mut out, o);
                }
                // Not a field's name (`.un.frag.__unused = 0`).
                if ATTRS.contains(&word) && !matches!(prev, b'.' | b'>') {
                    out[start..i].fill(b' ');
                    changed = true;
                } else if word == "static"
                    && matches!(prev, b';' | b'{' | b'}' | b'\n')
                    && let Some(end) = static_macro_statement(text, i)
                {
                    // `static SIMPLE_DEV_PM_OPS(pm, suspend, resume);` expands to a
                    // definition the grammar cannot see: the statement becomes blanks.
                    blank(&mut out[start..=end]);
                    changed = true;
                    i = end + 1;
                    prev = b';';
                    continue;
                } else if word.ends_with("MACHINE_START")
                    && let Some(o) = open
                    && let Some(close) = matching(b, o)
                    && let Some(comma) = first_top_comma(b, o, close)
                    && i - start >= 3
                {
                    // `MACHINE_START(OSK, "TI-OSK") .field = v, … MACHINE_END` is a
                    // structure named by its first argument: `int OSK= { … };`.
                    blank(&mut out[start..=o]);
                    out[start..start + 3].copy_from_slice(b"int");
                    out[comma] = b'=';
                    blank(&mut out[comma + 1..close]);
                    out[close] = b'{';
                    changed = true;
                    i = close + 1;
                    prev = b'{';
                    continue;
                } else if word == "define_machine"
                    && depth == 0
                    && let Some(o) = open
                    && let Some(close) = matching(b, o)
                    && next_significant(b, close + 1).is_some_and(|k| b[k] == b'{')
                {
                    // powerpc's `define_machine(name) { .field = v, … };`: `int name= {`.
                    blank(&mut out[start..=o]);
                    out[start..start + 3].copy_from_slice(b"int");
                    out[close] = b'=';
                    changed = true;
                    i = close + 1;
                    prev = b'=';
                    continue;
                } else if UNWRAP.contains(&word)
                    && let Some(o) = open
                    && let Some(close) = matching(b, o)
                {
                    // `INDIRECT_CALLABLE_DECLARE(int f(struct sk_buff *));`: the declaration
                    // it wraps.
                    blank(&mut out[start..=o]);
                    out[close] = b' ';
                    changed = true;
                    i = o + 1;
                    prev = b';';
                    continue;
                } else if matches!(word, "asm" | "__asm__")
                    && (prev.is_ascii_alphanumeric()
                        || prev == b'_'
                        || depth > 0 && matches!(prev, b';' | b'{' | b'}' | b'\n' | b':'))
                    && let Some(close) = asm_operands(text, i)
                {
                    // A register named for a variable (`register long r0 asm("r0") = x;`),
                    // or an inline assembly statement: its template and operands are often
                    // macros (`ALTERNATIVE(…)`, `__imm(f)`) the grammar cannot read, and
                    // nothing in it is a unit or a call.
                    blank(&mut out[start..=close]);
                    changed = true;
                    i = close + 1;
                    prev = b')';
                    continue;
                } else if word == "LIBBPF_OPTS"
                    && let Some(o) = open
                    && let Some(close) = matching(b, o)
                    && let Some(first) = first_top_comma(b, o, close)
                {
                    // `LIBBPF_OPTS(type, name, .field = v, …);` declares `type name =
                    // { .field = v, … };` (without fields: `type name;`).
                    blank(&mut out[start..=o]);
                    out[first] = b' ';
                    match first_top_comma(b, first, close) {
                        Some(second) if b.get(second + 1).is_some_and(|c| *c == b' ') => {
                            out[second] = b'=';
                            out[second + 1] = b'{';
                            out[close] = b'}';
                        }
                        Some(second) => blank(&mut out[second..=close]),
                        None => out[close] = b' ',
                    }
                    changed = true;
                    i = first + 1;
                    continue;
                } else if let Some(lead) = struct_group(word)
                    && depth > 0
                    && let Some(o) = open
                    && let Some(close) = matching(b, o)
                    && let Some(comma) =
                        (0..lead).try_fold(o, |at, _| first_top_comma(b, at, close))
                {
                    // `struct_group(name, int a; int b;);`: the fields it groups, in place.
                    blank(&mut out[start..=comma]);
                    let end = next_significant(b, close + 1).filter(|&k| b[k] == b';');
                    blank(&mut out[close..=end.unwrap_or(close)]);
                    changed = true;
                    i = comma + 1;
                    prev = b';';
                    continue;
                } else if word == "MACHINE_END" {
                    out[start..i].fill(b' ');
                    out[start..start + 2].copy_from_slice(b"};");
                    changed = true;
                } else if let (true, Some(o)) = (ATTR_CALLS.contains(&word), open)
                    && let Some(close) = matching(b, o)
                {
                    out[start..=close].iter_mut().for_each(|x| {
                        if *x != b'\n' {
                            *x = b' '
                        }
                    });
                    changed = true;
                    i = close + 1;
                } else if let Some(o) = open
                    && let Some(close) = matching(b, o)
                    && let Some(after) = next_significant(b, close + 1)
                    && is_loop_macro(word, prev, depth > 0 && b[after] == b'{')
                {
                    out[start..start + 5].copy_from_slice(b"while");
                    out[start + 5..i].fill(b' ');
                    changed = true;
                    // The arguments stay: `(pos, head, member)` is a comma expression.
                } else if let (true, Some(o)) = (DECLARE_AS.contains(&word), open)
                    && let Some(close) = matching(b, o)
                    && let Some(comma) = last_top_comma(b, o, close)
                {
                    blank(&mut out[start..=o]);
                    out[comma] = b' ';
                    out[close] = b' ';
                    // An array type (`unsigned long[4]`) cannot stand before the name: its
                    // bounds go.
                    if let Some(lb) = b[o..comma].iter().position(|&c| c == b'[')
                        && let Some(rb) = b[o + lb..comma].iter().rposition(|&c| c == b']')
                    {
                        blank(&mut out[o + lb..=o + lb + rb]);
                    }
                    changed = true;
                    // Its type is a declaration's now, not an argument.
                    i = o + 1;
                    prev = b';';
                    continue;
                } else if (registers(word) || depth == 0 && is_caps(word))
                    && matches!(prev, b';' | b'}' | b'\n')
                    && let Some(o) = open
                    && let Some(close) = matching(b, o)
                    && let next = next_significant(b, close + 1)
                    && let numbered =
                        next_significant(b, o + 1).is_some_and(|k| b[k].is_ascii_digit())
                    && (registers(word) && next.is_none_or(|k| b[k] != b';')
                        || ends_declaration(b, close, next)
                        || numbered && next.is_some_and(|k| b[k] == b';'))
                {
                    // `module_init(f)` with no `;` after it (383 of the kernel's files), a
                    // driver's `IRQCHIP_MATCH(…)` lines: the next declaration would read as
                    // its continuation. `DECLARE_MSM_GPIO_PINS(0);` names no object.
                    let end = next.filter(|&k| b[k] == b';').unwrap_or(close);
                    blank(&mut out[start..=end]);
                    changed = true;
                    i = end + 1;
                    prev = b';';
                    continue;
                } else if word.ends_with("_PM_OPS")
                    && let Some(o) = open
                    && let Some(close) = matching(b, o)
                    && !b[start..close].contains(&b'\n')
                    && next_significant(b, close + 1)
                        .is_some_and(|k| b[k] == b'.' || b[k] == b'_' || b[k].is_ascii_alphabetic())
                {
                    // `SET_SYSTEM_SLEEP_PM_OPS(s, r)` expands to fields and their commas:
                    // with another entry after it, it reads as the call `_(s, r),` in the
                    // name's place on its line (the arguments move left; the line stays).
                    let args = close + 1 - o;
                    blank(&mut out[start..=close]);
                    out[start] = b'_';
                    out[start + 1..start + 1 + args].copy_from_slice(&b[o..=close]);
                    out[start + 1 + args] = b',';
                    changed = true;
                    i = close + 1;
                    prev = b',';
                    continue;
                } else if depth > 0
                    && matches!(prev, b',' | b'{' | b'\n')
                    && is_caps(word)
                    && let Some(o) = open
                    && let Some(close) = matching(b, o)
                    && ends_line(b, close + 1)
                    && next_code(b, close + 1).is_some_and(|k| starts_entry(b[k]))
                {
                    // An X-macro's list (`BCH_WATERMARKS()`) on its own line among entries
                    // or statements: what it expands to is generated.
                    blank(&mut out[start..=close]);
                    changed = true;
                    i = close + 1;
                    prev = b',';
                    continue;
                } else if (is_trace_event(word) || word == "static_assert" && depth == 0)
                    && matches!(prev, b';' | b'}' | b'\n')
                    && let Some(o) = open
                    && let Some(close) = matching(b, o)
                {
                    // A tracepoint's definition: prototypes, fields and a format as
                    // arguments, which no grammar reads; what it defines is generated. And
                    // an assertion between declarations, which the grammar does not know.
                    let end = next_significant(b, close + 1)
                        .filter(|&k| b[k] == b';')
                        .unwrap_or(close);
                    blank(&mut out[start..=end]);
                    changed = true;
                    i = end + 1;
                    prev = b';';
                    continue;
                } else if (word == "STATIC" && matches!(prev, b';' | b'}' | b'\n'))
                    || (word == "__attribute__" && prev == b']')
                {
                    // xfs's `STATIC int f(…)`; `char v[8] __attribute__((aligned(8)))`,
                    // which the grammar takes before a declarator only.
                    let end = match open.and_then(|o| matching(b, o)) {
                        Some(close) if word == "__attribute__" => close + 1,
                        _ => i,
                    };
                    if word == "STATIC" || end > i {
                        blank(&mut out[start..end]);
                        changed = true;
                        i = end;
                    }
                } else if matches!(word, "struct" | "union" | "enum")
                    && matches!(prev, b'(' | b',')
                    && type_argument(b, i)
                {
                    // `lwq_dequeue(q, struct svc_xprt, ready)`: a type as a whole argument
                    // of a macro the lists below do not name reads as a name.
                    out[start..i].fill(b' ');
                    changed = true;
                } else if let (true, Some(o)) = (TYPE_ARGS.contains(&word), open)
                    && let Some(close) = matching(b, o)
                {
                    changed |= blank_type_keywords(text, &mut out, o, close);
                    // The grammar's `offsetof` takes a plain type and one field name, not
                    // `typeof(*p)` or a path (`icsk_ack.pending`): it is read as a call.
                    if word == "offsetof" {
                        out[i - 1] = b'_';
                        changed = true;
                    }
                } else if let (true, Some(o)) = (TYPE_FIRST.contains(&word), open)
                    && let Some(close) = matching(b, o)
                {
                    let end = first_top_comma(b, o, close).unwrap_or(close);
                    if let Some(at) = next_significant(b, o + 1).filter(|&at| at < end) {
                        // `_` on the type's last byte: its words are read after this one.
                        let last = (at..end)
                            .rev()
                            .find(|&k| !b[k].is_ascii_whitespace())
                            .unwrap_or(at);
                        blank(&mut out[at..end]);
                        out[last] = b'_';
                        changed = true;
                    }
                } else if let (Some(ret), Some(o)) = (defines_function(word), open)
                    && let Some(close) = matching(b, o)
                    && let Some(first) = first_top_comma(b, o, close)
                {
                    // `SYSCALL_DEFINE2(kill, pid_t, pid, int, sig)` → `long kill(pid_t pid,
                    // int sig)`: the name, then each type and its argument.
                    out[start..i].fill(b' ');
                    out[start..start + ret.len()].copy_from_slice(ret.as_bytes());
                    out[o] = b' ';
                    out[first] = b'(';
                    let mut depth = 0;
                    let mut pair = 0;
                    for k in first + 1..close {
                        match b[k] {
                            b'(' | b'[' => depth += 1,
                            b')' | b']' => depth -= 1,
                            b',' if depth == 0 => {
                                if pair % 2 == 0 {
                                    out[k] = b' ';
                                }
                                pair += 1;
                            }
                            _ => {}
                        }
                    }
                    changed = true;
                } else if let (true, Some(o)) = (declares_object(word, prev), open)
                    && let Some(close) = matching(b, o)
                    && next_significant(b, close + 1).is_none_or(|k| !matches!(b[k], b',' | b'}'))
                    && next_significant(b, o + 1).is_some_and(|k| !b[k].is_ascii_digit())
                {
                    // Not an entry of a list (`{ DEFINE_RCG_DFS(clk), … }`), nor named by a
                    // number (`DECLARE_MSM_GPIO_PINS(0);`, which the rule above blanks).
                    // `static DEFINE_MUTEX(lock);`, `DECLARE_WORK(w, fn);` → `int lock;`: an
                    // object named by the first argument; `DECLARE_SOCKADDR(struct
                    // sockaddr_in *, sin, uaddr);` → `struct sockaddr_in * sin;`: one of the
                    // type its first argument is, named by the second.
                    let first = first_top_comma(b, o, close);
                    let typed = first.filter(|&f| is_type(&text[o + 1..f]));
                    blank(&mut out[start..=o]);
                    let end = match typed {
                        Some(f) => {
                            out[f] = b' ';
                            first_top_comma(b, f, close).unwrap_or(close)
                        }
                        None => {
                            out[start..start + 3].copy_from_slice(b"int");
                            first.unwrap_or(close)
                        }
                    };
                    blank(&mut out[end..=close]);
                    changed = true;
                }
                prev = b[i - 1];
                continue;
            }
            _ => {}
        }
        if c == b'#' && b[line_start..i].iter().all(u8::is_ascii_whitespace) {
            directive = true;
        }
        match c {
            b'{' if !directive => depth += 1,
            b'}' if !directive => depth = depth.saturating_sub(1),
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            prev = c;
        } else if c == b'\n' {
            let continued = b[line_start..i].trim_ascii_end().ends_with(b"\\");
            if (directive && !continued) || matches!(prev, b';' | b'}' | b'{' | b'\n') {
                prev = b'\n';
            }
            directive &= continued;
            line_start = i + 1;
        }
        i += 1;
    }
    changed.then(|| String::from_utf8(out).ok()).flatten()
}

/// GNU's `...` outside a parameter list, at `at`: a range (`case 'a' ... 'z':`,
/// `[0 ... 15] = x`) becomes a sum, and a named variadic parameter of a macro
/// (`#define dbg(fmt, args...)`) loses its dots. A parameter list's own `, ...` is left.
fn gnu_ellipsis(text: &str, out: &mut [u8], at: usize, prev: u8) -> bool {
    let b = text.as_bytes();
    let line = &text[text[..at].rfind('\n').map_or(0, |n| n + 1)..at];
    let after = next_significant(b, at + 3).map(|j| b[j]);
    let named = prev.is_ascii_alphanumeric() || prev == b'_';
    if named && after == Some(b')') && line.trim_start().starts_with('#') {
        out[at..at + 3].fill(b' ');
        return true;
    }
    let in_range = line
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|w| w == "case")
        || line.matches('[').count() > line.matches(']').count();
    let operand =
        |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'\'' | b'(' | b')' | b'-');
    if in_range && operand(prev) && after.is_some_and(operand) {
        out[at..at + 3].copy_from_slice(b" + ");
        return true;
    }
    false
}

/// Where `static [const] NAME(…);` ends (its `;`), `from` being just after `static`:
/// NAME in capitals, not one the other rules read (`DEFINE_*` declares an object).
fn static_macro_statement(text: &str, from: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut at = next_significant(b, from)?;
    let word = |at: usize| {
        let end = b[at..]
            .iter()
            .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
            .map_or(b.len(), |n| at + n);
        (&text[at..end], end)
    };
    if word(at).0 == "const" {
        at = next_significant(b, word(at).1)?;
    }
    let (name, end) = word(at);
    let caps = name.len() >= 4
        && name.contains('_')
        && name
            .bytes()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
        && name.as_bytes()[0].is_ascii_uppercase();
    if !caps
        || name.starts_with("DEFINE_")
        || name.starts_with("DECLARE_")
        || DECLARE_AS.contains(&name)
    {
        return None;
    }
    let open = next_significant(b, end).filter(|&o| b[o] == b'(')?;
    let close = matching(b, open)?;
    match next_significant(b, close + 1) {
        Some(s) if b[s] == b';' => Some(s),
        // `static DEF_SCSI_QCMD(queue)` alone: the next declaration follows.
        next if ends_declaration(b, close, next) => Some(close),
        _ => None,
    }
}

/// Whether a macro call ending at `close` stands as a whole declaration with no `;`:
/// what follows (`next`) starts another on a later line, or nothing does.
fn ends_declaration(b: &[u8], close: usize, next: Option<usize>) -> bool {
    next.is_none_or(|k| {
        (b[k].is_ascii_alphabetic() || matches!(b[k], b'_' | b'#')) && b[close..k].contains(&b'\n')
    })
}

/// Macros that define a function from (name, type, argument, …): what it returns.
fn defines_function(word: &str) -> Option<&'static str> {
    let n = word.strip_prefix("COMPAT_").unwrap_or(word);
    let n = n
        .strip_prefix("SYSCALL_DEFINE")
        .map(|d| ("long", d))
        .or_else(|| n.strip_prefix("BPF_CALL_").map(|d| ("u64", d)));
    match n {
        Some((ret, digits))
            if digits.len() == 1 && digits != "0" && digits.bytes().all(|c| c.is_ascii_digit()) =>
        {
            Some(ret)
        }
        _ => None,
    }
}

/// `DEFINE_*`/`DECLARE_*` macros that declare an object named by their first argument,
/// at a statement's start (or after `static` or `const`).
/// So do a BPF map's fields (`__uint(max_entries, 16);`, `__type(key, u32);`).
fn declares_object(word: &str, prev: u8) -> bool {
    let define = (word.starts_with("DEFINE_") || word.starts_with("DECLARE_"))
        && word.len() > "DEFINE_".len()
        && word
            .bytes()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
        && !DECLARE_AS.contains(&word);
    let bpf_field = matches!(
        word,
        "__uint" | "__type" | "__array" | "__ulong" | "__bpf_md_ptr"
    );
    (define || bpf_field) && matches!(prev, b';' | b'{' | b'}' | b'\n' | b'c' | b't')
}

/// The first `,` between `open` and `close` at depth one.
fn first_top_comma(b: &[u8], open: usize, close: usize) -> Option<usize> {
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate().take(close).skip(open + 1) {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b',' if depth == 0 => return Some(k),
            _ => {}
        }
    }
    None
}

/// A loop macro at a statement's start (after a label too), long enough to hold `while`: its name holds
/// `for_each` or `foreach` (`list_for_each_entry`, `xt_entry_foreach`), or it is
/// `braced`: in a body with a `{` after it (`skb_list_walk_safe(a, b, c) {`), where only
/// a loop (or conditional) macro can stand.
fn is_loop_macro(word: &str, prev: u8, braced: bool) -> bool {
    let named = word.contains("for_each") || word.contains("foreach");
    (named || braced && !KEYWORDS.contains(&word))
        && word.len() >= 5
        && matches!(prev, b';' | b'{' | b'}' | b'\n' | b')' | b':')
}

/// Blanks, the line breaks kept.
fn blank(bytes: &mut [u8]) {
    for x in bytes {
        if *x != b'\n' {
            *x = b' ';
        }
    }
}

/// The index after a string or character literal starting at `i`.
fn skip_literal(b: &[u8], i: usize) -> usize {
    let q = b[i];
    let mut j = i + 1;
    while j < b.len() && b[j] != q && b[j] != b'\n' {
        j += if b[j] == b'\\' { 2 } else { 1 };
    }
    (j + 1).min(b.len())
}

/// An argument, from `at`, that is an operator alone: its bytes, when one.
fn operator_argument(b: &[u8], at: usize) -> Option<(usize, usize)> {
    let from = next_significant(b, at)?;
    let len = b[from..]
        .iter()
        .take_while(|c| b"=!<>&|+-*/%^".contains(c))
        .count();
    let to = from + len;
    let after = next_significant(b, to)?;
    (len > 0 && b[after] == b',' && !b[from..to].starts_with(b"/*")).then_some((from, to))
}

/// The next byte that is neither blank nor in a comment.
fn next_code(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        i = next_significant(b, i)?;
        if b[i..].starts_with(b"/*") {
            i = i + 2 + b[i + 2..].windows(2).position(|w| w == b"*/")? + 2;
        } else if b[i..].starts_with(b"//") {
            i += b[i..].iter().position(|&c| c == b'\n')?;
        } else {
            return Some(i);
        }
    }
}

fn next_significant(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    (i < b.len()).then_some(i)
}

/// The `)` closing the `(` at `open`, past literals; none across a blank line's worth of
/// text (4 KiB), which a real macro's arguments never need.
fn matching(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() && i - open < 4096 {
        match b[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b'"' | b'\'' => {
                i = skip_literal(b, i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The last `,` between `open` and `close` at depth one.
fn last_top_comma(b: &[u8], open: usize, close: usize) -> Option<usize> {
    let mut depth = 0;
    let mut found = None;
    for (k, &c) in b.iter().enumerate().take(close).skip(open + 1) {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b',' if depth == 0 => found = Some(k),
            _ => {}
        }
    }
    found
}

/// Whether a macro's argument is a type: a tagged one (`struct sockaddr_in`) or a pointer.
fn is_type(arg: &str) -> bool {
    let arg = arg.trim();
    arg.ends_with('*')
        || ["struct ", "union ", "enum "]
            .iter()
            .any(|k| arg.starts_with(k) && !arg.contains(['(', '=', ',']))
}

/// `struct`, `union` and `enum` words between `open` and `close` become blanks.
/// Whether the `:` at `at` follows a type alone and a blank on its line, and a width and
/// `;` follow it: an unnamed bit-field.
fn unnamed_bit_field(b: &[u8], at: usize) -> bool {
    let line = b[..at]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |n| n + 1);
    let head = &b[line..at];
    if !head.last().is_some_and(|c| *c == b' ' || *c == b'\t') {
        return false;
    }
    let words: Vec<&[u8]> = head
        .split(|c| c.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let typed = words
        .last()
        .is_some_and(|w| BIT_FIELD_TYPES.contains(&std::str::from_utf8(w).unwrap_or("")));
    let plain = words
        .iter()
        .all(|w| w.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_'));
    let width = b[at + 1..]
        .iter()
        .position(|&c| c == b';' || c == b'\n')
        .is_some_and(|n| {
            b[at + 1 + n] == b';'
                && b[at + 1..at + 1 + n]
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || c.is_ascii_whitespace())
        });
    typed && plain && width
}

/// A macro's arguments that are statements (`PP_ASSERT_WITH_CODE(ok, "msg", return -EINVAL);`,
/// `nvkm_msec(dev, 2000, if (done) break;)`) become blanks, with the `,` before them; whether
/// there were any. An argument is a statement when it starts with a statement's keyword or
/// holds a `;` of its own.
fn blank_statement_arguments(b: &[u8], out: &mut [u8], open: usize) -> bool {
    let Some(close) = matching(b, open) else {
        return false;
    };
    let (mut depth, mut from, mut semicolon, mut changed) = (0usize, open, false, false);
    let mut k = open + 1;
    while k <= close {
        match b[k] {
            b'"' | b'\'' => {
                k = skip_literal(b, k);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth > 0 => depth -= 1,
            b';' if depth == 0 => semicolon = true,
            b',' | b')' if depth == 0 => {
                let arg = &b[from + 1..k];
                let start = arg
                    .iter()
                    .position(|c| !c.is_ascii_whitespace())
                    .unwrap_or(0);
                let word_end = arg[start..]
                    .iter()
                    .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                    .map_or(arg.len(), |n| start + n);
                let keyword = matches!(
                    &arg[start..word_end],
                    b"return" | b"break" | b"continue" | b"goto" | b"if" | b"do"
                );
                if semicolon || keyword {
                    blank(&mut out[from + usize::from(from == open)..k]);
                    changed = true;
                }
                (from, semicolon) = (k, false);
            }
            _ => {}
        }
        k += 1;
    }
    changed
}

/// The `)` closing an inline assembly statement's operands, `from` being just after its
/// `asm`: past qualifiers (`volatile`, `goto`, `inline`).
fn asm_operands(text: &str, from: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut at = next_significant(b, from)?;
    loop {
        let end = b[at..]
            .iter()
            .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
            .map_or(b.len(), |n| at + n);
        match &text[at..end] {
            "volatile" | "__volatile__" | "goto" | "inline" | "__inline__" => {
                at = next_significant(b, end)?;
            }
            "" if b[at] == b'(' => return matching(b, at),
            _ => return None,
        }
    }
}

/// How many arguments come before the fields of a `struct_group` macro.
fn struct_group(word: &str) -> Option<usize> {
    match word {
        "struct_group" => Some(1),
        "struct_group_tagged" | "struct_group_attr" => Some(2),
        "__struct_group" => Some(3),
        _ => None,
    }
}

/// A name in capitals (`BCH_WATERMARKS`): a macro's, by the kernel's custom.
fn is_caps(word: &str) -> bool {
    word.len() >= 3
        && word.bytes().any(|c| c.is_ascii_uppercase())
        && word
            .bytes()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
}

/// Whether only blanks or a comment follow `at` on its line.
fn ends_line(b: &[u8], at: usize) -> bool {
    let end = b[at..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |n| at + n);
    let rest = b[at..end].trim_ascii();
    rest.is_empty() || rest.starts_with(b"//") || rest.starts_with(b"/*")
}

/// Whether a byte can start the next entry of a list or the next statement.
fn starts_entry(c: u8) -> bool {
    c.is_ascii_alphabetic() || matches!(c, b'_' | b'.' | b'[' | b'#')
}

/// Tracepoint definitions (`TRACE_EVENT(name, TP_PROTO(…), …);`).
fn is_trace_event(word: &str) -> bool {
    word.starts_with("TRACE_EVENT")
        || word.starts_with("DECLARE_EVENT_CLASS")
        || word.starts_with("DEFINE_EVENT")
}

/// Macros that register a function or driver at a file's top level.
fn registers(word: &str) -> bool {
    matches!(word, "module_init" | "module_exit")
        || word.ends_with("_initcall")
        || word.ends_with("_initcall_sync")
        || (word.starts_with("module_") || word.starts_with("builtin_"))
            && word.ends_with("_driver")
}

/// Whether `struct` (or `union`, `enum`), ending at `at`, names a type that is a whole
/// argument: one name, then `,` or `)`.
fn type_argument(b: &[u8], at: usize) -> bool {
    let Some(name) = next_significant(b, at).filter(|&n| n > at) else {
        return false;
    };
    let mut end = name;
    while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
        end += 1;
    }
    end > name
        && !b[name].is_ascii_digit()
        && next_significant(b, end).is_some_and(|k| matches!(b[k], b',' | b')'))
}

fn blank_type_keywords(text: &str, out: &mut [u8], open: usize, close: usize) -> bool {
    let mut changed = false;
    for kw in ["struct", "union", "enum"] {
        let mut from = open;
        while let Some(at) = text[from..close].find(kw).map(|k| from + k) {
            let end = at + kw.len();
            let b = text.as_bytes();
            let whole = !b[at - 1].is_ascii_alphanumeric()
                && b[at - 1] != b'_'
                && b.get(end).is_some_and(|c| c.is_ascii_whitespace());
            if whole {
                out[at..end].fill(b' ');
                changed = true;
            }
            from = end;
        }
    }
    changed
}

#[cfg(test)]
mod tests;
