//! The shared baseline cache end to end: real git repositories in temp dirs, real SQLite files,
//! two data homes (two "machines", with clones at different paths) sharing one cache directory.
//! Home A's index pushes; home B's index of the same commit pulls and serves A's answers without
//! extracting or resolving; bad cache files are refused and B builds locally; concurrent pushes
//! never expose a partial file; pins survive garbage collection.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sextant_engine::{IndexOptions, IndexSummary, Repo, SearchOptions};

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn head(root: &Path) -> String {
    let out = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(root)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

struct World {
    _tmp: tempfile::TempDir,
    /// The repository on machine A.
    a: PathBuf,
    /// A clone of it at another path (machine B).
    b: PathBuf,
    home_a: PathBuf,
    home_b: PathBuf,
    cache: PathBuf,
}

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("machine-a").join("shop");
    std::fs::create_dir_all(&a).unwrap();
    git(&a, &["init", "-q", "-b", "main"]);
    write(&a, "shop/__init__.py", "");
    write(
        &a,
        "shop/users.py",
        "\"\"\"Users.\"\"\"\n\nclass UserStore:\n    \"\"\"Keeps users.\"\"\"\n\n    def get_user_by_id(self, user_id):\n        return self.load(user_id)\n\n    def load(self, user_id):\n        return {\"id\": user_id}\n\n\ndef create_store():\n    return UserStore()\n",
    );
    write(
        &a,
        "shop/api.py",
        "from .users import create_store\n\n\ndef handler(request):\n    store = create_store()\n    return store.get_user_by_id(request)\n\n\ndef other(request):\n    return handler(request) + missing_thing()\n",
    );
    write(
        &a,
        "lib/util.rs",
        "/// Adds.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n\npub fn twice(a: i32) -> i32 { add(a, a) }\n",
    );
    git(&a, &["add", "."]);
    git(&a, &["commit", "-q", "-m", "one"]);
    let b = tmp.path().join("machine-b").join("work").join("shop-clone");
    std::fs::create_dir_all(b.parent().unwrap()).unwrap();
    git(
        tmp.path(),
        &["clone", "-q", a.to_str().unwrap(), b.to_str().unwrap()],
    );
    let home_a = tmp.path().join("home-a");
    let home_b = tmp.path().join("home-b");
    let cache = tmp.path().join("share").join("cache");
    World {
        a,
        b,
        home_a,
        home_b,
        cache,
        _tmp: tmp,
    }
}

fn options(home: &Path, cache: Option<&Path>) -> IndexOptions {
    IndexOptions {
        home: Some(home.to_path_buf()),
        threads: 2,
        cache_dir: cache.map(Path::to_path_buf),
        ..IndexOptions::default()
    }
}

fn index(root: &Path, home: &Path, cache: Option<&Path>) -> IndexSummary {
    sextant_engine::index(root, &options(home, cache), &|_| {}).unwrap()
}

/// Search, callers, callees, references and statistics, without ids or absolute paths.
fn answers(home: &Path, root: &Path) -> Vec<String> {
    let repo = Repo::open_in(home, root).unwrap();
    let mut out = Vec::new();
    for q in ["get_user_by_id", "user", "keeps users", "add", "handler"] {
        let hits = repo
            .search(
                q,
                &SearchOptions {
                    limit: 20,
                    ..SearchOptions::default()
                },
            )
            .unwrap();
        out.push(format!(
            "search {q}: {:?}",
            hits.iter()
                .map(|h| (
                    h.matched,
                    h.symbol.qualified_name.clone(),
                    h.symbol.path.clone(),
                    h.symbol.start_line
                ))
                .collect::<Vec<_>>()
        ));
    }
    for name in ["get_user_by_id", "add", "handler", "create_store"] {
        let symbol = repo.resolve_symbol(name).unwrap();
        for incoming in [true, false] {
            let calls = repo.calls(&symbol, incoming, 2, 50).unwrap();
            out.push(format!(
                "calls {name} {incoming}: {:?} {:?}",
                calls
                    .steps
                    .iter()
                    .map(|s| (
                        s.depth,
                        s.neighbor.symbol.qualified_name.clone(),
                        s.neighbor.rule.clone(),
                        s.neighbor.site.as_ref().map(|x| (x.path.clone(), x.line))
                    ))
                    .collect::<Vec<_>>(),
                calls.completeness
            ));
        }
    }
    out.push(format!("stats {:?}", repo.stats().unwrap()));
    out.extend(repo.edge_lines().unwrap());
    out.extend(repo.unresolved_lines().unwrap());
    out
}

