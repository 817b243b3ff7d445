//! The names a query can use: labels (node kinds in PascalCase), relationship types (edge kinds
//! in UPPER_SNAKE_CASE) and properties. Lookups tolerate case and underscores (`function`,
//! `type_alias`, `usesType` all work); unknown names get the valid list and a suggestion.

use crate::{EdgeKind, NodeKind};

/// `type_alias` → `TypeAlias`.
pub fn label_name(kind: NodeKind) -> &'static str {
    use NodeKind::*;
    match kind {
        Repository => "Repository",
        Directory => "Directory",
        File => "File",
        Module => "Module",
        Package => "Package",
        Namespace => "Namespace",
        Class => "Class",
        Struct => "Struct",
        Interface => "Interface",
        Trait => "Trait",
        Enum => "Enum",
        EnumMember => "EnumMember",
        Record => "Record",
        Union => "Union",
        Delegate => "Delegate",
        TypeAlias => "TypeAlias",
        Function => "Function",
        Method => "Method",
        Constructor => "Constructor",
        Property => "Property",
        Field => "Field",
        Event => "Event",
        Constant => "Constant",
        Variable => "Variable",
        Macro => "Macro",
        Parameter => "Parameter",
        Route => "Route",
        ConfigKey => "ConfigKey",
        DbTable => "DbTable",
        Document => "Document",
        DocSection => "DocSection",
        Decision => "Decision",
    }
}

/// `uses_type` → `USES_TYPE`.
pub fn type_name(kind: EdgeKind) -> &'static str {
    use EdgeKind::*;
    match kind {
        Contains => "CONTAINS",
        Defines => "DEFINES",
        Calls => "CALLS",
        References => "REFERENCES",
        Reads => "READS",
        Writes => "WRITES",
        Instantiates => "INSTANTIATES",
        Imports => "IMPORTS",
        Inherits => "INHERITS",
        Implements => "IMPLEMENTS",
        Overrides => "OVERRIDES",
        UsesType => "USES_TYPE",
        Returns => "RETURNS",
        HasParameter => "HAS_PARAMETER",
        Tests => "TESTS",
        Documents => "DOCUMENTS",
        Mentions => "MENTIONS",
        HandlesRoute => "HANDLES_ROUTE",
        CallsHttp => "CALLS_HTTP",
        ReadsConfig => "READS_CONFIG",
        UsesTable => "USES_TABLE",
        ChangesWith => "CHANGES_WITH",
        Observed => "OBSERVED",
    }
}

/// Lower case without underscores: the tolerant comparison form.
fn fold(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

pub fn parse_label(s: &str) -> Option<NodeKind> {
    let f = fold(s);
    NodeKind::ALL
        .iter()
        .copied()
        .find(|k| fold(k.as_str()) == f)
}

pub fn parse_type(s: &str) -> Option<EdgeKind> {
    let f = fold(s);
    EdgeKind::ALL
        .iter()
        .copied()
        .find(|k| fold(k.as_str()) == f)
}

/// A property of a node or a relationship.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prop {
    Id,
    Name,
    QName,
    Kind,
    Label,
    File,
    Language,
    StartLine,
    EndLine,
    Lines,
    Visibility,
    Modifiers,
    Complexity,
    Signature,
    InDegree,
    OutDegree,
    // relationships
    Type,
    Provenance,
    Count,
}

/// Property names (and aliases) for nodes, in the order they are listed to users.
pub const NODE_PROPS: &[(&str, Prop)] = &[
    ("id", Prop::Id),
    ("name", Prop::Name),
    ("qualified_name", Prop::QName),
    ("qname", Prop::QName),
    ("kind", Prop::Kind),
    ("label", Prop::Label),
    ("file", Prop::File),
    ("path", Prop::File),
    ("language", Prop::Language),
    ("start_line", Prop::StartLine),
    ("line", Prop::StartLine),
    ("end_line", Prop::EndLine),
    ("lines", Prop::Lines),
    ("visibility", Prop::Visibility),
    ("modifiers", Prop::Modifiers),
    ("complexity", Prop::Complexity),
    ("signature", Prop::Signature),
    ("in_degree", Prop::InDegree),
    ("out_degree", Prop::OutDegree),
];

