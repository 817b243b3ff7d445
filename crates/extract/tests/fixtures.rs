//! One generic test: every language folder loads (read from disk through the same loader as the
//! embedded ones, so query edits need no rebuild), and every fixture under
//! `languages/<lang>/fixtures/` is extracted and compared with its snapshot in
//! `languages/<lang>/snapshots/`. Update snapshots with
//! `INSTA_UPDATE=always cargo test -p sextant-extract --test fixtures`; check one language with
//! `SEXTANT_LANG=go`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sextant_lang::Registry;
use sextant_model::FileFacts;

mod support;

fn render(facts: &FileFacts) -> String {
    let mut out = String::new();
    if let Some(p) = &facts.package {
        writeln!(out, "package {p}").unwrap();
    }
    writeln!(out, "lines {}", facts.line_count).unwrap();
    for d in &facts.diagnostics {
        writeln!(
            out,
            "diagnostic {} line {}: {}",
            d.kind.as_str(),
            d.line,
            d.message
        )
        .unwrap();
    }
    for (i, d) in facts.definitions.iter().enumerate() {
        let depth = {
            let mut n = 0;
            let mut p = d.parent;
            while let Some(x) = p {
                n += 1;
                p = facts.definitions[x as usize].parent;
            }
            n
        };
        let indent = "  ".repeat(depth);
        write!(
            out,
            "{indent}def#{i} {} {} [{}] L{}-{} {}",
            d.kind,
            d.name,
            d.scope_path.join(" / "),
            d.span.start_line,
            d.span.end_line,
            d.visibility
        )
        .unwrap();
        if !d.modifiers.is_empty() {
            write!(out, " mods={}", d.modifiers.join(",")).unwrap();
        }
        if let Some(c) = d.complexity {
            write!(out, " cc={c}").unwrap();
        }
        writeln!(out).unwrap();
        writeln!(out, "{indent}    sig: {}", d.signature).unwrap();
        if let Some(t) = &d.type_text {
            writeln!(out, "{indent}    type: {t}").unwrap();
        }
        if let Some(doc) = &d.doc {
            writeln!(out, "{indent}    doc: {}", doc.replace('\n', " ⏎ ")).unwrap();
        }
    }
    for r in &facts.references {
        write!(out, "ref {} {}", r.kind.as_str(), r.name).unwrap();
        if let Some(recv) = &r.receiver {
            write!(out, " recv={recv}").unwrap();
        }
        if let Some(imp) = &r.implementor {
            write!(out, " for={imp}").unwrap();
        }
        let within = r
            .enclosing
            .map(|e| facts.definitions[e as usize].scope_path.join("/"))
            .unwrap_or_else(|| "<file>".into());
        writeln!(
            out,
            " in={within} L{}:{}",
            r.span.start_line, r.span.start_col
        )
        .unwrap();
    }
    for i in &facts.imports {
        write!(out, "import source={:?}", i.source).unwrap();
        if let Some(n) = &i.name {
            write!(out, " name={n}").unwrap();
        }
        if let Some(a) = &i.alias {
            write!(out, " alias={a}").unwrap();
        }
        if i.wildcard {
            write!(out, " wildcard").unwrap();
        }
        writeln!(out, " L{}", i.span.start_line).unwrap();
    }
    for b in &facts.bindings {
        write!(out, "bind {}", b.name).unwrap();
        if let Some(t) = &b.type_text {
            write!(out, " : {t}").unwrap();
        }
        if let Some(v) = &b.value {
            write!(out, " = {v}(..)").unwrap();
        }
        let within = b
            .enclosing
            .map(|e| facts.definitions[e as usize].scope_path.join("/"))
            .unwrap_or_else(|| "<file>".into());
        writeln!(out, " in={within} L{}", b.line).unwrap();
    }
    out
}

fn languages_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../languages")
}

