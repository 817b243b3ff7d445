//! The "without Sextant" baseline of `sextant-bench tokens`: what `rg -n -w -C 20 WORD` prints
//! over a repository (ripgrep is not required; this is the equivalent in Rust).
//!
//! - Files: what `git ls-files` lists when the root is in a git work tree and it lists anything,
//!   else every file with a source extension (`sample::source_files`: hidden directories and
//!   `node_modules` skipped, symlinks not followed). Binary files (a NUL byte) are skipped, as
//!   ripgrep does by default.
//! - Matching: `\bWORD\b` (the word escaped) per line, as `rg -w` does for a plain word.
//! - Output: ripgrep's format when its output is not a terminal: `path:LINE:text` for matching
//!   lines, `path-LINE-text` for context lines, and `--` between groups that are not contiguous
//!   (between files too). Windows of ±20 lines that overlap or touch are merged, as `rg -C 20`
//!   prints them.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};
use regex::bytes::Regex;

/// Context lines on each side of a hit (`rg -C 20`).
pub const CONTEXT: usize = 20;

/// One file's content, read once.
#[derive(Debug)]
pub struct File {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// The corpus grep runs over, and how it was listed.
#[derive(Debug)]
pub struct Corpus {
    pub files: Vec<File>,
    pub listing: &'static str,
    pub binary_skipped: usize,
}

/// The result of one grep.
#[derive(Debug, Default)]
pub struct Hits {
    /// ripgrep's output text.
    pub text: String,
    /// Lines that match.
    pub matching_lines: usize,
    /// Files with at least one match.
    pub files: usize,
    /// Lines printed (matches and context).
    pub printed_lines: usize,
}

/// Lists and reads the files of `root`.
pub fn load(root: &Path) -> Result<Corpus> {
    let (paths, listing) = match git_ls_files(root) {
        Some(paths) if !paths.is_empty() => (paths, "git ls-files"),
        _ => (
            crate::sample::source_files(root),
            "source extensions (not a git work tree, or git lists nothing under it)",
        ),
    };
    let mut files = Vec::with_capacity(paths.len());
    let mut binary_skipped = 0;
    for path in paths {
        let full = root.join(&path);
        // Tracked symlinks and deleted files are not read (ripgrep does not follow links).
        let Ok(meta) = std::fs::symlink_metadata(&full) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let bytes = std::fs::read(&full).with_context(|| format!("reading {}", full.display()))?;
        if bytes.contains(&0) {
            binary_skipped += 1;
            continue;
        }
        files.push(File { path, bytes });
    }
    Ok(Corpus {
        files,
        listing,
        binary_skipped,
    })
}

fn git_ls_files(root: &Path) -> Option<Vec<String>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let mut paths: Vec<String> = out
        .stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    paths.sort();
    Some(paths)
}

/// The regex `rg -w WORD` uses for a plain word.
pub fn word_regex(word: &str) -> Result<Regex> {
    Regex::new(&format!(r"\b{}\b", regex::escape(word)))
        .with_context(|| format!("grep word {word:?}"))
}

/// Merges the ±`context` windows of the (ascending, 0-based) matching lines of a file with
/// `line_count` lines into inclusive `(first, last)` line ranges. Windows that overlap or are
/// adjacent become one range, as ripgrep prints them without a `--` between.
pub fn merge_windows(matches: &[usize], context: usize, line_count: usize) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    if line_count == 0 {
        return out;
    }
    for &m in matches {
        let start = m.saturating_sub(context);
        let end = (m + context).min(line_count - 1);
        match out.last_mut() {
            Some(last) if start <= last.1 + 1 => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

/// The lines of `bytes` as `(start, end)` byte offsets without the `\n` (a final line without
/// a newline counts; a trailing newline does not start another line).
fn line_spans(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' {
            spans.push((start, i));
            start = i + 1;
        }
    }
    if start < bytes.len() {
        spans.push((start, bytes.len()));
    }
    spans
}

/// Runs the grep over every file, appending ripgrep's output.
pub fn grep(corpus: &Corpus, re: &Regex) -> Hits {
    let mut hits = Hits::default();
    for file in &corpus.files {
        // Cheap whole-file test first: most files do not match.
        if !re.is_match(&file.bytes) {
            continue;
        }
        let spans = line_spans(&file.bytes);
        let matches: Vec<usize> = spans
            .iter()
            .enumerate()
            .filter(|(_, (s, e))| {
                let line = &file.bytes[*s..*e];
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                re.is_match(line)
            })
            .map(|(i, _)| i)
            .collect();
        if matches.is_empty() {
            continue;
        }
        hits.files += 1;
        hits.matching_lines += matches.len();
        let windows = merge_windows(&matches, CONTEXT, spans.len());
        render(
            &mut hits,
            &file.path,
            &file.bytes,
            &spans,
            &matches,
            &windows,
        );
    }
    hits
}

