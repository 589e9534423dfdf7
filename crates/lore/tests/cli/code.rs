//! Code intelligence through the binary: `lore graph`, detail levels, intents, and the
//! graph following edits.

use crate::common::{Lore, copy_shop, paths, write};
use serde_json::Value;

/// The python-shop fixture copied into the test's root and added as store `shop`.
fn add_shop(lore: &Lore) -> std::path::PathBuf {
    let shop = copy_shop(lore);
    lore.json(&["store", "add", "shop", shop.to_str().unwrap()]);
    shop
}

fn names(links: &Value, key: &str) -> Vec<String> {
    links
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{}::{}",
                l[key]["path"].as_str().unwrap_or("?"),
                l[key]["qualified"].as_str().unwrap_or("<module>")
            )
        })
        .collect()
}

#[test]
fn graph_detail_levels_and_context_follow_the_code() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let shop = add_shop(&lore);

    // Definition, callers and callees of a method, by qualified name.
    let def = lore.json(&["graph", "definition", "Cart.total"]);
    let d = &def["definitions"][0];
    assert_eq!(d["path"], "shop/cart.py", "{def:#}");
    assert_eq!(d["kind"], "method", "{def:#}");
    let callers = lore.json(&["graph", "callers", "Cart.add_item"]);
    let mut got = names(&callers["links"], "symbol");
    got.sort();
    assert_eq!(
        got,
        [
            "shop/cli.py::build_cart",
            "tests/test_cart.py::make_cart",
            "tests/test_cart.py::test_rejects_zero_quantity"
        ],
        "{callers:#}"
    );
    let callees = lore.json(&["graph", "callees", "Cart.total"]);
    let got = names(&callees["links"], "symbol");
    for want in [
        "shop/cart.py::Cart.subtotal",
        "shop/cart.py::Cart.tax",
        "shop/pricing.py::apply_discount",
    ] {
        assert!(got.iter().any(|g| g == want), "{want} not in {got:?}");
    }
    assert!(callees["links"][0]["confidence"].as_f64().unwrap() > 0.5);
    let err = lore.fails(&["graph", "callers", "no_such_symbol"], 2);
    assert!(err.contains("no symbol named"), "{err}");

    // Detail levels: minimal has no code, full has the unit, its callers and its tests;
    // each costs more tokens than the one before.
    let q = "add_item";
    let tokens = |detail: &str| -> (Value, u64) {
        let r = lore.json(&["search", q, "--mode", "fts", "-n", "3", "--detail", detail]);
        let t = r["estimated_tokens"].as_u64().unwrap();
        (r, t)
    };
    let (minimal, t_min) = tokens("minimal");
    let (contextual, t_ctx) = tokens("contextual");
    let (full, t_full) = tokens("full");
    assert!(t_min < t_ctx && t_ctx < t_full, "{t_min} {t_ctx} {t_full}");
    assert!(minimal["results"][0].get("full").is_none());
    let add = full["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["symbol"] == "add_item")
        .unwrap_or_else(|| panic!("add_item not found: {full:#}"));
    assert!(
        add["full"]["content"]
            .as_str()
            .unwrap()
            .contains("def add_item"),
        "{add:#}"
    );
    let tests: Vec<&str> = add["full"]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(tests.contains(&"test_rejects_zero_quantity"), "{add:#}");
    let ctx_hit = contextual["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["symbol"] == "add_item")
        .unwrap();
    assert!(
        ctx_hit["context"]["usage"]["called_by"].as_u64().unwrap() >= 3,
        "{ctx_hit:#}"
    );

    // `lore context` gives the same full layer in a new process.
    let id = add["id"].as_str().unwrap();
    let c = lore.json(&["context", id]);
    assert!(!c["callers"].as_array().unwrap().is_empty(), "{c:#}");
    assert!(c["estimated_tokens"].as_u64().unwrap() > 0);

    // The intent changes ranking: asked for usages, call sites outrank the definition.
    let r = lore.search("add_item", "fts", &["--intent", "find-usage"]);
    assert_ne!(r["results"][0]["symbol"], "add_item", "{r:#}");
    let r = lore.search("add_item", "fts", &["--intent", "find-definition"]);
    assert_eq!(r["results"][0]["symbol"], "add_item", "{r:#}");

    // Edits move the graph: a new caller appears, and vanishes with its file.
    write(
        &shop,
        "shop/promo.py",
        "from .pricing import apply_discount\n\n\ndef promo_price(amount):\n    return apply_discount(amount, \"SPRING\")\n",
    );
    lore.json(&["index"]);
    let callers = lore.json(&["graph", "callers", "apply_discount"]);
    assert!(
        names(&callers["links"], "symbol").contains(&"shop/promo.py::promo_price".to_string()),
        "{callers:#}"
    );
    std::fs::remove_file(shop.join("shop/promo.py")).unwrap();
    lore.json(&["index"]);
    let callers = lore.json(&["graph", "callers", "apply_discount"]);
    assert!(
        !names(&callers["links"], "symbol")
            .iter()
            .any(|n| n.starts_with("shop/promo.py")),
        "{callers:#}"
    );
}

#[test]
fn a_task_with_a_traceback_locates_the_file_to_change() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    add_shop(&lore);
    let task = "Discount code makes the total negative\n\n\
        When I apply a discount code bigger than the subtotal, checkout crashes:\n\n\
        Traceback (most recent call last):\n  \
        File \"/home/me/venv/lib/python3.11/site-packages/shop/cli.py\", line 35, in checkout\n    \
        cart.save(path)\n  \
        File \"/home/me/venv/lib/python3.11/site-packages/shop/cart.py\", line 44, in total\n    \
        return ceil_cents(value)\n\
        ValueError: amount must not be negative\n\n\
        I expected `Cart.total` to stop at zero.\n";
    write(lore.root(), "task.txt", task);
    let task_file = lore.path("task.txt");
    let r = lore.json(&["locate", "--file", task_file.to_str().unwrap(), "-n", "3"]);
    let files = r["files"].as_array().unwrap();
    assert_eq!(files[0]["path"], "shop/cart.py", "{r:#}");
    let why = files[0]["why"].to_string();
    assert!(
        why.contains("traceback frame") && why.contains("Cart.total"),
        "{why}"
    );
    // Tests rank below the code they test when the task names none.
    assert!(
        files
            .iter()
            .all(|f| !f["path"].as_str().unwrap().starts_with("tests/"))
            || files[0]["path"] != "tests/test_cart.py",
        "{r:#}"
    );
    let unit = files[0]["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["qualified"] == "Cart.total")
        .unwrap_or_else(|| panic!("Cart.total among the units: {r:#}"));
    let id = unit["id"].as_str().unwrap();
    let ctx = lore.json(&["context", id]);
    assert!(ctx.to_string().contains("def total"), "{ctx:#}");

    // The same task given to search is recognised as a task and answered the same way.
    let s = lore.search(task, "hybrid", &["-n", "2"]);
    assert_eq!(s["intent"]["intent"], "find-task", "{s:#}");
    assert_eq!(s["intent"]["inferred"], true);
    assert_eq!(s["results"][0]["path"], "shop/cart.py", "{s:#}");
    assert!(
        s["results"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("traceback")
    );

    // Bad input: named, not a panic.
    let err = lore.fails(&["locate", "   "], 1);
    assert!(err.contains("the task is empty"), "{err}");
    let err = lore.fails(&["locate", "--file", "/nonexistent/task.txt"], 3);
    assert!(err.contains("cannot read the task"), "{err}");
}

#[test]
fn moved_but_unchanged_units_keep_their_vectors() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let src = lore.path("src");
    let funcs: String = (0..6)
        .map(|i| format!("def f{i}(x):\n    \"\"\"Step {i} of the pipeline.\"\"\"\n    return x * {i} + {i}\n\n\n"))
        .collect();
    write(&src, "pipeline.py", &funcs);
    lore.json(&["store", "add", "src", src.to_str().unwrap()]);
    // Lines added above every function move them all; only the new text is embedded.
    write(
        &src,
        "pipeline.py",
        format!("import math\n\n\ndef f_new(x):\n    return math.sqrt(x)\n\n\n{funcs}"),
    );
    let r = &lore.json(&["index"])[0];
    assert_eq!(r["changed"], 1, "{r:#}");
    let chunks = lore.json(&["store", "info", "src"])["chunks"]
        .as_u64()
        .unwrap();
    assert!(chunks >= 7, "{chunks}");
    assert!(
        r["embedded"].as_u64().unwrap() <= 2,
        "only the new function (and the module's own chunk) are new text: {r:#}"
    );
}

/// A file renamed (or a unit moved to another file) keeps its vectors: the chunks of files a
/// run deletes lend theirs, by text, to the files it adds.
#[test]
fn renamed_files_keep_their_vectors() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let src = lore.path("src");
    let funcs: String = (0..6)
        .map(|i| format!("def f{i}(x):\n    \"\"\"Step {i} of the pipeline.\"\"\"\n    return x * {i} + {i}\n\n\n"))
        .collect();
    write(&src, "pipeline.py", &funcs);
    lore.json(&["store", "add", "src", src.to_str().unwrap()]);
    std::fs::rename(src.join("pipeline.py"), src.join("steps.py")).unwrap();
    let r = &lore.json(&["index"])[0];
    assert_eq!((&r["added"], &r["deleted"]), (&1.into(), &1.into()), "{r:#}");
    assert_eq!(r["embedded"], 0, "every chunk's text was embedded before: {r:#}");
    let found = lore.search("step 3 of the pipeline", "vector", &[]);
    assert_eq!(found["results"][0]["path"], "steps.py", "{found:#}");
}

