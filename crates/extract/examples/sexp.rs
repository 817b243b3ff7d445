//! Prints the tree-sitter tree of a file, for writing queries:
//! `cargo run -p sextant-extract --example sexp -- LANGUAGE_ID FILE`.

#![allow(clippy::print_stdout, clippy::print_stderr)]

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, id, file] = args.as_slice() else {
        eprintln!("usage: sexp LANGUAGE_ID FILE");
        std::process::exit(2);
    };
    let registry = sextant_lang::Registry::builtin().expect("languages load");
    let grammar = match registry.get(id) {
        Some(language) => language.grammar.clone(),
        None => sextant_lang::grammar(id).unwrap_or_else(|| {
            eprintln!("unknown language or grammar {id}");
            std::process::exit(2)
        }),
    };
    let text = std::fs::read_to_string(file).expect("readable file");
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&grammar).expect("grammar loads");
    let tree = parser.parse(&text, None).expect("parse");
    let mut cursor = tree.walk();
    let mut depth = 0usize;
    loop {
        let node = cursor.node();
        let field = cursor
            .field_name()
            .map(|f| format!("{f}: "))
            .unwrap_or_default();
        if node.is_named() {
            let snippet: String = text[node.byte_range()].chars().take(40).collect();
            println!(
                "{}{field}({}) L{} {:?}",
                "  ".repeat(depth),
                node.kind(),
                node.start_position().row + 1,
                snippet.replace('\n', "⏎")
            );
        } else {
            println!("{}{field}\"{}\"", "  ".repeat(depth), node.kind());
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            depth -= 1;
        }
    }
}
