//! The allocator of tree-sitter's C core, and the arena a parse builds its tree in.
//!
//! By default tree-sitter allocates through libc `malloc`; parsing allocates and frees many small
//! stack and subtree blocks on every worker thread, which glibc's allocator serves slower than
//! the binary's own (4-5 % of Django's indexing CPU was glibc `malloc`/`free` called from the
//! parser). [`set_parser_allocator`] installs the binary's allocator behind functions of ours
//! that also serve [`ParseArena`]s.
//!
//! A [`ParseArena`] takes every allocation tree-sitter makes on this thread while
//! [`ParseArena::run`] runs: a parse (with a parser created and dropped inside it) puts its whole
//! tree there, bump-allocated in 1 MiB chunks. Dropping the arena then frees the tree at once;
//! `ts_tree_delete` instead walks every node, decrementing its atomic reference count and freeing
//! it (with the allocations, 8-9 % of a TypeScript index's CPU). A tree whose arena was used must
//! therefore never be deleted by tree-sitter: see `used`.

#![allow(unsafe_code)]

use std::alloc::{Layout, alloc, dealloc, handle_alloc_error};
use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::ptr::{self, NonNull};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use tree_sitter::Allocator;
use tree_sitter::Tree;

/// The allocator [`set_parser_allocator`] was given; blocks outside arenas come from it.
static BASE: OnceLock<Allocator> = OnceLock::new();

/// A bump chunk's size; a block larger than a quarter of it gets a chunk of its own.
const CHUNK: usize = 1 << 20;
/// Alignment of every block (as `malloc`'s on x86-64 and AArch64).
const ALIGN: usize = 16;
/// Bytes before each block: its requested size, for `realloc`.
const HEADER: usize = ALIGN;
/// Bump chunks a thread keeps for its next arenas at most (their pages stay mapped: no page
/// faults). A thread keeps as many as its latest parse used, or one fewer than it kept before
/// if that is more: after a large file, the chunks wait for the next one for a while, not for
/// the rest of the run (4 instead of 16 made s3's read phase 22 % slower; this decay lowered
/// the peak 7-12 MiB at the same speed). They go when the thread ends or calls
/// [`release_spare_chunks`].
const SPARE_CHUNKS: usize = 16;

/// Bytes of chunks allocated and not yet freed, by every arena and spare list.
static CHUNK_BYTES: AtomicUsize = AtomicUsize::new(0);

/// A thread's spare bump chunks, freed with it, and how many it keeps.
struct Spare {
    chunks: Vec<NonNull<u8>>,
    keep: usize,
}

impl Spare {
    const fn new() -> Spare {
        Spare {
            chunks: Vec::new(),
            keep: 0,
        }
    }

    /// Takes the bump chunks of an arena that used `used` of them, as many as it keeps now
    /// (see [`SPARE_CHUNKS`]); gives back the chunks it does not keep.
    fn take(&mut self, used: usize, chunks: &mut Vec<(NonNull<u8>, usize)>) {
        self.keep = self.keep.saturating_sub(1).max(used).min(SPARE_CHUNKS);
        while self.chunks.len() > self.keep {
            if let Some(start) = self.chunks.pop() {
                free_chunk(start, CHUNK);
            }
        }
        chunks.retain(|&(start, n)| {
            let keep = n == CHUNK && self.chunks.len() < self.keep;
            if keep {
                self.chunks.push(start);
            }
            !keep
        });
    }
}

impl Drop for Spare {
    fn drop(&mut self) {
        for start in self.chunks.drain(..) {
            free_chunk(start, CHUNK);
        }
    }
}

thread_local! {
    /// The arena taking this thread's tree-sitter allocations (null: none, the base allocator).
    static ACTIVE: Cell<*mut ParseArena> = const { Cell::new(ptr::null_mut()) };
    static SPARE: RefCell<Spare> = const { RefCell::new(Spare::new()) };
}

/// Makes tree-sitter allocate with `allocator`, and enables [`ParseArena`]s.
///
/// # Safety
/// As [`tree_sitter::set_allocator`]: call it once, first thing in `main`, before any parser,
/// tree or query exists and before other threads start; the four functions must belong to one
/// allocator, return memory aligned as `malloc`'s, and never return null for a non-zero size.
pub unsafe fn set_parser_allocator(allocator: Allocator) {
    if BASE.set(allocator).is_err() {
        return;
    }
    // SAFETY: the caller upholds tree-sitter's contract (documented above); ours below keep it.
    unsafe {
        tree_sitter::set_allocator(Some(Allocator {
            malloc: ts_malloc,
            calloc: ts_calloc,
            realloc: ts_realloc,
            free: ts_free,
        }))
    }
}

