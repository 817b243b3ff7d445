//! `watch` on a real git repository in a temp dir: edits, new files, deletions and commits are
//! indexed without being asked, and Sextant's own writes never re-trigger it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use sextant_engine::{IndexOptions, Repo, SearchOptions, WatchEvent, WatchOptions, WatchTrigger};

const DEBOUNCE: Duration = Duration::from_millis(150);
const TIMEOUT: Duration = Duration::from_secs(30);

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// What the watcher thread reports, reduced to what the test checks.
#[derive(Debug)]
enum Seen {
    Indexing,
    Indexed {
        generation: i64,
        trigger: WatchTrigger,
        changed: Vec<String>,
        /// The generation whose resolution it shares (a switch to an indexed commit).
        shared: Option<i64>,
    },
    Error(String),
}

struct Watching {
    dir: PathBuf,
    home: PathBuf,
    rx: mpsc::Receiver<Seen>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<sextant_engine::Result<()>>>,
}

impl Watching {
    fn start(dir: &Path, home: &Path) -> Watching {
        let (tx, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let options = WatchOptions {
            index: IndexOptions {
                home: Some(home.to_path_buf()),
                threads: 1,
                ..IndexOptions::default()
            },
            debounce: DEBOUNCE,
        };
        let thread = {
            let (dir, stop) = (dir.to_path_buf(), stop.clone());
            std::thread::spawn(move || {
                sextant_engine::watch(
                    &dir,
                    &options,
                    |event| {
                        let seen = match event {
                            WatchEvent::Indexing { .. } => Seen::Indexing,
                            WatchEvent::Indexed {
                                summary,
                                trigger,
                                changed,
                                ..
                            } => Seen::Indexed {
                                generation: summary.generation,
                                trigger,
                                changed,
                                shared: summary.reused_generation,
                            },
                            WatchEvent::Error(e) => Seen::Error(e),
                            WatchEvent::Watching | WatchEvent::Rescan(_) => return,
                        };
                        let _ = tx.send(seen);
                    },
                    stop,
                )
            })
        };
        Watching {
            dir: dir.to_path_buf(),
            home: home.to_path_buf(),
            rx,
            stop,
            thread: Some(thread),
        }
    }

    /// The next published generation, with the paths that triggered it.
    fn next_indexed(&self) -> (i64, WatchTrigger, Vec<String>) {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(Seen::Indexed {
                    generation,
                    trigger,
                    changed,
                    ..
                }) => return (generation, trigger, changed),
                Ok(Seen::Error(e)) => panic!("index run failed: {e}"),
                Ok(Seen::Indexing) => {}
                Err(e) => panic!("no generation published within {TIMEOUT:?}: {e}"),
            }
        }
    }

    /// The next published generation of `commit`, and the generation whose resolution it shares.
    fn next_of_commit(&self, commit: &str) -> (i64, Option<i64>) {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(Seen::Indexed {
                    generation, shared, ..
                }) => {
                    let status = sextant_engine::status_in(&self.home, &self.dir, 0).unwrap();
                    if status.generation == Some(generation)
                        && status.graph_commit.as_deref() == Some(commit)
                    {
                        return (generation, shared);
                    }
                }
                Ok(Seen::Error(e)) => panic!("index run failed: {e}"),
                Ok(Seen::Indexing) => {}
                Err(e) => panic!("no generation of {commit} within {TIMEOUT:?}: {e}"),
            }
        }
    }

    /// Polls the published index until `check` holds (or fails after the timeout).
    fn wait_until(&self, what: &str, check: impl Fn(&Repo) -> bool) -> i64 {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Ok(repo) = Repo::open_in(&self.home, &self.dir)
                && check(&repo)
            {
                return repo.generation();
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until nothing has been reported for two debounce periods (plus scheduling slack),
    /// then checks that nothing runs for as long again: the generation stays put. Fails if the
    /// watcher keeps re-triggering itself.
    fn assert_settles(&self) {
        let deadline = Instant::now() + TIMEOUT;
        while self.rx.recv_timeout(DEBOUNCE * 2).is_ok() {
            assert!(Instant::now() < deadline, "the watcher never goes quiet");
        }
        let settled = Repo::open_in(&self.home, &self.dir).unwrap().generation();
        let quiet = self
            .rx
            .recv_timeout(DEBOUNCE * 2 + Duration::from_millis(200));
        assert!(quiet.is_err(), "re-triggered by nothing: {quiet:?}");
        assert_eq!(
            Repo::open_in(&self.home, &self.dir).unwrap().generation(),
            settled
        );
    }

    fn stop(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let result = self.thread.take().unwrap().join().unwrap();
        assert!(result.is_ok(), "{result:?}");
    }
}

fn defines(repo: &Repo, name: &str) -> bool {
    let options = SearchOptions {
        limit: 5,
        ..SearchOptions::default()
    };
    repo.search(name, &options)
        .unwrap()
        .iter()
        .any(|h| h.matched == "exact" && h.symbol.name == name)
}

#[test]
fn watch_reindexes_edits_new_and_deleted_files_commits_and_checkouts_but_not_its_own_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    std::fs::write(
        dir.join("src/shop.py"),
        "class Cart:\n    def add(self, item):\n        return item\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/util.py"),
        "def double(x):\n    return x * 2\n",
    )
    .unwrap();
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "one"]);
    let dir = dir.canonicalize().unwrap();

    let w = Watching::start(&dir, &home);
    let (initial, trigger, _) = w.next_indexed();
    assert_eq!(trigger, WatchTrigger::Initial);
    assert!(initial > 0);

    // An edit.
    std::fs::write(
        dir.join("src/util.py"),
        "def double(x):\n    return x * 2\n\n\ndef quadruple_watched(x):\n    return double(double(x))\n",
    )
    .unwrap();
    let after_edit = w.wait_until("the edit", |r| defines(r, "quadruple_watched"));
    assert!(after_edit > initial);
    let (_, trigger, changed) = w.next_indexed();
    assert_eq!(trigger, WatchTrigger::Changes);
    assert!(changed.contains(&"src/util.py".to_string()), "{changed:?}");

    // A new file and a deleted one, in one burst.
    std::fs::write(
        dir.join("src/extra.py"),
        "def brand_new_watched():\n    return 1\n",
    )
    .unwrap();
    std::fs::remove_file(dir.join("src/shop.py")).unwrap();
    let after_files = w.wait_until("the new and the deleted file", |r| {
        defines(r, "brand_new_watched") && !defines(r, "Cart")
    });
    assert!(after_files > after_edit);

    // A commit changes no working-tree file but moves the branch: the index follows it.
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "two"]);
    let head = git(&dir, &["rev-parse", "HEAD"]).trim().to_string();
    w.wait_until("the commit", |_| {
        sextant_engine::status_in(&home, &dir, 0)
            .ok()
            .and_then(|s| s.graph_commit)
            .as_deref()
            == Some(head.as_str())
    });

    // A checkout that changes no file but HEAD: the index follows the branch.
    git(&dir, &["checkout", "-q", "-b", "feature"]);
    w.wait_until("the checkout", |_| {
        sextant_engine::status_in(&home, &dir, 0)
            .ok()
            .and_then(|s| s.graph_branch)
            .as_deref()
            == Some("feature")
    });

    // Quiet, although every run above wrote the database and read every file.
    w.assert_settles();

    w.stop();
}

