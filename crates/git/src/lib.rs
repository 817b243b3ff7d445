//! The only `.git` access in Sextant: find the repository of a path, its HEAD commit and branch,
//! the blob ids of the files in the HEAD tree (so the walk can tell committed files from
//! uncommitted ones without running git), and what changed between commits or between a commit
//! and the working tree (`changes.rs`).

mod changes;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use changes::{
    ChangeStatus, FileChange, Hunk, WorktreeChanges, WorktreeFile, changed_files, diff_lines,
    each_tree_blob, merge_base, resolve_commit, tree_blobs, worktree_changes,
};

/// A git failure, as text (gix errors are many types).
#[derive(Debug, thiserror::Error)]
#[error("git: {0}")]
pub struct GitError(String);

fn err(e: impl std::fmt::Display) -> GitError {
    GitError(e.to_string())
}

/// What Sextant needs to know about a repository's HEAD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadInfo {
    /// The working tree root.
    pub workdir: PathBuf,
    /// The HEAD commit id (hex), `None` for an unborn branch.
    pub commit: Option<String>,
    /// The branch name (`main`), `None` when detached.
    pub branch: Option<String>,
}

/// The git working tree containing `path`, if any (`None` outside a repository or for a bare one).
pub fn discover(path: &Path) -> Option<PathBuf> {
    let repo = gix::discover(path).ok()?;
    repo.workdir().map(Path::to_path_buf)
}

/// HEAD of the repository whose working tree is `workdir`.
pub fn head(workdir: &Path) -> Result<HeadInfo, GitError> {
    let repo = gix::open(workdir).map_err(err)?;
    head_of(&repo, workdir)
}

/// A repository opened once, for callers that ask for HEAD often (the live index checks it on
/// every update; opening reads the configuration, which costs tens of milliseconds).
pub struct OpenRepo {
    repo: gix::ThreadSafeRepository,
    workdir: PathBuf,
}

impl OpenRepo {
    /// Opens the repository whose working tree is `workdir`.
    pub fn open(workdir: &Path) -> Result<OpenRepo, GitError> {
        let repo = gix::open(workdir).map_err(err)?;
        Ok(OpenRepo {
            repo: repo.into_sync(),
            workdir: workdir.to_path_buf(),
        })
    }

    /// The repository whose working tree contains `path` (found upwards, like [`discover`]),
    /// opened once.
    pub fn discover(path: &Path) -> Option<OpenRepo> {
        let repo = gix::discover(path).ok()?;
        let workdir = repo.workdir()?.to_path_buf();
        Some(OpenRepo {
            repo: repo.into_sync(),
            workdir,
        })
    }

    /// The working tree.
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// HEAD as it is now (references are read again on every call).
    pub fn head(&self) -> Result<HeadInfo, GitError> {
        head_of(&self.repo.to_thread_local(), &self.workdir)
    }

    /// Calls `each(path, blob id)` for every file of HEAD's tree, as [`head_blobs`] lists them,
    /// without making the list: one path is held at a time. `false` for an unborn branch.
    pub fn each_head_blob(&self, each: &mut dyn FnMut(&[u8], &[u8])) -> Result<bool, GitError> {
        let repo = self.repo.to_thread_local();
        let Ok(tree) = repo.head_tree() else {
            return Ok(false);
        };
        each_blob(&tree, each)?;
        Ok(true)
    }
}

/// Calls `each(path, blob id)` for every file (blob) of `tree`, depth first, with its
/// `/`-separated path. Only the path being visited and those of the trees still to finish are
/// held, not the list of entries.
pub(crate) fn each_blob(
    tree: &gix::Tree<'_>,
    each: &mut dyn FnMut(&[u8], &[u8]),
) -> Result<(), GitError> {
    let mut visit = BlobVisit {
        each,
        path: Vec::new(),
        pending: Vec::new(),
    };
    tree.traverse().depthfirst(&mut visit).map_err(err)
}

/// The tree traversal's delegate for [`each_blob`]: keeps the current path as gix's own
/// recorder does, and reports blobs.
struct BlobVisit<'a> {
    each: &'a mut dyn FnMut(&[u8], &[u8]),
    path: Vec<u8>,
    /// Paths to go back to, one or two a level of the trees being walked.
    pending: Vec<Vec<u8>>,
}

impl BlobVisit<'_> {
    fn push(&mut self, name: &[u8]) {
        if name.is_empty() {
            return;
        }
        if !self.path.is_empty() {
            self.path.push(b'/');
        }
        self.path.extend_from_slice(name);
    }
}

