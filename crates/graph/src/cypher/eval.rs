//! Expression evaluation: three-valued logic, Cypher comparisons, arithmetic with overflow
//! checks, properties, functions, subquery patterns. Values built from lists and strings are
//! charged to the work budget and bounded in size and nesting.

use std::cmp::Ordering;

use crate::{EdgeKind, Graph, Ix};

use super::ast::{ArithOp, CmpOp};
use super::compile::build_regex;
use super::error::CypherError;
use super::exec::{Cont, Exec, R};
use super::plan::*;
use super::schema::{Prop, label_name, type_name};
use super::value::{Value, cypher_cmp, cypher_eq};

/// Longest string an expression may build.
pub const MAX_STRING: usize = 1 << 20;
/// Deepest nesting of lists an expression may build.
pub const MAX_LIST_DEPTH: usize = 64;
/// Longest list `range()`, `split()` or `collect()` may build.
pub const MAX_LIST_LEN: usize = 1 << 20;

fn type_err(pos: usize, msg: String) -> CypherError {
    CypherError::type_error(pos, msg)
}

fn bool3(v: Option<bool>) -> Value {
    match v {
        Some(b) => Value::Bool(b),
        None => Value::Null,
    }
}

/// A node's property.
pub fn node_prop(g: &Graph, ix: Ix, p: Prop) -> Value {
    let n = g.node(ix);
    let degree = |all: usize, contains: usize| Value::Int(all.saturating_sub(contains) as i64);
    match p {
        Prop::Id => Value::Int(n.id),
        Prop::Name => Value::Str(n.name.clone()),
        Prop::QName => Value::Str(n.qname.clone()),
        Prop::Kind => Value::Str(n.kind.as_str().to_string()),
        Prop::Label => Value::Str(label_name(n.kind).to_string()),
        Prop::File => Value::Str(n.path.clone()),
        Prop::Language => Value::Str(n.language.clone()),
        Prop::StartLine => Value::Int(i64::from(n.start_line)),
        Prop::EndLine => Value::Int(i64::from(n.end_line)),
        Prop::Lines => Value::Int(i64::from(n.end_line.saturating_sub(n.start_line)) + 1),
        Prop::Visibility => Value::Str(n.visibility.as_str().to_string()),
        Prop::Modifiers => Value::List(
            n.modifiers
                .split(',')
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .map(|m| Value::Str(m.to_string()))
                .collect(),
        ),
        Prop::Complexity => n
            .complexity
            .map_or(Value::Null, |c| Value::Int(i64::from(c))),
        Prop::Signature if n.signature.is_empty() => Value::Null,
        Prop::Signature => Value::Str(n.signature.clone()),
        Prop::InDegree => degree(
            g.in_edges(ix).len(),
            g.in_of_kind(ix, EdgeKind::Contains).len(),
        ),
        Prop::OutDegree => degree(
            g.out_edges(ix).len(),
            g.out_of_kind(ix, EdgeKind::Contains).len(),
        ),
        Prop::Type | Prop::Provenance | Prop::Count => Value::Null,
    }
}

fn rel_prop(v: &Value, p: Prop) -> Value {
    let Value::Rel {
        kind,
        provenance,
        count,
        ..
    } = v
    else {
        return Value::Null;
    };
    match p {
        Prop::Type => Value::Str(type_name(*kind).to_string()),
        Prop::Kind => Value::Str(kind.as_str().to_string()),
        Prop::Provenance => Value::Str(provenance.as_str().to_string()),
        Prop::Count => Value::Int(i64::from(*count)),
        _ => Value::Null,
    }
}

fn compare(op: CmpOp, a: &Value, b: &Value) -> Option<bool> {
    match op {
        CmpOp::Eq => cypher_eq(a, b),
        CmpOp::Neq => cypher_eq(a, b).map(|x| !x),
        CmpOp::Lt => cypher_cmp(a, b).map(|o| o == Ordering::Less),
        CmpOp::Le => cypher_cmp(a, b).map(|o| o != Ordering::Greater),
        CmpOp::Gt => cypher_cmp(a, b).map(|o| o == Ordering::Greater),
        CmpOp::Ge => cypher_cmp(a, b).map(|o| o != Ordering::Less),
    }
}

