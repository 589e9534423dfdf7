#!/usr/bin/env python3
"""`lore grep` against ripgrep on one indexed store, side by side.

For each pattern of crates/lore/tests/fixtures/grep/patterns.tsv: the (path, line) pairs
`lore grep --max-lines 0 --json` answers and those `rg` finds in the store's folder, compared
(restricted to the files the store indexed), and the wall time of each, median of --repeats
warm runs, both as a process the way an agent's shell runs them.

    grep_vs_rg.py --lore target/release/lore --data DATA_DIR --store linux --root /src/linux \
        [--repeats 5] [--no-ignore] [--json OUT]
"""

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PATTERNS = os.path.join(HERE, "..", "..", "lore", "tests", "fixtures", "grep", "patterns.tsv")


def patterns():
    for line in open(PATTERNS, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        flags, pattern = line.split("\t", 1)
        yield flags.lstrip("-"), pattern


def timed(cmd, env=None, cwd=None):
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, env=env, cwd=cwd)
    return time.perf_counter() - start, out


def lore_cmd(args, flags, pattern):
    cmd = [args.lore, "--json", "grep", "--max-lines", "0", "--store", args.store]
    if "i" in flags:
        cmd.append("-i")
    if "F" in flags:
        cmd.append("-F")
    return cmd + ["--", pattern]


def rg_cmd(args, flags, pattern):
    cmd = ["rg", "--line-number", "--no-heading", "--with-filename", "--null"]
    if args.no_ignore:
        cmd.append("--no-ignore")
    if "i" in flags:
        cmd.append("--ignore-case")
    if "F" in flags:
        cmd.append("--fixed-strings")
    return cmd + ["-e", pattern]


def lore_hits(out):
    doc = json.loads(out.stdout)
    hits = set()
    for u in doc["units"]:
        for l in u["lines"]:
            hits.add((u["path"], l["line"]))
    return hits, doc


def rg_hits(out):
    hits = set()
    for line in out.stdout.decode("utf-8", "replace").splitlines():
        path, _, rest = line.partition("\0")
        number = rest.split(":", 1)[0]
        # A matched line holding a NUL splits early; its number came before it.
        if number.isdigit():
            hits.add((path, int(number)))
    return hits


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lore", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--store", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--no-ignore", action="store_true", help="rg --no-ignore (a store added with it)")
    p.add_argument("--skip", type=int, default=0, help="patterns skipped (resuming a run)")
    p.add_argument("--only", help="comma-separated pattern numbers (from 0) to run alone")
    p.add_argument("--json")
    args = p.parse_args()
    env = dict(os.environ, LORE_DATA_DIR=args.data)
    # The files the store indexed (rg also reads what lore skips: files over the size cap).
    db = sqlite3.connect(os.path.join(args.data, "lore.db"))
    indexed = {r[0] for r in db.execute(
        "SELECT f.path FROM files f JOIN stores s ON s.id = f.store_id WHERE s.name = ? AND f.skipped IS NULL",
        (args.store,))}
    rows = []
    agree = 0
    chosen = list(enumerate(patterns()))[args.skip:]
    if args.only:
        keep = {int(n) for n in args.only.split(",")}
        chosen = [c for c in chosen if c[0] in keep]
    for _, (flags, pattern) in chosen:
        # One warm-up each, then the timed runs.
        _, lo = timed(lore_cmd(args, flags, pattern), env=env)
        if lo.returncode != 0:
            print(f"lore failed on {pattern!r}: {lo.stderr.decode()}", file=sys.stderr)
            sys.exit(1)
        got, doc = lore_hits(lo)
        _, ro = timed(rg_cmd(args, flags, pattern), cwd=args.root)
        want = {h for h in rg_hits(ro) if h[0] in indexed}
        missing = want - got
        extra = got - want
        lore_t = statistics.median(timed(lore_cmd(args, flags, pattern), env=env)[0] for _ in range(args.repeats))
        rg_t = statistics.median(timed(rg_cmd(args, flags, pattern), cwd=args.root)[0] for _ in range(args.repeats))
        same = not missing and not extra
        agree += same
        rows.append({
            "flags": flags, "pattern": pattern, "lore_lines": len(got), "rg_lines": len(want),
            "missing": len(missing), "extra": len(extra), "examples": sorted(missing | extra)[:3],
            "files_read": doc["read"], "files_indexed": doc["indexed"],
            "lore_ms": round(lore_t * 1000, 1), "rg_ms": round(rg_t * 1000, 1),
            "speedup": round(rg_t / lore_t, 1) if lore_t else None,
        })
        r = rows[-1]
        print(f"{'ok ' if same else 'DIFF'} -{flags or '-':3} {pattern[:32]:34} lines {r['lore_lines']:>8} / rg {r['rg_lines']:>8}"
              f"  read {r['files_read']:>6}/{r['files_indexed']}  lore {r['lore_ms']:>8} ms  rg {r['rg_ms']:>8} ms  x{r['speedup']}",
              flush=True)
        if not same:
            print(f"     missing {len(missing)} extra {len(extra)} e.g. {r['examples']}", flush=True)
    print(f"{agree}/{len(rows)} patterns: the same lines as rg")
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
