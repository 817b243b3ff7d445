//! Named workspaces and consistency modes at the engine boundary, on real git repositories and
//! real SQLite: isolation between workspaces and from the committed view, refresh by
//! auto-detection and by explicit contents, generations collected after reset and delete, a
//! workspace surviving index runs and garbage collection, stale detection, virtual files.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sextant_engine::{
    Consistency, IndexOptions, RefreshInput, Repo, SearchOptions, ViewRequest, baselines,
    collect_baselines, create_workspace, delete_workspace, list_workspaces, refresh_workspace,
    reset_workspace,
};

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

const A: &str = "def helper():\n    return 1\n\n\ndef caller():\n    return helper()\n";
const B: &str = "from app.a import helper\n\n\ndef other():\n    return helper()\n";

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl Fixture {
    /// A committed two-file Python repository, indexed clean.
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let home = dir.path().join("home");
        std::fs::create_dir_all(root.join("app")).unwrap();
        std::fs::write(root.join("app/__init__.py"), "").unwrap();
        std::fs::write(root.join("app/a.py"), A).unwrap();
        std::fs::write(root.join("app/b.py"), B).unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        git(&root, &["add", "-A"]);
        git(&root, &["commit", "-q", "-m", "one"]);
        let root = root.canonicalize().unwrap();
        let f = Fixture {
            _dir: dir,
            root,
            home,
        };
        f.index();
        f
    }

    fn options(&self) -> IndexOptions {
        IndexOptions {
            home: Some(self.home.clone()),
            threads: 2,
            ..IndexOptions::default()
        }
    }

    fn index(&self) {
        sextant_engine::index(&self.root, &self.options(), &|_| {}).unwrap();
    }

    fn repo(&self, request: &ViewRequest) -> Repo {
        let mut repo = Repo::open_in(&self.home, &self.root).unwrap();
        repo.apply_view(request).unwrap();
        repo
    }

    fn workspace(&self, name: &str) -> Repo {
        self.repo(&ViewRequest {
            workspace: Some(name.into()),
            ..ViewRequest::default()
        })
    }

    fn names(&self, repo: &Repo, query: &str) -> Vec<String> {
        let mut names: Vec<String> = repo
            .search(query, &SearchOptions::default())
            .unwrap()
            .into_iter()
            .filter(|h| h.matched == "exact")
            .map(|h| h.symbol.qualified_name)
            .collect();
        names.sort();
        names
    }

    fn contents(
        &self,
        name: &str,
        files: &[(&str, Option<&str>)],
    ) -> sextant_engine::WorkspaceRefresh {
        let input = RefreshInput {
            contents: Some(
                files
                    .iter()
                    .map(|(p, t)| (p.to_string(), t.map(str::to_string)))
                    .collect(),
            ),
            paths: None,
        };
        refresh_workspace(&self.home, &self.root, name, &input).unwrap()
    }

    fn generations(&self) -> Vec<(i64, String)> {
        baselines(&self.home, &self.root)
            .unwrap()
            .into_iter()
            .map(|b| (b.generation, b.status))
            .collect()
    }

    fn callers(&self, repo: &Repo, symbol: &str) -> Vec<String> {
        let s = repo.resolve_symbol(symbol).unwrap();
        let mut out: Vec<String> = repo
            .calls(&s, true, 1, 50)
            .unwrap()
            .steps
            .into_iter()
            .map(|s| s.neighbor.symbol.qualified_name)
            .collect();
        out.sort();
        out
    }
}