/// Issue 30, kind 5: a bare identifier answers with the unit of exactly that name, not the
/// type beside it that differs only in case (one result per file would drop the function).
#[test]
fn an_exact_identifier_answers_with_its_own_definition() {
    let Some(lore) = Lore::with_model_or_skip() else {
        return;
    };
    let src = lore.path("web");
    write(
        &src,
        "cookie.ts",
        "interface GetCookie {\n  (c: Context, key: string): string | undefined\n  (c: Context): Record<string, string>\n}\n\n\
         export const getCookie: GetCookie = (c, key?) => {\n  const cookie = c.req.raw.headers.get('Cookie')\n  \
         if (typeof key === 'string') {\n    return parse(cookie, key)[key]\n  }\n  return parse(cookie)\n}\n\n\
         export const setCookie = (c: Context, name: string, value: string): void => {\n  \
         c.header('Set-Cookie', serialize(name, value), { append: true })\n}\n",
    );
    lore.json(&["store", "add", "web", src.to_str().unwrap()]);
    for mode in ["hybrid", "vector", "fts"] {
        let found = lore.search("getCookie", mode, &[]);
        let top = &found["results"][0];
        assert_eq!(
            (&top["symbol"], &top["kind"]),
            (&Value::from("getCookie"), &Value::from("function")),
            "{mode}: {found:#}"
        );
    }
}

