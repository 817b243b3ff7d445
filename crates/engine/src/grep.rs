//! Text search over the indexed files of the active generation: a literal or a regular
//! expression (the `regex` crate: linear time, no backtracking), read through `sextant-vfs`
//! (confined to the repository, never a secret-bearing file), each hit with its enclosing
//! definition from the stored nodes of the file.

use rayon::prelude::*;
use sextant_store::{FileInfo, NodeRow};

use crate::query::{Repo, to_symbol};
use crate::types::Symbol;
use crate::{Error, Result};

/// How to match and where to look.
#[derive(Debug, Clone, Default)]
pub struct GrepOptions {
    /// The pattern is a literal string, not a regular expression.
    pub fixed_strings: bool,
    pub ignore_case: bool,
    /// Match whole words only.
    pub word: bool,
    /// Only files under this path prefix (`src/`), or matching this glob (`src/**/*.rs`, `*.py`:
    /// `*` crosses directories).
    pub path: Option<String>,
    /// Only files of this language id (`rust`, `python`, ...).
    pub language: Option<String>,
    /// Stop after this many hits (in `files_only` mode: this many files); 0 means 1000.
    pub max_hits: u32,
    /// Count hits per file without collecting them (no enclosing symbols).
    pub files_only: bool,
}

/// One matching line.
#[derive(Debug, Clone)]
pub struct GrepHit {
    pub path: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based byte column of the first match on the line.
    pub column: u32,
    /// Byte length of that match.
    pub match_len: u32,
    /// The line (a window of about 300 bytes around the match when it is longer).
    pub text: String,
    /// `text` is only part of the line.
    pub text_cut: bool,
    /// The innermost definition whose span contains the line (`None` at the top level).
    pub symbol: Option<Symbol>,
    /// The file changed on disk since it was indexed: the line is current, the enclosing symbol
    /// comes from the indexed version and may be off.
    pub file_changed: bool,
}

/// Matching lines in one file.
#[derive(Debug, Clone)]
pub struct GrepFile {
    pub path: String,
    pub language: String,
    /// Matching lines in the whole file (even where the hit list was cut).
    pub hits: u32,
    pub file_changed: bool,
}

/// A grep answer.
#[derive(Debug, Clone, Default)]
pub struct GrepResult {
    pub pattern: String,
    /// The regular expression actually run.
    pub regex: String,
    /// Hits by path and line (empty in `files_only` mode).
    pub hits: Vec<GrepHit>,
    /// Files with hits, by path.
    pub files: Vec<GrepFile>,
    /// Files read.
    pub files_searched: u64,
    /// Indexed files that passed the filters.
    pub files_eligible: u64,
    /// The limit was reached: more files (or hits) may match.
    pub truncated: bool,
    /// Files that could not be read now (deleted, grown too large, ...), with the reason.
    pub unreadable: Vec<(String, String)>,
}

/// Longest line text returned (bytes, cut at a character boundary).
const MAX_LINE: usize = 300;
/// Files searched in parallel before checking the limit again.
const BATCH: usize = 256;

/// The regular expression a grep runs.
fn build_regex(pattern: &str, options: &GrepOptions) -> Result<regex::Regex> {
    if pattern.is_empty() {
        return Err(Error::InvalidArgument("the pattern is empty".into()));
    }
    let mut source = if options.fixed_strings {
        regex::escape(pattern)
    } else {
        pattern.to_string()
    };
    if options.word {
        // `\b` only where the pattern's edge is a word character (so `-x` still finds `a -x`).
        let word_edge = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        let (start, end) = if options.fixed_strings {
            (
                word_edge(pattern.chars().next()),
                word_edge(pattern.chars().last()),
            )
        } else {
            (true, true)
        };
        source = format!(
            "{}(?:{source}){}",
            if start { r"\b" } else { "" },
            if end { r"\b" } else { "" }
        );
    }
    regex::RegexBuilder::new(&source)
        .case_insensitive(options.ignore_case)
        .multi_line(true)
        .crlf(true)
        .size_limit(1 << 24)
        .build()
        .map_err(|e| {
            Error::InvalidArgument(format!(
                "invalid regular expression {pattern:?}: {e}{}",
                if options.fixed_strings {
                    ""
                } else {
                    " (use --fixed for a literal string)"
                }
            ))
        })
}

/// A path filter: a prefix, or a glob when the text has glob characters.
enum PathFilter {
    Any,
    Prefix(String),
    Glob(globset::GlobMatcher),
}

