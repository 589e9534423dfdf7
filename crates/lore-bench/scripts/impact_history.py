#!/usr/bin/env python3
"""`lore impact` measured on a repository's own history.

For up to --commits recent non-merge commits that change at least two code files: the
repository is checked out at the commit's parent and indexed (incrementally), one changed
file's hunks — taken from the parent's side, so they name the functions as they were — are
given to `lore impact --diff -`, and the other files the commit changed are looked for among
the files the answer names. Reports recall (the share of those other files named) and the
answer's size (units and files), per commit and in all.

    impact_history.py --lore target/release/lore --repo CLONE [--commits 50] [--depth 3]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CODE = (".rs", ".py", ".ts", ".tsx", ".js", ".go", ".java", ".c", ".h", ".cc", ".cpp", ".hpp",
        ".cs", ".rb", ".php", ".kt", ".swift", ".scala", ".dart", ".lua", ".sh")


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lore", required=True)
    p.add_argument("--repo", required=True, help="a clone with history (its work tree is checked out)")
    p.add_argument("--commits", type=int, default=50)
    p.add_argument("--depth", type=int, default=3)
    p.add_argument("--scan", type=int, default=600, help="commits looked at")
    p.add_argument("--json")
    args = p.parse_args()
    repo = os.path.abspath(args.repo)
    data = tempfile.mkdtemp(prefix="lore-impact-")
    env = dict(os.environ, LORE_DATA_DIR=data)
    lore = lambda *a, **kw: subprocess.run([args.lore, *a], capture_output=True, text=True, env=env, **kw)
    head = git(repo, "rev-parse", "HEAD").strip()
    rows = []
    added = False
    for c in git(repo, "log", "--no-merges", "--format=%H", f"-n{args.scan}", head).split():
        if len(rows) >= args.commits:
            break
        files = [f for f in git(repo, "diff", "--name-only", f"{c}^", c).split() if f.endswith(CODE)]
        if len(files) < 2:
            continue
        git(repo, "checkout", "-q", f"{c}^")
        if not added:
            r = lore("store", "add", "repo", repo, "--embed", "none")
            added = True
        else:
            r = lore("index", "repo")
        if r.returncode != 0:
            print(r.stderr, file=sys.stderr)
            sys.exit(1)
        answer = None
        for f in files:
            # The parent's side of the change: `git diff C P` has the parent as its new side.
            diff = git(repo, "diff", "-U0", c, f"{c}^", "--", f)
            out = lore("--json", "impact", "--diff", "-", "--depth", str(args.depth), "-n", "500", input=diff)
            if out.returncode == 0:
                answer, changed_file = json.loads(out.stdout), f
                break
        if answer is None:
            continue
        others = [f for f in files if f != changed_file]
        named = set(answer["files"]) | {r["path"] for r in answer["reached"]}
        hit = [f for f in others if f in named]
        rows.append({
            "commit": c[:10], "file": changed_file, "changed": [s["qualified"] for s in answer["changed"]],
            "others": len(others), "named": len(hit), "recall": len(hit) / len(others),
            "units": answer["total"], "files": len(answer["files"]),
        })
        r = rows[-1]
        print(f"{r['commit']} {r['file'][:50]:50} {len(r['changed']):>3} fns  other files {r['others']:>3}  named {r['named']:>3}"
              f"  answer {r['units']:>4} units {r['files']:>4} files", flush=True)
    git(repo, "checkout", "-q", head)
    if not rows:
        print("no commit qualified")
        return
    recall = statistics.mean(r["recall"] for r in rows)
    micro = sum(r["named"] for r in rows) / sum(r["others"] for r in rows)
    print(f"{len(rows)} commits: recall of the other changed files, mean per commit {recall:.3f}, "
          f"over all files {micro:.3f}; answer median {statistics.median(r['units'] for r in rows)} units, "
          f"{statistics.median(r['files'] for r in rows)} files")
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