fn render(
    hits: &mut Hits,
    path: &str,
    bytes: &[u8],
    spans: &[(usize, usize)],
    matches: &[usize],
    windows: &[(usize, usize)],
) {
    let mut next_match = 0;
    for &(first, last) in windows {
        if !hits.text.is_empty() {
            hits.text.push_str("--\n");
        }
        for (i, (s, e)) in spans.iter().enumerate().take(last + 1).skip(first) {
            while next_match < matches.len() && matches[next_match] < i {
                next_match += 1;
            }
            let is_match = matches.get(next_match) == Some(&i);
            let sep = if is_match { ':' } else { '-' };
            hits.text.push_str(path);
            hits.text.push(sep);
            hits.text.push_str(&(i + 1).to_string());
            hits.text.push(sep);
            hits.text.push_str(&String::from_utf8_lossy(&bytes[*s..*e]));
            hits.text.push('\n');
            hits.printed_lines += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_merge_when_they_overlap_or_touch() {
        // 100 lines; hits at 10 and 40: [0,30] and [20,60] overlap.
        assert_eq!(merge_windows(&[10, 40], 20, 100), vec![(0, 60)]);
        // 30 and 71: [10,50] and [51,91] touch (no line between): one group, like rg.
        assert_eq!(merge_windows(&[30, 71], 20, 100), vec![(10, 91)]);
        // 30 and 72: [10,50] and [52,92] leave line 51 out: two groups.
        assert_eq!(merge_windows(&[30, 72], 20, 100), vec![(10, 50), (52, 92)]);
    }

    #[test]
    fn windows_clamp_to_the_file() {
        assert_eq!(merge_windows(&[0], 20, 5), vec![(0, 4)]);
        assert_eq!(merge_windows(&[3, 4], 1, 5), vec![(2, 4)]);
        assert_eq!(merge_windows(&[99], 20, 100), vec![(79, 99)]);
        assert!(merge_windows(&[], 20, 100).is_empty());
        assert!(merge_windows(&[0], 20, 0).is_empty());
    }

    #[test]
    fn a_window_inside_another_does_not_shrink_it() {
        // Hits at 50 and 51 with context 20, then 52: one range [30,72].
        assert_eq!(merge_windows(&[50, 51, 52], 20, 200), vec![(30, 72)]);
    }

    #[test]
    fn output_follows_ripgreps_format() {
        let text = (1..=60)
            .map(|i| {
                if i == 2 || i == 50 {
                    format!("call foo({i})")
                } else if i == 30 {
                    "foobar not a word hit".to_string()
                } else {
                    format!("line {i}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let corpus = Corpus {
            files: vec![
                File {
                    path: "a.py".into(),
                    bytes: text.into_bytes(),
                },
                File {
                    path: "b.py".into(),
                    bytes: b"x = foo\r\n".to_vec(),
                },
            ],
            listing: "test",
            binary_skipped: 0,
        };
        let hits = grep(&corpus, &word_regex("foo").unwrap());
        assert_eq!(hits.matching_lines, 3);
        assert_eq!(hits.files, 2);
        // a.py: lines 1..=22 and 30..=60 (line 30 is context: `foobar` is not the word).
        assert_eq!(hits.printed_lines, 22 + 31 + 1);
        let lines: Vec<&str> = hits.text.split_terminator('\n').collect();
        assert_eq!(lines[0], "a.py-1-line 1");
        assert_eq!(lines[1], "a.py:2:call foo(2)");
        assert_eq!(lines[21], "a.py-22-line 22");
        assert_eq!(lines[22], "--");
        assert_eq!(lines[23], "a.py-30-foobar not a word hit");
        assert!(lines.contains(&"a.py:50:call foo(50)"));
        assert_eq!(lines[lines.len() - 2], "--");
        assert_eq!(lines[lines.len() - 1], "b.py:1:x = foo\r");
    }

    #[test]
    fn the_word_is_escaped() {
        let re = word_regex("a.b").unwrap();
        assert!(re.is_match(b"x a.b y"));
        assert!(!re.is_match(b"x axb y"));
        assert!(!re.is_match(b"xa.b"));
    }
}
