"""Drives lore's brain tools with the official MCP Python SDK, as an agent would.

    brain_client.py stdio LORE_BIN DATA_DIR --brain-dir DIR [--llm fake|none]
    brain_client.py http URL --brain-dir DIR [--llm fake|none]

Checks: the five brain tools are listed with their annotations; brain_write returns a path
under knowledge/ and brain_query finds the note right after (timed); empty content and
filenames that would leave knowledge/ are tool errors and write nothing; brain_ingest_raw
with dry_run writes nothing, then writes, then merges with a warning; unknown page types
and empty sources are errors; brain_ingest refuses both and neither of path/content; with
--llm none it reports the missing LLM; with --llm fake (a scripted OpenAI-compatible server
whose URL the lore process has in LORE_LLM_URL) a document becomes pages and a document
the fake answers with garbage is reported and writes nothing; session_log rejects ids with
path characters, and 8 concurrent writers x 100 calls leave 800 whole lines.

Prints one JSON line of measurements (ms); exits non-zero with a message on the first failure.
"""

import asyncio
import json
import os
import time

from common import check, connect, err, main, ok, parser, text_of

TOOLS = ("brain_query", "brain_write", "brain_ingest_raw", "brain_ingest", "session_log")


def files_under(root):
    out = []
    for dirpath, _, names in os.walk(root):
        for n in names:
            out.append(os.path.relpath(os.path.join(dirpath, n), root))
    return sorted(out)


