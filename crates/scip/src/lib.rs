//! Reads a SCIP index (the protobuf produced by compiler-grade indexers: scip-python,
//! scip-typescript, rust-analyzer, scip-java, scip-dotnet, scip-clang) into plain structures
//! the engine can compare with, or merge into, the heuristic graph.
//!
//! Positions are converted to Sextant's convention: lines 1-based, columns 0-based. SCIP
//! columns are in the document's position encoding (UTF-8 bytes or UTF-16 code units); on
//! ASCII lines both equal Sextant's byte columns, and `Document::utf16` says which applies.

use std::collections::HashSet;
use std::path::Path;

use protobuf::Message;
use scip::types::{Descriptor, descriptor::Suffix, occurrence::Typed_range};

/// Errors reading an index.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read SCIP index {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a SCIP index (protobuf decoding failed: {message})")]
    Decode { path: String, message: String },
}

/// A whole index.
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// The producer, e.g. `scip-python`.
    pub tool: String,
    pub tool_version: String,
    /// `metadata.project_root` as written (a URI).
    pub project_root: String,
    pub documents: Vec<Document>,
}

/// One source file of the index.
#[derive(Debug, Clone)]
pub struct Document {
    /// Path relative to the project root, `/`-separated.
    pub path: String,
    /// The language as the producer names it (`python`, `typescript`, ...), often empty.
    pub language: String,
    /// Columns are UTF-16 code units (else UTF-8 bytes or unspecified).
    pub utf16: bool,
    pub occurrences: Vec<Occurrence>,
}

/// One symbol occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// 1-based.
    pub line: u32,
    /// 0-based.
    pub col: u32,
    pub end_line: u32,
    pub end_col: u32,
    pub symbol: String,
    /// The occurrence defines the symbol (role bit `Definition`).
    pub definition: bool,
}

/// What a symbol names, from the suffix of its last descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// Document-local symbol (`local 12`): variables, parameters the producer keeps private.
    Local,
    /// A package or module (`pkg/`).
    Namespace,
    /// A type (`Class#`).
    Type,
    /// A term: attribute, field, variable, constant (`x.`).
    Term,
    /// A function or method (`f().`).
    Method,
    TypeParameter,
    Parameter,
    Meta,
    Macro,
    Unknown,
}

impl SymbolKind {
    /// Names Sextant models as definitions (parameters, type parameters and locals are not).
    pub fn is_definition_kind(self) -> bool {
        matches!(
            self,
            SymbolKind::Type | SymbolKind::Term | SymbolKind::Method | SymbolKind::Macro
        )
    }

    pub fn label(self) -> &'static str {
        match self {
            SymbolKind::Local => "local",
            SymbolKind::Namespace => "namespace",
            SymbolKind::Type => "type",
            SymbolKind::Term => "term",
            SymbolKind::Method => "method",
            SymbolKind::TypeParameter => "type_parameter",
            SymbolKind::Parameter => "parameter",
            SymbolKind::Meta => "meta",
            SymbolKind::Macro => "macro",
            SymbolKind::Unknown => "unknown",
        }
    }
}

/// The parts of a symbol string Sextant uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolInfo {
    pub kind: SymbolKind,
    /// The last descriptor's name (`method` in `pkg/mod.Class#method().`); empty for locals.
    pub name: String,
    /// Descriptor names outside-in, without the package (`["pkg", "mod", "Class", "method"]`).
    pub path: Vec<String>,
}

/// Parses a symbol string; `None` when it is malformed.
pub fn symbol_info(symbol: &str) -> Option<SymbolInfo> {
    if scip::symbol::is_local_symbol(symbol) {
        return Some(SymbolInfo {
            kind: SymbolKind::Local,
            name: String::new(),
            path: Vec::new(),
        });
    }
    let parsed = scip::symbol::parse_symbol(symbol).ok()?;
    let last: &Descriptor = parsed.descriptors.last()?;
    let kind = match last.suffix.enum_value() {
        Ok(Suffix::Namespace) => SymbolKind::Namespace,
        Ok(Suffix::Type) => SymbolKind::Type,
        Ok(Suffix::Term) => SymbolKind::Term,
        Ok(Suffix::Method) => SymbolKind::Method,
        Ok(Suffix::TypeParameter) => SymbolKind::TypeParameter,
        Ok(Suffix::Parameter) => SymbolKind::Parameter,
        Ok(Suffix::Meta) => SymbolKind::Meta,
        Ok(Suffix::Local) => SymbolKind::Local,
        Ok(Suffix::Macro) => SymbolKind::Macro,
        _ => SymbolKind::Unknown,
    };
    Some(SymbolInfo {
        kind,
        name: last.name.clone(),
        path: parsed.descriptors.iter().map(|d| d.name.clone()).collect(),
    })
}

