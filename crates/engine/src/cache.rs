//! The shared baseline cache (`SEXTANT_CACHE_DIR`: a directory, e.g. a network share or a CI
//! artifact folder). Finished clean baselines are pushed there as one file per commit,
//! `<dir>/<repository key>/<commit>.sxb`, and pulled before building locally: an index run with no
//! local generation of HEAD's commit imports the cached one, and then shares its resolution (a
//! clean working tree extracts and resolves nothing). The repository key is the root commit
//! (`sextant_git::repository_key`), the same on every clone wherever it lives. The cache never
//! fails an index: a problem is a warning in the run's summary, and the run builds locally.

use std::path::{Path, PathBuf};
use std::time::Instant;

use sextant_store::{BundleExpect, Store};

use crate::home::DataDir;
use crate::{Error, Result};

/// The environment variable naming the cache directory.
pub const CACHE_DIR_ENV: &str = "SEXTANT_CACHE_DIR";

/// The cache directory named by `SEXTANT_CACHE_DIR` (unset or empty: none).
pub fn cache_dir_from_env() -> Option<PathBuf> {
    std::env::var_os(CACHE_DIR_ENV)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
}

/// An explicit directory, else `SEXTANT_CACHE_DIR`, else an error saying how to set one.
pub fn cache_dir(explicit: Option<&Path>) -> Result<PathBuf> {
    explicit
        .map(Path::to_path_buf)
        .or_else(cache_dir_from_env)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "no baseline cache directory: pass --cache-dir DIR or set {CACHE_DIR_ENV}"
            ))
        })
}

/// The file holding `commit`'s baseline of the repository `key` in the cache `dir`.
pub fn baseline_file(dir: &Path, key: &str, commit: &str) -> PathBuf {
    dir.join(key).join(format!("{commit}.sxb"))
}

/// What an index run did with the cache.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct CacheReport {
    pub dir: PathBuf,
    /// The repository key (`None`: it could not be told, see `warnings`).
    pub repo_key: Option<String>,
    /// The commit whose baseline was pulled (imported) before building.
    pub pulled: Option<String>,
    /// The generation the pulled baseline became.
    pub pulled_generation: Option<i64>,
    pub pull_seconds: f64,
    /// The commit whose baseline was pushed after publishing.
    pub pushed: Option<String>,
    pub pushed_bytes: u64,
    pub push_seconds: f64,
    /// Problems that made the run skip the cache (it built or kept its index locally).
    pub warnings: Vec<String>,
    /// The cached file of the commit was built with another resolution context: this run's
    /// baseline replaces it.
    #[serde(skip)]
    pub(crate) replace: bool,
}

/// The resolution context recorded in a generation's stored summary.
fn context_of(stats: Option<&str>) -> Option<String> {
    let stats: serde_json::Value = serde_json::from_str(stats?).ok()?;
    Some(stats.get("context")?.as_str()?.to_string())
}

impl CacheReport {
    fn warn(&mut self, what: String) {
        tracing::warn!("baseline cache: {what}");
        self.warnings.push(what);
    }
}

/// The newest clean published generation of `commit`, if the database keeps one.
pub(crate) fn local_baseline(store: &Store, commit: &str) -> Result<Option<i64>> {
    Ok(store
        .generations()?
        .into_iter()
        .find(|g| g.status == "published" && !g.dirty && g.commit.as_deref() == Some(commit))
        .map(|g| g.id))
}

/// Before a run that builds everything (`--full`): the repository key only, so a clean result
/// is still pushed.
pub(crate) fn report_without_pull(dir: &Path, root: &Path) -> CacheReport {
    let mut report = CacheReport {
        dir: dir.to_path_buf(),
        ..CacheReport::default()
    };
    match sextant_git::repository_key(root) {
        Ok(key) => report.repo_key = Some(key),
        Err(e) => report.warn(format!("no repository key, cache skipped: {e}")),
    }
    report
}

