//! The live index's invariant: after any sequence of edits, additions, deletions, renames,
//! package changes, commits and branch switches in a real git repository, the incrementally
//! updated index equals a full index of the final tree (every edge with its provenance, rule and
//! site, every unresolved reference). Seeded random sequences; `SEXTANT_SLOW_TESTS=1` runs more.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sextant_engine::{IndexOptions, LiveIndex, Repo};

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stderr(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(out.success(), "git {args:?}");
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const CLASSES: &[&str] = &["Base", "Store", "Cache", "Client", "Repo"];
const FUNCS: &[&str] = &[
    "get", "save", "load", "run", "helper_a", "helper_b", "__init__",
];
const MODULES: &[&str] = &[
    "app/m0.py",
    "app/m1.py",
    "app/m2.py",
    "app/m3.py",
    "app/sub/m4.py",
    "app/sub/m5.py",
    "app/sub/m6.py",
    "lib/util.py",
];

fn module_name(path: &str) -> String {
    path.trim_end_matches(".py").replace('/', ".")
}

/// A random Python module over a small shared vocabulary, so names collide across files
/// (hub names, same-named classes, imports that resolve or not).
fn python_module(rng: &mut Rng, existing: &[String]) -> String {
    let mut out = String::new();
    for _ in 0..rng.below(3) {
        if existing.is_empty() {
            break;
        }
        let m = module_name(&existing[rng.below(existing.len())]);
        match rng.below(3) {
            0 => out.push_str(&format!("from {m} import {}\n", rng.pick(CLASSES))),
            1 => out.push_str(&format!("import {m}\n")),
            _ => out.push_str(&format!(
                "from {m} import {} as alias_{}\n",
                rng.pick(FUNCS),
                rng.below(3)
            )),
        }
    }
    for _ in 0..1 + rng.below(2) {
        let class = rng.pick(CLASSES);
        let base = if rng.below(2) == 0 {
            format!("({})", rng.pick(CLASSES))
        } else {
            String::new()
        };
        out.push_str(&format!("\nclass {class}{base}:\n"));
        for _ in 0..1 + rng.below(3) {
            let method = rng.pick(FUNCS);
            out.push_str(&format!("    def {method}(self):\n"));
            match rng.below(5) {
                0 => out.push_str(&format!("        self.{}()\n", rng.pick(FUNCS))),
                1 => out.push_str(&format!(
                    "        x = {}()\n        x.{}()\n",
                    rng.pick(CLASSES),
                    rng.pick(FUNCS)
                )),
                2 => out.push_str(&format!("        return {}()\n", rng.pick(FUNCS))),
                3 => out.push_str(&format!(
                    "        r = self.extra_{}()\n        r.{}()\n",
                    rng.below(2),
                    rng.pick(FUNCS)
                )),
                _ => out.push_str("        pass\n"),
            }
        }
    }
    for _ in 0..rng.below(3) {
        let f = rng.pick(FUNCS);
        out.push_str(&format!(
            "\ndef {f}_top():\n    {}()\n    alias_{}()\n    extra_{}()\n",
            rng.pick(FUNCS),
            rng.below(3),
            rng.below(2)
        ));
    }
    out
}

/// The same module with new function and method bodies: every definition, import and base class
/// stays (the live index patches its resolver in place for such an edit).
fn body_edit(rng: &mut Rng, text: &str) -> String {
    let mut out = String::new();
    let mut in_body: Option<usize> = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let body = !line.trim().is_empty()
            && (indent == 8 || (indent == 4 && !line.trim_start().starts_with("def ")));
        if body {
            if in_body != Some(indent) {
                in_body = Some(indent);
                let pad = " ".repeat(indent);
                for _ in 0..1 + rng.below(2) {
                    let stmt = match rng.below(7) {
                        0 if indent == 8 => format!("self.{}()", rng.pick(FUNCS)),
                        1 => format!("y = {}()\n{pad}y.{}()", rng.pick(CLASSES), rng.pick(FUNCS)),
                        2 => format!("alias_{}()", rng.below(3)),
                        // Attribute bindings type `obj.attr` wherever it is written.
                        3 if indent == 8 => format!(
                            "self.attr_{} = {}()\n{pad}self.attr_{}.{}()",
                            rng.below(2),
                            rng.pick(CLASSES),
                            rng.below(2),
                            rng.pick(FUNCS)
                        ),
                        4 => format!(
                            "z = {}()\n{pad}z.attr_{}.{}()",
                            rng.pick(CLASSES),
                            rng.below(2),
                            rng.pick(FUNCS)
                        ),
                        3 => "pass".to_string(),
                        _ => format!("{}()", rng.pick(FUNCS)),
                    };
                    out.push_str(&format!("{pad}{stmt}\n"));
                }
            }
            continue;
        }
        in_body = None;
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The same module with a definition added or removed: a top-level function or a method named
/// `extra_<n>` (names nothing imports, so the live index patches its resolver in place; other
/// modules call them, and a method may override or be overridden).
fn define_edit(rng: &mut Rng, text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let extras: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("def extra_"))
        .map(|(i, _)| i)
        .collect();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let k = rng.below(2);
    match rng.below(6) {
        4 if !extras.is_empty() => {
            // Retype one: its return annotation appears, changes or goes.
            let at = extras[rng.below(extras.len())];
            let head = lines[at].split(")").next().unwrap_or(lines[at]);
            out[at] = match rng.below(3) {
                0 => format!("{head}):"),
                _ => format!("{head}) -> {}:", rng.pick(CLASSES)),
            };
        }
        0 | 1 if !extras.is_empty() => {
            // Remove one: its line and the deeper-indented lines after it.
            let at = extras[rng.below(extras.len())];
            let indent = |l: &str| l.len() - l.trim_start().len();
            let own = indent(lines[at]);
            let mut end = at + 1;
            while end < lines.len() && (lines[end].trim().is_empty() || indent(lines[end]) > own) {
                end += 1;
            }
            out.drain(at..end);
        }
        0 | 2 => {
            if let Some(class) = lines.iter().position(|l| l.starts_with("class ")) {
                let body = format!(
                    "    def extra_{k}(self):\n        self.{}()",
                    rng.pick(FUNCS)
                );
                out.insert(class + 1, body);
            }
        }
        3 => out.push(format!("\ndef extra_{k}():\n    {}()", rng.pick(FUNCS))),
        // A name other modules import (from this module or another): patched only where no
        // import looks it up.
        _ => out.push(format!("\ndef {}():\n    pass", rng.pick(FUNCS))),
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Options that spill no reference for resolution: every one is read back from the store.
fn read_back(home: &Path) -> IndexOptions {
    IndexOptions {
        spill_references: false,
        ..options(home)
    }
}

fn options(home: &Path) -> IndexOptions {
    IndexOptions {
        home: Some(home.to_path_buf()),
        threads: 1,
        ..IndexOptions::default()
    }
}

/// Edges and unresolved references as comparable text (qualified names, not ids).
fn dump(home: &Path, root: &Path) -> (Vec<String>, Vec<String>, u64) {
    let repo = Repo::open_in(home, root).unwrap();
    let mut edges = repo.edge_lines().unwrap();
    edges.sort();
    let mut unresolved = repo.unresolved_lines().unwrap();
    unresolved.sort();
    let stats = repo.stats().unwrap();
    let symbols: u64 = stats.nodes.iter().map(|(_, n)| *n).sum();
    (edges, unresolved, symbols)
}

fn check_equal(live_home: &Path, root: &Path, step: &str) {
    check_equal_homes(&[("live", live_home)], root, step);
}

/// Each home's index of `root` against a full index made now.
fn check_equal_homes(homes: &[(&str, &Path)], root: &Path, step: &str) {
    let full_home = tempfile::tempdir().unwrap();
    let mut o = options(full_home.path());
    o.full = true;
    sextant_engine::index(root, &o, &|_| {}).unwrap();
    let full = dump(full_home.path(), root);
    for (name, home) in homes {
        let step = format!("{step} ({name})");
        check_dump(&dump(home, root), &full, &step);
    }
}

fn check_dump(
    live: &(Vec<String>, Vec<String>, u64),
    full: &(Vec<String>, Vec<String>, u64),
    step: &str,
) {
    if live != full {
        let only_live: Vec<&String> = live.0.iter().filter(|e| !full.0.contains(e)).collect();
        let only_full: Vec<&String> = full.0.iter().filter(|e| !live.0.contains(e)).collect();
        let u_live: Vec<&String> = live.1.iter().filter(|e| !full.1.contains(e)).collect();
        let u_full: Vec<&String> = full.1.iter().filter(|e| !live.1.contains(e)).collect();
        panic!(
            "after {step}: the index differs from a full index\n only live: {only_live:#?}\n only full: {only_full:#?}\n unresolved only live: {u_live:#?}\n unresolved only full: {u_full:#?}\n symbols {} vs {}",
            live.2, full.2
        );
    }
}

fn run_sequence(seed: u64, steps: usize) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut present: Vec<String> = Vec::new();
    for m in &MODULES[..5] {
        let text = python_module(&mut rng, &present);
        write(&root, m, &text);
        present.push(m.to_string());
    }
    write(&root, "app/__init__.py", "");
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "init"]);
    let mut live = LiveIndex::open(&root, &options(home.path())).unwrap();
    check_equal(home.path(), &root, "open");
    let pipeline_home = tempfile::tempdir().unwrap();
    sextant_engine::index(&root, &read_back(pipeline_home.path()), &|_| {}).unwrap();
    let mut branch = 0;
    for step in 0..steps {
        let mut changed: Vec<PathBuf> = Vec::new();
        let what = match rng.below(14) {
            12 | 13 => {
                let m = present[rng.below(present.len())].clone();
                let text = std::fs::read_to_string(root.join(&m)).unwrap();
                let edited = define_edit(&mut rng, &text);
                let imported = !edited
                    .lines()
                    .filter(|l| l.starts_with("def ") && !text.lines().any(|t| t == *l))
                    .all(|l| l.starts_with("def extra_"));
                write(&root, &m, &edited);
                changed.push(root.join(&m));
                if imported {
                    format!("define of an imported name {m}")
                } else {
                    format!("define edit {m}")
                }
            }
            10 | 11 => {
                let m = present[rng.below(present.len())].clone();
                let text = std::fs::read_to_string(root.join(&m)).unwrap();
                write(&root, &m, &body_edit(&mut rng, &text));
                changed.push(root.join(&m));
                format!("body edit {m}")
            }
            0..=3 => {
                let m = present[rng.below(present.len())].clone();
                let others: Vec<String> = present.iter().filter(|p| **p != m).cloned().collect();
                write(&root, &m, &python_module(&mut rng, &others));
                changed.push(root.join(&m));
                format!("edit {m}")
            }
            4 => {
                let absent: Vec<&&str> = MODULES
                    .iter()
                    .filter(|m| !present.iter().any(|p| p == **m))
                    .collect();
                if absent.is_empty() {
                    continue;
                }
                let m = absent[rng.below(absent.len())].to_string();
                write(&root, &m, &python_module(&mut rng, &present));
                present.push(m.clone());
                changed.push(PathBuf::from(&m));
                format!("add {m}")
            }
            5 if present.len() > 2 => {
                let m = present.remove(rng.below(present.len()));
                std::fs::remove_file(root.join(&m)).unwrap();
                changed.push(root.join(&m));
                format!("delete {m}")
            }
            6 => {
                // A package marker appears or disappears: module names of its siblings change.
                let init = root.join("app/sub/__init__.py");
                if init.exists() {
                    std::fs::remove_file(&init).unwrap();
                } else {
                    write(&root, "app/sub/__init__.py", "");
                }
                changed.push(init);
                "toggle app/sub/__init__.py".to_string()
            }
            7 => {
                // Rename: the old path goes, a new one comes.
                let absent: Vec<&&str> = MODULES
                    .iter()
                    .filter(|m| !present.iter().any(|p| p == **m))
                    .collect();
                if absent.is_empty() {
                    continue;
                }
                let from = present.remove(rng.below(present.len()));
                let to = absent[rng.below(absent.len())].to_string();
                std::fs::create_dir_all(root.join(&to).parent().unwrap()).unwrap();
                std::fs::rename(root.join(&from), root.join(&to)).unwrap();
                present.push(to.clone());
                changed.push(root.join(&from));
                changed.push(root.join(&to));
                format!("rename {from} -> {to}")
            }
            8 => {
                git(&root, &["add", "-A"]);
                git(
                    &root,
                    &["commit", "-qm", &format!("step {step}"), "--allow-empty"],
                );
                "commit".to_string()
            }
            _ => {
                // Switch to a new branch with an edit committed there, then maybe back.
                git(&root, &["add", "-A"]);
                git(&root, &["commit", "-qm", "wip", "--allow-empty"]);
                branch += 1;
                git(&root, &["checkout", "-qb", &format!("b{branch}")]);
                let m = present[0].clone();
                write(&root, &m, &python_module(&mut rng, &present[1..]));
                git(&root, &["commit", "-qam", "on branch"]);
                if rng.below(2) == 0 {
                    git(&root, &["checkout", "-q", "main"]);
                    present = MODULES
                        .iter()
                        .filter(|m| root.join(m).exists())
                        .map(|m| m.to_string())
                        .collect();
                }
                changed.push(root.join(&m));
                "branch switch".to_string()
            }
        };
        let u = live
            .update(&changed)
            .unwrap_or_else(|e| panic!("seed {seed} step {step} ({what}): {e}"));
        if (what.starts_with("body edit") || what.starts_with("define edit"))
            && u.generation.is_some()
        {
            assert!(
                u.resolver_patched,
                "seed {seed} step {step} ({what}): not patched: {u:?}"
            );
        }
        // The CLI's incremental index of the same tree (every reference read back from the
        // store, unchanged edge sets shared) equals it too.
        sextant_engine::index(&root, &read_back(pipeline_home.path()), &|_| {})
            .unwrap_or_else(|e| panic!("seed {seed} step {step} ({what}): {e}"));
        check_equal_homes(
            &[
                ("live", home.path()),
                ("incremental index", pipeline_home.path()),
            ],
            &root,
            &format!("seed {seed} step {step} ({what})"),
        );
    }
}

