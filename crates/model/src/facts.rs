//! What extraction produces for one file: definitions, references, imports and diagnostics.
//!
//! Positions: lines are 1-based, columns are 0-based byte offsets within the line, byte offsets are
//! 0-based into the file's bytes (after lossy UTF-8 decoding, which keeps valid files byte-exact).

use crate::kinds::{NodeKind, Visibility};

/// Index of a definition inside [`FileFacts::definitions`].
pub type LocalId = u32;

/// A range of source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start_byte: u32,
    pub end_byte: u32,
    pub start_line: u32,
    pub start_col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

/// One definition (class, function, field, doc section, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    pub kind: NodeKind,
    pub name: String,
    /// Name segments from the outermost enclosing scope of the file down to this definition, the
    /// owner written in the source (`func (s *Server) Start`, `void A::f()`) included. The module or
    /// package prefix is added later, by whoever knows the file's place in the repository.
    pub scope_path: Vec<String>,
    /// Innermost enclosing definition in the same file.
    pub parent: Option<LocalId>,
    pub span: Span,
    pub name_span: Span,
    /// The declaration header as written, whitespace collapsed.
    pub signature: String,
    pub doc: Option<String>,
    pub visibility: Visibility,
    pub modifiers: Vec<String>,
    /// Cyclomatic complexity, for callables.
    pub complexity: Option<u32>,
    /// The declared type as written: a callable's return type, a field's, property's or
    /// variable's type (`Store`, `Option<Store>`, `list[Store]`).
    pub type_text: Option<String>,
}

/// What a reference site means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RefKind {
    Call,
    Instantiate,
    Type,
    Inherit,
    Implement,
    Read,
    Write,
    Decorate,
}

impl RefKind {
    pub const ALL: &'static [RefKind] = &[
        RefKind::Call,
        RefKind::Instantiate,
        RefKind::Type,
        RefKind::Inherit,
        RefKind::Implement,
        RefKind::Read,
        RefKind::Write,
        RefKind::Decorate,
    ];

    /// The stable string form (also the suffix in `@reference.<kind>`).
    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Call => "call",
            RefKind::Instantiate => "instantiate",
            RefKind::Type => "type",
            RefKind::Inherit => "inherit",
            RefKind::Implement => "implement",
            RefKind::Read => "read",
            RefKind::Write => "write",
            RefKind::Decorate => "decorate",
        }
    }

    pub fn parse(text: &str) -> Option<RefKind> {
        RefKind::ALL.iter().copied().find(|k| k.as_str() == text)
    }

    /// The edge kind a resolved reference of this kind becomes.
    pub fn edge_kind(self) -> crate::EdgeKind {
        use crate::EdgeKind as E;
        match self {
            RefKind::Call | RefKind::Decorate => E::Calls,
            RefKind::Instantiate => E::Instantiates,
            RefKind::Type => E::UsesType,
            RefKind::Inherit => E::Inherits,
            RefKind::Implement => E::Implements,
            RefKind::Read => E::Reads,
            RefKind::Write => E::Writes,
        }
    }
}

/// A use of a name that resolution will try to bind to a definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub kind: RefKind,
    /// The last identifier of the referenced path (`bar` in `foo.bar()` or `a::b::bar()`).
    pub name: String,
    /// The receiver or qualifier expression as written (`self.store`, `client`, `a::b`).
    pub receiver: Option<String>,
    /// For inherit/implement clauses that do not sit inside the implementing definition
    /// (Rust `impl Trait for Type`): the implementing type as written.
    pub implementor: Option<String>,
    /// Innermost enclosing definition; `None` means file level.
    pub enclosing: Option<LocalId>,
    /// The site of the name.
    pub span: Span,
}

/// One imported binding (one per name for `from x import a, b`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// The module path as written: `os.path`, `./util`, `crate::store`, `..pkg`, `fmt`.
    pub source: String,
    /// The imported name, when the statement names one (`from x import name`).
    pub name: Option<String>,
    /// The local alias (`as z`).
    pub alias: Option<String>,
    /// `import *`, `use x::*`, `using Ns;`, Go dot-imports.
    pub wildcard: bool,
    pub enclosing: Option<LocalId>,
    pub span: Span,
}

impl Import {
    /// The name this import binds in the importing scope, if any.
    pub fn local_name(&self) -> Option<&str> {
        if self.wildcard {
            return None;
        }
        if let Some(alias) = &self.alias {
            return Some(alias);
        }
        if let Some(name) = &self.name {
            return Some(name);
        }
        None
    }
}

/// A name bound to a type inside a scope, for receiver typing: a typed parameter or variable
/// (`s: Store`), an assignment from a constructor or call (`x = Store()`, `let x = Store::new()`,
/// `const x = new Store()`), an attribute assigned in a method (`self.store = Store()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The bound name as written: `x`, `self.store`, `this.store`.
    pub name: String,
    /// The declared type as written.
    pub type_text: Option<String>,
    /// The callee of the assigned call or `new` as written (`Store`, `Store::new`, `make`,
    /// `a.b.make`).
    pub value: Option<String>,
    /// Innermost enclosing definition; `None` means file level.
    pub enclosing: Option<LocalId>,
    pub line: u32,
}

/// Why extraction of (part of) a file was incomplete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// The parser recovered from a syntax error; facts around it may be missing.
    SyntaxError,
    /// The per-file parse budget ran out; the file has no facts.
    Timeout,
    /// Brackets nest deeper than the limit; the file was not parsed.
    TooDeep,
    /// No grammar or query for this language.
    Unsupported,
    /// Matching a query pattern at one node was cut short (a node with a huge number of ways to
    /// match); facts there may be missing.
    QueryLimit,
}

impl DiagnosticKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticKind::SyntaxError => "syntax_error",
            DiagnosticKind::Timeout => "timeout",
            DiagnosticKind::TooDeep => "too_deep",
            DiagnosticKind::Unsupported => "unsupported",
            DiagnosticKind::QueryLimit => "query_limit",
        }
    }
}

/// A problem met while extracting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub kind: DiagnosticKind,
    pub message: String,
    pub line: u32,
}

/// Everything extracted from one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileFacts {
    pub definitions: Vec<Definition>,
    pub references: Vec<Reference>,
    pub imports: Vec<Import>,
    pub bindings: Vec<Binding>,
    /// Package or namespace declared for the whole file (`package a.b;`, `namespace A.B;`).
    pub package: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    pub line_count: u32,
}
