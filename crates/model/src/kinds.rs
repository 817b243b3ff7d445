//! The closed sets of the graph: node kinds, edge kinds, provenance, confidence, visibility.
//!
//! Every enum has a stable lower-case string form (`as_str` / `parse`) used in the database,
//! in query files (`@definition.<kind>`) and on every surface.

macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vmeta])* $variant),+ }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stable string form.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// Parses the stable string form.
            pub fn parse(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum! {
    /// What a node of the graph is.
    NodeKind {
        Repository => "repository",
        Directory => "directory",
        File => "file",
        Module => "module",
        Package => "package",
        Namespace => "namespace",
        Class => "class",
        Struct => "struct",
        Interface => "interface",
        Trait => "trait",
        Enum => "enum",
        EnumMember => "enum_member",
        Record => "record",
        Union => "union",
        Delegate => "delegate",
        TypeAlias => "type_alias",
        Function => "function",
        Method => "method",
        Constructor => "constructor",
        Property => "property",
        Field => "field",
        Event => "event",
        Constant => "constant",
        Variable => "variable",
        Macro => "macro",
        Parameter => "parameter",
        Route => "route",
        ConfigKey => "config_key",
        DbTable => "db_table",
        Document => "document",
        DocSection => "doc_section",
        Decision => "decision",
    }
}

impl NodeKind {
    /// Kinds that own members (a function defined inside one is a method).
    pub fn is_type_like(self) -> bool {
        matches!(
            self,
            NodeKind::Class
                | NodeKind::Struct
                | NodeKind::Interface
                | NodeKind::Trait
                | NodeKind::Enum
                | NodeKind::Record
                | NodeKind::Union
        )
    }

    /// Kinds whose body is code that runs (complexity is measured for these).
    pub fn is_callable(self) -> bool {
        matches!(
            self,
            NodeKind::Function | NodeKind::Method | NodeKind::Constructor | NodeKind::Macro
        )
    }

    /// Kinds that group other definitions without being types.
    pub fn is_namespace_like(self) -> bool {
        matches!(
            self,
            NodeKind::Module | NodeKind::Package | NodeKind::Namespace | NodeKind::File
        )
    }
}

string_enum! {
    /// What a relationship between two nodes means.
    EdgeKind {
        Contains => "contains",
        Defines => "defines",
        Calls => "calls",
        References => "references",
        Reads => "reads",
        Writes => "writes",
        Instantiates => "instantiates",
        Imports => "imports",
        Inherits => "inherits",
        Implements => "implements",
        Overrides => "overrides",
        UsesType => "uses_type",
        Returns => "returns",
        HasParameter => "has_parameter",
        Tests => "tests",
        Documents => "documents",
        Mentions => "mentions",
        HandlesRoute => "handles_route",
        CallsHttp => "calls_http",
        ReadsConfig => "reads_config",
        UsesTable => "uses_table",
        ChangesWith => "changes_with",
        Observed => "observed",
    }
}

string_enum! {
    /// How an edge came to be.
    Provenance {
        /// Compiler-grade (ingested SCIP) or syntactically certain (containment).
        Asserted => "asserted",
        /// One best candidate chosen by a resolver rule.
        Inferred => "inferred",
        /// Several candidates remain; every one is kept as an edge.
        Ambiguous => "ambiguous",
        /// Seen at run time (traces).
        Observed => "observed",
    }
}

string_enum! {
    /// How much an edge can be trusted.
    Confidence {
        High => "high",
        Medium => "medium",
        Low => "low",
    }
}

string_enum! {
    /// Who can see a definition, normalised across languages.
    Visibility {
        Public => "public",
        Protected => "protected",
        Internal => "internal",
        /// Visible in its package or directory (Go lower-case, Java default).
        Package => "package",
        /// Visible in the crate (Rust `pub(crate)`).
        Crate => "crate",
        /// Visible in its module or file only (unexported JS/TS, C `static`).
        Module => "module",
        Private => "private",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_forms_round_trip() {
        for k in NodeKind::ALL {
            assert_eq!(NodeKind::parse(k.as_str()), Some(*k));
        }
        for k in EdgeKind::ALL {
            assert_eq!(EdgeKind::parse(k.as_str()), Some(*k));
        }
        assert_eq!(Provenance::parse("ambiguous"), Some(Provenance::Ambiguous));
        assert_eq!(NodeKind::parse("nope"), None);
    }
}