impl PathFilter {
    fn new(path: Option<&str>) -> Result<PathFilter> {
        let Some(p) = path.map(|p| p.trim().trim_start_matches("./")) else {
            return Ok(PathFilter::Any);
        };
        if p.is_empty() || p == "." {
            return Ok(PathFilter::Any);
        }
        if p.contains(['*', '?', '[', '{']) {
            let glob = globset::GlobBuilder::new(p)
                .literal_separator(false)
                .build()
                .map_err(|e| Error::InvalidArgument(format!("invalid path glob {p:?}: {e}")))?;
            return Ok(PathFilter::Glob(glob.compile_matcher()));
        }
        Ok(PathFilter::Prefix(p.trim_end_matches('/').to_string()))
    }

    fn keeps(&self, path: &str) -> bool {
        match self {
            PathFilter::Any => true,
            PathFilter::Prefix(p) => {
                path == p || (path.starts_with(p.as_str()) && path[p.len()..].starts_with('/'))
            }
            PathFilter::Glob(g) => g.is_match(path),
        }
    }
}

/// What one file yielded.
struct FileScan {
    file: usize,
    /// (line, column byte offset in line, match length, line text window, cut)
    lines: Vec<(u32, u32, u32, String, bool)>,
    count: u32,
    changed: bool,
    error: Option<String>,
}

/// The part of a line shown for a hit: whole when short, else a window around the match.
fn window(line: &str, at: usize) -> (String, bool) {
    let (text, cut) = window_raw(line, at);
    (crate::redact::snippet(&text), cut)
}

fn window_raw(line: &str, at: usize) -> (String, bool) {
    if line.len() <= MAX_LINE {
        return (line.to_string(), false);
    }
    let mut start = at.saturating_sub(MAX_LINE / 3);
    while !line.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + MAX_LINE).min(line.len());
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    (line[start..end].to_string(), true)
}