/// A bare identifier in snake case answers with the method of exactly that name, though
/// the chunk that holds it is its `impl` block's (short methods are one chunk) and a type
/// of the same words (`WalkOptions`) matches it too.
#[test]
fn an_exact_identifier_finds_a_short_method_inside_its_impl_block() {
    let lore = Lore::without_model();
    let src = lore.path("kv");
    write(
        &src,
        "walk.rs",
        "/// What a walk skips and follows.\npub struct WalkOptions {\n    pub hidden: bool,\n    \
         pub follow_links: bool,\n}\n\nimpl WalkOptions {\n    /// Nothing hidden, no links.\n    \
         pub fn new() -> WalkOptions {\n        WalkOptions { hidden: false, follow_links: false }\n    \
         }\n}\n",
    );
    write(
        &src,
        "plan.rs",
        "use crate::walk::WalkOptions;\n\npub struct Planner {\n    hidden: bool,\n}\n\n\
         impl Planner {\n    pub fn new() -> Planner {\n        Planner { hidden: false }\n    }\n\n    \
         fn walk_options(&self) -> WalkOptions {\n        WalkOptions { hidden: self.hidden, \
         follow_links: true }\n    }\n\n    fn hidden(&self) -> bool {\n        self.hidden\n    }\n}\n",
    );
    lore.json(&["store", "add", "kv", src.to_str().unwrap(), "--embed", "none"]);
    let found = lore.search("walk_options", "fts", &[]);
    let top = &found["results"][0];
    assert_eq!(
        (&top["path"], &top["symbol"]),
        (&Value::from("plan.rs"), &Value::from("walk_options")),
        "{found:#}"
    );
}