/// Frees the bump chunks this thread keeps for its next arenas (see [`ParseArena`]): call it on
/// each thread that parsed once no more parsing is expected for a while. Up to 16 MiB a thread.
pub fn release_spare_chunks() {
    let _ = SPARE.try_with(|s| drop(std::mem::replace(&mut *s.borrow_mut(), Spare::new())));
}

/// Bytes the arenas and their spare chunks hold, on every thread (for measurements).
pub fn chunk_bytes() -> usize {
    CHUNK_BYTES.load(Ordering::Relaxed)
}

fn free_chunk(start: NonNull<u8>, size: usize) {
    CHUNK_BYTES.fetch_sub(size, Ordering::Relaxed);
    // SAFETY: every chunk is allocated in `ParseArena::chunk` with this layout, and freed once,
    // by its only owner (an arena or a spare list).
    unsafe {
        dealloc(
            start.as_ptr(),
            Layout::from_size_align_unchecked(size, ALIGN),
        )
    };
}

fn base() -> &'static Allocator {
    // Our functions are installed only after BASE is set.
    BASE.get()
        .expect("set_parser_allocator set the base allocator")
}

/// Where a parse's tree-sitter objects live (see the module docs). Without
/// [`set_parser_allocator`] it does nothing and tree-sitter allocates as usual.
pub struct ParseArena {
    /// Next free byte and end of the current bump chunk (addresses; 0 when there is none).
    cur: usize,
    end: usize,
    /// The latest block of the current chunk (its data address, 0 if none): the one `realloc`
    /// can grow and `free` can take back in place.
    last: usize,
    /// Every chunk: start and size. The current bump chunk is the last one of size [`CHUNK`].
    chunks: Vec<(NonNull<u8>, usize)>,
    used: bool,
}

// SAFETY: the chunks are plain heap memory the arena owns alone; nothing refers to them but what
// was built in them, which moves with the arena (see `ArenaTree`).
unsafe impl Send for ParseArena {}

impl Default for ParseArena {
    fn default() -> Self {
        Self::new()
    }
}

impl ParseArena {
    pub fn new() -> Self {
        ParseArena {
            cur: 0,
            end: 0,
            last: 0,
            chunks: Vec::new(),
            used: false,
        }
    }

    /// Runs `f` with this thread's tree-sitter allocations taken from the arena. Whatever
    /// tree-sitter object `f` creates and keeps must then never be deleted through tree-sitter
    /// (its memory is the arena's); objects created before must not be freed or grown inside.
    pub fn run<R>(&mut self, f: impl FnOnce() -> R) -> R {
        if BASE.get().is_none() {
            return f();
        }
        self.used = true;
        struct Restore(*mut ParseArena);
        impl Drop for Restore {
            fn drop(&mut self) {
                ACTIVE.with(|a| a.set(self.0));
            }
        }
        let _restore = Restore(ACTIVE.with(|a| a.replace(self as *mut ParseArena)));
        f()
    }

    /// Whether tree-sitter allocated in the arena (what [`ParseArena::run`] created lives here).
    pub fn used(&self) -> bool {
        self.used
    }

    /// Bytes taken from the system (chunks), for measurements.
    pub fn reserved(&self) -> usize {
        self.chunks.iter().map(|&(_, n)| n).sum()
    }

    fn alloc(&mut self, size: usize) -> *mut u8 {
        let Some(need) = size
            .max(1)
            .checked_next_multiple_of(ALIGN)
            .and_then(|n| n.checked_add(HEADER))
        else {
            std::process::abort();
        };
        let block = if need > CHUNK / 4 {
            self.chunk(need)
        } else {
            if self.end - self.cur < need {
                let start = self.chunk(CHUNK) as usize;
                self.cur = start;
                self.end = start + CHUNK;
            }
            let block = self.cur as *mut u8;
            self.cur += need;
            self.last = self.cur - need + HEADER;
            block
        };
        // SAFETY: `block` starts `need` >= HEADER + size writable bytes, aligned for usize.
        unsafe {
            (block as *mut usize).write(size);
            block.add(HEADER)
        }
    }

