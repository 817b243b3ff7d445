//! The only place Sextant reads source files: a gitignore-aware walk with skip rules (binary,
//! huge, minified, secret-bearing, special files, symlinks), confined reads that never block on a
//! FIFO or follow a symlink, git-compatible blob hashing, and repository containment checks.

mod confine;
mod read;
mod skip;
mod stat;
mod walk;

pub use confine::{ConfineError, confine};
pub use read::{ReadError, SourceFile, blob_id, read_source};
pub use skip::{SkipReason, is_secret_path};
pub use stat::{FileStat, RACY_WINDOW_NS, clock_ns};
pub use walk::{Skipped, Walk, WalkConfig, WalkedFile, walk, walk_into};
