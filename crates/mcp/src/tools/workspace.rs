//! Workspace tools (the `workspace` toolset): `watch`, `unwatch` and `watched`, over the
//! process-wide watch registry (`crate::watches`). Watching a repository keeps its index fresh
//! (an initial incremental index, then a live update after every debounced burst of file
//! changes), so answers for it with `repo` follow the working tree. Named workspaces
//! (`workspace_create`, `workspace_refresh`, `workspace_reset`, `workspace_list`,
//! `workspace_delete`) give agents that must not see each other's edits an overlay each, which
//! the read tools answer from with their `workspace` argument.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{Json, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sextant_engine::{self as engine, WatchOptions};

use crate::budget::json_len;
use crate::dto::*;
use crate::server::SextantServer;
use crate::watches::{State, WatchStatus, registry};

/// `watch` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchArgs {
    /// The repository to watch: a directory (indexed or not; inside a repository means that
    /// repository's root), or an indexed repository's id from `status`. Default "": the
    /// repository this server was started for.
    #[serde(default)]
    pub repo: String,
}

/// `unwatch` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnwatchArgs {
    /// The watched repository: its root path or id, as `watched` lists them. Default "": the
    /// repository this server was started for.
    #[serde(default)]
    pub repo: String,
}

/// `watched` arguments (none).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchedArgs {}

/// A watched repository and what its watcher last did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WatchedOut {
    /// The repository root (pass it, or `id`, as `repo` to any tool).
    pub root: String,
    /// Its data directory's name.
    pub id: String,
    /// The repository this server was started for.
    pub default: bool,
    /// `indexing` (a run is in progress, the first one included), `idle` (waiting for file
    /// changes) or `error` (the last run failed and the previous generation keeps serving, or
    /// watching stopped: see `last_error`).
    pub state: String,
    /// Unix time watching started.
    pub started_at: i64,
    /// Generations published since watching started.
    pub runs: u64,
    /// The generation the watcher last published.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_generation: Option<i64>,
    /// Why the last run happened: `initial`, `changes` or `rescan` (the OS dropped events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_trigger: Option<String>,
    /// Paths the file events of the last run named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_changed_paths: Option<u64>,
    /// From the first file event of the last burst to its published generation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_latency_ms: Option<f64>,
    /// Unix time of the last publish.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_indexed_at: Option<i64>,
    /// The last failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

impl WatchedOut {
    fn from(s: &WatchStatus, own: &Path) -> Self {
        WatchedOut {
            root: s.root.display().to_string(),
            id: repo_id(&s.root),
            default: s.root == own,
            state: s.state.as_str().to_string(),
            started_at: s.started_at,
            runs: s.runs,
            last_generation: s.last_generation,
            last_trigger: s.last_trigger.map(str::to_string),
            last_changed_paths: s.last_changed_paths,
            last_latency_ms: s.last_latency_ms,
            last_indexed_at: s.last_indexed_at,
            last_error: s.last_error.clone(),
        }
    }
}

/// `watch` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WatchData {
    /// The repository was watched before this call (its status is returned unchanged).
    pub already_watching: bool,
    pub watch: WatchedOut,
}

/// `unwatch` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct UnwatchData {
    /// The watcher's last status; it stops within a moment (a run in progress is cancelled
    /// before it publishes; the index keeps its last generation).
    pub unwatched: WatchedOut,
}

/// `watched` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WatchedData {
    pub count: u64,
    /// By root.
    pub repositories: Vec<WatchedOut>,
}

