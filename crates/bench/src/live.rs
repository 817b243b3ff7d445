//! `sextant-bench live`: edit → visible latency of the live index (issue 5). Opens the live
//! index of an indexed repository, then for each of N files (picked deterministically among the
//! indexed ones) appends a small function (or, with `body`, inserts a comment line in the middle of
//! the file: what it defines stays, the spans after it move), calls `LiveIndex::update` with that
//! path and times it until the new generation is published (a query sees it from then on), then
//! restores the file and updates again (timed too). Reports p50/p95/max over all updates, the
//! phases, and how many updates patched the resolver rather than rebuilding it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use serde_json::{Value, json};
use sextant_engine::{IndexOptions, LiveIndex};

use crate::stats::Timings;

/// An edit that changes what a file defines, in the file's language.
fn edit(path: &str, text: &str, i: usize) -> Option<String> {
    let ext = path.rsplit('.').next()?;
    let add = match ext {
        "py" => format!("\n\ndef sextant_bench_edit_{i}():\n    return {i}\n"),
        "rs" => format!("\n\npub fn sextant_bench_edit_{i}() -> u32 {{\n    {i}\n}}\n"),
        "ts" | "js" | "tsx" | "jsx" => {
            format!("\n\nexport function sextantBenchEdit{i}() {{\n  return {i};\n}}\n")
        }
        "go" => format!("\n\nfunc SextantBenchEdit{i}() int {{\n\treturn {i}\n}}\n"),
        "c" | "h" => format!("\n\nint sextant_bench_edit_{i}(void) {{ return {i}; }}\n"),
        _ => return None,
    };
    Some(format!("{text}{add}"))
}

/// A comment line inserted before the middle line of the file that starts a statement inside a
/// block (indented), or appended when there is none.
fn body_edit(path: &str, text: &str, i: usize) -> Option<String> {
    let ext = path.rsplit('.').next()?;
    let comment = match ext {
        "py" => "#",
        "rs" | "ts" | "js" | "tsx" | "jsx" | "go" | "c" | "h" => "//",
        _ => return None,
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let starts_statement = |l: &str| {
        let t = l.trim_start();
        l.len() > t.len()
            && t.chars().next().is_some_and(|c| c.is_alphabetic())
            && !l.trim_end().ends_with('\\')
    };
    let middle = lines.len() / 2;
    let at = (middle..lines.len())
        .chain(0..middle)
        .find(|&k| starts_statement(lines[k]) && k > 0 && !lines[k - 1].trim_end().ends_with('\\'));
    let mut out = String::with_capacity(text.len() + 40);
    match at {
        Some(k) => {
            let indent = &lines[k][..lines[k].len() - lines[k].trim_start().len()];
            for (n, l) in lines.iter().enumerate() {
                if n == k {
                    out.push_str(&format!("{indent}{comment} sextant bench edit {i}\n"));
                }
                out.push_str(l);
            }
        }
        None => {
            out.push_str(text);
            out.push_str(&format!("\n{comment} sextant bench edit {i}\n"));
        }
    }
    Some(out)
}

/// One timed update: milliseconds, path, phases (seconds), files resolved.
type Update = (f64, String, Vec<(String, f64)>, u64);

pub fn run(repo: &Path, edits: usize, body: bool) -> Result<Value> {
    let root = repo.canonicalize().context("repository path")?;
    let t = Instant::now();
    let mut live = LiveIndex::open(&root, &IndexOptions::default())?;
    let open_ms = t.elapsed().as_secs_f64() * 1000.0;
    let paths: Vec<String> = live
        .paths()
        .into_iter()
        .filter(|p| edit(p, "", 0).is_some())
        .collect();
    anyhow::ensure!(!paths.is_empty(), "no editable files indexed");
    let step = (paths.len() / edits.max(1)).max(1);
    let mut timings = Timings::default();
    let mut restore = Timings::default();
    let mut gc = Timings::default();
    let mut phases: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    let mut resolved = Vec::new();
    let mut written = Vec::new();
    let mut patched = 0usize;
    let mut per_update: Vec<Update> = Vec::new();
    for (i, path) in paths.iter().step_by(step).take(edits).enumerate() {
        let abs = root.join(path);
        let original = std::fs::read_to_string(&abs).with_context(|| path.clone())?;
        let edited = if body {
            body_edit(path, &original, i)
        } else {
            edit(path, &original, i)
        };
        let Some(edited) = edited else {
            continue;
        };
        std::fs::write(&abs, &edited)?;
        let t = Instant::now();
        let u = live.update(&[PathBuf::from(path)]);
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        std::fs::write(&abs, &original)?;
        let u = u?;
        timings.push(path, ms);
        // Housekeeping after the change is visible (the watcher does it then too).
        let t = Instant::now();
        live.collect_garbage()?;
        gc.push(path, t.elapsed().as_secs_f64() * 1000.0);
        patched += usize::from(u.resolver_patched);
        resolved.push(u.files_resolved as f64);
        written.push(u.sets_written as f64);
        for (name, s) in &u.phases {
            phases.entry(name.clone()).or_default().push(s * 1000.0);
        }
        per_update.push((ms, path.clone(), u.phases.clone(), u.files_resolved));
        let t = Instant::now();
        live.update(&[PathBuf::from(path)])?;
        restore.push(path, t.elapsed().as_secs_f64() * 1000.0);
        live.collect_garbage()?;
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        crate::stats::percentile(v, 50.0)
    };
    per_update.sort_by(|a, b| b.0.total_cmp(&a.0));
    let slowest: Vec<Value> = per_update
        .iter()
        .take(5)
        .map(|(ms, path, phases, resolved)| {
            let phases: serde_json::Map<String, Value> = phases
                .iter()
                .map(|(k, v)| (k.clone(), json!((v * 1e4).round() / 10.0)))
                .collect();
            json!({
                "path": path,
                "ms": (ms * 10.0).round() / 10.0,
                "files_resolved": resolved,
                "phases_ms": phases,
            })
        })
        .collect();
    Ok(json!({
        "repo": root.display().to_string(),
        "files": live.file_count(),
        "open_ms": (open_ms * 10.0).round() / 10.0,
        "kind": if body { "body" } else { "define" },
        "edit_to_visible": timings.summary(),
        "updates_patched": patched,
        "restore_to_visible": restore.summary(),
        "garbage_collection": gc.summary(),
        "slowest_updates": slowest,
        "median_files_resolved": median(&mut resolved),
        "median_sets_written": median(&mut written),
        "phase_median_ms": phases.iter_mut().map(|(k, v)| (k.clone(), json!((median(v) * 100.0).round() / 100.0))).collect::<serde_json::Map<_, _>>(),
        "machine": crate::machine::info(),
        "commit": crate::machine::git_commit(),
    }))
}
