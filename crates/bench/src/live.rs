//! `sextant-bench live`: edit → visible latency of the live index (issue 5). Opens the live
//! index of an indexed repository, then for each of N files (picked deterministically among the
//! indexed ones) appends a small function, calls `LiveIndex::update` with that path and times it
//! until the new generation is published (a query sees it from then on), then restores the file
//! and updates again (timed too). Reports p50/p95/max over all updates and the phases.

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

pub fn run(repo: &Path, edits: usize) -> Result<Value> {
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
    let mut phases: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    let mut resolved = Vec::new();
    let mut written = Vec::new();
    for (i, path) in paths.iter().step_by(step).take(edits).enumerate() {
        let abs = root.join(path);
        let original = std::fs::read_to_string(&abs).with_context(|| path.clone())?;
        let Some(edited) = edit(path, &original, i) else {
            continue;
        };
        std::fs::write(&abs, &edited)?;
        let t = Instant::now();
        let u = live.update(&[PathBuf::from(path)]);
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        std::fs::write(&abs, &original)?;
        let u = u?;
        timings.push(path, ms);
        resolved.push(u.files_resolved as f64);
        written.push(u.sets_written as f64);
        for (name, s) in &u.phases {
            phases.entry(name.clone()).or_default().push(s * 1000.0);
        }
        let t = Instant::now();
        live.update(&[PathBuf::from(path)])?;
        restore.push(path, t.elapsed().as_secs_f64() * 1000.0);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        crate::stats::percentile(v, 50.0)
    };
    Ok(json!({
        "repo": root.display().to_string(),
        "files": live.file_count(),
        "open_ms": (open_ms * 10.0).round() / 10.0,
        "edit_to_visible": timings.summary(),
        "restore_to_visible": restore.summary(),
        "median_files_resolved": median(&mut resolved),
        "median_sets_written": median(&mut written),
        "phase_median_ms": phases.iter_mut().map(|(k, v)| (k.clone(), json!((median(v) * 100.0).round() / 100.0))).collect::<serde_json::Map<_, _>>(),
        "machine": crate::machine::info(),
        "commit": crate::machine::git_commit(),
    }))
}
