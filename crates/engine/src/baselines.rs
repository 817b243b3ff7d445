//! The generations a repository's database keeps (`sextant baselines`): the active one, the
//! previous one, and the baselines of recent commits (the newest clean generation of each of the
//! last [`sextant_store::BASELINE_COMMITS`] commits), which make checking a commit out again cost
//! no re-index. Garbage collection on demand.

use std::path::Path;

use sextant_store::Store;

use crate::home::DataDir;
use crate::{Error, Result};

/// One kept generation.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Baseline {
    pub generation: i64,
    pub commit: Option<String>,
    pub branch: Option<String>,
    /// Some files differed from the commit (a working-tree state, not a baseline of the commit).
    pub dirty: bool,
    pub active: bool,
    /// `published`, or `building` for a run in progress (or killed; collected by the next one).
    pub status: String,
    /// Unix seconds.
    pub finished_at: Option<i64>,
    pub files: u64,
    pub symbols: u64,
}

fn open(home: &Path, root: &Path) -> Result<(DataDir, Store)> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let data = DataDir::in_home(home, &root);
    if !data.exists() {
        return Err(Error::NotIndexed(root.display().to_string()));
    }
    let store = Store::open(&data.db())?;
    Ok((data, store))
}

/// The generations kept for the repository at `root`, newest first.
pub fn baselines(home: &Path, root: &Path) -> Result<Vec<Baseline>> {
    let (_, store) = open(home, root)?;
    let active = store.active_generation_id()?;
    Ok(store
        .generations()?
        .into_iter()
        .map(|g| {
            let stats = g
                .stats
                .as_deref()
                .and_then(|s| serde_json::from_str::<serde_json::Value>(s).ok());
            let n = |k: &str| {
                stats
                    .as_ref()
                    .and_then(|s| s.get(k))
                    .and_then(|v| v.as_u64())
                    .unwrap_or(0)
            };
            Baseline {
                generation: g.id,
                active: g.id == active,
                files: n("files"),
                symbols: n("symbols"),
                commit: g.commit,
                branch: g.branch,
                dirty: g.dirty,
                status: g.status,
                finished_at: g.finished_at,
            }
        })
        .collect())
}

/// Collects garbage now (unpublished generations of killed runs, generations beyond the active,
/// the previous and the commit baselines, and what only they used). Takes the index lock, so it
/// waits for a running index. Returns how many generations were removed.
pub fn collect_baselines(home: &Path, root: &Path) -> Result<usize> {
    let (data, mut store) = open(home, root)?;
    let _lock = crate::pipeline::lock(&data, &|_| {})?;
    let before = store.generations()?.len();
    store.collect_garbage(2)?;
    Ok(before.saturating_sub(store.generations()?.len()))
}