    /// A new chunk of `size` bytes (a spare one for a bump chunk).
    fn chunk(&mut self, size: usize) -> *mut u8 {
        let spare = if size == CHUNK {
            SPARE
                .try_with(|s| s.borrow_mut().chunks.pop())
                .ok()
                .flatten()
        } else {
            None
        };
        let start = spare.unwrap_or_else(|| {
            let layout =
                Layout::from_size_align(size, ALIGN).unwrap_or_else(|_| std::process::abort());
            // SAFETY: `layout` has a non-zero size.
            let start = NonNull::new(unsafe { alloc(layout) })
                .unwrap_or_else(|| handle_alloc_error(layout));
            CHUNK_BYTES.fetch_add(size, Ordering::Relaxed);
            start
        });
        self.chunks.push((start, size));
        start.as_ptr()
    }

    fn owns(&self, p: usize) -> bool {
        if self.end != 0 && (self.end - CHUNK..self.end).contains(&p) {
            return true;
        }
        self.chunks
            .iter()
            .rev()
            .any(|&(start, n)| (start.as_ptr() as usize..start.as_ptr() as usize + n).contains(&p))
    }

    /// # Safety
    /// `p` is a live block of this arena.
    unsafe fn realloc(&mut self, p: *mut u8, size: usize) -> *mut u8 {
        // SAFETY: every block of ours starts HEADER bytes after its size.
        let old = unsafe { (p.sub(HEADER) as *const usize).read() };
        let a = p as usize;
        if a == self.last {
            if let Some(need) = size.max(1).checked_next_multiple_of(ALIGN)
                && need <= self.end - a
            {
                self.cur = a + need;
                // SAFETY: as above.
                unsafe { (p.sub(HEADER) as *mut usize).write(size) };
                return p;
            }
        } else if size <= old {
            return p;
        }
        let q = self.alloc(size);
        // SAFETY: both are blocks of ours, at least min(old, size) long, and distinct.
        unsafe { ptr::copy_nonoverlapping(p, q, old.min(size)) };
        q
    }

    fn free(&mut self, p: usize) {
        if p == self.last {
            self.cur = p - HEADER;
            self.last = 0;
        }
    }
}

impl Drop for ParseArena {
    fn drop(&mut self) {
        let mut chunks = std::mem::take(&mut self.chunks);
        let used = chunks.iter().filter(|&&(_, n)| n == CHUNK).count();
        let _ = SPARE.try_with(|s| s.borrow_mut().take(used, &mut chunks));
        for (start, n) in chunks {
            free_chunk(start, n);
        }
    }
}

/// A syntax tree and the arena its nodes live in: dropping it frees the whole tree with the
/// arena, without `ts_tree_delete`'s walk over every node.
pub struct ArenaTree {
    tree: ManuallyDrop<Tree>,
    arena: ParseArena,
}

impl ArenaTree {
    /// `tree` must have been made inside `arena`'s [`ParseArena::run`] (its parser too), or
    /// without an arena at all.
    pub fn new(tree: Tree, arena: ParseArena) -> Self {
        ArenaTree {
            tree: ManuallyDrop::new(tree),
            arena,
        }
    }
}

impl Deref for ArenaTree {
    type Target = Tree;
    fn deref(&self) -> &Tree {
        &self.tree
    }
}

impl Drop for ArenaTree {
    fn drop(&mut self) {
        if !self.arena.used() {
            // SAFETY: dropped once, here: tree-sitter's usual allocator made it (no arena was
            // installed).
            unsafe { ManuallyDrop::drop(&mut self.tree) }
        }
        // Otherwise the tree's memory is the arena's, which drops next.
    }
}

fn active() -> *mut ParseArena {
    ACTIVE.with(Cell::get)
}

unsafe extern "C" fn ts_malloc(size: usize) -> *mut c_void {
    let arena = active();
    if arena.is_null() {
        // SAFETY: the base allocator's own function.
        unsafe { (base().malloc)(size) }
    } else {
        // SAFETY: ACTIVE points to the arena `run` holds borrowed for the whole call.
        unsafe { (*arena).alloc(size).cast() }
    }
}

unsafe extern "C" fn ts_calloc(count: usize, size: usize) -> *mut c_void {
    let arena = active();
    if arena.is_null() {
        // SAFETY: the base allocator's own function.
        return unsafe { (base().calloc)(count, size) };
    }
    let Some(bytes) = count.checked_mul(size) else {
        std::process::abort();
    };
    // SAFETY: as in `ts_malloc`; the block has `bytes` writable bytes.
    unsafe {
        let p = (*arena).alloc(bytes);
        ptr::write_bytes(p, 0, bytes);
        p.cast()
    }
}

