//! The memory release the binary sets (`set_memory_release`) runs on every thread of an index
//! when its read phase ends. A test binary of its own: the release is set once per process.

use std::sync::atomic::{AtomicUsize, Ordering};

use sextant_engine::IndexOptions;

static CALLS: AtomicUsize = AtomicUsize::new(0);

fn count() {
    CALLS.fetch_add(1, Ordering::Relaxed);
}

#[test]
fn an_index_gives_memory_back_on_each_of_its_threads_once_the_read_phase_ends() {
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
    assert_eq!(CALLS.load(Ordering::Relaxed), 0);

    sextant_engine::set_memory_release(count);
    let summary = sextant_engine::index(&root, &options(2), &|_| {}).unwrap();
    assert_eq!(summary.files_indexed, 2);
    // The pool's two threads and the writing thread.
    assert_eq!(CALLS.load(Ordering::Relaxed), 3);
}
