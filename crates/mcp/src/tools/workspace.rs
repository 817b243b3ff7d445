//! Workspace tools (the `workspace` toolset): `watch`, `unwatch` and `watched`, over the
//! process-wide watch registry (`crate::watches`). Watching a repository keeps its index fresh
//! (an initial incremental index, then a live update after every debounced burst of file
//! changes), so answers for it with `repo` follow the working tree. Named workspaces and
//! overlays are planned, not built.

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

#[tool_router(router = workspace_tools, vis = "pub(crate)")]
impl SextantServer {
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
