//! The allocator of tree-sitter's C core. By default it allocates through libc `malloc`; parsing
//! allocates and frees many small stack and subtree blocks on every worker thread, which glibc's
//! allocator serves slower than the binary's own (4-5 % of Django's indexing CPU was glibc
//! `malloc`/`free` called from the parser).

pub use tree_sitter::Allocator;

/// Makes tree-sitter allocate with `allocator`.
///
/// # Safety
/// As [`tree_sitter::set_allocator`]: call it once, first thing in `main`, before any parser,
/// tree or query exists and before other threads start; the four functions must belong to one
/// allocator, return memory aligned as `malloc`'s, and never return null for a non-zero size.
#[allow(unsafe_code)]
pub unsafe fn set_parser_allocator(allocator: Allocator) {
    // SAFETY: the caller upholds tree-sitter's contract (documented above).
    unsafe { tree_sitter::set_allocator(Some(allocator)) }
}
