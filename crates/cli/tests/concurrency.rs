//! Multi-process safety (issue 5; RELIABILITY.md T19–T21): the real `sextant` binary on real git
//! repositories made in temp dirs, each with its own `SEXTANT_HOME`.
//!
//! - one writer re-indexing in a loop while three reader processes query continuously: no reader
//!   ever fails, every answer matches a published state, the final index equals a fresh one;
//! - two indexers at once (racing, and both forced to wait on a held lock);
//! - kill -9 fuzzing across the whole indexing run (seeded, stratified delays): the previous or the
//!   new generation serves, the database checks out, the next index cleans up and is right;
//! - readers running while indexers are killed;
//! - I/O faults: a read-only data directory or data home, an unreadable source file or directory.
//!
//! `SEXTANT_SLOW_TESTS=1` (set by `.ci/run`) runs 50 kill iterations instead of 5 (and 12 kills
//! under readers instead of 3). The permission tests skip when run as root.
//! The database is inspected read-only (rusqlite) only for what no command exposes: generation
//! rows left by killed indexers, orphan file versions and `PRAGMA integrity_check`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

/// Every command gets this long before it counts as hung.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);

/// Words that must never appear on a successful command's stderr (SQLite busy/locked/corruption
/// errors surfacing, panics).
const BAD_WORDS: &[&str] = &[
    "locked",
    "malformed",
    "database",
    "corrupt",
    "panicked",
    "busy",
];

/// A line on stderr for whoever reads the test log (timings, what each kill hit, skips).
macro_rules! note {
    ($($arg:tt)*) => {{
        #[allow(clippy::print_stderr)]
        {
            eprintln!($($arg)*);
        }
    }};
}

fn slow() -> bool {
    std::env::var("SEXTANT_SLOW_TESTS").is_ok_and(|v| v == "1")
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_sextant"))
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

fn write(root: &Path, path: &str, text: &str) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A deterministic pseudo-random generator (splitmix64): every run picks the same delays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

/// One command's outcome.
#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Out {
    /// Why this is not a clean success (exit 0, no error words on stderr), if it is not.
    fn problem(&self) -> Option<String> {
        let lower = self.stderr.to_lowercase();
        let bad = BAD_WORDS.iter().find(|w| lower.contains(*w));
        if self.code == 0 && bad.is_none() {
            return None;
        }
        Some(format!(
            "exit {} (bad word {bad:?})\nstderr: {}\nstdout: {}",
            self.code,
            self.stderr.trim(),
            truncate(&self.stdout, 400)
        ))
    }

    fn json(&self) -> Result<Value, String> {
        serde_json::from_str(&self.stdout)
            .map_err(|e| format!("not JSON ({e}): {}", truncate(&self.stdout, 400)))
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.len() <= n {
        return s.to_string();
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// A repository and its private data home.
struct Env {
    tmp: tempfile::TempDir,
    repo: PathBuf,
    home: PathBuf,
}

impl Env {
    fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&repo).unwrap();
        let repo = repo.canonicalize().unwrap();
        Env { tmp, repo, home }
    }

    /// `sextant ARGS --repo REPO` with this environment's data home (or `home`).
    fn cmd_in(&self, home: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(bin());
        c.args(args)
            .arg("--repo")
            .arg(&self.repo)
            .env("SEXTANT_HOME", home)
            .env_remove("SEXTANT_LOG")
            .stdin(Stdio::null());
        c
    }

    fn cmd(&self, args: &[&str]) -> Command {
        self.cmd_in(&self.home, args)
    }

    fn run_in(&self, home: &Path, args: &[&str]) -> Out {
        run(self.cmd_in(home, args))
    }

    fn run(&self, args: &[&str]) -> Out {
        self.run_in(&self.home, args)
    }

    /// A command that must succeed cleanly, as JSON.
    fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.push("--json");
        let out = self.run(&all);
        if let Some(p) = out.problem() {
            panic!("sextant {args:?}: {p}");
        }
        out.json()
            .unwrap_or_else(|e| panic!("sextant {args:?}: {e}"))
    }

    /// `sextant index REPO --json [extra]` into `home`, which must succeed; the summary.
    fn index_in(&self, home: &Path, extra: &[&str]) -> Value {
        let repo = self.repo.to_str().unwrap();
        let mut args = vec!["index", repo, "--json"];
        args.extend_from_slice(extra);
        let out = self.run_in(home, &args);
        if let Some(p) = out.problem() {
            panic!("sextant {args:?}: {p}");
        }
        out.json()
            .unwrap_or_else(|e| panic!("sextant {args:?}: {e}"))
    }

    fn index(&self, extra: &[&str]) -> Value {
        self.index_in(&self.home, extra)
    }

    /// A fresh full index of the current tree in a new data home: (stats, canonical graph).
    fn fresh_reference(&self, name: &str) -> (Value, Graph) {
        let home = self.tmp.path().join(name);
        self.index_in(&home, &["--full"]);
        let stats = self.stats_in(&home);
        let graph = self.graph_in(&home);
        (stats, graph)
    }

    fn stats_in(&self, home: &Path) -> Value {
        let out = self.run_in(home, &["stats", "--json"]);
        if let Some(p) = out.problem() {
            panic!("sextant stats: {p}");
        }
        out.json().unwrap()
    }

    fn graph_in(&self, home: &Path) -> Graph {
        let out = self.run_in(home, &["export", "--format", "json"]);
        if let Some(p) = out.problem() {
            panic!("sextant export: {p}");
        }
        Graph::from_export(&out.json().unwrap())
    }

    /// The repository's data directory (`status` names it even before the first index).
    fn data_dir(&self) -> PathBuf {
        PathBuf::from(self.json(&["status"])["data_dir"].as_str().unwrap())
    }

    /// Writes `tree` (path → text) under the repository: changed files rewritten, files of the
    /// managed top-level directories that `tree` lacks deleted.
    fn apply(&self, tree: &BTreeMap<String, String>, managed: &[&str]) {
        for (path, text) in tree {
            let p = self.repo.join(path);
            if std::fs::read_to_string(&p).ok().as_deref() != Some(text.as_str()) {
                write(&self.repo, path, text);
            }
        }
        for dir in managed {
            let mut stack = vec![self.repo.join(dir)];
            while let Some(d) = stack.pop() {
                let Ok(entries) = std::fs::read_dir(&d) else {
                    continue;
                };
                for entry in entries {
                    let p = entry.unwrap().path();
                    if p.is_dir() {
                        stack.push(p);
                        continue;
                    }
                    let rel = p
                        .strip_prefix(&self.repo)
                        .unwrap()
                        .to_str()
                        .unwrap()
                        .to_string();
                    if !tree.contains_key(&rel) {
                        std::fs::remove_file(&p).unwrap();
                    }
                }
            }
        }
    }

    fn commit(&self, message: &str) {
        git(&self.repo, &["add", "-A"]);
        git(
            &self.repo,
            &["commit", "-q", "--allow-empty", "-m", message],
        );
    }
}

