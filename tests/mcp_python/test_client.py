"""A third-party MCP client (the Python `mcp` SDK, 1.x API) against `sextant serve`, over stdio
or streamable HTTP, calling every core tool (and, with `--toolsets core,analytics`, every analytics
tool).

Run by crates/cli/tests/mcp.rs, which builds and indexes the fixture repository:

    python3 tests/mcp_python/test_client.py --bin target/debug/sextant --repo DIR [--transport http]
        [--toolsets core,analytics]

(SEXTANT_HOME must point at the index's data home). The 1.x client validates every
`structuredContent` against the tool's `outputSchema` and raises when it does not conform; the
script validates again with jsonschema (Draft 2020-12) and checks the answers. Exit code 0 when
every check passes; prints "N passed, 0 failed".
"""

import argparse
import re
import asyncio
import contextlib
import os
import subprocess
import sys
import threading

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
try:  # 1.x
    from mcp.client.streamable_http import streamablehttp_client as http_client
except ImportError:  # 2.x
    from mcp.client.streamable_http import streamable_http_client as http_client

TOOLS = {
    "search",
    "symbol",
    "source",
    "references",
    "calls",
    "hierarchy",
    "impact",
    "changes",
    "path",
    "grep",
    "overview",
    "status",
    "index",
}
ANALYTICS = {
    "query",
    "schema",
    "central",
    "bridges",
    "communities",
    "cycles",
    "entry_points",
    "flows",
    "dead_code",
    "complexity",
    "architecture",
}
WRITES = {"index"}



def field(obj, camel):
    """An attribute by its 1.x (camelCase) or 2.x (snake_case) name."""
    if hasattr(obj, camel):
        return getattr(obj, camel)
    return getattr(obj, re.sub(r"(?<!^)([A-Z])", lambda m: "_" + m.group(1).lower(), camel))


def type_arrays(schema, where="inputSchema"):
    """Places in a schema whose `type` is an array (not portable to every LLM front end)."""
    found = []
    if isinstance(schema, dict):
        if isinstance(schema.get("type"), list):
            found.append(where)
        for k, v in schema.items():
            found += type_arrays(v, f"{where}.{k}")
    elif isinstance(schema, list):
        for i, v in enumerate(schema):
            found += type_arrays(v, f"{where}[{i}]")
    return found


