//! The tools, grouped by toolset. Each file is one `#[tool_router]` block on `SextantServer`;
//! `crate::toolsets` decides which of them a server lists.

pub(crate) mod admin;
pub(crate) mod analytics;
pub(crate) mod changes;
pub(crate) mod graph;
pub(crate) mod read;
pub(crate) mod workspace;

pub(crate) const SYMBOL_DOC: &str = "A qualified name with any separator (`pkg.mod.Class`, `Type::method`; a suffix on whole segments is enough), a stable id (`sym_…`) from another answer, a file path, or a plain name. An ambiguous name answers with the candidates; an unknown one with the nearest names.";

pub(crate) fn default_search_limit() -> u32 {
    20
}
pub(crate) fn default_references_limit() -> u32 {
    50
}
pub(crate) fn default_calls_limit() -> u32 {
    20
}
pub(crate) fn default_depth() -> u32 {
    3
}
pub(crate) fn default_max_lines() -> u32 {
    120
}
pub(crate) fn default_max_tokens() -> u32 {
    crate::budget::DEFAULT_MAX_TOKENS
}
pub(crate) fn yes() -> bool {
    true
}
