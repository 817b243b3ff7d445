//! Run-time values, Cypher's comparison, equality and ordering rules, and grouping keys.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

use crate::{EdgeKind, Graph, Ix, Provenance};

use super::schema::{label_name, type_name};

/// A value in a result row.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Value>),
    /// A node, by graph index.
    Node(Ix),
    /// A (merged) relationship: `src -[kind]-> dst` in the graph's direction, whatever the
    /// direction of the pattern that matched it.
    Rel {
        src: Ix,
        dst: Ix,
        kind: EdgeKind,
        provenance: Provenance,
        count: u32,
    },
    /// Nodes in path order and the relationships between them (`rels[i]` joins `nodes[i]` and
    /// `nodes[i + 1]`; each is a [`Value::Rel`]).
    Path {
        nodes: Vec<Ix>,
        rels: Vec<Value>,
    },
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The type's name in error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Node(_) => "node",
            Value::Rel { .. } => "relationship",
            Value::Path { .. } => "path",
        }
    }

    /// A compact human-readable rendering: strings as-is at the top level (quoted inside
    /// lists), nodes as `(qualified.name)`, relationships as `[a-CALLS->b]`, paths as
    /// `(a)-[CALLS]->(b)`.
    pub fn render(&self, g: &Graph) -> String {
        let mut out = String::new();
        self.render_into(g, &mut out, true);
        out
    }

    fn render_into(&self, g: &Graph, out: &mut String, top: bool) {
        use std::fmt::Write;
        let qname = |ix: Ix| {
            if (ix as usize) < g.len() {
                g.node(ix).qname.clone()
            } else {
                format!("#{ix}")
            }
        };
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            Value::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Value::Float(f) => {
                let _ = write!(out, "{f:?}");
            }
            Value::Str(s) if top => out.push_str(s),
            Value::Str(s) => {
                let _ = write!(out, "'{}'", s.replace('\'', "\\'"));
            }
            Value::List(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.render_into(g, out, false);
                }
                out.push(']');
            }
            Value::Node(ix) => {
                let _ = write!(out, "({})", qname(*ix));
            }
            Value::Rel { src, dst, kind, .. } => {
                let _ = write!(
                    out,
                    "[{}-{}->{}]",
                    qname(*src),
                    type_name(*kind),
                    qname(*dst)
                );
            }
            Value::Path { nodes, rels } => {
                if let Some(first) = nodes.first() {
                    let _ = write!(out, "({})", qname(*first));
                }
                for (i, rel) in rels.iter().enumerate() {
                    let (Some(&from), Some(&to)) = (nodes.get(i), nodes.get(i + 1)) else {
                        break;
                    };
                    if let Value::Rel { src, dst, kind, .. } = rel {
                        let t = type_name(*kind);
                        if *src == from && *dst == to {
                            let _ = write!(out, "-[{t}]->");
                        } else {
                            let _ = write!(out, "<-[{t}]-");
                        }
                    }
                    let _ = write!(out, "({})", qname(to));
                }
            }
        }
    }

    /// `labels(n)` of a node.
    pub(crate) fn labels_of(g: &Graph, ix: Ix) -> Value {
        Value::List(vec![Value::Str(label_name(g.node(ix).kind).to_string())])
    }
}

/// The identity of a relationship (what uniqueness and equality compare).
pub(crate) fn rel_key(v: &Value) -> Option<(Ix, Ix, EdgeKind)> {
    match v {
        Value::Rel { src, dst, kind, .. } => Some((*src, *dst, *kind)),
        _ => None,
    }
}

