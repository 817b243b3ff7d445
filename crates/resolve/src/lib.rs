//! Resolution: references → edges with provenance, unresolved references kept with a reason.
//! Pure and data-driven: it sees symbols, references and imports of a whole generation plus a few
//! rules per language, builds name indexes once, and then resolves references independently (so
//! the caller may resolve chunks in parallel).
//!
//! Order of preference for a plain name: enclosing scopes, the same file, imported names, wildcard
//! imports, the same package/directory, a unique name in the repository. A receiver (`self.x()`,
//! `pkg.f()`, `Type::new()`) is resolved first and then the member is looked up in it (following
//! inheritance). Several equally good candidates give `ambiguous` edges to each of them; none
//! gives an unresolved reference with its reason.

mod bindings;
mod files;
mod index;
mod input;
mod links;
mod lists;
mod modules;
mod pages;
mod patch;
mod resolver;
mod symbols;
#[cfg(test)]
mod testing;
pub mod trace;
mod typing;

pub use bindings::{BindRef, Bindings};
pub use files::{FileRef, Files, FilesOut, Frozen};
pub use input::{
    Bind, Binds, Edge, FileCtx, Imp, LangRules, Output, Ref, Resolution, Symbol, Unresolved,
};
pub use lists::{MappedWords, WordsOut};
pub use modules::normalize;
pub use pages::{BindingSource, ImportTableSource, PassTables, paged};
pub use patch::{Matching, PatchError, Replaced, match_symbols};
pub use resolver::{
    Freeze, ImportSource, MAX_CANDIDATES, PassTablesOut, ReachOut, ReachSource, Resolver, push,
};
pub use symbols::{
    MappedLayout, MappedTable, ROW_BYTES, SymRef, Symbols, TableOut, TablesOut, encode_piece,
};
