//! Loading language folders into [`Language`]s and finding the language of a path.

use std::collections::HashMap;
use std::sync::Arc;

use sextant_model::{NodeKind, Visibility};
use tree_sitter::Query;

use crate::captures::{Capture, validate_capture};
use crate::grammar::grammar;
use crate::manifest::Manifest;

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// A language folder that could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("language {language}: {file}: {message}")]
pub struct LoadError {
    pub language: String,
    pub file: String,
    pub message: String,
}

/// A loaded language: manifest, grammar and the full query source (own + inherited).
#[derive(Debug)]
pub struct Language {
    pub manifest: Manifest,
    pub grammar: tree_sitter::Language,
    /// Query text: this folder's query files in order, then inherited languages' files.
    pub query_source: String,
    pub default_visibility: Visibility,
    pub member_default_visibility: Visibility,
    /// Member defaults by owner kind.
    pub member_defaults: Vec<(NodeKind, Visibility)>,
    pub unexported_visibility: Visibility,
    pub keyword_visibility: Vec<(String, Visibility)>,
    pub file_definition: Option<NodeKind>,
}

/// A compiled query with its capture table.
#[derive(Debug)]
pub struct CompiledQuery {
    pub query: Query,
    /// Capture index → meaning (`None` for ignored helper captures).
    pub captures: Vec<Option<Capture>>,
}

impl Language {
    /// Stable id (`python`).
    pub fn id(&self) -> &str {
        &self.manifest.id
    }

    /// Compiles the query and checks every capture name.
    pub fn compile(&self) -> Result<CompiledQuery, LoadError> {
        self.compile_source(&self.query_source)
    }

    /// Compiles other query text against this language's grammar (part of its query, say) and
    /// checks every capture name, like [`Language::compile`].
    pub fn compile_source(&self, source: &str) -> Result<CompiledQuery, LoadError> {
        let err = |message: String| LoadError {
            language: self.manifest.id.clone(),
            file: self.manifest.queries.join("+"),
            message,
        };
        let query = Query::new(&self.grammar, source).map_err(|e| {
            err(format!(
                "query does not compile at row {} column {}: {:?} {}",
                e.row + 1,
                e.column,
                e.kind,
                e.message
            ))
        })?;
        let mut captures = Vec::new();
        for name in query.capture_names() {
            captures.push(validate_capture(name).map_err(|e| err(e.to_string()))?);
        }
        Ok(CompiledQuery { query, captures })
    }
}

/// All known languages, by id and by file extension.
#[derive(Debug, Default, Clone)]
pub struct Registry {
    languages: Vec<Arc<Language>>,
    by_id: HashMap<String, usize>,
    by_extension: HashMap<String, usize>,
    by_filename: HashMap<String, usize>,
}

