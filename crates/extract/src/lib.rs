//! Pure extraction: `(language, text)` → [`FileFacts`]. Runs the language's query over the tree
//! (on Sextant's own executor, `matcher.rs`; tree-sitter's cursor with
//! `SEXTANT_QUERY_ENGINE=tree-sitter`, in two parts, see `cache.rs`), then derives containment, qualified scope paths, kinds,
//! visibility, modifiers, docs, signatures and complexity from the captures and the manifest's
//! rules. Never fails: broken code yields partial facts plus diagnostics. No file system, no
//! database.

mod assemble;
mod cache;
mod collect;
mod flatten;
mod imports;
mod matcher;
mod parse;
mod shims;
mod text;

use sextant_lang::Language;
use sextant_model::{Diagnostic, DiagnosticKind, FileFacts};

pub use parse::{ParseLimits, max_nesting};
pub use text::split_qualified;

/// Extracts the facts of one file. `path` is only used to name whole-file definitions (documents).
pub fn extract(language: &Language, path: &str, text: &str) -> FileFacts {
    extract_with(language, path, text, &ParseLimits::default())
}

/// Compiles the language's queries now (they are compiled once per process, on first use: well
/// under a millisecond on our own executor, up to ~0.6 s with `SEXTANT_QUERY_ENGINE=tree-sitter`):
/// a long-lived process calls this at start so its first edit is not slow.
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

/// Why `language`'s query cannot run on Sextant's own query executor (`None`: it can, and
/// extraction uses it). For tests and tools.
#[doc(hidden)]
pub fn own_executor_error(language: &Language) -> Option<String> {
    cache::Own::compile(language).err()
}

/// Runs `language`'s query on Sextant's own executor over a parsed tree and counts the matches
/// (`None` when the query cannot run on it). For measurements (`examples/qcost.rs`).
#[doc(hidden)]
pub fn own_query_matches(
    language: &Language,
    tree: &tree_sitter::Tree,
    text: &str,
) -> Option<usize> {
    let queries = cache::shared_queries(language).ok()?;
    Some(queries.own.as_ref()?.count(tree, text))
}

/// The visible nodes of a tree as the query executor lists them (`flatten.c`), and as
/// tree-sitter's cursor visits them, leaving out the anonymous leaves whose kind `keep` does not
/// mark: (kind, field, named, error, depth, first child, next sibling, start byte, end byte).
/// For tests comparing the two.
#[doc(hidden)]
pub fn flat_nodes(tree: &tree_sitter::Tree, keep: &[bool]) -> (Vec<[u32; 9]>, Vec<[u32; 9]>) {
    (
        flatten::Flat::of(tree, 0, keep).listed(),
        flatten::by_cursor(tree, keep),
    )
}

/// How many nodes the executor's flat tree of `tree` lists (`bytes`: the source's length). For
/// measuring the walk alone.
#[doc(hidden)]
pub fn flat_len(tree: &tree_sitter::Tree, bytes: usize, keep: &[bool]) -> usize {
    flatten::Flat::of(tree, bytes, keep).nodes.len()
}

/// Every node of a tree (punctuation included) whose parent by the executor's flat tree differs
/// from `Node::parent`'s, and how many nodes were checked. For tests.
#[doc(hidden)]
pub fn flat_parent_mismatches(tree: &tree_sitter::Tree) -> (usize, Vec<String>) {
    flatten::parent_mismatches(tree)
}

/// Whether `language`'s queries are compiled: [`extract`] would not wait for them. While they
/// are not, a caller with other work can [`parse_ahead`] instead of waiting.
pub fn queries_ready(language: &Language) -> bool {
    cache::queries_ready(language)
}

/// A file parsed before its language's queries were compiled (see [`parse_ahead`]). Holds the
/// syntax tree, which is several times the size of the source: keep few of them.
pub struct Parsed(Outcome);

enum Outcome {
    /// The nesting pre-scan refused the file (its depth).
    TooDeep(u32),
    /// The tree, or `None` when the parse ran out of time.
    Parsed(Option<parse::ParsedTree>, ParseLimits),
    /// The grammar could not be loaded: [`extract_parsed`] reports it as [`extract`] does.
    NotParsed,
}

/// Parses `text` without the language's queries, so that a worker waiting for them to compile
/// parses files meanwhile; [`extract_parsed`] finishes each once they are ready. What the pair
/// gives is exactly what [`extract`] gives.
pub fn parse_ahead(language: &Language, text: &str) -> Parsed {
    let limits = ParseLimits::default();
    let depth = max_nesting(text.as_bytes());
    if depth > language.manifest.max_nesting {
        return Parsed(Outcome::TooDeep(depth));
    }
    Parsed(
        parse::parse(&language.grammar, &language.manifest.shims, text, &limits)
            .map_or(Outcome::NotParsed, |tree| Outcome::Parsed(tree, limits)),
    )
}

