//! The process-wide watch registry: every repository this server keeps fresh, each watched by
//! `sextant_engine::watch` on its own thread, with a live status the `workspace` tools report.
//! The repository `sextant serve` watches by default is registered here too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use sextant_engine::{WatchEvent, WatchOptions, WatchTrigger};

/// Repositories watched at once (each holds a file-system watcher, a thread and a live index).
pub(crate) const MAX_WATCHED: usize = 16;

/// What a watcher is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    /// Waiting for file changes.
    Idle,
    /// An index run is in progress (the first one included).
    Indexing,
    /// The last run failed (the previous generation keeps serving), or watching stopped.
    Error,
}

impl State {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            State::Idle => "idle",
            State::Indexing => "indexing",
            State::Error => "error",
        }
    }
}

/// A watcher's live status, updated by its thread.
#[derive(Debug, Clone)]
pub(crate) struct WatchStatus {
    pub(crate) root: PathBuf,
    pub(crate) state: State,
    /// Unix seconds.
    pub(crate) started_at: i64,
    /// Generations published since watching started.
    pub(crate) runs: u64,
    pub(crate) last_generation: Option<i64>,
    pub(crate) last_trigger: Option<&'static str>,
    pub(crate) last_changed_paths: Option<u64>,
    /// From the first file event of the burst to the published generation.
    pub(crate) last_latency_ms: Option<f64>,
    /// Unix seconds of the last publish.
    pub(crate) last_indexed_at: Option<i64>,
    pub(crate) last_error: Option<String>,
    /// The watcher's thread has ended (watching could not start or was stopped).
    pub(crate) stopped: bool,
}

fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

fn trigger_name(t: WatchTrigger) -> &'static str {
    match t {
        WatchTrigger::Initial => "initial",
        WatchTrigger::Changes => "changes",
        WatchTrigger::Rescan => "rescan",
    }
}

impl WatchStatus {
    fn new(root: PathBuf) -> Self {
        WatchStatus {
            root,
            state: State::Indexing,
            started_at: unix_now(),
            runs: 0,
            last_generation: None,
            last_trigger: None,
            last_changed_paths: None,
            last_latency_ms: None,
            last_indexed_at: None,
            last_error: None,
            stopped: false,
        }
    }

    /// Folds one watcher event into the status (and logs it).
    fn apply(&mut self, event: WatchEvent) {
        match event {
            WatchEvent::Indexing { .. } => self.state = State::Indexing,
            WatchEvent::Indexed {
                summary,
                trigger,
                changed,
                latency,
            } => {
                tracing::info!(
                    root = %self.root.display(),
                    generation = summary.generation,
                    changed = changed.len(),
                    seconds = summary.wall_seconds,
                    "index refreshed"
                );
                self.state = State::Idle;
                self.runs += 1;
                self.last_generation = Some(summary.generation);
                self.last_trigger = Some(trigger_name(trigger));
                self.last_changed_paths = Some(changed.len() as u64);
                self.last_latency_ms = latency.map(crate::dto::ms);
                self.last_indexed_at = Some(unix_now());
            }
            WatchEvent::Watching => {
                // A run that published nothing (nothing had changed) ends here; a failed one
                // stays an error until a later run succeeds.
                if self.state == State::Indexing {
                    self.state = State::Idle;
                }
            }
            WatchEvent::Rescan(why) => {
                tracing::warn!(root = %self.root.display(), %why, "watch: rescanning");
            }
            WatchEvent::Error(e) => {
                tracing::warn!(root = %self.root.display(), error = %e, "watch: index run failed; the previous index keeps serving");
                self.state = State::Error;
                self.last_error = Some(e);
            }
        }
    }
}

struct Entry {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
    status: Arc<Mutex<WatchStatus>>,
}

impl Entry {
    fn snapshot(&self) -> WatchStatus {
        let mut s = match self.status.lock() {
            Ok(s) => s.clone(),
            Err(p) => p.into_inner().clone(),
        };
        if self.handle.as_ref().is_none_or(|h| h.is_finished()) {
            s.stopped = true;
        }
        s
    }
}

/// The watchers of one process, by canonical repository root.
#[derive(Default)]
pub(crate) struct Watches {
    entries: Mutex<BTreeMap<PathBuf, Entry>>,
}

static REGISTRY: LazyLock<Watches> = LazyLock::new(Watches::default);

/// The process-wide registry.
pub(crate) fn registry() -> &'static Watches {
    &REGISTRY
}

