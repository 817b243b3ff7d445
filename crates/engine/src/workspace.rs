//! Named workspaces (issue 5): agents that must not see each other's edits each get one. A
//! workspace is a base generation (the clean, published generation of a commit: HEAD's by
//! default), an overlay (path → text, or deleted) and a revision that each refresh changing
//! something increments. Its overlay is queryable as a generation of its own: the live index
//! ([`crate::live`]) loads the workspace's last generation (or its base), applies the overlay's
//! changed files, and publishes the result beside the active generation without making it active.
//! Workspaces live in the repository's `index.db` (`workspaces`, `workspace_files`); garbage
//! collection keeps their generations while they exist and collects them after a reset or delete.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rustc_hash::FxHashMap;
use sextant_git::WorktreeFile;
use sextant_lang::Registry;
use sextant_store::{Store, WorkspaceFileRow, WorkspaceRow};

use crate::home::DataDir;
use crate::live::{GenerationFingerprint, LiveIndex, Overlay};
use crate::{Error, IndexOptions, Result};

/// A workspace as listed.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WorkspaceInfo {
    pub name: String,
    /// The commit the overlay applies to (`None` outside git).
    pub base_commit: Option<String>,
    pub base_generation: i64,
    /// The generation answering for the workspace (its base until a refresh changed something).
    pub generation: i64,
    pub revision: i64,
    /// Files the overlay changes, adds or deletes.
    pub modified_files: u64,
    /// The base commit is not HEAD any more.
    pub is_stale: bool,
    /// Unix seconds.
    pub created_at: i64,
    pub refreshed_at: Option<i64>,
}

/// `list`: every workspace and the repository's HEAD.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WorkspaceList {
    pub workspaces: Vec<WorkspaceInfo>,
    pub head_commit: Option<String>,
}

/// `create`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WorkspaceCreated {
    pub name: String,
    pub base_commit: Option<String>,
    pub base_generation: i64,
    pub revision: i64,
    /// False: it existed already (nothing changed).
    pub created: bool,
}

/// `reset`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WorkspaceReset {
    pub name: String,
    pub previous_revision: i64,
    pub new_revision: i64,
}

/// `delete`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WorkspaceDeleted {
    pub name: String,
    /// False: there was no such workspace.
    pub deleted: bool,
}

/// `refresh`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WorkspaceRefresh {
    pub name: String,
    /// Files whose text in the workspace changed (modified, added or deleted) and were indexed
    /// again.
    pub files_reindexed: u64,
    /// Definitions in the new versions of those files, plus those of the files it deleted.
    pub symbols_updated: u64,
    pub revision: i64,
    /// The generation answering for the workspace now.
    pub generation: i64,
    /// The paths that changed, sorted.
    pub changed: Vec<String>,
    /// Where the files came from: `working_tree` (auto-detected), `paths` or `contents`.
    pub source: &'static str,
    pub wall_seconds: f64,
    /// Seconds per phase: `detect` (reading and comparing the files), `load` (the workspace's
    /// generation into a live index), then the live update's own phases.
    pub phases: Vec<(String, f64)>,
    /// The workspace's live index was kept in memory from this process's previous refresh
    /// (nothing loaded).
    pub kept: bool,
}

/// What a refresh takes into the overlay.
#[derive(Debug, Clone, Default)]
pub struct RefreshInput {
    /// Re-read these paths from disk.
    pub paths: Option<Vec<String>>,
    /// Take these texts (`None`: the file is deleted in the workspace), disk untouched.
    pub contents: Option<Vec<(String, Option<String>)>>,
}

/// Workspaces' live indexes kept between refreshes by this process (an MCP server refreshes the
/// same workspace again and again; loading one reads its generation and builds a resolver). One
/// is reused only while the workspace is where this process left it: the same revision and the
/// same generation (by id, start time and summary, since ids are reused after garbage
/// collection).
struct Kept {
    db: PathBuf,
    name: String,
    revision: i64,
    generation: GenerationFingerprint,
    live: LiveIndex,
}

