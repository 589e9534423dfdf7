"""What lore's MCP test clients (client.py, brain_client.py) share: failing with a message,
calling tools and reading their results, connecting to lore over stdio or streamable HTTP
with the official MCP Python SDK, and the command line both take:

    SCRIPT stdio LORE_BIN DATA_DIR [options]     # spawns `lore --data-dir DATA_DIR … mcp`
    SCRIPT http URL [options]                    # streamable HTTP (`lore serve`, POST /mcp)
"""

import argparse
import asyncio
import json
import os
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters

# What a stdio server sees of this process's environment (the SDK adds PATH, HOME and a few more).
INHERITED_ENV = ("LORE_", "HF_", "PIP_", "HOME", "XDG_")


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def text_of(result):
    check(result.content, f"no content in {result}")
    return result.content[0].text


async def ok(client, tool, args):
    """Calls `tool`, which must succeed; returns its JSON answer."""
    r = await client.call_tool(tool, args)
    check(not r.is_error, f"{tool} {args} failed: {text_of(r)}")
    return json.loads(text_of(r))


async def err(client, tool, args, needle):
    """Calls `tool`, which must fail with `needle` in its message; returns the message."""
    r = await client.call_tool(tool, args)
    check(r.is_error, f"{tool} {args} succeeded: {text_of(r)}")
    check(needle in text_of(r), f"{tool} {args}: {needle!r} not in {text_of(r)!r}")
    return text_of(r)


def connect(args, lore_args=(), mode="legacy", token=None):
    """A client of `lore mcp` spawned from args.target on args.data_dir, with `lore_args`
    before `mcp` (stdio), or of the /mcp URL args.target, with a bearer token if any (http)."""
    if args.transport == "stdio":
        env = {k: v for k, v in os.environ.items() if k.startswith(INHERITED_ENV)}
        server = StdioServerParameters(
            command=args.target, args=["--data-dir", args.data_dir, *lore_args, "mcp"], env=env, cwd=args.data_dir
        )
        return Client(server, mode=mode, read_timeout_seconds=120)
    if token:
        from mcp.client.streamable_http import streamable_http_client
        import httpx2

        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
        return Client(streamable_http_client(args.target, http_client=http), mode=mode, read_timeout_seconds=120)
    return Client(args.target, mode=mode, read_timeout_seconds=120)


def parser():
    """The arguments both clients take; each adds its own."""
    p = argparse.ArgumentParser()
    p.add_argument("transport", choices=["stdio", "http"])
    p.add_argument("target", help="the lore binary (stdio) or the /mcp URL (http)")
    p.add_argument("data_dir", nargs="?", help="data dir (stdio)")
    return p


def main(p, run):
    """Parses the command line with `p` and runs the coroutine `run(args)`."""
    args = p.parse_args()
    if args.transport == "stdio" and not args.data_dir:
        fail("stdio needs LORE_BIN DATA_DIR")
    asyncio.run(run(args))