@contextlib.asynccontextmanager
async def connect(binary, repo, transport, toolsets):
    env = {"SEXTANT_HOME": os.environ["SEXTANT_HOME"], "SEXTANT_LOG": "warn"}
    extra = ["--toolsets", toolsets] if toolsets else []
    if transport == "stdio":
        params = StdioServerParameters(command=binary, args=["serve", "--repo", repo, *extra], env=env)
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                yield read, write
        return
    server = subprocess.Popen(
        [binary, "serve", "--repo", repo, "--http", "127.0.0.1:0", *extra],
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = None
        for line in server.stderr:
            if "at http://" in line:
                url = line.strip().split("at ", 1)[1]
                break
        assert url, "the server did not print its address"
        # Keep draining stderr so the server never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
        async with http_client(url) as streams:
            yield streams[0], streams[1]
    finally:
        server.terminate()
        server.wait(timeout=10)


async def run(binary, repo, transport, toolsets):
    checks = 0
    analytics = "analytics" in (toolsets or "").split(",") or toolsets == "all"
    expected = TOOLS | (ANALYTICS if analytics else set())
    async with connect(binary, repo, transport, toolsets) as (read, write):
        if True:
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                assert field(init, "serverInfo").name == "sextant", field(init, "serverInfo")
                assert init.capabilities.tools is not None
                assert init.instructions and "sextant index" in init.instructions
                checks += 1

                listed = await session.list_tools()
                tools = {t.name: t for t in listed.tools}
                assert set(tools) == expected, sorted(tools)
                schemas = {}
                for name, tool in tools.items():
                    assert tool.description, name
                    assert field(tool, "inputSchema").get("type") == "object", (name, field(tool, "inputSchema"))
                    assert not type_arrays(field(tool, "inputSchema")), (name, type_arrays(field(tool, "inputSchema")))
                    assert field(tool, "outputSchema") and field(tool, "outputSchema").get("type") == "object", name
                    assert tool.annotations, name
                    assert field(tool.annotations, "readOnlyHint") is (name not in WRITES), name
                    jsonschema.Draft202012Validator.check_schema(field(tool, "outputSchema"))
                    schemas[name] = field(tool, "outputSchema")
                checks += 1

                async def call(name, arguments, progress=None):
                    result = await session.call_tool(name, arguments, progress_callback=progress)
                    assert not field(result, "isError"), (name, result.content)
                    content = field(result, "structuredContent")
                    assert content is not None, name
                    jsonschema.validate(content, schemas[name])
                    # The text mirror carries the same JSON.
                    assert result.content and result.content[0].type == "text", name
                    meta = content["meta"]
                    assert meta["repository"] == repo, meta
                    assert meta["generation"] >= 1 and meta["stale"] is False, meta
                    return content["data"], meta

                data, meta = await call("search", {"query": "UserStore", "kind": ["class"]})
                top = data["results"][0]
                assert top["match"] == "exact", top
                assert top["symbol"]["qualified_name"] == "shop.users.UserStore", top
                assert top["symbol"]["doc"] == "Keeps users.", top
                assert meta["truncated"] is False and meta["limit"] == 20, meta
                checks += 1

                data, meta = await call("search", {"query": "create", "mode": "compact", "limit": 1})
                assert data["count"] == 1 and "signature" not in data["results"][0]["symbol"], data
                assert meta["truncated"] is True and meta["next_cursor"], meta
                page2, _ = await call(
                    "search",
                    {"query": "create", "mode": "compact", "limit": 1, "cursor": meta["next_cursor"]},
                )
                assert page2["results"][0]["symbol"]["id"] != data["results"][0]["symbol"]["id"]
                checks += 1

                card, _ = await call("symbol", {"symbol": top["symbol"]["id"]})
                assert card["symbol"]["qualified_name"] == "shop.users.UserStore", card
                assert card["symbol"]["signature"] == "class UserStore", card
                assert card["members_total"] == 2, card
                assert {m["name"] for m in card["members"]} == {"get_user_by_id", "load"}, card
                checks += 1

                src, _ = await call("source", {"symbol": "UserStore.load"})
                assert "def load" in src["text"], src
                refs, meta = await call("references", {"symbol": "UserStore"})
                assert refs["total"] >= 1 and meta["completeness"]["status"] in (
                    "exact",
                    "lower_bound",
                ), (refs, meta)
                calls, meta = await call("calls", {"symbol": "add", "direction": "in"})
                assert [s["symbol"]["name"] for s in calls["steps"]] == ["twice", "create"], calls
                assert meta["completeness"]["status"] == "exact", meta
                status, _ = await call("status", {})
                assert status["indexed"] is True and status["files"] >= 4, status
                checks += 1

                h, _ = await call("hierarchy", {"symbol": "shop.models.Base"})
                assert [d["symbol"]["name"] for d in h["derived"]] == ["Item"], h
                imp, meta = await call("impact", {"symbol": "create_store", "depth": 2})
                assert imp["summary"]["test_files"] == ["tests/test_users.py"], imp
                assert meta["completeness"]["status"] in ("exact", "lower_bound"), meta
                p, _ = await call("path", {"from": "shop.api.create", "to": "shop.users.create_store"})
                assert p["found"] is True and len(p["hops"]) == 2, p
                o, _ = await call("overview", {"top": 3})
                assert o["files"] >= 6 and len(o["largest_files"]) <= 3, o
                g, _ = await call("grep", {"pattern": "def (save|load)", "mode": "compact"})
                assert {h["symbol"] for h in g["hits"]} >= {"shop.models.Base.save", "shop.users.UserStore.load"}, g
                c, _ = await call("changes", {"files": ["shop/models.py"]})
                assert {s["symbol"]["name"] for s in c["symbols"]} >= {"Base", "Item"}, c
                updates = []

                async def progress(value, total, message):
                    updates.append((value, total, message))

                ix, meta = await call("index", {"full": True}, progress)
                assert ix["files_extracted"] >= 6 and meta["generation"] >= 2, (ix, meta)
                assert updates, "index sent no progress notifications"
                values = [u[0] for u in updates]
                assert values == sorted(values), values
                checks += 1

                if analytics:
                    await check_analytics(session, call)
                    checks += 1

                missing = await session.call_tool("symbol", {"symbol": "get_usr_by_id"})
                assert field(missing, "isError") and field(missing, "structuredContent") is None, missing
                assert "get_user_by_id" in missing.content[0].text, missing.content
                checks += 1
    return checks


async def check_analytics(session, call):
    """Every analytics tool, each answer validated against its output schema by `call`."""
    q, meta = await call(
        "query",
        {
            "query": "MATCH (f:Function)-[:CALLS]->(g:Function) WHERE f.language = $lang "
            "RETURN f.name, g.name ORDER BY f.name",
            "params": {"lang": "rust"},
        },
    )
    assert q["columns"] == ["f.name", "g.name"], q
    assert q["rows"] == [["create", "twice"], ["twice", "add"]], q
    assert meta["truncated"] is False, meta
    q, meta = await call("query", {"query": "MATCH p = (a)-[r]->(b) RETURN p, r, a", "max_output_bytes": 400})
    assert q["output_truncated"]["rows_kept"] == len(q["rows"]) < q["output_truncated"]["rows_total"], q
    assert meta["truncated"] is True and meta["hint"], meta
    bad = await session.call_tool("query", {"query": "MATCH (n:Function RETURN n"})
    assert field(bad, "isError"), bad
    text = bad.content[0].text
    assert "line 1, column" in text and "^" in text and "MATCH clause" in text, text
    s, _ = await call("schema", {})
    assert any(t["name"] == "CALLS" for t in s["relationship_types"]), s
    c, _ = await call("central", {"limit": 5})
    assert c["results"] and c["results"][0]["rank"] == 1, c
    b, _ = await call("bridges", {})
    assert b["exact"] is True, b
    com, _ = await call("communities", {"min_size": 1})
    assert com["count"] >= 1, com
    for level in ("file", "module", "function"):
        cy, _ = await call("cycles", {"level": level})
        assert cy["level"] == level, cy
    ep, _ = await call("entry_points", {})
    assert any(e["node"]["name"] == "test_store" for e in ep["entries"]), ep
    fl, _ = await call("flows", {})
    assert fl["steps"] == [], fl
    tree, _ = await call("flows", {"entry": "shop.api.create", "depth": 3})
    assert [s["node"]["name"] for s in tree["steps"]][:2] == ["create", "handler"], tree
    d, _ = await call("dead_code", {})
    assert isinstance(d["dead"], list) and isinstance(d["unknown"], list), d
    cx, _ = await call("complexity", {"path": "src"})
    assert cx["functions"] >= 4, cx
    a, _ = await call("architecture", {"limit": 5})
    assert a["modules"] >= 1, a


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("--toolsets", default="", help="passed to `sextant serve --toolsets`")
    args = parser.parse_args()
    try:
        passed = asyncio.run(run(os.path.abspath(args.bin), args.repo, args.transport, args.toolsets))
    except Exception as e:  # noqa: BLE001 - report any failure with its trace
        import traceback

        traceback.print_exc()
        print(f"python mcp client: {type(e).__name__}: {e}")
        print("0 passed, 1 failed")
        sys.exit(1)
    print(f"{passed} passed, 0 failed")


if __name__ == "__main__":
    main()