/// Asked who calls a function, every call site is an answer: two callers in one file are
/// both shown (one result per file would hide the second).
#[test]
fn every_call_site_in_a_file_answers_who_calls() {
    let lore = Lore::without_model();
    let src = lore.path("web");
    write(
        &src,
        "engine.go",
        "package web\n\ntype Engine struct{ n int }\n\n\
         // ServeHTTP answers one request.\nfunc (e *Engine) ServeHTTP(path string) {\n\
         \te.n++\n\te.handleRequest(path)\n}\n\n\
         // HandleContext re-enters a request that was rewritten.\nfunc (e *Engine) HandleContext(path string) {\n\
         \te.n--\n\te.handleRequest(path)\n}\n\n\
         func (e *Engine) handleRequest(path string) {\n\tif path == \"\" {\n\t\treturn\n\t}\n\te.n += len(path)\n}\n",
    );
    lore.json(&["store", "add", "web", src.to_str().unwrap(), "--embed", "none"]);
    let found = lore.search("who calls handleRequest", "fts", &[]);
    let shown: Vec<&Value> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| &h["symbol"])
        .collect();
    for caller in ["ServeHTTP", "HandleContext"] {
        assert!(shown.contains(&&Value::from(caller)), "{caller}: {found:#}");
    }
}

/// Issue 30: a question that several methods of one class match is about the class
/// ("ref value getter and setter"): the class answers, whole, and its members are not
/// repeated after it. A class too long to read whole does not stand in for its members.
#[test]
fn a_class_whose_members_match_answers_for_them() {
    let lore = Lore::without_model();
    let src = lore.path("limits");
    let method = |name: &str, body: &str| {
        format!(
            "  // {name}: part of the bucket's bookkeeping, kept apart so that each step can be\n  \
             // read and tested on its own without the others getting in the way of it\n  \
             {name}(now: number): boolean {{\n{body}  }}\n\n"
        )
    };
    let class = |name: &str, padding: usize| {
        let mut s = format!(
            "export class {name} {{\n  private tokens = 0\n  private last = 0\n\n  \
             constructor(private capacity: number, private perSecond: number) {{}}\n\n"
        );
        s += &method(
            "refill",
            "    const elapsed = (now - this.last) / 1000\n    \
             this.tokens = Math.min(this.capacity, this.tokens + elapsed * this.perSecond)\n    \
             this.last = now\n    return true\n",
        );
        s += &method(
            "take",
            "    if (this.tokens < 1) {\n      return false\n    }\n    this.tokens -= 1\n    return true\n",
        );
        for i in 0..padding {
            s += &method(
                &format!("audit{i}"),
                "    console.log(this.capacity, this.perSecond, now)\n    return false\n",
            );
        }
        s + "}\n"
    };
    write(&src, "bucket.ts", class("TokenBucket", 4));
    // Over 200 lines: its members answer for themselves.
    write(&src, "huge.ts", class("HugeBucket", 40));
    lore.json(&["store", "add", "limits", src.to_str().unwrap(), "--embed", "none"]);
    let found = lore.search("refill the tokens and take one", "fts", &["--per-file", "5"]);
    let results = found["results"].as_array().unwrap();
    let top = &results[0];
    assert_eq!(
        (&top["symbol"], &top["kind"], &top["path"]),
        (&Value::from("TokenBucket"), &Value::from("class"), &Value::from("bucket.ts")),
        "{found:#}"
    );
    assert!(
        top["reason"].as_str().unwrap().contains("members match: "),
        "{found:#}"
    );
    let (first, last) = (top["start_line"].as_u64(), top["end_line"].as_u64());
    assert_eq!((first, last), (Some(1), Some(54)), "the whole class: {found:#}");
    let in_bucket = |r: &&Value| r["path"] == "bucket.ts";
    assert_eq!(
        results.iter().filter(in_bucket).count(),
        1,
        "the members are in the class already: {found:#}"
    );
    // The long class's own members answer.
    assert!(
        results
            .iter()
            .any(|r| r["path"] == "huge.ts" && r["kind"] == "method"),
        "{found:#}"
    );
    assert!(
        !results.iter().any(|r| r["symbol"] == "HugeBucket"
            && r["reason"].as_str().unwrap().contains("members match")),
        "{found:#}"
    );
}