/// Before a run: the repository key, and the pulled generation when the database keeps no clean
/// generation of `commit` and the cache has one.
pub(crate) fn pull_before_run(
    dir: &Path,
    root: &Path,
    commit: &str,
    context: &str,
    store: &mut Store,
) -> (CacheReport, Option<i64>) {
    let mut report = CacheReport {
        dir: dir.to_path_buf(),
        ..CacheReport::default()
    };
    let key = match sextant_git::repository_key(root) {
        Ok(key) => key,
        Err(e) => {
            report.warn(format!("no repository key, cache skipped: {e}"));
            return (report, None);
        }
    };
    report.repo_key = Some(key.clone());
    match local_baseline(store, commit) {
        Ok(Some(_)) => return (report, None),
        Ok(None) => {}
        Err(e) => {
            report.warn(format!("cannot read the local generations: {e}"));
            return (report, None);
        }
    }
    let file = baseline_file(dir, &key, commit);
    if !file.is_file() {
        return (report, None);
    }
    // A baseline built by another Sextant (other extractor versions) or from other manifests
    // would be imported for nothing: nothing in it could be reused.
    match sextant_store::read_bundle_info(&file) {
        Ok(info) if context_of(info.stats.as_deref()).as_deref() != Some(context) => {
            report.warn(format!(
                "{} was built with another resolution context (another Sextant version or other manifests); building locally, and the cache gets this run's baseline",
                file.display()
            ));
            report.replace = true;
            return (report, None);
        }
        Ok(_) => {}
        Err(e) => {
            report.warn(format!("{e}; building locally"));
            return (report, None);
        }
    }
    let started = Instant::now();
    let pulled = store.import_generation(
        &file,
        BundleExpect {
            repo_key: &key,
            commit: Some(commit),
        },
    );
    report.pull_seconds = started.elapsed().as_secs_f64();
    match pulled {
        Ok(generation) => {
            report.pulled = Some(commit.to_string());
            report.pulled_generation = Some(generation);
            (report, Some(generation))
        }
        Err(e) => {
            report.warn(format!("{e}; building locally"));
            (report, None)
        }
    }
}

/// After a run published clean `generation` of `commit`: push it unless the cache has it.
pub(crate) fn push_after_run(
    report: &mut CacheReport,
    store: &Store,
    generation: i64,
    commit: &str,
) {
    let Some(key) = report.repo_key.clone() else {
        return;
    };
    if report.pulled.as_deref() == Some(commit) {
        return;
    }
    let file = baseline_file(&report.dir, &key, commit);
    if file.is_file() && !report.replace {
        return;
    }
    let started = Instant::now();
    match export(store, generation, &key, &file) {
        Ok(bytes) => {
            report.pushed = Some(commit.to_string());
            report.pushed_bytes = bytes;
        }
        Err(e) => report.warn(format!("push of {commit} failed: {e}")),
    }
    report.push_seconds = started.elapsed().as_secs_f64();
}

fn export(store: &Store, generation: i64, key: &str, file: &Path) -> Result<u64> {
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Error::Io(format!("cannot create {}: {e}", parent.display())))?;
    }
    let bytes = store.export_generation(generation, key, file)?;
    if let Some(parent) = file.parent() {
        remove_stale_temporaries(parent);
    }
    Ok(bytes)
}

/// Temporary files of pushes that died before their rename (`.<name>.<pid>-….tmp`), once they
/// are an hour old (a push in progress elsewhere is never that slow).
fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = dir.read_dir() else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() > 3600);
        if name.starts_with('.') && name.ends_with(".tmp") && old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// What `baselines push` or `baselines pull` did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CacheTransfer {
    pub commit: String,
    pub repo_key: String,
    pub file: PathBuf,
    /// The local generation pushed, or the one pulled (or already kept) for the commit.
    pub generation: i64,
    /// Nothing was done: the cache (push) or the database (pull) already had the commit.
    pub already: bool,
    pub bytes: u64,
    pub seconds: f64,
}

