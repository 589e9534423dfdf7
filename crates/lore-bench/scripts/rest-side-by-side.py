#!/usr/bin/env python3
"""REST side by side: p50/p95 of POST /api/search on two lore servers over the same stores.

  rest-side-by-side.py EMBEDDED_URL REPLICA_URL fts|hybrid|vector

Each side gets one warm-up round, then 24 queries x 5 rounds, twice, alternating."""
import json, sys, time, urllib.request, statistics
queries = ["fuse bm25 and vectors", "store lease renew", "parse lockfile", "walk gitignore", "embed query",
  "claim batch", "result id", "brain refresh", "project scope", "job progress message", "read copy rebuild",
  "tool definitions", "search request limit", "outline of a file", "callers of a symbol", "web crawl robots",
  "token bearer auth", "feedback signal queue", "schema migration", "chunk a markdown file", "validate store name",
  "hybrid fusion alpha", "freshness walk", "dependency store version"]
def run(url, rounds):
    lat = []
    for r in range(rounds):
        for q in queries:
            body = json.dumps({"query": q, "mode": sys.argv[3], "limit": 10}).encode()
            req = urllib.request.Request(url + "/api/search", data=body, headers={"Content-Type": "application/json", "X-Lore-Client": "bench"})
            t = time.perf_counter(); urllib.request.urlopen(req).read(); lat.append((time.perf_counter() - t) * 1000)
    return lat
def pct(l, p):
    s = sorted(l); return s[min(len(s) - 1, int(len(s) * p))]
emb, rep = sys.argv[1], sys.argv[2]
run(emb, 1); run(rep, 1)  # warm
out = {}
for name, url in [("embedded", emb), ("replica", rep), ("embedded2", emb), ("replica2", rep)]:
    l = run(url, 5)
    out[name] = {"n": len(l), "p50": round(statistics.median(l), 2), "p95": round(pct(l, 0.95), 2)}
print(json.dumps(out))