/// How many workspaces' live indexes a process keeps (each holds a generation's facts and a
/// resolver: about 150 MB on Django).
const KEEP_LIVE: usize = 2;

static KEPT: std::sync::Mutex<Vec<Kept>> = std::sync::Mutex::new(Vec::new());

fn kept() -> std::sync::MutexGuard<'static, Vec<Kept>> {
    KEPT.lock().unwrap_or_else(|p| p.into_inner())
}

/// Takes the kept live index of workspace `name` if it is still current; drops a stale one.
fn take_kept(
    db: &Path,
    name: &str,
    revision: i64,
    generation: &Option<GenerationFingerprint>,
) -> Option<LiveIndex> {
    let mut kept = kept();
    let at = kept.iter().position(|k| k.db == db && k.name == name)?;
    let k = kept.remove(at);
    drop(kept);
    if k.revision == revision && Some(&k.generation) == generation.as_ref() {
        Some(k.live)
    } else {
        // Freeing a generation's worth of strings takes a while: not on the caller's time.
        std::thread::spawn(move || drop(k));
        None
    }
}

fn keep(db: PathBuf, name: &str, revision: i64, mut live: LiveIndex) {
    let Ok(Some(generation)) = live.fingerprint() else {
        return;
    };
    let mut kept = kept();
    kept.retain(|k| !(k.db == db && k.name == name));
    kept.insert(
        0,
        Kept {
            db,
            name: name.to_string(),
            revision,
            generation,
            live,
        },
    );
    let keep = KEEP_LIVE.min(kept.len());
    let old: Vec<Kept> = kept.drain(keep..).collect();
    drop(kept);
    if !old.is_empty() {
        std::thread::spawn(move || drop(old));
    }
}

/// Forgets the kept live index of workspace `name` (reset or deleted).
fn forget_kept(db: &Path, name: &str) {
    let mut kept = kept();
    let gone: Vec<Kept> = kept
        .extract_if(.., |k| k.db == db && k.name == name)
        .collect();
    drop(kept);
    if !gone.is_empty() {
        std::thread::spawn(move || drop(gone));
    }
}

fn open_store(home: &Path, root: &Path) -> Result<(PathBuf, DataDir, Store)> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let data = DataDir::in_home(home, &root);
    if !data.exists() {
        return Err(Error::NotIndexed(root.display().to_string()));
    }
    let store = Store::open(&data.db())?;
    Ok((root, data, store))
}

/// A workspace name: 1-64 of `A-Z a-z 0-9 . _ -`, not starting with `.` or `-`.
pub fn check_name(name: &str) -> Result<&str> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with(['.', '-'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(name)
    } else {
        Err(Error::InvalidArgument(format!(
            "workspace name {name:?}: use 1-64 letters, digits, '.', '_' or '-' (not starting with '.' or '-')"
        )))
    }
}

fn not_found(name: &str) -> Error {
    Error::InvalidArgument(format!(
        "no workspace named {name:?}; create it first (`sextant workspace create {name}` or the `workspace_create` tool)"
    ))
}

/// HEAD's commit when `root` is the top of a git working tree.
fn head_commit(root: &Path) -> Option<String> {
    let top = sextant_git::discover(root).and_then(|w| w.canonicalize().ok())?;
    (top == root)
        .then(|| sextant_git::head(root).ok().and_then(|h| h.commit))
        .flatten()
}

/// The newest clean published generation of `commit` (the active one when it qualifies).
pub(crate) fn clean_generation(store: &Store, commit: &str) -> Result<Option<i64>> {
    let active = store.active_generation_id()?;
    let gens = store.generations()?;
    let clean = |g: &&sextant_store::GenerationInfo| {
        g.status == "published" && !g.dirty && g.commit.as_deref() == Some(commit)
    };
    if let Some(g) = gens.iter().filter(clean).find(|g| g.id == active) {
        return Ok(Some(g.id));
    }
    Ok(gens.iter().filter(clean).map(|g| g.id).max())
}

