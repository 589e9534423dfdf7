//! A function several times the chunk budget is indexed as windows, but answered as one
//! unit: its own lines and the part that matched (minimal), the matching part as the
//! snippet (contextual), the whole function (full and `lore context`).

use crate::common::{Lore, line_of, write};
use serde_json::Value;

/// A Python module whose `send_parcel` is about four chunk budgets long; the words the
/// query looks for are only in its last lines.
fn module() -> String {
    let mut s = String::from("import os\n\n\ndef small():\n    return 1\n\n\n");
    s.push_str("def send_parcel(path, etag=True, max_age=None):\n");
    s.push_str("    \"\"\"Send a parcel to the client.\n\n");
    for i in 0..40 {
        s.push_str(&format!(
            "    Paragraph {i} of the documentation explains one more option in detail.\n"
        ));
    }
    s.push_str("    \"\"\"\n");
    for i in 0..60 {
        s.push_str(&format!(
            "    step_{i} = os.path.join(path, \"part_{i}\")  # prepare piece {i}\n"
        ));
    }
    s.push_str("    response = open_parcel(path)\n");
    s.push_str("    if etag:\n");
    s.push_str("        response.add_etag_checksum(checksum_of_parcel(path))\n");
    s.push_str("    return response\n\n\n");
    s.push_str("def after():\n    return 2\n");
    s
}

#[test]
fn a_long_function_is_answered_whole() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let proj = lore.path("proj");
    let text = module();
    assert!(
        text.len() > 4 * 1600,
        "the fixture must exceed the chunk budget"
    );
    write(&proj, "helpers.py", &text);
    lore.ok(&["store", "add", "proj", proj.to_str().unwrap()]);
    let start = line_of(&text, "def send_parcel");
    let end = line_of(&text, "    return response");
    let query = "add_etag_checksum checksum_of_parcel";

    // Minimal: the unit's lines, and which part of it matched; no code.
    let resp = lore.search(query, "hybrid", &["--per-file", "5"]);
    let hits = resp["results"].as_array().unwrap();
    let hit = &hits[0];
    assert_eq!(hit["symbol"], "send_parcel", "{resp:#}");
    assert_eq!(hit["start_line"], start, "{hit:#}");
    assert_eq!(hit["end_line"], end, "{hit:#}");
    let matched = hit["match_lines"].as_array().expect("match_lines");
    let (m0, m1) = (matched[0].as_u64().unwrap(), matched[1].as_u64().unwrap());
    assert!(start < m0 && m0 <= m1 && m1 == end, "{hit:#}");
    assert!(
        hit.get("full").is_none() && hit.get("snippet").is_none(),
        "{hit:#}"
    );
    // Its other windows are not results of their own.
    let windows = hits.iter().filter(|h| h["symbol"] == "send_parcel").count();
    assert_eq!(windows, 1, "{resp:#}");
    let minimal_tokens = hit["estimated_tokens"].as_u64().unwrap();

    // Contextual: the snippet comes from the part that matched.
    let resp = lore.search(query, "hybrid", &["--detail", "contextual"]);
    let snippet = resp["results"][0]["snippet"].as_str().unwrap();
    assert!(snippet.contains("add_etag_checksum"), "{snippet}");

    // Full: the whole function, first line to last.
    let resp = lore.search(query, "hybrid", &["--detail", "full"]);
    let full = &resp["results"][0];
    let content = full["full"]["content"].as_str().unwrap();
    let want: Vec<&str> = text
        .lines()
        .skip(start as usize - 1)
        .take((end - start + 1) as usize)
        .collect();
    assert_eq!(content, want.join("\n"));
    assert!(full["full"].get("truncated").is_none(), "{full:#}");
    let full_tokens = full["estimated_tokens"].as_u64().unwrap();
    assert!(
        full_tokens as usize > content.len() / 4 && full_tokens > 4 * minimal_tokens,
        "tokens follow what is returned: {full_tokens} vs {minimal_tokens}"
    );

    // `lore context` answers with the same unit.
    let id = full["id"].as_str().unwrap();
    let ctx: Value = lore.json(&["context", id]);
    assert_eq!(ctx["start_line"], start, "{ctx:#}");
    assert_eq!(ctx["content"].as_str().unwrap(), content, "{ctx:#}");
    let text_out = lore.ok(&["context", id]);
    assert!(
        text_out.contains(&format!("helpers.py:{start}-{end}")),
        "{text_out}"
    );
}