fn cached_files(cache: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in std::fs::read_dir(cache).unwrap() {
        for f in std::fs::read_dir(d.unwrap().path()).unwrap() {
            out.push(f.unwrap().path());
        }
    }
    out.sort();
    out
}

#[test]
fn a_fresh_home_pulls_the_baseline_another_pushed_and_answers_the_same() {
    let w = world();
    let commit = head(&w.a);
    let sa = index(&w.a, &w.home_a, Some(&w.cache));
    let ca = sa.cache.clone().unwrap();
    assert_eq!(ca.pushed.as_deref(), Some(commit.as_str()), "{ca:?}");
    assert!(ca.pushed_bytes > 0 && ca.warnings.is_empty(), "{ca:?}");
    let key = ca.repo_key.clone().unwrap();
    let file = sextant_engine::baseline_file(&w.cache, &key, &commit);
    assert_eq!(
        cached_files(&w.cache),
        vec![file.clone()],
        "one file, no temp left"
    );

    // Machine B: another clone path, another home, the same cache.
    let sb = index(&w.b, &w.home_b, Some(&w.cache));
    let cb = sb.cache.clone().unwrap();
    assert_eq!(
        cb.repo_key.as_deref(),
        Some(key.as_str()),
        "same key on both clones"
    );
    assert_eq!(cb.pulled.as_deref(), Some(commit.as_str()), "{cb:?}");
    assert_eq!(cb.pushed, None, "the cache already has the commit");
    // Nothing extracted, nothing resolved: the pulled generation's resolution is shared.
    assert_eq!(sb.bytes_extracted, 0);
    assert_eq!(sb.files_reused, sb.files_indexed);
    assert_eq!(sb.reused_generation, cb.pulled_generation);
    assert_eq!((sb.symbols, sb.references), (sa.symbols, sa.references));
    assert_eq!(sb.edges, sa.edges);
    assert!(!sb.dirty);
    assert_eq!(answers(&w.home_a, &w.a), answers(&w.home_b, &w.b));

    // Without the cache, B's own full build gives the same answers too.
    let home_c = w.home_b.with_file_name("home-c");
    let sc = index(&w.b, &home_c, None);
    assert!(sc.cache.is_none() && sc.bytes_extracted > 0);
    assert_eq!(answers(&home_c, &w.b), answers(&w.home_b, &w.b));

    // A second run in B finds its own baseline: no pull, no push.
    let again = index(&w.b, &w.home_b, Some(&w.cache));
    let c = again.cache.unwrap();
    assert_eq!((c.pulled, c.pushed), (None, None));
    assert_eq!(again.bytes_extracted, 0);
}

#[test]
fn a_dirty_tree_pulls_but_pushes_nothing() {
    let w = world();
    let commit = head(&w.a);
    index(&w.a, &w.home_a, Some(&w.cache));
    write(&w.b, "shop/api.py", "def handler(request):\n    return 1\n");
    let sb = index(&w.b, &w.home_b, Some(&w.cache));
    let cb = sb.cache.unwrap();
    assert_eq!(cb.pulled.as_deref(), Some(commit.as_str()));
    assert!(sb.dirty && cb.pushed.is_none());
    // Only the edited file was extracted.
    assert_eq!(sb.files_indexed - sb.files_reused, 1);
    let repo = Repo::open_in(&w.home_b, &w.b).unwrap();
    let symbol = repo.resolve_symbol("handler").unwrap();
    assert_eq!(symbol.end_line, 2);
}

