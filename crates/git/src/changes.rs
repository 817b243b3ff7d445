//! What changed between two commits, or between a commit and the working tree: files (added,
//! deleted, modified, renamed) with exact line hunks (no context lines).
//!
//! Commit ↔ commit uses gix's tree diff with rename tracking and imara-diff (through gix's
//! `blob-diff`) for the lines. Commit ↔ working tree never reads the working tree itself: the
//! caller passes a reader (Sextant's is `sextant-vfs`, the only crate that reads source files), and
//! this module hashes what it returns, compares with the commit's blobs and diffs the lines.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use gix::bstr::ByteSlice;
use gix::diff::blob::{Algorithm, InternedInput, diff_with_slider_heuristics};

use crate::{GitError, err};

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeStatus {
    Added,
    Deleted,
    Modified,
    /// Moved (and possibly edited): `old_path` says from where.
    Renamed,
}

impl ChangeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeStatus::Added => "added",
            ChangeStatus::Deleted => "deleted",
            ChangeStatus::Modified => "modified",
            ChangeStatus::Renamed => "renamed",
        }
    }
}

/// One changed region, in unified-diff numbering: lines are 1-based; a side with `len == 0` has
/// `start` = the line after which the change sits (0 = before the first line), as `git diff` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Hunk {
    pub old_start: u32,
    pub old_len: u32,
    pub new_start: u32,
    pub new_len: u32,
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// The path on the new side (on the old side for a deletion), `/`-separated.
    pub path: String,
    /// The path on the old side of a rename.
    pub old_path: Option<String>,
    pub status: ChangeStatus,
    /// Exact changed regions; empty for binary files and pure renames.
    pub hunks: Vec<Hunk>,
    /// Blob id (hex) on the old side, `None` for an addition.
    pub old_id: Option<String>,
    /// Blob id (hex) on the new side, `None` for a deletion.
    pub new_id: Option<String>,
    /// One side contains NUL bytes: no line hunks.
    pub binary: bool,
}

/// What a working-tree reader found at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorktreeFile {
    /// No such file (deleted in the working tree).
    Missing,
    /// The file exists but was not read (secret, special, too large, binary...): the reason.
    Unreadable(String),
    /// The file's content. `id` is the git blob id of the bytes on disk when the reader already
    /// knows it (then `bytes` may be a decoded text of them); `None` has the bytes hashed here.
    Bytes { bytes: Vec<u8>, id: Option<String> },
}

/// The working tree compared with a commit.
#[derive(Debug, Clone, Default)]
pub struct WorktreeChanges {
    /// The commit compared against (hex), `None` on an unborn branch (everything is added).
    pub base_commit: Option<String>,
    pub changes: Vec<FileChange>,
    /// Paths that could not be compared, with the reader's reason.
    pub unreadable: Vec<(String, String)>,
}

/// The commit a revision (`HEAD`, `main`, `HEAD~3`, an id...) names, as hex.
pub fn resolve_commit(workdir: &Path, rev: &str) -> Result<String, GitError> {
    let repo = gix::open(workdir).map_err(err)?;
    let commit = peel_commit(&repo, rev)?;
    Ok(commit.id.to_string())
}

/// The best common ancestor of two revisions (for `a...b`: what `b` changed since it left `a`).
pub fn merge_base(workdir: &Path, a: &str, b: &str) -> Result<String, GitError> {
    let repo = gix::open(workdir).map_err(err)?;
    let one = peel_commit(&repo, a)?.id;
    let two = peel_commit(&repo, b)?.id;
    repo.merge_base(one, two)
        .map_err(err)?
        .map(|id| id.to_string())
        .ok_or_else(|| GitError(format!("{a} and {b} have no common ancestor")))
}

fn peel_commit<'r>(repo: &'r gix::Repository, rev: &str) -> Result<gix::Commit<'r>, GitError> {
    let id = repo
        .rev_parse_single(rev.as_bytes().as_bstr())
        .map_err(|e| GitError(format!("{rev:?} names no commit: {e}")))?;
    id.object()
        .map_err(err)?
        .peel_to_commit()
        .map_err(|e| GitError(format!("{rev:?} is not a commit: {e}")))
}

fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8000)].contains(&0)
}

/// Exact line hunks turning `old` into `new` (histogram diff with git's slider heuristics).
pub fn diff_lines(old: &[u8], new: &[u8]) -> Vec<Hunk> {
    let input = InternedInput::new(old, new);
    let diff = diff_with_slider_heuristics(Algorithm::Histogram, &input);
    diff.hunks()
        .map(|h| {
            let side = |r: std::ops::Range<u32>| {
                let len = r.end - r.start;
                (if len == 0 { r.start } else { r.start + 1 }, len)
            };
            let (old_start, old_len) = side(h.before);
            let (new_start, new_len) = side(h.after);
            Hunk {
                old_start,
                old_len,
                new_start,
                new_len,
            }
        })
        .collect()
}

/// The number of lines of a text, as a diff counts them.
fn line_count(bytes: &[u8]) -> u32 {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u32;
    newlines + u32::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

fn whole_file(bytes: &[u8], added: bool) -> Vec<Hunk> {
    let n = line_count(bytes);
    if n == 0 {
        return Vec::new();
    }
    vec![if added {
        Hunk {
            old_start: 0,
            old_len: 0,
            new_start: 1,
            new_len: n,
        }
    } else {
        Hunk {
            old_start: 1,
            old_len: n,
            new_start: 0,
            new_len: 0,
        }
    }]
}

fn blob_bytes(repo: &gix::Repository, id: &str) -> Result<Vec<u8>, GitError> {
    let oid = gix::ObjectId::from_hex(id.as_bytes()).map_err(err)?;
    Ok(repo.find_blob(oid).map_err(err)?.data.clone())
}

/// Hunks between two blobs (or a blob and some bytes); `(hunks, binary)`.
fn hunks_between(old: &[u8], new: &[u8]) -> (Vec<Hunk>, bool) {
    if is_binary(old) || is_binary(new) {
        (Vec::new(), true)
    } else {
        (diff_lines(old, new), false)
    }
}

/// Files changed from commit `base` to commit `head` (any revisions), renames tracked
/// (similarity ≥ 50%, as git's default), with line hunks. Symlinks and submodules are left out.
pub fn changed_files(workdir: &Path, base: &str, head: &str) -> Result<Vec<FileChange>, GitError> {
    let repo = gix::open(workdir).map_err(err)?;
    let old_tree = peel_commit(&repo, base)?.tree().map_err(err)?;
    let new_tree = peel_commit(&repo, head)?.tree().map_err(err)?;
    let options = gix::diff::Options::default().with_rewrites(Some(gix::diff::Rewrites::default()));
    let changes = repo
        .diff_tree_to_tree(&old_tree, &new_tree, options)
        .map_err(err)?;
    let mut out = Vec::new();
    for change in changes {
        use gix::object::tree::diff::ChangeDetached as C;
        let file = |mode: gix::object::tree::EntryMode| mode.is_blob();
        let (path, old_path, status, old_id, new_id) = match change {
            C::Addition {
                location,
                entry_mode,
                id,
                ..
            } if file(entry_mode) => (
                location.to_string(),
                None,
                ChangeStatus::Added,
                None,
                Some(id.to_string()),
            ),
            C::Deletion {
                location,
                entry_mode,
                id,
                ..
            } if file(entry_mode) => (
                location.to_string(),
                None,
                ChangeStatus::Deleted,
                Some(id.to_string()),
                None,
            ),
            C::Modification {
                location,
                previous_entry_mode,
                previous_id,
                entry_mode,
                id,
            } if file(entry_mode) && file(previous_entry_mode) => (
                location.to_string(),
                None,
                ChangeStatus::Modified,
                Some(previous_id.to_string()),
                Some(id.to_string()),
            ),
            C::Rewrite {
                source_location,
                source_entry_mode,
                source_id,
                entry_mode,
                id,
                location,
                copy,
                ..
            } if file(entry_mode) && file(source_entry_mode) => {
                if copy {
                    (
                        location.to_string(),
                        None,
                        ChangeStatus::Added,
                        None,
                        Some(id.to_string()),
                    )
                } else {
                    (
                        location.to_string(),
                        Some(source_location.to_string()),
                        ChangeStatus::Renamed,
                        Some(source_id.to_string()),
                        Some(id.to_string()),
                    )
                }
            }
            _ => continue,
        };
        let old = match &old_id {
            Some(id) => blob_bytes(&repo, id)?,
            None => Vec::new(),
        };
        let new = match &new_id {
            Some(id) => blob_bytes(&repo, id)?,
            None => Vec::new(),
        };
        let (hunks, binary) = match status {
            _ if is_binary(&old) || is_binary(&new) => (Vec::new(), true),
            ChangeStatus::Added => (whole_file(&new, true), false),
            ChangeStatus::Deleted => (whole_file(&old, false), false),
            _ if old_id == new_id => (Vec::new(), false),
            _ => hunks_between(&old, &new),
        };
        out.push(FileChange {
            path,
            old_path,
            status,
            hunks,
            old_id,
            new_id,
            binary,
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Path → blob id (hex) of the files (not symlinks or submodules) in a commit's tree.
pub fn tree_blobs(workdir: &Path, rev: &str) -> Result<HashMap<String, String>, GitError> {
    let repo = gix::open(workdir).map_err(err)?;
    let tree = peel_commit(&repo, rev)?.tree().map_err(err)?;
    files_of(&tree)
}

/// Calls `each(path, blob id)` for every file of a commit's tree, as [`tree_blobs`] lists
/// them, without making the list.
pub fn each_tree_blob(
    workdir: &Path,
    rev: &str,
    each: &mut dyn FnMut(&[u8], &[u8]),
) -> Result<(), GitError> {
    let repo = gix::open(workdir).map_err(err)?;
    let tree = peel_commit(&repo, rev)?.tree().map_err(err)?;
    crate::each_blob(&tree, each)
}

pub(crate) fn files_of(tree: &gix::Tree<'_>) -> Result<HashMap<String, String>, GitError> {
    let mut files = HashMap::new();
    crate::each_blob(tree, &mut |path, id| {
        files.insert(
            String::from_utf8_lossy(path).into_owned(),
            gix::ObjectId::from_bytes_or_panic(id).to_string(),
        );
    })?;
    Ok(files)
}

/// The working tree (as `read` sees it) compared with commit `base` (default `HEAD`): files in the
/// commit, in git's index (staged additions) or in `extra_paths` (e.g. untracked files the caller
/// knows about) that differ. `read` is called once per candidate path, from several threads.
/// Exact renames (same content at a new path) are reported as renames.
pub fn worktree_changes(
    workdir: &Path,
    base: Option<&str>,
    extra_paths: &[String],
    read: &(dyn Fn(&str) -> WorktreeFile + Sync),
) -> Result<WorktreeChanges, GitError> {
    let repo = gix::open(workdir).map_err(err)?;
    let (base_commit, base_files) = match base {
        Some(rev) => {
            let commit = peel_commit(&repo, rev)?;
            let tree = commit.tree().map_err(err)?;
            (Some(commit.id.to_string()), files_of(&tree)?)
        }
        None => match repo.head_commit() {
            Ok(commit) => {
                let tree = commit.tree().map_err(err)?;
                (Some(commit.id.to_string()), files_of(&tree)?)
            }
            // An unborn branch: everything is new.
            Err(_) => (None, HashMap::new()),
        },
    };
    let mut candidates: BTreeSet<String> = base_files.keys().cloned().collect();
    if let Ok(index) = repo.index_or_empty() {
        for entry in index.entries() {
            if entry.mode.is_submodule() || entry.mode == gix::index::entry::Mode::SYMLINK {
                continue;
            }
            candidates.insert(entry.path(&index).to_string());
        }
    }
    candidates.extend(extra_paths.iter().cloned());
    let candidates: Vec<String> = candidates.into_iter().collect();

    // Read and hash in parallel; keep only the files that differ.
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let chunk = candidates.len().div_ceil(threads).max(1);
    let hash_kind = repo.object_hash();
    type Found = (String, WorktreeFile, Option<String>);
    let results: Vec<Found> = std::thread::scope(|scope| {
        let handles: Vec<_> = candidates
            .chunks(chunk)
            .map(|paths| {
                let base_files = &base_files;
                scope.spawn(move || {
                    let mut out: Vec<Found> = Vec::new();
                    for path in paths {
                        let file = read(path);
                        let id = match &file {
                            WorktreeFile::Bytes { id: Some(id), .. } => Some(id.clone()),
                            WorktreeFile::Bytes { bytes, id: None } => Some(
                                gix::objs::compute_hash(hash_kind, gix::objs::Kind::Blob, bytes)
                                    .map(|id| id.to_string())
                                    .unwrap_or_default(),
                            ),
                            _ => None,
                        };
                        let unchanged = match (&file, base_files.get(path)) {
                            (WorktreeFile::Missing, None) => true,
                            (WorktreeFile::Bytes { .. }, Some(old)) => id.as_deref() == Some(old),
                            _ => false,
                        };
                        if !unchanged {
                            out.push((path.clone(), file, id));
                        }
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });

    let mut out = WorktreeChanges {
        base_commit,
        ..WorktreeChanges::default()
    };
    let mut added: Vec<(String, Vec<u8>, String)> = Vec::new();
    let mut deleted: BTreeMap<String, String> = BTreeMap::new();
    for (path, file, id) in results {
        let old_id = base_files.get(&path).cloned();
        match (file, old_id) {
            (WorktreeFile::Unreadable(reason), _) => out.unreadable.push((path, reason)),
            (WorktreeFile::Missing, Some(old)) => {
                deleted.insert(path, old);
            }
            (WorktreeFile::Missing, None) => {}
            (WorktreeFile::Bytes { bytes: new, .. }, None) => {
                added.push((path, new, id.unwrap_or_default()))
            }
            (WorktreeFile::Bytes { bytes: new, .. }, Some(old)) => {
                let old_bytes = blob_bytes(&repo, &old)?;
                let (hunks, binary) = hunks_between(&old_bytes, &new);
                out.changes.push(FileChange {
                    path,
                    old_path: None,
                    status: ChangeStatus::Modified,
                    hunks,
                    old_id: Some(old),
                    new_id: id,
                    binary,
                });
            }
        }
    }
    // Exact renames: an added file with the content of a deleted one.
    let mut by_id: HashMap<String, Vec<String>> = HashMap::new();
    for (path, id) in &deleted {
        by_id.entry(id.clone()).or_default().push(path.clone());
    }
    for (path, new, id) in added {
        let source = by_id.get_mut(&id).and_then(|paths| paths.pop());
        match source {
            Some(old_path) => {
                deleted.remove(&old_path);
                out.changes.push(FileChange {
                    path,
                    old_path: Some(old_path),
                    status: ChangeStatus::Renamed,
                    hunks: Vec::new(),
                    old_id: Some(id.clone()),
                    new_id: Some(id),
                    binary: is_binary(&new),
                });
            }
            None => {
                let binary = is_binary(&new);
                out.changes.push(FileChange {
                    path,
                    old_path: None,
                    status: ChangeStatus::Added,
                    hunks: if binary {
                        Vec::new()
                    } else {
                        whole_file(&new, true)
                    },
                    old_id: None,
                    new_id: Some(id),
                    binary,
                });
            }
        }
    }
    for (path, old) in deleted {
        let old_bytes = blob_bytes(&repo, &old)?;
        let binary = is_binary(&old_bytes);
        out.changes.push(FileChange {
            path,
            old_path: None,
            status: ChangeStatus::Deleted,
            hunks: if binary {
                Vec::new()
            } else {
                whole_file(&old_bytes, false)
            },
            old_id: Some(old),
            new_id: None,
            binary,
        });
    }
    out.changes.sort_by(|a, b| a.path.cmp(&b.path));
    out.unreadable.sort();
    Ok(out)
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
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    fn write(root: &Path, path: &str, text: &str) {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn numbered(n: u32, prefix: &str) -> String {
        (1..=n).map(|i| format!("{prefix} line {i}\n")).collect()
    }

    /// A repository with two commits: one edit, one deletion, one rename (edited a little), one
    /// addition.
    fn two_commits() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main"]);
        write(root, "src/a.py", &numbered(10, "a"));
        write(root, "src/gone.py", &numbered(3, "gone"));
        write(root, "src/old_name.py", &numbered(20, "moved"));
        git(root, &["add", "."]);
        git(root, &["commit", "-q", "-m", "one"]);
        let mut a = numbered(10, "a");
        a = a.replace("a line 4\n", "a line four\n");
        a.push_str("a line 11\n");
        write(root, "src/a.py", &a);
        std::fs::remove_file(root.join("src/gone.py")).unwrap();
        std::fs::remove_file(root.join("src/old_name.py")).unwrap();
        write(
            root,
            "src/new_name.py",
            &numbered(20, "moved").replace("moved line 20\n", "moved line twenty\n"),
        );
        write(root, "src/fresh.py", "x = 1\ny = 2\n");
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "two"]);
        dir
    }

    fn find<'a>(changes: &'a [FileChange], path: &str) -> &'a FileChange {
        changes
            .iter()
            .find(|c| c.path == path)
            .unwrap_or_else(|| panic!("{path} not in {changes:#?}"))
    }

    #[test]
    fn line_hunks_use_unified_numbering() {
        let h = |a, b, c, d| Hunk {
            old_start: a,
            old_len: b,
            new_start: c,
            new_len: d,
        };
        assert_eq!(diff_lines(b"a\nb\nc\n", b"a\nB\nc\n"), vec![h(2, 1, 2, 1)]);
        assert_eq!(diff_lines(b"a\nb\nc\n", b"a\nc\n"), vec![h(2, 1, 1, 0)]);
        assert_eq!(diff_lines(b"a\nc\n", b"a\nb\nc\n"), vec![h(1, 0, 2, 1)]);
        assert_eq!(diff_lines(b"", b"a\n"), vec![h(0, 0, 1, 1)]);
        assert!(diff_lines(b"same\n", b"same\n").is_empty());
    }

    #[test]
    fn commit_to_commit_with_rename_delete_and_add() {
        let dir = two_commits();
        let root = dir.path();
        let changes = changed_files(root, "HEAD~1", "HEAD").unwrap();
        assert_eq!(changes.len(), 4, "{changes:#?}");
        let a = find(&changes, "src/a.py");
        assert_eq!(a.status, ChangeStatus::Modified);
        assert_eq!(
            a.hunks,
            vec![
                Hunk {
                    old_start: 4,
                    old_len: 1,
                    new_start: 4,
                    new_len: 1
                },
                Hunk {
                    old_start: 10,
                    old_len: 0,
                    new_start: 11,
                    new_len: 1
                }
            ]
        );
        let gone = find(&changes, "src/gone.py");
        assert_eq!(gone.status, ChangeStatus::Deleted);
        assert_eq!(gone.hunks[0].old_len, 3);
        assert!(gone.new_id.is_none());
        let moved = find(&changes, "src/new_name.py");
        assert_eq!(moved.status, ChangeStatus::Renamed);
        assert_eq!(moved.old_path.as_deref(), Some("src/old_name.py"));
        assert_eq!(moved.hunks.len(), 1);
        assert_eq!(moved.hunks[0].new_start, 20);
        let fresh = find(&changes, "src/fresh.py");
        assert_eq!(fresh.status, ChangeStatus::Added);
        assert_eq!(
            fresh.hunks,
            vec![Hunk {
                old_start: 0,
                old_len: 0,
                new_start: 1,
                new_len: 2
            }]
        );
        // Reversed, the rename goes the other way and the addition is a deletion.
        let back = changed_files(root, "HEAD", "HEAD~1").unwrap();
        assert_eq!(find(&back, "src/fresh.py").status, ChangeStatus::Deleted);
        assert_eq!(
            find(&back, "src/old_name.py").old_path.as_deref(),
            Some("src/new_name.py")
        );
        assert!(changed_files(root, "nope", "HEAD").is_err());
        assert_eq!(
            resolve_commit(root, "HEAD").unwrap(),
            crate::head(root).unwrap().commit.unwrap()
        );
        assert_eq!(
            merge_base(root, "HEAD", "HEAD~1").unwrap(),
            resolve_commit(root, "HEAD~1").unwrap()
        );
    }

    fn disk_reader(root: &Path) -> impl Fn(&str) -> WorktreeFile + Sync + '_ {
        move |path: &str| {
            if path.ends_with(".secret") {
                return WorktreeFile::Unreadable("secret".into());
            }
            match std::fs::read(root.join(path)) {
                Ok(bytes) => WorktreeFile::Bytes { bytes, id: None },
                Err(_) => WorktreeFile::Missing,
            }
        }
    }

    #[test]
    fn worktree_against_head_and_an_older_commit() {
        let dir = two_commits();
        let root = dir.path();
        let read = disk_reader(root);
        assert!(
            worktree_changes(root, None, &[], &read)
                .unwrap()
                .changes
                .is_empty()
        );
        // Edit, delete, stage a new file, leave an untracked one, rename one, a secret one.
        let a = std::fs::read_to_string(root.join("src/a.py"))
            .unwrap()
            .replace("a line 7\n", "a line seven\na line 7b\n");
        write(root, "src/a.py", &a);
        std::fs::remove_file(root.join("src/fresh.py")).unwrap();
        write(root, "src/staged.py", "s = 1\n");
        git(root, &["add", "src/staged.py"]);
        write(root, "src/untracked.py", "u = 1\n");
        write(root, "src/ignored_by_caller.py", "i = 1\n");
        std::fs::rename(root.join("src/new_name.py"), root.join("src/renamed.py")).unwrap();
        write(root, "keys.secret", "k\n");
        let extra = vec![
            "src/untracked.py".to_string(),
            "src/renamed.py".to_string(),
            "keys.secret".to_string(),
        ];
        let wt = worktree_changes(root, None, &extra, &read).unwrap();
        let changes = &wt.changes;
        assert_eq!(wt.base_commit, crate::head(root).unwrap().commit);
        let a = find(changes, "src/a.py");
        assert_eq!(a.status, ChangeStatus::Modified);
        assert_eq!(
            a.hunks,
            vec![Hunk {
                old_start: 7,
                old_len: 1,
                new_start: 7,
                new_len: 2
            }]
        );
        assert_eq!(find(changes, "src/fresh.py").status, ChangeStatus::Deleted);
        assert_eq!(find(changes, "src/staged.py").status, ChangeStatus::Added);
        let untracked = find(changes, "src/untracked.py");
        assert_eq!(untracked.status, ChangeStatus::Added);
        assert_eq!(untracked.hunks[0].new_len, 1);
        let renamed = find(changes, "src/renamed.py");
        assert_eq!(renamed.status, ChangeStatus::Renamed);
        assert_eq!(renamed.old_path.as_deref(), Some("src/new_name.py"));
        assert!(!changes.iter().any(|c| c.path == "src/new_name.py"));
        // Untracked files the caller did not name are not looked at.
        assert!(!changes.iter().any(|c| c.path.contains("ignored_by_caller")));
        assert_eq!(
            wt.unreadable,
            vec![("keys.secret".to_string(), "secret".to_string())]
        );
        assert_eq!(changes.len(), 5, "{changes:#?}");

        // Against the first commit: a.py carries both commits' edits, gone.py is deleted.
        let wt = worktree_changes(root, Some("HEAD~1"), &extra, &read).unwrap();
        let a = find(&wt.changes, "src/a.py");
        assert_eq!(a.hunks.len(), 3, "{:?}", a.hunks);
        assert_eq!(
            find(&wt.changes, "src/gone.py").status,
            ChangeStatus::Deleted
        );
        assert!(worktree_changes(root, Some("no-such-ref"), &[], &read).is_err());
    }

    #[test]
    fn unborn_branch_has_everything_added() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main"]);
        write(root, "a.py", "a = 1\n");
        let read = disk_reader(root);
        let wt = worktree_changes(root, None, &["a.py".to_string()], &read).unwrap();
        assert_eq!(wt.base_commit, None);
        assert_eq!(wt.changes.len(), 1);
        assert_eq!(wt.changes[0].status, ChangeStatus::Added);
    }
}