/// A query that a unit holds word for word (an error message) answers with that unit
/// first, and an `@overload` stub never stands in for its implementation.
#[test]
fn exact_evidence_comes_first_and_stubs_yield_to_implementations() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let proj = lore.path("proj");
    write(
        &proj,
        "cli.py",
        "def load_app(path):\n    \"\"\"Load the application from a path.\"\"\"\n    \
         app = find_app(path)\n    if app is None:\n        raise NoAppException(\n            \
         \"Could not locate a Flask application. Use the --app option.\"\n        )\n    \
         return app\n",
    );
    write(
        &proj,
        "docs.md",
        "# Locating the application\n\nThe command line locates a Flask application by \
         looking for an app or a factory; it could not work without one. A Flask \
         application is located from the current folder.\n",
    );
    write(
        &proj,
        "app.py",
        "class Flask:\n    \"\"\"A Flask application: locate it, configure it, run it.\"\"\"\n\n    \
         def run(self):\n        \"\"\"Run the application; locate the server first.\"\"\"\n        \
         return serve(self)\n",
    );
    // A class too long for one chunk, so its methods are units of their own.
    let mut store = String::from(
        "from typing import overload\n\n\nclass Store:\n    @overload\n    \
         def get(self, key: str) -> str: ...\n\n    @overload\n    \
         def get(self, key: int) -> bytes: ...\n\n    def get(self, key):\n        \
         \"\"\"Look a key up in the store's table.\n\n",
    );
    for i in 0..12 {
        store.push_str(&format!(
            "        Note {i}: keys are compared by value, and a missing key raises.\n"
        ));
    }
    store.push_str(
        "        \"\"\"\n        return self.table[key]\n\n    def put(self, key, value):\n",
    );
    for i in 0..12 {
        store.push_str(&format!(
            "        self.log_{i} = (key, value)  # audit trail {i}\n"
        ));
    }
    write(&proj, "store.py", &store);
    lore.ok(&["store", "add", "proj", proj.to_str().unwrap()]);

    let resp = lore.search("Could not locate a Flask application", "hybrid", &[]);
    assert_eq!(resp["results"][0]["path"], "cli.py", "{resp:#}");
    assert_eq!(resp["results"][0]["symbol"], "load_app", "{resp:#}");

    let resp = lore.search("where is Store.get defined", "hybrid", &["--per-file", "5"]);
    let gets: Vec<&Value> = resp["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["symbol"] == "get")
        .collect();
    assert!(!gets.is_empty(), "{resp:#}");
    assert_eq!(
        gets[0]["start_line"],
        line_of(&store, "    def get(self, key):"),
        "{resp:#}"
    );
}

/// Issue 30, kind 7: the last method of a class ends at its own closing brace, not at the
/// class's (which its chunk keeps, so that chunks tile the file); a member shown from a
/// small class kept whole starts at its doc comment.
#[test]
fn the_last_method_of_a_class_ends_where_it_ends() {
    let lore = Lore::without_model();
    let proj = lore.path("proj");
    let small = "\
export class Retry {
  attempts = 3

  /** Waits twice as long after each failure. */
  backoff(attempt: number): number {
    return 100 * 2 ** Math.min(attempt, this.attempts)
  }
}
";
    // A class past the chunk budget is split into its members.
    let mut big = String::from("export class Scheduler {\n");
    for i in 0..30 {
        big.push_str(&format!(
            "  task{i}(delay: number): number {{\n    return delay * {i} + this.offset(delay)\n  }}\n\n"
        ));
    }
    big.push_str("  /** Drains the queue. */\n  drainQueue(limit: number): number {\n    return limit\n  }\n}\n");
    write(&proj, "retry.ts", small);
    write(&proj, "scheduler.ts", &big);
    lore.ok(&["store", "add", "proj", proj.to_str().unwrap(), "--embed", "none"]);

    let resp = lore.search("backoff", "fts", &["--detail", "full"]);
    let hit = &resp["results"][0];
    assert_eq!(hit["symbol"], "backoff", "{resp:#}");
    assert_eq!(hit["start_line"], line_of(small, "  /** Waits"), "{hit:#}");
    assert_eq!(hit["end_line"], 7, "{hit:#}");

    let resp = lore.search("drainQueue", "fts", &["--detail", "full"]);
    let hit = &resp["results"][0];
    assert_eq!(hit["symbol"], "drainQueue", "{resp:#}");
    let last = big.lines().count() as u64;
    assert_eq!(hit["start_line"], line_of(&big, "  /** Drains"), "{hit:#}");
    assert_eq!(hit["end_line"], last - 1, "{hit:#}");
    let content = hit["full"]["content"].as_str().unwrap();
    assert!(content.ends_with("return limit\n  }"), "{content}");
    let ctx: Value = lore.json(&["context", hit["id"].as_str().unwrap()]);
    assert_eq!(ctx["end_line"], last - 1, "{ctx:#}");
}

