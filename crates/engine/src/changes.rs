//! What a change touches: changed files and line ranges (from a unified diff, a list of files, or
//! git: two commits, or a commit and the working tree) mapped onto the definitions of the active
//! generation whose spans they intersect.
//!
//! Positions are only exact on the version of a file that was indexed. For each file the side of
//! the change the index holds is found by blob id: the new side (the usual case: indexed after
//! editing), the old side (indexed before), or neither (`stale`: the new side's lines are mapped
//! onto the indexed spans, which may be off).

use std::collections::{BTreeSet, HashMap};

use sextant_git::{ChangeStatus, FileChange, WorktreeFile};
use sextant_store::{FileInfo, NodeRow};

use crate::query::{Repo, to_symbol};
use crate::types::Symbol;
use crate::{Error, Result};

/// What changed.
#[derive(Debug, Clone)]
pub enum ChangeInput {
    /// Git: `base` (a revision; `a..b` and `a...b` ranges too; default `HEAD`) against `head` (a
    /// revision; default the working tree, staged and unstaged, plus untracked files that are
    /// indexed).
    Git {
        base: Option<String>,
        head: Option<String>,
    },
    /// A unified diff (`git diff` output, or `diff -u`), new side = the working tree.
    Diff(String),
    /// Whole files changed (repository-relative paths).
    Files(Vec<String>),
}

/// One changed region, in unified-diff numbering (1-based; a side of length 0 sits after
/// `start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineHunk {
    pub old_start: u32,
    pub old_len: u32,
    pub new_start: u32,
    pub new_len: u32,
}

/// Which version of a changed file the index holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexSide {
    /// The new side: symbol positions are exact.
    New,
    /// The old side (indexed before the change): positions are exact on the old lines.
    Old,
    /// Another version: the new side's lines are mapped onto older spans and may be off.
    Stale,
    /// The file is not in the index (no symbols known).
    NotIndexed,
}

impl IndexSide {
    pub fn as_str(self) -> &'static str {
        match self {
            IndexSide::New => "new",
            IndexSide::Old => "old",
            IndexSide::Stale => "stale",
            IndexSide::NotIndexed => "not_indexed",
        }
    }
}

/// One changed file.
#[derive(Debug, Clone)]
pub struct ChangedFile {
    pub path: String,
    /// Where a renamed file came from.
    pub old_path: Option<String>,
    /// `added`, `deleted`, `modified` or `renamed`.
    pub status: &'static str,
    pub language: Option<String>,
    pub hunks: Vec<LineHunk>,
    pub lines_added: u32,
    pub lines_removed: u32,
    pub binary: bool,
    pub index: IndexSide,
    /// Changed symbols in this file (containers included).
    pub symbols: u32,
}

/// One definition a change touches.
#[derive(Debug, Clone)]
pub struct ChangedSymbol {
    pub symbol: Symbol,
    /// `modified`, `added`, `deleted`, or `moved` (a top-level definition of a renamed file).
    pub change: &'static str,
    /// Only touched through its members (the innermost changed definitions are listed too).
    pub container: bool,
    /// Changed lines inside its span (removed lines count where they were).
    pub lines_touched: u32,
    /// Touched line ranges inside its span, on the side the index holds.
    pub ranges: Vec<(u32, u32)>,
    /// Which version of the file the positions come from.
    pub index: IndexSide,
}

/// The answer of [`Repo::changes`].
#[derive(Debug, Clone, Default)]
pub struct ChangeSet {
    /// What was compared, in words (`working tree vs HEAD`, `v1.0..HEAD`, `diff`, `files`).
    pub source: String,
    /// The base commit (hex), when git was asked.
    pub base: Option<String>,
    /// The head commit (hex); `None` for the working tree or a diff.
    pub head: Option<String>,
    /// The commit the index was built from.
    pub index_commit: Option<String>,
    pub files: Vec<ChangedFile>,
    /// Changed definitions by file and position.
    pub symbols: Vec<ChangedSymbol>,
    /// Some changed file's indexed version is not the change's new side: re-index for exact
    /// positions (`sextant index`).
    pub index_behind: bool,
    /// Things worth knowing about the answer.
    pub notes: Vec<String>,
    /// Paths that could not be compared, with the reason (secret, binary, too large...).
    pub unreadable: Vec<(String, String)>,
}

/// A changed file before mapping.
#[derive(Debug, Clone)]
struct Delta {
    path: String,
    old_path: Option<String>,
    status: ChangeStatus,
    hunks: Vec<LineHunk>,
    /// Blob ids, possibly abbreviated (`index abc123..def456` of a diff).
    old_id: Option<String>,
    new_id: Option<String>,
    binary: bool,
}