/// A spawned command whose output is drained on threads (a large answer never blocks it); killed
/// (SIGKILL) on drop, so a failing assertion leaves no process behind.
struct Running {
    child: Option<Child>,
    started: Instant,
    stdout: Option<std::thread::JoinHandle<Vec<u8>>>,
    stderr: Option<std::thread::JoinHandle<Vec<u8>>>,
}

fn drain(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = r.read_to_end(&mut s);
        s
    })
}

impl Running {
    fn spawn(mut cmd: Command) -> Running {
        let started = Instant::now();
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = Some(drain(child.stdout.take().unwrap()));
        let stderr = Some(drain(child.stderr.take().unwrap()));
        Running {
            child: Some(child),
            started,
            stdout,
            stderr,
        }
    }

    /// Whether it has exited on its own.
    fn exited(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| c.try_wait().unwrap().is_some())
    }

    /// SIGKILL (`Child::kill` on Unix) and reap.
    fn kill(mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Waits for the exit (a run longer than `COMMAND_TIMEOUT` is killed and reported as hung).
    fn wait(mut self) -> Out {
        let mut child = self.child.take().unwrap();
        let code = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status.code().unwrap_or(-1);
            }
            if self.started.elapsed() > COMMAND_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                break -2;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let elapsed = self.started.elapsed();
        let text = |h: Option<std::thread::JoinHandle<Vec<u8>>>| {
            String::from_utf8_lossy(&h.unwrap().join().unwrap()).into_owned()
        };
        let stdout = text(self.stdout.take());
        let mut stderr = text(self.stderr.take());
        if code == -2 {
            stderr.push_str(&format!("\n[test: killed after {COMMAND_TIMEOUT:?}: hung]"));
        }
        Out {
            code,
            stdout,
            stderr,
            elapsed,
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Runs a command to completion.
fn run(cmd: Command) -> Out {
    Running::spawn(cmd).wait()
}

/// The graph of an export with node ids replaced by stable ids, so two databases compare.
#[derive(Debug, PartialEq, Eq)]
struct Graph {
    nodes: Vec<String>,
    edges: Vec<String>,
}

impl Graph {
    fn from_export(v: &Value) -> Graph {
        let mut stable: BTreeMap<i64, String> = BTreeMap::new();
        let mut nodes = Vec::new();
        for n in v["nodes"].as_array().unwrap() {
            stable.insert(
                n["id"].as_i64().unwrap(),
                n["stable_id"].as_str().unwrap().to_string(),
            );
            nodes.push(format!(
                "{} {} {} {} {}-{} {}",
                n["stable_id"].as_str().unwrap(),
                n["kind"],
                n["qualified_name"],
                n["path"],
                n["start_line"],
                n["end_line"],
                n["language"]
            ));
        }
        let name = |id: &Value| {
            stable
                .get(&id.as_i64().unwrap())
                .cloned()
                .unwrap_or_else(|| format!("<dangling node {id}>"))
        };
        let mut edges: Vec<String> = v["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                format!(
                    "{} -{}/{}/{}-> {} @ {}",
                    name(&e["src"]),
                    e["kind"],
                    e["provenance"],
                    e["rule"],
                    name(&e["dst"]),
                    e["site"]
                )
            })
            .collect();
        nodes.sort();
        edges.sort();
        Graph { nodes, edges }
    }

    /// The first lines that differ, for a readable failure.
    fn diff(&self, other: &Graph) -> String {
        let mut out = String::new();
        for (what, a, b) in [
            ("nodes", &self.nodes, &other.nodes),
            ("edges", &self.edges, &other.edges),
        ] {
            let a_set: BTreeSet<&String> = a.iter().collect();
            let b_set: BTreeSet<&String> = b.iter().collect();
            let only_a: Vec<_> = a_set.difference(&b_set).take(8).collect();
            let only_b: Vec<_> = b_set.difference(&a_set).take(8).collect();
            out.push_str(&format!(
                "{what}: {} vs {} (multiset sizes); only in incremental: {only_a:#?}; only in fresh: {only_b:#?}\n",
                a.len(),
                b.len()
            ));
        }
        out
    }
}

/// What the database says about generations (read-only; nothing else exposes this).
#[derive(Debug)]
struct DbReport {
    active: i64,
    active_status: String,
    published: i64,
    unpublished: i64,
    orphan_file_versions: i64,
    integrity: String,
}