fn repo_id(root: &Path) -> String {
    engine::DataDir::for_root(root)
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// The repository root `watch` should watch: "" the server's own, an indexed repository's id,
/// or a directory (the repository containing it, as `sextant serve --repo` finds it).
fn watch_target(repo: &str, own: &Path) -> Result<PathBuf, String> {
    let repo = repo.trim();
    if repo.is_empty() {
        return Ok(own.to_path_buf());
    }
    let path = Path::new(repo);
    if path.is_dir() {
        return Ok(engine::find_root(path));
    }
    if path.exists() {
        return Err(format!(
            "argument `repo`: `{repo}` is not a directory; pass a repository's root directory or an indexed repository's id from `status`"
        ));
    }
    let known = engine::known_repositories(&engine::data_home());
    if let Some(k) = known.iter().find(|k| k.id == repo) {
        return Ok(k.root.clone());
    }
    let ids: Vec<String> = known.iter().map(|k| k.id.clone()).collect();
    Err(format!(
        "argument `repo`: `{repo}` is neither a directory nor a known repository id (known: {})",
        if ids.is_empty() {
            "none".to_string()
        } else {
            ids.join(", ")
        }
    ))
}

/// The watched root `unwatch` names: "" the server's own, a watched root or id, or a path inside
/// a watched repository.
fn watched_root(repo: &str, own: &Path, watched: &[WatchStatus]) -> Option<PathBuf> {
    let repo = repo.trim();
    if repo.is_empty() {
        return watched
            .iter()
            .any(|s| s.root == own)
            .then(|| own.to_path_buf());
    }
    let path = canonical(Path::new(repo));
    if let Some(s) = watched
        .iter()
        .find(|s| s.root == path || repo_id(&s.root) == repo)
    {
        return Some(s.root.clone());
    }
    if path.is_dir() {
        let root = engine::find_root(&path);
        return watched.iter().any(|s| s.root == root).then_some(root);
    }
    None
}

/// `meta` for an answer about `root` (indexed or not).
fn meta_for(root: &Path, started: Instant, bytes: u64) -> Meta {
    let status = engine::status(root, 0).unwrap_or_default();
    let total = started.elapsed();
    Meta {
        repository: root.display().to_string(),
        generation: status.generation.unwrap_or(0),
        graph_commit: status.graph_commit.clone(),
        repo_commit: status.repo_commit.clone(),
        stale: status.stale,
        populated: status.indexed,
        result_bytes: bytes,
        est_tokens: bytes.div_ceil(crate::budget::BYTES_PER_TOKEN),
        tokens_saved_total: if status.indexed {
            engine::DataDir::for_root(root).add_tokens_saved(0)
        } else {
            0
        },
        timing: Timing {
            total_ms: ms(total),
            db_ms: ms(total),
            ranking_ms: 0.0,
        },
        ..Meta::default()
    }
}

/// `workspace_create` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceCreateArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// The workspace's name: 1-64 letters, digits, `.`, `_` or `-`.
    pub workspace: String,
    /// The commit (any revision: `HEAD~2`, a branch, an id) whose clean index the workspace
    /// starts from. Default "": HEAD.
    #[serde(default)]
    pub commit: String,
}

/// Arguments naming one workspace (`workspace_reset`, `workspace_delete`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceNameArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// The workspace's name.
    pub workspace: String,
}

/// `workspace_list` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceListArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
}

/// One file text pushed into a workspace.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileText {
    /// Repository-relative path.
    pub path: String,
    /// The file's whole text in the workspace; `null` deletes the file there.
    pub content: Option<String>,
}

/// `workspace_refresh` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceRefreshArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// The workspace's name.
    pub workspace: String,
    /// Re-read these repository-relative files from disk. Default: none.
    #[serde(default)]
    pub file_paths: Vec<String>,
    /// Take these texts (for an agent that does not write to disk): `[{path, content}]`,
    /// `content: null` deletes the file in the workspace. Default: none. With neither
    /// `file_paths` nor `files`, every file of the working tree that differs from the
    /// workspace's base commit is taken in (and overlay files that no longer differ go back).
    #[serde(default)]
    pub files: Vec<FileText>,
}

/// A workspace as listed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceOut {
    pub workspace: String,
    /// The commit its overlay applies to (absent outside git).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_commit: Option<String>,
    /// The generation answering for it.
    pub generation: i64,
    pub revision: i64,
    /// Files its overlay changes, adds or deletes.
    pub modified_files: u64,
    /// HEAD moved away from its base commit.
    pub is_stale: bool,
    /// Unix time.
    pub created_at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refreshed_at: Option<i64>,
}

/// `workspace_create` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceCreateData {
    pub workspace: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_commit: Option<String>,
    /// Its revision (0 for a new workspace).
    pub current_revision: i64,
    /// False: it existed already and is returned unchanged.
    pub created: bool,
}

/// `workspace_reset` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceResetData {
    pub workspace: String,
    pub previous_revision: i64,
    /// Always 0.
    pub new_revision: i64,
}