/// A borrowed-where-possible operand (see `Exec::operand`).
pub(super) enum Opd<'s> {
    Ref(&'s Value),
    Str(&'s str),
    Own(Value),
}

impl Opd<'_> {
    /// Hashes like [`super::value::hash_value`] of the value.
    pub(super) fn hash_key<H: std::hash::Hasher>(&self, h: &mut H) {
        use std::hash::Hash;
        match self {
            Opd::Str(s) => {
                5u8.hash(h);
                s.hash(h);
            }
            Opd::Ref(v) => super::value::hash_value(v, h),
            Opd::Own(v) => super::value::hash_value(v, h),
        }
    }

    /// Grouping equivalence with a stored key (see [`super::value::Key`]).
    pub(super) fn equivalent_to(&self, v: &Value) -> bool {
        match (self, v) {
            (Opd::Str(s), Value::Str(t)) => *s == t.as_str(),
            (Opd::Str(_), _) => false,
            (Opd::Ref(a), b) => super::value::equivalent(a, b),
            (Opd::Own(a), b) => super::value::equivalent(a, b),
        }
    }

    pub(super) fn into_value(self) -> Value {
        match self {
            Opd::Ref(v) => v.clone(),
            Opd::Str(s) => Value::Str(s.to_string()),
            Opd::Own(v) => v,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Opd::Str(s) => Some(s),
            Opd::Ref(Value::Str(s)) | Opd::Own(Value::Str(s)) => Some(s),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        matches!(self, Opd::Ref(Value::Null) | Opd::Own(Value::Null))
    }

    /// The value, unless it is a borrowed string.
    fn value_ref(&self) -> Option<&Value> {
        match self {
            Opd::Ref(v) => Some(v),
            Opd::Own(v) => Some(v),
            Opd::Str(_) => None,
        }
    }

    fn value(&self) -> std::borrow::Cow<'_, Value> {
        match self {
            Opd::Ref(v) => std::borrow::Cow::Borrowed(*v),
            Opd::Own(v) => std::borrow::Cow::Borrowed(v),
            Opd::Str(s) => std::borrow::Cow::Owned(Value::Str(s.to_string())),
        }
    }
}

fn compare_opd(op: CmpOp, a: &Opd<'_>, b: &Opd<'_>) -> Option<bool> {
    if let (Some(x), Some(y)) = (a.as_str(), b.as_str()) {
        return Some(match op {
            CmpOp::Eq => x == y,
            CmpOp::Neq => x != y,
            CmpOp::Lt => x < y,
            CmpOp::Le => x <= y,
            CmpOp::Gt => x > y,
            CmpOp::Ge => x >= y,
        });
    }
    compare(op, &a.value(), &b.value())
}

fn and3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

fn func_name(f: Func) -> &'static str {
    super::compile::FUNCTIONS
        .iter()
        .find(|(_, g, ..)| *g == f)
        .map_or("?", |(n, ..)| n)
}

fn take(args: &mut [Value], i: usize) -> Value {
    args.get_mut(i)
        .map_or(Value::Null, |v| std::mem::replace(v, Value::Null))
}

fn check_string(s: String, pos: usize) -> R<Value> {
    if s.len() > MAX_STRING {
        return Err(CypherError::limit(
            pos,
            format!("a string longer than {MAX_STRING} bytes was built"),
        ));
    }
    Ok(Value::Str(s))
}

fn as_i64(f: f64) -> Option<i64> {
    (f.is_finite() && f.abs() < 9.2e18).then_some(f.trunc() as i64)
}

/// Resolves a possibly negative index against a length.
fn norm_index(i: i64, len: usize) -> Option<usize> {
    let len = len as i64;
    let i = if i < 0 { len + i } else { i };
    (0..len).contains(&i).then_some(i as usize)
}

impl<'a> Exec<'a> {
    /// Charges a built list to the work budget and bounds its nesting.
    pub(super) fn check_list(&mut self, v: &Value) -> R<()> {
        let mut stack: Vec<(&Value, usize)> = vec![(v, 1)];
        let mut cells = 0u64;
        while let Some((v, depth)) = stack.pop() {
            if let Value::List(items) = v {
                if depth > MAX_LIST_DEPTH {
                    return Err(CypherError::limit(
                        self.pos_hint,
                        format!("lists nested more than {MAX_LIST_DEPTH} deep"),
                    ));
                }
                cells += items.len() as u64;
                for i in items {
                    if matches!(i, Value::List(_)) {
                        stack.push((i, depth + 1));
                    }
                }
            }
        }
        self.tick(cells)
    }

