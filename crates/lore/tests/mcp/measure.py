"""Measures lore as agents see it (stdlib only; not part of the test suite).

    measure.py cold LORE_BIN DATA_DIR [--runs 5] [--query Q]
        `lore mcp` from process start to the first `search` answer (initialize, initialized,
        tools/call over raw JSON-RPC on stdio), median and all runs, in ms.
    measure.py http URL [--requests 300] [--mode hybrid] [--mcp]
        search latency through HTTP on one keep-alive connection: POST /api/search (or, with
        --mcp, tools/call search on POST /mcp), p50/p95/max in ms, after 10 warm-up requests.
"""

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.parse

QUERIES = [
    "how are bm25 and vector scores fused",
    "where is the writer lock taken",
    "cancel a running job",
    "parse tool arguments leniently",
    "debounce file system events",
    "incremental index of changed files",
    "exact cosine similarity over vectors",
    "chunk markdown sections by heading",
    "store name validation",
    "what happens when the model is missing",
    "tantivy tokenizer camelCase split",
    "result id to whole unit context",
    "bearer token check",
    "request body size limit",
    "git shallow clone of a repository",
    "freshness of a store changed files",
    "embedding batch by length",
    "MCP tool error message",
    "job progress files done",
    "per file dedup of results",
]


def cold(args):
    times = []
    for i in range(args.runs):
        msgs = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "measure", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "search", "arguments": {"query": args.query, "limit": 5}}},
        ]
        t0 = time.monotonic()
        p = subprocess.Popen(
            [args.target, "--data-dir", args.data_dir, "mcp"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=os.environ, text=True,
        )
        p.stdin.write("".join(json.dumps(m) + "\n" for m in msgs))
        p.stdin.flush()
        answer = None
        for line in p.stdout:
            msg = json.loads(line)
            if msg.get("id") == 2:
                answer = msg
                break
        t1 = time.monotonic()
        p.stdin.close()
        p.wait(timeout=30)
        if answer is None or answer.get("result", {}).get("isError"):
            sys.exit(f"search failed: {answer}")
        n = len(json.loads(answer["result"]["content"][0]["text"])["results"])
        times.append((t1 - t0) * 1000)
        print(f"run {i + 1}: {times[-1]:.0f} ms ({n} results)", file=sys.stderr)
    print(json.dumps({"cold_start_to_first_search_ms": {
        "median": round(statistics.median(times), 1), "runs": [round(t, 1) for t in times]}}))


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def http_latency(args):
    u = urllib.parse.urlparse(args.target)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if args.token:
        headers["Authorization"] = f"Bearer {args.token}"

    def one(i):
        q = QUERIES[i % len(QUERIES)]
        if args.mcp:
            path = "/mcp"
            body = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
                "name": "search", "arguments": {"query": q, "limit": 10, "mode": args.mode}}}
        else:
            path = "/api/search"
            body = {"query": q, "limit": 10, "mode": args.mode}
        t0 = time.monotonic()
        conn.request("POST", path, json.dumps(body), headers)
        r = conn.getresponse()
        data = r.read()
        t = (time.monotonic() - t0) * 1000
        if r.status != 200:
            sys.exit(f"{path}: {r.status} {data[:300]!r}")
        return t

    for i in range(10):
        one(i)
    times = [one(i) for i in range(args.requests)]
    print(json.dumps({"requests": len(times), "mode": args.mode, "via": "mcp" if args.mcp else "rest",
                      "p50_ms": round(pct(times, 0.5), 1), "p95_ms": round(pct(times, 0.95), 1),
                      "max_ms": round(max(times), 1)}))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["cold", "http"])
    p.add_argument("target")
    p.add_argument("data_dir", nargs="?")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--requests", type=int, default=300)
    p.add_argument("--mode", default="hybrid")
    p.add_argument("--mcp", action="store_true")
    p.add_argument("--token")
    p.add_argument("--query", default="how are bm25 and vector scores fused")
    args = p.parse_args()
    if args.what == "cold":
        cold(args)
    else:
        http_latency(args)


if __name__ == "__main__":
    main()