#[test]
fn two_workspaces_editing_the_same_file_stay_isolated() {
    let f = Fixture::new();
    let created = create_workspace(&f.home, &f.root, "alice", None).unwrap();
    assert!(created.created);
    assert_eq!(created.revision, 0);
    assert!(created.base_commit.is_some());
    // Idempotent.
    let again = create_workspace(&f.home, &f.root, "alice", None).unwrap();
    assert!(!again.created);
    assert_eq!(again.base_generation, created.base_generation);
    create_workspace(&f.home, &f.root, "bob", None).unwrap();

    let alice_a = format!("{A}\n\ndef alice_only():\n    return helper()\n");
    let bob_a = format!("{A}\n\ndef bob_only():\n    return helper()\n");
    let r = f.contents("alice", &[("app/a.py", Some(&alice_a))]);
    assert_eq!((r.revision, r.files_reindexed), (1, 1));
    assert_eq!(r.changed, vec!["app/a.py".to_string()]);
    assert!(r.symbols_updated >= 3, "{r:?}");
    let r = f.contents("bob", &[("app/a.py", Some(&bob_a))]);
    assert_eq!(r.revision, 1);

    let alice = f.workspace("alice");
    let bob = f.workspace("bob");
    let active = f.repo(&ViewRequest::default());
    let committed = f.repo(&ViewRequest {
        consistency: Some(Consistency::Committed),
        ..ViewRequest::default()
    });
    assert_eq!(f.names(&alice, "alice_only"), vec!["app.a.alice_only"]);
    assert!(f.names(&alice, "bob_only").is_empty());
    assert_eq!(f.names(&bob, "bob_only"), vec!["app.a.bob_only"]);
    assert!(f.names(&bob, "alice_only").is_empty());
    for view in [&active, &committed] {
        assert!(f.names(view, "alice_only").is_empty());
        assert!(f.names(view, "bob_only").is_empty());
    }
    // The graph follows: alice's new function calls `helper` in alice's view only.
    assert_eq!(
        f.callers(&alice, "app.a.helper"),
        vec!["app.a.alice_only", "app.a.caller", "app.b.other"]
    );
    assert_eq!(
        f.callers(&committed, "app.a.helper"),
        vec!["app.a.caller", "app.b.other"]
    );
    // Source comes from the overlay, not the (unchanged) disk.
    let s = alice.resolve_symbol("app.a.alice_only").unwrap();
    let span = alice.source_of(&s, 0).unwrap();
    assert!(span.text.contains("def alice_only"), "{}", span.text);
    assert!(!span.stale);
    assert_eq!(alice.view().workspace.as_deref(), Some("alice"));
    assert_eq!(alice.view().revision, Some(1));
    assert_eq!(alice.view().baseline_commit, created.base_commit);
    // The active generation did not move.
    assert_eq!(active.generation(), committed.generation());
    let list = list_workspaces(&f.home, &f.root).unwrap();
    let names: Vec<(&str, i64, u64, bool)> = list
        .workspaces
        .iter()
        .map(|w| (w.name.as_str(), w.revision, w.modified_files, w.is_stale))
        .collect();
    assert_eq!(names, vec![("alice", 1, 1, false), ("bob", 1, 1, false)]);
}

#[test]
fn refresh_auto_detects_the_working_tree_and_reverts() {
    let f = Fixture::new();
    create_workspace(&f.home, &f.root, "w", None).unwrap();
    let auto = RefreshInput::default();
    std::fs::write(
        f.root.join("app/a.py"),
        format!("{A}\n\ndef edited():\n    return 2\n"),
    )
    .unwrap();
    std::fs::write(f.root.join("app/c.py"), "def added_file():\n    pass\n").unwrap();
    std::fs::remove_file(f.root.join("app/b.py")).unwrap();
    let r = refresh_workspace(&f.home, &f.root, "w", &auto).unwrap();
    assert_eq!(r.source, "working_tree");
    assert_eq!(r.changed, vec!["app/a.py", "app/b.py", "app/c.py"]);
    assert_eq!((r.revision, r.files_reindexed), (1, 3));
    let w = f.workspace("w");
    assert_eq!(f.names(&w, "edited"), vec!["app.a.edited"]);
    assert_eq!(f.names(&w, "added_file"), vec!["app.c.added_file"]);
    assert!(f.names(&w, "other").is_empty(), "b.py is deleted in w");
    assert!(w.view().pending_sync.is_empty());
    // Nothing changed since: no new revision.
    let r = refresh_workspace(&f.home, &f.root, "w", &auto).unwrap();
    assert_eq!((r.revision, r.files_reindexed), (1, 0));
    // The disk moves on: pending until the next refresh.
    std::fs::write(
        f.root.join("app/c.py"),
        "def added_file():\n    return 42\n",
    )
    .unwrap();
    assert_eq!(f.workspace("w").view().pending_sync, vec!["app/c.py"]);
    // Back to the commit: the overlay empties.
    git(&f.root, &["checkout", "--", "."]);
    std::fs::remove_file(f.root.join("app/c.py")).unwrap();
    let r = refresh_workspace(&f.home, &f.root, "w", &auto).unwrap();
    assert_eq!(r.revision, 2);
    assert_eq!(r.changed, vec!["app/a.py", "app/b.py", "app/c.py"]);
    let w = f.workspace("w");
    assert!(f.names(&w, "edited").is_empty());
    assert_eq!(f.names(&w, "other"), vec!["app.b.other"]);
    let list = list_workspaces(&f.home, &f.root).unwrap();
    assert_eq!(list.workspaces[0].modified_files, 0);
    // Explicit paths read the disk.
    std::fs::write(
        f.root.join("app/b.py"),
        format!("{B}\n\ndef by_path():\n    pass\n"),
    )
    .unwrap();
    let paths = RefreshInput {
        paths: Some(vec!["app/b.py".into()]),
        contents: None,
    };
    let r = refresh_workspace(&f.home, &f.root, "w", &paths).unwrap();
    assert_eq!((r.source, r.revision), ("paths", 3));
    assert_eq!(f.names(&f.workspace("w"), "by_path"), vec!["app.b.by_path"]);
}

