//! Compiles `src/flatten.c`, the tree walker of the query executor, against the sources of the
//! tree-sitter crate this build links (its internal headers: subtrees, languages, trees).

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=src/flatten.c");
    // tree-sitter's build script exports its public include folder (`links = "tree-sitter"`); its
    // internal headers are in the `src` folder beside it.
    let include = PathBuf::from(
        std::env::var("DEP_TREE_SITTER_INCLUDE").expect("tree-sitter exports its include folder"),
    );
    let src = include.join("../src");
    cc::Build::new()
        .std("c11")
        .include(&src)
        .include(&include)
        .define("_POSIX_C_SOURCE", "200112L")
        .define("_DEFAULT_SOURCE", None)
        .flag_if_supported("-fvisibility=hidden")
        .warnings(true)
        .file("src/flatten.c")
        .compile("sextant-flatten");
}
