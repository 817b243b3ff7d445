//! The allocator's hooks the binary sets (`set_memory_hooks`): an index gives memory back on
//! every one of its threads when its read phase ends, and has freed memory go back at once from
//! then until it returns, however it returns. A test binary of its own: the hooks are set once
//! per process.

use std::sync::Mutex;

use sextant_engine::{Error, IndexOptions, MemoryHooks, Progress};

static CALLS: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

fn record(what: &'static str) {
    CALLS.lock().unwrap().push(what);
}

fn release() {
    record("release");
}

fn eager(on: bool) {
    record(if on { "eager" } else { "delayed" });
}

fn calls() -> Vec<&'static str> {
    std::mem::take(&mut *CALLS.lock().unwrap())
}

#[test]
fn an_index_gives_memory_back_once_its_read_phase_ends_and_at_once_until_it_returns() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::write(
        root.join("pkg/a.py"),
        "class Store:\n    def save(self):\n        pass\n",
    )
    .unwrap();
    std::fs::write(
        root.join("pkg/b.py"),
        "from pkg.a import Store\n\nStore().save()\n",
    )
    .unwrap();
    let options = |threads| IndexOptions {
        home: Some(tmp.path().join("home")),
        threads,
        full: true,
        ..IndexOptions::default()
    };
    // Not set yet: nothing is called.
    sextant_engine::index(&root, &options(2), &|_| {}).unwrap();
    assert!(calls().is_empty());

    sextant_engine::set_memory_hooks(MemoryHooks { release, eager });
    let summary = sextant_engine::index(&root, &options(2), &|_| {}).unwrap();
    assert_eq!(summary.files_indexed, 2);
    // The pool's two threads and the writing thread, then at once until the index returns.
    assert_eq!(
        calls(),
        ["release", "release", "release", "eager", "delayed"]
    );

    // Cancelled as its read phase ends: back to the usual delay all the same.
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cancelled = IndexOptions {
        cancel: Some(cancel.clone()),
        ..options(1)
    };
    let on_writing = |p: Progress| {
        if matches!(p, Progress::Writing) {
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    };
    let err = sextant_engine::index(&root, &cancelled, &on_writing).unwrap_err();
    assert!(matches!(err, Error::Cancelled), "{err}");
    assert_eq!(calls(), ["release", "release", "eager", "delayed"]);
}