#[test]
fn reset_and_delete_collect_the_workspace_generations() {
    let f = Fixture::new();
    let before = f.generations();
    create_workspace(&f.home, &f.root, "w", None).unwrap();
    let r = f.contents("w", &[("app/a.py", Some("def only_in_w():\n    pass\n"))]);
    assert!(
        f.generations()
            .contains(&(r.generation, "workspace".to_string())),
        "{:?}",
        f.generations()
    );
    // A second refresh replaces the generation; the first is collected.
    let r2 = f.contents("w", &[("app/c.py", Some("def second():\n    pass\n"))]);
    assert_eq!(r2.revision, 2);
    assert!(!f.generations().iter().any(|(g, _)| *g == r.generation));
    let reset = reset_workspace(&f.home, &f.root, "w").unwrap();
    assert_eq!((reset.previous_revision, reset.new_revision), (2, 0));
    assert_eq!(f.generations(), before);
    let w = f.workspace("w");
    assert!(f.names(&w, "only_in_w").is_empty());
    assert_eq!(f.names(&w, "helper"), vec!["app.a.helper"]);

    let r = f.contents("w", &[("app/a.py", None)]);
    assert_eq!(r.revision, 1);
    assert!(f.names(&f.workspace("w"), "helper").is_empty());
    assert!(f.generations().iter().any(|(g, _)| *g == r.generation));
    assert!(delete_workspace(&f.home, &f.root, "w").unwrap().deleted);
    assert_eq!(f.generations(), before);
    assert!(!delete_workspace(&f.home, &f.root, "w").unwrap().deleted);
    let mut repo = Repo::open_in(&f.home, &f.root).unwrap();
    let err = repo
        .apply_view(&ViewRequest {
            workspace: Some("w".into()),
            ..ViewRequest::default()
        })
        .unwrap_err();
    assert!(err.to_string().contains("no workspace named"), "{err}");
}

#[test]
fn workspace_survives_index_runs_gc_and_goes_stale_after_a_commit() {
    let f = Fixture::new();
    let created = create_workspace(&f.home, &f.root, "w", None).unwrap();
    let r = f.contents("w", &[("app/a.py", Some("def kept():\n    pass\n"))]);
    // Many commits, each indexed: more than the kept baselines.
    for i in 0..7 {
        std::fs::write(
            f.root.join(format!("app/n{i}.py")),
            format!("def n{i}():\n    pass\n"),
        )
        .unwrap();
        git(&f.root, &["add", "-A"]);
        git(&f.root, &["commit", "-q", "-m", &format!("c{i}")]);
        f.index();
    }
    collect_baselines(&f.home, &f.root).unwrap();
    let gens = f.generations();
    assert!(gens.iter().any(|(g, _)| *g == r.generation), "{gens:?}");
    assert!(
        gens.iter().any(|(g, _)| *g == created.base_generation),
        "{gens:?}"
    );
    let w = f.workspace("w");
    assert_eq!(f.names(&w, "kept"), vec!["app.a.kept"]);
    assert!(
        f.names(&w, "n6").is_empty(),
        "the workspace stays on its base commit"
    );
    assert_eq!(
        f.names(&f.repo(&ViewRequest::default()), "n6"),
        vec!["app.n6.n6"]
    );
    let list = list_workspaces(&f.home, &f.root).unwrap();
    assert!(list.workspaces[0].is_stale);
    assert_ne!(list.head_commit, created.base_commit);
    // The committed view of the workspace is its base.
    let base = f.repo(&ViewRequest {
        workspace: Some("w".into()),
        consistency: Some(Consistency::Committed),
        ..ViewRequest::default()
    });
    assert_eq!(base.generation(), created.base_generation);
    assert!(f.names(&base, "kept").is_empty());
}

