//! Embeds every `languages/<lang>/` folder (manifest and query files) into the binary, so built-in
//! languages load through the same code as user-added ones, without touching the file system.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../languages");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("languages/ folder")
        .filter_map(Result::ok)
        .filter(|e| e.path().join("language.toml").is_file())
        .map(|e| e.path())
        .collect();
    dirs.sort();
    let mut out = String::from(
        "/// (language folder, [(file name, contents)]) for every built-in language.\n",
    );
    out.push_str("pub(crate) static EMBEDDED: &[(&str, &[(&str, &str)])] = &[\n");
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && matches!(p.extension().and_then(|e| e.to_str()), Some("toml" | "scm"))
            })
            .collect();
        files.sort();
        write!(out, "    ({name:?}, &[").unwrap();
        for file in files {
            let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
            let abs = file.canonicalize().unwrap();
            write!(
                out,
                "({file_name:?}, include_str!({:?})), ",
                abs.display().to_string()
            )
            .unwrap();
        }
        out.push_str("]),\n");
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("embedded.rs");
    std::fs::write(dest, out).unwrap();
}