#[test]
fn checking_out_indexed_commits_back_and_forth_serves_each_ones_baseline() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    let write = |rel: &str, text: &str| std::fs::write(dir.join(rel), text).unwrap();
    write("src/a.py", "def first_commit_only():\n    return 1\n");
    write(
        "src/b.py",
        "from src.a import first_commit_only\n\ndef caller():\n    first_commit_only()\n",
    );
    write("src/c.py", "def stays():\n    return 3\n");
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "one"]);
    let dir = dir.canonicalize().unwrap();
    let one = git(&dir, &["rev-parse", "HEAD"]).trim().to_string();

    let w = Watching::start(&dir, &home);
    w.next_indexed();
    write("src/a.py", "def second_commit_only():\n    return 2\n");
    write(
        "src/b.py",
        "from src.a import second_commit_only\n\ndef caller():\n    second_commit_only()\n",
    );
    write("src/d.py", "def added_in_two():\n    return 4\n");
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "two"]);
    let two = git(&dir, &["rev-parse", "HEAD"]).trim().to_string();
    w.next_of_commit(&two);
    for round in 0..3 {
        for (rev, commit, present, absent) in [
            (
                one.as_str(),
                &one,
                "first_commit_only",
                "second_commit_only",
            ),
            ("main", &two, "second_commit_only", "first_commit_only"),
        ] {
            git(&dir, &["checkout", "-q", rev]);
            let (generation, shared) = w.next_of_commit(commit);
            assert!(
                shared.is_some(),
                "round {round}, {rev}: not served from its baseline"
            );
            let repo = Repo::open_in(&home, &dir).unwrap();
            assert!(repo.generation() >= generation);
            assert!(
                defines(&repo, present) && !defines(&repo, absent),
                "round {round}, {rev}"
            );
            assert!(defines(&repo, "stays"));
            assert_eq!(defines(&repo, "added_in_two"), commit == &two);
        }
    }
    assert_full_index(&home, &dir, "after the switches");
    w.assert_settles();
    w.stop();
}