impl gix::traverse::tree::Visit for BlobVisit<'_> {
    fn pop_back_tracked_path_and_set_current(&mut self) {
        self.path = self.pending.pop().unwrap_or_default();
    }

    fn pop_front_tracked_path_and_set_current(&mut self) {
        // Only a breadth-first traversal asks for this one.
        if !self.pending.is_empty() {
            self.path = self.pending.remove(0);
        }
    }

    fn push_back_tracked_path_component(&mut self, component: &gix::bstr::BStr) {
        self.push(component);
        self.pending.push(self.path.clone());
    }

    fn push_path_component(&mut self, component: &gix::bstr::BStr) {
        self.push(component);
    }

    fn pop_path_component(&mut self) {
        match self.path.iter().rposition(|&b| b == b'/') {
            Some(at) => self.path.truncate(at),
            None => self.path.clear(),
        }
    }

    fn visit_tree(
        &mut self,
        _entry: &gix::objs::tree::EntryRef<'_>,
    ) -> gix::traverse::tree::visit::Action {
        std::ops::ControlFlow::Continue(true)
    }

    fn visit_nontree(
        &mut self,
        entry: &gix::objs::tree::EntryRef<'_>,
    ) -> gix::traverse::tree::visit::Action {
        if entry.mode.is_blob() {
            (self.each)(&self.path, entry.oid.as_bytes());
        }
        std::ops::ControlFlow::Continue(true)
    }
}

fn head_of(repo: &gix::Repository, workdir: &Path) -> Result<HeadInfo, GitError> {
    let commit = repo.head_id().ok().map(|id| id.to_string());
    let branch = repo
        .head_name()
        .map_err(err)?
        .map(|name| name.shorten().to_string());
    Ok(HeadInfo {
        workdir: repo.workdir().unwrap_or(workdir).to_path_buf(),
        commit,
        branch,
    })
}

/// Path (`/`-separated, relative to the working tree) → blob id (hex) for every file in HEAD's tree.
/// Empty for an unborn branch.
pub fn head_blobs(workdir: &Path) -> Result<HashMap<String, String>, GitError> {
    let repo = gix::open(workdir).map_err(err)?;
    let Ok(tree) = repo.head_tree() else {
        return Ok(HashMap::new());
    };
    changes::files_of(&tree)
}

