//! Sextant's shared vocabulary: node and edge kinds, provenance, repository paths, and the facts
//! extracted from one file. Pure data: no I/O, no serialization framework.

mod facts;
mod ids;
mod kinds;
mod path;

pub use facts::{
    Binding, Definition, Diagnostic, DiagnosticKind, FileFacts, Import, LocalId, RefKind,
    Reference, Span,
};
pub use ids::stable_id;
pub use kinds::{Confidence, EdgeKind, NodeKind, Provenance, Visibility};
pub use path::{RepoPath, RepoPathError};
