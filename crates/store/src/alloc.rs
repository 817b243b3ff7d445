//! SQLite's allocator. By default SQLite allocates with libc `malloc` and counts every block
//! under a global mutex (its memory statistics). A cold index allocates for every row, record
//! and sort run: glibc `malloc`/`free` and that mutex took ~3 % of Django's indexing CPU. A binary
//! with a faster allocator hands it over here, first thing in `main`.

#![allow(unsafe_code)]

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use rusqlite::ffi;

/// The functions of one allocator (a block from one is resized and freed by the others).
#[derive(Clone, Copy, Debug)]
pub struct StoreAllocator {
    /// As C `malloc`: null when out of memory (SQLite handles it).
    pub malloc: unsafe extern "C" fn(usize) -> *mut c_void,
    /// As C `realloc`.
    pub realloc: unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void,
    /// As C `free`.
    pub free: unsafe extern "C" fn(*mut c_void),
    /// The usable size of a block (at least what was asked for), as `malloc_usable_size`.
    pub usable_size: unsafe extern "C" fn(*mut c_void) -> usize,
}

static ALLOCATOR: OnceLock<StoreAllocator> = OnceLock::new();

fn allocator() -> &'static StoreAllocator {
    // Installed before SQLite could call any of the functions below.
    ALLOCATOR.get().unwrap_or_else(|| std::process::abort())
}

unsafe extern "C" fn x_malloc(n: c_int) -> *mut c_void {
    // SAFETY: a plain allocation call of the installed allocator.
    unsafe { (allocator().malloc)(usize::try_from(n).unwrap_or(0)) }
}

unsafe extern "C" fn x_free(p: *mut c_void) {
    // SAFETY: SQLite frees only blocks that `x_malloc`/`x_realloc` returned.
    unsafe { (allocator().free)(p) }
}

unsafe extern "C" fn x_realloc(p: *mut c_void, n: c_int) -> *mut c_void {
    // SAFETY: `p` came from `x_malloc`/`x_realloc`.
    unsafe { (allocator().realloc)(p, usize::try_from(n).unwrap_or(0)) }
}

unsafe extern "C" fn x_size(p: *mut c_void) -> c_int {
    if p.is_null() {
        return 0;
    }
    // SAFETY: `p` came from `x_malloc`/`x_realloc`.
    let size = unsafe { (allocator().usable_size)(p) };
    c_int::try_from(size).unwrap_or(c_int::MAX)
}

unsafe extern "C" fn x_roundup(n: c_int) -> c_int {
    // As SQLite's own: to a multiple of 8.
    n.saturating_add(7) & !7
}

unsafe extern "C" fn x_init(_: *mut c_void) -> c_int {
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_shutdown(_: *mut c_void) {}

/// Makes SQLite allocate with `allocator` and stop keeping memory statistics (nothing here reads
/// them). Returns false, changing nothing, when SQLite is already initialized (a connection was
/// opened before) or this was called before.
///
/// # Safety
/// Call it first thing in `main`, before any other thread exists: SQLite's configuration
/// functions are not thread-safe. The functions must form one allocator and return memory
/// aligned at least as C `malloc`'s.
pub unsafe fn set_store_allocator(allocator: StoreAllocator) -> bool {
    if ALLOCATOR.set(allocator).is_err() {
        return false;
    }
    let methods = ffi::sqlite3_mem_methods {
        xMalloc: Some(x_malloc),
        xFree: Some(x_free),
        xRealloc: Some(x_realloc),
        xSize: Some(x_size),
        xRoundup: Some(x_roundup),
        xInit: Some(x_init),
        xShutdown: Some(x_shutdown),
        pAppData: std::ptr::null_mut(),
    };
    // SAFETY: the caller guarantees no other thread uses SQLite yet; SQLite copies the methods
    // (the struct need not outlive the call) and refuses (SQLITE_MISUSE) once initialized.
    unsafe {
        if ffi::sqlite3_config(ffi::SQLITE_CONFIG_MALLOC, &methods as *const _) != ffi::SQLITE_OK {
            return false;
        }
        ffi::sqlite3_config(ffi::SQLITE_CONFIG_MEMSTATUS, 0 as c_int) == ffi::SQLITE_OK
    }
}