/// Loads every `languages/<id>/` folder from disk (and parses in arenas, as the binary does).
fn registry_from_disk() -> Registry {
    support::install();
    let mut folders: Vec<(String, Vec<(String, String)>)> = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(languages_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("language.toml").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if path.is_file() && (ext == "toml" || ext == "scm") {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                files.push((name, std::fs::read_to_string(&path).unwrap()));
            }
        }
        folders.push((
            dir.file_name().unwrap().to_string_lossy().into_owned(),
            files,
        ));
    }
    let borrowed: Vec<(&str, Vec<(&str, &str)>)> = folders
        .iter()
        .map(|(n, fs)| {
            (
                n.as_str(),
                fs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect(),
            )
        })
        .collect();
    let refs: Vec<(&str, &[(&str, &str)])> =
        borrowed.iter().map(|(n, fs)| (*n, fs.as_slice())).collect();
    let mut registry = Registry::default();
    registry.add_folders(&refs).unwrap();
    registry
}

#[test]
fn every_language_fixture_matches_its_snapshot() {
    let registry = registry_from_disk();
    let only = std::env::var("SEXTANT_LANG").ok();
    let mut checked = 0;
    for language in registry.languages() {
        if only.as_deref().is_some_and(|o| o != language.id()) {
            continue;
        }
        if let Err(e) = language.compile() {
            panic!("{e}");
        }
        let folder = languages_dir().join(language.id());
        let fixtures = folder.join("fixtures");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&fixtures)
            .unwrap_or_else(|e| panic!("{}: no fixtures folder: {e}", language.id()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{} has no fixtures", language.id());
        for file in files {
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&file).unwrap();
            let facts = sextant_extract::extract(language, &format!("fixtures/{name}"), &text);
            assert!(
                facts.diagnostics.is_empty() || name.contains("broken"),
                "{}/{name}: {:?}",
                language.id(),
                facts.diagnostics
            );
            let mut settings = insta::Settings::clone_current();
            settings.set_snapshot_path(folder.join("snapshots"));
            settings.set_prepend_module_to_snapshot(false);
            settings.set_omit_expression(true);
            settings.bind(|| insta::assert_snapshot!(name.clone(), render(&facts)));
            checked += 1;
        }
    }
    assert!(checked >= 1);
}

/// Every language's query runs on Sextant's own query executor (`matcher.rs`): none falls back
/// to tree-sitter's cursor without this test saying so.
#[test]
fn every_query_runs_on_the_own_executor() {
    let registry = registry_from_disk();
    for language in registry.languages() {
        assert_eq!(
            sextant_extract::own_executor_error(language),
            None,
            "{}",
            language.id()
        );
    }
}

