//! The language registry. A language is a folder `languages/<id>/` holding `language.toml` (what
//! files it covers, how names are qualified, documented, made visible, measured) and tree-sitter query
//! files using Sextant's capture names. Built-in folders are embedded at build time; user folders load
//! through the same [`Registry::load_dir`] path. Grammars are compiled in and looked up by name.

mod alloc;
mod captures;
mod grammar;
mod manifest;
mod patterns;
mod registry;

pub use alloc::{
    Allocator as ParserAllocator, ArenaTree, ParseArena, chunk_bytes as parse_chunk_bytes,
    release_spare_chunks, set_parser_allocator,
};
pub use captures::{Capture, CaptureError, validate_capture};
pub use grammar::{GRAMMARS, grammar};
pub use manifest::{
    ComplexityRules, DefinitionRules, DocRules, ImportRules, Manifest, ModifierRules, ModuleStyle,
    SourceShim, VisibilityRules,
};
pub use patterns::{capture_names, pattern_ranges, root_node_kind};
pub use registry::{CompiledQuery, Language, LoadError, Registry};