/// Property names for relationships.
pub const REL_PROPS: &[(&str, Prop)] = &[
    ("type", Prop::Type),
    ("kind", Prop::Kind),
    ("provenance", Prop::Provenance),
    ("count", Prop::Count),
];

/// What a property name may refer to in a given position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    Node,
    Rel,
    /// Not known until run time.
    Any,
}

pub fn parse_prop(s: &str, owner: Owner) -> Option<Prop> {
    let f = fold(s);
    let find = |list: &[(&str, Prop)]| {
        list.iter()
            .find(|(name, _)| fold(name) == f)
            .map(|(_, p)| *p)
    };
    match owner {
        Owner::Node => find(NODE_PROPS),
        Owner::Rel => find(REL_PROPS),
        Owner::Any => find(NODE_PROPS).or_else(|| find(REL_PROPS)),
    }
}

pub fn prop_names(owner: Owner) -> Vec<&'static str> {
    let mut names: Vec<&str> = match owner {
        Owner::Node => NODE_PROPS.iter().map(|(n, _)| *n).collect(),
        Owner::Rel => REL_PROPS.iter().map(|(n, _)| *n).collect(),
        Owner::Any => NODE_PROPS
            .iter()
            .chain(REL_PROPS)
            .map(|(n, _)| *n)
            .collect(),
    };
    let mut seen = Vec::new();
    names.retain(|n| {
        if seen.contains(n) {
            false
        } else {
            seen.push(*n);
            true
        }
    });
    names
}

pub fn label_names() -> Vec<&'static str> {
    NodeKind::ALL.iter().map(|k| label_name(*k)).collect()
}

pub fn type_names() -> Vec<&'static str> {
    EdgeKind::ALL.iter().map(|k| type_name(*k)).collect()
}

/// Levenshtein distance over folded forms, capped (inputs are short names).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = fold(a).chars().take(64).collect();
    let b: Vec<char> = fold(b).chars().take(64).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// "unknown label `Func`; did you mean `Function`? valid labels: ..."
pub fn unknown_message(what: &str, name: &str, valid: &[&str]) -> String {
    let shown: String = name.chars().take(60).collect();
    let folded = fold(name);
    let best = valid
        .iter()
        .map(|v| {
            let fv = fold(v);
            let prefix = folded.len() >= 3 && (fv.starts_with(&folded) || folded.starts_with(&fv));
            (if prefix { 0 } else { distance(name, v) }, *v)
        })
        .filter(|(d, v)| *d <= 2.max(v.len() / 3))
        .min_by_key(|(d, _)| *d);
    let mut msg = format!("unknown {what} `{shown}`");
    if let Some((_, v)) = best {
        msg.push_str(&format!("; did you mean `{v}`?"));
    }
    msg.push_str(&format!("; valid {what}s: {}", valid.join(", ")));
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_tolerate_case() {
        for k in NodeKind::ALL {
            assert_eq!(parse_label(label_name(*k)), Some(*k));
            assert_eq!(parse_label(k.as_str()), Some(*k));
        }
        for k in EdgeKind::ALL {
            assert_eq!(parse_type(type_name(*k)), Some(*k));
            assert_eq!(parse_type(k.as_str()), Some(*k));
        }
        assert_eq!(parse_label("FUNCTION"), Some(NodeKind::Function));
        assert_eq!(parse_type("usesType"), Some(EdgeKind::UsesType));
        assert_eq!(parse_prop("qname", Owner::Node), Some(Prop::QName));
        assert_eq!(parse_prop("startLine", Owner::Node), Some(Prop::StartLine));
        assert_eq!(parse_prop("type", Owner::Node), None);
        assert!(
            unknown_message("label", "Functon", &label_names())
                .contains("did you mean `Function`?")
        );
        assert!(
            unknown_message("label", "Func", &label_names()).contains("did you mean `Function`?")
        );
    }

    #[test]
    fn labels_are_pascal_case_and_types_upper_snake_case_of_the_kinds() {
        let pascal = |s: &str| -> String {
            s.split('_')
                .map(|w| {
                    let mut c = w.chars();
                    c.next()
                        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                        .unwrap_or_default()
                })
                .collect()
        };
        for k in NodeKind::ALL {
            assert_eq!(label_name(*k), pascal(k.as_str()));
        }
        for k in EdgeKind::ALL {
            assert_eq!(type_name(*k), k.as_str().to_ascii_uppercase());
        }
    }
}