fn slow() -> bool {
    std::env::var("SEXTANT_SLOW_TESTS").is_ok_and(|v| v == "1")
}

#[test]
fn incremental_updates_equal_a_full_index() {
    let (seeds, steps) = if slow() { (12, 40) } else { (3, 16) };
    for seed in 1..=seeds {
        run_sequence(seed, steps);
    }
}

#[test]
fn an_edit_publishes_a_generation_that_shares_untouched_edge_sets() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(&root, "a.py", "def f():\n    g()\n\ndef g():\n    pass\n");
    write(&root, "b.py", "from a import f\n\ndef h():\n    f()\n");
    write(&root, "c.py", "def lonely():\n    pass\n");
    let mut live = LiveIndex::open(&root, &options(home.path())).unwrap();
    let before = live.generation();
    write(&root, "c.py", "def lonely():\n    return 1\n");
    let u = live.update(&[root.join("c.py")]).unwrap();
    assert!(u.full.is_none(), "{u:?}");
    assert!(u.generation.unwrap() > before);
    assert_eq!(u.files_changed, 1);
    // Only c.py is resolved again and only its set is written.
    assert_eq!(u.files_resolved, 1, "{u:?}");
    assert_eq!(u.sets_written, 1, "{u:?}");
    // A body-only edit keeps the file's shape: the resolver is patched, not rebuilt.
    assert!(u.resolver_patched, "{u:?}");
    check_equal(home.path(), &root, "body edit of c.py");
    // The same for a file others point into: b.py's edge into f follows f's new id.
    write(
        &root,
        "a.py",
        "def f():\n    g()\n    g()\n\ndef g():\n    f()\n",
    );
    let u = live.update(&[root.join("a.py")]).unwrap();
    assert!(u.resolver_patched, "{u:?}");
    check_equal(home.path(), &root, "body edit of a.py");
    // An edit that renames f: b.py's reference is affected and its set rewritten.
    write(&root, "a.py", "def f2():\n    g()\n\ndef g():\n    pass\n");
    let u = live.update(&[root.join("a.py")]).unwrap();
    assert!(u.files_resolved >= 2, "{u:?}");
    assert!(!u.resolver_patched, "{u:?}");
    check_equal(home.path(), &root, "rename f");
    // Nothing changed: nothing published.
    let u = live.update(&[root.join("a.py")]).unwrap();
    assert_eq!(u.generation, None);
}