/// Issue 30: a method's doc comment, its overload signatures and its implementation are
/// one unit. The doc comment sits on the first signature, which is what a question
/// matches; the answer still holds the body.
#[test]
fn a_methods_overloads_and_body_are_one_unit() {
    let lore = Lore::without_model();
    let src = lore.path("req");
    write(
        &src,
        "request.ts",
        "export class Request {\n  constructor(private url: string) {}\n\n  \
         /**\n   * Reads a query parameter of the request's URL, or all of them.\n   *\n   \
         * app.get('/search', (c) => {\n   *   const q = c.req.query('q')\n   * })\n   */\n  \
         query(key: string): string | undefined\n  query(): Record<string, string>\n  \
         query(key?: string) {\n    return readParams(this.url, key)\n  }\n}\n",
    );
    lore.json(&["store", "add", "req", src.to_str().unwrap(), "--embed", "none"]);
    let found = lore.search("read a query parameter of the request", "fts", &[]);
    let top = &found["results"][0];
    assert_eq!(top["qualified"], "Request.query", "{found:#}");
    assert_eq!(
        (top["start_line"].as_u64(), top["end_line"].as_u64()),
        (Some(4), Some(15)),
        "the doc comment, both overloads and the body: {found:#}"
    );
}

/// One result per file must not hide a unit that scores about as well as the file's first:
/// a second one that close is shown, except for usages, where other files' call sites
/// count more.
#[test]
fn a_files_close_second_is_not_hidden() {
    let lore = Lore::without_model();
    let src = lore.path("res");
    let unit = |name: &str, words: &str| {
        format!(
            "export function {name}(res: Response, value: string) {{\n  \
             // {words}\n  res.write(value)\n  return res\n}}\n\n"
        )
    };
    write(
        &src,
        "response.ts",
        [
            unit("send", "send a response body and set its type"),
            unit("contentType", "set the content type of a response body"),
            unit("status", "set the status code"),
        ]
        .concat(),
    );
    write(
        &src,
        "app.ts",
        "import { send } from './response'\n\nexport function reply(res: Response) {\n  \
         return send(res, 'ok')\n}\n\nexport function fail(res: Response) {\n  \
         return send(res, 'no')\n}\n",
    );
    write(
        &src,
        "health.ts",
        "import { send } from './response'\n\nexport function health(res: Response) {\n  \
         return send(res, 'up')\n}\n",
    );
    lore.json(&["store", "add", "res", src.to_str().unwrap(), "--embed", "none"]);
    let found = lore.search("send a response body and set its content type", "fts", &[]);
    let names: Vec<&str> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["symbol"].as_str())
        .collect();
    assert!(
        names.contains(&"send") && names.contains(&"contentType"),
        "{found:#}"
    );
    assert!(!names.contains(&"status"), "not close: {found:#}");
    // Usages: one call site per file first, so that the other file's shows; then the
    // file's second call site, which answers too.
    let usages = lore.search("who calls send", "fts", &[]);
    let paths = paths(&usages);
    let at = |file: &str, nth: usize| paths.iter().enumerate().filter(|p| p.1 == file).nth(nth);
    let (health, second) = (at("health.ts", 0), at("app.ts", 1));
    assert!(
        health.is_some() && second.is_some() && health < second,
        "{usages:#}"
    );
}

