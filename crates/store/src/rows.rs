//! Row types going into the database and coming out for resolution. Plain data; the engine owns
//! the conversions from extracted facts.

use sextant_model::{Confidence, EdgeKind, NodeKind, Provenance, RefKind, Span, Visibility};

/// One file content at one path (immutable once written).
#[derive(Debug, Clone)]
pub struct FileVersionRow {
    pub id: i64,
    pub path: String,
    pub hash: String,
    pub language: String,
    /// The module prefix used for qualified names.
    pub module: String,
    /// Extractor version: a change forces re-extraction.
    pub extractor: String,
    pub size: u64,
    pub lines: u32,
    pub lossy: bool,
    /// The File node of this version.
    pub node_id: i64,
    /// Extraction diagnostics, one per line (`kind line: message`).
    pub diagnostics: Option<String>,
    /// Differs from the HEAD commit (in the generation being built).
    pub uncommitted: bool,
}

/// A node to insert.
#[derive(Debug, Clone)]
pub struct NewNode {
    pub id: i64,
    pub file_id: i64,
    pub stable_id: String,
    pub kind: NodeKind,
    pub name: String,
    pub qname: String,
    pub language: String,
    pub parent_id: Option<i64>,
    pub span: Span,
    pub signature: String,
    pub doc: Option<String>,
    pub visibility: Visibility,
    pub modifiers: String,
    pub complexity: Option<u32>,
    pub type_text: Option<String>,
    /// Full-text columns (pre-split identifiers).
    pub name_tokens: String,
    pub qname_tokens: String,
}

/// A raw reference to insert.
#[derive(Debug, Clone)]
pub struct RefRow {
    pub id: i64,
    pub file_id: i64,
    pub src_id: i64,
    pub kind: RefKind,
    pub name: String,
    pub receiver: Option<String>,
    pub implementor: Option<String>,
    pub line: u32,
    pub col: u32,
    pub end_col: u32,
}

/// An import binding to insert.
#[derive(Debug, Clone)]
pub struct ImportRow {
    pub id: i64,
    pub file_id: i64,
    pub src_id: i64,
    pub source: String,
    pub name: Option<String>,
    pub alias: Option<String>,
    pub wildcard: bool,
    pub line: u32,
    pub col: u32,
}

/// A resolved edge of a generation.
#[derive(Debug, Clone)]
pub struct EdgeRow {
    /// The file version whose edge set holds the edge: the file of `src`.
    pub file_id: i64,
    pub src: i64,
    pub dst: i64,
    pub kind: EdgeKind,
    pub provenance: Provenance,
    pub confidence: Confidence,
    pub rule: &'static str,
    pub ref_id: Option<i64>,
    pub import_id: Option<i64>,
}

/// A reference of a generation that resolved to nothing (or to too many candidates to keep).
#[derive(Debug, Clone)]
pub struct UnresolvedRow {
    /// The file version of the reference (whose edge set holds the row).
    pub file_id: i64,
    pub ref_id: i64,
    pub reason: &'static str,
    pub candidates: u32,
}

/// A node as the resolver needs it.
#[derive(Debug, Clone)]
pub struct ResolveNode {
    pub id: i64,
    pub file_id: i64,
    pub kind: NodeKind,
    pub name: String,
    pub qname: String,
    pub parent_id: Option<i64>,
    /// Comma-separated modifiers (`declaration`, `static`, ...).
    pub modifiers: String,
    /// Declared type (return type of a callable).
    pub type_text: Option<String>,
}

/// A typed binding (to insert, and as the resolver needs it).
#[derive(Debug, Clone)]
pub struct BindingRow {
    pub file_id: i64,
    /// The enclosing definition, or the File node.
    pub scope_id: i64,
    pub name: String,
    pub type_text: Option<String>,
    pub value: Option<String>,
    pub line: u32,
}

/// A reference as the resolver needs it.
#[derive(Debug, Clone)]
pub struct ResolveRef {
    pub id: i64,
    pub file_id: i64,
    pub src_id: i64,
    pub kind: RefKind,
    pub name: String,
    pub receiver: Option<String>,
    pub implementor: Option<String>,
}

/// An import as the resolver needs it.
#[derive(Debug, Clone)]
pub struct ResolveImport {
    pub id: i64,
    pub file_id: i64,
    pub src_id: i64,
    pub source: String,
    pub name: Option<String>,
    pub alias: Option<String>,
    pub wildcard: bool,
}