/// Issue 30, kind 1: a unit whose doc comment is longer than a chunk is indexed as windows
/// that start in the comment; a search that matches the comment answers with the whole
/// unit, comment and body, not the comment's window alone.
#[test]
fn a_long_doc_comment_and_its_body_are_one_unit() {
    let lore = Lore::without_model();
    let proj = lore.path("proj");
    let mut text = String::from("import type { Handler } from './types'\n\n/**\n * CORS Middleware for the server.\n *\n");
    for i in 0..30 {
        text.push_str(&format!(
            " * @param {{string[]}} [options.header{i}] - The value of header number {i} sent back.\n"
        ));
    }
    text.push_str(" */\nexport const cors = (options?: Options): Handler => {\n");
    for i in 0..30 {
        text.push_str(&format!("  const value{i} = options?.header{i} ?? []\n"));
    }
    text.push_str("  return async (c, next) => {\n    await next()\n  }\n}\n");
    write(&proj, "cors.ts", &text);
    lore.ok(&["store", "add", "proj", proj.to_str().unwrap(), "--embed", "none"]);
    let resp = lore.search("CORS middleware for the server", "fts", &["--detail", "full"]);
    let hit = &resp["results"][0];
    assert_eq!(hit["symbol"], "cors", "{resp:#}");
    assert_eq!(hit["start_line"], 3, "{hit:#}");
    assert_eq!(hit["end_line"], text.lines().count(), "{hit:#}");
    let content = hit["full"]["content"].as_str().unwrap();
    assert!(content.starts_with("/**\n * CORS Middleware"), "{content}");
    assert!(content.ends_with("await next()\n  }\n}"), "{content}");
}

/// An id names one unit: a function defined inside another one's chunk (flask's
/// `run_command.app`) has an id of its own, and `context` on it answers that function.
#[test]
fn a_nested_definition_has_an_id_of_its_own() {
    let lore = Lore::without_model();
    let src = lore.path("cli");
    let mut text = String::from("def run_command(info, host, port):\n    \"\"\"Run a local development server.\"\"\"\n");
    for i in 0..30 {
        text.push_str(&format!("    step_{i} = host + str(port) + \"{i}\"\n"));
    }
    text.push_str(
        "\n    def app(environ, start_response):\n        \"\"\"The lazily loaded application.\"\"\"\n        \
         return info.load_app()(environ, start_response)\n\n    return app\n",
    );
    write(&src, "cli.py", &text);
    lore.ok(&["store", "add", "cli", src.to_str().unwrap(), "--embed", "none"]);
    let found = lore.json(&["locate", "run_command app: the lazily loaded application fails", "--mode", "fts"]);
    let units = found["files"][0]["units"].as_array().expect("units").clone();
    let ids: Vec<&str> = units.iter().map(|u| u["id"].as_str().unwrap()).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "{found:#}");
    let app = units
        .iter()
        .find(|u| u["qualified"] == "run_command.app")
        .unwrap_or_else(|| panic!("{found:#}"));
    let line = line_of(&text, "def app(");
    let ctx: Value = lore.json(&["context", app["id"].as_str().unwrap()]);
    assert_eq!((ctx["start_line"].as_u64(), ctx["symbol"].as_str()), (Some(line), Some("app")), "{ctx:#}");
    assert!(ctx["content"].as_str().unwrap().starts_with("    def app("), "{ctx:#}");
    let outer = units.iter().find(|u| u["symbol"] == "run_command").unwrap();
    let ctx = lore.json(&["context", outer["id"].as_str().unwrap()]);
    assert_eq!(ctx["symbol"], "run_command", "{ctx:#}");
    let err = lore.fails(&["context", &format!("{}-3", outer["id"].as_str().unwrap())], 2);
    assert!(err.contains("no definition starts on that line"), "{err}");
}