/// A getter and a setter share a name and are still two units: neither hides the other
/// as if it were a window of the same long unit.
#[test]
fn a_getter_and_its_setter_are_two_results() {
    let lore = Lore::without_model();
    let src = lore.path("cell");
    // Long enough that each accessor is a chunk of its own.
    let body = |what: &str| {
        (0..30)
            .map(|i| format!("    this.log.push('{what} step {i} of the current cell value')\n"))
            .collect::<String>()
    };
    let class = format!(
        "export class Cell<T> {{\n  private current: T\n  private log: string[] = []\n\n  \
         get value(): T {{\n{}    return this.current\n  }}\n\n  \
         set value(next: T) {{\n{}    this.current = next\n  }}\n}}\n",
        body("read"),
        body("write")
    );
    write(&src, "cell.ts", &class);
    lore.json(&["store", "add", "cell", src.to_str().unwrap(), "--embed", "none"]);
    let found = lore.search("the current value", "fts", &["--per-file", "5"]);
    let accessors: Vec<&str> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["qualified"] == "Cell.value")
        .filter_map(|r| r["signature"].as_str())
        .collect();
    assert_eq!(accessors.len(), 2, "{found:#}");
    assert!(accessors.iter().any(|s| s.starts_with("set ")), "{found:#}");
    // Two members, so the class they are in stands for them when the question names it.
    let asked = lore.search("the cell's current value", "fts", &[]);
    let top = &asked["results"][0];
    assert_eq!(top["symbol"], "Cell", "{asked:#}");
    assert!(
        top["reason"]
            .as_str()
            .unwrap()
            .contains("members match: get value, set value"),
        "{asked:#}"
    );
}

/// Issue 30, kind 5 beyond a bare identifier: a type and the value it types are one
/// answer. The type's doc comment holds the question's words, but the value is what to
/// read, and one result per file must not keep the type instead.
#[test]
fn a_value_answers_for_the_type_that_types_it() {
    let lore = Lore::without_model();
    let src = lore.path("util");
    write(
        &src,
        "buffer.ts",
        "/**\n * Compares two secrets in constant time: a timing-safe comparison.\n */\n\
         type TimingSafeEqual = (a: string, b: string) => Promise<boolean>\n\n\
         export const timingSafeEqual: TimingSafeEqual = async (a, b) => {\n  \
         const [x, y] = await Promise.all([sha256(a), sha256(b)])\n  \
         return x === y && a === b\n}\n",
    );
    lore.json(&["store", "add", "util", src.to_str().unwrap(), "--embed", "none"]);
    let found = lore.search("timing-safe comparison of two secrets", "fts", &[]);
    let top = &found["results"][0];
    assert_eq!(top["symbol"], "timingSafeEqual", "{found:#}");
    // Asked for the type, the type answers.
    let asked = lore.search("the type of a timing-safe comparison", "fts", &[]);
    assert_eq!(asked["results"][0]["symbol"], "TimingSafeEqual", "{asked:#}");

    // A class property annotated with the type answers for it too, whatever its name.
    let padding: String = (0..30)
        .map(|i| format!("  header{i}(name: string) {{\n    return this.headers.get(name + '{i}')\n  }}\n\n"))
        .collect();
    write(
        &src,
        "context.ts",
        format!(
            "/**\n * Returns a JSON response: the object serialized as JSON into the response body.\n */\n\
             interface JSONRespond {{\n  <T>(object: T, status?: number): Response\n}}\n\n\
             export class Context {{\n  headers = new Headers()\n\n{padding}  \
             json: JSONRespond = (object, status) => {{\n    \
             return this.body(serialize(object), status)\n  }}\n}}\n"
        ),
    );
    lore.ok(&["index", "util"]);
    let found = lore.search("return a JSON response", "fts", &[]);
    let top = &found["results"][0];
    assert_eq!(top["qualified"], "Context.json", "{found:#}");
}

