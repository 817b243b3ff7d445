//! The generations a repository's database keeps (`sextant baselines`): the active one, the
//! previous one, and the baselines of recent commits (the newest clean generation of each of the
//! last [`sextant_store::BASELINE_COMMITS`] commits), which make checking a commit out again cost
//! no re-index. Pins keep a generation (or a commit's baseline) through garbage collection.
//! Garbage collection on demand.

use std::path::Path;

use sextant_store::{Pin, Store};

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
    /// Kept by a pin (of this generation, or of its commit) whatever the collection policy.
    pub pinned: bool,
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
    let pinned: Vec<i64> = store
        .pins()?
        .into_iter()
        .filter_map(|p| p.generation)
        .collect();
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
                pinned: pinned.contains(&g.id),
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

/// What `pin` or `unpin` did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PinChange {
    /// `commit` or `generation`.
    pub kind: &'static str,
    /// The full commit id or the generation id.
    pub target: String,
    /// The generation the pin keeps now (`None` after unpinning, or for a commit with none left).
    pub generation: Option<i64>,
    /// False when nothing changed (already pinned, or not pinned).
    pub changed: bool,
}

/// A pin target as written: a kept generation's id, else a commit (a revision git resolves,
/// or the full or abbreviated id of a kept generation's commit).
fn parse_target(store: &Store, root: &Path, target: &str, pins: &[Pin]) -> Result<Pin> {
    if let Ok(id) = target.parse::<i64>()
        && target.len() < 12
        && (store.generation(id)?.is_some() || pins.contains(&Pin::Generation(id)))
    {
        return Ok(Pin::Generation(id));
    }
    if let Ok(commit) = sextant_git::resolve_commit(root, target) {
        return Ok(Pin::Commit(commit));
    }
    let lower = target.to_ascii_lowercase();
    let mut known: Vec<String> = store
        .generations()?
        .into_iter()
        .filter_map(|g| g.commit)
        .chain(pins.iter().filter_map(|p| match p {
            Pin::Commit(c) => Some(c.clone()),
            Pin::Generation(_) => None,
        }))
        .filter(|c| lower.len() >= 4 && c.starts_with(&lower))
        .collect();
    known.sort();
    known.dedup();
    match known.as_slice() {
        [one] => Ok(Pin::Commit(one.clone())),
        [] => Err(Error::InvalidArgument(format!(
            "{target:?} names neither a kept generation nor a commit"
        ))),
        many => Err(Error::InvalidArgument(format!(
            "{target:?} is ambiguous: {}",
            many.join(", ")
        ))),
    }
}

fn describe(pin: &Pin) -> (&'static str, String) {
    match pin {
        Pin::Commit(c) => ("commit", c.clone()),
        Pin::Generation(g) => ("generation", g.to_string()),
    }
}

/// Pins a generation (`target` is its id) or a commit (a revision or commit id): garbage
/// collection keeps it, or the commit's newest clean generation, until it is unpinned.
pub fn pin_baseline(home: &Path, root: &Path, target: &str) -> Result<PinChange> {
    let (data, mut store) = open(home, root)?;
    let _lock = crate::pipeline::lock(&data, &|_| {})?;
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let pin = parse_target(&store, &root, target, &[])?;
    let changed = store.pin(&pin)?;
    let generation = store
        .pins()?
        .into_iter()
        .find(|p| p.pin == pin)
        .and_then(|p| p.generation);
    let (kind, target) = describe(&pin);
    Ok(PinChange {
        kind,
        target,
        generation,
        changed,
    })
}

/// Removes a pin (`target` as for [`pin_baseline`]); the next collection applies the policy.
pub fn unpin_baseline(home: &Path, root: &Path, target: &str) -> Result<PinChange> {
    let (data, mut store) = open(home, root)?;
    let _lock = crate::pipeline::lock(&data, &|_| {})?;
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let pins: Vec<Pin> = store.pins()?.into_iter().map(|p| p.pin).collect();
    let pin = parse_target(&store, &root, target, &pins)?;
    let changed = store.unpin(&pin)?;
    if !changed {
        let (kind, target) = describe(&pin);
        return Err(Error::InvalidArgument(format!(
            "{kind} {target} is not pinned (`sextant baselines list` shows the pinned ones)"
        )));
    }
    let (kind, target) = describe(&pin);
    Ok(PinChange {
        kind,
        target,
        generation: None,
        changed,
    })
}