/// The identity of the repository whose working tree is `workdir`, the same on every clone
/// wherever it lives: the id of the root commit reached from HEAD by first parents. Fails on an
/// unborn branch and on a shallow clone (its root commit is not available).
pub fn repository_key(workdir: &Path) -> Result<String, GitError> {
    let repo = gix::open(workdir).map_err(err)?;
    if repo.is_shallow().map_err(err)? {
        return Err(GitError(
            "shallow clone: its root commit is not available, so it has no identity shared with other clones (fetch the whole history: git fetch --unshallow)".into(),
        ));
    }
    let mut id = repo
        .head_id()
        .map_err(|e| GitError(format!("HEAD names no commit: {e}")))?
        .detach();
    loop {
        let commit = repo.find_commit(id).map_err(err)?;
        match commit.parent_ids().next() {
            Some(parent) => id = parent.detach(),
            None => return Ok(id.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let status = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    /// Two clones in different directories share the key; it survives new commits and is the
    /// root commit's id.
    #[test]
    fn repository_key_is_the_root_commit_on_every_clone() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::create_dir(&a).unwrap();
        git(&a, &["init", "-q", "-b", "main"]);
        assert!(repository_key(&a).is_err(), "an unborn branch has no key");
        std::fs::write(a.join("x.py"), "1\n").unwrap();
        git(&a, &["add", "."]);
        git(&a, &["commit", "-q", "-m", "one"]);
        let root = head(&a).unwrap().commit.unwrap();
        std::fs::write(a.join("x.py"), "2\n").unwrap();
        git(&a, &["commit", "-q", "-am", "two"]);
        assert_eq!(repository_key(&a).unwrap(), root);
        let b = dir.path().join("elsewhere").join("b");
        std::fs::create_dir_all(b.parent().unwrap()).unwrap();
        git(
            dir.path(),
            &["clone", "-q", a.to_str().unwrap(), b.to_str().unwrap()],
        );
        assert_eq!(repository_key(&b).unwrap(), root);
        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        git(&other, &["init", "-q", "-b", "main"]);
        std::fs::write(other.join("x.py"), "1\n").unwrap();
        git(&other, &["add", "."]);
        git(&other, &["commit", "-q", "-m", "unrelated"]);
        assert_ne!(repository_key(&other).unwrap(), root);
    }

    #[test]
    fn head_and_blobs_of_a_real_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main"]);
        assert_eq!(head(root).unwrap().commit, None);
        assert!(head_blobs(root).unwrap().is_empty());
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.py"), "hello\n").unwrap();
        git(root, &["add", "."]);
        git(root, &["commit", "-q", "-m", "one"]);
        let info = head(root).unwrap();
        assert_eq!(info.branch.as_deref(), Some("main"));
        assert_eq!(info.commit.as_ref().map(String::len), Some(40));
        let blobs = head_blobs(root).unwrap();
        assert_eq!(
            blobs.get("src/a.py").map(String::as_str),
            Some("ce013625030ba8dba906f756967f9e9ca394464a")
        );
        let nested = root.join("src");
        assert_eq!(
            discover(&nested).unwrap().canonicalize().unwrap(),
            root.canonicalize().unwrap()
        );
    }

    /// Every file of a nested tree is visited once with its full path and blob id, as `git
    /// ls-tree -r` lists them (siblings after a subtree keep their parent's path); symlinks and
    /// submodules are not files. An unborn branch has none.
    #[test]
    fn each_head_blob_visits_what_ls_tree_lists() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main"]);
        let open = OpenRepo::open(root).unwrap();
        assert!(!open.each_head_blob(&mut |_, _| panic!("no tree")).unwrap());
        for (path, text) in [
            ("a.py", "1\n"),
            ("b/c/d.py", "2\n"),
            ("b/c/e/f.rs", "3\n"),
            ("b/c.txt", "4\n"),
            ("b/z.py", "5\n"),
            ("b-c/g.go", "6\n"),
            ("z/y/x/w.c", "7\n"),
            ("z/y.h", "1\n"),
        ] {
            std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            std::fs::write(root.join(path), text).unwrap();
        }
        std::os::unix::fs::symlink("a.py", root.join("link.py")).unwrap();
        git(root, &["add", "."]);
        git(root, &["commit", "-q", "-m", "one"]);
        let mut seen = Vec::new();
        let open = OpenRepo::open(root).unwrap();
        let found = open
            .each_head_blob(&mut |path, id| {
                let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
                seen.push(format!("{hex} {}", String::from_utf8_lossy(path)));
            })
            .unwrap();
        assert!(found);
        seen.sort();
        let listed = Command::new("git")
            .args(["ls-tree", "-r", "HEAD"])
            .current_dir(root)
            .output()
            .unwrap();
        let mut expected: Vec<String> = String::from_utf8(listed.stdout)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("120000"))
            .map(|l| {
                let (meta, path) = l.split_once('\t').unwrap();
                format!("{} {path}", meta.rsplit(' ').next().unwrap())
            })
            .collect();
        expected.sort();
        assert_eq!(seen.len(), 8);
        assert_eq!(seen, expected);
        let map = head_blobs(root).unwrap();
        assert_eq!(map.len(), 8);
        assert_eq!(map.get("b/c/e/f.rs").map(String::len), Some(40), "{map:?}");
    }

    /// An opened repository sees commits, branch switches and detached checkouts made after it
    /// was opened.
    #[test]
    fn an_open_repository_reads_head_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main"]);
        std::fs::write(root.join("a.py"), "one\n").unwrap();
        git(root, &["add", "."]);
        git(root, &["commit", "-q", "-m", "one"]);
        let open = OpenRepo::open(root).unwrap();
        let first = open.head().unwrap();
        assert_eq!(first, head(root).unwrap());
        std::fs::write(root.join("a.py"), "two\n").unwrap();
        git(root, &["commit", "-q", "-am", "two"]);
        let second = open.head().unwrap();
        assert_ne!(second.commit, first.commit);
        assert_eq!(second, head(root).unwrap());
        git(root, &["checkout", "-q", "-b", "other"]);
        assert_eq!(open.head().unwrap().branch.as_deref(), Some("other"));
        git(root, &["checkout", "-q", "--detach", "HEAD~1"]);
        let detached = open.head().unwrap();
        assert_eq!(detached.branch, None);
        assert_eq!(detached.commit, first.commit);
    }
}
