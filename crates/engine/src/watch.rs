//! Watching a repository (`sextant watch`, later `sextant serve`): an initial incremental index,
//! then one incremental re-index per debounced burst of file-system events, until `stop`.
//!
//! - Events are debounced (a quiet period after the last one) and coalesced: everything that
//!   arrives while an index runs is queued and produces exactly one follow-up run. A moved HEAD or
//!   branch (`.git/HEAD`, `.git/refs/heads/**`: a checkout, commit or reset) runs at once: git
//!   writes the working tree before it moves HEAD, so the batch already holds the tree's changes,
//!   and a switch to an indexed commit is served without waiting for the quiet period.
//! - Under `.git/` only `HEAD` and `refs/**` count (a checkout or commit moves the index to the
//!   branch); the data home and data directory never count (Sextant's own writes), nor do reads,
//!   metadata-only changes, `node_modules/`, or a Cargo `target/` at the root.
//! - When the OS drops events (a rescan flag or a watcher error), the next run is a rescan: it does
//!   not trust event paths. Every incremental run walks the whole tree and compares content
//!   hashes, so a rescan misses nothing; only unchanged versions are reused.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{RecursiveMode, Watcher};

use crate::home::DataDir;
use crate::{Error, IndexOptions, IndexSummary, LiveIndex, Result};

/// How to watch.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// Options of every index run (`full` applies to the initial run only; later runs are
    /// incremental). `cancel` is replaced by [`watch`]'s `stop`.
    pub index: IndexOptions,
    /// Quiet time after the last event before re-indexing (default 100 ms: an editor's save
    /// is done within a few; on Django, save -> visible through the watcher measured p50 167 ms
    /// at 100 ms against 378 ms at 300, `bench/watch_latency.py`).
    pub debounce: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            index: IndexOptions::default(),
            debounce: Duration::from_millis(100),
        }
    }
}

/// Why an index run happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchTrigger {
    /// The first run, when watching starts.
    Initial,
    /// Files changed.
    Changes,
    /// The OS dropped events: the whole tree was rescanned.
    Rescan,
}

/// What [`watch`] reports, in order, on the calling thread.
#[derive(Debug)]
pub enum WatchEvent {
    /// An index run starts (`changed` paths reported since the previous run).
    Indexing {
        trigger: WatchTrigger,
        changed: usize,
    },
    /// A run published a generation.
    Indexed {
        summary: Box<IndexSummary>,
        trigger: WatchTrigger,
        /// Repository-relative paths the events named (sorted; empty for the initial run).
        changed: Vec<String>,
        /// From the first event of the burst to the published generation (None for the initial
        /// run).
        latency: Option<Duration>,
    },
    /// Watching (after the initial run, and after every later run).
    Watching,
    /// The OS reported dropped events or the watcher failed; a rescan follows.
    Rescan(String),
    /// A run failed; the previous generation keeps serving and watching goes on.
    Error(String),
}

/// What the event filter needs to know about the repository.
struct Filter {
    root: PathBuf,
    /// Sextant's own directories (data home and this repository's data directory).
    own: Vec<PathBuf>,
    cargo_target: bool,
}

impl Filter {
    /// The repository-relative path of an event path that should trigger a re-index.
    fn relevant(&self, path: &Path) -> Option<String> {
        if self.own.iter().any(|d| path.starts_with(d)) {
            return None;
        }
        let rel = path.strip_prefix(&self.root).ok()?;
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel.is_empty() {
            return None;
        }
        if rel == ".git" {
            return None;
        }
        if let Some(git) = rel.strip_prefix(".git/") {
            return (git == "HEAD" || git.starts_with("refs/")).then_some(rel);
        }
        if rel.split('/').any(|c| c == "node_modules") {
            return None;
        }
        if self.cargo_target && (rel == "target" || rel.starts_with("target/")) {
            return None;
        }
        Some(rel)
    }
}

/// The filter of a repository whose data lives under `home`.
fn own_filter(root: &Path, home: &Path) -> Filter {
    let home = std::path::absolute(home).unwrap_or_else(|_| home.to_path_buf());
    let data = DataDir::in_home(&home, root);
    let mut own = vec![home.clone(), data.dir.clone()];
    own.extend(home.canonicalize().ok());
    own.extend(data.dir.canonicalize().ok());
    Filter {
        cargo_target: root.join("Cargo.toml").is_file(),
        root: root.to_path_buf(),
        own,
    }
}