/// Creates the workspace `name` on the clean generation of `commit` (a revision; default HEAD,
/// or the active generation outside git). Idempotent: an existing workspace is returned as it is.
pub fn create_workspace(
    home: &Path,
    root: &Path,
    name: &str,
    commit: Option<&str>,
) -> Result<WorkspaceCreated> {
    check_name(name)?;
    let (root, data, mut store) = open_store(home, root)?;
    let _lock = crate::pipeline::lock(&data, &|_| {})?;
    if let Some(w) = store.workspace(name)? {
        return Ok(WorkspaceCreated {
            name: w.name,
            base_commit: w.base_commit,
            base_generation: w.base_generation,
            revision: w.revision,
            created: false,
        });
    }
    let wanted = match commit {
        Some(rev) => Some(sextant_git::resolve_commit(&root, rev)?),
        None => head_commit(&root),
    };
    let (base_commit, base_generation) = match wanted {
        Some(c) => {
            let Some(g) = clean_generation(&store, &c)? else {
                return Err(Error::InvalidArgument(format!(
                    "no clean index of commit {}: a workspace starts from the index of a commit with no uncommitted files; commit or stash the changes and run `sextant index`, or name an indexed commit",
                    &c[..c.len().min(12)]
                )));
            };
            (Some(c), g)
        }
        None => {
            let g = store.active_generation_id()?;
            if g == 0 {
                return Err(Error::NotIndexed(root.display().to_string()));
            }
            (None, g)
        }
    };
    store.create_workspace(name, base_commit.as_deref(), base_generation)?;
    Ok(WorkspaceCreated {
        name: name.to_string(),
        base_commit,
        base_generation,
        revision: 0,
        created: true,
    })
}

/// Drops the overlay of `name` (revision back to 0); its generation is collected.
pub fn reset_workspace(home: &Path, root: &Path, name: &str) -> Result<WorkspaceReset> {
    check_name(name)?;
    let (_, data, mut store) = open_store(home, root)?;
    let _lock = crate::pipeline::lock(&data, &|_| {})?;
    let w = store.workspace(name)?.ok_or_else(|| not_found(name))?;
    forget_kept(&data.db(), name);
    store.set_workspace_state(name, None, 0, &[])?;
    store.collect_garbage(2)?;
    Ok(WorkspaceReset {
        name: name.to_string(),
        previous_revision: w.revision,
        new_revision: 0,
    })
}

/// Deletes `name` and collects its generation.
pub fn delete_workspace(home: &Path, root: &Path, name: &str) -> Result<WorkspaceDeleted> {
    let (_, data, mut store) = open_store(home, root)?;
    let _lock = crate::pipeline::lock(&data, &|_| {})?;
    forget_kept(&data.db(), name);
    let deleted = store.delete_workspace(name)?;
    if deleted {
        store.collect_garbage(2)?;
    }
    Ok(WorkspaceDeleted {
        name: name.to_string(),
        deleted,
    })
}

/// Every workspace of the repository at `root`.
pub fn list_workspaces(home: &Path, root: &Path) -> Result<WorkspaceList> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let data = DataDir::in_home(home, &root);
    if !data.exists() {
        return Err(Error::NotIndexed(root.display().to_string()));
    }
    let store = Store::open_read_only(&data.db())?;
    let head = head_commit(&root);
    let counts: BTreeMap<String, u64> = store.workspace_file_counts()?.into_iter().collect();
    let workspaces = store
        .workspaces()?
        .into_iter()
        .map(|w| info(w, &counts, head.as_deref()))
        .collect();
    Ok(WorkspaceList {
        workspaces,
        head_commit: head,
    })
}