#[test]
fn body_edits_across_a_hierarchy_patch_the_resolver_and_equal_a_full_index() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        &root,
        "base.py",
        "class Base:\n    def run(self):\n        pass\n",
    );
    write(
        &root,
        "child.py",
        "from base import Base\n\nclass Child(Base):\n    def go(self):\n        self.run()\n",
    );
    write(
        &root,
        "user.py",
        "from child import Child\n\ndef use():\n    c = Child()\n    c.go()\n    c.run()\n",
    );
    let mut live = LiveIndex::open(&root, &options(home.path())).unwrap();
    let edits = [
        (
            "child.py",
            "from base import Base\n\nclass Child(Base):\n    def go(self):\n        self.run()\n        self.go()\n",
        ),
        (
            "base.py",
            "class Base:\n    def run(self):\n        return Base()\n",
        ),
        (
            "user.py",
            "from child import Child\n\ndef use():\n    b = Child()\n    b.run()\n",
        ),
    ];
    for (path, text) in edits {
        write(&root, path, text);
        let u = live.update(&[root.join(path)]).unwrap();
        assert!(u.resolver_patched, "{path}: {u:?}");
        check_equal(home.path(), &root, &format!("body edit of {path}"));
    }
}

#[test]
fn an_attribute_binding_edit_re_resolves_the_files_using_the_attribute() {
    // b.py reaches Holder only through d.get_holder's return type: it has no edge into a.py,
    // yet what `h.store` holds is decided there.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    let a = |class: &str| {
        format!(
            "from c import Store, Other\n\nclass Holder:\n    def setup(self):\n        self.store = {class}()\n"
        )
    };
    write(
        &root,
        "c.py",
        "class Store:\n    def save(self):\n        pass\n\nclass Other:\n    def save(self):\n        pass\n",
    );
    write(&root, "a.py", &a("Store"));
    write(
        &root,
        "d.py",
        "from a import Holder\n\ndef get_holder() -> Holder:\n    return Holder()\n",
    );
    write(
        &root,
        "b.py",
        "from d import get_holder\n\ndef use():\n    h = get_holder()\n    h.store.save()\n",
    );
    let mut live = LiveIndex::open(&root, &options(home.path())).unwrap();
    let before = dump(home.path(), &root);
    assert!(
        before
            .0
            .iter()
            .any(|e| e.contains("b.use") && e.contains("c.Store.save")),
        "{:#?}",
        before.0
    );
    write(&root, "a.py", &a("Other"));
    let u = live.update(&[root.join("a.py")]).unwrap();
    assert!(u.resolver_patched, "{u:?}");
    check_equal(home.path(), &root, "attribute now holds Other");
    let after = dump(home.path(), &root);
    assert!(
        after
            .0
            .iter()
            .any(|e| e.contains("b.use") && e.contains("c.Other.save")),
        "{:#?}",
        after.0
    );
}