fn parse_visibility(language: &str, text: &str) -> Result<Visibility, LoadError> {
    Visibility::parse(text).ok_or_else(|| LoadError {
        language: language.into(),
        file: "language.toml".into(),
        message: format!(
            "unknown visibility {text:?}; allowed: {}",
            Visibility::ALL
                .iter()
                .map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}

impl Registry {
    /// The languages embedded in the binary (the repository's `languages/` folder).
    pub fn builtin() -> Result<Registry, LoadError> {
        let mut registry = Registry::default();
        registry.add_folders(EMBEDDED)?;
        Ok(registry)
    }

    /// Adds language folders given as (folder name, [(file name, contents)]). Inheritance is
    /// resolved among the given folders and the languages already loaded.
    pub fn add_folders(&mut self, folders: &[(&str, &[(&str, &str)])]) -> Result<(), LoadError> {
        let mut manifests = Vec::new();
        let mut query_files: HashMap<(String, String), String> = HashMap::new();
        for (folder, files) in folders {
            let file = |name: &str| files.iter().find(|(n, _)| *n == name).map(|(_, c)| *c);
            let text = file("language.toml").ok_or_else(|| LoadError {
                language: folder.to_string(),
                file: "language.toml".into(),
                message: "missing".into(),
            })?;
            let manifest: Manifest = toml::from_str(text).map_err(|e| LoadError {
                language: folder.to_string(),
                file: "language.toml".into(),
                message: e.to_string(),
            })?;
            for (name, text) in files.iter() {
                if name.ends_with(".scm") {
                    query_files.insert((manifest.id.clone(), name.to_string()), text.to_string());
                }
            }
            let mut own = String::new();
            for query in &manifest.queries {
                let text = file(query).ok_or_else(|| LoadError {
                    language: manifest.id.clone(),
                    file: query.clone(),
                    message: "query file listed in language.toml is missing".into(),
                })?;
                own.push_str(text);
                own.push('\n');
            }
            manifests.push((manifest, own));
        }
        let own_sources: HashMap<String, String> = manifests
            .iter()
            .map(|(m, s)| (m.id.clone(), s.clone()))
            .collect();
        for (manifest, own) in manifests {
            let mut source = own;
            for parent in &manifest.inherits {
                let one_file = parent
                    .split_once('/')
                    .and_then(|(lang, file)| query_files.get(&(lang.to_string(), file.to_string())))
                    .cloned();
                let inherited = one_file
                    .or_else(|| own_sources.get(parent).cloned())
                    .or_else(|| self.get(parent).map(|l| l.query_source.clone()))
                    .ok_or_else(|| LoadError {
                        language: manifest.id.clone(),
                        file: "language.toml".into(),
                        message: format!("inherits unknown language {parent:?}"),
                    })?;
                source.push_str(&inherited);
            }
            self.insert(manifest, source)?;
        }
        Ok(())
    }

    fn insert(&mut self, manifest: Manifest, query_source: String) -> Result<(), LoadError> {
        let id = manifest.id.clone();
        let ts = grammar(&manifest.grammar).ok_or_else(|| LoadError {
            language: id.clone(),
            file: "language.toml".into(),
            message: format!(
                "grammar {:?} is not compiled in; available: {}",
                manifest.grammar,
                crate::GRAMMARS.join(", ")
            ),
        })?;
        let vis = &manifest.visibility;
        let default_visibility = parse_visibility(&id, &vis.default)?;
        let member_default_visibility = parse_visibility(&id, &vis.member_default)?;
        let mut member_defaults = Vec::new();
        for (kind, v) in &vis.member_defaults {
            let kind = NodeKind::parse(kind).ok_or_else(|| LoadError {
                language: id.clone(),
                file: "language.toml".into(),
                message: format!("unknown node kind {kind:?} in visibility.member_defaults"),
            })?;
            member_defaults.push((kind, parse_visibility(&id, v)?));
        }
        let unexported_visibility = parse_visibility(&id, &vis.unexported)?;
        let mut keyword_visibility = Vec::new();
        for (keyword, v) in &vis.keywords {
            keyword_visibility.push((keyword.clone(), parse_visibility(&id, v)?));
        }
        let file_definition = match &manifest.file_definition {
            None => None,
            Some(kind) => Some(NodeKind::parse(kind).ok_or_else(|| LoadError {
                language: id.clone(),
                file: "language.toml".into(),
                message: format!("unknown file_definition kind {kind:?}"),
            })?),
        };
        let language = Language {
            manifest,
            grammar: ts,
            query_source,
            default_visibility,
            member_default_visibility,
            member_defaults,
            unexported_visibility,
            keyword_visibility,
            file_definition,
        };
        let index = self.languages.len();
        for ext in &language.manifest.extensions {
            self.by_extension.insert(ext.to_ascii_lowercase(), index);
        }
        for name in &language.manifest.filenames {
            self.by_filename.insert(name.clone(), index);
        }
        self.by_id.insert(id, index);
        self.languages.push(Arc::new(language));
        Ok(())
    }

    /// Every language, in load order.
    pub fn languages(&self) -> &[Arc<Language>] {
        &self.languages
    }

    /// The language with this id.
    pub fn get(&self, id: &str) -> Option<&Arc<Language>> {
        self.by_id.get(id).map(|&i| &self.languages[i])
    }

    /// The language of a file, from its name or extension.
    pub fn for_path(&self, path: &str) -> Option<&Arc<Language>> {
        let file_name = path.rsplit('/').next().unwrap_or(path);
        if let Some(&i) = self.by_filename.get(file_name) {
            return Some(&self.languages[i]);
        }
        let (stem, ext) = file_name.rsplit_once('.')?;
        if stem.is_empty() {
            return None;
        }
        self.by_extension
            .get(&ext.to_ascii_lowercase())
            .map(|&i| &self.languages[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_language_loads_and_compiles() {
        let registry = Registry::builtin().unwrap();
        assert!(
            registry.languages().len() >= 14,
            "{}",
            registry.languages().len()
        );
        for language in registry.languages() {
            language
                .compile()
                .unwrap_or_else(|e| panic!("{}: {e}", language.id()));
        }
    }

    #[test]
    fn paths_find_their_language() {
        let registry = Registry::builtin().unwrap();
        let id = |p: &str| registry.for_path(p).map(|l| l.id().to_string());
        assert_eq!(id("src/lib.rs").as_deref(), Some("rust"));
        assert_eq!(id("a/b/App.TSX").as_deref(), Some("tsx"));
        assert_eq!(id("x.py").as_deref(), Some("python"));
        assert_eq!(id("README.md").as_deref(), Some("markdown"));
        assert_eq!(id(".bashrc"), None);
        assert_eq!(id("Makefile"), None);
    }

    #[test]
    fn bad_folders_are_clear_errors() {
        let mut registry = Registry::default();
        let bad_capture = registry.add_folders(&[(
            "x",
            &[
                (
                    "language.toml",
                    "id='x'\nname='X'\ngrammar='python'\nseparator='.'\n",
                ),
                ("tags.scm", "(identifier) @gizmo"),
            ],
        )]);
        assert!(bad_capture.is_ok());
        let err = registry.get("x").unwrap().compile().unwrap_err();
        assert!(err.to_string().contains("unknown capture @gizmo"), "{err}");

        let unknown_grammar = Registry::default().add_folders(&[(
            "y",
            &[(
                "language.toml",
                "id='y'\nname='Y'\ngrammar='cobol'\nseparator='.'\nqueries=[]\n",
            )],
        )]);
        assert!(
            unknown_grammar
                .unwrap_err()
                .to_string()
                .contains("not compiled in")
        );

        let typo = Registry::default().add_folders(&[(
            "z",
            &[(
                "language.toml",
                "id='z'\nname='Z'\ngrammar='c'\nseparator='.'\nextensoins=[]\n",
            )],
        )]);
        assert!(typo.unwrap_err().to_string().contains("extensoins"));
    }
}
