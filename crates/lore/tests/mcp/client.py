"""Drives lore with the official MCP Python SDK, as an agent would.

    client.py stdio LORE_BIN DATA_DIR [options]     # spawns `lore mcp`
    client.py http URL [--token T] [options]        # streamable HTTP (`lore serve`, POST /mcp)

Checks, in order: the handshake (server info, tools capability), the tool list (names,
annotations, small schemas), `search` (results with ids, the expected file first, per-store
freshness), `get_full_context` on the first result id, `feedback` on it (and a tool error
without `useful`), `code_graph` (a definition, and a tool
error for a bad direction), a tool error for an unknown store, a
tool error for a bad result id, and a protocol error for an unknown tool. With --add NAME=PATH it
also adds a folder store through the `stores` tool and polls the job until it is done.

Prints one JSON line of measurements (ms); exits non-zero with a message on the first failure.
"""

import asyncio
import json
import time

from common import check, connect, fail, main, ok, parser, text_of


async def poll_job(client, job_id, timeout_s=120):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = await ok(client, "stores", {"action": "status", "job": job_id})
        if job["status"] in ("done", "failed", "cancelled"):
            return job
        await asyncio.sleep(0.2)
    fail(f"job {job_id} did not finish in {timeout_s}s")


async def run(args):
    client = connect(args, mode=args.mode, token=args.token)

    started = time.monotonic()
    out = {}
    async with client:
        info = client.server_info
        check(info is not None and info.name == "lore", f"server info: {info}")
        check(client.server_capabilities.tools is not None, "no tools capability")

        tools = (await client.list_tools()).tools
        by_name = {t.name: t for t in tools}
        for name in ("search", "get_full_context", "code_graph", "stores"):
            check(name in by_name, f"tool {name} missing from {list(by_name)}")
        check(by_name["search"].annotations.read_only_hint is True, "search is not marked read-only")
        check(by_name["stores"].annotations.destructive_hint is True, "stores is not marked destructive")
        size = len(json.dumps([t.model_dump(exclude_none=True) for t in tools]))
        check(size < 7400, f"tool definitions are {size} bytes")  # twelve tools, as the SDK dumps them
        out["tools_bytes"] = size

        t0 = time.monotonic()
        resp = await ok(client, "search", {"query": args.query, "limit": "3"})
        out["first_search_ms"] = round((time.monotonic() - started) * 1000, 1)
        out["search_ms"] = round((time.monotonic() - t0) * 1000, 1)
        results = resp["results"]
        check(results, f"no results for {args.query!r}")
        check(results[0]["path"] == args.expect, f"expected {args.expect} first, got {[h['path'] for h in results]}")
        check(all(len(h["id"]) == 16 for h in results), "result ids are not 16 hex digits")
        check(resp["stores"] and "indexed_at" in resp["stores"][0], f"no freshness in {resp.get('stores')}")

        unit = await ok(client, "get_full_context", {"resultId": results[0]["id"]})
        check(unit["path"] == args.expect and unit["content"], f"bad unit: {unit}")
        check(isinstance(unit.get("outline"), list), "unit has no outline")

        # Opening it after the search recorded an "opened" signal; marks are explicit.
        marked = await ok(client, "feedback", {"id": results[0]["id"], "useful": True, "query": args.query})
        check(marked["kind"] == "useful" and marked["id"] == results[0]["id"], f"feedback: {marked}")
        r = await client.call_tool("feedback", {"id": results[0]["id"]})
        check(r.is_error and "useful" in text_of(r), f"feedback without useful: {text_of(r)}")

        graph = await ok(client, "code_graph", {"symbol": args.symbol, "direction": "definition"})
        check(graph["definitions"] and graph["definitions"][0]["path"] == args.expect, f"graph: {graph}")
        r = await client.call_tool("code_graph", {"symbol": args.symbol, "direction": "sideways"})
        check(r.is_error and "callers, callees" in text_of(r), f"bad direction: {text_of(r)}")

        r = await client.call_tool("search", {"query": args.query, "stores": ["no-such-store"]})
        check(r.is_error, "search in an unknown store is not a tool error")
        check("no store named" in text_of(r), f"unhelpful message: {text_of(r)}")

        r = await client.call_tool("get_full_context", {"resultId": "not-an-id"})
        check(r.is_error and "result id" in text_of(r), f"bad id: {text_of(r)}")

        try:
            r = await client.call_tool("no_such_tool", {})
            # Some SDK versions surface protocol errors as error results.
            check(r.is_error, "an unknown tool was answered")
        except Exception as e:  # noqa: BLE001 - the SDK's protocol error type varies
            check("unknown tool" in str(e) or "no_such_tool" in str(e), f"unknown tool error: {e}")

        if args.add:
            name, path = args.add.split("=", 1)
            job = await ok(client, "stores", {"action": "add", "name": name, "source": path})
            check(job["status"] in ("pending", "running", "done"), f"bad job: {job}")
            job = await poll_job(client, job["id"])
            check(job["status"] == "done", f"add job ended {job['status']}: {job.get('error')}")
            check(job["progress"]["files_done"] >= 1, f"no progress recorded: {job}")
            store = await ok(client, "stores", {"action": "status", "name": name})
            check(store["files"] >= 1, "the added store has no files")
            r = await client.call_tool("stores", {"action": "add", "name": name, "source": path})
            check(r.is_error and "already exists" in text_of(r), f"second add: {text_of(r)}")

    print(json.dumps(out))


if __name__ == "__main__":
    p = parser()
    p.add_argument("--token")
    p.add_argument("--mode", default="legacy", help="legacy = initialize handshake; auto = SDK default")
    p.add_argument("--query", default="levenshtein edit distance between two words")
    p.add_argument("--expect", default="src/edit.rs")
    p.add_argument("--symbol", default="levenshtein_distance", help="a symbol defined in --expect")
    p.add_argument("--add", help="NAME=PATH: add a folder store through the stores tool")
    main(p, run)