#[test]
fn checking_out_an_indexed_commit_again_shares_its_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(&root, "a.py", "def f():\n    g()\n\ndef g():\n    pass\n");
    write(&root, "b.py", "from a import f\n\ndef h():\n    f()\n");
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "one"]);
    let first = sextant_engine::index(&root, &options(home.path()), &|_| {}).unwrap();
    assert_eq!(first.reused_generation, None);
    // An unchanged tree: nothing is resolved again.
    let again = sextant_engine::index(&root, &options(home.path()), &|_| {}).unwrap();
    assert_eq!(again.reused_generation, Some(first.generation));
    assert_eq!(again.symbols, first.symbols);
    assert_eq!(again.edges, first.edges);
    // A second commit, then back to the first: the first commit's baseline serves again.
    write(
        &root,
        "b.py",
        "from a import f, g\n\ndef h():\n    f()\n    g()\n",
    );
    git(&root, &["commit", "-qam", "two"]);
    let second = sextant_engine::index(&root, &options(home.path()), &|_| {}).unwrap();
    assert_eq!(second.reused_generation, None);
    // a.py resolved exactly as before: its edge set is shared, not written again.
    assert_eq!(second.sets_shared, 1, "{second:?}");
    check_equal(home.path(), &root, "second commit");
    git(&root, &["checkout", "-q", "HEAD~1"]);
    let back = sextant_engine::index(&root, &options(home.path()), &|_| {}).unwrap();
    assert!(back.reused_generation.is_some(), "{back:?}");
    assert_eq!(back.edges, first.edges);
    check_equal(home.path(), &root, "checkout back");
    // A forced full index never shares.
    let mut full = options(home.path());
    full.full = true;
    let rebuilt = sextant_engine::index(&root, &full, &|_| {}).unwrap();
    assert_eq!(rebuilt.reused_generation, None);
    check_equal(home.path(), &root, "full");
}

