//! Stable symbol ids: `sym_` + 16 hex digits of a hash over language, qualified name and a
//! disambiguator (normally the file path). They survive re-indexing, so cursors and links keep working.

/// FNV-1a, 64 bit: tiny, deterministic across platforms and releases.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            hash ^= 0xff;
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        for byte in part.bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// The stable id of a symbol.
pub fn stable_id(language: &str, qualified_name: &str, disambiguator: &str) -> String {
    format!(
        "sym_{:016x}",
        fnv1a(&[language, qualified_name, disambiguator])
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_ids_are_stable_and_distinct() {
        assert_eq!(
            stable_id("python", "pkg.mod.f", "pkg/mod.py"),
            stable_id("python", "pkg.mod.f", "pkg/mod.py")
        );
        assert_ne!(
            stable_id("python", "pkg.mod.f", "a.py"),
            stable_id("python", "pkg.mod.f", "b.py")
        );
        // Part boundaries matter: ("ab","c") differs from ("a","bc").
        assert_ne!(stable_id("ab", "c", ""), stable_id("a", "bc", ""));
        assert_eq!(stable_id("rust", "x", "y").len(), 20);
    }
}
