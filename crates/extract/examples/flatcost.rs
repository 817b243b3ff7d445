//! The executor's flat walk alone, over real files:
//! `cargo run --release -p sextant-extract --example flatcost -- DIR LANG`. Parses each file of
//! LANG under DIR and times the walk of its fresh tree (as extraction does: right after the
//! parse); prints the total of the best of 5 passes.

#![allow(clippy::print_stdout, clippy::print_stderr)]
use std::time::{Duration, Instant};
fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(ft) = entry.file_type() else { continue };
        let path = entry.path();
        if ft.is_dir() {
            walk(&path, out);
        } else if ft.is_file() {
            out.push(path);
        }
    }
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(&args[1]);
    let lang_id = &args[2];
    let registry = sextant_lang::Registry::builtin().unwrap();
    let language = registry.get(lang_id).unwrap();
    let mut paths = Vec::new();
    walk(&dir, &mut paths);
    paths.sort();
    let docs: Vec<Vec<u8>> = paths
        .iter()
        .filter(|p| {
            let rel = p.to_string_lossy().to_string();
            registry.for_path(&rel).map(|l| l.manifest.id.clone()) == Some(lang_id.clone())
        })
        .filter_map(|p| std::fs::read(p).ok())
        .collect();
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&language.grammar).unwrap();
    let keep = vec![false; 0];
    let mut best = Duration::MAX;
    let mut nodes = 0;
    for _ in 0..5 {
        let mut total = Duration::ZERO;
        nodes = 0;
        for doc in &docs {
            let tree = parser.parse(doc, None).unwrap();
            let t = Instant::now();
            nodes += sextant_extract::flat_len(&tree, doc.len(), &keep);
            total += t.elapsed();
        }
        best = best.min(total);
    }
    println!(
        "{} files, {nodes} nodes, walk {:.1} ms ({:.1} ns/node)",
        docs.len(),
        best.as_secs_f64() * 1e3,
        best.as_secs_f64() * 1e9 / nodes as f64
    );
}
