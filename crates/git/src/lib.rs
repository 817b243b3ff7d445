//! The only `.git` access in Sextant: find the repository of a path, its HEAD commit and branch,
//! the blob ids of the files in the HEAD tree (so the walk can tell committed files from
//! uncommitted ones without running git), and what changed between commits or between a commit
//! and the working tree (`changes.rs`).

mod changes;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use changes::{
    ChangeStatus, FileChange, Hunk, WorktreeChanges, WorktreeFile, changed_files, diff_lines,
    merge_base, resolve_commit, tree_blobs, worktree_changes,
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

    /// [`head_blobs`] of this repository.
    pub fn head_blobs(&self) -> Result<HashMap<String, String>, GitError> {
        head_blobs_of(&self.repo.to_thread_local())
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
    head_blobs_of(&gix::open(workdir).map_err(err)?)
}

fn head_blobs_of(repo: &gix::Repository) -> Result<HashMap<String, String>, GitError> {
    let Ok(tree) = repo.head_tree() else {
        return Ok(HashMap::new());
    };
    let entries = tree.traverse().breadthfirst.files().map_err(err)?;
    Ok(entries
        .into_iter()
        .filter(|e| e.mode.is_blob())
        .map(|e| (e.filepath.to_string(), e.oid.to_string()))
        .collect())
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
