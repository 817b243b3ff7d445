//! Parses build their trees in arenas (`sextant_lang::ParseArena`) once an allocator is
//! installed: tree-sitter takes (almost) nothing from the base allocator while parsing, trees
//! parsed ahead outlive other parses on the same thread and move between threads, and extraction
//! gives what it gives without arenas (the fixture snapshots, checked in `fixtures.rs` with
//! arenas on).

use std::sync::atomic::Ordering;

use sextant_lang::Registry;

mod support;

fn python_source(functions: usize) -> String {
    (0..functions)
        .map(|i| {
            format!("def f{i}(a, b=[1, 2]):\n    return g(a, b) + h{i}(a) * [x for x in b]\n\n")
        })
        .collect()
}

#[test]
fn parses_allocate_in_their_arenas() {
    support::install();
    let registry = Registry::builtin().unwrap();
    let python = registry.get("python").unwrap();
    // The first extraction compiles the language's queries (with the base allocator).
    let small = sextant_extract::extract(python, "a.py", &python_source(3));
    assert_eq!(small.definitions.len(), 3);

    let text = python_source(3000);
    let before = support::BASE_ALLOCATIONS.load(Ordering::Relaxed);
    let facts = sextant_extract::extract(python, "big.py", &text);
    let during = support::BASE_ALLOCATIONS.load(Ordering::Relaxed) - before;
    assert_eq!(facts.definitions.len(), 3000);
    // Without the arena the parse alone takes ~160k blocks; what remains is extraction's own
    // (a tree cursor per definition).
    assert!(
        during < 10_000,
        "{during} base allocations while extracting"
    );

    // Trees parsed ahead live in arenas of their own: several at once on one thread, finished on
    // another thread, each as extract gives it.
    let texts: Vec<String> = (1..6).map(|n| python_source(n * 50)).collect();
    let parsed: Vec<_> = texts
        .iter()
        .map(|t| sextant_extract::parse_ahead(python, t))
        .collect();
    std::thread::scope(|s| {
        s.spawn(|| {
            for (text, parsed) in texts.iter().zip(parsed).rev() {
                let ahead = sextant_extract::extract_parsed(python, "x.py", text, parsed);
                assert_eq!(ahead, sextant_extract::extract(python, "x.py", text));
            }
        });
    });
}