/// Extraction (the query on Sextant's own executor, branch nodes counted in the same walk; see
/// the extractor's `matcher.rs`) gives exactly what tree-sitter's query cursor running the
/// language's whole query does: every fixture, and truncated copies of each (broken code, error
/// recovery). `examples/matchers.rs` does the same on whole corpora.
#[test]
fn every_fixture_extracts_as_with_the_whole_query() {
    let registry = registry_from_disk();
    let mut checked = 0;
    for language in registry.languages() {
        let Ok(entries) = std::fs::read_dir(languages_dir().join(language.id()).join("fixtures"))
        else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            for cut in (1..=8).map(|k| text.len() * k / 8) {
                let Some(text) = text.get(..cut) else {
                    continue;
                };
                assert_eq!(
                    sextant_extract::extract(language, &name, text),
                    sextant_extract::extract_reference(language, &name, text),
                    "{}/{name} cut at byte {cut}",
                    language.id()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

/// The query executor's walk over a tree (`flatten.c`, which reads tree-sitter's subtrees)
/// lists exactly what tree-sitter's cursor visits (kinds, fields, depths, links, ranges), on every
/// fixture, truncated copies and damaged copies of each (error recovery, missing nodes),
/// punctuation left out and kept; and the parents it answers are tree-sitter's.
#[test]
fn the_executor_walk_lists_what_the_cursor_visits() {
    let registry = registry_from_disk();
    let (mut files, mut nodes, mut broken) = (0, 0, 0);
    for language in registry.languages() {
        let Ok(entries) = std::fs::read_dir(languages_dir().join(language.id()).join("fixtures"))
        else {
            continue;
        };
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language.grammar).unwrap();
        let all = vec![true; language.grammar.node_kind_count() + 1];
        for entry in entries {
            let path = entry.unwrap().path();
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            // Truncated copies, and copies with characters dropped here and there (a
            // deterministic ~1 in 37, 1 in 11): error recovery, missing nodes, extras in odd
            // places.
            let damaged = |every: usize| -> String {
                text.chars()
                    .enumerate()
                    .filter(|(i, _)| (i.wrapping_mul(2_654_435_761) >> 7) % every != 0)
                    .map(|(_, c)| c)
                    .collect()
            };
            let mut variants: Vec<(String, String)> = (1..=8)
                .map(|k| text.len() * k / 8)
                .filter_map(|cut| Some((format!("cut at {cut}"), text.get(..cut)?.to_string())))
                .collect();
            variants.push(("damaged 1/37".into(), damaged(37)));
            variants.push(("damaged 1/11".into(), damaged(11)));
            for (cut, text) in &variants {
                let tree = parser.parse(text, None).unwrap();
                broken += usize::from(tree.root_node().has_error());
                for keep in [&[][..], &all[..]] {
                    let (walked, visited) = sextant_extract::flat_nodes(&tree, keep);
                    assert_eq!(walked, visited, "{} {cut}", path.display());
                    nodes += walked.len();
                }
                // Parents answered from the flat tree are tree-sitter's, for listed nodes and
                // left-out punctuation alike.
                let (checked, wrong) = sextant_extract::flat_parent_mismatches(&tree);
                assert!(wrong.is_empty(), "{} {cut}: {wrong:?}", path.display());
                assert!(checked > 0);
                files += 1;
            }
        }
    }
    assert!(
        files > 100 && nodes > 20_000 && broken > 50,
        "{files} files ({broken} with syntax errors), {nodes} nodes"
    );
}

/// A file parsed ahead of its language's queries ([`sextant_extract::parse_ahead`], what a cold
/// index does while queries compile) extracts exactly as [`sextant_extract::extract`]: every
/// fixture, truncated copies of each, and a file nested too deep to parse.
#[test]
fn parsing_ahead_extracts_as_extract() {
    let registry = registry_from_disk();
    let mut checked = 0;
    for language in registry.languages() {
        let Ok(entries) = std::fs::read_dir(languages_dir().join(language.id()).join("fixtures"))
        else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            for cut in (1..=4).map(|k| text.len() * k / 4) {
                let Some(text) = text.get(..cut) else {
                    continue;
                };
                let parsed = sextant_extract::parse_ahead(language, text);
                assert_eq!(
                    sextant_extract::extract_parsed(language, &name, text, parsed),
                    sextant_extract::extract(language, &name, text),
                    "{}/{name} cut at byte {cut}",
                    language.id()
                );
                checked += 1;
            }
        }
        let deep = "(".repeat(language.manifest.max_nesting as usize + 1);
        let parsed = sextant_extract::parse_ahead(language, &deep);
        let facts = sextant_extract::extract_parsed(language, "deep", &deep, parsed);
        assert_eq!(facts, sextant_extract::extract(language, "deep", &deep));
        assert_eq!(facts.diagnostics.len(), 1, "{}", language.id());
    }
    assert!(checked > 80, "{checked}");
}

/// Ruby writes the comment before a class's first member as a child of the class, before its
/// body (`first_child_of` in its language.toml): every line of it documents that member, as for
/// any other member, and a member that is not first keeps its own comment.
#[test]
fn ruby_comments_before_a_first_member_document_it() {
    let registry = registry_from_disk();
    let ruby = registry.get("ruby").unwrap();
    let text = "class Shop\n  # Finds a shop.\n  # Raises when missing.\n  def self.find(id)\n  end\n\n  # Closes it.\n  def close\n  end\nend\n\nmodule Util\n  # Alone.\n  private def helper\n  end\nend\n";
    let facts = sextant_extract::extract(ruby, "shop.rb", text);
    let doc = |name: &str| {
        facts
            .definitions
            .iter()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("{name} not extracted"))
            .doc
            .clone()
    };
    assert_eq!(
        doc("find").as_deref(),
        Some("Finds a shop.\nRaises when missing.")
    );
    assert_eq!(doc("close").as_deref(), Some("Closes it."));
    assert_eq!(doc("helper").as_deref(), Some("Alone."));
    assert_eq!(doc("Shop"), None);
}

/// A type reference to a type parameter in scope is the parameter, not a symbol: it is dropped.
/// The same name outside the parameter's scope is still a reference (to the global `T`).
#[test]
fn type_parameters_in_scope_are_not_references() {
    let registry = registry_from_disk();
    let cases: &[(&str, &str, &str, &[&str])] = &[
        (
            "typescript",
            "a.ts",
            "type T = number\nfunction f<T>(x: T): T { return x }\nlet y: T = 1\n\
             type M<A> = { [K in keyof A]: A[K] extends Array<infer U> ? U : K }\n\
             class C<E> { m(e: E): E { return e } }\nlet z: E\n\
             type P<X> = X extends Promise<readonly [infer V]> ? V : Missing\n",
            &["T@3", "Array@4", "E@6", "Promise@7", "Missing@7"],
        ),
        (
            "rust",
            "a.rs",
            "struct T;\nfn f<T: Clone>(x: T) -> T { x }\nfn g(x: T) {}\n\
             impl<U> Wrap<U> { fn h(&self) -> U { todo!() } }\n",
            &["Clone@2", "T@3", "Wrap@4"],
        ),
        (
            "go",
            "a.go",
            "package p\ntype T int\nfunc F[T any](x T) T { return x }\nfunc G(x T) {}\n\
             func (l *List[E]) Push(v E) {}\nfunc H(e E) {}\n",
            &["T@4", "List@5", "E@6"],
        ),
        (
            "java",
            "A.java",
            "class T {}\nclass Box<T> { T get() { return null; } }\nclass Use { T t; }\n",
            &["T@3"],
        ),
        (
            "csharp",
            "A.cs",
            "class T {}\nclass Box<T> { T Get() => default; }\nclass Use { T t; }\n",
            &["T@3"],
        ),
        (
            "kotlin",
            "A.kt",
            "class T\nclass Box<T>(val x: T)\nfun use(t: T) {}\n",
            &["T@3"],
        ),
        (
            "cpp",
            "a.cpp",
            "struct T {};\ntemplate <typename T> T id(T x) { return x; }\nT make();\n",
            &["T@3"],
        ),
        (
            "python",
            "a.py",
            "class T: pass\ndef f[T](x: T) -> T: return x\ndef g(x: T) -> None: pass\n",
            &["T@3"],
        ),
    ];
    for (id, path, text, expected) in cases {
        let language = registry.get(id).unwrap();
        let facts = sextant_extract::extract(language, path, text);
        let got: Vec<String> = facts
            .references
            .iter()
            .filter(|r| r.kind == sextant_model::RefKind::Type)
            .map(|r| format!("{}@{}", r.name, r.span.start_line))
            .collect();
        assert_eq!(&got, expected, "{id}: {text}");
    }
}

/// In JavaScript and TypeScript a parameter or `const` is local to the function, block, loop or
/// catch around it (`@local.scope` in its query), even where the enclosing definition is a constant
/// (an arrow function passed to a call): plain reads and calls of it there are dropped. The same
/// name outside that scope, and a nested definition of the name, are still references.
#[test]
fn locals_of_arrow_functions_and_blocks_are_not_references() {
    let registry = registry_from_disk();
    let ts = "export const map = dual(2, (self: Effect, f) => {\n\
              \x20 const inner = (x: number) => x + 1\n\
              \x20 const y = self\n\
              \x20 for (const item of items) { use(item) }\n\
              \x20 try { run() } catch (err) { report(err) }\n\
              \x20 return pipe(self, inner, y, f)\n\
              })\n\
              function g(a) {\n\
              \x20 const helper = () => a\n\
              \x20 function nested() { return 1 }\n\
              \x20 const again = nested\n\
              \x20 return helper() + nested() + again\n\
              }\n\
              log(self, y, err)\n\
              export const k = wrap((h) => {\n\
              \x20 function h() { return 2 }\n\
              \x20 return h()\n\
              })\n";
    let js = ts.replace("self: Effect", "self").replace("x: number", "x");
    for (id, path, text) in [
        ("typescript", "a.ts", ts),
        ("javascript", "a.js", js.as_str()),
    ] {
        let language = registry.get(id).unwrap();
        let facts = sextant_extract::extract(language, path, text);
        let got: Vec<String> = facts
            .references
            .iter()
            .filter(|r| {
                matches!(
                    r.kind,
                    sextant_model::RefKind::Read | sextant_model::RefKind::Call
                )
            })
            .map(|r| format!("{}@{}", r.name, r.span.start_line))
            .collect();
        assert_eq!(
            got,
            [
                "dual@1",
                "items@4",
                "use@4",
                "run@5",
                "report@5",
                "pipe@6",
                "nested@11",
                "nested@12",
                "log@14",
                "self@14",
                "y@14",
                "err@14",
                "wrap@15",
                "h@17"
            ],
            "{id}"
        );
    }
}

/// TypeScript that tree-sitter-typescript 0.23 cannot parse as written (variance annotations,
/// a type member list's generic signatures on consecutive lines) parses through the language's
/// shims without errors, and what is extracted still reads the file as written.
#[test]
fn typescript_shims_parse_variance_and_generic_signature_lines() {
    let registry = registry_from_disk();
    let ts = registry.get("typescript").unwrap();
    let text = "export interface Pool<in out A, out E = never> extends Base<A> {\n\
                \x20 get(): Effect<A, E>\n\
                }\n\
                export const invalidate: {\n\
                \x20 /** Curried. */\n\
                \x20 <A>(item: A): <E>(self: Pool<A, E>) => Effect<void>\n\
                \x20 <A, E>(self: Pool<A, E>, item: A): Effect<void>\n\
                } = dual(2, <A, E>(self: Pool<A, E>, item: A): Effect<void> => self.invalidate(item))\n\
                export class Impl<out A> implements Pool<A> {\n\
                \x20 m(): A { return make() }\n\
                }\n";
    let facts = sextant_extract::extract(ts, "pool.ts", text);
    assert!(
        facts
            .diagnostics
            .iter()
            .all(|d| d.kind == sextant_model::DiagnosticKind::Unsupported),
        "{:?}",
        facts.diagnostics
    );
    let defs: Vec<&str> = facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(defs, ["Pool", "get", "invalidate", "Impl", "m"]);
    let pool = &facts.definitions[0];
    assert!(
        pool.signature.contains("<in out A, out E = never>"),
        "{}",
        pool.signature
    );
    let refs: Vec<String> = facts
        .references
        .iter()
        .map(|r| format!("{} {}", r.kind.as_str(), r.name))
        .collect();
    for expected in ["inherit Base", "implement Pool", "call dual", "call make"] {
        assert!(refs.iter().any(|r| r == expected), "{expected} in {refs:?}");
    }
    assert!(
        !refs.iter().any(|r| r == "type A" || r == "type E"),
        "{refs:?}"
    );
}

/// C the parser cannot read without a preprocessor (a macro in front of a declaration's type, one
/// used as a qualifier, one alone on a line, `extern "C" {` in `#ifdef __cplusplus` groups) parses through the C shims
/// without errors, and no definition is named after a type.
#[test]
fn c_shims_parse_declaration_macros() {
    let registry = registry_from_disk();
    let c = registry.get("c").unwrap();
    let text = "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\
                LUAI_FUNC void luaX_init (lua_State *L) {\n  setup(L);\n}\n\
                LUA_API lua_State *(lua_newstate) (lua_Alloc f, void *ud);\n\
                extern hook_t *JET_MUTABLE hook;\n\
                static void helper(UNUSED tsdn_t *tsdn) {\n}\n\
                TEST_BEGIN(test_basic) {\n  check(1);\n}\nTEST_END\n\n\
                int\nmain(void) {\n  return run(test_basic);\n}\n\
                #ifdef __cplusplus\n}\n#endif\n";
    let facts = sextant_extract::extract(c, "t.c", text);
    assert!(
        facts
            .diagnostics
            .iter()
            .all(|d| d.kind == sextant_model::DiagnosticKind::Unsupported),
        "{:?}",
        facts.diagnostics
    );
    let defs: Vec<&str> = facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(defs, ["luaX_init", "hook", "helper", "main"]);
    // The macro is not part of the tree: the signature starts at the type.
    assert_eq!(
        facts.definitions[0].signature,
        "void luaX_init (lua_State *L)"
    );
}
