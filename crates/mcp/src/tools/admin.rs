//! Index administration tools: `status` and `index`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;
use rmcp::{Json, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use sextant_engine::{self as engine, IndexOptions, Progress};

use crate::budget::json_len;
use crate::dto::*;
use crate::server::{SextantServer, engine_err};

#[tool_router(router = admin_tools, vis = "pub(crate)")]
impl SextantServer {
    #[tool(
        description = "Index status: commit indexed vs HEAD (`stale`), files, languages, skipped files by reason, and every indexed repository (pass one's id or path as `repo` to any tool). Call it when answers look out of date or a tool says the repository is not indexed.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn status(
        &self,
        Parameters(a): Parameters<StatusArgs>,
    ) -> Result<Json<Envelope<StatusData>>, String> {
        let current = self.backend.root.clone();
        self.blocking(&a.repo, move |b| {
            let started = Instant::now();
            let status = engine::status(&b.root, 20).map_err(engine_err)?;
            let mut data = StatusData::from(&status);
            data.repositories = engine::known_repositories(&engine::data_home())
                .into_iter()
                .map(|k| RepositoryOut {
                    default: k.root == current,
                    id: k.id,
                    root: k.root.display().to_string(),
                    indexed: k.indexed,
                })
                .collect();
            let meta = b.plain_meta(&status, started, json_len(&data) as u64);
            Ok(Envelope { data, meta })
        })
        .await
    }

    #[tool(
        description = "Bring the index up to date with the working tree (incremental: only changed files are parsed again). Call it when `status` says `stale` or after editing many files; long runs report progress when the request carries a progress token, and can be cancelled.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn index(
        &self,
        Parameters(a): Parameters<IndexArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<Envelope<IndexData>>, String> {
        let started = Instant::now();
        let cancel = Arc::new(AtomicBool::new(false));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(f64, Option<f64>, String)>();
        // Progress notifications, when the client asked for them.
        let notifier = context.meta.get_progress_token().map(|token| {
            let peer = context.peer.clone();
            tokio::spawn(async move {
                while let Some((progress, total, message)) = rx.recv().await {
                    let mut p = ProgressNotificationParam::new(token.clone(), progress)
                        .with_message(message);
                    if let Some(total) = total {
                        p = p.with_total(total);
                    }
                    if peer.notify_progress(p).await.is_err() {
                        break;
                    }
                }
            })
        });
        // Cancellation (`notifications/cancelled`) stops the run before it publishes.
        let watcher = {
            let ct = context.ct.clone();
            let cancel = cancel.clone();
            tokio::spawn(async move {
                ct.cancelled().await;
                cancel.store(true, Ordering::Relaxed);
            })
        };
        let backend = self.backend_for(&a.repo)?;
        let root = backend.root.clone();
        let options = IndexOptions {
            full: a.full,
            cancel: Some(cancel.clone()),
            ..IndexOptions::default()
        };
        let task = tokio::task::spawn_blocking(move || {
            // Progress counts phases and files: walking 0, extracting 1..=files, then the
            // remaining phases one step each.
            let mut step = 0.0f64;
            let report = move |p: Progress| {
                let (progress, total, message) = match p {
                    Progress::WaitingForLock => (
                        0.0,
                        None,
                        "waiting for another index run on this repository".into(),
                    ),
                    Progress::Walking => (0.0, None, "listing files".to_string()),
                    Progress::Extracting { done, total, .. } => (
                        done as f64,
                        Some(total as f64 + 3.0),
                        format!("parsed {done} of {total} files"),
                    ),
                    // One step for the phase; the batches after the first are not reported.
                    Progress::Resolving { done, .. } if done > 0 => return,
                    Progress::Resolving { total, .. } => {
                        (f64::NAN, None, format!("resolving {total} references"))
                    }
                    Progress::Writing => (f64::NAN, None, "writing the graph".into()),
                    Progress::Publishing => (f64::NAN, None, "publishing".into()),
                };
                // Progress must increase: phases after extraction add one step each.
                let progress = if progress.is_nan() {
                    step + 1.0
                } else {
                    progress.max(step)
                };
                step = progress;
                let _ = tx.send((progress, total, message));
            };
            let report = std::sync::Mutex::new(report);
            engine::index(&root, &options, &|p| {
                if let Ok(mut r) = report.lock() {
                    r(p)
                }
            })
        });
        let result = task.await;
        watcher.abort();
        if let Some(n) = notifier {
            // Let queued notifications go out before the answer.
            let _ = tokio::time::timeout(std::time::Duration::from_secs(1), n).await;
        }
        backend.invalidate();
        let summary = match result {
            Ok(Ok(summary)) => summary,
            Ok(Err(e)) => return Err(engine_err(e)),
            Err(join) => {
                tracing::error!("index failed: {join}");
                return Err("internal error: indexing failed unexpectedly (the previous index still serves); please report it".into());
            }
        };
        let data = IndexData::from(&summary);
        let status = backend.status().map_err(|e| format!("indexed, but {e}"))?;
        let meta = backend.plain_meta(&status, started, json_len(&data) as u64);
        Ok(Json(Envelope { data, meta }))
    }
}

/// `index` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IndexArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// Parse every file again instead of reusing unchanged ones. Default false.
    #[serde(default)]
    pub full: bool,
}

/// `status` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {
    /// The repository: its root path, or its id. Default "": the repository this server was
    /// started for.
    #[serde(default)]
    pub repo: String,
}
