//! Output budgets, clamped arguments and paging cursors.

use serde::Serialize;

/// Default answer budget in tokens (~4 bytes of JSON each).
pub const DEFAULT_MAX_TOKENS: u32 = 8_000;
/// Hard cap of `max_tokens`.
pub const MAX_TOKENS_CAP: u32 = 32_000;
/// Smallest budget honoured.
pub const MIN_TOKENS: u32 = 200;
/// Bytes of JSON per token, for budgets and estimates.
pub const BYTES_PER_TOKEN: u64 = 4;

/// Clamps numeric arguments and records what was clamped.
#[derive(Debug, Default)]
pub struct Limits {
    pub applied: Vec<String>,
}

impl Limits {
    /// `value` (0 = `default`) within `min..=cap`; a clamp is recorded.
    pub fn clamp(&mut self, name: &str, value: u32, default: u32, min: u32, cap: u32) -> u32 {
        if value == 0 {
            return default;
        }
        if value > cap {
            self.applied
                .push(format!("{name}: {value} exceeds the hard cap, {cap} used"));
            return cap;
        }
        if value < min {
            self.applied
                .push(format!("{name}: {value} is below the minimum, {min} used"));
            return min;
        }
        value
    }

    /// The byte budget from `max_tokens` (0 = default).
    pub fn budget_bytes(&mut self, max_tokens: u32) -> usize {
        let tokens = self.clamp(
            "max_tokens",
            max_tokens,
            DEFAULT_MAX_TOKENS,
            MIN_TOKENS,
            MAX_TOKENS_CAP,
        );
        tokens as usize * BYTES_PER_TOKEN as usize
    }
}

/// JSON size of a value.
pub fn json_len<T: Serialize>(value: &T) -> usize {
    serde_json::to_vec(value).map(|v| v.len()).unwrap_or(0)
}

/// Keeps the longest prefix of `items` whose JSON fits in `budget` bytes next to `fixed` bytes
/// of other data (at least one item, so paging always moves). Returns whether items were cut.
pub fn fit<T: Serialize>(items: &mut Vec<T>, fixed: usize, budget: usize) -> bool {
    let mut used = fixed;
    for (i, item) in items.iter().enumerate() {
        used += json_len(item) + 1;
        if used > budget && i > 0 {
            items.truncate(i);
            return true;
        }
    }
    false
}

/// FNV-1a of the arguments that define a result list, so a cursor is only used with them.
pub fn fingerprint(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0xff)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// An opaque position in a result list of one generation and one query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub generation: i64,
    pub offset: usize,
    pub query: u64,
}

impl Cursor {
    pub fn encode(&self) -> String {
        format!(
            "c1.{:x}.{:x}.{:016x}",
            self.generation, self.offset, self.query
        )
    }

    /// Parses `text` (empty = the first page) and checks it belongs to this generation and query.
    pub fn decode(text: &str, generation: i64, query: u64) -> Result<usize, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(0);
        }
        let invalid = || {
            format!(
                "invalid cursor {text:?}: pass the `next_cursor` of a previous answer unchanged, or omit `cursor` for the first page"
            )
        };
        let mut parts = text.split('.');
        if parts.next() != Some("c1") {
            return Err(invalid());
        }
        let mut next = || parts.next().ok_or_else(invalid);
        let cursor_generation = i64::from_str_radix(next()?, 16).map_err(|_| invalid())?;
        let offset = usize::from_str_radix(next()?, 16).map_err(|_| invalid())?;
        let cursor_query = u64::from_str_radix(next()?, 16).map_err(|_| invalid())?;
        if parts.next().is_some() {
            return Err(invalid());
        }
        if cursor_generation != generation {
            return Err(format!(
                "stale cursor: the index changed since it was made (generation {cursor_generation} → {generation}); repeat the call without `cursor`"
            ));
        }
        if cursor_query != query {
            return Err(
                "cursor belongs to a different query: pass it with the same arguments as the call that returned it"
                    .to_string(),
            );
        }
        Ok(offset)
    }
}

/// Head and tail of `lines` when there are more than `max`: the first 60% and the last 40% of
/// `max` lines, and the index range left out.
pub fn head_tail(lines: &[&str], max: usize) -> Option<(usize, usize)> {
    if lines.len() <= max || max < 2 {
        return None;
    }
    let head = (max * 3).div_ceil(5);
    let tail = max - head;
    Some((head, lines.len() - tail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_tampering() {
        let c = Cursor {
            generation: 7,
            offset: 40,
            query: fingerprint(&["search", "user"]),
        };
        let text = c.encode();
        assert_eq!(Cursor::decode(&text, 7, c.query), Ok(40));
        assert_eq!(Cursor::decode("", 7, c.query), Ok(0));
        let stale = Cursor::decode(&text, 8, c.query).unwrap_err();
        assert!(stale.starts_with("stale cursor"), "{stale}");
        let other = Cursor::decode(&text, 7, fingerprint(&["search", "store"])).unwrap_err();
        assert!(other.contains("different query"), "{other}");
        for bad in [
            "x",
            "c1.7.28",
            "c1.7.zz.0",
            "c2.7.28.0",
            "c1.7.28.0.1",
            "../../etc",
        ] {
            let e = Cursor::decode(bad, 7, c.query).unwrap_err();
            assert!(e.starts_with("invalid cursor"), "{bad}: {e}");
        }
    }

    #[test]
    fn fingerprints_separate_their_parts() {
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
        assert_eq!(fingerprint(&["a", "b"]), fingerprint(&["a", "b"]));
    }

    #[test]
    fn fit_keeps_a_prefix_within_the_budget() {
        let mut items: Vec<String> = (0..100).map(|i| format!("item{i:03}")).collect();
        // Each item is 9 bytes of JSON plus a separator.
        assert!(fit(&mut items, 0, 100));
        assert_eq!(items.len(), 10);
        let mut one = vec!["x".repeat(1000)];
        assert!(!fit(&mut one, 0, 10), "the first item always stays");
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn limits_clamp_and_record() {
        let mut l = Limits::default();
        assert_eq!(l.clamp("limit", 0, 20, 1, 100), 20);
        assert_eq!(l.clamp("limit", 50, 20, 1, 100), 50);
        assert_eq!(l.clamp("limit", 5000, 20, 1, 100), 100);
        assert_eq!(l.applied.len(), 1);
        assert_eq!(l.budget_bytes(0), 32_000);
        assert_eq!(l.budget_bytes(10), 800);
    }

    #[test]
    fn head_tail_splits_60_40() {
        let lines: Vec<String> = (1..=300).map(|i| i.to_string()).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(head_tail(&refs, 100), Some((60, 260)));
        assert_eq!(head_tail(&refs[..100], 100), None);
        assert_eq!(head_tail(&refs, 5), Some((3, 298)));
    }
}