/// Bad cache files in B's place: each is refused with a clear warning, and B builds locally
/// with the same answers.
#[test]
fn corrupt_truncated_foreign_and_other_version_files_are_refused_and_b_builds_locally() {
    let w = world();
    let commit = head(&w.a);
    let sa = index(&w.a, &w.home_a, Some(&w.cache));
    let key = sa.cache.unwrap().repo_key.unwrap();
    let file = sextant_engine::baseline_file(&w.cache, &key, &commit);
    let good = std::fs::read(&file).unwrap();
    let expected = answers(&w.home_a, &w.a);

    // A baseline of another repository, placed under this repository's key and commit.
    let foreign_repo = w.a.with_file_name("other");
    std::fs::create_dir_all(&foreign_repo).unwrap();
    git(&foreign_repo, &["init", "-q", "-b", "main"]);
    write(&foreign_repo, "x.py", "def other_thing():\n    pass\n");
    git(&foreign_repo, &["add", "."]);
    git(&foreign_repo, &["commit", "-q", "-m", "unrelated"]);
    let foreign_cache = w.cache.with_file_name("foreign");
    let sf = index(&foreign_repo, &w.home_a, Some(&foreign_cache));
    let foreign = std::fs::read(cached_files(&foreign_cache)[0].clone()).unwrap();
    assert_ne!(sf.cache.unwrap().repo_key.unwrap(), key);

    let mut other_version = good.clone();
    other_version[60..64].copy_from_slice(&3u32.to_be_bytes());
    let mut corrupt = good.clone();
    let mid = corrupt.len() / 2;
    for b in &mut corrupt[mid - 8192..mid + 8192] {
        *b = 0x5A;
    }
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "truncated",
            good[..good.len() / 3].to_vec(),
            "truncated or corrupt",
        ),
        ("corrupt", corrupt, "corrupt"),
        ("foreign", foreign, "another repository"),
        ("other version", other_version, "schema version 3"),
        ("garbage", b"not a database at all".to_vec(), "refused"),
    ];
    for (i, (name, bytes, message)) in cases.into_iter().enumerate() {
        std::fs::write(&file, &bytes).unwrap();
        let home = w.home_b.with_file_name(format!("home-b{i}"));
        let s = index(&w.b, &home, Some(&w.cache));
        let c = s.cache.unwrap();
        assert_eq!(c.pulled, None, "{name}");
        assert!(
            c.warnings
                .iter()
                .any(|m| m.contains(message) && m.contains("refused")),
            "{name}: {:?}",
            c.warnings
        );
        assert!(s.bytes_extracted > 0, "{name}: built locally");
        assert_eq!(c.pushed, None, "{name}: the cache's file is left alone");
        assert_eq!(answers(&home, &w.b), expected, "{name}");
        // Only the (never published) import was refused: the database holds B's own generation.
        let list = sextant_engine::baselines(&home, &w.b).unwrap();
        assert_eq!(list.len(), 1, "{name}: {list:?}");
    }
}

#[test]
fn concurrent_pushes_never_expose_a_partial_file() {
    let w = world();
    let commit = head(&w.a);
    index(&w.a, &w.home_a, None);
    let key = sextant_engine::push_baseline(&w.home_a, &w.a, &w.cache, None)
        .unwrap()
        .repo_key;
    let file = sextant_engine::baseline_file(&w.cache, &key, &commit);
    std::fs::remove_file(&file).unwrap();
    let done = std::sync::atomic::AtomicBool::new(false);
    let checked = std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let mut checked = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if file.exists() {
                    let info = sextant_store::read_bundle_info(&file)
                        .unwrap_or_else(|e| panic!("a partial file was visible: {e}"));
                    assert_eq!(info.commit, commit);
                    checked += 1;
                }
            }
            checked
        });
        let pushers: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    for _ in 0..6 {
                        let t =
                            sextant_engine::push_baseline(&w.home_a, &w.a, &w.cache, Some(&commit))
                                .unwrap();
                        assert_eq!(t.file, file);
                    }
                })
            })
            .collect();
        for p in pushers {
            p.join().unwrap();
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        reader.join().unwrap()
    });
    assert!(checked > 0);
    assert_eq!(cached_files(&w.cache), vec![file.clone()], "no temp left");
    // A push that died before its rename leaves a temporary file: removed once an hour old.
    let dir = file.parent().unwrap();
    let stale = dir.join(format!(".{commit}.sxb.1-0-0.tmp"));
    let fresh = dir.join(format!(".{commit}.sxb.2-0-0.tmp"));
    for p in [&stale, &fresh] {
        std::fs::write(p, "partial").unwrap();
    }
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(7200))
        .unwrap();
    sextant_engine::push_baseline(&w.home_a, &w.a, &w.cache, None).unwrap();
    assert!(!stale.exists() && fresh.exists());
    std::fs::remove_file(&fresh).unwrap();
    // And B pulls what the racing pushers left.
    let sb = index(&w.b, &w.home_b, Some(&w.cache));
    assert_eq!(sb.cache.unwrap().pulled.as_deref(), Some(commit.as_str()));
}