fn scan(
    root: &std::path::Path,
    index: usize,
    file: &FileInfo,
    re: &regex::Regex,
    collect: bool,
) -> FileScan {
    let mut out = FileScan {
        file: index,
        lines: Vec::new(),
        count: 0,
        changed: false,
        error: None,
    };
    if sextant_vfs::is_secret_path(&file.path) {
        out.error = Some("secret-bearing file".into());
        return out;
    }
    let abs = match sextant_vfs::confine(root, &file.path) {
        Ok((_, abs)) => abs,
        Err(e) => {
            out.error = Some(e.to_string());
            return out;
        }
    };
    let source = match sextant_vfs::read_source(&abs, 16 << 20, usize::MAX, usize::MAX) {
        Ok(s) => s,
        Err(e) => {
            out.error = Some(format!("{} ({})", e.reason.as_str(), e.detail));
            return out;
        }
    };
    out.changed = source.hash != file.hash;
    let text = source.text.as_str();
    // Walk the matches once, counting newlines as we go; one hit per line (its first match).
    let mut line = 1u32;
    let mut counted_to = 0usize;
    let mut last_line = 0u32;
    for m in re.find_iter(text) {
        if m.start() == m.end() && m.start() == text.len() && text.ends_with('\n') {
            break; // an empty match after the final newline is not a line
        }
        line += text.as_bytes()[counted_to..m.start()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u32;
        counted_to = m.start();
        if line == last_line {
            continue;
        }
        last_line = line;
        out.count += 1;
        if collect {
            let line_start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[m.start()..]
                .find('\n')
                .map_or(text.len(), |i| m.start() + i);
            let raw = text[line_start..line_end].trim_end_matches('\r');
            let at = m.start() - line_start;
            let (shown, cut) = window(raw, at);
            let len = m.end().min(line_end) - m.start();
            out.lines.push((line, at as u32, len as u32, shown, cut));
        }
    }
    out
}

/// The innermost definition (not the File node) whose lines contain `line`.
pub(crate) fn innermost(nodes: &[NodeRow], line: u32) -> Option<&NodeRow> {
    nodes
        .iter()
        .filter(|n| n.kind != "file" && n.span.start_line <= line && line <= n.span.end_line)
        .min_by_key(|n| {
            (
                n.span.end_line - n.span.start_line,
                n.span.end_byte - n.span.start_byte,
                std::cmp::Reverse(n.span.start_byte),
            )
        })
}

impl Repo {
    /// Lines of the indexed files matching a pattern, with their enclosing definitions.
    pub fn grep(&self, pattern: &str, options: &GrepOptions) -> Result<GrepResult> {
        let re = build_regex(pattern, options)?;
        let filter = PathFilter::new(options.path.as_deref())?;
        let max = if options.max_hits == 0 {
            1000
        } else {
            options.max_hits
        } as usize;
        let files: Vec<FileInfo> = self
            .store()
            .files(self.generation())?
            .into_iter()
            .filter(|f| options.language.as_ref().is_none_or(|l| &f.language == l))
            .filter(|f| filter.keeps(&f.path))
            .collect();
        let mut result = GrepResult {
            pattern: pattern.to_string(),
            regex: re.as_str().to_string(),
            files_eligible: files.len() as u64,
            ..GrepResult::default()
        };
        let collect = !options.files_only;
        // (file index, line, col, len, text, cut)
        let mut found: Vec<(usize, u32, u32, u32, String, bool)> = Vec::new();
        let root = self.root.as_path();
        'batches: for (b, batch) in files.chunks(BATCH).enumerate() {
            let scans: Vec<FileScan> = batch
                .par_iter()
                .enumerate()
                .map(|(i, f)| scan(root, b * BATCH + i, f, &re, collect))
                .collect();
            for s in scans {
                result.files_searched += 1;
                let file = &files[s.file];
                if let Some(e) = s.error {
                    result.unreadable.push((file.path.clone(), e));
                    continue;
                }
                if s.count == 0 {
                    continue;
                }
                let full = if collect {
                    found.len() >= max
                } else {
                    result.files.len() >= max
                };
                if full {
                    result.truncated = true;
                    result.files_searched -= 1;
                    break 'batches;
                }
                result.files.push(GrepFile {
                    path: file.path.clone(),
                    language: file.language.clone(),
                    hits: s.count,
                    file_changed: s.changed,
                });
                for (line, col, len, text, cut) in s.lines {
                    if found.len() >= max {
                        result.truncated = true;
                        break;
                    }
                    found.push((s.file, line, col, len, text, cut));
                }
            }
        }
        if !collect {
            return Ok(result);
        }
        // Enclosing definitions, one node list per file with hits.
        self.store().snapshot(|store| {
            let mut current: Option<(usize, Vec<NodeRow>, bool)> = None;
            for (fi, line, col, len, text, cut) in found {
                if current.as_ref().is_none_or(|(i, _, _)| *i != fi) {
                    let changed = result
                        .files
                        .iter()
                        .find(|g| g.path == files[fi].path)
                        .is_some_and(|g| g.file_changed);
                    current = Some((fi, store.file_nodes(files[fi].id)?, changed));
                }
                let (_, nodes, changed) = current.as_ref().expect("set above");
                result.hits.push(GrepHit {
                    path: files[fi].path.clone(),
                    line,
                    column: col + 1,
                    match_len: len,
                    text,
                    text_cut: cut,
                    symbol: innermost(nodes, line).cloned().map(to_symbol),
                    file_changed: *changed,
                });
            }
            Ok::<(), Error>(())
        })?;
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_compile_as_asked() {
        let opts = |fixed, word, ignore_case| GrepOptions {
            fixed_strings: fixed,
            word,
            ignore_case,
            ..GrepOptions::default()
        };
        let re = build_regex("a.b", &opts(true, false, false)).unwrap();
        assert!(re.is_match("xa.by") && !re.is_match("axb"));
        let re = build_regex("foo", &opts(false, true, false)).unwrap();
        assert!(re.is_match("a foo b") && !re.is_match("food"));
        let re = build_regex("-x", &opts(true, true, false)).unwrap();
        assert!(re.is_match("cmd -x") && !re.is_match("cmd -xy"));
        let re = build_regex("FOO", &opts(false, false, true)).unwrap();
        assert!(re.is_match("foo"));
        let e = build_regex("fn (", &opts(false, false, false)).unwrap_err();
        assert!(e.to_string().contains("invalid regular expression"), "{e}");
        assert!(build_regex("", &opts(false, false, false)).is_err());
    }

    #[test]
    fn path_filters() {
        let f = PathFilter::new(Some("src")).unwrap();
        assert!(f.keeps("src/a.rs") && !f.keeps("srcx/a.rs") && f.keeps("src"));
        let f = PathFilter::new(Some("*.py")).unwrap();
        assert!(f.keeps("a/b/c.py") && !f.keeps("a.rs"));
        let f = PathFilter::new(Some("crates/**/tests/*.rs")).unwrap();
        assert!(f.keeps("crates/x/tests/a.rs"));
        assert!(PathFilter::new(Some("a[")).is_err());
    }

    #[test]
    fn long_lines_are_windowed_at_char_boundaries() {
        let line = format!("{}needle{}", "é".repeat(400), "x".repeat(400));
        let at = line.find("needle").unwrap();
        let (shown, cut) = window(&line, at);
        assert!(cut && shown.contains("needle") && shown.len() <= MAX_LINE);
    }
}
