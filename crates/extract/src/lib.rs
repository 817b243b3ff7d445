//! Pure extraction: `(language, text)` → [`FileFacts`]. Runs the language's query over the tree
//! (in two parts, see `cache.rs`), then derives containment, qualified scope paths, kinds,
//! visibility, modifiers, docs, signatures and complexity from the captures and the manifest's
//! rules. Never fails: broken code yields partial facts plus diagnostics. No file system, no
//! database.

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

/// Compiles the language's queries now (they are compiled once per process, on first use, which
/// costs up to ~0.2 s): a long-lived process calls this at start so its first edit is not slow.
pub fn prepare(language: &Language) -> Result<(), String> {
    cache::shared_queries(language).map(|_| ())
}

/// [`extract`] with explicit parse limits.
pub fn extract_with(
    language: &Language,
    path: &str,
    text: &str,
    limits: &ParseLimits,
) -> FileFacts {
    extract_inner(language, path, text, limits, false)
}

/// [`extract`] with the language's whole query in one cursor and a walk of every callable for
/// complexity: what extraction is defined by, and what [`extract`] (a split query, branch nodes
/// from the query) must reproduce exactly. For tests.
#[doc(hidden)]
pub fn extract_reference(language: &Language, path: &str, text: &str) -> FileFacts {
    extract_inner(language, path, text, &ParseLimits::default(), true)
}

/// `reference`: see [`extract_reference`].
fn extract_inner(
    language: &Language,
    path: &str,
    text: &str,
    limits: &ParseLimits,
    reference: bool,
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
                let raw = collect::collect(language, tools, &tree, text, reference);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the split query cannot tell the full query's order (a root-pattern definition with
    /// the span of another definition) or ranges cannot tell nesting (a callable that is itself a
    /// branch node), extraction still gives the full query's result.
    #[test]
    fn ambiguous_files_fall_back_to_the_full_query() {
        let mut registry = sextant_lang::Registry::default();
        let tags = "(module (expression_statement (identifier) @name) @definition.variable)\n\
                    (expression_statement (identifier) @name @definition.function)\n\
                    (if_statement condition: (identifier) @name) @definition.function\n\
                    (function_definition name: (identifier) @name) @definition.function\n";
        registry
            .add_folders(&[(
                "toy",
                &[
                    (
                        "language.toml",
                        "id='toy'\nname='Toy'\ngrammar='python'\nseparator='.'\n\
                         [complexity]\nnodes=['if_statement', 'while_statement']\n",
                    ),
                    ("tags.scm", tags),
                ],
            )])
            .unwrap();
        let language = registry.get("toy").unwrap();
        let limits = ParseLimits::default();
        // The first has both; the second only the callable `if`.
        for text in [
            "x\ny\ndef f():\n    if a:\n        while b:\n            pass\n    z\n",
            "def f():\n    if a:\n        while b:\n            pass\n",
        ] {
            let fast = extract_inner(language, "toy.py", text, &limits, false);
            let full = extract_inner(language, "toy.py", text, &limits, true);
            assert_eq!(fast, full);
            let f = fast.definitions.iter().find(|d| d.name == "f").unwrap();
            assert_eq!(f.complexity, Some(1), "the if is a callable of its own");
            let a = fast.definitions.iter().find(|d| d.name == "a").unwrap();
            assert_eq!(a.complexity, Some(3));
        }
    }
}
