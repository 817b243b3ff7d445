#!/usr/bin/env python3
# usage: ab_run.py BIN CORPUS (see bench/ab.sh) -> prints json {wall (process), index_wall (sextant's own
# wall_seconds, what MB/s is computed from), cpu, rss, phases, refs}
import json, os, resource, shutil, subprocess, sys, tempfile, time
bin_, corpus = sys.argv[1], sys.argv[2]
home = tempfile.mkdtemp(prefix="sextant-ab-")
env = dict(os.environ, SEXTANT_HOME=home)
t = time.time()
p = subprocess.run([bin_, "index", "--json", "--full", corpus], env=env, capture_output=True, text=True)
wall = time.time() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
if p.returncode != 0:
    print(p.stderr, file=sys.stderr); sys.exit(1)
s = json.loads(p.stdout)
db = s.get("db_bytes")
shutil.rmtree(home, ignore_errors=True)
print(json.dumps({"wall": round(wall,3), "index_wall": round(s.get("wall_seconds") or 0, 3), "bytes": s.get("bytes"), "cpu": round(ru.ru_utime+ru.ru_stime,3), "user": round(ru.ru_utime,3), "sys": round(ru.ru_stime,3), "rss_mb": ru.ru_maxrss//1024, "refs": s.get("references"), "symbols": s.get("symbols"), "db": db, "phases": {k: round(v,3) for k, v in (s.get("phases") or [])} if isinstance(s.get("phases"), list) else s.get("phases")}))