#[test]
fn pins_survive_gc_while_unpinned_old_baselines_go() {
    let w = world();
    let mut commits = Vec::new();
    let mut pinned_generation = 0;
    for i in 0..10 {
        if i > 0 {
            write(
                &w.a,
                "shop/extra.py",
                &format!("def extra_{i}():\n    pass\n"),
            );
            git(&w.a, &["add", "."]);
            git(&w.a, &["commit", "-q", "-m", &format!("c{i}")]);
        }
        commits.push(head(&w.a));
        index(&w.a, &w.home_a, None);
        if i == 0 {
            let p = sextant_engine::pin_baseline(&w.home_a, &w.a, &commits[0][..10]).unwrap();
            assert_eq!((p.kind, p.changed), ("commit", true));
            assert_eq!(p.target, commits[0]);
        }
        if i == 1 {
            let g = sextant_engine::baselines(&w.home_a, &w.a).unwrap()[0].generation;
            pinned_generation = g;
            let p = sextant_engine::pin_baseline(&w.home_a, &w.a, &g.to_string()).unwrap();
            assert_eq!((p.kind, p.generation), ("generation", Some(g)));
        }
    }
    sextant_engine::collect_baselines(&w.home_a, &w.a).unwrap();
    let list = sextant_engine::baselines(&w.home_a, &w.a).unwrap();
    let kept: Vec<&str> = list.iter().filter_map(|b| b.commit.as_deref()).collect();
    assert!(kept.contains(&commits[0].as_str()) && kept.contains(&commits[1].as_str()));
    assert!(
        !kept.contains(&commits[2].as_str()),
        "unpinned old baselines go: {kept:?}"
    );
    let pinned: Vec<&str> = list
        .iter()
        .filter(|b| b.pinned)
        .filter_map(|b| b.commit.as_deref())
        .collect();
    assert_eq!(pinned, vec![commits[1].as_str(), commits[0].as_str()]);
    // Checking the pinned commit out again costs no extraction.
    git(&w.a, &["checkout", "-q", &commits[0]]);
    let s = index(&w.a, &w.home_a, None);
    assert_eq!(s.bytes_extracted, 0);
    assert!(s.reused_generation.is_some());
    // Unpinned, the next collections apply the policy again.
    let g = pinned_generation.to_string();
    assert!(
        sextant_engine::unpin_baseline(&w.home_a, &w.a, &commits[1]).is_err(),
        "a generation pin, not a commit pin"
    );
    sextant_engine::unpin_baseline(&w.home_a, &w.a, &g).unwrap();
    assert!(sextant_engine::unpin_baseline(&w.home_a, &w.a, &g).is_err());
    sextant_engine::collect_baselines(&w.home_a, &w.a).unwrap();
    let list = sextant_engine::baselines(&w.home_a, &w.a).unwrap();
    assert!(
        !list
            .iter()
            .any(|b| b.commit.as_deref() == Some(commits[1].as_str()))
    );
}

