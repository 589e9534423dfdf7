#!/usr/bin/env python3
"""Warm search latency through MCP, as an agent sees it: one `lore mcp` process over stdio
(newline-delimited JSON-RPC), initialized once, then each query sent as a `search` tool
call and timed from the request written to the response read.

  crates/lore-bench/scripts/mcp_latency.py LORE_BIN DATA_DIR [--mode fts|hybrid|vector]
      [--rounds 5] [--store S] [QUERY …]

The first round warms (opened indexes, page cache) and is reported apart; then p50 and p95
over the rest. Without queries, eight that name kernel functions and ideas are used.
"""
import argparse, json, statistics, subprocess, time

QUERIES = ["spin_lock_irqsave", "kmalloc_array", "allocate a page of memory", "ext4 journal commit",
           "tcp retransmit timer", "usb device probe", "scheduler load balance", "copy_from_user"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lore")
    ap.add_argument("data")
    ap.add_argument("--mode", default="fts")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--store", action="append", default=[])
    ap.add_argument("queries", nargs="*")
    a = ap.parse_intermixed_args()
    queries = a.queries or QUERIES
    p = subprocess.Popen([a.lore, "--data-dir", a.data, "mcp"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    ids = iter(range(1, 1 << 30))

    def call(method, params, notify=False):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            msg["id"] = next(ids)
        p.stdin.write(json.dumps(msg) + "\n")
        p.stdin.flush()
        if notify:
            return None
        while True:
            reply = json.loads(p.stdout.readline())
            if reply.get("id") == msg["id"]:
                if "error" in reply:
                    raise SystemExit(f"{method}: {reply['error']}")
                return reply["result"]

    call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "mcp_latency", "version": "1"}})
    call("notifications/initialized", {}, notify=True)
    first, rest = [], []
    for r in range(a.rounds + 1):
        for q in queries:
            args = {"query": q, "mode": a.mode, "limit": 10}
            if a.store:
                args["stores"] = a.store
            t = time.perf_counter()
            result = call("tools/call", {"name": "search", "arguments": args})
            ms = (time.perf_counter() - t) * 1000
            if result.get("isError"):
                raise SystemExit(f"search {q!r}: {result}")
            (first if r == 0 else rest).append(ms)
    p.stdin.close()
    p.wait(timeout=30)
    s = sorted(rest)
    print(json.dumps({"mode": a.mode, "queries": len(queries), "rounds": a.rounds,
                      "first_round_ms": [round(x, 1) for x in first],
                      "p50_ms": round(statistics.median(rest), 1),
                      "p95_ms": round(s[min(len(s) - 1, int(len(s) * 0.95))], 1)}))


if __name__ == "__main__":
    main()