async def run(args):
    client = connect(args, ["--brain-dir", args.brain_dir])

    brain = args.brain_dir
    outside = os.path.join(os.path.dirname(os.path.abspath(brain)), "outside")
    os.makedirs(outside, exist_ok=True)
    out = {}
    async with client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in TOOLS:
            check(name in tools, f"tool {name} missing from {list(tools)}")
        check(tools["brain_query"].annotations.read_only_hint is True, "brain_query is not read-only")
        check(tools["brain_write"].annotations.read_only_hint is False, "brain_write is read-only")
        size = len(json.dumps([t.model_dump(exclude_none=True) for t in tools.values()]))
        out["tools_bytes"] = size

        # Write, then query at once.
        t0 = time.monotonic()
        w = await ok(client, "brain_write", {
            "content": "# Platypus venom\n\nMale platypuses have venomous spurs on their hind legs.",
            "filename": "zoology/platypus", "type": "fact", "domain": "zoology",
        })
        t1 = time.monotonic()
        check(w["path"] == "knowledge/zoology/platypus.md", f"write path: {w}")
        check(os.path.isfile(os.path.join(brain, w["path"])), "the note is not on disk")
        q = await ok(client, "brain_query", {"query": "venomous spurs platypus", "limit": "3"})
        t2 = time.monotonic()
        check(q["results"] and q["results"][0]["path"] == w["path"], f"query after write: {q}")
        hit = q["results"][0]
        check(hit["title"] == "Platypus venom", f"title: {hit}")
        check("venomous" in hit["snippet"], f"snippet: {hit}")
        check(isinstance(hit["score"], (int, float)), f"score: {hit}")
        out["write_ms"] = round((t1 - t0) * 1000, 1)
        out["write_to_found_ms"] = round((t2 - t0) * 1000, 1)
        out["query_mode"] = q["mode"]
        d = await ok(client, "brain_write", {"content": "An unnamed note about echidnas."})
        name = d["path"].split("/")[-1]
        check(d["path"].startswith("knowledge/") and name.endswith("-auto.md") and len(name) >= 25, f"default name: {d}")

        # Bad writes: tool errors, nothing written.
        before = files_under(brain)
        os.makedirs(os.path.join(brain, "knowledge"), exist_ok=True)
        link = os.path.join(brain, "knowledge", "escape-link")
        if not os.path.lexists(link):
            os.symlink(outside, link)
        before = files_under(brain)
        await err(client, "brain_write", {"content": ""}, "empty")
        await err(client, "brain_write", {"content": "   "}, "empty")
        for bad in ("../x.md", "../../x", "/tmp/lore-abs.md", "a/../../x.md", "escape-link/x.md", "escape-link/new/x.md"):
            await err(client, "brain_write", {"content": "nope", "filename": bad}, "knowledge/")
        check(files_under(brain) == before, "a refused write changed the brain dir")
        check(os.listdir(outside) == [], f"a write escaped: {os.listdir(outside)}")
        check(not os.path.exists(os.path.join(os.path.dirname(brain), "x.md")), "../x.md was written")

        # ingest_raw: dry run, write, merge.
        pages = [
            {"title": "Monotremes", "type": "concept", "content": "Mammals that lay eggs: platypus and echidnas."},
            {"title": "Field kit", "type": "tool", "content": "Gloves for handling platypuses."},
        ]
        dry = await ok(client, "brain_ingest_raw", {"source": "field-notes.md", "pages": pages, "dry_run": True})
        check(dry["dry_run"] is True and dry["pages"] == ["wiki/concepts/monotremes.md", "wiki/tools/field-kit.md"], f"dry: {dry}")
        check(files_under(brain) == before, "a dry run wrote files")
        real = await ok(client, "brain_ingest_raw", {"source": "field-notes.md", "pages": pages})
        check(real["pages"] == dry["pages"] and real["created"] == 2, f"real: {real}")
        merged = await ok(client, "brain_ingest_raw", {"source": "second-trip.md", "pages": [
            {"title": "monotremes", "type": "concept", "content": "Echidnas have no teats."}]})
        check(merged["merged"] == 1 and "already exists" in merged["warnings"][0], f"merge: {merged}")
        with open(os.path.join(brain, "wiki/concepts/monotremes.md")) as f:
            page = f.read()
        check("second-trip.md" in page and "lay eggs" in page and "no teats" in page, page)
        q = await ok(client, "brain_query", {"query": "echidnas have no teats"})
        check(q["results"][0]["path"] == "wiki/concepts/monotremes.md", f"merged page not found: {q}")
        snapshot = files_under(brain)
        await err(client, "brain_ingest_raw", {"source": "", "pages": pages}, "source")
        await err(client, "brain_ingest_raw", {"source": "s", "pages": []}, "pages")
        await err(client, "brain_ingest_raw", {"source": "s", "pages": [{"title": "X", "type": "poem", "content": "c"}]}, "unknown page type")
        check(files_under(brain) == snapshot, "a refused ingest_raw changed files")

        # ingest: mutual exclusion, then the LLM.
        await err(client, "brain_ingest", {"path": "/tmp/doc.md", "content": "text", "source": "s"}, "not both")
        await err(client, "brain_ingest", {}, "path")
        await err(client, "brain_ingest", {"content": "text"}, "source")
        if args.llm == "none":
            await err(client, "brain_ingest", {"content": "Quolls hunt at night.", "source": "s"}, "no LLM configured")
        else:
            done = await ok(client, "brain_ingest", {"content": "<p>Quolls hunt at night.</p>", "source": "quolls.html"})
            check(done["pages"] == ["wiki/concepts/quoll-facts.md"] and done["format"] == "html", f"ingest: {done}")
            dry = await ok(client, "brain_ingest", {"content": "Quolls again.", "source": "again.md", "dry_run": True})
            check(dry["dry_run"] is True and "already exists" in dry["warnings"][0], f"ingest dry run: {dry}")
            snapshot = files_under(brain)
            text = await err(client, "brain_ingest", {"content": "GARBAGE-DOC about quolls", "source": "g.md"}, "nothing was written")
            check("not valid JSON" in text, text)
            check(files_under(brain) == snapshot, "a failed ingest wrote files")

        # session_log: ids, then concurrent writers.
        for bad in ("../x", "a/b", ".hidden", ""):
            await err(client, "session_log", {"session_id": bad, "message": "m"}, "session_id")
        check(not os.path.exists(os.path.join(brain, "x.jsonl")), "a session log escaped")

        async def writer(w):
            for i in range(100):
                r = await client.call_tool("session_log", {
                    "session_id": "mcp-run", "skill": f"w{w}", "message": f"{i}:" + "m" * (i * 37 % 3000),
                    "duration_ms": str(i),
                })
                check(not r.is_error, f"session_log failed: {text_of(r)}")

        t0 = time.monotonic()
        await asyncio.gather(*(writer(w) for w in range(8)))
        out["session_log_800_ms"] = round((time.monotonic() - t0) * 1000, 1)
        with open(os.path.join(brain, "sessions", "mcp-run.jsonl")) as f:
            lines = [json.loads(line) for line in f]
        check(len(lines) == 800, f"{len(lines)} lines")
        per = {}
        for line in lines:
            i, filler = line["message"].split(":", 1)
            check(len(filler) == int(i) * 37 % 3000, f"torn line: {line['skill']} {i}")
            check(line["timestamp"].endswith("Z") and line["duration_ms"] == int(i), f"fields: {line}")
            per.setdefault(line["skill"], set()).add(int(i))
        check(all(len(v) == 100 for v in per.values()) and len(per) == 8, "lines missing")

    print(json.dumps(out))


if __name__ == "__main__":
    p = parser()
    p.add_argument("--brain-dir", required=True)
    p.add_argument("--llm", choices=["fake", "none"], default="none")
    main(p, run)