impl Watches {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<PathBuf, Entry>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts watching `root` (a canonical directory) unless it is watched already. Returns its
    /// status and whether it was already watched. A watcher whose thread ended is started again.
    pub(crate) fn start(
        &self,
        root: &Path,
        options: WatchOptions,
    ) -> Result<(WatchStatus, bool), String> {
        let mut entries = self.lock();
        if let Some(e) = entries.get(root)
            && e.handle.as_ref().is_some_and(|h| !h.is_finished())
        {
            return Ok((e.snapshot(), true));
        }
        let running = entries
            .iter()
            .filter(|(r, e)| {
                r.as_path() != root && e.handle.as_ref().is_some_and(|h| !h.is_finished())
            })
            .count();
        if running >= MAX_WATCHED {
            return Err(format!(
                "argument `repo`: already watching {running} repositories (at most {MAX_WATCHED}); `unwatch` one first"
            ));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let status = Arc::new(Mutex::new(WatchStatus::new(root.to_path_buf())));
        let handle = {
            let (root, stop, status) = (root.to_path_buf(), stop.clone(), status.clone());
            std::thread::Builder::new()
                .name("sextant-watch".into())
                .spawn(move || {
                    let update = |event: WatchEvent| {
                        if let Ok(mut s) = status.lock() {
                            s.apply(event);
                        }
                    };
                    let result = sextant_engine::watch(&root, &options, update, stop.clone());
                    if let Err(e) = result {
                        tracing::error!(root = %root.display(), error = %e, "watch stopped: answers may go stale (restart the server, `watch` again or run `sextant index`)");
                        if let Ok(mut s) = status.lock() {
                            s.state = State::Error;
                            s.last_error = Some(format!("watching stopped: {e}"));
                        }
                    }
                })
                .map_err(|e| format!("cannot start a watcher thread: {e}"))?
        };
        let entry = Entry {
            stop,
            handle: Some(handle),
            status,
        };
        let snapshot = entry.snapshot();
        entries.insert(root.to_path_buf(), entry);
        Ok((snapshot, false))
    }

    /// Stops watching `root`: sets its stop flag and joins its thread in the background (an
    /// index run in progress is cancelled before it publishes). None when it was not watched.
    pub(crate) fn stop(&self, root: &Path) -> Option<WatchStatus> {
        let mut entry = self.lock().remove(root)?;
        entry.stop.store(true, Ordering::Relaxed);
        let snapshot = entry.snapshot();
        if let Some(handle) = entry.handle.take() {
            let root = root.to_path_buf();
            let joined = std::thread::Builder::new()
                .name("sextant-unwatch".into())
                .spawn(move || {
                    let _ = handle.join();
                    tracing::info!(root = %root.display(), "stopped watching");
                });
            if let Err(e) = joined {
                tracing::warn!(error = %e, "could not join a watcher in the background");
            }
        }
        Some(snapshot)
    }

    /// Every watched repository, by root.
    pub(crate) fn list(&self) -> Vec<WatchStatus> {
        self.lock().values().map(Entry::snapshot).collect()
    }

    /// Stops every watcher and waits at most `wait` for them (a run in progress stops before
    /// publishing; the process never hangs on one).
    pub(crate) fn stop_all(&self, wait: Duration) {
        let entries = std::mem::take(&mut *self.lock());
        for e in entries.values() {
            e.stop.store(true, Ordering::Relaxed);
        }
        let deadline = Instant::now() + wait;
        for e in entries.into_values() {
            while e.handle.as_ref().is_some_and(|h| !h.is_finished()) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(home: &Path) -> WatchOptions {
        let mut o = WatchOptions {
            debounce: Duration::from_millis(50),
            ..WatchOptions::default()
        };
        o.index.home = Some(home.to_path_buf());
        o
    }

    fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !f() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// (Edits and their latency are covered end to end by crates/cli/tests/mcp_workspace.rs:
    /// this crate writes no files, not even in tests.)
    #[test]
    fn start_is_idempotent_the_first_run_is_reported_and_stop_removes() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir_in(tmp.path()).unwrap();
        let root = root.path().canonicalize().unwrap();
        let home = tmp.path().join("home");
        let w = Watches::default();
        let (s, already) = w.start(&root, options(&home)).unwrap();
        assert!(!already);
        assert_eq!(s.root, root);
        assert!(s.started_at > 0);
        let (_, already) = w.start(&root, options(&home)).unwrap();
        assert!(already);
        assert_eq!(w.list().len(), 1);

        let status = || w.list().into_iter().next().unwrap();
        wait_for("the initial run", || {
            let s = status();
            s.runs >= 1 && s.state == State::Idle
        });
        let first = status();
        assert_eq!(first.last_trigger, Some("initial"));
        assert_eq!(first.last_changed_paths, Some(0));
        assert_eq!(first.last_latency_ms, None);
        assert!(first.last_generation.is_some() && first.last_indexed_at.is_some());
        assert!(!first.stopped && first.last_error.is_none(), "{first:?}");

        assert!(w.stop(&root).is_some());
        assert!(w.list().is_empty());
        assert!(w.stop(&root).is_none());
        w.stop_all(Duration::from_secs(2));
    }

    #[test]
    fn a_watcher_that_cannot_start_reports_an_error_and_can_be_restarted() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("gone");
        let w = Watches::default();
        w.start(&missing, options(&tmp.path().join("home")))
            .unwrap();
        wait_for("the thread to end", || w.list()[0].stopped);
        let s = w.list().remove(0);
        assert_eq!(s.state, State::Error);
        assert!(s.last_error.unwrap().starts_with("watching stopped"));
        // Not reported as already watched: a dead watcher is started again.
        let (_, already) = w
            .start(&missing, options(&tmp.path().join("home")))
            .unwrap();
        assert!(!already);
        w.stop_all(Duration::from_secs(2));
        assert!(w.list().is_empty());
    }
}