/// `workspace_list` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceListData {
    pub count: u64,
    /// By name.
    pub workspaces: Vec<WorkspaceOut>,
    /// HEAD now (absent outside git).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_commit: Option<String>,
}

/// `workspace_delete` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceDeleteData {
    pub workspace: String,
    /// False: there was no such workspace.
    pub deleted: bool,
}

/// `workspace_refresh` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceRefreshData {
    pub workspace: String,
    /// Files whose text in the workspace changed and were indexed again.
    pub files_reindexed: u64,
    /// Definitions in their new versions (plus those of files it deleted).
    pub symbols_updated: u64,
    /// The revision now (unchanged when nothing changed).
    pub new_revision: i64,
    /// The changed paths.
    pub changed: Vec<String>,
    /// `working_tree` (auto-detected), `paths` or `contents`.
    pub source: String,
    /// The server kept the workspace's index in memory since its previous refresh (a first
    /// refresh, or one after another process changed the workspace, loads it).
    pub kept: bool,
}

fn workspace_arg(name: &str) -> Result<String, String> {
    let name = name.trim();
    engine::check_workspace_name(name)
        .map(str::to_string)
        .map_err(|e| format!("argument `workspace`: {e}"))
}

/// Runs a workspace operation for the backend of `repo` and wraps it in the envelope.
fn workspace_answer<T: Serialize>(
    b: &crate::server::Backend,
    started: Instant,
    f: impl FnOnce(&Path, &Path) -> Result<T, engine::Error>,
    meta_of: impl FnOnce(&T, &mut Meta),
) -> Result<Envelope<T>, String> {
    let home = engine::data_home();
    let data = f(&home, &b.root).map_err(crate::server::engine_err)?;
    let mut meta = meta_for(&b.root, started, json_len(&data) as u64);
    meta_of(&data, &mut meta);
    Ok(Envelope { data, meta })
}

