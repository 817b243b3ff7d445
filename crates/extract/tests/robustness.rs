//! Pathological inputs never crash extraction: they yield diagnostics or partial facts.

use sextant_lang::Registry;
use sextant_model::DiagnosticKind;

mod support;

#[test]
fn deep_nesting_is_refused_before_parsing() {
    support::install();
    let registry = Registry::builtin().unwrap();
    let text = format!("x = {}1{}\n", "(".repeat(100_000), ")".repeat(100_000));
    for id in ["python", "c", "rust"] {
        let facts = sextant_extract::extract(registry.get(id).unwrap(), "deep", &text);
        assert_eq!(facts.diagnostics[0].kind, DiagnosticKind::TooDeep, "{id}");
        assert!(facts.definitions.is_empty());
    }
}

#[test]
fn garbage_and_broken_code_give_partial_facts() {
    support::install();
    let registry = Registry::builtin().unwrap();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut garbage = String::new();
    for _ in 0..20_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let c = char::from_u32((seed % 0x3000) as u32 + 9).unwrap_or('?');
        garbage.push(c);
    }
    for language in registry.languages() {
        let facts = sextant_extract::extract(language, "garbage", &garbage);
        assert!(facts.line_count > 0, "{}", language.id());
        let broken = "def ok():\n    return 1\n\ndef broken(:\n  class\n";
        let _ = sextant_extract::extract(language, "broken", broken);
        let _ = sextant_extract::extract(language, "empty", "");
        let _ = sextant_extract::extract(language, "crlf", "a\r\nb\rc\n\u{feff}\u{fffd}");
    }
    let python = registry.get("python").unwrap();
    let facts = sextant_extract::extract(
        python,
        "broken.py",
        "def ok():\n    return 1\n\ndef broken(:\n",
    );
    assert_eq!(facts.definitions[0].name, "ok");
    assert!(
        facts
            .diagnostics
            .iter()
            .any(|d| d.kind == DiagnosticKind::SyntaxError)
    );
}

/// A query pattern with a huge number of ways to match one node (two loose child patterns over
/// a list of 2,000 names: four million pairs) is cut short, and the file says so with a
/// `query_limit` diagnostic instead of taking minutes.
#[test]
fn a_pattern_with_too_many_ways_is_cut_short_and_reported() {
    let manifest = "id = \"pairs\"\nname = \"Pairs\"\ngrammar = \"python\"\nextensions = [\"pairs\"]\nseparator = \".\"\nmodule = \"python\"\n";
    let query = "(list (identifier) @name (identifier) @receiver) @reference.read\n";
    support::install();
    let mut registry = Registry::default();
    registry
        .add_folders(&[(
            "pairs",
            &[("language.toml", manifest), ("tags.scm", query)][..],
        )])
        .unwrap();
    let language = registry.get("pairs").unwrap();
    let names: Vec<String> = (0..2000).map(|i| format!("n{i}")).collect();
    let text = format!("x = 1\ny = [{}]\n", names.join(", "));
    let facts = sextant_extract::extract(language, "big.pairs", &text);
    let cut: Vec<_> = facts
        .diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::QueryLimit)
        .collect();
    assert_eq!(cut.len(), 1, "{:?}", facts.diagnostics);
    assert_eq!(cut[0].line, 2);
    // The ways followed before the cut are kept.
    assert!(!facts.references.is_empty());
    // A small list is matched in full, with no diagnostic.
    let small = sextant_extract::extract(language, "small.pairs", "y = [a, b, c]\n");
    assert!(small.diagnostics.is_empty(), "{:?}", small.diagnostics);
}
