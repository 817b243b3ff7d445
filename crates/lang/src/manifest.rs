//! `language.toml`: the data that makes a grammar into a Sextant language.
//!
//! Every field but the identity has a default, so a minimal manifest is short; unknown fields are
//! rejected so typos surface at load time.

use std::collections::BTreeMap;

use serde::Deserialize;

/// A rewrite of the source the parser sees, for syntax the grammar does not know. Every one
/// keeps each byte's offset (it only turns bytes into spaces or a space into `;`), so spans,
/// names and signatures still come from the file as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceShim {
    /// TypeScript 4.7 variance annotations (`interface Foo<in out A, out B = never>`): the
    /// `in`/`out` before a type parameter become spaces (tree-sitter-typescript 0.23 has no rule
    /// for them, and the declaration around them becomes an error).
    TypeParameterVariance,
    /// A type member list's signature that starts a line with type parameters (`<A>(x: A): B`)
    /// after a line ending in a type: the space before `<` becomes `;`, the separator TypeScript
    /// infers there (the grammar reads the `<` as the previous type's type arguments).
    GenericSignatureLines,
    /// C: an all-caps macro that starts a declaration line in front of its type
    /// (`LUAI_FUNC void f(...)`, `JEMALLOC_ALWAYS_INLINE arena_t *\narena_get(...)`) becomes spaces:
    /// unexpanded, the grammar reads it as the type and the real type as an error. Only before a
    /// type keyword, or before a name followed by `*` or a space and then a declarator.
    LeadingMacros,
    /// C: an all-caps macro used as a qualifier inside a declaration becomes spaces: at the start
    /// of a parameter before its type (`f(UNUSED tsdn_t *tsdn)`), or between `*` and the name
    /// (`extern hook_t *JET_MUTABLE hook;`). Same tests of what follows as `leading_macros`.
    QualifierMacros,
    /// C: a line that is only an all-caps macro at column 0 (`TEST_END`, `END_DECLS`), a
    /// statement-like macro without its `;`, becomes spaces.
    LoneMacroLines,
    /// C: the lines of an `#ifdef __cplusplus` (or `#if defined(__cplusplus)`) group, up to its
    /// `#else`, `#elif` or `#endif`, become blank: C++ only (`extern "C" {` with its brace closed
    /// in another group), dead code to a C compiler, and an error to the C grammar.
    CplusplusGroups,
}

/// How a file's module or package prefix is derived (prepended to qualified names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ModuleStyle {
    /// No prefix: names are qualified by their namespaces/scopes only (C, C++, C#, Ruby).
    #[default]
    None,
    /// Dotted package path from the topmost directory with `__init__.py` (`pkg.sub.mod`).
    Python,
    /// Crate name (directory of the nearest `Cargo.toml`) + module path under `src/`.
    Rust,
    /// The package directory, relative to the repository (`internal/store`).
    Go,
    /// The path without extension; `index` files name their directory (`src/util/fmt`).
    Path,
    /// The file's `@package.name` declaration (Java, Kotlin, PHP).
    Declared,
    /// The file path itself (Markdown documents).
    Document,
}

/// Rules that adjust definition kinds from context.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DefinitionRules {
    /// A `function` whose parent is a type (class, struct, trait, ...) becomes a `method`.
    pub methods_inside_types: bool,
    /// Method names that are constructors (`__init__`, `constructor`, `initialize`).
    pub constructor_names: Vec<String>,
    /// A `variable` whose parent is a type becomes a `field`.
    pub fields_inside_types: bool,
    /// A `variable` written in upper case (`MAX_SIZE`) becomes a `constant`.
    pub upper_case_constants: bool,
}

impl Default for DefinitionRules {
    fn default() -> Self {
        DefinitionRules {
            methods_inside_types: true,
            constructor_names: Vec::new(),
            fields_inside_types: true,
            upper_case_constants: false,
        }
    }
}

/// Where documentation comes from.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct DocRules {
    /// Node kinds that are comments.
    pub comment_kinds: Vec<String>,
    /// If non-empty, only comments starting with one of these count as docs (`///`, `/**`).
    pub prefixes: Vec<String>,
    /// Node kinds allowed between a doc comment and its definition (attributes, decorators).
    pub skip_kinds: Vec<String>,
    /// Node kinds that wrap a definition and own its leading comments (`export_statement`,
    /// `decorated_definition`, `template_declaration`).
    pub wrapper_kinds: Vec<String>,
    /// A string literal as the first statement of the body is the docstring (Python).
    pub docstring: bool,
    /// Node kinds whose first child is documented by the comments written before them (Ruby's
    /// `body_statement`: a comment between `class Foo` and its first member is a child of the
    /// class, before the body, not a sibling of the member).
    pub first_child_of: Vec<String>,
}

/// How visibility is decided.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VisibilityRules {
    /// For top-level definitions when nothing in the source says otherwise.
    pub default: String,
    /// For members of types when nothing in the source says otherwise.
    pub member_default: String,
    /// Member defaults by the owner's kind (C++: `class` members are private, `struct` public).
    pub member_defaults: BTreeMap<String, String>,
    /// Keyword text → visibility (`pub` → `public`, `pub(crate)` → `crate`).
    pub keywords: BTreeMap<String, String>,
    /// Node kinds whose whole text is looked up in `keywords` (Rust `visibility_modifier`).
    pub keyword_kinds: Vec<String>,
    /// Child node kinds whose children are searched for keywords (`modifiers`).
    pub modifier_containers: Vec<String>,
    /// Wrapper kinds that export a top-level definition (`export_statement`) → `public`.
    pub export_wrappers: Vec<String>,
    /// The visibility of a top-level definition with no export wrapper, when `export_wrappers` is set.
    pub unexported: String,
    /// Preceding sibling kinds that set the visibility of the following members (C++ `public:`).
    pub access_label_kinds: Vec<String>,
    /// Naming convention: `underscore` (`_x` private) or `capitalized` (Go: upper case exported).
    pub convention: String,
}