#[test]
fn adding_and_removing_definitions_patches_the_resolver_and_equals_a_full_index() {
    // a.py calls `extra` by name (resolved in its directory once b.py defines it); c.py's Child
    // overrides what b.py's Base defines; nothing imports `extra` or `helper`.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(&root, "app/__init__.py", "");
    write(&root, "app/a.py", "def use():\n    extra()\n");
    let b = |more: &str| {
        format!("class Base:\n    def run(self):\n        pass\n{more}\ndef g():\n    pass\n")
    };
    write(&root, "app/b.py", &b(""));
    let c = |more: &str| {
        format!(
            "from app.b import Base, g\n\nclass Child(Base):\n    def helper(self):\n        pass\n\ndef use_g():\n    g(){more}\n"
        )
    };
    write(&root, "app/c.py", &c(""));
    git(&root, &["init", "-q", "-b", "main"]);
    let mut live = LiveIndex::open(&root, &options(home.path())).unwrap();
    let steps = [
        // A top-level function and a base method appear.
        b("    def helper(self):\n        pass\n\ndef extra():\n    pass\n"),
        // The function goes again; the method stays.
        b("    def helper(self):\n        pass\n"),
        // And the method goes too.
        b(""),
    ];
    let mut seen = Vec::new();
    for (i, text) in steps.iter().enumerate() {
        write(&root, "app/b.py", text);
        let u = live.update(&[root.join("app/b.py")]).unwrap();
        assert!(u.resolver_patched, "step {i}: {u:?}");
        check_equal(home.path(), &root, &format!("step {i}"));
        seen.push(dump(home.path(), &root).0);
        // c.py resolved again: its import of `g`, which moved in b.py's run, still binds it.
        write(&root, "app/c.py", &c(&format!("\n    # {i}")));
        let u = live.update(&[root.join("app/c.py")]).unwrap();
        assert!(u.resolver_patched, "step {i}, c.py: {u:?}");
        check_equal(home.path(), &root, &format!("step {i}, c.py"));
    }
    assert!(
        seen.iter().all(|edges| edges
            .iter()
            .any(|e| e.contains("app.c.use_g") && e.contains("app.b.g"))),
        "{seen:#?}"
    );
    let has =
        |edges: &[String], a: &str, b: &str| edges.iter().any(|e| e.contains(a) && e.contains(b));
    assert!(has(&seen[0], "app.a.use", "app.b.extra"), "{:#?}", seen[0]);
    assert!(
        has(&seen[0], "app.c.Child.helper", "app.b.Base.helper"),
        "{:#?}",
        seen[0]
    );
    assert!(!has(&seen[1], "app.a.use", "app.b.extra"), "{:#?}", seen[1]);
    assert!(
        has(&seen[1], "app.c.Child.helper", "app.b.Base.helper"),
        "{:#?}",
        seen[1]
    );
    assert!(
        !has(&seen[2], "app.c.Child.helper", "app.b.Base.helper"),
        "{:#?}",
        seen[2]
    );
}

