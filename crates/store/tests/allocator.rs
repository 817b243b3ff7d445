//! SQLite allocates through the allocator handed to `set_store_allocator` (its own test binary:
//! the allocator must be installed before SQLite initializes, once per process).

#![allow(unsafe_code)]

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

use sextant_store::{StoreAllocator, set_store_allocator};

static CALLS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn realloc(p: *mut c_void, size: usize) -> *mut c_void;
    fn free(p: *mut c_void);
    fn malloc_usable_size(p: *mut c_void) -> usize;
}

unsafe extern "C" fn counted_malloc(size: usize) -> *mut c_void {
    CALLS.fetch_add(1, Ordering::Relaxed);
    // SAFETY: libc allocation.
    unsafe { malloc(size) }
}

unsafe extern "C" fn counted_realloc(p: *mut c_void, size: usize) -> *mut c_void {
    CALLS.fetch_add(1, Ordering::Relaxed);
    // SAFETY: `p` came from libc's malloc/realloc.
    unsafe { realloc(p, size) }
}

unsafe extern "C" fn libc_free(p: *mut c_void) {
    // SAFETY: `p` came from libc's malloc/realloc.
    unsafe { free(p) }
}

unsafe extern "C" fn usable(p: *mut c_void) -> usize {
    // SAFETY: `p` is a live libc block.
    unsafe { malloc_usable_size(p) }
}

#[test]
fn sqlite_allocates_with_the_installed_allocator() {
    let allocator = StoreAllocator {
        malloc: counted_malloc,
        realloc: counted_realloc,
        free: libc_free,
        usable_size: usable,
    };
    // SAFETY: the only test of this binary; nothing has used SQLite yet.
    assert!(unsafe { set_store_allocator(allocator) });
    // SAFETY: as above; a second call changes nothing.
    assert!(
        !unsafe { set_store_allocator(allocator) },
        "installed twice"
    );
    let dir = tempfile::tempdir().unwrap();
    let store = sextant_store::Store::open(&dir.path().join("index.db")).unwrap();
    let after_open = CALLS.load(Ordering::Relaxed);
    assert!(
        after_open > 0,
        "SQLite did not allocate through the installed allocator"
    );
    assert_eq!(store.active_generation_id().unwrap(), 0);
    assert!(CALLS.load(Ordering::Relaxed) >= after_open);
}
