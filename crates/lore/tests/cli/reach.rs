//! `lore impact` (from symbols and from a diff) and `lore unreached` through the binary, on a
//! small Python project whose callers, tests, entry points and dead code are known.

use crate::common::{Lore, write};
use serde_json::Value;
use std::io::Write as _;

const APP: &str = "\
from flask import Flask

app = Flask(__name__)


def helper(x):
    return x + 1


def used(x):
    return helper(x) * 2


@app.route('/')
def index():
    return str(used(1))


def _dead(x):
    return x - 1


def _named_in_a_string():
    return 0


HANDLERS = {'name': '_named_in_a_string'}


def public_unused():
    return 3


class Box:
    def __repr__(self):
        return 'Box'

    def _forgotten(self):
        return None
";

const TESTS: &str = "\
from app import used


def test_used():
    assert used(1) == 4
";

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["name"]
                .as_str()
                .or(r["qualified"].as_str())
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn impact_walks_up_the_callers_to_tests_and_entry_points() {
    let lore = Lore::without_model();
    let proj = lore.path("proj");
    write(&proj, "app.py", APP);
    write(&proj, "tests/test_app.py", TESTS);
    lore.ok(&["store", "add", "proj", proj.to_str().unwrap(), "--embed", "none"]);

    let a = lore.json(&["impact", "helper"]);
    assert_eq!(names(&a["changed"]), ["helper"], "{a:#}");
    let reached = names(&a["reached"]);
    assert_eq!(reached[0], "used", "{a:#}");
    assert!(reached.contains(&"index".to_string()), "{a:#}");
    assert!(reached.contains(&"test_used".to_string()), "{a:#}");
    assert_eq!(a["reached"][0]["distance"], 1, "{a:#}");
    assert_eq!(names(&a["tests"]), ["test_used"], "{a:#}");
    assert!(names(&a["entry_points"]).contains(&"index".to_string()), "{a:#}");
    assert_eq!(a["files"], serde_json::json!(["tests/test_app.py"]), "{a:#}");
    // One level only.
    let a = lore.json(&["impact", "helper", "--depth", "1"]);
    assert_eq!(names(&a["reached"]), ["used"], "{a:#}");

    // The same change as a diff on stdin: the line of `helper`'s body.
    let line = APP.lines().position(|l| l.contains("return x + 1")).unwrap() + 1;
    let diff = format!(
        "--- a/app.py\n+++ b/app.py\n@@ -{line} +{line} @@\n-    return x\n+    return x + 1\n"
    );
    let mut child = lore
        .command(&["--json", "impact", "--diff", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(diff.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let a: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(names(&a["changed"]), ["helper"], "{a:#}");
    assert_eq!(names(&a["tests"]), ["test_used"], "{a:#}");

    let err = lore.fails(&["impact", "no_such_function"], 2);
    assert!(err.contains("no definition"), "{err}");
    let err = lore.fails(&["impact"], 1);
    assert!(err.contains("symbol, a file or a diff"), "{err}");
}

#[test]
fn unreached_lists_dead_code_and_keeps_entry_points_out() {
    let lore = Lore::without_model();
    let proj = lore.path("proj");
    write(&proj, "app.py", APP);
    write(&proj, "tests/test_app.py", TESTS);
    lore.ok(&["store", "add", "proj", proj.to_str().unwrap(), "--embed", "none"]);

    let u = lore.json(&["unreached", "proj"]);
    let dead = names(&u["unreached"]);
    // Private and never called; a decorated route, a test, a special method, a name
    // written in a table and a public function are kept out.
    assert_eq!(dead, ["_dead", "Box._forgotten"], "{u:#}");
    assert!(u["unreached"][0]["why"].as_str().unwrap().contains("nothing calls"));
    assert!(u["mentioned"].as_u64().unwrap() >= 1, "{u:#}");
    // An application's public functions count too when asked.
    let u = lore.json(&["unreached", "proj", "--exported"]);
    assert_eq!(names(&u["unreached"]), ["_dead", "public_unused", "Box._forgotten"], "{u:#}");
}

#[test]
fn a_map_names_modules_hubs_and_entry_points_within_its_budget() {
    let lore = Lore::without_model();
    let proj = lore.path("proj");
    write(&proj, "app.py", APP);
    write(&proj, "tests/test_app.py", TESTS);
    write(
        &proj,
        "lib/util.py",
        "from app import helper\n\n\ndef twice(x):\n    return helper(helper(x))\n",
    );
    lore.ok(&["store", "add", "proj", proj.to_str().unwrap(), "--embed", "none"]);
    let map = lore.json(&["map", "proj"]);
    assert_eq!(map["files"], 3, "{map:#}");
    let hubs = names_of(&map["hubs"]);
    assert_eq!(hubs[0], "helper", "{map:#}");
    assert!(names_of(&map["entry_points"]).contains(&"index".to_string()), "{map:#}");
    let text = map["text"].as_str().unwrap();
    assert!(text.contains("## Modules") && text.contains("## Hubs"), "{text}");
    assert!(map["tokens"].as_u64().unwrap() <= 2000);
    // A small budget keeps the answer small; the first lines stay.
    let small = lore.json(&["map", "proj", "--tokens", "40"]);
    assert!(small["tokens"].as_u64().unwrap() <= 40, "{small:#}");
    assert!(small["text"].as_str().unwrap().starts_with("# proj: 3 files"));
    // The text as it is printed.
    let out = lore.ok(&["map", "proj"]);
    assert!(out.starts_with("# proj:"), "{out}");
}

fn names_of(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|h| h["qualified"].as_str().unwrap().to_string())
        .collect()
}

const ROUTES: &str = "\
from flask import Flask, jsonify, request

app = Flask(__name__)


@app.route('/users', methods=['POST'])
def create_user():
    data = request.get_json()
    return jsonify(save_user(data))


@app.route('/orders', methods=['POST'])
def create_order():
    data = request.get_json()
    return jsonify(save_order(data))


@app.route('/carts', methods=['POST'])
def create_cart():
    data = request.get_json()
    return jsonify(save_cart(data))


@app.route('/refunds', methods=['POST'])
def create_refund():
    data = request.get_json()
    check_refund(data)
    return jsonify(save_refund(data))


def save_user(d):
    return d


def save_order(d):
    return d


def save_cart(d):
    return d


def save_refund(d):
    return d


def check_refund(d):
    return d
";

#[test]
fn patterns_are_mined_listed_and_answer_find_pattern_first() {
    let lore = Lore::without_model();
    let proj = lore.path("proj");
    write(&proj, "api.py", ROUTES);
    lore.ok(&["store", "add", "proj", proj.to_str().unwrap(), "--embed", "none"]);
    let lists = lore.json(&["patterns", "proj"]);
    let first = &lists[0]["patterns"][0];
    assert_eq!(first["count"], 4, "{lists:#}");
    assert_eq!(
        first["parts"],
        serde_json::json!(["@app.route", "get_json", "jsonify"]),
        "{lists:#}"
    );
    assert_eq!(first["name"], "@app.route functions calling get_json, jsonify");
    // The one that also checks is a variant, not the canonical instance.
    assert_ne!(first["canonical"]["qualified"], "create_refund", "{first:#}");
    assert_eq!(first["variants"], serde_json::json!([]), "{first:#}");

    // A find-pattern question: the pattern first, then its members.
    let r = lore.json(&[
        "search",
        "how do we register a route",
        "--intent",
        "find-pattern",
        "--mode",
        "fts",
    ]);
    assert_eq!(r["patterns"][0]["kind"], "pattern", "{r:#}");
    assert_eq!(r["patterns"][0]["count"], 4, "{r:#}");
    assert!(
        r["results"][0]["symbol"]
            .as_str()
            .is_some_and(|s| s.starts_with("create_")),
        "{r:#}"
    );
    // The map lists it too.
    let map = lore.json(&["map", "proj"]);
    assert_eq!(map["patterns"][0]["count"], 4, "{map:#}");
}
