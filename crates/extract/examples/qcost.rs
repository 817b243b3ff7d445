//! What a language's query costs over real files, beside a plain walk of the same trees:
//! `cargo run --release -p sextant-extract --example qcost -- DIR LANG N [each]`. Parses the
//! first N files of LANG under DIR, then times (best of 3) the whole query, a one-pattern query
//! (the query cursor's own cost per node) and a tree-cursor walk. With `each`, also the time each
//! pattern adds (the whole query minus the query with that pattern disabled), largest first.

#![allow(clippy::print_stdout, clippy::print_stderr)]
use std::time::Instant;
use tree_sitter::{Parser, Query, QueryCursor, StreamingIterator};
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
    let n: usize = args[3].parse().unwrap();
    let mode = args.get(4).cloned().unwrap_or_default();
    let registry = sextant_lang::Registry::builtin().unwrap();
    let language = registry.get(lang_id).unwrap();
    let mut paths = Vec::new();
    walk(&dir, &mut paths);
    paths.sort();
    let mut p = Parser::new();
    p.set_language(&language.grammar).unwrap();
    let mut docs = Vec::new();
    for path in paths {
        let rel = path.to_string_lossy().to_string();
        if registry.for_path(&rel).map(|l| l.manifest.id.clone()) != Some(lang_id.clone()) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let tree = p.parse(&text, None).unwrap();
        docs.push((text, tree));
        if docs.len() >= n {
            break;
        }
    }
    let bytes: usize = docs.iter().map(|d| d.0.len()).sum();
    let src = language.query_source.clone();
    let run = |q: &Query| -> f64 {
        let mut best = f64::MAX;
        for _ in 0..3 {
            let t = Instant::now();
            let mut c = QueryCursor::new();
            let mut k = 0usize;
            for (text, tree) in &docs {
                let mut m = c.matches(q, tree.root_node(), text.as_bytes());
                while let Some(x) = m.next() {
                    k += x.pattern_index;
                }
            }
            std::hint::black_box(k);
            best = best.min(t.elapsed().as_secs_f64());
        }
        best
    };
    if mode == "own" {
        let t = Instant::now();
        let mut k = 0usize;
        for (text, tree) in &docs {
            k += sextant_extract::own_query_matches(language, tree, text).unwrap_or(0);
        }
        println!("own only: {:.3} s, {k} matches", t.elapsed().as_secs_f64());
        return;
    }
    let full = Query::new(&language.grammar, &src).unwrap();
    let np = full.pattern_count();
    let t_full = run(&full);
    let trivial = Query::new(&language.grammar, "(ERROR) @x").unwrap();
    let t_triv = run(&trivial);
    // walk only
    let t = Instant::now();
    let mut nodes = 0usize;
    for (_, tree) in &docs {
        let mut c = tree.walk();
        'o: loop {
            nodes += 1;
            if c.goto_first_child() {
                continue;
            }
            loop {
                if c.goto_next_sibling() {
                    continue 'o;
                }
                if !c.goto_parent() {
                    break 'o;
                }
            }
        }
    }
    let t_walk = t.elapsed().as_secs_f64();
    // Sextant's own executor (see `matcher.rs`), compiled once, best of 3.
    let mut t_own = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let mut k = 0usize;
        for (text, tree) in &docs {
            k += sextant_extract::own_query_matches(language, tree, text).unwrap_or(0);
        }
        std::hint::black_box(k);
        t_own = t_own.min(t.elapsed().as_secs_f64());
    }
    println!(
        "files {} bytes {} nodes {} patterns {np} full {t_full:.3} trivial {t_triv:.3} walk {t_walk:.3} own {t_own:.3}",
        docs.len(),
        bytes,
        nodes
    );
    if mode == "each" {
        let mut costs = Vec::new();
        for i in 0..np {
            let mut q = Query::new(&language.grammar, &src).unwrap();
            q.disable_pattern(i);
            let t = run(&q);
            let start = full.start_byte_for_pattern(i);
            let line = src[..start].lines().count() + 1;
            costs.push((t_full - t, i, line));
        }
        costs.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
        for (d, i, line) in costs.iter().take(25) {
            let start = full.start_byte_for_pattern(*i);
            let snippet: String = src[start..]
                .chars()
                .take(70)
                .collect::<String>()
                .replace('\n', " ");
            println!("{d:+.3} p{i} line {line}: {snippet}");
        }
    }
}