/// Events that may change what is indexed (not reads, opens or metadata-only changes).
fn changes_content(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => true,
        EventKind::Any | EventKind::Other => false,
    }
}

/// What queued up since the last run.
#[derive(Default)]
struct Pending {
    changed: BTreeSet<String>,
    rescan: bool,
    /// When the first and the last event of the burst arrived (the quiet period counts from
    /// the last).
    first: Option<Instant>,
    last: Option<Instant>,
    /// HEAD or a branch moved: the batch runs without waiting for the quiet period.
    head_moved: bool,
}

/// Whether a relevant path is HEAD or a branch (what a checkout, commit or reset moves last).
fn moves_head(rel: &str) -> bool {
    rel == ".git/HEAD" || rel.starts_with(".git/refs/heads/")
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.changed.is_empty() && !self.rescan
    }

    /// Whether the batch should run now: HEAD moved, or `debounce` passed since the last event.
    fn due(&self, debounce: Duration) -> bool {
        !self.is_empty() && (self.head_moved || self.last.is_none_or(|t| t.elapsed() >= debounce))
    }

    /// How long to wait for more events before the batch is due (at most `poll`).
    fn wait(&self, debounce: Duration, poll: Duration) -> Duration {
        match self.last {
            Some(last) if !self.is_empty() => debounce.saturating_sub(last.elapsed()).min(poll),
            _ => poll,
        }
    }

    fn add(
        &mut self,
        filter: &Filter,
        result: notify::Result<notify::Event>,
        time: Instant,
        on_event: &mut impl FnMut(WatchEvent),
    ) {
        match result {
            Ok(event) => {
                if event.need_rescan() {
                    if !self.rescan {
                        on_event(WatchEvent::Rescan(
                            "the file-system watcher dropped events".into(),
                        ));
                    }
                    self.rescan = true;
                    self.first.get_or_insert(time);
                    self.last = Some(time);
                    return;
                }
                if !changes_content(&event.kind) {
                    return;
                }
                let mut any = false;
                for p in &event.paths {
                    if let Some(rel) = filter.relevant(p) {
                        self.head_moved |= moves_head(&rel);
                        self.changed.insert(rel);
                        any = true;
                    }
                }
                if any {
                    self.first = Some(self.first.map_or(time, |f| f.min(time)));
                    self.last = Some(time);
                }
            }
            Err(error) => {
                on_event(WatchEvent::Rescan(format!("watcher error: {error}")));
                self.rescan = true;
                self.first.get_or_insert(time);
                self.last = Some(time);
            }
        }
    }
}

