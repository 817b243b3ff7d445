//! Extraction alone over a directory, on one thread: files, bytes, the seconds of each timed round
//! and a digest of every file's facts, to check that a change extracts exactly the same:
//! `cargo run --release -p sextant-extract --example corpus -- DIR [ROUNDS]`. Round 1 computes
//! the digest (of the facts' `Debug` text, file by file in path order); later rounds are timed.
//! The first 50 files are extracted once beforehand, compiling their languages' queries.
//! Unlike the `sextant` binary (mimalloc for Rust and for tree-sitter's C core), this allocates
//! with libc malloc: compare its figures with each other, not with the binary's.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::hash::{Hash, Hasher};
use std::time::Instant;

fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(ft) = entry.file_type() else { continue };
        let path = entry.path();
        if ft.is_dir() {
            if entry.file_name() != ".git" && entry.file_name() != "node_modules" {
                walk(&path, out);
            }
        } else if ft.is_file() {
            out.push(path);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1).map(std::path::PathBuf::from) else {
        eprintln!("usage: corpus DIR [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let registry = sextant_lang::Registry::builtin().expect("languages load");
    let mut paths = Vec::new();
    walk(&dir, &mut paths);
    paths.sort();
    let mut files = Vec::new();
    for p in paths {
        let rel = p.strip_prefix(&dir).unwrap().to_string_lossy().to_string();
        let Some(language) = registry.for_path(&rel) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        if text.len() > 1 << 20 {
            continue;
        }
        files.push((language.clone(), rel, text));
    }
    let bytes: usize = files.iter().map(|f| f.2.len()).sum();
    // Warm up: compile queries.
    for (language, rel, text) in files.iter().take(50) {
        let _ = sextant_extract::extract(language, rel, text);
    }
    let mut digest = 0u64;
    let mut times = Vec::new();
    for round in 0..rounds {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let t = Instant::now();
        for (language, rel, text) in &files {
            let facts = sextant_extract::extract(language, rel, text);
            if round == 0 {
                format!("{facts:?}").hash(&mut h);
            } else {
                std::hint::black_box(&facts);
            }
        }
        let s = t.elapsed().as_secs_f64();
        if round == 0 {
            digest = h.finish();
        } else {
            times.push(s);
        }
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "files {} bytes {} digest {digest:016x} times {:?} min {:.3}",
        files.len(),
        bytes,
        times,
        times.first().copied().unwrap_or(0.0)
    );
}
