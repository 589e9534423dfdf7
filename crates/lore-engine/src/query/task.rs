//! What a task text (an issue, a bug report, a failing test's output) names in code: file
//! paths, traceback frames, dotted module paths and identifiers. Pure; `locate.rs` looks
//! each clue up in the store.

/// One frame of a traceback: where the code ran, innermost last.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Frame {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
}

/// The code a task names, each list in order of first mention, without repeats.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct TaskClues {
    /// File paths written out (`requests/models.py`, `src/app.rs:12`), as written.
    pub paths: Vec<String>,
    /// Traceback frames, outermost first.
    pub frames: Vec<Frame>,
    /// Dotted names of two or more parts (`sympy.core.mul`, `Session.request`).
    pub dotted: Vec<String>,
    /// Names that look like code: `snake_case`, `CamelCase`, `call(`, anything in
    /// backticks, and every part of a dotted name.
    pub identifiers: Vec<String>,
}

const SOURCE_EXTENSIONS: [&str; 24] = [
    "py", "pyi", "pyx", "rs", "js", "jsx", "ts", "tsx", "go", "java", "kt", "c", "h", "cc", "cpp",
    "hpp", "rb", "php", "cs", "swift", "scala", "cfg", "toml", "rst",
];

fn push_new(list: &mut Vec<String>, item: &str) {
    if !item.is_empty() && !list.iter().any(|x| x == item) {
        list.push(item.to_string());
    }
}

/// `path/to/file.py`, `file.py:12`, `./a/b.rs` → the path, when it ends in a source
/// extension.
fn as_path(token: &str) -> Option<&str> {
    let t = token.trim_start_matches("./");
    let t = t.split(':').next().unwrap_or(t);
    let (stem, ext) = t.rsplit_once('.')?;
    let ok = SOURCE_EXTENSIONS.contains(&ext)
        && !stem.is_empty()
        && stem
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '/' | '.' | '\\'));
    ok.then_some(t)
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether a bare word looks like code rather than English.
fn code_like(word: &str) -> bool {
    if is_dunder(word) {
        return true;
    }
    let snake = word.contains('_') && word.chars().any(char::is_alphabetic);
    let camel = word.chars().skip(1).any(|c| c.is_ascii_uppercase())
        && word.chars().any(|c| c.is_ascii_lowercase());
    word.len() >= 3 && (snake || camel)
}

fn is_dunder(word: &str) -> bool {
    word.len() > 4 && word.starts_with("__") && word.ends_with("__")
}

/// A traceback frame in Python's form: `File "x/y.py", line 3, in func`.
fn python_frame(line: &str) -> Option<Frame> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let (path, rest) = rest.split_once('"')?;
    let function = rest
        .split_once(", in ")
        .map(|(_, f)| f.trim().to_string())
        .filter(|f| !f.is_empty() && f.chars().all(is_ident_char));
    Some(Frame {
        path: path.replace('\\', "/"),
        function,
    })
}

/// A frame in pytest's short form: `src/x/y.py:42: in func` or `src/x/y.py:42: Error`.
fn pytest_frame(line: &str) -> Option<Frame> {
    let t = line.trim();
    let (path, rest) = t.split_once(':')?;
    let (lineno, rest) = rest.split_once(':')?;
    if !lineno.chars().all(|c| c.is_ascii_digit()) || lineno.is_empty() {
        return None;
    }
    as_path(path)?;
    let function = rest
        .trim()
        .strip_prefix("in ")
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty() && f.chars().all(is_ident_char));
    Some(Frame {
        path: path.to_string(),
        function,
    })
}

/// Whether a query is a whole task rather than a search: it holds a traceback, or runs to
/// several lines and hundreds of characters (an issue as written).
pub fn is_task(query: &str) -> bool {
    const TASK_CHARS: usize = 400;
    const TASK_LINES: usize = 4;
    query.contains("Traceback (most recent call last)")
        || query.lines().any(|l| python_frame(l).is_some())
        || (query.len() >= TASK_CHARS
            && query.lines().filter(|l| !l.trim().is_empty()).count() >= TASK_LINES)
}

