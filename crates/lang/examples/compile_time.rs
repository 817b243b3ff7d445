//! How long each language's query takes to compile (tree-sitter analyses every pattern against
//! the grammar's parse table, once per process): `cargo run --release -p sextant-lang --example
//! compile_time [LANGUAGE...]`. Given languages, also lists their patterns by cost (each compiled
//! alone, so each figure includes the fixed cost of one compile).

#![allow(clippy::print_stdout, clippy::print_stderr)]

fn main() {
    let want: Vec<String> = std::env::args().skip(1).collect();
    let registry = sextant_lang::Registry::builtin().expect("languages load");
    for l in registry.languages() {
        if !want.is_empty() && !want.iter().any(|w| w == l.id()) {
            continue;
        }
        let t = std::time::Instant::now();
        let q = match l.compile() {
            Ok(q) => q,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        println!(
            "{:12} {:7.3} s  {} patterns",
            l.id(),
            t.elapsed().as_secs_f64(),
            q.query.pattern_count()
        );
        if want.is_empty() {
            continue;
        }
        let src = &l.query_source;
        let mut costs = Vec::new();
        for r in sextant_lang::pattern_ranges(src) {
            let text = &src[r.clone()];
            let t = std::time::Instant::now();
            let _ = l.compile_source(text);
            let first = text.lines().next().unwrap_or("").to_string();
            costs.push((t.elapsed().as_secs_f64(), r.start, first));
        }
        costs.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (seconds, offset, first) in costs.iter().take(12) {
            println!("   {seconds:.4} s  byte {offset}: {first}");
        }
        let sum: f64 = costs.iter().map(|c| c.0).sum();
        println!("   {sum:.3} s compiling each pattern alone");
    }
}
