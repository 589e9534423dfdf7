//! C as the Linux kernel (and code like it) writes it, made readable to the C grammar
//! without changing a byte's offset: annotation macros (`__init`, `__user`, `__rcu`,
//! `__printf(1, 2)`) become blanks; a loop macro (`list_for_each_entry(pos, head, member)
//! {`) becomes `while` and its arguments one comma expression; `DEFINE_PER_CPU(struct rq,
//! runqueues)` becomes the declaration it expands to; and `struct` inside `container_of(…)`
//! and its kin, where a type is an argument, is blanked. Strings, characters and comments are
//! left alone. Every byte keeps its offset but the arguments of a `*_PM_OPS(…)` entry, which
//! move left on their line (lines never move). `code::parse_code` keeps the patched tree
//! only when it has fewer errors.

/// Annotations that stand alone: storage, section, checker and inlining attributes.
const ATTRS: [&str; 77] = [
    "__noipa",
    "__success",
    "__failure",
    "asmlinkage",
    "noinstr",
    "noinline_for_stack",
    "__initmv",
    "__init",
    "__exit",
    "__initdata",
    "__initconst",
    "__exitdata",
    "__ref",
    "__refdata",
    "__refconst",
    "__meminit",
    "__meminitdata",
    "__meminitconst",
    "__net_init",
    "__net_exit",
    "__net_initdata",
    "__devinit",
    "__devexit",
    "__cpuinit",
    "__sched",
    "__cpuidle",
    "__kprobes",
    "__user",
    "__kernel",
    "__iomem",
    "__percpu",
    "__rcu",
    "__force",
    "__nocast",
    "__safe",
    "__bitwise",
    "__private",
    "__read_mostly",
    "__ro_after_init",
    "__always_inline",
    "__inline",
    "noinline",
    "__noinline",
    "__weak",
    "__maybe_unused",
    "__always_unused",
    "__used",
    "__unused",
    "__cold",
    "__hot",
    "__must_check",
    "__visible",
    "__noreturn",
    "__pure",
    "__packed",
    "__latent_entropy",
    "__randomize_layout",
    "__no_randomize_layout",
    "__noclone",
    "__naked",
    "__attribute_const__",
    "__malloc",
    "__mustcheck",
    "__bpf_kfunc",
    "__diag_ignore_all",
    "____cacheline_aligned",
    "____cacheline_aligned_in_smp",
    "__cacheline_aligned",
    "__cacheline_aligned_in_smp",
    "__page_aligned_data",
    "__page_aligned_bss",
    "__nosavedata",
    "__irq_entry",
    "__softirq_entry",
    "notrace",
    "__flatten",
    "__noinstr",
];

/// Annotations with arguments: the name and its parenthesised arguments become blanks.
const ATTR_CALLS: [&str; 28] = [
    "__free",
    "SEC",
    "__flag",
    "__retval",
    "__description",
    "__msg",
    "__log_level",
    "__exception_cb",
    "__printf",
    "__scanf",
    "__aligned",
    "__section",
    "__acquires",
    "__releases",
    "__must_hold",
    "__cond_acquires",
    "__cond_releases",
    "__counted_by",
    "__alloc_size",
    "__nonstring",
    "__designated_init",
    "__assume_aligned",
    "__realloc_size",
    "__guarded_by",
    "__pt_guarded_by",
    "__diag_push",
    "__diag_pop",
    "__no_sanitize_address",
];

/// Declarations written as `NAME(type, name)`: they read as `type name`.
const DECLARE_AS: [&str; 12] = [
    "DEFINE_PER_CPU",
    "DECLARE_PER_CPU",
    "DEFINE_PER_CPU_SHARED_ALIGNED",
    "DECLARE_PER_CPU_SHARED_ALIGNED",
    "DEFINE_PER_CPU_ALIGNED",
    "DECLARE_PER_CPU_ALIGNED",
    "DEFINE_PER_CPU_READ_MOSTLY",
    "DECLARE_PER_CPU_READ_MOSTLY",
    "DEFINE_PER_CPU_PAGE_ALIGNED",
    "DECLARE_PER_CPU_PAGE_ALIGNED",
    "DEFINE_PER_CPU_FIRST",
    "DEFINE_PER_CPU_DECRYPTED",
];

/// Macros that take a type among their arguments (`container_of(p, struct t, member)`).
const TYPE_ARGS: [&str; 17] = [
    "container_of",
    "container_of_const",
    "list_entry",
    "list_first_entry",
    "list_last_entry",
    "list_next_entry",
    "list_prev_entry",
    "list_first_entry_or_null",
    "hlist_entry",
    "hlist_entry_safe",
    "rb_entry",
    "rb_entry_safe",
    "llist_entry",
    "offsetof",
    "sizeof_field",
    "typeof_member",
    "struct_size_t",
];