/// Reads the clues of a task text.
pub fn parse(task: &str) -> TaskClues {
    let mut clues = TaskClues::default();
    for line in task.lines() {
        if let Some(frame) = python_frame(line).or_else(|| pytest_frame(line))
            && !clues.frames.contains(&frame)
        {
            clues.frames.push(frame);
        }
    }
    // `call(args)` keeps its `(` on the name, so calls count as code.
    let spaced = task.replace('(', "( ");
    for raw in spaced.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | ',' | ';' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | '='
            )
    }) {
        let backticked = raw.starts_with('`');
        let called = raw.ends_with('(');
        let word = raw.trim_matches(|c: char| !(is_ident_char(c) || c == '/' || c == '.'));
        let word = word.trim_end_matches('.');
        if word.is_empty() {
            continue;
        }
        if let Some(p) = as_path(word) {
            if p.contains('/') || p.contains('\\') || p.ends_with(".py") || p.contains('_') {
                push_new(&mut clues.paths, &p.replace('\\', "/"));
            }
            continue;
        }
        if word.contains('/') {
            continue;
        }
        let parts: Vec<&str> = word.split('.').filter(|p| !p.is_empty()).collect();
        let valid = |p: &&str| {
            p.chars().all(is_ident_char) && !p.chars().next().is_some_and(|c| c.is_ascii_digit())
        };
        if parts.len() >= 2 && parts.iter().all(valid) {
            push_new(&mut clues.dotted, &parts.join("."));
            for p in &parts {
                if p.len() >= 3 {
                    push_new(&mut clues.identifiers, p);
                }
            }
            continue;
        }
        if parts.len() == 1
            && valid(&parts[0])
            && (code_like(parts[0]) || (backticked || called) && parts[0].len() >= 3)
        {
            push_new(&mut clues.identifiers, parts[0]);
        }
    }
    // A frame's path is counted as a frame, not again as a written path.
    clues
        .paths
        .retain(|p| !clues.frames.iter().any(|f| &f.path == p));
    for f in &clues.frames {
        if let Some(func) = &f.function
            && func != "<module>"
        {
            push_new(&mut clues.identifiers, func);
        }
    }
    clues
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceback_gives_frames_paths_and_names() {
        let task = "requests.get is ALWAYS sending content length\n\
            Traceback (most recent call last):\n  \
            File \"/Users/x/test_requests.py\", line 6, in <module>\n    \
            response = requests.request(method=u'POST', files=files)\n  \
            File \"/usr/lib/python2.7/site-packages/requests/sessions.py\", line 335, in request\n    \
            resp = self.send(prep, **send_kwargs)\n\
            UnicodeDecodeError: 'ascii' codec can't decode byte\n\
            See `PreparedRequest.prepare_content_length` and src/_pytest/capture.py:120.";
        let c = parse(task);
        assert_eq!(c.frames.len(), 2, "{c:?}");
        assert_eq!(
            c.frames[1].path,
            "/usr/lib/python2.7/site-packages/requests/sessions.py"
        );
        assert_eq!(c.frames[1].function.as_deref(), Some("request"));
        assert!(
            c.paths.contains(&"src/_pytest/capture.py".to_string()),
            "{c:?}"
        );
        assert!(c.dotted.contains(&"requests.get".to_string()), "{c:?}");
        assert!(
            c.dotted
                .contains(&"PreparedRequest.prepare_content_length".to_string())
        );
        for name in [
            "prepare_content_length",
            "PreparedRequest",
            "UnicodeDecodeError",
            "request",
        ] {
            assert!(c.identifiers.iter().any(|i| i == name), "{name}: {c:?}");
        }
        // Plain English stays out.
        for word in ["ALWAYS", "sending", "content", "length"] {
            assert!(!c.identifiers.iter().any(|i| i == word), "{word}: {c:?}");
        }
    }

    #[test]
    fn tasks_are_told_from_searches() {
        assert!(!is_task("how are bm25 and vector scores fused"));
        assert!(!is_task(&"a long single line query ".repeat(30)));
        assert!(is_task(
            "Traceback (most recent call last):\n  File \"a.py\", line 1"
        ));
        let issue = "Title of the bug\n\nWhen I call foo it fails.\n\nSteps:\n1. run\n".repeat(8);
        assert!(is_task(&issue));
    }

    #[test]
    fn pytest_frames_and_calls() {
        let c = parse("src/_pytest/python.py:1234: in collect\n    x = `idmaker`\nfoo() fails");
        assert_eq!(
            c.frames,
            [Frame {
                path: "src/_pytest/python.py".into(),
                function: Some("collect".into())
            }]
        );
        assert!(c.identifiers.iter().any(|i| i == "idmaker"), "{c:?}");
        assert!(c.identifiers.iter().any(|i| i == "foo"), "{c:?}");
    }
}
