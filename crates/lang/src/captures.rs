//! Sextant's capture vocabulary. Query files may only use these names (or names starting with `_`,
//! which are helpers for predicates and ignored); anything else is a load error naming the allowed set.

use sextant_model::{NodeKind, RefKind};

/// A recognised capture name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    /// `@definition.<node kind>`: the whole definition node.
    Definition(NodeKind),
    /// `@reference.<ref kind>`: the whole reference node.
    Reference(RefKind),
    /// `@name`: the name of the definition or reference in the same match.
    Name,
    /// `@receiver`: the receiver or qualifier of a call or reference (`self.store` in `self.store.get()`).
    Receiver,
    /// `@implementor`: the implementing type of an `impl Trait for Type` clause.
    Implementor,
    /// `@owner`: the owner type written on an out-of-line definition (`func (s *T) m()`, `void T::m()`).
    Owner,
    /// `@doc`: a docstring node belonging to the definition in the same match.
    Doc,
    /// `@body`: the body of the definition; the signature is the text before it.
    Body,
    /// `@scope`: a named container that is not a definition (Rust `impl T { }`).
    Scope,
    /// `@scope.name`: the name segment a `@scope` contributes.
    ScopeName,
    /// `@import`: a whole import statement (or one binding of it).
    Import,
    /// `@import.source`: the module path.
    ImportSource,
    /// `@import.name`: one imported name.
    ImportName,
    /// `@import.alias`: the alias of the imported name or module.
    ImportAlias,
    /// `@import.wildcard`: marks a glob import (`*`).
    ImportWildcard,
    /// `@import.tree`: a nested import tree (Rust `use a::{b, c as d}`) expanded by the extractor.
    ImportTree,
    /// `@package.name`: the package or namespace declared for the whole file.
    PackageName,
    /// `@type`: a definition's declared type (a callable's return type, a field's type).
    Type,
    /// `@typed`: a definition node matched only to give it a `@type` (a pattern of a language
    /// that adds types to definitions another language's query describes).
    Typed,
    /// `@binding`: a name bound to a type in a scope (typed parameter or variable, assignment
    /// from a constructor or call).
    Binding,
    /// `@binding.name`: the bound name (`x`, `self.store`).
    BindingName,
    /// `@binding.type`: the bound name's declared type.
    BindingType,
    /// `@binding.value`: the callee of the assigned call or `new` expression.
    BindingValue,
    /// `@generic`: a list of type parameters (or a mapped type's clause); the names it declares
    /// are in scope over its parent node (the generic class, function, alias, impl, template).
    Generic,
    /// `@generic.scope`: with `@generic.name` in the same match, the node the type parameter is
    /// in scope over, when that is not the parent of its list. Alone, a node that can hold type
    /// parameters declared in place (a conditional type, for TypeScript's `infer U`).
    GenericScope,
    /// `@generic.name`: a type parameter's name. A type reference to it within its scope names
    /// no symbol: the extractor drops it. Alone in its match (`infer U`), it is in scope over the
    /// innermost lone `@generic.scope` node around it.
    GenericName,
    /// `@local.scope`: a node that is a lexical scope (an arrow function, a block): a `@binding`
    /// that is not a definition is local to the innermost one around its name, and plain reads
    /// and calls of that name inside it are dropped, whatever definition encloses them.
    LocalScope,
}

/// An unknown capture name in a query file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureError {
    pub name: String,
}

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown capture @{}; allowed: @definition.<{}>, @reference.<{}>, @name, @receiver, \
             @implementor, @owner, @doc, @body, @scope, @scope.name, @import, @import.source, \
             @import.name, @import.alias, @import.wildcard, @import.tree, @package.name, @type, \
             @typed, @binding, @binding.name, @binding.type, @binding.value, @generic, \
             @generic.scope, @generic.name, @local.scope, or any name starting with _",
            self.name,
            NodeKind::ALL
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join("|"),
            RefKind::ALL
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join("|"),
        )
    }
}

impl std::error::Error for CaptureError {}

/// Parses a capture name. `Ok(None)` for ignored helper captures (`@_x`).
pub fn validate_capture(name: &str) -> Result<Option<Capture>, CaptureError> {
    if name.starts_with('_') {
        return Ok(None);
    }
    let capture = match name {
        "name" => Capture::Name,
        "receiver" => Capture::Receiver,
        "implementor" => Capture::Implementor,
        "owner" => Capture::Owner,
        "doc" => Capture::Doc,
        "body" => Capture::Body,
        "scope" => Capture::Scope,
        "scope.name" => Capture::ScopeName,
        "import" => Capture::Import,
        "import.source" => Capture::ImportSource,
        "import.name" => Capture::ImportName,
        "import.alias" => Capture::ImportAlias,
        "import.wildcard" => Capture::ImportWildcard,
        "import.tree" => Capture::ImportTree,
        "package.name" => Capture::PackageName,
        "type" => Capture::Type,
        "typed" => Capture::Typed,
        "binding" => Capture::Binding,
        "binding.name" => Capture::BindingName,
        "binding.type" => Capture::BindingType,
        "binding.value" => Capture::BindingValue,
        "generic" => Capture::Generic,
        "generic.scope" => Capture::GenericScope,
        "generic.name" => Capture::GenericName,
        "local.scope" => Capture::LocalScope,
        other => {
            let parsed = if let Some(kind) = other.strip_prefix("definition.") {
                NodeKind::parse(kind).map(Capture::Definition)
            } else if let Some(kind) = other.strip_prefix("reference.") {
                RefKind::parse(kind).map(Capture::Reference)
            } else {
                None
            };
            return parsed.map(Some).ok_or_else(|| CaptureError {
                name: name.to_string(),
            });
        }
    };
    Ok(Some(capture))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_names_are_checked() {
        assert_eq!(
            validate_capture("definition.method"),
            Ok(Some(Capture::Definition(NodeKind::Method)))
        );
        assert_eq!(
            validate_capture("reference.call"),
            Ok(Some(Capture::Reference(RefKind::Call)))
        );
        assert_eq!(validate_capture("_helper"), Ok(None));
        let err = validate_capture("definition.gizmo").unwrap_err();
        assert!(err.to_string().contains("@definition.gizmo"));
        assert!(validate_capture("reference.teleport").is_err());
        assert!(validate_capture("nam").is_err());
    }
}