fn canonical(root: &Path) -> PathBuf {
    root.canonicalize().unwrap_or_else(|_| root.to_path_buf())
}

/// The full commit id a revision names in the repository at `root` (a full id is taken as is).
fn commit_of(root: &Path, rev: Option<&str>) -> Result<String> {
    match rev {
        Some(rev) => sextant_git::resolve_commit(root, rev).or_else(|e| {
            if rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit()) {
                Ok(rev.to_ascii_lowercase())
            } else {
                Err(e.into())
            }
        }),
        None => sextant_git::head(root)?
            .commit
            .ok_or_else(|| Error::InvalidArgument("HEAD names no commit yet".into())),
    }
}

/// Pushes the newest clean generation of `commit` (default: the active generation's commit when
/// it is clean, else HEAD's) to the cache `dir`, replacing a cached file of that commit.
pub fn push_baseline(
    home: &Path,
    root: &Path,
    dir: &Path,
    commit: Option<&str>,
) -> Result<CacheTransfer> {
    let started = Instant::now();
    let root = canonical(root);
    let data = DataDir::in_home(home, &root);
    if !data.exists() {
        return Err(Error::NotIndexed(root.display().to_string()));
    }
    let store = Store::open_read_only(&data.db())?;
    let commit = match commit {
        Some(rev) => commit_of(&root, Some(rev))?,
        None => {
            let active = store.active_generation_id()?;
            match store.generation(active)? {
                Some(g) if !g.dirty && g.commit.is_some() => g.commit.unwrap_or_default(),
                _ => commit_of(&root, None)?,
            }
        }
    };
    let generation = local_baseline(&store, &commit)?.ok_or_else(|| {
        Error::InvalidArgument(format!(
            "no clean generation of commit {commit} is kept; index that commit (with no uncommitted changes) first"
        ))
    })?;
    let key = sextant_git::repository_key(&root)?;
    let file = baseline_file(dir, &key, &commit);
    let bytes = export(&store, generation, &key, &file)?;
    Ok(CacheTransfer {
        commit,
        repo_key: key,
        file,
        generation,
        already: false,
        bytes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Pulls `commit`'s baseline (default: HEAD's) from the cache `dir` into the repository's
/// database as a published, not active, generation; the next index of that commit shares it.
/// Nothing is done when the database already keeps a clean generation of the commit.
pub fn pull_baseline(
    home: &Path,
    root: &Path,
    dir: &Path,
    commit: Option<&str>,
) -> Result<CacheTransfer> {
    let started = Instant::now();
    let root = canonical(root);
    let commit = commit_of(&root, commit)?;
    let key = sextant_git::repository_key(&root)?;
    let file = baseline_file(dir, &key, &commit);
    let data = DataDir::in_home(home, &root);
    std::fs::create_dir_all(&data.dir)
        .map_err(|e| Error::Io(format!("cannot create {}: {e}", data.dir.display())))?;
    let _ = std::fs::write(data.root_file(), root.display().to_string());
    let _lock = crate::pipeline::lock(&data, &|_| {})?;
    let mut store = Store::open(&data.db())?;
    if let Some(generation) = local_baseline(&store, &commit)? {
        return Ok(CacheTransfer {
            commit,
            repo_key: key,
            file,
            generation,
            already: true,
            bytes: 0,
            seconds: started.elapsed().as_secs_f64(),
        });
    }
    if !file.is_file() {
        return Err(Error::InvalidArgument(format!(
            "the cache has no baseline of commit {commit} ({} does not exist)",
            file.display()
        )));
    }
    let bytes = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    let generation = store.import_generation(
        &file,
        BundleExpect {
            repo_key: &key,
            commit: Some(&commit),
        },
    )?;
    Ok(CacheTransfer {
        commit,
        repo_key: key,
        file,
        generation,
        already: false,
        bytes,
        seconds: started.elapsed().as_secs_f64(),
    })
}
