//! Query compilation ahead of extraction on a cold run. Compiling a language's queries costs
//! 0.04 s (Python) to 0.4 s (C++, Ruby) of CPU, once per process. The walk reports each language
//! it meets; compile threads (fewer than the cores, one on two cores) compile them, the language
//! with the most files so far first. Compiled one per thread as soon as met, Redis's five
//! languages shared two cores: C, which 511 of its 544 files need, took 0.14 s instead of 0.05 s
//! while every extraction worker waited for it. The extraction order puts rare languages last
//! (see `pipeline.rs`), so their compile overlaps the main language's extraction.

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;
use sextant_lang::Language;

/// Compile threads for `threads` extraction workers (0 = all cores): one fewer than the cores,
/// at least one.
pub(crate) fn compile_threads(threads: usize) -> usize {
    let cores = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    };
    cores.saturating_sub(1).max(1)
}

#[derive(Default)]
struct State {
    /// Files seen per language id.
    files: FxHashMap<String, usize>,
    /// Languages met and not yet taken by a compile thread.
    pending: Vec<Arc<Language>>,
    /// Compile threads running.
    running: usize,
}

/// The queue of languages to compile, shared by the walk and the compile threads.
pub(crate) struct Warmup {
    state: Arc<Mutex<State>>,
    max_threads: usize,
}

impl Warmup {
    pub(crate) fn new(max_threads: usize) -> Self {
        Warmup {
            state: Arc::default(),
            max_threads: max_threads.max(1),
        }
    }

    /// The walk met a file of `language`.
    pub(crate) fn saw(&self, language: &Arc<Language>) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let seen = state.files.entry(language.id().to_string()).or_default();
        *seen += 1;
        if *seen > 1 {
            return;
        }
        state.pending.push(language.clone());
        if state.running < self.max_threads {
            state.running += 1;
            let shared = self.state.clone();
            let spawned = std::thread::Builder::new()
                .name("sextant-compile".into())
                .spawn(move || compile_pending(&shared));
            if spawned.is_err() {
                // No thread: the extraction workers compile what they need themselves.
                state.running -= 1;
            }
        }
    }
}

/// The index in `pending` of the language with the most files; ties go to the one met first.
fn most_files(pending: &[&str], files: &FxHashMap<String, usize>) -> Option<usize> {
    (0..pending.len()).max_by_key(|&i| {
        (
            files.get(pending[i]).copied().unwrap_or(0),
            std::cmp::Reverse(i),
        )
    })
}

/// Compiles pending languages, most files first, until none is left.
fn compile_pending(state: &Mutex<State>) {
    loop {
        let next = {
            let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
            let ids: Vec<&str> = state.pending.iter().map(|l| l.id()).collect();
            match most_files(&ids, &state.files) {
                Some(i) => state.pending.remove(i),
                None => {
                    state.running -= 1;
                    return;
                }
            }
        };
        let started = std::time::Instant::now();
        // An error is the extraction's to report, when a file of the language needs the queries.
        let _ = sextant_extract::prepare(&next);
        tracing::debug!(
            language = next.id(),
            seconds = started.elapsed().as_secs_f64(),
            "queries compiled"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_compile_thread_per_spare_core() {
        assert_eq!(compile_threads(1), 1);
        assert_eq!(compile_threads(2), 1);
        assert_eq!(compile_threads(8), 7);
        assert!(compile_threads(0) >= 1);
    }

    #[test]
    fn the_language_with_most_files_compiles_first() {
        let files: FxHashMap<String, usize> =
            [("cpp", 5), ("c", 511), ("ruby", 10), ("python", 10)]
                .into_iter()
                .map(|(l, n)| (l.to_string(), n))
                .collect();
        assert_eq!(most_files(&["cpp", "c", "ruby"], &files), Some(1));
        // Equal counts: the one met first.
        assert_eq!(most_files(&["cpp", "python", "ruby"], &files), Some(1));
        assert_eq!(most_files(&["cpp", "ruby", "python"], &files), Some(1));
        assert_eq!(most_files(&[], &files), None);
    }

    /// Every language the walk reports is compiled, by however many threads are allowed.
    #[test]
    fn every_language_seen_is_compiled() {
        let registry = sextant_lang::Registry::builtin().unwrap();
        let warmup = Warmup::new(1);
        for path in ["a.c", "b.c", "x.rb", "y.py", "z.c"] {
            warmup.saw(registry.for_path(path).unwrap());
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let state = warmup.state.lock().unwrap();
            if state.pending.is_empty() && state.running == 0 {
                assert_eq!(state.files.get("c"), Some(&3));
                break;
            }
            drop(state);
            assert!(
                std::time::Instant::now() < deadline,
                "compile threads never finished"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}