    pub(super) fn eval(&mut self, e: &'a CExpr, row: &[Value], aggs: &[Value]) -> R<Value> {
        Ok(match e {
            CExpr::Const(v) => v.clone(),
            CExpr::Slot(s) => row.get(*s).cloned().unwrap_or(Value::Null),
            CExpr::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.eval(i, row, aggs)?);
                }
                let v = Value::List(out);
                self.check_list(&v)?;
                v
            }
            CExpr::Postfix(base, ops) => self.postfix(base, ops, row, aggs)?,
            CExpr::And(list) => {
                let mut unknown = false;
                for x in list {
                    match self.eval_bool(x, row, aggs, "AND")? {
                        Some(false) => return Ok(Value::Bool(false)),
                        None => unknown = true,
                        Some(true) => {}
                    }
                }
                if unknown {
                    Value::Null
                } else {
                    Value::Bool(true)
                }
            }
            CExpr::Or(list) => {
                let mut unknown = false;
                for x in list {
                    match self.eval_bool(x, row, aggs, "OR")? {
                        Some(true) => return Ok(Value::Bool(true)),
                        None => unknown = true,
                        Some(false) => {}
                    }
                }
                if unknown {
                    Value::Null
                } else {
                    Value::Bool(false)
                }
            }
            CExpr::Xor(list) => {
                let mut acc = false;
                let mut unknown = false;
                for x in list {
                    match self.eval_bool(x, row, aggs, "XOR")? {
                        Some(b) => acc ^= b,
                        None => unknown = true,
                    }
                }
                if unknown {
                    Value::Null
                } else {
                    Value::Bool(acc)
                }
            }
            CExpr::Not(x, pos) => {
                let saved = self.pos_hint;
                self.pos_hint = *pos;
                let r = self.eval_bool(x, row, aggs, "NOT");
                self.pos_hint = saved;
                bool3(r?.map(|b| !b))
            }
            CExpr::Cmp(first, rest) => {
                let mut lhs = self.operand(first, row, aggs)?;
                let mut result = Some(true);
                for (op, x) in rest {
                    let rhs = self.operand(x, row, aggs)?;
                    result = and3(result, compare_opd(*op, &lhs, &rhs));
                    lhs = rhs;
                }
                bool3(result)
            }
            CExpr::Pred(base, ops) => {
                let Some(((op, pos), rest)) = ops.split_first() else {
                    return self.eval(base, row, aggs);
                };
                let b = self.operand(base, row, aggs)?;
                let mut v = self.pred(op, b, row, aggs, *pos)?;
                for (op, pos) in rest {
                    v = self.pred(op, Opd::Own(v), row, aggs, *pos)?;
                }
                v
            }
            CExpr::Arith(first, rest) => {
                let mut acc = self.eval(first, row, aggs)?;
                for (op, x, pos) in rest {
                    let rhs = self.eval(x, row, aggs)?;
                    acc = self.arith(*op, acc, rhs, *pos)?;
                }
                acc
            }
            CExpr::Neg(x, pos) => match self.eval(x, row, aggs)? {
                Value::Int(i) => Value::Int(
                    i.checked_neg()
                        .ok_or_else(|| type_err(*pos, "integer overflow".into()))?,
                ),
                Value::Float(f) => Value::Float(-f),
                Value::Null => Value::Null,
                other => {
                    return Err(type_err(
                        *pos,
                        format!("cannot negate {}", other.type_name()),
                    ));
                }
            },
            CExpr::Func(f, args, pos) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a, row, aggs)?);
                }
                self.func(*f, vals, *pos)?
            }
            CExpr::Agg(i) => aggs.get(*i).cloned().unwrap_or(Value::Null),
            CExpr::Case {
                subject,
                whens,
                otherwise,
            } => {
                let subject = match subject {
                    Some(s) => Some(self.eval(s, row, aggs)?),
                    None => None,
                };
                for (w, t) in whens {
                    let c = self.eval(w, row, aggs)?;
                    let hit = match &subject {
                        Some(s) => cypher_eq(s, &c) == Some(true),
                        None => matches!(c, Value::Bool(true)),
                    };
                    if hit {
                        return self.eval(t, row, aggs);
                    }
                }
                match otherwise {
                    Some(o) => self.eval(o, row, aggs)?,
                    None => Value::Null,
                }
            }
            CExpr::Sub(sub, mode) => self.subquery(sub, *mode, row)?,
        })
    }

    fn eval_bool(
        &mut self,
        e: &'a CExpr,
        row: &[Value],
        aggs: &[Value],
        op: &str,
    ) -> R<Option<bool>> {
        match self.eval(e, row, aggs)? {
            Value::Bool(b) => Ok(Some(b)),
            Value::Null => Ok(None),
            other => Err(type_err(
                self.pos_hint,
                format!("{op} needs booleans, got {}", other.type_name()),
            )),
        }
    }

    fn subquery(&mut self, sub: &'a SubMatch, mode: SubMode, row: &[Value]) -> R<Value> {
        let mut scratch = row.to_vec();
        let saved = self.used_base;
        self.used_base = self.used.len();
        let mut cont = match mode {
            SubMode::Exists => Cont::Exists { hit: false },
            SubMode::Count => Cont::Count { n: 0 },
            SubMode::Paths => Cont::Paths {
                slot: sub.path_slot,
                out: Vec::new(),
            },
        };
        let r = self.steps(&sub.steps, 0, &mut scratch, &mut cont);
        self.used.truncate(self.used_base);
        self.used_base = saved;
        r?;
        Ok(match cont {
            Cont::Exists { hit } => Value::Bool(hit),
            Cont::Count { n } => Value::Int(n),
            Cont::Paths { out, .. } => Value::List(out),
            Cont::Stage { .. } => Value::Null,
        })
    }

    fn prop_of(&self, v: &Value, p: Prop, name: &str, pos: usize) -> R<Value> {
        match v {
            Value::Node(ix) if (*ix as usize) < self.g.len() => Ok(node_prop(self.g, *ix, p)),
            Value::Rel { .. } => Ok(rel_prop(v, p)),
            Value::Null => Ok(Value::Null),
            other => Err(type_err(
                pos,
                format!("cannot read property `{name}` of {}", other.type_name()),
            )),
        }
    }

    fn postfix(
        &mut self,
        base: &'a CExpr,
        ops: &'a [(CPost, usize)],
        row: &[Value],
        aggs: &[Value],
    ) -> R<Value> {
        let mut rest = ops.iter();
        let mut cur = match (base, ops.first()) {
            (CExpr::Slot(s), Some((CPost::Prop(p, name), pos))) => {
                rest.next();
                self.prop_of(row.get(*s).unwrap_or(&Value::Null), *p, name, *pos)?
            }
            _ => self.eval(base, row, aggs)?,
        };
        for (op, pos) in rest {
            let pos = *pos;
            cur = match op {
                CPost::Prop(p, name) => self.prop_of(&cur, *p, name, pos)?,
                CPost::Index(x) => {
                    let i = self.eval(x, row, aggs)?;
                    match (cur, i) {
                        (Value::Null, _) | (_, Value::Null) => Value::Null,
                        (Value::List(mut items), Value::Int(i)) => match norm_index(i, items.len())
                        {
                            Some(i) => items.swap_remove(i),
                            None => Value::Null,
                        },
                        (Value::List(_), other) => {
                            return Err(type_err(
                                pos,
                                format!(
                                    "a list index must be an integer, got {}",
                                    other.type_name()
                                ),
                            ));
                        }
                        (other, _) => {
                            return Err(type_err(
                                pos,
                                format!("cannot index {} (only lists)", other.type_name()),
                            ));
                        }
                    }
                }
                CPost::Slice(a, b) => {
                    let mut bound = |x: &'a Option<CExpr>| -> R<Option<Value>> {
                        match x {
                            Some(x) => Ok(Some(self.eval(x, row, aggs)?)),
                            None => Ok(None),
                        }
                    };
                    let (lo, hi) = (bound(a)?, bound(b)?);
                    match cur {
                        Value::Null => Value::Null,
                        Value::List(items) => {
                            let len = items.len() as i64;
                            let idx = |v: Option<Value>, default: i64| -> R<Option<i64>> {
                                match v {
                                    None => Ok(Some(default)),
                                    Some(Value::Null) => Ok(None),
                                    Some(Value::Int(i)) => {
                                        let i = if i < 0 { len.saturating_add(i) } else { i };
                                        Ok(Some(i.clamp(0, len)))
                                    }
                                    Some(other) => Err(type_err(
                                        pos,
                                        format!(
                                            "slice bounds must be integers, got {}",
                                            other.type_name()
                                        ),
                                    )),
                                }
                            };
                            match (idx(lo, 0)?, idx(hi, len)?) {
                                (Some(l), Some(h)) if l < h => Value::List(
                                    items
                                        .into_iter()
                                        .skip(l as usize)
                                        .take((h - l) as usize)
                                        .collect(),
                                ),
                                (Some(_), Some(_)) => Value::List(Vec::new()),
                                _ => Value::Null,
                            }
                        }
                        other => {
                            return Err(type_err(
                                pos,
                                format!("cannot slice {} (only lists)", other.type_name()),
                            ));
                        }
                    }
                }
                CPost::HasLabel(mask) => match cur {
                    Value::Node(ix) if (ix as usize) < self.g.len() => {
                        Value::Bool(mask_has(*mask, self.g.node(ix).kind))
                    }
                    Value::Null => Value::Null,
                    other => {
                        return Err(type_err(
                            pos,
                            format!("a label test needs a node, got {}", other.type_name()),
                        ));
                    }
                },
            };
        }
        Ok(cur)
    }

    /// Evaluates an operand of a comparison or predicate without copying when it can:
    /// constants and slots are borrowed, string properties of nodes borrowed from the graph.
    pub(super) fn operand<'s>(
        &mut self,
        e: &'a CExpr,
        row: &'s [Value],
        aggs: &[Value],
    ) -> R<Opd<'s>>
    where
        'a: 's,
    {
        match e {
            CExpr::Const(v) => Ok(Opd::Ref(v)),
            CExpr::Slot(s) => Ok(row.get(*s).map_or(Opd::Own(Value::Null), Opd::Ref)),
            CExpr::Postfix(base, ops) if ops.len() == 1 => {
                let g: &'a Graph = self.g;
                if let (CExpr::Slot(s), (CPost::Prop(p, _), _)) = (&**base, &ops[0])
                    && let Some(Value::Node(ix)) = row.get(*s)
                    && (*ix as usize) < g.len()
                {
                    let n = g.node(*ix);
                    let text = match p {
                        Prop::Name => Some(n.name.as_str()),
                        Prop::QName => Some(n.qname.as_str()),
                        Prop::File => Some(n.path.as_str()),
                        Prop::Language => Some(n.language.as_str()),
                        _ => None,
                    };
                    if let Some(text) = text {
                        return Ok(Opd::Str(text));
                    }
                }
                Ok(Opd::Own(self.eval(e, row, aggs)?))
            }
            _ => Ok(Opd::Own(self.eval(e, row, aggs)?)),
        }
    }

    fn pred<'s>(
        &mut self,
        op: &'a CPred,
        v: Opd<'s>,
        row: &'s [Value],
        aggs: &[Value],
        pos: usize,
    ) -> R<Value>
    where
        'a: 's,
    {
        Ok(match op {
            CPred::IsNull => Value::Bool(v.is_null()),
            CPred::IsNotNull => Value::Bool(!v.is_null()),
            CPred::StartsWith(x) | CPred::EndsWith(x) | CPred::Contains(x) => {
                let rhs = self.operand(x, row, aggs)?;
                match (v.as_str(), rhs.as_str()) {
                    (Some(a), Some(b)) => Value::Bool(match op {
                        CPred::StartsWith(_) => a.starts_with(b),
                        CPred::EndsWith(_) => a.ends_with(b),
                        _ => a.contains(b),
                    }),
                    _ => Value::Null,
                }
            }
            CPred::In(x) => {
                let list = self.operand(x, row, aggs)?;
                let items = match list.value_ref() {
                    Some(Value::Null) => return Ok(Value::Null),
                    Some(Value::List(items)) => items,
                    Some(other) => {
                        return Err(type_err(
                            pos,
                            format!("IN needs a list on its right, got {}", other.type_name()),
                        ));
                    }
                    None => {
                        return Err(type_err(
                            pos,
                            "IN needs a list on its right, got string".into(),
                        ));
                    }
                };
                let mut unknown = false;
                if let Some(a) = v.as_str() {
                    for it in items {
                        match it {
                            Value::Str(b) if a == b => return Ok(Value::Bool(true)),
                            Value::Null => unknown = true,
                            _ => {}
                        }
                    }
                } else {
                    let v = v.value();
                    for it in items {
                        match cypher_eq(&v, it) {
                            Some(true) => return Ok(Value::Bool(true)),
                            None => unknown = true,
                            Some(false) => {}
                        }
                    }
                }
                if unknown && !items.is_empty() {
                    Value::Null
                } else {
                    Value::Bool(false)
                }
            }
            CPred::Regex(RegexArg::Fixed(re)) => match v.as_str() {
                Some(s) => Value::Bool(self.memo_match(re, s)),
                None => Value::Null,
            },
            CPred::Regex(RegexArg::Dynamic(x)) => {
                let pattern = match self.eval(x, row, aggs)? {
                    Value::Str(p) => p,
                    Value::Null => return Ok(Value::Null),
                    other => {
                        return Err(type_err(
                            pos,
                            format!("=~ needs a string pattern, got {}", other.type_name()),
                        ));
                    }
                };
                self.ensure_regex(&pattern, pos)?;
                match (v.as_str(), self.regex_cache.get(&pattern).cloned()) {
                    (Some(s), Some(re)) => Value::Bool(self.memo_match(&re, s)),
                    _ => Value::Null,
                }
            }
        })
    }

    /// `re.is_match(s)`, remembering the last (pattern, subject) pair's result.
    fn memo_match(&mut self, re: &regex::Regex, s: &str) -> bool {
        if let Some((pattern, last, result)) = &self.regex_memo
            && last == s
            && pattern == re.as_str()
        {
            return *result;
        }
        let result = re.is_match(s);
        match &mut self.regex_memo {
            Some((pattern, last, last_result)) => {
                pattern.clear();
                pattern.push_str(re.as_str());
                last.clear();
                last.push_str(s);
                *last_result = result;
            }
            None => self.regex_memo = Some((re.as_str().to_string(), s.to_string(), result)),
        }
        result
    }

    fn ensure_regex(&mut self, pattern: &str, pos: usize) -> R<()> {
        if self.regex_cache.contains_key(pattern) {
            return Ok(());
        }
        self.tick(pattern.len() as u64)?;
        let re = build_regex(pattern).map_err(|m| type_err(pos, m))?;
        if self.regex_cache.len() >= 64 {
            self.regex_cache.clear();
        }
        self.regex_cache.insert(pattern.to_string(), re);
        Ok(())
    }

    fn arith(&mut self, op: ArithOp, a: Value, b: Value, pos: usize) -> R<Value> {
        use Value::*;
        let overflow = || type_err(pos, "integer overflow".into());
        Ok(match (op, a, b) {
            (_, Null, _) | (_, _, Null) => Null,
            (ArithOp::Add, Str(x), Str(y)) => {
                self.tick((x.len() + y.len()) as u64 / 64)?;
                check_string(x + &y, pos)?
            }
            (ArithOp::Add, Str(x), y @ (Int(_) | Float(_) | Bool(_))) => {
                check_string(x + &scalar_string(&y), pos)?
            }
            (ArithOp::Add, x @ (Int(_) | Float(_) | Bool(_)), Str(y)) => {
                check_string(scalar_string(&x) + &y, pos)?
            }
            (ArithOp::Add, List(mut x), List(y)) => {
                x.extend(y);
                let v = List(x);
                self.check_list(&v)?;
                v
            }
            (ArithOp::Add, List(mut x), y) => {
                x.push(y);
                let v = List(x);
                self.check_list(&v)?;
                v
            }
            (ArithOp::Add, x, List(y)) => {
                let mut out = Vec::with_capacity(y.len() + 1);
                out.push(x);
                out.extend(y);
                let v = List(out);
                self.check_list(&v)?;
                v
            }
            (op, Int(x), Int(y)) => match op {
                ArithOp::Add => Int(x.checked_add(y).ok_or_else(overflow)?),
                ArithOp::Sub => Int(x.checked_sub(y).ok_or_else(overflow)?),
                ArithOp::Mul => Int(x.checked_mul(y).ok_or_else(overflow)?),
                ArithOp::Div | ArithOp::Mod if y == 0 => {
                    return Err(type_err(pos, "division by zero".into()));
                }
                ArithOp::Div => Int(x.checked_div(y).ok_or_else(overflow)?),
                ArithOp::Mod => Int(x.checked_rem(y).ok_or_else(overflow)?),
                ArithOp::Pow => Float((x as f64).powf(y as f64)),
            },
            (op, x @ (Int(_) | Float(_)), y @ (Int(_) | Float(_))) => {
                let f = |v: &Value| match v {
                    Int(i) => *i as f64,
                    Float(f) => *f,
                    _ => 0.0,
                };
                let (x, y) = (f(&x), f(&y));
                Float(match op {
                    ArithOp::Add => x + y,
                    ArithOp::Sub => x - y,
                    ArithOp::Mul => x * y,
                    ArithOp::Div => x / y,
                    ArithOp::Mod => x % y,
                    ArithOp::Pow => x.powf(y),
                })
            }
            (op, x, y) => {
                let sym = match op {
                    ArithOp::Add => "+",
                    ArithOp::Sub => "-",
                    ArithOp::Mul => "*",
                    ArithOp::Div => "/",
                    ArithOp::Mod => "%",
                    ArithOp::Pow => "^",
                };
                return Err(type_err(
                    pos,
                    format!(
                        "cannot apply {sym} to {} and {}",
                        x.type_name(),
                        y.type_name()
                    ),
                ));
            }
        })
    }

    fn func(&mut self, f: Func, mut args: Vec<Value>, pos: usize) -> R<Value> {
        use Value::*;
        let g = self.g;
        let in_graph = |ix: Ix| (ix as usize) < g.len();
        let a = take(&mut args, 0);
        let wrong = |v: &Value, what: &str| -> R<Value> {
            Err(type_err(
                pos,
                format!("{}() expects {what}, got {}", func_name(f), v.type_name()),
            ))
        };
        if a.is_null() && !matches!(f, Func::Coalesce) {
            return Ok(Null);
        }
        Ok(match f {
            Func::Labels => match a {
                Node(ix) if in_graph(ix) => Value::labels_of(g, ix),
                other => return wrong(&other, "a node"),
            },
            Func::Type => match a {
                Rel { kind, .. } => Str(type_name(kind).to_string()),
                other => return wrong(&other, "a relationship"),
            },
            Func::Id => match a {
                Node(ix) if in_graph(ix) => Int(g.node(ix).id),
                other => return wrong(&other, "a node (relationships have no id)"),
            },
            Func::Size => match a {
                List(l) => Int(l.len() as i64),
                Str(s) => Int(s.chars().count() as i64),
                other => return wrong(&other, "a list or a string"),
            },
            Func::Length => match a {
                Path { rels, .. } => Int(rels.len() as i64),
                List(l) => Int(l.len() as i64),
                Str(s) => Int(s.chars().count() as i64),
                other => return wrong(&other, "a path"),
            },
            Func::Nodes => match a {
                Path { nodes, .. } => {
                    self.tick(nodes.len() as u64)?;
                    List(nodes.into_iter().map(Node).collect())
                }
                other => return wrong(&other, "a path"),
            },
            Func::Relationships => match a {
                Path { rels, .. } => List(rels),
                List(l) if l.iter().all(|r| matches!(r, Rel { .. })) => List(l),
                other => return wrong(&other, "a path"),
            },
            Func::ToLower => match a {
                Str(s) => check_string(s.to_lowercase(), pos)?,
                other => return wrong(&other, "a string"),
            },
            Func::ToUpper => match a {
                Str(s) => check_string(s.to_uppercase(), pos)?,
                other => return wrong(&other, "a string"),
            },
            Func::Coalesce => {
                if !a.is_null() {
                    return Ok(a);
                }
                args.into_iter().find(|v| !v.is_null()).unwrap_or(Null)
            }
            Func::ToString => match a {
                Str(s) => Str(s),
                v @ (Int(_) | Float(_) | Bool(_)) => Str(scalar_string(&v)),
                other => return wrong(&other, "a string, number or boolean"),
            },
            Func::ToInteger => match a {
                Int(i) => Int(i),
                Float(x) => as_i64(x).map_or(Null, Int),
                Bool(b) => Int(i64::from(b)),
                Str(s) => {
                    let t = s.trim();
                    match t.parse::<i64>() {
                        Ok(i) => Int(i),
                        Err(_) => t.parse::<f64>().ok().and_then(as_i64).map_or(Null, Int),
                    }
                }
                other => return wrong(&other, "a string, number or boolean"),
            },
            Func::ToFloat => match a {
                Int(i) => Float(i as f64),
                Float(x) => Float(x),
                Str(s) => s.trim().parse::<f64>().map_or(Null, Float),
                other => return wrong(&other, "a string or number"),
            },
            Func::ToBoolean => match a {
                Bool(b) => Bool(b),
                Int(i) => Bool(i != 0),
                Str(s) => match s.trim().to_ascii_lowercase().as_str() {
                    "true" => Bool(true),
                    "false" => Bool(false),
                    _ => Null,
                },
                other => return wrong(&other, "a string, integer or boolean"),
            },
            Func::StartNode | Func::EndNode => match a {
                Rel { src, dst, .. } => Node(if f == Func::StartNode { src } else { dst }),
                other => return wrong(&other, "a relationship"),
            },
            Func::Head => match a {
                List(mut l) => {
                    if l.is_empty() {
                        Null
                    } else {
                        l.swap_remove(0)
                    }
                }
                other => return wrong(&other, "a list"),
            },
            Func::Last => match a {
                List(mut l) => l.pop().unwrap_or(Null),
                other => return wrong(&other, "a list"),
            },
            Func::Tail => match a {
                List(l) => List(l.into_iter().skip(1).collect()),
                other => return wrong(&other, "a list"),
            },
            Func::Abs => match a {
                Int(i) => Int(i
                    .checked_abs()
                    .ok_or_else(|| type_err(pos, "integer overflow".into()))?),
                Float(x) => Float(x.abs()),
                other => return wrong(&other, "a number"),
            },
            Func::Round | Func::Floor | Func::Ceil | Func::Sqrt => {
                let x = match a {
                    Int(i) => i as f64,
                    Float(x) => x,
                    other => return wrong(&other, "a number"),
                };
                Float(match f {
                    Func::Round => x.round(),
                    Func::Floor => x.floor(),
                    Func::Ceil => x.ceil(),
                    _ => x.sqrt(),
                })
            }
            Func::Sign => match a {
                Int(i) => Int(i.signum()),
                Float(x) if x.is_nan() => Float(x),
                Float(x) => Int(if x > 0.0 {
                    1
                } else if x < 0.0 {
                    -1
                } else {
                    0
                }),
                other => return wrong(&other, "a number"),
            },
            Func::Trim | Func::LTrim | Func::RTrim => match a {
                Str(s) => Str(match f {
                    Func::Trim => s.trim(),
                    Func::LTrim => s.trim_start(),
                    _ => s.trim_end(),
                }
                .to_string()),
                other => return wrong(&other, "a string"),
            },
            Func::Replace => {
                let (search, repl) = (take(&mut args, 1), take(&mut args, 2));
                match (a, search, repl) {
                    (_, Null, _) | (_, _, Null) => Null,
                    (Str(s), Str(search), Str(repl)) => {
                        let pieces = if search.is_empty() {
                            s.chars().count() + 1
                        } else {
                            s.matches(search.as_str()).count()
                        };
                        let estimate = s.len().saturating_add(pieces.saturating_mul(repl.len()));
                        if estimate > MAX_STRING {
                            return Err(CypherError::limit(
                                pos,
                                format!("a string longer than {MAX_STRING} bytes was built"),
                            ));
                        }
                        self.tick(estimate as u64 / 64)?;
                        Str(s.replace(search.as_str(), &repl))
                    }
                    (other, _, _) => return wrong(&other, "strings"),
                }
            }
            Func::Substring => {
                let (start, len) = (take(&mut args, 1), take(&mut args, 2));
                let Str(s) = a else {
                    return wrong(&a, "a string");
                };
                let start = match start {
                    Int(i) if i >= 0 => i as usize,
                    Null => return Ok(Null),
                    other => return wrong(&other, "a non-negative integer start"),
                };
                let chars = s.chars().skip(start);
                match len {
                    Null if args.len() < 3 => Str(chars.collect()),
                    Null => Null,
                    Int(n) if n >= 0 => Str(chars.take(n as usize).collect()),
                    other => return wrong(&other, "a non-negative integer length"),
                }
            }
            Func::Split => {
                let sep = take(&mut args, 1);
                match (a, sep) {
                    (_, Null) => Null,
                    (Str(s), Str(sep)) => {
                        let parts: Vec<Value> = if sep.is_empty() {
                            s.chars().map(|c| Str(c.to_string())).collect()
                        } else {
                            s.split(sep.as_str()).map(|p| Str(p.to_string())).collect()
                        };
                        self.tick(parts.len() as u64)?;
                        List(parts)
                    }
                    (other, _) => return wrong(&other, "strings"),
                }
            }
            Func::Left | Func::Right => {
                let n = take(&mut args, 1);
                let Str(s) = a else {
                    return wrong(&a, "a string");
                };
                let n = match n {
                    Int(n) if n >= 0 => usize::try_from(n).unwrap_or(usize::MAX),
                    Null => return Ok(Null),
                    other => return wrong(&other, "a non-negative integer length"),
                };
                if f == Func::Left {
                    Str(s.chars().take(n).collect())
                } else {
                    let count = s.chars().count();
                    Str(s.chars().skip(count.saturating_sub(n)).collect())
                }
            }
            Func::Reverse => match a {
                Str(s) => Str(s.chars().rev().collect()),
                List(mut l) => {
                    l.reverse();
                    List(l)
                }
                other => return wrong(&other, "a string or a list"),
            },
            Func::Range => {
                let (end, step) = (take(&mut args, 1), take(&mut args, 2));
                let step = match step {
                    Null if args.len() < 3 => 1,
                    Int(0) => return Err(type_err(pos, "range() step cannot be 0".into())),
                    Int(s) => s,
                    other => return wrong(&other, "an integer step"),
                };
                let (Int(start), Int(end)) = (&a, &end) else {
                    return wrong(if matches!(a, Int(_)) { &end } else { &a }, "integers");
                };
                let (start, end) = (*start as i128, *end as i128);
                let count = if (step > 0 && end >= start) || (step < 0 && end <= start) {
                    ((end - start) / step as i128 + 1) as u128
                } else {
                    0
                };
                let remaining = self.opts.max_work.saturating_sub(self.work) as u128;
                if count > remaining || count > MAX_LIST_LEN as u128 {
                    return Err(CypherError::limit(
                        pos,
                        format!(
                            "range() of {count} elements is too long (at most {MAX_LIST_LEN}, and within max_work)"
                        ),
                    ));
                }
                self.tick(count as u64)?;
                let mut out = Vec::with_capacity(count as usize);
                let mut x = start;
                for _ in 0..count {
                    out.push(Int(x as i64));
                    x += step as i128;
                }
                List(out)
            }
            Func::IsEmpty => match a {
                List(l) => Bool(l.is_empty()),
                Str(s) => Bool(s.is_empty()),
                other => return wrong(&other, "a list or a string"),
            },
        })
    }
}

fn scalar_string(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::Bool(b) => b.to_string(),
        Value::Str(s) => s.clone(),
        _ => String::new(),
    }
}