/// Indexes `root` once, then re-indexes it incrementally whenever its files change, until `stop`
/// is set (checked every 50 ms; an index run in progress is cancelled and never publishes).
/// Returns `Ok(())` when stopped; errors only when watching cannot start.
pub fn watch(
    root: &Path,
    options: &WatchOptions,
    mut on_event: impl FnMut(WatchEvent),
    stop: Arc<AtomicBool>,
) -> Result<()> {
    if !root.is_dir() {
        return Err(Error::NotADirectory(root.display().to_string()));
    }
    let root = root
        .canonicalize()
        .map_err(|e| Error::Io(format!("{}: {e}", root.display())))?;
    let home = options
        .index
        .home
        .clone()
        .unwrap_or_else(crate::home::data_home);
    let cancelled = || stop.load(Ordering::Relaxed);

    // Watch first, so that changes made during the initial run are not lost. Raw events: the
    // quiet period is counted here (a batch is due `debounce` after its last event, or at once
    // when HEAD moved).
    let (tx, rx) = mpsc::channel::<(notify::Result<notify::Event>, Instant)>();
    let mut watcher = notify::recommended_watcher(move |result| {
        let _ = tx.send((result, Instant::now()));
    })
    .map_err(|e| Error::Io(format!("cannot watch {}: {e}", root.display())))?;
    watcher
        .watch(&root, RecursiveMode::Recursive)
        .map_err(|e| Error::Io(format!("cannot watch {}: {e}", root.display())))?;

    // The first run indexes (incrementally over stored file versions) and loads the result into
    // a live index; later runs update it in place (`LiveIndex::update`), a rescan re-indexes.
    let mut live: Option<LiveIndex> = None;
    let mut run = |full: bool,
                   trigger: WatchTrigger,
                   changed: Vec<String>,
                   first: Option<Instant>,
                   on_event: &mut dyn FnMut(WatchEvent)|
     -> bool {
        on_event(WatchEvent::Indexing {
            trigger,
            changed: changed.len(),
        });
        let run_options = IndexOptions {
            full,
            cancel: Some(stop.clone()),
            ..options.index.clone()
        };
        let result = match (trigger, live.as_mut()) {
            (WatchTrigger::Changes, Some(index)) => {
                let paths: Vec<PathBuf> = changed.iter().map(PathBuf::from).collect();
                index.update(&paths).map(|u| u.summary)
            }
            _ => crate::index(&root, &run_options, &|_| {}).and_then(|summary| {
                live = Some(LiveIndex::open(&root, &run_options)?);
                Ok(Some(summary))
            }),
        };
        match result {
            Ok(Some(summary)) => {
                on_event(WatchEvent::Indexed {
                    summary: Box::new(summary),
                    trigger,
                    changed,
                    latency: first.map(|f| f.elapsed()),
                });
                // Once the change is visible and reported: collect what the update replaced, and
                // build what a switch left for later (the resolver).
                if let Some(index) = live.as_mut() {
                    if let Err(e) = index.collect_garbage() {
                        on_event(WatchEvent::Error(e.to_string()));
                    }
                    index.prepare();
                }
                true
            }
            // Nothing had changed: nothing published.
            Ok(None) => true,
            Err(Error::Cancelled) if cancelled() => false,
            Err(e) => {
                // The live index may be behind what it believes: reload it next time.
                live = None;
                on_event(WatchEvent::Error(e.to_string()));
                true
            }
        }
    };

    if !run(
        options.index.full,
        WatchTrigger::Initial,
        Vec::new(),
        None,
        &mut on_event,
    ) {
        drop(watcher);
        return Ok(());
    }
    // After the first run the data directory exists, so its canonical path is known too (events
    // that arrived meanwhile are still queued, not yet filtered).
    let filter = own_filter(&root, &home);
    on_event(WatchEvent::Watching);

    let mut pending = Pending::default();
    let poll = Duration::from_millis(50);
    loop {
        if cancelled() {
            break;
        }
        let wait = pending
            .wait(options.debounce, poll)
            .max(Duration::from_millis(1));
        match rx.recv_timeout(wait) {
            Ok((result, time)) => pending.add(&filter, result, time, &mut on_event),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                on_event(WatchEvent::Error("the file-system watcher stopped".into()));
                break;
            }
        }
        // Coalesce whatever else is already queued.
        while let Ok((result, time)) = rx.try_recv() {
            pending.add(&filter, result, time, &mut on_event);
        }
        if !pending.due(options.debounce) {
            continue;
        }
        let batch = std::mem::take(&mut pending);
        let trigger = if batch.rescan {
            WatchTrigger::Rescan
        } else {
            WatchTrigger::Changes
        };
        if !run(
            false,
            trigger,
            batch.changed.into_iter().collect(),
            batch.first,
            &mut on_event,
        ) {
            break;
        }
        on_event(WatchEvent::Watching);
    }
    drop(watcher);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter() -> Filter {
        Filter {
            root: PathBuf::from("/r"),
            own: vec![PathBuf::from("/r/.sextant")],
            cargo_target: true,
        }
    }

    #[test]
    fn git_internals_count_only_for_head_and_refs() {
        let f = filter();
        assert_eq!(
            f.relevant(Path::new("/r/.git/HEAD")).as_deref(),
            Some(".git/HEAD")
        );
        assert!(f.relevant(Path::new("/r/.git/refs/heads/main")).is_some());
        assert!(f.relevant(Path::new("/r/.git/index")).is_none());
        assert!(f.relevant(Path::new("/r/.git/objects/ab/cd")).is_none());
        assert!(f.relevant(Path::new("/r/.git")).is_none());
    }

    #[test]
    fn own_data_build_output_and_outside_paths_do_not_count() {
        let f = filter();
        assert!(
            f.relevant(Path::new("/r/.sextant/repos/x/index.db"))
                .is_none()
        );
        assert!(f.relevant(Path::new("/r/target/debug/x")).is_none());
        assert!(f.relevant(Path::new("/r/web/node_modules/a.js")).is_none());
        assert!(f.relevant(Path::new("/elsewhere/a.py")).is_none());
        assert_eq!(
            f.relevant(Path::new("/r/src/target.rs")).as_deref(),
            Some("src/target.rs")
        );
    }

    fn event(kind: EventKind, path: &str) -> notify::Result<notify::Event> {
        Ok(notify::Event::new(kind).add_path(PathBuf::from(path)))
    }

    #[test]
    fn bursts_coalesce_into_one_batch_and_dropped_events_force_a_rescan() {
        use notify::event::{CreateKind, DataChange, Flag};
        let f = filter();
        let mut seen = Vec::new();
        let mut on_event = |e: WatchEvent| seen.push(format!("{e:?}"));
        let mut pending = Pending::default();
        let now = Instant::now();
        let modify = EventKind::Modify(ModifyKind::Data(DataChange::Any));
        pending.add(&f, event(modify, "/r/a.py"), now, &mut on_event);
        for e in [
            event(modify, "/r/a.py"),
            event(EventKind::Create(CreateKind::File), "/r/b.py"),
            event(
                EventKind::Access(AccessKind::Open(AccessMode::Any)),
                "/r/c.py",
            ),
            event(modify, "/r/.git/index"),
        ] {
            pending.add(&f, e, now, &mut on_event);
        }
        assert_eq!(pending.changed.iter().collect::<Vec<_>>(), ["a.py", "b.py"]);
        assert!(!pending.rescan && pending.first.is_some() && !pending.head_moved);

        let mut rescan = Pending::default();
        let dropped = Ok(notify::Event::new(EventKind::Other).set_flag(Flag::Rescan));
        rescan.add(&f, dropped, now, &mut on_event);
        assert!(rescan.rescan && !rescan.is_empty());
        let mut failed = Pending::default();
        failed.add(
            &f,
            Err(notify::Error::generic("queue overflow")),
            now,
            &mut on_event,
        );
        assert!(failed.rescan);
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert!(seen.iter().all(|s| s.starts_with("Rescan(")), "{seen:?}");
    }

    #[test]
    fn a_batch_is_due_after_the_quiet_period_or_at_once_when_head_moves() {
        use notify::event::{DataChange, RenameMode};
        let f = filter();
        let mut on_event = |_: WatchEvent| {};
        let debounce = Duration::from_secs(3600);
        let modify = EventKind::Modify(ModifyKind::Data(DataChange::Any));
        let mut pending = Pending::default();
        assert!(!pending.due(debounce));
        pending.add(&f, event(modify, "/r/a.py"), Instant::now(), &mut on_event);
        assert!(!pending.due(debounce), "an edit waits for the quiet period");
        assert!(pending.due(Duration::ZERO));
        assert!(pending.wait(debounce, Duration::from_millis(50)) <= Duration::from_millis(50));
        // git renames HEAD.lock onto HEAD (or a branch's ref) after writing the working tree.
        let rename = EventKind::Modify(ModifyKind::Name(RenameMode::To));
        pending.add(
            &f,
            event(rename, "/r/.git/HEAD"),
            Instant::now(),
            &mut on_event,
        );
        assert!(pending.head_moved && pending.due(debounce));
        let mut commit = Pending::default();
        commit.add(
            &f,
            event(rename, "/r/.git/refs/heads/main"),
            Instant::now(),
            &mut on_event,
        );
        assert!(commit.due(debounce));
        // A remote-tracking ref (a fetch) waits like any other change.
        let mut fetch = Pending::default();
        fetch.add(
            &f,
            event(rename, "/r/.git/refs/remotes/origin/main"),
            Instant::now(),
            &mut on_event,
        );
        assert!(!fetch.is_empty() && !fetch.due(debounce));
    }

    #[test]
    fn reads_and_metadata_do_not_count() {
        use notify::event::{CreateKind, DataChange, MetadataKind, RemoveKind};
        assert!(!changes_content(&EventKind::Access(AccessKind::Open(
            AccessMode::Any
        ))));
        assert!(!changes_content(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(!changes_content(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::AccessTime
        ))));
        assert!(changes_content(&EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(changes_content(&EventKind::Create(CreateKind::File)));
        assert!(changes_content(&EventKind::Remove(RemoveKind::Any)));
    }
}
