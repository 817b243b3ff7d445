#!/usr/bin/env python3
"""Latency of `workspace_refresh` of one edited file through a running `sextant serve` (stdio,
warm process: language queries compiled, database open), issue 5.

    python3 bench/workspace_refresh_mcp.py SEXTANT_BINARY CORPUS_DIR FILE [RUNS]

Copies CORPUS_DIR into a temporary git repository (one commit), indexes it into a private
SEXTANT_HOME, starts `sextant serve --no-watch --toolsets core,workspace`, creates a workspace,
then RUNS times (default 9) appends a function to FILE and times the `workspace_refresh` call
with `file_paths = [FILE]` (round trip), and a `search` for the new name in the workspace.
Prints each run and the medians. Nothing outside the temporary directory is touched.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main() -> None:
    binary, corpus, path = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 9
    tmp = tempfile.mkdtemp()
    try:
        repo = os.path.join(tmp, "repo")
        shutil.copytree(corpus, repo, symlinks=True)
        env = dict(os.environ, SEXTANT_HOME=os.path.join(tmp, "home"), GIT_CONFIG_GLOBAL="/dev/null")
        git = ["git", "-c", "user.name=b", "-c", "user.email=b@example.com"]
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True, env=env)
        subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
        subprocess.run(git + ["commit", "-qm", "corpus"], cwd=repo, check=True, env=env)
        summary = json.loads(subprocess.run([binary, "index", "--json", repo], env=env, check=True,
                                            capture_output=True, text=True).stdout)
        server = subprocess.Popen([binary, "serve", "--no-watch", "--toolsets", "core,workspace",
                                   "--repo", repo], env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ids = iter(range(1, 1 << 30))

        def request(method, params):
            rid = next(ids)
            server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                                           "params": params}) + "\n")
            server.stdin.flush()
            while True:
                msg = json.loads(server.stdout.readline())
                if msg.get("id") == rid:
                    return msg

        def call(tool, arguments):
            r = request("tools/call", {"name": tool, "arguments": arguments})["result"]
            if r.get("isError"):
                raise SystemExit(f"{tool}: {r['content'][0]['text']}")
            return r["structuredContent"]

        request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "bench", "version": "1"}})
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        server.stdin.flush()
        call("workspace_create", {"workspace": "w"})
        refresh, search = [], []
        for i in range(1, runs + 1):
            with open(os.path.join(repo, path), "a") as f:
                if path.endswith(".py"):
                    f.write(f"\n\ndef bench_added_{i}():\n    return {i}\n")
                else:
                    f.write(f"\npub fn bench_added_{i}() -> u32 {{\n    {i}\n}}\n")
            t = time.perf_counter()
            out = call("workspace_refresh", {"workspace": "w", "file_paths": [path]})["data"]
            refresh.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            hits = call("search", {"query": f"bench_added_{i}", "workspace": "w"})["data"]
            search.append((time.perf_counter() - t) * 1000)
            assert hits["count"] >= 1, hits
            print(f"run {i}: refresh {refresh[-1]:.0f} ms (revision {out['new_revision']}, "
                  f"{out['files_reindexed']} file, {out['symbols_updated']} symbols), "
                  f"search in the workspace {search[-1]:.1f} ms")
        server.stdin.close()
        server.wait(timeout=10)
        print(f"{os.path.basename(corpus)}: {summary['files']['indexed']} files; workspace_refresh of "
              f"one edited file over MCP: median {statistics.median(refresh):.0f} ms, "
              f"then search: median {statistics.median(search):.1f} ms ({runs} runs)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
