//! Sextant's own query executor against tree-sitter's on real files:
//! `cargo run --release -p sextant-extract --example matchers -- DIR [LANG...]`. For every file
//! of the languages (all by default) under DIR, extracts with both and compares the facts;
//! prints per language the files, the files whose facts differ (the first few named), and the
//! time each extraction took (parse included, one thread). Exits with 1 when a file differs or
//! a language's query cannot run on the own executor (`.ci/run` runs it on real packages).

#![allow(clippy::print_stdout, clippy::print_stderr)]
use std::time::{Duration, Instant};

fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(ft) = entry.file_type() else { continue };
        let path = entry.path();
        if ft.is_dir() {
            walk(&path, out);
        } else if ft.is_file() {
            out.push(path);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1) else {
        eprintln!("usage: matchers DIR [LANG...]");
        std::process::exit(2);
    };
    let only: Vec<&str> = args[2..].iter().map(String::as_str).collect();
    let registry = sextant_lang::Registry::builtin().expect("languages load");
    let mut failed = false;
    for language in registry.languages() {
        if let Some(e) = sextant_extract::own_executor_error(language) {
            println!("{}: not on the own executor: {e}", language.id());
            failed = true;
        }
    }
    let mut paths = Vec::new();
    walk(std::path::Path::new(dir), &mut paths);
    paths.sort();
    // language -> (files, differing, own time, tree-sitter time)
    let mut stats: std::collections::BTreeMap<String, (usize, usize, Duration, Duration)> =
        Default::default();
    for path in paths {
        let rel = path.to_string_lossy().to_string();
        let Some(language) = registry.for_path(&rel) else {
            continue;
        };
        if !only.is_empty() && !only.contains(&language.id()) {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap_or_default();
        if bytes.len() > 1 << 20 {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let t = Instant::now();
        let own = sextant_extract::extract(language, &rel, &text);
        let t_own = t.elapsed();
        let t = Instant::now();
        let reference = sextant_extract::extract_reference(language, &rel, &text);
        let t_ref = t.elapsed();
        if t_own.as_secs_f64() > 0.2 {
            println!(
                "slow: {rel} own {:.3}s tree-sitter {:.3}s",
                t_own.as_secs_f64(),
                t_ref.as_secs_f64()
            );
        }
        let s = stats.entry(language.id().to_string()).or_default();
        s.0 += 1;
        s.2 += t_own;
        s.3 += t_ref;
        if own != reference {
            failed = true;
            s.1 += 1;
            if s.1 <= 3 {
                println!("differs: {rel}");
                let (a, b) = (format!("{own:#?}"), format!("{reference:#?}"));
                let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
                let first = la.iter().zip(&lb).position(|(x, y)| x != y).unwrap_or(0);
                for k in first.saturating_sub(8)..(first + 12).min(la.len().max(lb.len())) {
                    println!(
                        "  own {:<70} | ts {}",
                        la.get(k).unwrap_or(&""),
                        lb.get(k).unwrap_or(&"")
                    );
                }
            }
        }
    }
    for (lang, (files, differ, own, ts)) in stats {
        println!(
            "{lang}: files {files} differ {differ} own {:.3}s tree-sitter {:.3}s",
            own.as_secs_f64(),
            ts.as_secs_f64()
        );
    }
    if failed {
        std::process::exit(1);
    }
}
