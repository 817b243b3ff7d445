//! tree-sitter's allocator in test processes: libc's, counted, behind Sextant's parse arenas, as
//! the `sextant` binary installs mimalloc's. Tests that extract call [`install`] first, so the
//! arena path (trees freed with their arena, never by tree-sitter) is the one they check.
#![allow(unsafe_code, dead_code)]

use std::ffi::c_void;
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

unsafe extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn calloc(count: usize, size: usize) -> *mut c_void;
    fn realloc(p: *mut c_void, size: usize) -> *mut c_void;
    fn free(p: *mut c_void);
}

/// Blocks tree-sitter took from the base allocator (outside any arena), on every thread.
pub static BASE_ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn counted_malloc(size: usize) -> *mut c_void {
    BASE_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    // SAFETY: libc's own allocation function.
    unsafe { malloc(size) }
}

unsafe extern "C" fn counted_calloc(count: usize, size: usize) -> *mut c_void {
    BASE_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    // SAFETY: as above.
    unsafe { calloc(count, size) }
}

unsafe extern "C" fn counted_realloc(p: *mut c_void, size: usize) -> *mut c_void {
    if p.is_null() {
        BASE_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
    // SAFETY: `p` is null or libc's (blocks of arenas never reach the base allocator).
    unsafe { realloc(p, size) }
}

/// Installs the allocator (once per process; blocks made before it are libc's too).
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: one allocator family (libc's), malloc-aligned; tree-sitter objects made before
        // this were made with libc's allocator as well.
        unsafe {
            sextant_lang::set_parser_allocator(sextant_lang::ParserAllocator {
                malloc: counted_malloc,
                calloc: counted_calloc,
                realloc: counted_realloc,
                free,
            })
        }
    });
}
