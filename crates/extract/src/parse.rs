//! Parsing with guards: a bracket-nesting pre-scan (deep nesting overflows recursive code) and a
//! wall-clock budget enforced through tree-sitter's progress callback. Each parse builds its tree
//! in an arena of its own (see `sextant_lang::ParseArena`).

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use sextant_lang::{ArenaTree, ParseArena};
use tree_sitter::{ParseOptions, Parser};

/// Limits for one file.
#[derive(Debug, Clone)]
pub struct ParseLimits {
    /// Wall-clock budget for the parse.
    pub timeout: Duration,
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits {
            timeout: Duration::from_secs(2),
        }
    }
}

/// The deepest nesting of `(`, `[` and `{` in the text (a cheap over-approximation: brackets in
/// strings and comments count too).
pub fn max_nesting(bytes: &[u8]) -> u32 {
    let mut depth: i64 = 0;
    let mut max: i64 = 0;
    for &b in bytes {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = (depth - 1).max(0),
            _ => {}
        }
    }
    max as u32
}

/// A parsed file's tree, in its own arena.
pub(crate) type ParsedTree = ArenaTree;

/// Parses `text` (as the language's shims rewrite it) with `grammar`, giving up (`Ok(None)`) when
/// the budget runs out. The parser is made for this file, inside the tree's arena: a parser kept
/// across files would keep pooled blocks of an arena that is gone.
pub(crate) fn parse(
    grammar: &tree_sitter::Language,
    shims: &[sextant_lang::SourceShim],
    text: &str,
    limits: &ParseLimits,
) -> Result<Option<ParsedTree>, String> {
    let shimmed = crate::shims::apply(shims, text);
    let bytes: &[u8] = &shimmed;
    let deadline = Instant::now() + limits.timeout;
    let mut arena = ParseArena::new();
    let tree = arena.run(|| {
        let mut parser = Parser::new();
        parser.set_language(grammar).map_err(|e| e.to_string())?;
        let mut progress = |_: &tree_sitter::ParseState| {
            if Instant::now() > deadline {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = ParseOptions::new().progress_callback(&mut progress);
        let mut input = |offset: usize, _| -> &[u8] {
            if offset < bytes.len() {
                &bytes[offset..]
            } else {
                &[]
            }
        };
        // The parser drops here, inside the arena (its external scanner frees its own state).
        Ok::<_, String>(parser.parse_with_options(&mut input, None, Some(options)))
    })?;
    Ok(tree.map(|tree| ArenaTree::new(tree, arena)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_measured() {
        assert_eq!(max_nesting(b"f(a[1], {b: (c)})"), 3);
        assert_eq!(max_nesting(b")))((("), 3);
        assert_eq!(max_nesting(b""), 0);
    }
}