/// Reads and decodes an index file.
pub fn read(path: &Path) -> Result<Index, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })?;
    parse(&bytes).map_err(|e| match e {
        Error::Decode { message, .. } => Error::Decode {
            path: path.display().to_string(),
            message,
        },
        other => other,
    })
}

/// Decodes an index from bytes.
pub fn parse(bytes: &[u8]) -> Result<Index, Error> {
    let raw = scip::types::Index::parse_from_bytes(bytes).map_err(|e| Error::Decode {
        path: String::new(),
        message: e.to_string(),
    })?;
    let tool = raw.metadata.tool_info.as_ref();
    let mut index = Index {
        tool: tool.map(|t| t.name.clone()).unwrap_or_default(),
        tool_version: tool.map(|t| t.version.clone()).unwrap_or_default(),
        project_root: raw
            .metadata
            .as_ref()
            .map(|m| m.project_root.clone())
            .unwrap_or_default(),
        documents: Vec::with_capacity(raw.documents.len()),
    };
    for doc in raw.documents {
        let utf16 = matches!(
            doc.position_encoding.enum_value(),
            Ok(scip::types::PositionEncoding::UTF16CodeUnitOffsetFromLineStart)
        );
        let mut occurrences = Vec::with_capacity(doc.occurrences.len());
        for occ in doc.occurrences {
            let Some((line, col, end_line, end_col)) = range(&occ) else {
                continue;
            };
            if occ.symbol.is_empty() {
                continue;
            }
            occurrences.push(Occurrence {
                line: line + 1,
                col,
                end_line: end_line + 1,
                end_col,
                definition: occ.symbol_roles & scip::types::SymbolRole::Definition as i32 != 0,
                symbol: occ.symbol,
            });
        }
        index.documents.push(Document {
            path: doc.relative_path.replace('\\', "/"),
            language: doc.language.to_ascii_lowercase(),
            utf16,
            occurrences,
        });
    }
    Ok(index)
}

/// Encodes an index as SCIP protobuf (legacy four-element ranges; fixtures and tests write
/// indexes with it).
pub fn encode(index: &Index) -> Vec<u8> {
    let mut raw = scip::types::Index::new();
    let mut tool = scip::types::ToolInfo::new();
    tool.name = index.tool.clone();
    tool.version = index.tool_version.clone();
    let mut meta = scip::types::Metadata::new();
    meta.tool_info = protobuf::MessageField::some(tool);
    meta.project_root = index.project_root.clone();
    raw.metadata = protobuf::MessageField::some(meta);
    for d in &index.documents {
        let mut doc = scip::types::Document::new();
        doc.relative_path = d.path.clone();
        doc.language = d.language.clone();
        for o in &d.occurrences {
            let mut occ = scip::types::Occurrence::new();
            let n = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
            occ.range = vec![
                n(o.line.saturating_sub(1)),
                n(o.col),
                n(o.end_line.saturating_sub(1)),
                n(o.end_col),
            ];
            occ.symbol = o.symbol.clone();
            occ.symbol_roles = if o.definition {
                scip::types::SymbolRole::Definition as i32
            } else {
                0
            };
            doc.occurrences.push(occ);
        }
        raw.documents.push(doc);
    }
    raw.write_to_bytes().unwrap_or_default()
}

/// `(line, col, end_line, end_col)`, 0-based, from the typed or the legacy encoding.
fn range(occ: &scip::types::Occurrence) -> Option<(u32, u32, u32, u32)> {
    let n = |v: i32| u32::try_from(v).ok();
    match &occ.typed_range {
        Some(Typed_range::SingleLineRange(r)) => Some((
            n(r.line)?,
            n(r.start_character)?,
            n(r.line)?,
            n(r.end_character)?,
        )),
        Some(Typed_range::MultiLineRange(r)) => Some((
            n(r.start_line)?,
            n(r.start_character)?,
            n(r.end_line)?,
            n(r.end_character)?,
        )),
        _ => match occ.range.as_slice() {
            [l, c, e] => Some((n(*l)?, n(*c)?, n(*l)?, n(*e)?)),
            [l, c, el, ec] => Some((n(*l)?, n(*c)?, n(*el)?, n(*ec)?)),
            _ => None,
        },
    }
}