#[test]
fn a_data_home_inside_the_repository_never_retriggers_the_watch() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("a.py"), "def a():\n    return 1\n").unwrap();
    let dir = dir.canonicalize().unwrap();
    // The data home (database, WAL, lock, root.txt) lives inside the watched tree.
    let w = Watching::start(&dir, &dir.join(".sextant"));
    let (initial, ..) = w.next_indexed();
    std::fs::write(dir.join("a.py"), "def a_inside():\n    return 1\n").unwrap();
    let edited = w.wait_until("the edit", |r| defines(r, "a_inside"));
    assert!(edited > initial);
    w.assert_settles();
    w.stop();
}

#[test]
fn watch_stops_during_the_initial_index() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.py"), "def a():\n    return 1\n").unwrap();
    let stop = Arc::new(AtomicBool::new(true));
    let options = WatchOptions {
        index: IndexOptions {
            home: Some(tmp.path().join("home")),
            ..IndexOptions::default()
        },
        debounce: DEBOUNCE,
    };
    let mut published = false;
    sextant_engine::watch(
        &dir,
        &options,
        |e| published |= matches!(e, WatchEvent::Indexed { .. }),
        stop,
    )
    .unwrap();
    assert!(!published, "a stopped watch must not publish");
}

/// Storms: a checkout rewriting 600 files, and deleting a directory of 200, each end
/// in an index equal to a full index of the tree, in a bounded number of runs (events are
/// coalesced; a burst touching most files runs the pipeline instead of a live update).
#[test]
fn watcher_storms_end_in_the_full_index_of_the_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    std::fs::create_dir_all(dir.join("pkg/big")).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    let module = |i: usize, v: usize| {
        format!(
            "from pkg.m{} import f{}\n\ndef f{i}():\n    return f{}() + {v}\n",
            (i + 1) % 600,
            (i + 1) % 600,
            (i + 1) % 600
        )
    };
    for i in 0..600 {
        std::fs::write(dir.join(format!("pkg/m{i}.py")), module(i, 0)).unwrap();
    }
    for i in 0..200 {
        std::fs::write(
            dir.join(format!("pkg/big/b{i}.py")),
            format!("def b{i}():\n    return {i}\n"),
        )
        .unwrap();
    }
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-qm", "one"]);
    git(&dir, &["checkout", "-qb", "two"]);
    for i in 0..600 {
        std::fs::write(dir.join(format!("pkg/m{i}.py")), module(i, 1)).unwrap();
    }
    std::fs::write(
        dir.join("pkg/m0.py"),
        "def renamed_on_two():\n    return 0\n",
    )
    .unwrap();
    git(&dir, &["commit", "-qam", "two"]);
    git(&dir, &["checkout", "-q", "main"]);
    let dir = dir.canonicalize().unwrap();
    let home = tmp.path().join("home");
    let w = Watching::start(&dir, &home);
    w.next_indexed();

    // A checkout rewriting every module.
    git(&dir, &["checkout", "-q", "two"]);
    w.wait_until("the checkout", |r| defines(r, "renamed_on_two"));
    assert_full_index(&home, &dir, "after the checkout");

    // Deleting a directory of 200 files.
    std::fs::remove_dir_all(dir.join("pkg/big")).unwrap();
    w.wait_until("the deletion", |r| !defines(r, "b7"));
    assert_full_index(&home, &dir, "after deleting pkg/big");
    w.assert_settles();
    w.stop();
}

/// The watched index comes to equal a full index of the tree (edges and unresolved references):
/// events of a storm may arrive over several runs, so it is polled until the timeout.
fn assert_full_index(home: &Path, dir: &Path, when: &str) {
    let full_home = tempfile::tempdir().unwrap();
    let options = IndexOptions {
        home: Some(full_home.path().to_path_buf()),
        full: true,
        threads: 1,
        ..IndexOptions::default()
    };
    sextant_engine::index(dir, &options, &|_| {}).unwrap();
    let dump = |h: &Path| {
        let repo = Repo::open_in(h, dir).unwrap();
        let mut e = repo.edge_lines().unwrap();
        e.sort();
        let mut u = repo.unresolved_lines().unwrap();
        u.sort();
        (e, u)
    };
    let full = dump(full_home.path());
    let deadline = Instant::now() + TIMEOUT;
    while dump(home) != full {
        assert!(
            Instant::now() < deadline,
            "{when}: the watched index differs from a full index"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