unsafe extern "C" fn ts_realloc(p: *mut c_void, size: usize) -> *mut c_void {
    let arena = active();
    // SAFETY: as in `ts_malloc`; a block the arena does not own came from the base allocator.
    unsafe {
        if arena.is_null() || (!p.is_null() && !(*arena).owns(p as usize)) {
            (base().realloc)(p, size)
        } else if p.is_null() {
            (*arena).alloc(size).cast()
        } else {
            (*arena).realloc(p.cast(), size).cast()
        }
    }
}

unsafe extern "C" fn ts_free(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    let arena = active();
    // SAFETY: as in `ts_realloc`.
    unsafe {
        if arena.is_null() || !(*arena).owns(p as usize) {
            (base().free)(p)
        } else {
            (*arena).free(p as usize)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_grow_shrink_and_come_back() {
        let mut arena = ParseArena::new();
        let a = arena.alloc(10);
        assert_eq!(a as usize % ALIGN, 0);
        // SAFETY: blocks of this arena, written within their sizes.
        unsafe {
            ptr::write_bytes(a, 7, 10);
            // The latest block grows in place.
            let b = arena.realloc(a, 100);
            assert_eq!(a, b);
            assert_eq!(*b.add(9), 7);
            let c = arena.alloc(5);
            // Not the latest: moved, its bytes copied.
            let d = arena.realloc(b, 200);
            assert_ne!(d, b);
            assert_eq!(*d.add(9), 7);
            assert!(arena.owns(c as usize) && arena.owns(d as usize));
            // Freeing the latest block takes its bytes back.
            arena.free(d as usize);
            assert_eq!(arena.alloc(200), d);
            // A large block gets a chunk of its own; the bump chunk goes on.
            let big = arena.alloc(CHUNK);
            assert!(arena.owns(big as usize) && arena.owns(big as usize + CHUNK - 1));
            let e = arena.alloc(16);
            assert!(e as usize > d as usize && (e as usize) < d as usize + CHUNK);
        }
        assert_eq!(arena.reserved(), CHUNK + CHUNK + HEADER);
        assert!(!arena.owns(&arena as *const _ as usize));
    }

    fn spare_len() -> usize {
        SPARE.with(|s| s.borrow().chunks.len())
    }

    #[test]
    fn spare_chunks_serve_the_next_arena_and_go_when_released() {
        // A thread of its own: the spare list is the thread's.
        std::thread::spawn(|| {
            let mut arena = ParseArena::new();
            arena.alloc(10);
            arena.alloc(CHUNK / 2);
            drop(arena);
            // The bump chunk is kept, the large block's own chunk is not.
            assert_eq!(spare_len(), 1);
            let mut next = ParseArena::new();
            next.alloc(10);
            assert_eq!(spare_len(), 0, "the next arena took the spare chunk");
            drop(next);
            assert_eq!(spare_len(), 1);
            release_spare_chunks();
            assert_eq!(spare_len(), 0);
        })
        .join()
        .unwrap();
    }

    /// An arena that takes `n` bump chunks.
    fn arena_of(n: usize) -> ParseArena {
        let mut arena = ParseArena::new();
        while arena.reserved() < n * CHUNK {
            arena.alloc(CHUNK / 8);
        }
        arena
    }

    #[test]
    fn spare_chunks_wait_for_the_next_large_file_a_while_not_for_ever() {
        std::thread::spawn(|| {
            drop(arena_of(40));
            assert_eq!(spare_len(), SPARE_CHUNKS, "at most {SPARE_CHUNKS} are kept");
            drop(arena_of(6));
            // As many as before, but one: 15 kept though the parse used 6.
            assert_eq!(spare_len(), SPARE_CHUNKS - 1);
            for _ in 0..30 {
                drop(arena_of(1));
            }
            assert_eq!(spare_len(), 1, "small files keep what a small file takes");
            drop(arena_of(5));
            assert_eq!(spare_len(), 5);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_thread_that_ends_frees_its_spare_chunks() {
        let spares = 8;
        let (held, done) = std::sync::mpsc::channel();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            drop(arena_of(spares));
            held.send(spare_len()).unwrap();
            wait.recv().unwrap();
        });
        let held = done.recv().unwrap();
        assert!(held >= spares);
        let before = chunk_bytes();
        go.send(()).unwrap();
        t.join().unwrap();
        let freed = before.saturating_sub(chunk_bytes());
        // Half of them at least: the others' chunks come and go meanwhile (a few MiB).
        assert!(
            freed >= held * CHUNK / 2,
            "a finished thread freed {freed} bytes of its {held} spare chunks"
        );
    }
}
