//! `eval locate` end to end on a small git repository: the work tree follows each task's
//! base commit (a file added later is not there before it), the store is indexed
//! incrementally, and the scores come from what was ranked.

use lore_core::DataDir;
use lore_engine::{Engine, EngineConfig, NoProgress};
use lore_eval::locate::{LocateOptions, Ranker, run};
use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn tasks_are_ranked_at_their_base_commits() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repos").join("acme+shop");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    write(
        &repo,
        "shop/cart.py",
        "class Cart:\n    def total(self):\n        \"\"\"Sum of the line prices.\"\"\"\n        return sum(i.price for i in self.items)\n",
    );
    write(
        &repo,
        "shop/payment.py",
        "def charge(card, amount):\n    \"\"\"Charge a card through the gateway.\"\"\"\n    return gateway.post(card, amount)\n",
    );
    write(
        &repo,
        "tests/test_cart.py",
        "from shop.cart import Cart\n\ndef test_total():\n    assert Cart().total() == 0\n",
    );
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    let first = git(&repo, &["rev-parse", "HEAD"]);
    write(
        &repo,
        "shop/refund.py",
        "def refund(card, amount):\n    \"\"\"Give money back to a card.\"\"\"\n    return gateway.refund(card, amount)\n",
    );
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "refunds"]);
    let second = git(&repo, &["rev-parse", "HEAD"]);

    let task = |id: &str, commit: &str, query: &str, gold: &str, span: &str| {
        serde_json::json!({
            "instance_id": id, "repo": "acme/shop", "base_commit": commit, "query": query,
            "gold_files": [gold], "gold_spans": {gold: [span]},
        })
        .to_string()
    };
    let set = tmp.path().join("set.jsonl");
    std::fs::write(
        &set,
        [
            // Written against the second commit, listed first: commit order decides.
            task(
                "b",
                &second,
                "Refund of a card fails\n\nrefund(card, amount) sends the wrong amount back to the gateway.",
                "shop/refund.py",
                "refund",
            ),
            task(
                "a",
                &first,
                "Cart total is wrong\n\nTraceback (most recent call last):\n  File \"shop/cart.py\", line 4, in total\nTypeError: unsupported operand",
                "shop/cart.py",
                "Cart.total",
            ),
        ]
        .join("\n"),
    )
    .unwrap();

    let config = EngineConfig {
        embed: false,
        ..Default::default()
    };
    let mut engine = Engine::open_with(DataDir::new(tmp.path().join("data")), config).unwrap();
    let opts = LocateOptions {
        set: set.clone(),
        repos: tmp.path().join("repos"),
        rankers: vec![Ranker::Fts, Ranker::Locate],
        lexical: true,
        repo: None,
        max: None,
        ablation: false,
        out: Some(tmp.path().join("out.jsonl")),
    };
    let report = run(&mut engine, &opts, &NoProgress).unwrap();
    assert_eq!((report.instances, report.repos), (2, 1));
    let locate = report.scores.iter().find(|s| s.ranker == "locate").unwrap();
    assert_eq!(locate.acc1, 1.0, "{report:#?}");
    assert_eq!(locate.unit_instances, 2);
    assert_eq!(locate.unit_recall10, 1.0, "{report:#?}");
    // One line per instance, in commit order, then a summary per ranker.
    let out = std::fs::read_to_string(tmp.path().join("out.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["instance_id"], "a");
    assert_eq!(lines[1]["instance_id"], "b");
    assert_eq!(lines[0]["locate"]["top10"][0], "shop/cart.py");
    // At the first commit refund.py did not exist yet.
    assert!(
        !lines[0]["locate"]["top10"]
            .to_string()
            .contains("refund.py"),
        "{out}"
    );
    assert_eq!(lines.iter().filter(|l| l["type"] == "summary").count(), 2);

    // Vector rankers need the model: refused up front with --lexical.
    let bad = LocateOptions {
        rankers: vec![Ranker::Hybrid],
        ..opts
    };
    let err = run(&mut engine, &bad, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("--lexical"), "{err}");
}
