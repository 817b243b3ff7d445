//! Pure extraction: `(language, text)` → [`FileFacts`]. Runs the language's query once over the
//! tree, then derives containment, qualified scope paths, kinds, visibility, modifiers, docs,
//! signatures and complexity from the captures and the manifest's rules. Never fails: broken code
//! yields partial facts plus diagnostics. No file system, no database.

mod assemble;
mod cache;
mod collect;
mod imports;
mod parse;
mod text;

use sextant_lang::Language;
use sextant_model::{Diagnostic, DiagnosticKind, FileFacts};

pub use parse::{ParseLimits, max_nesting};
pub use text::split_qualified;

/// Extracts the facts of one file. `path` is only used to name whole-file definitions (documents).
pub fn extract(language: &Language, path: &str, text: &str) -> FileFacts {
    extract_with(language, path, text, &ParseLimits::default())
}

/// [`extract`] with explicit parse limits.
pub fn extract_with(
    language: &Language,
    path: &str,
    text: &str,
    limits: &ParseLimits,
) -> FileFacts {
    let mut facts = FileFacts {
        line_count: text::line_count(text),
        ..FileFacts::default()
    };
    let depth = max_nesting(text.as_bytes());
    if depth > language.manifest.max_nesting {
        facts.diagnostics.push(Diagnostic {
            kind: DiagnosticKind::TooDeep,
            message: format!(
                "brackets nest {depth} deep (limit {}); file not parsed",
                language.manifest.max_nesting
            ),
            line: 1,
        });
        return facts;
    }
    cache::with_tools(language, |tools| match tools {
        Err(message) => facts.diagnostics.push(Diagnostic {
            kind: DiagnosticKind::Unsupported,
            message,
            line: 1,
        }),
        Ok(tools) => match parse::parse(&mut tools.parser, text, limits) {
            None => facts.diagnostics.push(Diagnostic {
                kind: DiagnosticKind::Timeout,
                message: format!(
                    "parse exceeded {} ms; file has no facts",
                    limits.timeout.as_millis()
                ),
                line: 1,
            }),
            Some(tree) => {
                let raw = collect::collect(tools, &tree, text);
                assemble::assemble(language, tools, path, text, &tree, raw, &mut facts);
                assemble::prune_local_references(
                    &mut facts,
                    &language.manifest.imports.self_names,
                    language.manifest.imports.separate_call_names,
                );
            }
        },
    });
    facts
}
