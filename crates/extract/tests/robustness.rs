//! Pathological inputs never crash extraction: they yield diagnostics or partial facts.

use sextant_lang::Registry;
use sextant_model::DiagnosticKind;

#[test]
fn deep_nesting_is_refused_before_parsing() {
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