#[test]
fn virtual_files_change_source_reads_only() {
    let f = Fixture::new();
    let plain = f.repo(&ViewRequest::default());
    let helper = plain.resolve_symbol("app.a.helper").unwrap();
    let disk = plain.source_of(&helper, 0).unwrap();
    assert_eq!(disk.text, "def helper():\n    return 1");
    let unsaved = "def helper():\n    return 99\n\n\ndef caller():\n    return helper()\n\ndef unsaved():\n    pass\n";
    let eph = f.repo(&ViewRequest {
        consistency: Some(Consistency::Ephemeral),
        virtual_files: vec![("app/a.py".into(), unsaved.into())],
        ..ViewRequest::default()
    });
    let span = eph
        .source_of(&eph.resolve_symbol("app.a.helper").unwrap(), 0)
        .unwrap();
    assert_eq!(span.text, "def helper():\n    return 99");
    assert!(
        span.stale,
        "the virtual text differs from the indexed version"
    );
    // The graph is the indexed one: the virtual file's new function is not a symbol.
    assert!(f.names(&eph, "unsaved").is_empty());
    assert_eq!(eph.generation(), plain.generation());
    assert_eq!(eph.view().virtual_files, vec!["app/a.py"]);
    // Reference excerpts read the virtual text too.
    let lines = eph.line_excerpts(&[("app/a.py".into(), 2)], 100);
    assert_eq!(
        lines.get(&("app/a.py".to_string(), 2)).unwrap(),
        "return 99"
    );
    // Modes are checked.
    let mut repo = Repo::open_in(&f.home, &f.root).unwrap();
    let err = repo
        .apply_view(&ViewRequest {
            consistency: Some(Consistency::Ephemeral),
            ..ViewRequest::default()
        })
        .unwrap_err();
    assert!(err.to_string().contains("needs `virtual_files`"), "{err}");
    let err = repo
        .apply_view(&ViewRequest {
            consistency: Some(Consistency::Committed),
            virtual_files: vec![("app/a.py".into(), "x".into())],
            ..ViewRequest::default()
        })
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("only read with consistency `ephemeral`"),
        "{err}"
    );
    // Reset: the disk again.
    repo.apply_view(&ViewRequest {
        virtual_files: vec![("app/a.py".into(), unsaved.into())],
        ..ViewRequest::default()
    })
    .unwrap();
    repo.reset_view();
    assert_eq!(repo.source_of(&helper, 0).unwrap().text, disk.text);
}

#[test]
fn a_workspace_index_kept_between_refreshes_answers_like_a_loaded_one() {
    let f = Fixture::new();
    create_workspace(&f.home, &f.root, "kept", None).unwrap();
    create_workspace(&f.home, &f.root, "fresh", None).unwrap();
    let steps = [
        format!("{A}\n\ndef first():\n    return helper()\n"),
        format!("{A}\n\ndef first():\n    return caller()\n\ndef second():\n    return first()\n"),
        "def helper():\n    return 2\n\n\ndef second():\n    return helper()\n".to_string(),
    ];
    let b2 = format!("{B}\n\ndef more():\n    return other()\n");
    for (i, text) in steps.iter().enumerate() {
        let r = f.contents("kept", &[("app/a.py", Some(text)), ("app/b.py", Some(&b2))]);
        // The first refresh loads the workspace's generation; later ones keep it in memory.
        assert_eq!(r.kept, i > 0, "step {i}: {r:?}");
        assert_eq!(r.revision, i as i64 + 1);
    }
    // Another workspace refreshed once with the final text: the same graph.
    let r = f.contents(
        "fresh",
        &[("app/a.py", Some(&steps[2])), ("app/b.py", Some(&b2))],
    );
    assert!(!r.kept, "{r:?}");
    let kept = f.workspace("kept").edge_lines().unwrap();
    let fresh = f.workspace("fresh").edge_lines().unwrap();
    assert!(!kept.is_empty());
    assert_eq!(kept, fresh);
    assert_eq!(f.names(&f.workspace("kept"), "first"), Vec::<String>::new());
    assert_eq!(
        f.callers(&f.workspace("kept"), "app.a.helper"),
        vec!["app.a.second", "app.b.other"]
    );
    // A reset forgets the kept index: the next refresh loads again.
    sextant_engine::reset_workspace(&f.home, &f.root, "kept").unwrap();
    let r = f.contents("kept", &[("app/a.py", Some(&steps[0]))]);
    assert!(!r.kept, "{r:?}");
    assert_eq!(f.names(&f.workspace("kept"), "first"), vec!["app.a.first"]);
}