/// Cypher `=`: `None` is null (unknown).
pub(crate) fn cypher_eq(a: &Value, b: &Value) -> Option<bool> {
    use Value::*;
    match (a, b) {
        (Null, _) | (_, Null) => None,
        (Bool(x), Bool(y)) => Some(x == y),
        (Int(x), Int(y)) => Some(x == y),
        (Int(x), Float(y)) | (Float(y), Int(x)) => Some((*x as f64) == *y),
        (Float(x), Float(y)) => Some(x == y),
        (Str(x), Str(y)) => Some(x == y),
        (List(x), List(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            let mut unknown = false;
            for (p, q) in x.iter().zip(y) {
                match cypher_eq(p, q) {
                    Some(false) => return Some(false),
                    None => unknown = true,
                    Some(true) => {}
                }
            }
            if unknown { None } else { Some(true) }
        }
        (Node(x), Node(y)) => Some(x == y),
        (Rel { .. }, Rel { .. }) => Some(rel_key(a) == rel_key(b)),
        (
            Path {
                nodes: n1,
                rels: r1,
            },
            Path {
                nodes: n2,
                rels: r2,
            },
        ) => Some(
            n1 == n2
                && r1.len() == r2.len()
                && r1.iter().zip(r2).all(|(p, q)| rel_key(p) == rel_key(q)),
        ),
        _ => Some(false),
    }
}

/// Cypher `<` and friends: `None` when the values are not comparable (null, or different
/// types).
pub(crate) fn cypher_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    use Value::*;
    match (a, b) {
        (Int(x), Int(y)) => Some(x.cmp(y)),
        (Int(x), Float(y)) => (*x as f64).partial_cmp(y),
        (Float(x), Int(y)) => x.partial_cmp(&(*y as f64)),
        (Float(x), Float(y)) => x.partial_cmp(y),
        (Str(x), Str(y)) => Some(x.cmp(y)),
        (Bool(x), Bool(y)) => Some(x.cmp(y)),
        (List(x), List(y)) => {
            for (p, q) in x.iter().zip(y) {
                match cypher_cmp(p, q)? {
                    Ordering::Equal => {}
                    other => return Some(other),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        _ => None,
    }
}

fn order_rank(v: &Value) -> u8 {
    match v {
        Value::Node(_) => 0,
        Value::Rel { .. } => 1,
        Value::List(_) => 2,
        Value::Path { .. } => 3,
        Value::Str(_) => 4,
        Value::Bool(_) => 5,
        Value::Int(_) | Value::Float(_) => 6,
        Value::Null => 7,
    }
}

/// The total order of `ORDER BY` (openCypher orderability): nodes < relationships < lists <
/// paths < strings < booleans < numbers < null; NaN sorts after every other number.
pub(crate) fn order_cmp(a: &Value, b: &Value) -> Ordering {
    use Value::*;
    let (ra, rb) = (order_rank(a), order_rank(b));
    if ra != rb {
        return ra.cmp(&rb);
    }
    match (a, b) {
        (Node(x), Node(y)) => x.cmp(y),
        (Rel { .. }, Rel { .. }) => rel_key(a).cmp(&rel_key(b)),
        (List(x), List(y)) => {
            for (p, q) in x.iter().zip(y) {
                match order_cmp(p, q) {
                    Ordering::Equal => {}
                    other => return other,
                }
            }
            x.len().cmp(&y.len())
        }
        (
            Path {
                nodes: n1,
                rels: r1,
            },
            Path {
                nodes: n2,
                rels: r2,
            },
        ) => n1
            .cmp(n2)
            .then_with(|| r1.iter().map(rel_key).cmp(r2.iter().map(rel_key))),
        (Str(x), Str(y)) => x.cmp(y),
        (Bool(x), Bool(y)) => x.cmp(y),
        (Int(x), Int(y)) => x.cmp(y),
        _ => {
            let f = |v: &Value| match v {
                Int(i) => *i as f64,
                Float(f) => *f,
                _ => 0.0,
            };
            let (x, y) = (f(a), f(b));
            match (x.is_nan(), y.is_nan()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                _ => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            }
        }
    }
}

/// A value as a grouping / `DISTINCT` key: equivalence rather than equality (null is
/// equivalent to null, `1` to `1.0`, NaN to NaN).
#[derive(Debug, Clone)]
pub(crate) struct Key(pub Value);

fn as_integral(f: f64) -> Option<i64> {
    (f.fract() == 0.0 && (-9.2e18..=9.2e18).contains(&f)).then_some(f as i64)
}

pub(crate) fn equivalent(a: &Value, b: &Value) -> bool {
    use Value::*;
    match (a, b) {
        (Null, Null) => true,
        (Int(x), Float(y)) | (Float(y), Int(x)) => as_integral(*y) == Some(*x),
        (Float(x), Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (List(x), List(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equivalent(p, q)),
        _ => cypher_eq(a, b) == Some(true),
    }
}

pub(crate) fn hash_value<H: Hasher>(v: &Value, h: &mut H) {
    use Value::*;
    match v {
        Null => 0u8.hash(h),
        Bool(b) => {
            1u8.hash(h);
            b.hash(h);
        }
        Int(i) => {
            2u8.hash(h);
            i.hash(h);
        }
        Float(f) => match as_integral(*f) {
            Some(i) => {
                2u8.hash(h);
                i.hash(h);
            }
            None if f.is_nan() => 3u8.hash(h),
            None => {
                4u8.hash(h);
                f.to_bits().hash(h);
            }
        },
        Str(s) => {
            5u8.hash(h);
            s.hash(h);
        }
        List(items) => {
            6u8.hash(h);
            items.len().hash(h);
            for item in items {
                hash_value(item, h);
            }
        }
        Node(ix) => {
            7u8.hash(h);
            ix.hash(h);
        }
        Rel { .. } => {
            8u8.hash(h);
            rel_key(v).hash(h);
        }
        Path { nodes, rels } => {
            9u8.hash(h);
            nodes.hash(h);
            for r in rels {
                rel_key(r).hash(h);
            }
        }
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        equivalent(&self.0, &other.0)
    }
}

impl Eq for Key {}

impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        hash_value(&self.0, h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality_comparison_and_order() {
        assert_eq!(cypher_eq(&Value::Int(1), &Value::Float(1.0)), Some(true));
        assert_eq!(cypher_eq(&Value::Null, &Value::Int(1)), None);
        assert_eq!(
            cypher_eq(
                &Value::List(vec![Value::Int(1), Value::Null]),
                &Value::List(vec![Value::Int(2), Value::Null])
            ),
            Some(false)
        );
        assert_eq!(cypher_cmp(&Value::Str("a".into()), &Value::Int(1)), None);
        let mut v = vec![
            Value::Null,
            Value::Int(2),
            Value::Str("b".into()),
            Value::Float(1.5),
            Value::Bool(true),
            Value::Node(3),
        ];
        v.sort_by(order_cmp);
        assert_eq!(
            v,
            vec![
                Value::Node(3),
                Value::Str("b".into()),
                Value::Bool(true),
                Value::Float(1.5),
                Value::Int(2),
                Value::Null
            ]
        );
        assert_eq!(Key(Value::Int(1)), Key(Value::Float(1.0)));
        assert_eq!(Key(Value::Null), Key(Value::Null));
    }
}