impl Index {
    /// Every symbol that has a definition occurrence in this index (an in-repository symbol).
    pub fn defined_symbols(&self) -> HashSet<&str> {
        self.documents
            .iter()
            .flat_map(|d| d.occurrences.iter())
            .filter(|o| o.definition)
            .map(|o| o.symbol.as_str())
            .collect()
    }

    /// Total occurrences.
    pub fn occurrence_count(&self) -> usize {
        self.documents.iter().map(|d| d.occurrences.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occurrence(range: Vec<i32>, symbol: &str, roles: i32) -> scip::types::Occurrence {
        let mut o = scip::types::Occurrence::new();
        o.range = range;
        o.symbol = symbol.to_string();
        o.symbol_roles = roles;
        o
    }

    #[test]
    fn round_trip_through_protobuf() {
        let mut raw = scip::types::Index::new();
        let mut tool = scip::types::ToolInfo::new();
        tool.name = "scip-python".into();
        tool.version = "0.6.6".into();
        let mut meta = scip::types::Metadata::new();
        meta.tool_info = protobuf::MessageField::some(tool);
        meta.project_root = "file:///x".into();
        raw.metadata = protobuf::MessageField::some(meta);
        let mut doc = scip::types::Document::new();
        doc.relative_path = "pkg/mod.py".into();
        doc.language = "Python".into();
        doc.occurrences = vec![
            occurrence(
                vec![3, 4, 7],
                "scip-python python pkg 1.0 `pkg.mod`/f().",
                1,
            ),
            occurrence(
                vec![9, 8, 10, 2],
                "scip-python python pkg 1.0 `pkg.mod`/f().",
                8,
            ),
            occurrence(vec![1, 2], "broken range is dropped", 0),
            occurrence(vec![2, 0, 1], "local 3", 0),
        ];
        raw.documents.push(doc);
        let index = parse(&raw.write_to_bytes().unwrap()).unwrap();
        assert_eq!(index.tool, "scip-python");
        assert_eq!(index.tool_version, "0.6.6");
        assert_eq!(index.project_root, "file:///x");
        let d = &index.documents[0];
        assert_eq!(
            (d.path.as_str(), d.language.as_str()),
            ("pkg/mod.py", "python")
        );
        assert_eq!(d.occurrences.len(), 3);
        assert_eq!(
            d.occurrences[0],
            Occurrence {
                line: 4,
                col: 4,
                end_line: 4,
                end_col: 7,
                symbol: "scip-python python pkg 1.0 `pkg.mod`/f().".into(),
                definition: true
            }
        );
        assert!(!d.occurrences[1].definition);
        assert_eq!(
            (d.occurrences[1].end_line, d.occurrences[1].end_col),
            (11, 2)
        );
        assert_eq!(index.defined_symbols().len(), 1);
    }

    #[test]
    fn encode_round_trips() {
        let index = Index {
            tool: "t".into(),
            tool_version: "1".into(),
            project_root: String::new(),
            documents: vec![Document {
                path: "a.py".into(),
                language: "python".into(),
                utf16: false,
                occurrences: vec![Occurrence {
                    line: 3,
                    col: 4,
                    end_line: 3,
                    end_col: 9,
                    symbol: "s p n v a/f().".into(),
                    definition: true,
                }],
            }],
        };
        let back = parse(&encode(&index)).unwrap();
        assert_eq!(
            back.documents[0].occurrences,
            index.documents[0].occurrences
        );
        assert_eq!(
            (back.tool.as_str(), back.documents[0].path.as_str()),
            ("t", "a.py")
        );
    }

    #[test]
    fn garbage_is_a_decode_error() {
        let err = parse(b"\xff\xff\xff\xff not protobuf").unwrap_err();
        assert!(matches!(err, Error::Decode { .. }), "{err}");
    }

    #[test]
    fn symbol_kinds_and_names() {
        let info = symbol_info("scip-python python pkg 1.0 `pkg.mod`/Class#method().").unwrap();
        assert_eq!(info.kind, SymbolKind::Method);
        assert_eq!(info.name, "method");
        assert_eq!(info.path, ["pkg.mod", "Class", "method"]);
        let t = symbol_info("scip-typescript npm zod 3.23.8 src/`types.ts`/ZodType#").unwrap();
        assert_eq!((t.kind, t.name.as_str()), (SymbolKind::Type, "ZodType"));
        let p = symbol_info("scip-python python pkg 1.0 `pkg.mod`/f().(x)").unwrap();
        assert_eq!(p.kind, SymbolKind::Parameter);
        assert!(!p.kind.is_definition_kind());
        assert_eq!(symbol_info("local 7").unwrap().kind, SymbolKind::Local);
        assert!(symbol_info("not a symbol").is_none());
    }
}
