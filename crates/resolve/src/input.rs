//! What the resolver takes and gives.

use sextant_model::{Confidence, EdgeKind, NodeKind, Provenance, RefKind};

/// How an import with neither name nor alias binds a local name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binds {
    First,
    Last,
    None,
}

impl Binds {
    pub fn parse(text: &str) -> Binds {
        match text {
            "first" => Binds::First,
            "last" => Binds::Last,
            _ => Binds::None,
        }
    }
}

/// Resolution rules of one language.
#[derive(Debug, Clone)]
pub struct LangRules {
    pub id: String,
    /// Languages of one family see each other's symbols (JS/TS/TSX, C/C++).
    pub family: String,
    pub self_names: Vec<String>,
    pub super_names: Vec<String>,
    pub binds: Binds,
    pub implicit_self: bool,
    /// Module style (`python`, `rust`, `go`, `path`, `declared`, `none`).
    pub module_style: String,
    /// Names and member names the language provides (see `language.toml` `[builtins]`).
    pub builtin_names: rustc_hash::FxHashSet<String>,
    pub builtin_members: rustc_hash::FxHashSet<String>,
    /// Methods and variables live in separate namespaces (Java, C#): a local never shadows a
    /// called name.
    pub separate_call_names: bool,
}

/// A file of the generation.
#[derive(Debug, Clone)]
pub struct FileCtx {
    pub id: i64,
    /// The File node.
    pub node: i64,
    pub path: String,
    /// Module prefix of the file's qualified names.
    pub module: String,
    /// Index into the rules table.
    pub lang: usize,
}

/// A definition.
#[derive(Debug, Clone)]
pub struct Symbol {
    pub id: i64,
    pub file: i64,
    pub kind: NodeKind,
    pub name: String,
    pub qname: String,
    pub parent: Option<i64>,
    /// Declared without a body (C prototype, interface method): a definition with the same
    /// qualified name is preferred.
    pub declaration: bool,
    /// Declared type as written: a callable's return type, a field's or variable's type.
    pub type_text: Option<String>,
}

/// A name bound to a type in a scope (typed parameter or variable, assignment from a call).
#[derive(Debug, Clone)]
pub struct Bind {
    pub file: i64,
    /// The enclosing definition, or the File node.
    pub scope: i64,
    /// As written: `x`, `self.store`, `this.store`.
    pub name: String,
    pub type_text: Option<String>,
    /// The callee of the assigned call (`Store`, `Store::new`, `make`).
    pub value: Option<String>,
}

/// A reference site.
#[derive(Debug, Clone)]
pub struct Ref {
    pub id: i64,
    pub file: i64,
    /// Enclosing definition (or the File node).
    pub src: i64,
    pub kind: RefKind,
    pub name: String,
    pub receiver: Option<String>,
    pub implementor: Option<String>,
}

/// An import binding.
#[derive(Debug, Clone)]
pub struct Imp {
    pub id: i64,
    pub file: i64,
    pub src: i64,
    pub source: String,
    pub name: Option<String>,
    pub alias: Option<String>,
    pub wildcard: bool,
}

/// A resolved edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    pub src: i64,
    pub dst: i64,
    pub kind: EdgeKind,
    pub provenance: Provenance,
    pub confidence: Confidence,
    pub rule: &'static str,
    pub ref_id: Option<i64>,
    pub import_id: Option<i64>,
}

/// A reference that did not become an edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    pub ref_id: i64,
    /// `no_candidates`, `external`, `too_many_candidates`, `local` (a local variable or parameter).
    pub reason: &'static str,
    pub candidates: u32,
}

/// What one reference became.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    Edges(Vec<Edge>),
    Unresolved(Unresolved),
}

/// Everything resolved.
#[derive(Debug, Clone, Default)]
pub struct Output {
    pub edges: Vec<Edge>,
    pub unresolved: Vec<Unresolved>,
}