/// Extracts the facts of a file parsed by [`parse_ahead`] (waiting for the language's queries if
/// they are still compiling). `text` and `path` must be those it was parsed from and with.
pub fn extract_parsed(language: &Language, path: &str, text: &str, parsed: Parsed) -> FileFacts {
    match parsed.0 {
        Outcome::NotParsed => extract(language, path, text),
        Outcome::TooDeep(depth) => {
            let mut facts = new_facts(text);
            too_deep(language, depth, &mut facts);
            facts
        }
        Outcome::Parsed(tree, limits) => {
            let mut facts = new_facts(text);
            cache::with_tools(language, |tools| match tools {
                Err(message) => unsupported(message, &mut facts),
                Ok(tools) => from_tree(
                    language, tools, path, text, tree, &limits, false, &mut facts,
                ),
            });
            facts
        }
    }
}

fn new_facts(text: &str) -> FileFacts {
    FileFacts {
        line_count: text::line_count(text),
        ..FileFacts::default()
    }
}

fn too_deep(language: &Language, depth: u32, facts: &mut FileFacts) {
    facts.diagnostics.push(Diagnostic {
        kind: DiagnosticKind::TooDeep,
        message: format!(
            "brackets nest {depth} deep (limit {}); file not parsed",
            language.manifest.max_nesting
        ),
        line: 1,
    });
}

fn unsupported(message: String, facts: &mut FileFacts) {
    facts.diagnostics.push(Diagnostic {
        kind: DiagnosticKind::Unsupported,
        message,
        line: 1,
    });
}

/// `reference`: see [`extract_reference`].
fn extract_inner(
    language: &Language,
    path: &str,
    text: &str,
    limits: &ParseLimits,
    reference: bool,
) -> FileFacts {
    let mut facts = new_facts(text);
    let depth = max_nesting(text.as_bytes());
    if depth > language.manifest.max_nesting {
        too_deep(language, depth, &mut facts);
        return facts;
    }
    cache::with_tools(language, |tools| match tools {
        Err(message) => unsupported(message, &mut facts),
        Ok(tools) => {
            match parse::parse(&language.grammar, &language.manifest.shims, text, limits) {
                Err(message) => unsupported(message, &mut facts),
                Ok(tree) => from_tree(
                    language, tools, path, text, tree, limits, reference, &mut facts,
                ),
            }
        }
    });
    facts
}

/// Runs the queries over a parsed tree (`None`: the parse ran out of time) and assembles the facts.
#[allow(clippy::too_many_arguments)]
fn from_tree(
    language: &Language,
    tools: &mut cache::Tools,
    path: &str,
    text: &str,
    tree: Option<parse::ParsedTree>,
    limits: &ParseLimits,
    reference: bool,
    facts: &mut FileFacts,
) {
    let Some(tree) = tree else {
        facts.diagnostics.push(Diagnostic {
            kind: DiagnosticKind::Timeout,
            message: format!(
                "parse exceeded {} ms; file has no facts",
                limits.timeout.as_millis()
            ),
            line: 1,
        });
        return;
    };
    let raw = collect::collect(language, tools, &tree, text, reference);
    assemble::assemble(language, tools, path, text, &tree, raw, facts);
    assemble::prune_local_references(
        facts,
        &language.manifest.imports.self_names,
        language.manifest.imports.separate_call_names,
    );
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

    /// Parsing ahead needs no queries: a language's file parses before its queries are compiled,
    /// and extracting it afterwards compiles them and gives what `extract` gives.
    #[test]
    fn files_parse_before_their_queries_compile() {
        let mut registry = sextant_lang::Registry::default();
        registry
            .add_folders(&[(
                "ahead-only",
                &[
                    (
                        "language.toml",
                        "id='ahead-only'\nname='Ahead'\ngrammar='python'\nseparator='.'\n",
                    ),
                    (
                        "tags.scm",
                        "(function_definition name: (identifier) @name) @definition.function\n",
                    ),
                ],
            )])
            .unwrap();
        let language = registry.get("ahead-only").unwrap();
        let text = "def f():\n    pass\n";
        assert!(!queries_ready(language));
        let parsed = parse_ahead(language, text);
        assert!(!queries_ready(language), "parsing compiled the queries");
        let facts = extract_parsed(language, "a.py", text, parsed);
        assert!(queries_ready(language));
        assert_eq!(facts.definitions.len(), 1);
        assert_eq!(facts, extract(language, "a.py", text));
    }
}