/// A cached baseline made by another Sextant (its resolution context differs) cannot be reused:
/// it is not imported, the run builds locally, and its own baseline replaces the cached one.
#[test]
fn a_baseline_of_another_context_is_not_imported_and_gets_replaced() {
    let w = world();
    let commit = head(&w.a);
    let sa = index(&w.a, &w.home_a, Some(&w.cache));
    let key = sa.cache.unwrap().repo_key.unwrap();
    let file = sextant_engine::baseline_file(&w.cache, &key, &commit);
    {
        let mut scratch =
            sextant_store::Store::open(&w.cache.with_file_name("scratch.db")).unwrap();
        let g = scratch
            .import_generation(
                &file,
                sextant_store::BundleExpect {
                    repo_key: &key,
                    commit: Some(&commit),
                },
            )
            .unwrap();
        let stats = scratch.generation(g).unwrap().unwrap().stats.unwrap();
        let mut stats: serde_json::Value = serde_json::from_str(&stats).unwrap();
        stats["context"] = "from-another-version".into();
        scratch.set_generation_stats(g, &stats.to_string()).unwrap();
        scratch.export_generation(g, &key, &file).unwrap();
    }
    let sb = index(&w.b, &w.home_b, Some(&w.cache));
    let cb = sb.cache.unwrap();
    assert_eq!(cb.pulled, None);
    assert!(
        cb.warnings
            .iter()
            .any(|m| m.contains("another resolution context")),
        "{:?}",
        cb.warnings
    );
    assert!(sb.bytes_extracted > 0);
    assert_eq!(cb.pushed.as_deref(), Some(commit.as_str()), "replaced");
    let home = w.home_b.with_file_name("home-b3");
    let s3 = index(&w.b, &home, Some(&w.cache));
    assert_eq!(s3.cache.unwrap().pulled.as_deref(), Some(commit.as_str()));
    assert_eq!(s3.bytes_extracted, 0);
}

/// A cache that cannot be used (here its path is a regular file) never fails the index.
#[test]
fn an_unusable_cache_is_a_warning_not_a_failure() {
    let w = world();
    std::fs::create_dir_all(w.cache.parent().unwrap()).unwrap();
    std::fs::write(&w.cache, "not a directory").unwrap();
    let s = index(&w.a, &w.home_a, Some(&w.cache));
    let c = s.cache.unwrap();
    assert_eq!((c.pulled, c.pushed), (None, None));
    assert!(
        c.warnings.iter().any(|m| m.contains("push of")),
        "{:?}",
        c.warnings
    );
    assert!(s.symbols > 0 && s.generation > 0);
}

/// A home that already has an older commit pulls the new one and prefers its file versions over
/// its own identical ones, so the pulled generation's resolution is shared outright.
#[test]
fn a_home_with_an_older_commit_pulls_the_new_one_and_shares_it() {
    let w = world();
    index(&w.a, &w.home_a, Some(&w.cache));
    let first = index(&w.b, &w.home_b, Some(&w.cache));
    assert!(first.cache.unwrap().pulled.is_some());
    write(
        &w.a,
        "shop/users.py",
        "class UserStore:\n    def get_user_by_id(self, user_id):\n        return user_id\n\n\ndef create_store():\n    return UserStore()\n",
    );
    git(&w.a, &["commit", "-q", "-am", "two"]);
    let second = head(&w.a);
    let sa = index(&w.a, &w.home_a, Some(&w.cache));
    assert_eq!(sa.cache.unwrap().pushed.as_deref(), Some(second.as_str()));
    git(&w.b, &["pull", "-q", "--ff-only"]);
    assert_eq!(head(&w.b), second);
    let sb = index(&w.b, &w.home_b, Some(&w.cache));
    let cb = sb.cache.unwrap();
    assert_eq!(cb.pulled.as_deref(), Some(second.as_str()), "{cb:?}");
    assert_eq!(sb.bytes_extracted, 0);
    assert_eq!(sb.reused_generation, cb.pulled_generation);
    assert_eq!(answers(&w.home_a, &w.a), answers(&w.home_b, &w.b));
}