fn info(w: WorkspaceRow, counts: &BTreeMap<String, u64>, head: Option<&str>) -> WorkspaceInfo {
    WorkspaceInfo {
        modified_files: counts.get(&w.name).copied().unwrap_or(0),
        is_stale: head.is_some() && w.base_commit.as_deref() != head,
        generation: w.generation.unwrap_or(w.base_generation),
        name: w.name,
        base_commit: w.base_commit,
        base_generation: w.base_generation,
        revision: w.revision,
        created_at: w.created_at,
        refreshed_at: w.refreshed_at,
    }
}

/// Size and modification time (ns) of the file at `rel`, `None` when absent.
pub(crate) fn disk_state(root: &Path, rel: &str) -> (Option<i64>, Option<i64>) {
    let Ok(meta) = std::fs::symlink_metadata(root.join(rel)) else {
        return (None, None);
    };
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64);
    (Some(meta.len() as i64), mtime)
}

/// The text of `rel` on disk through `sextant-vfs` (`None`: missing; unreadable files fail).
fn read_disk(root: &Path, rel: &str, max: u64) -> Result<Option<String>> {
    let abs = match sextant_vfs::confine(root, rel) {
        Ok((_, abs)) => abs,
        Err(sextant_vfs::ConfineError::Io { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    sextant_vfs::read_source(&abs, max, 10_000, 400)
        .map(|f| Some(f.text))
        .map_err(|e| Error::Io(format!("{rel}: {} ({})", e.reason.as_str(), e.detail)))
}

/// Checks that `path` is inside the repository; a file that does not exist (yet: a workspace may
/// add it) needs its nearest existing ancestor inside.
fn confine_new(root: &Path, path: &str) -> Result<()> {
    let mut at = Some(Path::new(path));
    while let Some(p) = at.filter(|p| !p.as_os_str().is_empty()) {
        match sextant_vfs::confine(root, &p.to_string_lossy()) {
            Ok(_) => return Ok(()),
            Err(sextant_vfs::ConfineError::Io { .. }) => at = p.parent(),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// A repository-relative path an agent named: normalized, confined, not secret.
fn check_path(root: &Path, raw: &str) -> Result<String> {
    let path = raw.trim().trim_start_matches("./").to_string();
    sextant_model::RepoPath::new(&path)
        .map_err(|e| Error::InvalidArgument(format!("path {raw:?}: {e}")))?;
    confine_new(root, &path)?;
    if sextant_vfs::is_secret_path(&path) {
        return Err(Error::InvalidArgument(format!(
            "{path}: refusing a secret-bearing file"
        )));
    }
    Ok(path)
}

/// Brings the workspace `name` up to date: with `input.contents` those texts, with `input.paths`
/// those files as they are on disk, with neither every file of the working tree that differs
/// from the base commit (auto-detected by `sextant-git`; files of the overlay that no longer
/// differ go back to the base). When some file's text in the workspace changed, the workspace's
/// generation is rebuilt by a live update and the revision increments.
pub fn refresh_workspace(
    home: &Path,
    root: &Path,
    name: &str,
    input: &RefreshInput,
) -> Result<WorkspaceRefresh> {
    let started = Instant::now();
    check_name(name)?;
    let (root, data, store) = open_store(home, root)?;
    let w = store.workspace(name)?.ok_or_else(|| not_found(name))?;
    let current = store
        .generation(w.generation.unwrap_or(w.base_generation))?
        .map(|g| (g.id, g.started_at, g.stats));
    let old: BTreeMap<String, WorkspaceFileRow> = store
        .workspace_files(name)?
        .into_iter()
        .map(|f| (f.path.clone(), f))
        .collect();
    let base: FxHashMap<String, String> = store
        .files(w.base_generation)?
        .into_iter()
        .map(|f| (f.path, f.hash))
        .collect();
    let options = IndexOptions {
        home: Some(home.to_path_buf()),
        ..IndexOptions::default()
    };
    let max = options.max_file_size;
    let registry = Registry::builtin()?;

    // The workspace's text of every path this refresh looks at (`None`: deleted).
    let mut view: BTreeMap<String, Option<String>> = BTreeMap::new();
    let source = match (&input.contents, &input.paths) {
        (Some(contents), _) => {
            for (raw, text) in contents {
                view.insert(check_path(&root, raw)?, text.clone());
            }
            "contents"
        }
        (None, Some(paths)) => {
            for raw in paths {
                let path = check_path(&root, raw)?;
                let text = read_disk(&root, &path, max)?;
                view.insert(path, text);
            }
            "paths"
        }
        (None, None) => {
            let Some(commit) = w.base_commit.clone() else {
                return Err(Error::InvalidArgument(
                    "auto-detecting changed files needs git (the workspace has no base commit); pass the paths or the contents".into(),
                ));
            };
            // Files that cannot be read as source (binary, minified, too large) are left out.
            for path in worktree_changed(&root, &commit, &registry, &options)? {
                if let Ok(text) = read_disk(&root, &path, max) {
                    view.insert(path, text);
                }
            }
            // Overlay files the working tree no longer changes are back to the base.
            for path in old.keys() {
                if !view.contains_key(path)
                    && let Ok(text) = read_disk(&root, path, max)
                {
                    view.insert(path.clone(), text);
                }
            }
            "working_tree"
        }
    };
    view.retain(|p, _| registry.for_path(p).is_some());

    // The new overlay: every path whose workspace text differs from the base.
    let mut overlay: BTreeMap<String, WorkspaceFileRow> = old.clone();
    for (path, text) in &view {
        let hash = text.as_ref().map(|t| sextant_vfs::blob_id(t.as_bytes()));
        if hash.as_ref() == base.get(path) {
            overlay.remove(path);
            continue;
        }
        let (disk_size, disk_mtime) = disk_state(&root, path);
        overlay.insert(
            path.clone(),
            WorkspaceFileRow {
                path: path.clone(),
                content: text.clone(),
                hash,
                disk_size,
                disk_mtime,
            },
        );
    }
    // Paths whose text in the workspace changed.
    let text_of = |m: &BTreeMap<String, WorkspaceFileRow>, p: &str| {
        m.get(p)
            .map(|f| f.hash.clone())
            .unwrap_or_else(|| base.get(p).cloned())
    };
    let changed: BTreeSet<String> = old
        .keys()
        .chain(overlay.keys())
        .filter(|p| text_of(&old, p) != text_of(&overlay, p))
        .cloned()
        .collect();
    let rows: Vec<WorkspaceFileRow> = overlay.into_values().collect();
    drop(store);
    if changed.is_empty() {
        // Nothing to index; the disk state of the overlay's files is recorded again.
        if rows != old.values().cloned().collect::<Vec<_>>() {
            let (_, data, mut store) = open_store(home, &root)?;
            let _lock = crate::pipeline::lock(&data, &|_| {})?;
            store.set_workspace_state(name, w.generation, w.revision, &rows)?;
        }
        return Ok(WorkspaceRefresh {
            name: name.to_string(),
            files_reindexed: 0,
            symbols_updated: 0,
            revision: w.revision,
            generation: w.generation.unwrap_or(w.base_generation),
            changed: Vec::new(),
            source,
            wall_seconds: started.elapsed().as_secs_f64(),
            phases: vec![("detect".into(), started.elapsed().as_secs_f64())],
            kept: false,
        });
    }

    // The texts the live update reads: the overlay's, or the base's (what `view` read).
    let mut texts: FxHashMap<String, Option<String>> = FxHashMap::default();
    for path in &changed {
        let text = match rows.iter().find(|r| &r.path == path) {
            Some(r) => r.content.clone(),
            None => match view.get(path) {
                Some(t) => t.clone(),
                None => read_disk(&root, path, max)?,
            },
        };
        texts.insert(path.clone(), text);
    }
    let revision = w.revision + 1;
    let record_name = name.to_string();
    let record_rows = rows.clone();
    let overlay = Overlay {
        generation: w.generation.unwrap_or(w.base_generation),
        texts,
        on_publish: Some(Box::new(move |store: &mut Store, generation: i64| {
            // Another refresh, reset or delete got there first: this generation is left to
            // garbage collection (no workspace names it) and the caller told to retry.
            let now = store.workspace(&record_name)?.map(|w| w.revision);
            if now != Some(revision - 1) {
                return Err(Error::InvalidArgument(format!(
                    "workspace {record_name:?} changed during this refresh (another refresh, reset or delete); refresh again"
                )));
            }
            store.set_workspace_state(&record_name, Some(generation), revision, &record_rows)?;
            store.collect_garbage(2)?;
            Ok(())
        })),
    };
    let detect = started.elapsed().as_secs_f64();
    let (mut live, kept) = match take_kept(&data.db(), name, w.revision, &current) {
        Some(mut live) => {
            live.set_overlay(overlay);
            (live, true)
        }
        None => (LiveIndex::open_overlay(&root, &options, overlay)?, false),
    };
    let load = started.elapsed().as_secs_f64() - detect;
    let before: BTreeMap<&String, u64> = changed
        .iter()
        .map(|p| (p, live.symbol_count(p) as u64))
        .collect();
    let paths: Vec<PathBuf> = changed.iter().map(PathBuf::from).collect();
    let update = live.update(&paths)?;
    let generation = match update.generation {
        Some(g) => g,
        None => {
            // The files changed in the overlay but not for the index (e.g. back to the text the
            // workspace's generation already holds): record the overlay alone.
            let (_, data, mut store) = open_store(home, &root)?;
            let _lock = crate::pipeline::lock(&data, &|_| {})?;
            store.set_workspace_state(name, w.generation, revision, &rows)?;
            w.generation.unwrap_or(w.base_generation)
        }
    };
    // Definitions written for the files that changed, or removed with the files deleted.
    let symbols_updated: u64 = changed
        .iter()
        .map(|p| match live.symbol_count(p) as u64 {
            0 => before.get(p).copied().unwrap_or(0),
            n => n,
        })
        .sum();
    keep(data.db(), name, revision, live);
    let phases: Vec<(String, f64)> = [("detect".to_string(), detect), ("load".to_string(), load)]
        .into_iter()
        .chain(update.phases)
        .collect();
    tracing::debug!(
        workspace = name,
        revision,
        kept,
        ?phases,
        "workspace refreshed"
    );
    Ok(WorkspaceRefresh {
        name: name.to_string(),
        files_reindexed: update.files_changed + update.files_added + update.files_deleted,
        symbols_updated,
        revision,
        generation,
        changed: changed.into_iter().collect(),
        source,
        wall_seconds: started.elapsed().as_secs_f64(),
        phases,
        kept,
    })
}

/// Indexable paths of the working tree that differ from `commit` (modified, added, deleted; both
/// sides of a rename), read through `sextant-vfs` and compared by `sextant-git`.
fn worktree_changed(
    root: &Path,
    commit: &str,
    registry: &Registry,
    options: &IndexOptions,
) -> Result<Vec<String>> {
    let home = options.home.clone().unwrap_or_else(crate::home::data_home);
    let mut exclude = vec![DataDir::in_home(&home, root).dir];
    if let Ok(home) = home.canonicalize() {
        exclude.push(home);
    }
    let config = sextant_vfs::WalkConfig {
        max_file_size: options.max_file_size,
        exclude,
        ..sextant_vfs::WalkConfig::default()
    };
    // Untracked files git's index does not know: the walk finds them (ignore rules apply).
    let walk = sextant_vfs::walk(root, &config, |p| registry.for_path(p).is_some());
    let extra: Vec<String> = walk
        .files
        .iter()
        .map(|f| f.path.as_str().to_string())
        .collect();
    let root_buf = root.to_path_buf();
    let read = move |path: &str| -> WorktreeFile {
        if sextant_vfs::is_secret_path(path) {
            return WorktreeFile::Unreadable("secret-bearing file".into());
        }
        let abs = match sextant_vfs::confine(&root_buf, path) {
            Ok((_, abs)) => abs,
            Err(sextant_vfs::ConfineError::Io { .. }) => return WorktreeFile::Missing,
            Err(e) => return WorktreeFile::Unreadable(e.to_string()),
        };
        match sextant_vfs::read_source(&abs, 16 << 20, usize::MAX, usize::MAX) {
            Ok(f) => WorktreeFile::Bytes {
                bytes: f.text.into_bytes(),
                id: Some(f.hash),
            },
            Err(e) => WorktreeFile::Unreadable(format!("{} ({})", e.reason.as_str(), e.detail)),
        }
    };
    let changes = sextant_git::worktree_changes(root, Some(commit), &extra, &read)?;
    let mut out: BTreeSet<String> = BTreeSet::new();
    for c in changes.changes {
        out.extend(c.old_path);
        out.insert(c.path);
    }
    Ok(out
        .into_iter()
        .filter(|p| registry.for_path(p).is_some() && !sextant_vfs::is_secret_path(p))
        .collect())
}

/// The view of a workspace that queries need: its generation, overlay texts and which of them
/// changed on disk since the last refresh.
pub(crate) struct WorkspaceView {
    pub(crate) row: WorkspaceRow,
    pub(crate) texts: BTreeMap<String, Option<String>>,
    pub(crate) pending_sync: Vec<String>,
}

/// Reads the workspace `name` for a query (read-only).
pub(crate) fn view(store: &Store, root: &Path, name: &str) -> Result<WorkspaceView> {
    let row = store.workspace(name)?.ok_or_else(|| not_found(name))?;
    let mut texts = BTreeMap::new();
    let mut pending_sync = Vec::new();
    for f in store.workspace_files(name)? {
        if (f.disk_size, f.disk_mtime) != disk_state(root, &f.path) {
            pending_sync.push(f.path.clone());
        }
        texts.insert(f.path, f.content);
    }
    Ok(WorkspaceView {
        row,
        texts,
        pending_sync,
    })
}

/// Which sources answer a query (the consistency modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Consistency {
    /// The clean baseline generation of HEAD's commit (the active one when it is clean); with a
    /// workspace named, that workspace's base generation.
    Committed,
    /// The named workspace's generation, or the active (live) generation when none is named.
    #[default]
    Workspace,
    /// [`Consistency::Workspace`] plus the request's virtual files in span reads.
    Ephemeral,
}

impl Consistency {
    pub fn as_str(self) -> &'static str {
        match self {
            Consistency::Committed => "committed",
            Consistency::Workspace => "workspace",
            Consistency::Ephemeral => "ephemeral",
        }
    }

    /// `committed`, `workspace` or `ephemeral`.
    pub fn parse(text: &str) -> Option<Consistency> {
        match text {
            "committed" => Some(Consistency::Committed),
            "workspace" => Some(Consistency::Workspace),
            "ephemeral" => Some(Consistency::Ephemeral),
            _ => None,
        }
    }
}

/// What a query asks to see.
#[derive(Debug, Clone, Default)]
pub struct ViewRequest {
    /// Default: `ephemeral` with virtual files, else `workspace`.
    pub consistency: Option<Consistency>,
    pub workspace: Option<String>,
    /// `(path, text)`: replace the file's text in span reads (source, excerpts), for this request
    /// only. Only with `ephemeral`.
    pub virtual_files: Vec<(String, String)>,
}

impl ViewRequest {
    /// Nothing asked: the active generation, the disk.
    pub fn is_default(&self) -> bool {
        self.workspace.is_none()
            && self.virtual_files.is_empty()
            && matches!(self.consistency, None | Some(Consistency::Workspace))
    }
}

/// Which view answered a query.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ViewInfo {
    pub consistency: Consistency,
    /// The commit of the generation answering (`None` outside git).
    pub baseline_commit: Option<String>,
    pub workspace: Option<String>,
    /// The workspace's revision.
    pub revision: Option<i64>,
    /// Overlay files whose file on disk changed (size or modification time) since the
    /// workspace's last refresh: refresh to take them in.
    pub pending_sync: Vec<String>,
    /// The request's virtual files, by path.
    pub virtual_files: Vec<String>,
}

impl crate::Repo {
    /// Answers from the view `request` asks for until [`Repo::reset_view`]: another generation
    /// (a workspace's, or the committed baseline) and texts replacing the disk's in span reads.
    /// Errors name the argument at fault.
    pub fn apply_view(&mut self, request: &ViewRequest) -> Result<()> {
        let consistency = request
            .consistency
            .unwrap_or(if request.virtual_files.is_empty() {
                Consistency::Workspace
            } else {
                Consistency::Ephemeral
            });
        if consistency == Consistency::Ephemeral && request.virtual_files.is_empty() {
            return Err(Error::InvalidArgument(
                "consistency `ephemeral` needs `virtual_files` (the unsaved texts to read spans from); use `workspace` without them".into(),
            ));
        }
        if consistency != Consistency::Ephemeral && !request.virtual_files.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "`virtual_files` are only read with consistency `ephemeral` (not `{}`)",
                consistency.as_str()
            )));
        }
        let mut texts: BTreeMap<String, Option<String>> = BTreeMap::new();
        let mut view = ViewInfo {
            consistency,
            workspace: request.workspace.clone(),
            ..ViewInfo::default()
        };
        let generation = match (&request.workspace, consistency) {
            (Some(name), mode) => {
                let ws = crate::workspace::view(self.store(), &self.root, name)?;
                view.revision = Some(ws.row.revision);
                view.baseline_commit = ws.row.base_commit.clone();
                if mode == Consistency::Committed {
                    ws.row.base_generation
                } else {
                    view.pending_sync = ws.pending_sync;
                    texts = ws.texts;
                    ws.row.generation.unwrap_or(ws.row.base_generation)
                }
            }
            (None, Consistency::Committed) => {
                let Some(head) = head_commit(&self.root) else {
                    return Err(Error::InvalidArgument(
                        "consistency `committed` needs a git repository (HEAD's commit)".into(),
                    ));
                };
                let Some(g) = clean_generation(self.store(), &head)? else {
                    return Err(Error::InvalidArgument(format!(
                        "consistency `committed`: no clean index of HEAD ({}) is kept; run `sextant index` on a clean working tree, or use consistency `workspace`",
                        &head[..head.len().min(12)]
                    )));
                };
                view.baseline_commit = Some(head);
                g
            }
            (None, _) => {
                view.baseline_commit = self.store().generation(self.opened)?.and_then(|g| g.commit);
                self.opened
            }
        };
        for (raw, text) in &request.virtual_files {
            let path = check_path(&self.root, raw)
                .map_err(|e| Error::InvalidArgument(format!("argument `virtual_files`: {e}")))?;
            view.virtual_files.push(path.clone());
            texts.insert(path, Some(text.clone()));
        }
        self.generation = generation;
        self.texts = texts;
        self.view = view;
        Ok(())
    }

    /// Back to the generation the repository was opened on, reading the disk.
    pub fn reset_view(&mut self) {
        self.generation = self.opened;
        self.texts.clear();
        self.view = ViewInfo::default();
    }

    /// The view answering now.
    pub fn view(&self) -> &ViewInfo {
        &self.view
    }
}
