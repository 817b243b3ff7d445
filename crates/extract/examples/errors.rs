//! Which files of a language parse with errors, and where, as `sextant index` sees them (shims
//! included): `cargo run --release -p sextant-extract --example errors -- DIR LANG`.

#![allow(clippy::print_stdout, clippy::print_stderr)]

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
    let [_, dir, lang_id] = args.as_slice() else {
        eprintln!("usage: errors DIR LANG");
        std::process::exit(2);
    };
    let registry = sextant_lang::Registry::builtin().expect("languages load");
    let Some(language) = registry.get(lang_id) else {
        eprintln!("unknown language {lang_id}");
        std::process::exit(2);
    };
    let mut paths = Vec::new();
    walk(std::path::Path::new(dir), &mut paths);
    paths.sort();
    let (mut files, mut bad) = (0, 0);
    for path in paths {
        let rel = path.to_string_lossy().to_string();
        if registry.for_path(&rel).map(|l| l.manifest.id.as_str()) != Some(lang_id.as_str()) {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
        let facts = sextant_extract::extract(language, &rel, &text);
        files += 1;
        if let Some(d) = facts.diagnostics.iter().find(|d| {
            !matches!(
                d.kind,
                sextant_model::DiagnosticKind::Unsupported
                    | sextant_model::DiagnosticKind::QueryLimit
            )
        }) {
            bad += 1;
            let line = text
                .lines()
                .nth(d.line.saturating_sub(1) as usize)
                .unwrap_or("");
            println!("{rel}:{} {} | {}", d.line, d.message, line.trim());
        }
    }
    eprintln!("{bad} of {files} files have syntax errors");
}