#[tool_router(router = workspace_tools, vis = "pub(crate)")]
impl SextantServer {
    #[tool(
        description = "Create a named workspace: an overlay for one agent's edits on the clean index of a commit (default HEAD), isolated from other workspaces and from the committed view. Idempotent. Take edits in with `workspace_refresh`, then pass `workspace` to search, symbol, source, references and calls.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn workspace_create(
        &self,
        Parameters(a): Parameters<WorkspaceCreateArgs>,
    ) -> Result<Json<Envelope<WorkspaceCreateData>>, String> {
        let name = workspace_arg(&a.workspace)?;
        self.blocking(&a.repo.clone(), move |b| {
            let commit = Some(a.commit.trim().to_string()).filter(|c| !c.is_empty());
            workspace_answer(
                b,
                Instant::now(),
                |home, root| {
                    let c = engine::create_workspace(home, root, &name, commit.as_deref())?;
                    Ok(WorkspaceCreateData {
                        workspace: c.name,
                        base_commit: c.base_commit,
                        current_revision: c.revision,
                        created: c.created,
                    })
                },
                |d, meta| {
                    meta.workspace = Some(d.workspace.clone());
                    meta.revision = Some(d.current_revision);
                    meta.baseline_commit = d.base_commit.clone();
                },
            )
        })
        .await
    }

    #[tool(
        description = "Take edits into a workspace and re-index them: `files` ([{path, content}], content null deletes) for an agent that does not write to disk, `file_paths` to re-read files from disk, or neither to take every file of the working tree that differs from the workspace's base commit. Returns files re-indexed, symbols updated and the new revision (incremented only when something changed).",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn workspace_refresh(
        &self,
        Parameters(a): Parameters<WorkspaceRefreshArgs>,
    ) -> Result<Json<Envelope<WorkspaceRefreshData>>, String> {
        let name = workspace_arg(&a.workspace)?;
        if !a.files.is_empty() && !a.file_paths.is_empty() {
            return Err("give `files` or `file_paths`, not both".into());
        }
        self.blocking(&a.repo.clone(), move |b| {
            let input = engine::RefreshInput {
                paths: (!a.file_paths.is_empty()).then(|| a.file_paths.clone()),
                contents: (!a.files.is_empty()).then(|| {
                    a.files
                        .iter()
                        .map(|f| (f.path.clone(), f.content.clone()))
                        .collect()
                }),
            };
            workspace_answer(
                b,
                Instant::now(),
                |home, root| {
                    let r = engine::refresh_workspace(home, root, &name, &input)?;
                    Ok(WorkspaceRefreshData {
                        workspace: r.name,
                        files_reindexed: r.files_reindexed,
                        symbols_updated: r.symbols_updated,
                        new_revision: r.revision,
                        changed: r.changed,
                        source: r.source.to_string(),
                        kept: r.kept,
                    })
                },
                |d, meta| {
                    meta.workspace = Some(d.workspace.clone());
                    meta.revision = Some(d.new_revision);
                },
            )
        })
        .await
    }

    #[tool(
        description = "Drop a workspace's overlay: it answers like its base again, revision back to 0.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn workspace_reset(
        &self,
        Parameters(a): Parameters<WorkspaceNameArgs>,
    ) -> Result<Json<Envelope<WorkspaceResetData>>, String> {
        let name = workspace_arg(&a.workspace)?;
        self.blocking(&a.repo.clone(), move |b| {
            workspace_answer(
                b,
                Instant::now(),
                |home, root| {
                    let r = engine::reset_workspace(home, root, &name)?;
                    Ok(WorkspaceResetData {
                        workspace: r.name,
                        previous_revision: r.previous_revision,
                        new_revision: r.new_revision,
                    })
                },
                |d, meta| {
                    meta.workspace = Some(d.workspace.clone());
                    meta.revision = Some(d.new_revision);
                },
            )
        })
        .await
    }

    #[tool(
        description = "The repository's workspaces: base commit, revision, modified files, whether HEAD moved away from the base (stale), creation time; and HEAD now.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn workspace_list(
        &self,
        Parameters(a): Parameters<WorkspaceListArgs>,
    ) -> Result<Json<Envelope<WorkspaceListData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            workspace_answer(
                b,
                Instant::now(),
                |home, root| {
                    let l = engine::list_workspaces(home, root)?;
                    let workspaces: Vec<WorkspaceOut> = l
                        .workspaces
                        .into_iter()
                        .map(|w| WorkspaceOut {
                            workspace: w.name,
                            base_commit: w.base_commit,
                            generation: w.generation,
                            revision: w.revision,
                            modified_files: w.modified_files,
                            is_stale: w.is_stale,
                            created_at: w.created_at,
                            refreshed_at: w.refreshed_at,
                        })
                        .collect();
                    Ok(WorkspaceListData {
                        count: workspaces.len() as u64,
                        workspaces,
                        current_commit: l.head_commit,
                    })
                },
                |_, _| {},
            )
        })
        .await
    }

    #[tool(
        description = "Delete a workspace and its overlay (`deleted` false when there was none).",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn workspace_delete(
        &self,
        Parameters(a): Parameters<WorkspaceNameArgs>,
    ) -> Result<Json<Envelope<WorkspaceDeleteData>>, String> {
        let name = workspace_arg(&a.workspace)?;
        self.blocking(&a.repo.clone(), move |b| {
            workspace_answer(
                b,
                Instant::now(),
                |home, root| {
                    let d = engine::delete_workspace(home, root, &name)?;
                    Ok(WorkspaceDeleteData {
                        workspace: d.name,
                        deleted: d.deleted,
                    })
                },
                |d, meta| meta.workspace = Some(d.workspace.clone()),
            )
        })
        .await
    }

    #[tool(
        description = "Keep a repository's index fresh while this server runs: index it (an unindexed directory too), then update it after every burst of file changes, commits and checkouts, so answers for it (`repo` on any tool) follow the working tree. Returns at once with the watcher's status (`indexing` until the first run publishes); a watched repository just returns its status.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn watch(
        &self,
        Parameters(a): Parameters<WatchArgs>,
    ) -> Result<Json<Envelope<WatchData>>, String> {
        let own = self.backend.root.clone();
        self.blocking("", move |_| {
            let started = Instant::now();
            let root = watch_target(&a.repo, &own)?;
            let (status, already) = registry().start(&root, WatchOptions::default())?;
            let data = WatchData {
                already_watching: already,
                watch: WatchedOut::from(&status, &own),
            };
            let mut meta = meta_for(&root, started, json_len(&data) as u64);
            if status.runs == 0 && status.state == State::Indexing {
                meta.hint = Some(
                    "the first index run is in progress: `watched` shows its generation when it publishes"
                        .into(),
                );
            }
            Ok(Envelope { data, meta })
        })
        .await
    }

    #[tool(
        description = "Stop keeping a watched repository's index fresh (`watched` lists them). Returns at once; its index keeps the last published generation (call `index` to refresh it by hand).",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn unwatch(
        &self,
        Parameters(a): Parameters<UnwatchArgs>,
    ) -> Result<Json<Envelope<UnwatchData>>, String> {
        let own = self.backend.root.clone();
        self.blocking("", move |_| {
            let started = Instant::now();
            let watched = registry().list();
            let stopped =
                watched_root(&a.repo, &own, &watched).and_then(|root| registry().stop(&root));
            let Some(status) = stopped else {
                let name = if a.repo.trim().is_empty() {
                    own.display().to_string()
                } else {
                    a.repo.trim().to_string()
                };
                let list: Vec<String> = watched
                    .iter()
                    .map(|s| s.root.display().to_string())
                    .collect();
                return Err(format!(
                    "`{name}` is not watched, nothing to stop; watched: {}",
                    if list.is_empty() {
                        "none".to_string()
                    } else {
                        list.join(", ")
                    }
                ));
            };
            let data = UnwatchData {
                unwatched: WatchedOut::from(&status, &own),
            };
            let meta = meta_for(&status.root, started, json_len(&data) as u64);
            Ok(Envelope { data, meta })
        })
        .await
    }

    #[tool(
        description = "The repositories this server keeps fresh, each with its watcher's state (indexing, idle, error), the last generation it published, why (initial, changes, rescan), how many paths changed, and the latency from the first file event to the published generation.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn watched(
        &self,
        Parameters(_a): Parameters<WatchedArgs>,
    ) -> Result<Json<Envelope<WatchedData>>, String> {
        let own = self.backend.root.clone();
        self.blocking("", move |_| {
            let started = Instant::now();
            let repositories: Vec<WatchedOut> = registry()
                .list()
                .iter()
                .map(|s| WatchedOut::from(s, &own))
                .collect();
            let data = WatchedData {
                count: repositories.len() as u64,
                repositories,
            };
            let meta = meta_for(&own, started, json_len(&data) as u64);
            Ok(Envelope { data, meta })
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_name_the_argument() {
        let tmp = tempfile::tempdir().unwrap();
        let own = tmp.path().canonicalize().unwrap();
        assert_eq!(watch_target("", &own).unwrap(), own);
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let e = watch_target(file.to_str().unwrap(), &own).unwrap_err();
        assert!(
            e.starts_with("argument `repo`:") && e.contains("not a directory"),
            "{e}"
        );
        let e = watch_target("/no/such/dir-xyz", &own).unwrap_err();
        assert!(
            e.starts_with("argument `repo`:") && e.contains("neither"),
            "{e}"
        );
        let sub = tempfile::tempdir_in(&own).unwrap();
        assert!(watch_target(sub.path().to_str().unwrap(), &own).is_ok());
    }

    #[test]
    fn unwatch_finds_roots_by_path_and_id() {
        let tmp = tempfile::tempdir().unwrap();
        let own = tmp.path().canonicalize().unwrap();
        let other = tempfile::tempdir_in(&own).unwrap();
        let other = other.path().canonicalize().unwrap();
        let status = |root: &Path| WatchStatus {
            root: root.to_path_buf(),
            state: State::Idle,
            started_at: 1,
            runs: 0,
            last_generation: None,
            last_trigger: None,
            last_changed_paths: None,
            last_latency_ms: None,
            last_indexed_at: None,
            last_error: None,
            stopped: false,
        };
        let watched = vec![status(&other)];
        assert_eq!(watched_root("", &own, &watched), None);
        assert_eq!(
            watched_root(other.to_str().unwrap(), &own, &watched),
            Some(other.clone())
        );
        assert_eq!(
            watched_root(&repo_id(&other), &own, &watched),
            Some(other.clone())
        );
        assert_eq!(watched_root("nope", &own, &watched), None);
        let watched = vec![status(&own)];
        assert_eq!(watched_root("", &own, &watched), Some(own.clone()));
    }
}