/// Macros whose first argument is a type (`min_t(unsigned int, a, b)`): it becomes `_`.
const TYPE_FIRST: [&str; 8] = [
    "min_t",
    "max_t",
    "clamp_t",
    "alloc_percpu",
    "alloc_percpu_gfp",
    "__alloc_percpu",
    "sizeof_t",
    "READ_ONCE_T",
];

/// The text with the kernel's macros made plain C, or `None` when there were none.
pub(crate) fn patch_c(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut changed = blank_list_conditionals(text, &mut out);
    let mut i = 0;
    // The last significant byte before the current one (for "at a statement's start").
    let mut prev = b'\n';
    // Inside a preprocessor directive (a line starting with `#`, and its continuations):
    // its end is a statement's start, whatever its last byte.
    let mut directive = false;
    let mut line_start = 0;
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
                if ATTRS.contains(&word) {
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
                } else if let (true, Some(o)) = (is_loop_macro(word, prev), open)
                    && let Some(close) = matching(b, o)
                    && next_significant(b, close + 1).is_some()
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
                    changed = true;
                    // Its type is a declaration's now, not an argument.
                    i = o + 1;
                    prev = b';';
                    continue;
                } else if registers(word)
                    && matches!(prev, b';' | b'}' | b'\n')
                    && let Some(o) = open
                    && let Some(close) = matching(b, o)
                    && next_significant(b, close + 1).is_none_or(|k| b[k] != b';')
                {
                    // `module_init(f)` with no `;` after it (383 of the kernel's files): the
                    // next declaration would read as its continuation.
                    blank(&mut out[start..=close]);
                    changed = true;
                    i = close + 1;
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
                } else if is_trace_event(word)
                    && matches!(prev, b';' | b'}' | b'\n')
                    && let Some(o) = open
                    && let Some(close) = matching(b, o)
                {
                    // A tracepoint's definition: prototypes, fields and a format as
                    // arguments, which no grammar reads; what it defines is generated.
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
                } else if let (true, Some(o)) = (TYPE_FIRST.contains(&word), open)
                    && let Some(close) = matching(b, o)
                {
                    let end = first_top_comma(b, o, close).unwrap_or(close);
                    if let Some(at) = next_significant(b, o + 1).filter(|&at| at < end) {
                        blank(&mut out[at..end]);
                        out[at] = b'_';
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
                {
                    // `static DEFINE_MUTEX(lock);`, `DECLARE_WORK(w, fn);` → `int lock;`: an
                    // object named by the first argument.
                    out[start..i].fill(b' ');
                    out[start..start + 3].copy_from_slice(b"int");
                    out[o] = b' ';
                    let end = first_top_comma(b, o, close).unwrap_or(close);
                    out[end..=close].iter_mut().for_each(|x| {
                        if *x != b'\n' {
                            *x = b' '
                        }
                    });
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
    next_significant(b, close + 1).filter(|&s| b[s] == b';')
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
    let bpf_field = matches!(word, "__uint" | "__type" | "__array" | "__ulong");
    (define || bpf_field) && matches!(prev, b';' | b'{' | b'}' | b'\n' | b'c' | b't')
}

/// `#ifdef`, `#else`, `#endif` lines inside a list (an initializer's entries: the line
/// before ends with `,` or `{`) become blanks, so the grammar reads one list.
fn blank_list_conditionals(text: &str, out: &mut [u8]) -> bool {
    let mut changed = false;
    let mut offset = 0;
    let mut last_end = b';';
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        let directive = t.strip_prefix('#').map(str::trim_start).is_some_and(|d| {
            ["if", "ifdef", "ifndef", "elif", "else", "endif"]
                .iter()
                .any(|k| {
                    d.starts_with(k)
                        && d[k.len()..]
                            .chars()
                            .next()
                            .is_none_or(|c| !c.is_alphanumeric() && c != '_')
                })
        });
        if directive && matches!(last_end, b',' | b'{') {
            let body = line.trim_end_matches(['\n', '\r']).len();
            out[offset..offset + body].fill(b' ');
            changed = true;
        } else if let Some(&c) = t.as_bytes().last()
            && !t.starts_with("//")
            && !t.starts_with('*')
            && !t.starts_with("/*")
            && !directive
        {
            last_end = c;
        }
        offset += line.len();
    }
    changed
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

/// A loop macro at a statement's start: `list_for_each_entry`, `for_each_cpu`,
/// `hash_for_each_possible` (its name holds `for_each`, and it is long enough to hold
/// `while`).
fn is_loop_macro(word: &str, prev: u8) -> bool {
    word.contains("for_each")
        && word.len() >= 5
        && matches!(prev, b';' | b'{' | b'}' | b'\n' | b')')
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

/// `struct`, `union` and `enum` words between `open` and `close` become blanks.
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
mod tests {
    use super::*;

    #[test]
    fn kernel_macros_read_as_plain_c_at_the_same_offsets() {
        let src = "static int __init foo(void __user *p) {\n\tlist_for_each_entry(pos, &head, list) {\n\t\tn++;\n\t}\n\treturn 0;\n}\nDEFINE_PER_CPU(struct rq, runqueues);\nvoid __printf(1, 2) log(const char *f, ...);\nstruct e *e = container_of(p, struct e, node);\nconst char *s = \"__init\";\n";
        let out = patch_c(src).unwrap();
        let more = "SYSCALL_DEFINE2(kill, pid_t, pid, int, sig)\n{\n\tu32 n = min_t(unsigned int, a, b);\n}\nstatic DEFINE_MUTEX(lock);\nstatic const struct ops o = {\n\t.a = f,\n#ifdef CONFIG_X\n\t.b = g,\n#endif\n};\n";
        let more_out = patch_c(more).unwrap();
        assert_eq!(more_out.len(), more.len());
        assert!(
            more_out.starts_with("long            kill( pid_t  pid, int  sig)"),
            "{more_out}"
        );
        assert!(more_out.contains("min_t(_           , a, b)"), "{more_out}");
        assert!(
            more_out.contains("static int          lock ;"),
            "{more_out}"
        );
        assert!(!more_out.contains("#ifdef"), "{more_out}");
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(
            out.starts_with("static int        foo(void        *p) {"),
            "{out}"
        );
        assert!(
            out.contains("\twhile              (pos, &head, list) {"),
            "{out}"
        );
        assert!(
            out.contains("               struct rq  runqueues ;"),
            "{out}"
        );
        assert!(
            out.contains("void                log(const char *f, ...);"),
            "{out}"
        );
        assert!(out.contains("container_of(p,        e, node)"), "{out}");
        assert!(out.contains("\"__init\""), "strings stay: {out}");
        assert_eq!(patch_c("int main(void) { return 0; }\n"), None);
    }

    #[test]
    fn gnu_ranges_variadic_names_and_macro_definitions_read_as_c() {
        let src = "#define dbg(fmt, args...) printk(fmt, ##args)\nint f(const char *fmt, ...);\nstatic SIMPLE_DEV_PM_OPS(pm, sus, res);\nstatic const DEVICE_ATTR(chip, 0444, show, NULL);\nstatic DEFINE_MUTEX(lock);\nint g(int c) {\n\tswitch (c) {\n\tcase 'a' ... 'z':\n\t\treturn 1;\n\t}\n\treturn 0;\n}\nint t[8] = { [0 ... 7] = 1 };\nDT_MACHINE_START(VF610, \"Vybrid\")\n\t.dt_compat = compat,\nMACHINE_END\n";
        let out = patch_c(src).unwrap();
        assert_eq!(out.len(), src.len());
        assert!(out.contains("#define dbg(fmt, args   ) printk"), "{out}");
        assert!(out.contains("int f(const char *fmt, ...);"), "{out}");
        assert!(
            !out.contains("SIMPLE_DEV_PM_OPS") && !out.contains("DEVICE_ATTR"),
            "{out}"
        );
        assert!(out.contains("static int          lock ;"), "{out}");
        assert!(out.contains("case 'a'  +  'z':"), "{out}");
        let tlv = patch_c("static const DECLARE_TLV_DB_SCALE(gain, -6375, 25, 0);\n").unwrap();
        assert_eq!(
            tlv,
            "static const int                  gain               ;\n"
        );
        assert!(out.contains("[0  +  7] = 1"), "{out}");
        assert!(out.contains("int              VF610=         {"), "{out}");
        assert!(out.contains("\n};         \n"), "{out}");
        let a = crate::analyze_file("m.c", src, &crate::ChunkOptions::default());
        assert_eq!(a.parse_error, None);
        let names: Vec<&str> = a.facts.symbols.iter().map(|s| s.name.as_str()).collect();
        assert!(names.contains(&"g") && names.contains(&"dbg"), "{names:?}");
        // A type as a whole argument of any macro; a pointer type or a cast stays.
        let src = "asmlinkage void noinstr h(void)\n{\n\tx = lwq_dequeue(q, struct svc_xprt, ready);\n\ty = (struct a *)p;\n\tz = f(p, struct b *);\n}\n";
        let out = patch_c(src).unwrap();
        assert_eq!(out.len(), src.len());
        assert!(
            out.contains("lwq_dequeue(q,        svc_xprt, ready)"),
            "{out}"
        );
        assert!(
            out.contains("(struct a *)p") && out.contains("f(p, struct b *)"),
            "{out}"
        );
        assert!(out.starts_with("           void         h(void)"), "{out}");
        let map = patch_c(
            "struct {\n\t__uint(max_entries, 16);\n\t__type(key, u32);\n} m SEC(\".maps\");\n",
        )
        .unwrap();
        assert_eq!(
            map,
            "struct {\n\tint    max_entries     ;\n\tint    key      ;\n} m             ;\n"
        );
        let out = patch_c(
            "STATIC int\nf(void) { static char v[8] __attribute__((aligned(8))); return 0; }\n",
        )
        .unwrap();
        assert_eq!(
            out,
            "       int\nf(void) { static char v[8]                            ; return 0; }\n"
        );
        let pm = "static const struct dev_pm_ops p = {\n\tSET_SYSTEM_SLEEP_PM_OPS(s, r)\n\tSET_RUNTIME_PM_OPS(a, b, NULL)\n};\n";
        let out = patch_c(pm).unwrap();
        assert_eq!(out.len(), pm.len());
        assert!(out.contains("\t_(s, r),  "), "{out}");
        assert!(
            out.contains("\tSET_RUNTIME_PM_OPS(a, b, NULL)\n};"),
            "{out}"
        );
        let a = crate::analyze_file("pm.c", pm, &crate::ChunkOptions::default());
        assert_eq!(a.parse_error, None);
        let trace = "#define A(x) \\\n\t(x)\n\nTRACE_EVENT(x,\n\tTP_PROTO(void *b, size_t n),\n\tTP_STRUCT__entry(\n\t\t__field(unsigned int, len)\n\t),\n\tTP_printk(\"%d\", 1)\n);\nint after(void);\n";
        let out = patch_c(trace).unwrap();
        assert_eq!(out.len(), trace.len());
        assert!(out.starts_with("#define A(x) \\\n\t(x)\n\n "), "{out}");
        assert!(
            out[20..].trim_start().starts_with("int after(void);"),
            "{out}"
        );
        let src = "static int __init m(void)\n{\n\treturn 0;\n}\nmodule_init(m)\nmodule_exit(m);\nMODULE_LICENSE(\"GPL\");\nSEC(\"tc\") __success __retval(0) int p(void) { return 0; }\n";
        let out = patch_c(src).unwrap();
        assert_eq!(out.len(), src.len());
        assert!(out.contains("}\n              \nmodule_exit(m);"), "{out}");
        let a = crate::analyze_file("m.c", src, &crate::ChunkOptions::default());
        assert_eq!(a.parse_error, None);
        let names: Vec<&str> = a.facts.symbols.iter().map(|s| s.name.as_str()).collect();
        assert!(names.contains(&"m") && names.contains(&"p"), "{names:?}");
    }

    /// Any mix of the macros, brackets, quotes, comments and non-ASCII text: no panic, and
    /// the patch keeps every byte offset and line.
    #[test]
    fn any_text_keeps_its_length_and_lines() {
        let parts = [
            "__init ",
            "__printf(",
            "list_for_each_entry(",
            "DEFINE_PER_CPU(",
            "SYSCALL_DEFINE2(",
            "container_of(",
            "min_t(",
            "DEFINE_MUTEX(",
            "struct ",
            "(",
            ")",
            ",",
            "{",
            "}",
            ";",
            "\"",
            "'",
            "/*",
            "*/",
            "//",
            "\n",
            "#ifdef X\n",
            "é",
            " ",
            "x",
            "unsigned int",
            "...",
            "case ",
            "[",
            "]",
            "#define d(a",
            "static ",
            "SIMPLE_DEV_PM_OPS(",
            "DT_MACHINE_START(",
            "MACHINE_END",
        ];
        let mut seed: u64 = 7;
        for _ in 0..2000 {
            let mut text = String::new();
            for _ in 0..40 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(parts[(seed >> 33) as usize % parts.len()]);
            }
            if let Some(out) = patch_c(&text) {
                assert_eq!(out.len(), text.len(), "{text:?}");
                assert_eq!(
                    out.matches('\n').count(),
                    text.matches('\n').count(),
                    "{text:?}"
                );
            }
        }
    }
}