impl Default for VisibilityRules {
    fn default() -> Self {
        VisibilityRules {
            default: "public".into(),
            member_default: "public".into(),
            member_defaults: BTreeMap::new(),
            keywords: BTreeMap::new(),
            keyword_kinds: Vec::new(),
            modifier_containers: Vec::new(),
            export_wrappers: Vec::new(),
            unexported: "module".into(),
            access_label_kinds: Vec::new(),
            convention: String::new(),
        }
    }
}

/// Which modifiers are recorded.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ModifierRules {
    /// Keyword tokens recorded as modifiers when they are children of the definition
    /// (or of one of `containers`): `static`, `async`, `abstract`, ...
    pub keywords: Vec<String>,
    /// Child node kinds searched too (`modifiers`, `declaration_modifiers`).
    pub containers: Vec<String>,
    /// Child node kinds recorded as `@<text>` decorators/annotations (`decorator`, `annotation`).
    pub decorator_kinds: Vec<String>,
}

/// What counts for cyclomatic complexity.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ComplexityRules {
    /// Node kinds that add a branch (`if_statement`, `for_statement`, `catch_clause`, `case`...).
    pub nodes: Vec<String>,
    /// Operator tokens that add a branch (`&&`, `||`, `and`, `or`, `??`).
    pub operators: Vec<String>,
}

/// How imports are read and resolved.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ImportRules {
    /// Separator inside module paths as written (`.`, `::`, `/`, `\`).
    pub path_separator: String,
    /// The style of `@import.tree` captures (`rust`).
    pub tree_style: String,
    /// Quote characters stripped from `@import.source` (`"'` for JS, Go, C includes).
    pub strip: String,
    /// Receivers that mean "this object" (`self`, `this`, `cls`).
    pub self_names: Vec<String>,
    /// Receivers that mean "the parent class" (`super`).
    pub super_names: Vec<String>,
    /// File extensions tried when resolving a relative import to a file (`ts`, `tsx`, `js`).
    pub extensions: Vec<String>,
    /// File stems that stand for their directory (`index`, `__init__`, `mod`).
    pub index_files: Vec<String>,
    /// What an import with neither name nor alias binds: `first` segment of the path (Python
    /// `import a.b` binds `a`), `last` segment (Go, Java, Rust), or `none` (JS side-effect imports,
    /// C includes, Ruby requires).
    pub binds: String,
    /// Unqualified names inside a method see the members of its type (Java, C#, C++, Ruby).
    pub implicit_self: bool,
    /// Methods and variables live in separate namespaces (Java, C#): a local variable never
    /// shadows a called name.
    pub separate_call_names: bool,
}

/// Names the language provides without any definition in the repository.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct BuiltinRules {
    /// Plain names (`len`, `print`, `setTimeout`): a reference to one that no scope, import or
    /// file defines is external, never a guess at a same-named definition elsewhere.
    pub names: Vec<String>,
    /// Member names of built-in types (`append`, `setdefault`, `push`, `forEach`): on a receiver
    /// whose type is unknown they are external rather than a unique same-named member.
    pub members: Vec<String>,
}

/// A parsed `language.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Stable language id (`python`, `typescript`, `tsx`).
    pub id: String,
    /// Human name.
    pub name: String,
    /// Compiled-in grammar name.
    pub grammar: String,
    /// File extensions, without the dot.
    #[serde(default)]
    pub extensions: Vec<String>,
    /// Exact file names (`Rakefile`).
    #[serde(default)]
    pub filenames: Vec<String>,
    /// Query files of this folder, run in order (first match of a node wins).
    #[serde(default = "default_queries")]
    pub queries: Vec<String>,
    /// Languages whose queries are appended after ours: `javascript` (all its query files) or
    /// `javascript/tags.scm` (one file). TypeScript inherits JavaScript's tags.scm.
    #[serde(default)]
    pub inherits: Vec<String>,
    /// Separator between qualified-name segments.
    pub separator: String,
    #[serde(default)]
    pub module: ModuleStyle,
    /// A node kind emitted for the whole file (`document` for Markdown).
    #[serde(default)]
    pub file_definition: Option<String>,
    /// Rewrites of the source before it is parsed (see [`SourceShim`]).
    #[serde(default)]
    pub shims: Vec<SourceShim>,
    /// Maximum bracket nesting before a file is skipped as too deep.
    #[serde(default = "default_max_depth")]
    pub max_nesting: u32,
    #[serde(default)]
    pub definitions: DefinitionRules,
    #[serde(default)]
    pub doc: DocRules,
    #[serde(default)]
    pub visibility: VisibilityRules,
    #[serde(default)]
    pub modifiers: ModifierRules,
    #[serde(default)]
    pub complexity: ComplexityRules,
    #[serde(default)]
    pub imports: ImportRules,
    #[serde(default)]
    pub builtins: BuiltinRules,
}

fn default_queries() -> Vec<String> {
    vec!["tags.scm".into()]
}

fn default_max_depth() -> u32 {
    2_000
}