/// Issue 30, kind 6: benchmarks, fixtures and vendored trees rank like tests, below the
/// code they exercise, unless the query asks for them.
#[test]
fn benchmarks_and_fixtures_do_not_outrank_the_code() {
    let lore = Lore::without_model();
    let src = lore.path("proj");
    let matcher = "export function matchPath(router: Router, path: string): Match | null {\n  \
                   for (const route of router.routes) {\n    if (route.pattern.test(path)) {\n      \
                   return route\n    }\n  }\n  return null\n}\n";
    write(&src, "src/router.ts", matcher);
    for dir in ["benchmarks", "test/__fixtures__"] {
        write(
            &src,
            &format!("{dir}/router.mts"),
            "// router path matching: matchPath over many routes, path after path\n\
             export function matchPath(router: Router, path: string) {\n  \
             return bench('router path matching', () => router.matchPath(path, path))\n}\n",
        );
    }
    lore.json(&["store", "add", "proj", src.to_str().unwrap(), "--embed", "none"]);
    let found = lore.search("where is the router's path matching", "fts", &[]);
    assert_eq!(found["results"][0]["path"], "src/router.ts", "{found:#}");
    let asked = lore.search("router path matching benchmark", "fts", &[]);
    assert_eq!(asked["results"][0]["path"], "benchmarks/router.mts", "{asked:#}");
}

/// Issue 30, kind 4: callers found by name only are counted and listed in every adapter's
/// answer, never a bare "0 callers".
#[test]
fn callers_by_name_only_are_counted_and_shown() {
    let lore = Lore::without_model();
    let src = lore.path("mail");
    write(
        &src,
        "lib.py",
        "class Mailer:\n    def send(self, msg):\n        return msg\n",
    );
    write(
        &src,
        "app.py",
        "def deliver(transport, msg):\n    return transport.send(msg)\n",
    );
    lore.json(&["store", "add", "mail", src.to_str().unwrap(), "--embed", "none"]);
    let callers = lore.json(&["graph", "callers", "Mailer.send"]);
    assert_eq!(callers["summary"], "0 resolved, 1 by name only", "{callers:#}");
    assert_eq!(callers["candidates"][0]["path"], "app.py", "{callers:#}");
    let text = lore.ok(&["graph", "callers", "Mailer.send"]);
    assert!(
        text.contains("callers (0 resolved, 1 by name only)") && text.contains("app.py:2"),
        "{text}"
    );
}

/// Issue 30, kind 4: asked who calls a plain-word name, the resolved call sites answer
/// first, not the definition.
#[test]
fn who_calls_a_plain_name_answers_with_its_call_sites() {
    let lore = Lore::without_model();
    let src = lore.path("web");
    write(
        &src,
        "compose.ts",
        "/** Composes middleware into one handler. */\nexport const compose = (middleware: Handler[]) => {\n  \
         return async (c: Context) => {\n    for (const m of middleware) {\n      await m(c)\n    }\n  }\n}\n",
    );
    write(
        &src,
        "app.ts",
        "import { compose } from './compose'\n\nexport class App {\n  handlers: Handler[] = []\n\n  \
         dispatch(c: Context) {\n    return compose(this.handlers)(c)\n  }\n}\n",
    );
    write(
        &src,
        "router.ts",
        "import { compose } from './compose'\n\nexport function route(handlers: Handler[]) {\n  \
         const run = compose(handlers)\n  return run\n}\n",
    );
    lore.ok(&["store", "add", "web", src.to_str().unwrap(), "--embed", "none"]);
    let found = lore.search("who calls compose", "fts", &["--limit", "3"]);
    assert_eq!(found["intent"]["intent"], "find-usage", "{found:#}");
    let paths: Vec<&str> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    // The two callers (a small class is one unit: `App` holds `dispatch`), then the
    // definition.
    assert_eq!(paths, ["router.ts", "app.ts", "compose.ts"], "{found:#}");
}

