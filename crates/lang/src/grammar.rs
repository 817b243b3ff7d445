//! The compiled-in tree-sitter grammars, by the name a `language.toml` uses in `grammar = "..."`.

/// Names of every compiled-in grammar.
pub const GRAMMARS: &[&str] = &[
    "rust",
    "python",
    "typescript",
    "tsx",
    "javascript",
    "go",
    "java",
    "c",
    "cpp",
    "c_sharp",
    "ruby",
    "php",
    "kotlin",
    "markdown",
];

/// The grammar with this name, if it is compiled in.
pub fn grammar(name: &str) -> Option<tree_sitter::Language> {
    let f = match name {
        "rust" => tree_sitter_rust::LANGUAGE,
        "python" => tree_sitter_python::LANGUAGE,
        "typescript" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        "tsx" => tree_sitter_typescript::LANGUAGE_TSX,
        "javascript" => tree_sitter_javascript::LANGUAGE,
        "go" => tree_sitter_go::LANGUAGE,
        "java" => tree_sitter_java::LANGUAGE,
        "c" => tree_sitter_c::LANGUAGE,
        "cpp" => tree_sitter_cpp::LANGUAGE,
        "c_sharp" => tree_sitter_c_sharp::LANGUAGE,
        "ruby" => tree_sitter_ruby::LANGUAGE,
        "php" => tree_sitter_php::LANGUAGE_PHP,
        "kotlin" => tree_sitter_kotlin_ng::LANGUAGE,
        "markdown" => tree_sitter_md::LANGUAGE,
        _ => return None,
    };
    Some(f.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ABI mismatches only show at `set_language`, so every grammar is set once here.
    #[test]
    fn every_grammar_loads_into_a_parser() {
        for name in GRAMMARS {
            let language = grammar(name).unwrap();
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&language)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(parser.parse("x", None).is_some(), "{name}");
        }
        assert!(grammar("cobol").is_none());
    }
}