impl From<FileChange> for Delta {
    fn from(c: FileChange) -> Delta {
        Delta {
            path: c.path,
            old_path: c.old_path,
            status: c.status,
            hunks: c
                .hunks
                .into_iter()
                .map(|h| LineHunk {
                    old_start: h.old_start,
                    old_len: h.old_len,
                    new_start: h.new_start,
                    new_len: h.new_len,
                })
                .collect(),
            old_id: c.old_id,
            new_id: c.new_id,
            binary: c.binary,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Unified diff parsing

/// Unquotes a git path (`"a/sp\303\251cial"`) and drops a `diff -u` timestamp.
fn diff_path(raw: &str) -> String {
    let raw = raw.trim_end_matches('\r');
    if let Some(inner) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        let mut bytes = Vec::new();
        let mut chars = inner.bytes().peekable();
        while let Some(b) = chars.next() {
            if b != b'\\' {
                bytes.push(b);
                continue;
            }
            match chars.next() {
                Some(b'n') => bytes.push(b'\n'),
                Some(b't') => bytes.push(b'\t'),
                Some(d @ b'0'..=b'7') => {
                    let mut v = u32::from(d - b'0');
                    for _ in 0..2 {
                        if let Some(&n @ b'0'..=b'7') = chars.peek() {
                            v = v * 8 + u32::from(n - b'0');
                            chars.next();
                        }
                    }
                    bytes.push(v as u8);
                }
                Some(other) => bytes.push(other),
                None => {}
            }
        }
        return String::from_utf8_lossy(&bytes).into_owned();
    }
    raw.split('\t').next().unwrap_or(raw).trim_end().to_string()
}

/// `a/x` → `x` (a `---`/`+++` path), `None` for `/dev/null`.
fn side_path(raw: &str) -> Option<String> {
    let p = diff_path(raw);
    if p == "/dev/null" {
        return None;
    }
    Some(
        p.strip_prefix("a/")
            .or_else(|| p.strip_prefix("b/"))
            .unwrap_or(&p)
            .to_string(),
    )
}

/// `-a,b +c,d` of a hunk header.
fn hunk_header(line: &str) -> Option<(u32, u32, u32, u32)> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let parse = |r: &str| -> Option<(u32, u32)> {
        match r.split_once(',') {
            Some((s, l)) => Some((s.parse().ok()?, l.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (a, b) = parse(old)?;
    let (c, d) = parse(new)?;
    Some((a, b, c, d))
}

/// Parses a unified diff into files with exact changed regions (context lines dropped).
fn parse_unified_diff(text: &str) -> Result<Vec<Delta>> {
    let bad = |n: usize, why: &str| Error::InvalidArgument(format!("diff line {}: {why}", n + 1));
    let mut out: Vec<Delta> = Vec::new();
    let mut current: Option<Delta> = None;
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    let finish = |d: Option<Delta>, out: &mut Vec<Delta>| {
        if let Some(d) = d
            && !d.path.is_empty()
        {
            out.push(d);
        }
    };
    let fresh = || Delta {
        path: String::new(),
        old_path: None,
        status: ChangeStatus::Modified,
        hunks: Vec::new(),
        old_id: None,
        new_id: None,
        binary: false,
    };
    while i < lines.len() {
        let line = lines[i].trim_end_matches('\r');
        if let Some(rest) = line.strip_prefix("diff --git ") {
            finish(current.take(), &mut out);
            let mut d = fresh();
            // `a/x b/x`: the new path is the second half when both halves name the same file.
            if let Some((a, b)) = split_git_header(rest) {
                d.old_path = Some(a);
                d.path = b;
            }
            current = Some(d);
        } else if line.starts_with("--- ")
            && lines
                .get(i + 1)
                .is_some_and(|n| n.starts_with("+++ ") || n.starts_with("+++\t"))
        {
            let old = side_path(&line[4..]);
            let new = side_path(&lines[i + 1][4..]);
            // A plain `diff -u` section starts here; a git one was started by `diff --git`.
            let d = match current.as_mut() {
                Some(d) if d.hunks.is_empty() => d,
                _ => {
                    finish(current.take(), &mut out);
                    current.insert(fresh())
                }
            };
            match (old, new) {
                (None, Some(n)) => {
                    d.status = ChangeStatus::Added;
                    d.path = n;
                    d.old_path = None;
                }
                (Some(o), None) => {
                    d.status = ChangeStatus::Deleted;
                    d.path = o;
                    d.old_path = None;
                }
                (Some(o), Some(n)) => {
                    if o != n && d.status != ChangeStatus::Added {
                        d.status = ChangeStatus::Renamed;
                        d.old_path = Some(o);
                    } else if d.status == ChangeStatus::Modified {
                        d.old_path = None;
                    }
                    d.path = n;
                }
                (None, None) => return Err(bad(i, "both sides are /dev/null")),
            }
            i += 2;
            continue;
        } else if line.starts_with("@@ ") {
            let Some(d) = current.as_mut() else {
                return Err(bad(i, "a hunk before any file header"));
            };
            let (a, b, c, dd) = hunk_header(line).ok_or_else(|| bad(i, "malformed hunk header"))?;
            let (mut old_line, mut new_line) = (a.max(1), c.max(1));
            let (mut old_left, mut new_left) = (b, dd);
            // Exact regions: runs of removed and added lines between context lines.
            let mut run: Option<LineHunk> = None;
            let close = |run: &mut Option<LineHunk>, hunks: &mut Vec<LineHunk>| {
                if let Some(mut h) = run.take() {
                    if h.old_len == 0 {
                        h.old_start -= 1;
                    }
                    if h.new_len == 0 {
                        h.new_start -= 1;
                    }
                    hunks.push(h);
                }
            };
            i += 1;
            while i < lines.len() && (old_left > 0 || new_left > 0) {
                let body = lines[i];
                let start_run = |run: &mut Option<LineHunk>| {
                    run.get_or_insert(LineHunk {
                        old_start: old_line,
                        old_len: 0,
                        new_start: new_line,
                        new_len: 0,
                    });
                };
                match body.as_bytes().first() {
                    Some(b'-') => {
                        start_run(&mut run);
                        if let Some(h) = run.as_mut() {
                            h.old_len += 1;
                        }
                        old_line += 1;
                        old_left = old_left.saturating_sub(1);
                    }
                    Some(b'+') => {
                        start_run(&mut run);
                        if let Some(h) = run.as_mut() {
                            h.new_len += 1;
                        }
                        new_line += 1;
                        new_left = new_left.saturating_sub(1);
                    }
                    Some(b'\\') => {}
                    // A context line (an empty line is a context line whose space was lost).
                    Some(b' ') | None => {
                        close(&mut run, &mut d.hunks);
                        old_line += 1;
                        new_line += 1;
                        old_left = old_left.saturating_sub(1);
                        new_left = new_left.saturating_sub(1);
                    }
                    _ => return Err(bad(i, "unexpected line inside a hunk")),
                }
                i += 1;
            }
            close(&mut run, &mut d.hunks);
            // A trailing "\ No newline at end of file".
            if lines.get(i).is_some_and(|l| l.starts_with('\\')) {
                i += 1;
            }
            continue;
        } else if let Some(d) = current.as_mut() {
            if line.starts_with("new file mode") {
                d.status = ChangeStatus::Added;
                d.old_path = None;
            } else if line.starts_with("deleted file mode") {
                d.status = ChangeStatus::Deleted;
                if let Some(o) = d.old_path.take() {
                    d.path = o;
                }
            } else if let Some(p) = line.strip_prefix("rename from ") {
                d.status = ChangeStatus::Renamed;
                d.old_path = Some(diff_path(p));
            } else if let Some(p) = line.strip_prefix("rename to ") {
                d.status = ChangeStatus::Renamed;
                d.path = diff_path(p);
            } else if let Some(p) = line.strip_prefix("copy to ") {
                d.status = ChangeStatus::Added;
                d.path = diff_path(p);
                d.old_path = None;
            } else if let Some(ids) = line.strip_prefix("index ") {
                let ids = ids.split(' ').next().unwrap_or("");
                if let Some((a, b)) = ids.split_once("..") {
                    let id = |s: &str| (!s.chars().all(|c| c == '0')).then(|| s.to_string());
                    d.old_id = id(a);
                    d.new_id = id(b);
                }
            } else if line.starts_with("Binary files ") || line == "GIT binary patch" {
                d.binary = true;
            }
        }
        i += 1;
    }
    finish(current, &mut out);
    for d in &mut out {
        if d.status == ChangeStatus::Modified && d.old_path.as_deref() == Some(d.path.as_str()) {
            d.old_path = None;
        }
        if d.status == ChangeStatus::Renamed && d.old_path.as_deref() == Some(d.path.as_str()) {
            d.status = ChangeStatus::Modified;
            d.old_path = None;
        }
        if d.status == ChangeStatus::Modified && d.old_path.is_some() {
            d.status = ChangeStatus::Renamed;
        }
    }
    if out.is_empty() && !text.trim().is_empty() {
        return Err(Error::InvalidArgument(
            "no file changes found in the diff (expected unified diff text: `git diff` output)"
                .into(),
        ));
    }
    Ok(out)
}

/// `a/x b/y` of a `diff --git` line → (`x`, `y`). Handles quoted halves and unquoted paths with
/// spaces when both halves are equal.
fn split_git_header(rest: &str) -> Option<(String, String)> {
    let rest = rest.trim_end_matches('\r');
    if let Some(inner) = rest.strip_prefix('"') {
        let end = inner.find("\" ")? + 1;
        let a = side_path(&rest[..=end])?;
        let b = side_path(rest[end + 1..].trim_start())?;
        return Some((a, b));
    }
    if let Some(pos) = rest.find(" \"") {
        return Some((side_path(&rest[..pos])?, side_path(&rest[pos + 1..])?));
    }
    // Unquoted: try the split where both halves name the same path, else the middle " b/".
    let bytes = rest.len();
    if bytes % 2 == 1 {
        let half = bytes / 2;
        let (a, b) = (&rest[..half], &rest[half + 1..]);
        if a.get(2..) == b.get(2..) && a.starts_with("a/") && b.starts_with("b/") {
            return Some((a[2..].to_string(), b[2..].to_string()));
        }
    }
    let pos = rest.find(" b/")?;
    Some((side_path(&rest[..pos])?, side_path(&rest[pos + 1..])?))
}

// ---------------------------------------------------------------------------------------------
// Mapping changed lines onto definitions

/// A changed place on the side the index holds: lines `first..=last`, or (for `point`) the gap
/// after line `first` where `lines` lines were removed (or added, on the old side).
#[derive(Debug, Clone, Copy)]
struct Touch {
    first: u32,
    last: u32,
    point: bool,
    lines: u32,
    /// Nothing on the other side: a pure insertion (new side) or removal (old side).
    pure: bool,
}

fn touches(hunks: &[LineHunk], old_side: bool) -> Vec<Touch> {
    hunks
        .iter()
        .map(|h| {
            let (start, len, other) = if old_side {
                (h.old_start, h.old_len, h.new_len)
            } else {
                (h.new_start, h.new_len, h.old_len)
            };
            if len == 0 {
                Touch {
                    first: start,
                    last: start + 1,
                    point: true,
                    lines: other,
                    pure: false,
                }
            } else {
                Touch {
                    first: start,
                    last: start + len - 1,
                    point: false,
                    lines: len,
                    pure: other == 0,
                }
            }
        })
        .collect()
}

/// Per-node tallies while mapping one file.
#[derive(Debug, Default, Clone)]
struct Tally {
    direct: bool,
    lines: u32,
    pure_lines: u32,
    ranges: Vec<(u32, u32)>,
}

/// The changed symbols of one file, given its nodes and the touches on the side they describe.
fn map_touches(
    nodes: &[NodeRow],
    touches: &[Touch],
    whole: Option<&'static str>,
    old_side: bool,
    index: IndexSide,
) -> Vec<ChangedSymbol> {
    let defs: Vec<&NodeRow> = nodes.iter().filter(|n| n.kind != "file").collect();
    if defs.is_empty() || touches.is_empty() {
        return Vec::new();
    }
    let by_id: HashMap<i64, usize> = defs.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    // Paint the innermost definition of every line: larger spans first, smaller over them.
    let last_line = defs
        .iter()
        .map(|n| n.span.end_line)
        .chain(touches.iter().map(|t| t.last))
        .max()
        .unwrap_or(0) as usize;
    let mut order: Vec<usize> = (0..defs.len()).collect();
    order.sort_by_key(|&i| {
        let s = &defs[i].span;
        (
            std::cmp::Reverse(s.end_line - s.start_line),
            std::cmp::Reverse(s.end_byte - s.start_byte),
            s.start_byte,
        )
    });
    let mut owner: Vec<Option<usize>> = vec![None; last_line + 2];
    for &i in &order {
        let s = &defs[i].span;
        for slot in &mut owner[s.start_line as usize..=s.end_line as usize] {
            *slot = Some(i);
        }
    }
    let parent = |i: usize| defs[i].parent_id.and_then(|p| by_id.get(&p).copied());
    let contains = |i: usize, line: u32| {
        let s = &defs[i].span;
        s.start_line <= line && line <= s.end_line
    };
    let mut tally: Vec<Tally> = vec![Tally::default(); defs.len()];
    let mut record = |i: usize, first: u32, last: u32, lines: u32, pure: bool| {
        let t = &mut tally[i];
        t.direct = true;
        t.lines += lines;
        if pure {
            t.pure_lines += lines;
        }
        match t.ranges.last_mut() {
            Some((_, end)) if *end + 1 >= first => *end = (*end).max(last),
            _ => t.ranges.push((first, last)),
        }
    };
    for t in touches {
        if t.point {
            // Removed lines sit inside the innermost definition holding both neighbours.
            let mut at = owner.get(t.first as usize).copied().flatten();
            while let Some(i) = at {
                if contains(i, t.last) {
                    break;
                }
                at = parent(i);
            }
            if let Some(i) = at {
                record(i, t.first, t.last, t.lines.max(1), false);
            }
        } else {
            let mut line = t.first;
            while line <= t.last {
                // A run of lines with the same innermost owner counts at once.
                let who = owner.get(line as usize).copied().flatten();
                let mut end = line;
                while end < t.last && owner.get(end as usize + 1).copied().flatten() == who {
                    end += 1;
                }
                if let Some(i) = who {
                    record(i, line, end, end - line + 1, t.pure);
                }
                line = end + 1;
            }
        }
    }
    // Containers: ancestors of touched definitions, with the lines of their members.
    let mut total: Vec<(u32, Vec<(u32, u32)>)> = vec![(0, Vec::new()); defs.len()];
    let mut listed: BTreeSet<usize> = BTreeSet::new();
    for (i, t) in tally.iter().enumerate() {
        if !t.direct {
            continue;
        }
        let mut at = Some(i);
        while let Some(j) = at {
            total[j].0 += t.lines;
            total[j].1.extend(t.ranges.iter().copied());
            listed.insert(j);
            at = parent(j);
        }
    }
    listed
        .into_iter()
        .map(|i| {
            let n = defs[i];
            let span_lines = n.span.end_line - n.span.start_line + 1;
            let (lines, mut ranges) = total[i].clone();
            ranges.sort_unstable();
            let mut merged: Vec<(u32, u32)> = Vec::new();
            for (a, b) in ranges {
                match merged.last_mut() {
                    Some((_, end)) if *end + 1 >= a => *end = (*end).max(b),
                    _ => merged.push((a, b)),
                }
            }
            // Entirely new (or entirely removed) when every line of the span is in pure runs.
            let pure_total: u32 = touches
                .iter()
                .filter(|t| t.pure && !t.point)
                .map(|t| {
                    let a = t.first.max(n.span.start_line);
                    let b = t.last.min(n.span.end_line);
                    if a <= b { b - a + 1 } else { 0 }
                })
                .sum();
            let change = match whole {
                Some(c) => c,
                None if pure_total >= span_lines => {
                    if old_side {
                        "deleted"
                    } else {
                        "added"
                    }
                }
                None => "modified",
            };
            ChangedSymbol {
                symbol: to_symbol(n.clone()),
                change,
                container: !tally[i].direct,
                lines_touched: lines,
                ranges: merged,
                index,
            }
        })
        .collect()
}

/// The text of a diff file given by a user (any path: it is an argument, not repository
/// source), read through `sextant-vfs` (no symlinks or FIFOs, at most 64 MiB).
pub fn read_diff_file(path: &std::path::Path) -> Result<String> {
    sextant_vfs::read_source(path, 64 << 20, usize::MAX, usize::MAX)
        .map(|f| f.text)
        .map_err(|e| {
            Error::InvalidArgument(format!(
                "cannot read the diff {}: {} ({})",
                path.display(),
                e.reason.as_str(),
                e.detail
            ))
        })
}

/// Blob ids match (one may be abbreviated, as in a diff's `index` line).
fn same_blob(full: &str, id: Option<&str>) -> bool {
    id.is_some_and(|id| id.len() >= 7 && full.starts_with(id))
}

impl Repo {
    /// What a change touches: changed files, and the definitions of the active generation whose
    /// spans its changed lines intersect (innermost ones, and their containers marked as such).
    pub fn changes(&self, input: &ChangeInput) -> Result<ChangeSet> {
        let mut set = ChangeSet {
            index_commit: self.commit()?,
            ..ChangeSet::default()
        };
        let indexed: Vec<FileInfo> = self.store().files(self.generation())?;
        let deltas: Vec<Delta> = match input {
            ChangeInput::Git { base, head } => self.git_deltas(base, head, &indexed, &mut set)?,
            ChangeInput::Diff(text) => {
                set.source = "diff".into();
                let mut deltas = parse_unified_diff(text)?;
                // Without an `index` line, the new side is taken to be the working tree.
                for d in &mut deltas {
                    if d.new_id.is_none() && d.status != ChangeStatus::Deleted {
                        d.new_id = self.disk_hash(&d.path);
                    }
                }
                deltas
            }
            ChangeInput::Files(paths) => {
                set.source = "files".into();
                self.file_deltas(paths, &indexed, &mut set)?
            }
        };
        let by_path: HashMap<&str, &FileInfo> =
            indexed.iter().map(|f| (f.path.as_str(), f)).collect();
        self.store().snapshot(|store| {
            for d in deltas {
                let new_info = (d.status != ChangeStatus::Deleted)
                    .then(|| by_path.get(d.path.as_str()).copied())
                    .flatten();
                let old_info = by_path
                    .get(d.old_path.as_deref().unwrap_or(&d.path))
                    .copied();
                let (info, side) = if d.status == ChangeStatus::Deleted {
                    match old_info {
                        Some(o) => (Some(o), IndexSide::Old),
                        None => (None, IndexSide::NotIndexed),
                    }
                } else if let Some(n) = new_info
                    && (same_blob(&n.hash, d.new_id.as_deref()) || d.new_id.is_none() && d.binary)
                {
                    (Some(n), IndexSide::New)
                } else if let Some(o) = old_info
                    && same_blob(&o.hash, d.old_id.as_deref())
                {
                    (Some(o), IndexSide::Old)
                } else if let Some(n) = new_info {
                    (Some(n), IndexSide::Stale)
                } else {
                    (None, IndexSide::NotIndexed)
                };
                if side == IndexSide::Stale
                    || (side == IndexSide::Old && d.status != ChangeStatus::Deleted)
                {
                    set.index_behind = true;
                }
                let old_side = side == IndexSide::Old;
                let whole = match d.status {
                    ChangeStatus::Added => Some("added"),
                    ChangeStatus::Deleted => Some("deleted"),
                    _ => None,
                };
                let mut symbols = match info {
                    Some(f) => {
                        let nodes = store.file_nodes(f.id)?;
                        if d.status == ChangeStatus::Renamed && d.hunks.is_empty() {
                            // Moved as is: its top-level definitions have new qualified names.
                            nodes
                                .iter()
                                .filter(|n| n.kind != "file" && n.parent_id == Some(f.node_id))
                                .map(|n| ChangedSymbol {
                                    symbol: to_symbol(n.clone()),
                                    change: "moved",
                                    container: false,
                                    lines_touched: 0,
                                    ranges: Vec::new(),
                                    index: side,
                                })
                                .collect()
                        } else {
                            map_touches(&nodes, &touches(&d.hunks, old_side), whole, old_side, side)
                        }
                    }
                    None => Vec::new(),
                };
                symbols.sort_by_key(|s| (s.symbol.start_line, s.symbol.end_line));
                let (lines_added, lines_removed) = d
                    .hunks
                    .iter()
                    .fold((0, 0), |(a, r), h| (a + h.new_len, r + h.old_len));
                set.files.push(ChangedFile {
                    path: d.path,
                    old_path: d.old_path,
                    status: d.status.as_str(),
                    language: info.map(|f| f.language.clone()),
                    hunks: d.hunks,
                    lines_added,
                    lines_removed,
                    binary: d.binary,
                    index: side,
                    symbols: symbols.len() as u32,
                });
                set.symbols.extend(symbols);
            }
            Ok::<(), Error>(())
        })?;
        set.files.sort_by(|a, b| a.path.cmp(&b.path));
        let not_indexed = set
            .files
            .iter()
            .filter(|f| f.index == IndexSide::NotIndexed && !f.binary)
            .count();
        if not_indexed > 0 {
            set.notes.push(format!(
                "{not_indexed} changed file(s) are not in the index (new since indexing, \
                 unsupported language, or skipped): no symbols for them"
            ));
        }
        if set.index_behind {
            set.notes.push(
                "the index does not hold the new side of some changed files: their symbol \
                 positions may be off; run `sextant index` for exact answers"
                    .into(),
            );
        }
        Ok(set)
    }

    /// The git blob id of a file on disk now (`None` if it cannot be read).
    fn disk_hash(&self, path: &str) -> Option<String> {
        if sextant_vfs::is_secret_path(path) {
            return None;
        }
        let (_, abs) = sextant_vfs::confine(&self.root, path).ok()?;
        sextant_vfs::read_source(&abs, 16 << 20, usize::MAX, usize::MAX)
            .ok()
            .map(|f| f.hash)
    }

    fn git_deltas(
        &self,
        base: &Option<String>,
        head: &Option<String>,
        indexed: &[FileInfo],
        set: &mut ChangeSet,
    ) -> Result<Vec<Delta>> {
        let root = &self.root;
        if sextant_git::discover(root).is_none() {
            return Err(Error::InvalidArgument(format!(
                "{} is not in a git repository; pass a diff (--diff) or files (--files)",
                root.display()
            )));
        }
        let (mut base, mut head) = (base.clone(), head.clone());
        if head.is_none()
            && let Some(b) = base.clone()
        {
            if let Some((a, h)) = b.split_once("...") {
                let h = if h.is_empty() { "HEAD" } else { h };
                base = Some(sextant_git::merge_base(root, a, h)?);
                head = Some(h.to_string());
            } else if let Some((a, h)) = b.split_once("..") {
                base = Some(if a.is_empty() { "HEAD" } else { a }.to_string());
                head = Some(if h.is_empty() { "HEAD" } else { h }.to_string());
            }
        }
        match head {
            Some(h) => {
                let b = base.unwrap_or_else(|| "HEAD".into());
                set.source = format!("{b}..{h}");
                set.base = Some(sextant_git::resolve_commit(root, &b)?);
                set.head = Some(sextant_git::resolve_commit(root, &h)?);
                Ok(sextant_git::changed_files(root, &b, &h)?
                    .into_iter()
                    .map(Delta::from)
                    .collect())
            }
            None => {
                set.source = format!("working tree vs {}", base.as_deref().unwrap_or("HEAD"));
                let extra: Vec<String> = indexed.iter().map(|f| f.path.clone()).collect();
                let root = self.root.clone();
                let read = move |path: &str| -> WorktreeFile {
                    if sextant_vfs::is_secret_path(path) {
                        return WorktreeFile::Unreadable("secret-bearing file".into());
                    }
                    let abs = match sextant_vfs::confine(&root, path) {
                        Ok((_, abs)) => abs,
                        Err(sextant_vfs::ConfineError::Io { .. }) => return WorktreeFile::Missing,
                        Err(e) => return WorktreeFile::Unreadable(e.to_string()),
                    };
                    match sextant_vfs::read_source(&abs, 16 << 20, usize::MAX, usize::MAX) {
                        Ok(f) => WorktreeFile::Bytes {
                            bytes: f.text.into_bytes(),
                            id: Some(f.hash),
                        },
                        Err(e) => WorktreeFile::Unreadable(format!(
                            "{} ({})",
                            e.reason.as_str(),
                            e.detail
                        )),
                    }
                };
                let wt = sextant_git::worktree_changes(&self.root, base.as_deref(), &extra, &read)?;
                set.base = wt.base_commit;
                set.unreadable = wt.unreadable;
                Ok(wt.changes.into_iter().map(Delta::from).collect())
            }
        }
    }

    fn file_deltas(
        &self,
        paths: &[String],
        indexed: &[FileInfo],
        set: &mut ChangeSet,
    ) -> Result<Vec<Delta>> {
        let mut out = Vec::new();
        for raw in paths {
            let path = raw.trim().trim_start_matches("./").to_string();
            if path.is_empty() {
                continue;
            }
            sextant_model::RepoPath::new(&path)
                .map_err(|e| Error::InvalidArgument(format!("--files {raw:?}: {e}")))?;
            let info = indexed.iter().find(|f| f.path == path);
            let disk = if sextant_vfs::is_secret_path(&path) {
                set.unreadable
                    .push((path.clone(), "secret-bearing file".into()));
                continue;
            } else {
                match sextant_vfs::confine(&self.root, &path) {
                    Ok((_, abs)) => {
                        sextant_vfs::read_source(&abs, 16 << 20, usize::MAX, usize::MAX).ok()
                    }
                    Err(sextant_vfs::ConfineError::Io { .. }) => None,
                    Err(e) => return Err(e.into()),
                }
            };
            let lines = |text: &str| text.lines().count() as u32;
            let (status, hunks, new_id) = match (&disk, info) {
                (Some(f), _) => {
                    let n = lines(&f.text);
                    let status = if info.is_some() {
                        ChangeStatus::Modified
                    } else {
                        ChangeStatus::Added
                    };
                    let hunk = LineHunk {
                        old_start: u32::from(info.is_some()),
                        old_len: info.map_or(0, |i| i.lines),
                        new_start: 1,
                        new_len: n,
                    };
                    (status, vec![hunk], Some(f.hash.clone()))
                }
                (None, Some(i)) => (
                    ChangeStatus::Deleted,
                    vec![LineHunk {
                        old_start: 1,
                        old_len: i.lines,
                        new_start: 0,
                        new_len: 0,
                    }],
                    None,
                ),
                (None, None) => {
                    set.unreadable
                        .push((path.clone(), "not on disk and not indexed".into()));
                    continue;
                }
            };
            // A whole-file change: every definition is touched, with the hash deciding the side.
            out.push(Delta {
                path,
                old_path: None,
                status,
                hunks,
                old_id: None,
                new_id,
                binary: false,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "diff --git a/src/a.py b/src/a.py
index 1111111..2222222 100644
--- a/src/a.py
+++ b/src/a.py
@@ -3,7 +3,8 @@ def f():
 context
 context
 context
-old line
+new line
+another
 context
 context
 context
@@ -20,4 +21,3 @@ def g():
 c
 c
-gone
 c
diff --git a/new.py b/new.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/new.py
@@ -0,0 +1,2 @@
+x = 1
+y = 2
diff --git a/old.py b/old.py
deleted file mode 100644
index 4444444..0000000
--- a/old.py
+++ /dev/null
@@ -1 +0,0 @@
-z = 1
diff --git a/from name.py b/to name.py
similarity index 90%
rename from from name.py
rename to to name.py
index 5555555..6666666 100644
--- a/from name.py
+++ b/to name.py
@@ -1,2 +1,2 @@
-a
+b
 c
diff --git a/img.png b/img.png
index 7777777..8888888 100644
Binary files a/img.png and b/img.png differ
";

    fn h(a: u32, b: u32, c: u32, d: u32) -> LineHunk {
        LineHunk {
            old_start: a,
            old_len: b,
            new_start: c,
            new_len: d,
        }
    }

    #[test]
    fn unified_diffs_parse_to_exact_regions() {
        let d = parse_unified_diff(DIFF).unwrap();
        assert_eq!(d.len(), 5, "{d:#?}");
        assert_eq!(d[0].path, "src/a.py");
        assert_eq!(d[0].status, ChangeStatus::Modified);
        assert_eq!(d[0].old_path, None);
        assert_eq!(d[0].hunks, vec![h(6, 1, 6, 2), h(22, 1, 22, 0)]);
        assert_eq!(d[0].new_id.as_deref(), Some("2222222"));
        assert_eq!(d[1].path, "new.py");
        assert_eq!(d[1].status, ChangeStatus::Added);
        assert_eq!(d[1].hunks, vec![h(0, 0, 1, 2)]);
        assert_eq!(d[1].old_id, None);
        assert_eq!(d[2].path, "old.py");
        assert_eq!(d[2].status, ChangeStatus::Deleted);
        assert_eq!(d[2].hunks, vec![h(1, 1, 0, 0)]);
        assert_eq!(d[3].path, "to name.py");
        assert_eq!(d[3].old_path.as_deref(), Some("from name.py"));
        assert_eq!(d[3].status, ChangeStatus::Renamed);
        assert_eq!(d[4].path, "img.png");
        assert!(d[4].binary && d[4].hunks.is_empty());
    }

    #[test]
    fn plain_diff_u_and_bad_input() {
        let plain = "--- a.py\t2024-01-01 00:00:00\n+++ a.py\t2024-01-02 00:00:00\n@@ -1,2 +1,2 @@\n x\n-y\n+Y\n";
        let d = parse_unified_diff(plain).unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].path, "a.py");
        assert_eq!(d[0].hunks, vec![h(2, 1, 2, 1)]);
        // A removed line that looks like a header stays inside its hunk.
        let tricky = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,1 @@\n--- not a header\n keep\n";
        let d = parse_unified_diff(tricky).unwrap();
        assert_eq!(d[0].hunks, vec![h(1, 1, 0, 0)]);
        assert!(parse_unified_diff("hello\nworld\n").is_err());
        assert!(parse_unified_diff("").unwrap().is_empty());
        let quoted = "diff --git \"a/sp\\303\\251cial.py\" \"b/sp\\303\\251cial.py\"\n--- \"a/sp\\303\\251cial.py\"\n+++ \"b/sp\\303\\251cial.py\"\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(parse_unified_diff(quoted).unwrap()[0].path, "spécial.py");
    }
}