#[test]
fn a_function_given_as_a_value_is_among_its_callers() {
    let lore = Lore::without_model();
    let app = lore.path("app");
    write(
        &app,
        "src/handlers.js",
        "function listUsers(req, res) {\n  res.json([]);\n}\n\nmodule.exports = { listUsers };\n",
    );
    write(
        &app,
        "src/routes.js",
        "const { listUsers } = require('./handlers');\n\n\
         function mount(router, listUsers2) {\n  router.get('/users', listUsers);\n  \
         router.get('/other', listUsers2);\n}\n\nmodule.exports = { mount };\n",
    );
    write(
        &app,
        "tools/app.py",
        "class App:\n    @property\n    def debug(self):\n        return True\n\n    \
         def run(self, opts):\n        opts.setdefault(\"debug\", self.debug)\n        \
         register(self.reload)\n\n    def reload(self):\n        pass\n",
    );
    lore.json(&["store", "add", "app", app.to_str().unwrap(), "--embed", "none"]);

    // A method given as a value is used; a property read gives its value, not the method.
    let reload = lore.json(&["graph", "callers", "App.reload"]);
    assert_eq!(reload["links"][0]["kind"], "uses", "{reload:#}");
    assert_eq!(reload["links"][0]["symbol"]["qualified"], "App.run", "{reload:#}");
    let debug = lore.json(&["graph", "callers", "App.debug"]);
    assert_eq!(debug["links"].as_array().unwrap().len(), 0, "{debug:#}");

    let callers = lore.json(&["graph", "callers", "listUsers"]);
    let links = callers["links"].as_array().unwrap();
    assert_eq!(links.len(), 1, "{callers:#}");
    assert_eq!(links[0]["kind"], "uses", "{callers:#}");
    assert_eq!(links[0]["path"], "src/routes.js", "{callers:#}");
    assert_eq!(links[0]["line"], 4, "{callers:#}");
    assert_eq!(links[0]["symbol"]["qualified"], "mount", "{callers:#}");
    // Text output names the kind, and callees list the function given.
    let text = lore.ok(&["graph", "callers", "listUsers"]);
    assert!(text.contains("src/routes.js:4") && text.contains("uses"), "{text}");
    let callees = lore.ok(&["graph", "callees", "mount"]);
    assert!(callees.contains("listUsers") && callees.contains("uses"), "{callees}");
    // A parameter given the same way (`listUsers2`) is a value, not a function.
    let callees = lore.json(&["graph", "callees", "mount"]);
    let given: Vec<&str> = ["links", "unresolved"]
        .iter()
        .flat_map(|k| callees[k].as_array().unwrap())
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(given, ["listUsers", "get"], "{callees:#}");
}

#[test]
fn an_identifier_finds_its_definition_before_a_test_that_writes_it_in_a_string() {
    let lore = Lore::without_model();
    let src = lore.path("tree");
    write(
        &src,
        "src/lib.rs",
        "pub struct Tree {\n    depth: usize,\n}\n\nimpl Tree {\n    pub fn new() -> Tree {\n        \
         Tree { depth: 0 }\n    }\n\n    /// How deep a walk goes.\n    pub fn walk_opts(&self) -> \
         usize {\n        self.depth + 1\n    }\n\n    pub fn reset(&mut self) {\n        \
         self.depth = 0;\n    }\n}\n",
    );
    write(
        &src,
        "tests/names.rs",
        "#[test]\nfn an_identifier_finds_a_method() {\n    let code = \"impl Tree {\\n    fn \
         walk_opts(&self) -> usize { 1 }\\n}\\n\";\n    let calls = \"t.walk_opts(); \
         t.walk_opts(); walk_opts\";\n    assert!(code.contains(\"walk_opts\") && \
         calls.contains(\"walk_opts\"));\n}\n",
    );
    lore.json(&["store", "add", "tree", src.to_str().unwrap(), "--embed", "none"]);
    let r = lore.search("walk_opts", "fts", &[]);
    assert_eq!(r["results"][0]["path"], "src/lib.rs", "{r:#}");
    assert_eq!(r["results"][0]["symbol"], "walk_opts", "{r:#}");
}