fn db_report(data_dir: &Path) -> DbReport {
    use rusqlite::{Connection, OpenFlags};
    let db = data_dir.join("index.db");
    let c = Connection::open_with_flags(
        &db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .unwrap_or_else(|e| panic!("open {}: {e}", db.display()));
    c.busy_timeout(Duration::from_secs(30)).unwrap();
    c.execute_batch("BEGIN").unwrap();
    let one = |sql: &str| -> i64 { c.query_row(sql, [], |r| r.get(0)).unwrap() };
    let active: i64 = c
        .query_row(
            "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'active_generation'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let active_status: String = c
        .query_row(
            "SELECT status FROM generations WHERE id = ?1",
            [active],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| format!("<no row: {e}>"));
    let report = DbReport {
        active,
        active_status,
        published: one("SELECT COUNT(*) FROM generations WHERE status = 'published'"),
        unpublished: one("SELECT COUNT(*) FROM generations WHERE status != 'published'"),
        orphan_file_versions: one(
            "SELECT COUNT(*) FROM file_versions WHERE id NOT IN (SELECT file_id FROM gen_files)",
        ),
        integrity: c
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap(),
    };
    c.execute_batch("COMMIT").unwrap();
    report
}

/// Whether this process can read a file it has no permission for (root, CAP_DAC_OVERRIDE):
/// then permission faults cannot be simulated and those tests skip.
fn permissions_are_ignored() -> bool {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("probe");
    std::fs::write(&p, "x").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    let readable = std::fs::File::open(&p).is_ok();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
    readable
}

/// Restores a path's mode on drop (so a failing test still lets the temp dir be removed).
struct ModeGuard(Vec<(PathBuf, u32)>);

impl ModeGuard {
    fn set(paths: &[(&Path, u32)]) -> ModeGuard {
        use std::os::unix::fs::PermissionsExt;
        let mut saved = Vec::new();
        for (p, mode) in paths {
            let old = std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
            saved.push((p.to_path_buf(), old));
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(*mode)).unwrap();
        }
        ModeGuard(saved)
    }
}

impl Drop for ModeGuard {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        for (p, mode) in self.0.iter().rev() {
            let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(*mode));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

const CORE_PY: &str = r#""""The anchor every state has."""


def anchor():
    """Always here."""
    return 42


def anchor_caller():
    return anchor() + 1
"#;

/// A Python module with a class, cross-module calls and some bulk (about 60 lines).
fn py_module(i: usize, n: usize, variant: u32) -> String {
    let j = (i * 7 + 3) % n;
    let k = (i * 13 + 5) % n;
    let mut s = format!(
        r#""""Module {i} (variant {variant})."""
from pkg.m{j} import helper_{j}
from pkg.m{k} import Service{k}


class Service{i}:
    """Service number {i}."""

    def __init__(self):
        self.value = {i}
        self.peer = Service{k}()

    def run_{i}(self, x):
        return helper_{j}(x) + self.value

    def stop(self):
        return self.run_{i}(0)


def helper_{i}(x):
    return x + {i}


def entry_{i}():
    service = Service{i}()
    return service.run_{i}(1)
"#
    );
    for f in 0..6 {
        s.push_str(&format!(
            "\n\ndef step_{i}_{f}(value):\n    total = helper_{i}(value)\n    for n in range({f}):\n        total += n\n    return total\n"
        ));
    }
    if variant == 1 {
        s.push_str(&format!(
            "\n\ndef changed_{i}():\n    return step_{i}_0(2) + helper_{j}(3)\n"
        ));
    }
    s
}

/// A TypeScript module with an interface, a class and imports (about 40 lines).
fn ts_module(i: usize, n: usize, variant: u32) -> String {
    let j = (i * 5 + 1) % n;
    let mut s = format!(
        r#"import {{ Widget{j}, makeWidget{j} }} from "./w{j}";

export interface Shape{i} {{
  area(): number;
}}

export class Widget{i} implements Shape{i} {{
  constructor(private size: number) {{}}

  area(): number {{
    return this.size * {i};
  }}

  grow(other: Widget{j}): number {{
    return this.area() + other.area();
  }}
}}

export function makeWidget{i}(size: number): Widget{i} {{
  return new Widget{i}(size);
}}

export function useWidget{i}(): number {{
  const w = makeWidget{j}(2);
  return w.area() + makeWidget{i}(1).grow(w);
}}
"#
    );
    if variant == 1 {
        s.push_str(&format!(
            "\nexport function changed{i}(): number {{\n  return useWidget{i}() + 1;\n}}\n"
        ));
    }
    s
}

/// The medium tree: `py` Python and `ts` TypeScript modules plus the anchor. Variant 1 changes
/// every 7th module, deletes every 11th and adds a few, so an incremental index of one variant
/// over the other has real work in every phase.
fn medium_tree(py: usize, ts: usize, variant: u32) -> BTreeMap<String, String> {
    let mut tree = BTreeMap::new();
    tree.insert("pkg/__init__.py".to_string(), String::new());
    tree.insert("pkg/core.py".to_string(), CORE_PY.to_string());
    for i in 0..py {
        if variant == 1 && i % 11 == 10 {
            continue;
        }
        let v = if i % 7 == 0 { variant } else { 0 };
        tree.insert(format!("pkg/m{i}.py"), py_module(i, py, v));
    }
    for i in 0..ts {
        if variant == 1 && i % 11 == 10 {
            continue;
        }
        let v = if i % 7 == 0 { variant } else { 0 };
        tree.insert(format!("web/w{i}.ts"), ts_module(i, ts, v));
    }
    if variant == 1 {
        for i in 0..8 {
            tree.insert(
                format!("pkg/extra/x{i}.py"),
                format!(
                    "from pkg.core import anchor\n\n\ndef extra_{i}():\n    return anchor() + {i}\n"
                ),
            );
        }
    }
    tree
}

const MANAGED: &[&str] = &["pkg", "web", "gen"];

/// A committed repository holding the medium tree (variant 0), not indexed.
fn medium_env(py: usize, ts: usize) -> Env {
    let env = Env::new();
    env.apply(&medium_tree(py, ts, 0), MANAGED);
    git(&env.repo, &["init", "-q", "-b", "main"]);
    env.commit("init");
    env
}

/// Whether a search answer has `name` as an exact match.
fn has_exact(v: &Value, name: &str) -> bool {
    v["results"]
        .as_array()
        .is_some_and(|r| r.iter().any(|h| h["name"] == name && h["match"] == "exact"))
}

// ---------------------------------------------------------------------------------------------
// 1. One writer, three readers
// ---------------------------------------------------------------------------------------------

/// A state the writer published: its generation, summary and what queries answered on it.
#[derive(Debug, Clone)]
struct Published {
    generation: i64,
    summary: Value,
    stats: Value,
    callers: BTreeSet<String>,
    refs: u64,
}

/// What a reader saw.
#[derive(Debug)]
enum Seen {
    Status {
        generation: i64,
        files: u64,
        symbols: Value,
        edges: Value,
    },
    Stats(Value),
    Callers(BTreeSet<String>),
    Refs(u64),
    Search,
}

fn caller_names(v: &Value) -> BTreeSet<String> {
    v["results"]
        .as_array()
        .map(|r| {
            r.iter()
                .map(|c| {
                    c["symbol"]["qualified_name"]
                        .as_str()
                        .unwrap_or("?")
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One reader query: what it saw, or why it failed.
fn read_once(env: &Env, which: usize) -> Result<(Seen, Duration), String> {
    let (args, kind): (&[&str], usize) = match which % 5 {
        0 => (&["status", "--json"], 0),
        1 => (&["search", "anchor", "--json"], 1),
        2 => (&["callers", "pkg.core.anchor", "--json"], 2),
        3 => (&["stats", "--json"], 3),
        _ => (&["refs", "pkg.core.anchor", "--json"], 4),
    };
    let out = env.run(args);
    if let Some(p) = out.problem() {
        return Err(format!("sextant {args:?}: {p}"));
    }
    let v = out.json().map_err(|e| format!("sextant {args:?}: {e}"))?;
    let seen = match kind {
        0 => {
            if v["indexed"] != true {
                return Err(format!("status says not indexed: {v}"));
            }
            Seen::Status {
                generation: v["generation"].as_i64().unwrap_or(-1),
                files: v["files"].as_u64().unwrap_or(u64::MAX),
                symbols: v["last_index"]["symbols"].clone(),
                edges: v["last_index"]["edges"].clone(),
            }
        }
        1 => {
            if !has_exact(&v, "anchor") {
                return Err(format!("search anchor: no exact hit: {v}"));
            }
            Seen::Search
        }
        2 => Seen::Callers(caller_names(&v)),
        3 => Seen::Stats(v),
        _ => Seen::Refs(v["count"].as_u64().unwrap_or(u64::MAX)),
    };
    Ok((seen, out.elapsed))
}

/// The writer's rounds: each edits, adds, deletes or renames files (some commit), then indexes.
fn writer_round(env: &Env, round: usize, modules: usize) {
    let r = round;
    if r == 7 {
        return; // a round without any change: the index reuses everything
    }
    write(
        &env.repo,
        &format!("gen/r{r}.py"),
        &format!("from pkg.core import anchor\n\n\ndef round_{r}():\n    return anchor() + {r}\n"),
    );
    if r.is_multiple_of(3) {
        let _ = std::fs::remove_file(env.repo.join(format!("gen/r{}.py", r - 2)));
    }
    if r % 4 == 1 {
        let p = env.repo.join(format!("pkg/m{}.py", r % modules));
        if let Ok(mut text) = std::fs::read_to_string(&p) {
            text.push_str(&format!(
                "\n\ndef edited_{r}():\n    return anchor_free_{r}()\n\n\ndef anchor_free_{r}():\n    return {r}\n"
            ));
            std::fs::write(&p, text).unwrap();
        }
    }
    if r.is_multiple_of(5) {
        let from = env.repo.join(format!("pkg/m{r}.py"));
        if from.exists() {
            std::fs::rename(&from, env.repo.join(format!("pkg/moved_{r}.py"))).unwrap();
        }
    }
    if r.is_multiple_of(2) {
        env.commit(&format!("round {r}"));
    }
}

fn record_published(env: &Env, summary: Value) -> Published {
    Published {
        generation: summary["generation"].as_i64().unwrap(),
        stats: env.json(&["stats"]),
        callers: caller_names(&env.json(&["callers", "pkg.core.anchor"])),
        refs: env.json(&["refs", "pkg.core.anchor"])["count"]
            .as_u64()
            .unwrap(),
        summary,
    }
}

/// Checks one reader observation against the states the writer published.
fn check_seen(seen: &Seen, states: &[Published]) -> Result<(), String> {
    match seen {
        Seen::Status {
            generation,
            files,
            symbols,
            edges,
        } => {
            let Some(s) = states.iter().find(|s| s.generation == *generation) else {
                return Err(format!(
                    "status reports generation {generation}, which the writer never published"
                ));
            };
            if *symbols != s.summary["symbols"]
                || *edges != s.summary["edges"]
                || Some(*files) != s.summary["files"]["indexed"].as_u64()
            {
                return Err(format!(
                    "status of generation {generation} (files {files}, symbols {symbols}, edges {edges}) \
                     differs from what that generation published: {}",
                    s.summary
                ));
            }
        }
        Seen::Stats(v) => {
            if !states.iter().any(|s| s.stats == *v) {
                return Err(format!("stats match no published state: {v}"));
            }
        }
        Seen::Callers(names) => {
            if !states.iter().any(|s| s.callers == *names) {
                return Err(format!(
                    "callers of anchor match no published state: {names:?}"
                ));
            }
        }
        Seen::Refs(n) => {
            if !states.iter().any(|s| s.refs == *n) {
                return Err(format!("refs count {n} matches no published state"));
            }
        }
        Seen::Search => {}
    }
    Ok(())
}

#[test]
fn readers_never_fail_while_a_writer_reindexes() {
    const MODULES: usize = 40;
    const ROUNDS: usize = 15;
    const READERS: usize = 3;
    let env = medium_env(MODULES, 10);
    let mut states = vec![record_published(&env, env.index(&[]))];

    let stop = Arc::new(AtomicBool::new(false));
    let failures: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen: Arc<Mutex<Vec<(usize, Seen)>>> = Arc::default();
    let slowest: Arc<Mutex<Duration>> = Arc::default();
    let env = Arc::new(env);
    let readers: Vec<_> = (0..READERS)
        .map(|reader| {
            let (env, stop, failures, seen, slowest) = (
                env.clone(),
                stop.clone(),
                failures.clone(),
                seen.clone(),
                slowest.clone(),
            );
            std::thread::spawn(move || {
                let mut which = reader;
                while !stop.load(Ordering::Relaxed) {
                    match read_once(&env, which) {
                        Ok((s, took)) => {
                            seen.lock().unwrap().push((reader, s));
                            let mut max = slowest.lock().unwrap();
                            *max = (*max).max(took);
                        }
                        Err(e) => failures
                            .lock()
                            .unwrap()
                            .push(format!("reader {reader}: {e}")),
                    }
                    which += 1;
                }
            })
        })
        .collect();

    let started = Instant::now();
    for round in 1..=ROUNDS {
        writer_round(&env, round, MODULES);
        let extra: &[&str] = if round % 5 == 3 { &["--full"] } else { &[] };
        let summary = env.index(extra);
        states.push(record_published(&env, summary));
    }
    let writer_time = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.join().unwrap();
    }

    let failures = failures.lock().unwrap();
    let seen = seen.lock().unwrap();
    let mut inconsistent: Vec<String> = seen
        .iter()
        .filter_map(|(reader, s)| {
            check_seen(s, &states)
                .err()
                .map(|e| format!("reader {reader}: {e}"))
        })
        .collect();
    inconsistent.truncate(20);
    let generations_seen: BTreeSet<i64> = seen
        .iter()
        .filter_map(|(_, s)| match s {
            Seen::Status { generation, .. } => Some(*generation),
            _ => None,
        })
        .collect();
    note!(
        "writer: {ROUNDS} rounds in {writer_time:.1?}; readers: {} answers, {} generations seen by status, slowest {:.0?}",
        seen.len(),
        generations_seen.len(),
        *slowest.lock().unwrap()
    );
    assert!(
        failures.is_empty(),
        "{} reader failures, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
    assert!(
        inconsistent.is_empty(),
        "reader answers matching no published state: {inconsistent:#?}"
    );
    for reader in 0..READERS {
        let n = seen.iter().filter(|(r, _)| *r == reader).count();
        assert!(n >= 10, "reader {reader} answered only {n} times");
    }
    assert!(
        generations_seen.len() >= 3,
        "readers saw too few generations to have overlapped the writer: {generations_seen:?}"
    );
    // Readers never wait for the writer (generous for a loaded debug build on 2 cores).
    assert!(*slowest.lock().unwrap() < Duration::from_secs(10));

    // The final index equals a fresh full index of the final tree.
    let (fresh_stats, fresh_graph) = env.fresh_reference("fresh-home");
    let last = states.last().unwrap();
    assert_eq!(
        last.stats, fresh_stats,
        "incremental stats differ from a fresh index"
    );
    let graph = env.graph_in(&env.home);
    assert!(
        graph == fresh_graph,
        "incremental graph differs from a fresh index:\n{}",
        graph.diff(&fresh_graph)
    );
    let report = db_report(&env.data_dir());
    assert_eq!(report.integrity, "ok");
    assert_eq!(report.unpublished, 0, "{report:?}");
    assert_eq!(report.orphan_file_versions, 0, "{report:?}");
}

// ---------------------------------------------------------------------------------------------
// 2. Two indexers at once
// ---------------------------------------------------------------------------------------------

fn spawn_index(env: &Env, extra: &[&str]) -> Running {
    let repo = env.repo.to_str().unwrap();
    let mut args = vec!["index", repo, "--json"];
    args.extend_from_slice(extra);
    Running::spawn(env.cmd(&args))
}

/// Waits for a spawned indexer: its summary, or the failure.
fn finish(child: Running) -> Result<Value, String> {
    let out = child.wait();
    if let Some(p) = out.problem() {
        return Err(p);
    }
    out.json()
}

/// How many processes wait for a lock on the file with this inode (Linux `/proc/locks`, where
/// blocked waiters are listed with `->`); `None` where `/proc/locks` does not exist.
fn lock_waiters(inode: u64) -> Option<usize> {
    let text = std::fs::read_to_string("/proc/locks").ok()?;
    let suffix = format!(":{inode}");
    Some(
        text.lines()
            .filter(|l| l.contains("->"))
            .filter(|l| l.split_whitespace().any(|w| w.ends_with(&suffix)))
            .count(),
    )
}

#[test]
fn two_indexers_at_once_both_succeed_and_agree_with_a_fresh_index() {
    let env = medium_env(120, 40);

    // A plain race on a repository never indexed.
    let a = spawn_index(&env, &[]);
    let b = spawn_index(&env, &[]);
    let (ra, rb) = (finish(a), finish(b));
    let (sa, sb) = (ra.unwrap(), rb.unwrap());
    assert_ne!(sa["generation"], sb["generation"]);
    assert_eq!(sa["symbols"], sb["symbols"]);
    assert_eq!(sa["edges"], sb["edges"]);
    let data = env.data_dir();
    let report = db_report(&data);
    assert_eq!(
        report.active,
        sa["generation"]
            .as_i64()
            .unwrap()
            .max(sb["generation"].as_i64().unwrap())
    );
    assert_eq!(report.unpublished, 0, "{report:?}");

    // Forced contention: while this test holds the index lock, both indexers must wait (and
    // readers keep answering from the published generation); released, both finish.
    env.apply(&medium_tree(120, 40, 1), MANAGED);
    let before = env.json(&["status"]);
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .open(data.join("index.lock"))
        .unwrap();
    lock.lock().unwrap();
    let inode = {
        use std::os::unix::fs::MetadataExt;
        lock.metadata().unwrap().ino()
    };
    let a = spawn_index(&env, &[]);
    let b = spawn_index(&env, &["--full"]);
    let deadline = Instant::now() + Duration::from_secs(60);
    match lock_waiters(inode) {
        Some(_) => loop {
            let waiting = lock_waiters(inode).unwrap_or(0);
            if waiting >= 2 {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the indexers never waited for the lock ({waiting} waiting)"
            );
            std::thread::sleep(Duration::from_millis(10));
        },
        None => note!("no /proc/locks: not checking that both indexers wait"),
    }
    // Readers are not blocked by the waiting writers.
    let during = env.json(&["status"]);
    assert_eq!(during["generation"], before["generation"]);
    assert!(has_exact(&env.json(&["search", "anchor"]), "anchor"));
    drop(lock);
    let (ra, rb) = (finish(a), finish(b));
    let (sa, sb) = (ra.unwrap(), rb.unwrap());
    assert_eq!(sa["symbols"], sb["symbols"]);
    assert_eq!(sa["edges"], sb["edges"]);
    let (fresh_stats, fresh_graph) = env.fresh_reference("fresh-home");
    assert_eq!(env.stats_in(&env.home), fresh_stats);
    assert!(env.graph_in(&env.home) == fresh_graph);
    let report = db_report(&data);
    assert_eq!(report.unpublished, 0, "{report:?}");
    assert_eq!(report.orphan_file_versions, 0, "{report:?}");
    assert_eq!(report.integrity, "ok");
}

// ---------------------------------------------------------------------------------------------
// 3. + 4. kill -9 fuzzing, with and without readers
// ---------------------------------------------------------------------------------------------

/// A medium repository indexed in both variants, with the reference answers of each and how
/// long a full and an incremental run take.
struct KillBench {
    env: Env,
    py: usize,
    ts: usize,
    /// Stats of a clean index of variant 0 and 1.
    reference: [Value; 2],
    /// Symbols of variant 0 and 1 (they differ).
    symbols: [u64; 2],
    full: Duration,
    incremental: Duration,
}

impl KillBench {
    fn new(py: usize, ts: usize) -> KillBench {
        let env = medium_env(py, ts);
        // Variant 0, first index; then variant 1 clean in another home.
        let s0 = env.index(&[]);
        let ref0 = env.stats_in(&env.home);
        env.apply(&medium_tree(py, ts, 1), MANAGED);
        let (ref1, _) = env.fresh_reference("reference-1");
        // Timings in the main home: full over variant 0 → 1, incremental back to 0.
        let t = Instant::now();
        env.index(&["--full"]);
        let full = t.elapsed();
        assert_eq!(
            env.stats_in(&env.home),
            ref1,
            "re-index differs from a clean index"
        );
        env.apply(&medium_tree(py, ts, 0), MANAGED);
        let t = Instant::now();
        let s_back = env.index(&[]);
        let incremental = t.elapsed();
        assert_eq!(
            env.stats_in(&env.home),
            ref0,
            "incremental differs from a clean index"
        );
        assert_eq!(s_back["symbols"], s0["symbols"]);
        let symbols = [
            s0["symbols"].as_u64().unwrap(),
            ref1["nodes"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| *k != "file")
                .map(|(_, v)| v.as_u64().unwrap())
                .sum(),
        ];
        assert_ne!(symbols[0], symbols[1]);
        note!(
            "kill bench: {py} py + {ts} ts files, {} / {} symbols; full index {full:.2?}, incremental {incremental:.2?}",
            symbols[0],
            symbols[1]
        );
        KillBench {
            env,
            py,
            ts,
            reference: [ref0, ref1],
            symbols,
            full,
            incremental,
        }
    }

    /// Kill iterations; variant 0 is published on entry. Returns how many kills left the
    /// previous generation serving and how many landed after the publish.
    fn fuzz(&self, iterations: usize, seed: u64) -> (usize, usize) {
        let env = &self.env;
        let mut rng = Rng(seed);
        // Stratified delays: iteration i's delay falls in the i-th slice of [0, 1) of the run,
        // in shuffled order, so every phase of the run gets killed, whatever the count.
        let mut slices: Vec<usize> = (0..iterations).collect();
        rng.shuffle(&mut slices);
        let data = env.data_dir();
        let (mut before, mut after) = (0, 0);
        // How long a complete run takes, per mode (incremental, full): the mean of the last three
        // runs that did the same work as a killed one, so the spread follows the machine's load.
        let mut samples: [Vec<Duration>; 2] = [vec![self.incremental], vec![self.full]];
        let estimate = |v: &[Duration]| {
            let last = &v[v.len().saturating_sub(3)..];
            last.iter().sum::<Duration>() / last.len() as u32
        };
        for (i, slice) in slices.into_iter().enumerate() {
            let previous = (i % 2) as u32;
            let target = 1 - previous;
            env.apply(&medium_tree(self.py, self.ts, target), MANAGED);
            let full = rng.next().is_multiple_of(2);
            let expected = estimate(&samples[usize::from(full)]);
            let fraction = (slice as f64 + rng.unit()) / iterations as f64;
            let delay = expected.mul_f64(fraction);
            let extra: &[&str] = if full { &["--full"] } else { &[] };
            let mut child = spawn_index(env, extra);
            std::thread::sleep(delay);
            let exited_first = child.exited();
            child.kill();
            let context = format!(
                "iteration {i} (seed {seed}): {} index {previous}→{target} killed after {delay:.0?} ({:.0}% of {expected:.0?}){}",
                if full { "full" } else { "incremental" },
                fraction * 100.0,
                if exited_first {
                    ", had already exited"
                } else {
                    ""
                }
            );

            // The previous generation serves, or the new one if the publish completed.
            let stats = env.run(&["stats", "--json"]);
            if let Some(p) = stats.problem() {
                panic!("{context}: stats after the kill failed: {p}");
            }
            let stats = stats.json().unwrap();
            let serving = if stats == self.reference[previous as usize] {
                before += 1;
                previous
            } else if stats == self.reference[target as usize] {
                after += 1;
                target
            } else {
                panic!("{context}: stats match neither the previous nor the new state: {stats}");
            };
            note!(
                "{context}: {} serves",
                if serving == previous {
                    "the previous generation"
                } else {
                    "the new generation"
                }
            );
            let status = env.run(&["status", "--json"]);
            if let Some(p) = status.problem() {
                panic!("{context}: status after the kill failed: {p}");
            }
            let status = status.json().unwrap();
            assert_eq!(status["indexed"], true, "{context}: {status}");
            assert_eq!(
                status["last_index"]["symbols"].as_u64(),
                Some(self.symbols[serving as usize]),
                "{context}: status's summary is not the serving generation's: {status}"
            );
            let search = env.run(&["search", "anchor", "--json"]);
            if let Some(p) = search.problem() {
                panic!("{context}: search after the kill failed: {p}");
            }
            assert!(has_exact(&search.json().unwrap(), "anchor"), "{context}");
            let report = db_report(&data);
            assert_eq!(report.integrity, "ok", "{context}: {report:?}");
            assert_eq!(
                report.active_status, "published",
                "{context}: the active generation is not a published one: {report:?}"
            );
            assert!(report.unpublished <= 1, "{context}: {report:?}");

            // The next index (incremental or full) succeeds, equals a clean index, and cleans up.
            let recover_full = rng.next().is_multiple_of(2);
            let mut args = vec!["index", env.repo.to_str().unwrap(), "--json"];
            if recover_full {
                args.push("--full");
            }
            let out = env.run(&args);
            if let Some(p) = out.problem() {
                panic!("{context}: the next index ({args:?}) failed: {p}");
            }
            if serving == previous {
                // It redid the killed run's work: a timing sample.
                samples[usize::from(recover_full)].push(out.elapsed);
            }
            let stats = env.stats_in(&env.home);
            assert!(
                stats == self.reference[target as usize],
                "{context}: the next index differs from a clean index:\n{stats}\nvs\n{}",
                self.reference[target as usize]
            );
            let report = db_report(&data);
            assert_eq!(report.integrity, "ok", "{context}: {report:?}");
            assert_eq!(
                report.unpublished, 0,
                "{context}: unpublished generations left: {report:?}"
            );
            // The active and previous generations, plus one baseline per recent clean commit
            // (five at most, BASELINE_COMMITS in sextant-store).
            assert!(report.published <= 2 + 5, "{context}: {report:?}");
            assert_eq!(report.orphan_file_versions, 0, "{context}: {report:?}");
        }
        (before, after)
    }
}

#[test]
fn kill_9_fuzz_leaves_a_published_generation_and_recovers() {
    let iterations = if slow() { 50 } else { 5 };
    let bench = KillBench::new(220, 80);
    let started = Instant::now();
    let (before, after) = bench.fuzz(iterations, 0x005e_7a17);
    note!(
        "kill fuzz: {iterations} iterations in {:.1?}: {before} kills before the publish, {after} after",
        started.elapsed()
    );
    // The delays span the run, so some kills must land before the publish.
    assert!(before >= 1, "no kill landed before the publish");
}

/// A first index (an empty database, loaded without a write-ahead log; see the store's
/// `unjournaled.rs`) killed at any moment: the next command sees nothing indexed or the complete
/// index, never an error, and the next index equals a clean one and leaves no marker behind.
#[test]
fn a_killed_first_index_leaves_nothing_or_everything() {
    let iterations = if slow() { 12 } else { 4 };
    let env = medium_env(220, 80);
    let (reference, _) = env.fresh_reference("reference");
    let t = Instant::now();
    env.index_in(&env.tmp.path().join("timing"), &[]);
    let full = t.elapsed();
    let data = env.data_dir();
    let marker = data.join("index.db-building");
    let mut rng = Rng(0x0f17_57ed);
    let (mut nothing, mut everything, mut interrupted_loads) = (0, 0, 0);
    for i in 0..iterations {
        let _ = std::fs::remove_dir_all(&env.home);
        let delay = full.mul_f64((i as f64 + rng.unit()) / iterations as f64);
        let child = spawn_index(&env, &[]);
        std::thread::sleep(delay);
        child.kill();
        let context = format!("iteration {i}: first index killed after {delay:.0?} of {full:.0?}");
        interrupted_loads += usize::from(marker.exists());
        let status = env.run(&["status", "--json"]);
        if let Some(p) = status.problem() {
            panic!("{context}: status after the kill failed: {p}");
        }
        if status.json().unwrap()["indexed"] == true {
            everything += 1;
            assert_eq!(env.stats_in(&env.home), reference, "{context}");
        } else {
            nothing += 1;
        }
        assert!(
            !marker.exists(),
            "{context}: the marker outlived the next open"
        );
        env.index(&[]);
        assert_eq!(
            env.stats_in(&env.home),
            reference,
            "{context}: the next index differs from a clean one"
        );
        let report = db_report(&data);
        assert_eq!(report.integrity, "ok", "{context}: {report:?}");
    }
    note!(
        "killed first index: {iterations} kills, {interrupted_loads} during the load, {nothing} left nothing, {everything} everything"
    );
    assert!(interrupted_loads >= 1, "no kill landed during the load");
}

#[test]
fn readers_see_no_errors_while_indexers_are_killed() {
    let iterations = if slow() { 12 } else { 3 };
    let bench = Arc::new(KillBench::new(160, 60));
    let stop = Arc::new(AtomicBool::new(false));
    let failures: Arc<Mutex<Vec<String>>> = Arc::default();
    let answers = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let readers: Vec<_> = (0..2)
        .map(|reader| {
            let (bench, stop, failures, answers) = (
                bench.clone(),
                stop.clone(),
                failures.clone(),
                answers.clone(),
            );
            std::thread::spawn(move || {
                let env = &bench.env;
                let mut which = reader;
                while !stop.load(Ordering::Relaxed) {
                    let args: &[&str] = match which % 3 {
                        0 => &["status", "--json"],
                        1 => &["search", "anchor", "--json"],
                        _ => &["stats", "--json"],
                    };
                    which += 1;
                    let out = env.run(args);
                    let verdict = out.problem().map(|p| format!("{args:?}: {p}")).or_else(|| {
                        let v = out.json().ok()?;
                        match args[0] {
                            "status" => {
                                let symbols = v["last_index"]["symbols"].as_u64();
                                (v["indexed"] != true
                                    || !bench.symbols.iter().any(|s| Some(*s) == symbols))
                                .then(|| format!("status matches no published state: {v}"))
                            }
                            "search" => (!has_exact(&v, "anchor"))
                                .then(|| format!("search lost anchor: {v}")),
                            _ => (!bench.reference.contains(&v))
                                .then(|| format!("stats match no published state: {v}")),
                        }
                    });
                    match verdict {
                        Some(e) => failures
                            .lock()
                            .unwrap()
                            .push(format!("reader {reader}: {e}")),
                        None => {
                            answers.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            })
        })
        .collect();
    let before_kills = answers.load(Ordering::Relaxed);
    let (before, after) = bench.fuzz(iterations, 0xdead_beef);
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.join().unwrap();
    }
    let failures = failures.lock().unwrap();
    let total = answers.load(Ordering::Relaxed);
    note!(
        "readers during kills: {total} answers ({} during the kill loop), {before} kills before the publish, {after} after",
        total - before_kills
    );
    assert!(
        failures.is_empty(),
        "{} reader failures, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
    assert!(total - before_kills >= 10, "readers barely ran: {total}");
}

// ---------------------------------------------------------------------------------------------
// 5. I/O faults
// ---------------------------------------------------------------------------------------------

fn small_env() -> Env {
    let env = Env::new();
    write(&env.repo, "pkg/__init__.py", "");
    write(&env.repo, "pkg/core.py", CORE_PY);
    write(
        &env.repo,
        "pkg/app.py",
        "from pkg.core import anchor\n\n\ndef main():\n    return anchor()\n",
    );
    git(&env.repo, &["init", "-q", "-b", "main"]);
    env.commit("init");
    env
}

/// A failure that says what went wrong: non-zero (not a panic), naming the cause or the path.
fn assert_clear_failure(out: &Out, path: &Path, what: &str) {
    assert!(
        out.code != 0 && out.code != 101 && out.code != -1,
        "{what}: expected a clean non-zero exit, got {out:?}"
    );
    let lower = out.stderr.to_lowercase();
    assert!(!lower.contains("panicked"), "{what}: {out:?}");
    let names_cause = [
        "permission denied",
        "read-only",
        "readonly",
        "unable to open",
        "cannot",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let names_path = out.stderr.contains(path.to_str().unwrap());
    assert!(
        names_cause && names_path,
        "{what}: the message should name the cause and {}: {:?}",
        path.display(),
        out.stderr
    );
}

/// Sets every entry of `dir` (but those named in `except`) to `file_mode` and `dir` to 0o555.
fn read_only(dir: &Path, file_mode: u32, except: &[&str]) -> ModeGuard {
    let mut modes: Vec<(PathBuf, u32)> = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if !except
            .iter()
            .any(|e| p.file_name().is_some_and(|n| n == *e))
        {
            modes.push((p, file_mode));
        }
    }
    modes.push((dir.to_path_buf(), 0o555));
    let refs: Vec<(&Path, u32)> = modes.iter().map(|(p, m)| (p.as_path(), *m)).collect();
    ModeGuard::set(&refs)
}

fn wal_files_exist(data: &Path) -> bool {
    data.join("index.db-wal").exists() || data.join("index.db-shm").exists()
}

#[test]
fn read_only_data_directory_fails_clearly_and_keeps_the_previous_generation() {
    if permissions_are_ignored() {
        note!("skipped: this process ignores file permissions (root)");
        return;
    }
    let env = small_env();
    let data = env.data_dir(); // before the first index, so no reader has left WAL files behind
    let first = env.index(&[]);
    write(
        &env.repo,
        "pkg/later.py",
        "def added_later():\n    return 1\n",
    );
    let repo = env.repo.to_str().unwrap().to_string();
    let previous_serves = |case: &str| {
        let status = env.json(&["status"]);
        assert_eq!(
            status["generation"], first["generation"],
            "{case}: {status}"
        );
        assert!(
            has_exact(&env.json(&["search", "anchor"]), "anchor"),
            "{case}"
        );
        assert!(
            !has_exact(&env.json(&["search", "added_later"]), "added_later"),
            "{case}"
        );
        let report = db_report(&data);
        assert_eq!(report.integrity, "ok", "{case}: {report:?}");
        assert_eq!(report.unpublished, 0, "{case}: {report:?}");
    };

    // (a) Everything read-only (as on a read-only file system), right after an index: the
    // writer's close removed the WAL files.
    assert!(!wal_files_exist(&data), "the indexer left WAL files behind");
    let guard = read_only(&data, 0o444, &[]);
    let out = env.run(&["index", &repo]);
    assert_clear_failure(&out, &data, "read-only data directory");
    let status = env.run(&["status", "--json"]);
    assert_ne!(status.code, 101, "{status:?}");
    // RELIABILITY.md T20 "read tools keep working on the old generation": with no -wal/-shm
    // files to reuse, the store opens the database immutable (nothing can write there either).
    // Checked at the end, so the other cases still run.
    let read_failure = status
        .problem()
        .map(|p| format!("reads fail on a read-only data directory without WAL files: {p}"));
    drop(guard);
    previous_serves("(a) restored");

    // (b) Everything read-only, after a reader left the -wal/-shm files: reads must work.
    assert!(
        wal_files_exist(&data),
        "a reader should have left the WAL files"
    );
    let guard = read_only(&data, 0o444, &[]);
    let out = env.run(&["index", &repo]);
    assert_clear_failure(&out, &data, "read-only data directory with WAL files");
    let status = env.json(&["status"]);
    assert_eq!(status["generation"], first["generation"], "{status}");
    assert!(has_exact(&env.json(&["search", "anchor"]), "anchor"));
    drop(guard);
    previous_serves("(b) restored");

    // (c) The lock file writable, the database read-only: SQLite refuses, naming the database.
    let guard = read_only(&data, 0o444, &["index.lock"]);
    let out = env.run(&["index", &repo]);
    assert_clear_failure(&out, &data, "read-only database");
    drop(guard);
    previous_serves("(c) restored");

    // And the next index works.
    env.index(&[]);
    assert!(has_exact(
        &env.json(&["search", "added_later"]),
        "added_later"
    ));
    let report = db_report(&data);
    assert_eq!(report.unpublished, 0, "{report:?}");

    // (d) A read-only data home, never indexed: the data directory cannot be created.
    let other = small_env();
    std::fs::create_dir_all(&other.home).unwrap();
    let guard = ModeGuard::set(&[(other.home.as_path(), 0o555)]);
    let out = other.run(&["index", other.repo.to_str().unwrap()]);
    assert_clear_failure(&out, &other.home, "read-only data home");
    drop(guard);
    other.index(&[]);
    assert!(has_exact(&other.json(&["search", "anchor"]), "anchor"));

    // See (a) above.
    assert!(
        read_failure.is_none(),
        "{}",
        read_failure.unwrap_or_default()
    );
}

#[test]
fn unreadable_source_file_is_skipped_with_a_reason() {
    if permissions_are_ignored() {
        note!("skipped: this process ignores file permissions (root)");
        return;
    }
    let env = small_env();
    write(
        &env.repo,
        "pkg/private.py",
        "def hidden_function():\n    return 1\n",
    );
    write(
        &env.repo,
        "pkg/closed/inner.py",
        "def inside_closed_dir():\n    return 2\n",
    );
    env.commit("more");
    let file = env.repo.join("pkg/private.py");
    let dir = env.repo.join("pkg/closed");
    let guard = ModeGuard::set(&[(file.as_path(), 0o000), (dir.as_path(), 0o000)]);
    let out = env.run(&["index", env.repo.to_str().unwrap(), "--json"]);
    if let Some(p) = out.problem() {
        panic!("index with an unreadable file: {p}");
    }
    let summary = out.json().unwrap();
    assert!(
        summary["files"]["skipped"]["unreadable"].as_u64() >= Some(1),
        "{summary:#}"
    );
    let status = env.json(&["status"]);
    let skipped = status["skipped_files"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|s| s["path"] == "pkg/private.py" && s["reason"] == "unreadable"),
        "{status:#}"
    );
    // RELIABILITY.md T20 "a permission-denied subdirectory": the unreadable directory is
    // skipped with a reason (`unreadable`). Checked at the end, so the rest still runs.
    let dir_recorded = skipped.iter().any(|s| {
        s["path"]
            .as_str()
            .is_some_and(|p| p.starts_with("pkg/closed"))
    }) || out.stderr.contains("pkg/closed");
    let missing = (!dir_recorded).then(|| {
        format!(
            "the unreadable directory pkg/closed is neither skipped with a reason nor \
             reported: skipped_files {skipped:?}, stderr {:?}",
            out.stderr
        )
    });
    assert!(has_exact(&env.json(&["search", "anchor"]), "anchor"));
    assert!(!has_exact(
        &env.json(&["search", "hidden_function"]),
        "hidden_function"
    ));
    drop(guard);
    env.index(&[]);
    assert!(has_exact(
        &env.json(&["search", "hidden_function"]),
        "hidden_function"
    ));
    assert!(has_exact(
        &env.json(&["search", "inside_closed_dir"]),
        "inside_closed_dir"
    ));
    assert_eq!(env.json(&["status"])["skipped"]["unreadable"], Value::Null);

    // See above.
    assert!(missing.is_none(), "{}", missing.unwrap_or_default());
}