#[test]
fn switching_between_indexed_commits_serves_their_baselines_and_edits_still_patch() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(&root, "app/__init__.py", "");
    write(
        &root,
        "app/a.py",
        "def first_only():\n    pass\n\ndef shared():\n    pass\n",
    );
    write(
        &root,
        "app/b.py",
        "from app.a import shared\n\ndef use():\n    shared()\n",
    );
    write(&root, "app/c.py", "def untouched():\n    pass\n");
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "one"]);
    let mut live = LiveIndex::open(&root, &options(home.path())).unwrap();
    // A second commit (an edit, an addition, a deletion), indexed through the live index.
    let changes = ["app/a.py", "app/c.py", "app/d.py"];
    write(
        &root,
        "app/a.py",
        "def second_only():\n    pass\n\ndef shared():\n    pass\n",
    );
    write(
        &root,
        "app/d.py",
        "from app.a import second_only\n\ndef more():\n    second_only()\n",
    );
    std::fs::remove_file(root.join("app/c.py")).unwrap();
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "two"]);
    let paths: Vec<PathBuf> = changes.iter().map(PathBuf::from).collect();
    live.update(&paths).unwrap();
    check_equal(home.path(), &root, "second commit");
    for round in 0..3 {
        for (rev, present, absent) in [
            ("HEAD~1", "first_only", "second_only"),
            ("main", "second_only", "first_only"),
        ] {
            git(&root, &["checkout", "-q", rev]);
            let u = live.update(&paths).unwrap();
            let what = format!("round {round}, checkout {rev}");
            assert_eq!(u.full, None, "{what}: not a switch: {u:?}");
            let summary = u.summary.as_ref().unwrap();
            assert!(summary.reused_generation.is_some(), "{what}: {u:?}");
            assert_eq!(summary.files_uncommitted, 0, "{what}");
            let repo = Repo::open_in(home.path(), &root).unwrap();
            let names = |name: &str| {
                repo.search(name, &sextant_engine::SearchOptions::default())
                    .unwrap()
                    .iter()
                    .any(|h| h.symbol.name == name)
            };
            assert!(names(present) && !names(absent), "{what}");
            check_equal(home.path(), &root, &what);
        }
    }
    // After a switch, an edit that keeps the file's shape still patches the resolver.
    let text = std::fs::read_to_string(root.join("app/b.py")).unwrap();
    write(
        &root,
        "app/b.py",
        &text.replace("    shared()\n", "    shared()\n    shared()\n"),
    );
    let u = live.update(&[PathBuf::from("app/b.py")]).unwrap();
    assert!(u.resolver_patched, "{u:?}");
    check_equal(home.path(), &root, "edit after switches");
    // A checkout to a commit never indexed runs the pipeline.
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "three"]);
    git(&root, &["checkout", "-q", "HEAD~2"]);
    write(&root, "app/c.py", "def untouched():\n    return 2\n");
    let u = live.update(&[PathBuf::from("app/c.py")]).unwrap();
    assert_eq!(
        u.full.as_deref(),
        Some("HEAD moved"),
        "a dirty tree is no baseline"
    );
    check_equal(home.path(), &root, "dirty checkout");
}
