//! AST → [`Plan`]: names resolved (variables to slots, labels and types to kinds, properties),
//! constants folded where cheap, and each `MATCH` ordered into steps: every pattern starts at
//! its cheapest node and `WHERE` conjuncts are placed right after the step that binds their last
//! variable.

use regex::{Regex, RegexBuilder};

use crate::{EdgeKind, Graph};

use super::QueryOptions;
use super::ast::*;
use super::error::{CypherError, ErrorKind};
use super::plan::*;
use super::schema::{
    NODE_PROPS, Owner, Prop, REL_PROPS, label_names, parse_label, parse_prop, parse_type,
    prop_names, type_names, unknown_message,
};
use super::value::Value;

type R<T> = Result<T, CypherError>;

/// Hard cap on `max_hops`, whatever the options say.
pub const MAX_HOPS_CAP: u32 = 100;

/// Scalar functions: name (lower case), function, minimum and maximum argument count.
pub const FUNCTIONS: &[(&str, Func, usize, usize)] = &[
    ("labels", Func::Labels, 1, 1),
    ("type", Func::Type, 1, 1),
    ("id", Func::Id, 1, 1),
    ("size", Func::Size, 1, 1),
    ("length", Func::Length, 1, 1),
    ("nodes", Func::Nodes, 1, 1),
    ("relationships", Func::Relationships, 1, 1),
    ("rels", Func::Relationships, 1, 1),
    ("tolower", Func::ToLower, 1, 1),
    ("lower", Func::ToLower, 1, 1),
    ("toupper", Func::ToUpper, 1, 1),
    ("upper", Func::ToUpper, 1, 1),
    ("coalesce", Func::Coalesce, 1, 64),
    ("tostring", Func::ToString, 1, 1),
    ("tointeger", Func::ToInteger, 1, 1),
    ("toint", Func::ToInteger, 1, 1),
    ("tofloat", Func::ToFloat, 1, 1),
    ("toboolean", Func::ToBoolean, 1, 1),
    ("startnode", Func::StartNode, 1, 1),
    ("endnode", Func::EndNode, 1, 1),
    ("head", Func::Head, 1, 1),
    ("last", Func::Last, 1, 1),
    ("tail", Func::Tail, 1, 1),
    ("abs", Func::Abs, 1, 1),
    ("round", Func::Round, 1, 1),
    ("floor", Func::Floor, 1, 1),
    ("ceil", Func::Ceil, 1, 1),
    ("sign", Func::Sign, 1, 1),
    ("sqrt", Func::Sqrt, 1, 1),
    ("trim", Func::Trim, 1, 1),
    ("ltrim", Func::LTrim, 1, 1),
    ("rtrim", Func::RTrim, 1, 1),
    ("replace", Func::Replace, 3, 3),
    ("substring", Func::Substring, 2, 3),
    ("split", Func::Split, 2, 2),
    ("left", Func::Left, 2, 2),
    ("right", Func::Right, 2, 2),
    ("reverse", Func::Reverse, 1, 1),
    ("range", Func::Range, 2, 3),
    ("isempty", Func::IsEmpty, 1, 1),
];

const AGGREGATES: &[(&str, AggFunc)] = &[
    ("count", AggFunc::Count),
    ("collect", AggFunc::Collect),
    ("sum", AggFunc::Sum),
    ("avg", AggFunc::Avg),
    ("min", AggFunc::Min),
    ("max", AggFunc::Max),
];

fn function_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = AGGREGATES.iter().map(|(n, _)| *n).collect();
    names.push("exists");
    names.extend(FUNCTIONS.iter().map(|(n, ..)| *n));
    names
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VarType {
    Node,
    Rel,
    RelList,
    Path,
    Any,
}

impl VarType {
    fn describe(self) -> &'static str {
        match self {
            VarType::Node => "a node",
            VarType::Rel => "a relationship",
            VarType::RelList => "a list of relationships",
            VarType::Path => "a path",
            VarType::Any => "a value",
        }
    }
}

#[derive(Debug, Clone)]
struct Var {
    name: String,
    slot: Slot,
    ty: VarType,
}

struct Compiler<'a> {
    g: &'a Graph,
    opts: &'a QueryOptions,
    vars: Vec<Var>,
    width: usize,
    /// Aggregates of the projection being compiled (`None`: aggregates not allowed here).
    aggs: Option<Vec<AggSpec>>,
    in_agg: bool,
    warnings: Vec<String>,
}

pub fn compile(g: &Graph, q: &Query, opts: &QueryOptions) -> R<Plan> {
    if q.union_all.iter().any(|a| *a) && q.union_all.iter().any(|a| !*a) {
        return Err(CypherError::unsupported(
            0,
            "mixing UNION and UNION ALL is not supported",
        ));
    }
    for (name, v) in &opts.params {
        check_param(g, name, v)?;
    }
    let mut c = Compiler {
        g,
        opts,
        vars: Vec::new(),
        width: 0,
        aggs: None,
        in_agg: false,
        warnings: Vec::new(),
    };
    let mut parts = Vec::new();
    for part in &q.parts {
        let (pipe, ret_pos) = c.single(part)?;
        if let Some(first) = parts.first().map(|p: &Pipeline| &p.columns)
            && *first != pipe.columns
        {
            return Err(CypherError::syntax(
                ret_pos,
                format!(
                    "every part of a UNION must return the same columns (first: {}; this one: {})",
                    first.join(", "),
                    pipe.columns.join(", ")
                ),
            ));
        }
        parts.push(pipe);
    }
    Ok(Plan {
        parts,
        distinct_union: q.union_all.iter().any(|a| !*a),
        warnings: c.warnings,
    })
}

/// Parameters come from the caller: nodes and relationships in them must be in the graph.
fn check_param(g: &Graph, name: &str, v: &Value) -> R<()> {
    let mut stack = vec![(v, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        let bad = |ix: crate::Ix| (ix as usize) >= g.len();
        let invalid = match v {
            Value::Node(ix) => bad(*ix),
            Value::Rel { src, dst, .. } => bad(*src) || bad(*dst),
            Value::Path { nodes, rels } => {
                stack.extend(rels.iter().map(|r| (r, depth + 1)));
                nodes.iter().any(|ix| bad(*ix))
            }
            Value::List(items) => {
                if depth > 64 {
                    return Err(CypherError::limit(
                        0,
                        format!("parameter ${name} is nested too deeply"),
                    ));
                }
                stack.extend(items.iter().map(|i| (i, depth + 1)));
                false
            }
            _ => false,
        };
        if invalid {
            return Err(CypherError::type_error(
                0,
                format!("parameter ${name} refers to a node that is not in the graph"),
            ));
        }
    }
    Ok(())
}

struct PNode {
    slot: Slot,
    /// Bound outside (or earlier); its type is not known to be a node.
    untyped: bool,
}

struct PRel {
    slot: Slot,
    kinds: Vec<EdgeKind>,
    dir: Direction,
    var_len: Option<(u32, u32)>,
    /// The list must be materialised (named, or part of a path).
    need_list: bool,
    edge_pred: Option<(Slot, CExpr)>,
}

struct PChain {
    nodes: Vec<PNode>,
    rels: Vec<PRel>,
    path: Option<Slot>,
}

/// An index lookup usable as an anchor: the key and the value expression.
type Hint = (LookupKey, CExpr);

struct Conj {
    expr: CExpr,
    refs: Vec<Slot>,
    placed: bool,
}

fn flip(d: Direction) -> Direction {
    match d {
        Direction::Out => Direction::In,
        Direction::In => Direction::Out,
        Direction::Both => Direction::Both,
    }
}

/// Every slot an expression reads (for a subquery: the outer slots it reads).
pub fn collect_slots(e: &CExpr, out: &mut Vec<Slot>) {
    match e {
        CExpr::Const(_) | CExpr::Agg(_) => {}
        CExpr::Slot(s) => out.push(*s),
        CExpr::List(items) | CExpr::And(items) | CExpr::Or(items) | CExpr::Xor(items) => {
            for i in items {
                collect_slots(i, out);
            }
        }
        CExpr::Postfix(base, ops) => {
            collect_slots(base, out);
            for (op, _) in ops {
                match op {
                    CPost::Index(e) => collect_slots(e, out),
                    CPost::Slice(a, b) => {
                        for e in [a, b].into_iter().flatten() {
                            collect_slots(e, out);
                        }
                    }
                    CPost::Prop(..) | CPost::HasLabel(_) => {}
                }
            }
        }
        CExpr::Not(e, _) | CExpr::Neg(e, _) => collect_slots(e, out),
        CExpr::Cmp(first, rest) => {
            collect_slots(first, out);
            for (_, e) in rest {
                collect_slots(e, out);
            }
        }
        CExpr::Pred(base, ops) => {
            collect_slots(base, out);
            for (op, _) in ops {
                match op {
                    CPred::StartsWith(e)
                    | CPred::EndsWith(e)
                    | CPred::Contains(e)
                    | CPred::In(e)
                    | CPred::Regex(RegexArg::Dynamic(e)) => collect_slots(e, out),
                    CPred::Regex(RegexArg::Fixed(_)) | CPred::IsNull | CPred::IsNotNull => {}
                }
            }
        }
        CExpr::Arith(first, rest) => {
            collect_slots(first, out);
            for (_, e, _) in rest {
                collect_slots(e, out);
            }
        }
        CExpr::Func(_, args, _) => {
            for a in args {
                collect_slots(a, out);
            }
        }
        CExpr::Case {
            subject,
            whens,
            otherwise,
        } => {
            if let Some(s) = subject {
                collect_slots(s, out);
            }
            for (w, t) in whens {
                collect_slots(w, out);
                collect_slots(t, out);
            }
            if let Some(o) = otherwise {
                collect_slots(o, out);
            }
        }
        CExpr::Sub(sub, _) => out.extend(sub.outer_refs.iter().copied()),
    }
}

/// `n.name = v`, `v = n.qname`, `id(n) = v`, `n.id = v`, `n.name IN v`: the node slot, the
/// key and the value expression.
fn index_hint(e: &CExpr) -> Option<(Slot, LookupKey, &CExpr)> {
    fn key_of(e: &CExpr) -> Option<(Slot, LookupKey)> {
        match e {
            CExpr::Postfix(base, ops) if ops.len() == 1 => {
                let CExpr::Slot(s) = **base else {
                    return None;
                };
                match ops[0].0 {
                    CPost::Prop(Prop::Name, _) => Some((s, LookupKey::Name)),
                    CPost::Prop(Prop::QName, _) => Some((s, LookupKey::QName)),
                    CPost::Prop(Prop::Id, _) => Some((s, LookupKey::Id)),
                    _ => None,
                }
            }
            CExpr::Func(Func::Id, args, _) if args.len() == 1 => match args[0] {
                CExpr::Slot(s) => Some((s, LookupKey::Id)),
                _ => None,
            },
            _ => None,
        }
    }
    match e {
        CExpr::Cmp(first, rest) if rest.len() == 1 && rest[0].0 == CmpOp::Eq => {
            if let Some((s, k)) = key_of(first) {
                return Some((s, k, &rest[0].1));
            }
            key_of(&rest[0].1).map(|(s, k)| (s, k, &**first))
        }
        CExpr::Pred(base, ops) if ops.len() == 1 => match &ops[0].0 {
            CPred::In(list) => key_of(base).map(|(s, k)| (s, k, list)),
            _ => None,
        },
        _ => None,
    }
}

/// Clones the value side of an index hint when it is simple (constants, slots, properties of
/// slots, lists of those).
fn clone_simple(e: &CExpr) -> Option<CExpr> {
    match e {
        CExpr::Const(v) => Some(CExpr::Const(v.clone())),
        CExpr::Slot(s) => Some(CExpr::Slot(*s)),
        CExpr::List(items) => items
            .iter()
            .map(clone_simple)
            .collect::<Option<Vec<_>>>()
            .map(CExpr::List),
        CExpr::Postfix(base, ops) => {
            let CExpr::Slot(s) = **base else {
                return None;
            };
            let ops = ops
                .iter()
                .map(|(op, pos)| match op {
                    CPost::Prop(p, n) => Some((CPost::Prop(*p, n), *pos)),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?;
            Some(CExpr::Postfix(Box::new(CExpr::Slot(s)), ops))
        }
        _ => None,
    }
}

fn prop_label(p: Prop) -> &'static str {
    NODE_PROPS
        .iter()
        .chain(REL_PROPS)
        .find(|(_, q)| *q == p)
        .map_or("?", |(n, _)| n)
}

/// Builds a `^(?:...)$` regex with size limits (after checking the pattern on its own, so an
/// unbalanced `)` cannot escape the wrapper).
pub fn build_regex(pattern: &str) -> Result<Regex, String> {
    let build = |p: &str| {
        RegexBuilder::new(p)
            .size_limit(1 << 20)
            .dfa_size_limit(1 << 20)
            .nest_limit(64)
            .build()
            .map_err(|e| {
                let msg = e.to_string();
                let first: String = msg.lines().last().unwrap_or("").chars().take(200).collect();
                format!("invalid regular expression: {}", first.trim())
            })
    };
    build(pattern)?;
    build(&format!("^(?:{pattern})$"))
}

impl Compiler<'_> {
    fn alloc(&mut self) -> Slot {
        let s = self.width;
        self.width += 1;
        s
    }

    fn lookup(&self, name: &str) -> Option<&Var> {
        self.vars.iter().rev().find(|v| v.name == name)
    }

    fn declare_new(&mut self, id: &Ident, ty: VarType) -> R<Slot> {
        if let Some(v) = self.lookup(&id.name) {
            return Err(CypherError::syntax(
                id.pos,
                format!(
                    "variable `{}` is already declared (as {})",
                    id.name,
                    v.ty.describe()
                ),
            ));
        }
        let slot = self.alloc();
        self.vars.push(Var {
            name: id.name.clone(),
            slot,
            ty,
        });
        Ok(slot)
    }

    fn param(&self, name: &str, pos: usize) -> R<&Value> {
        self.opts
            .params
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| {
                let given: Vec<&str> = self.opts.params.iter().map(|(n, _)| n.as_str()).collect();
                CypherError::unknown(
                    pos,
                    format!(
                        "parameter ${name} was not provided (given: {})",
                        if given.is_empty() {
                            "none".to_string()
                        } else {
                            given.join(", ")
                        }
                    ),
                )
            })
    }

    fn single(&mut self, sq: &SingleQuery) -> R<(Pipeline, usize)> {
        self.vars.clear();
        self.width = 0;
        let mut stages: Vec<Stage> = Vec::new();
        let mut seg_owner: Option<usize> = None;
        let mut first_width = 0;
        let mut columns = Vec::new();
        let mut ret_pos = 0;
        for clause in &sq.clauses {
            match clause {
                Clause::Match(m) => {
                    let first_new = self.width;
                    let (steps, _, _) =
                        self.patterns_to_steps(&m.patterns, m.where_.as_ref(), false)?;
                    stages.push(Stage::Match {
                        steps,
                        optional: m.optional,
                        new_slots: (first_new..self.width).collect(),
                        pos: m.pos,
                    });
                }
                Clause::Unwind(u) => {
                    let expr = self.expr(&u.expr)?;
                    let slot = self.declare_new(&u.alias, VarType::Any)?;
                    stages.push(Stage::Unwind {
                        expr,
                        slot,
                        pos: u.pos,
                    });
                }
                Clause::With(p) | Clause::Return(p) => {
                    let is_return = matches!(clause, Clause::Return(_));
                    let (proj, names) = self.projection(p, is_return)?;
                    match seg_owner {
                        Some(i) => {
                            if let Some(Stage::Project(prev)) = stages.get_mut(i) {
                                prev.out_width = proj.in_width;
                            }
                        }
                        None => first_width = proj.in_width,
                    }
                    if is_return {
                        columns = names;
                        ret_pos = p.pos;
                    }
                    stages.push(Stage::Project(Box::new(proj)));
                    seg_owner = Some(stages.len() - 1);
                }
            }
        }
        Ok((
            Pipeline {
                stages,
                width: first_width,
                columns,
            },
            ret_pos,
        ))
    }

    // ---- patterns ----

    fn label_mask(&self, groups: &[Vec<Ident>]) -> R<KindMask> {
        let mut mask = ALL_KINDS;
        for group in groups {
            let mut m = 0;
            for id in group {
                let k = parse_label(&id.name).ok_or_else(|| {
                    CypherError::unknown(id.pos, unknown_message("label", &id.name, &label_names()))
                })?;
                m |= kind_bit(k);
            }
            mask &= m;
        }
        Ok(mask)
    }

    fn rel_kinds(&self, types: &[Ident]) -> R<Vec<EdgeKind>> {
        let mut kinds = Vec::new();
        for id in types {
            let k = parse_type(&id.name).ok_or_else(|| {
                CypherError::unknown(
                    id.pos,
                    unknown_message("relationship type", &id.name, &type_names()),
                )
            })?;
            kinds.push(k);
        }
        kinds.sort();
        kinds.dedup();
        Ok(kinds)
    }

    fn resolve_prop(&self, name: &str, owner: Owner, pos: usize) -> R<Prop> {
        parse_prop(name, owner).ok_or_else(|| {
            let what = match owner {
                Owner::Node => "node property",
                Owner::Rel => "relationship property",
                Owner::Any => "property",
            };
            CypherError::unknown(pos, unknown_message(what, name, &prop_names(owner)))
        })
    }

    fn prop_eq(&mut self, slot: Slot, owner: Owner, key: &Ident, value: &Expr) -> R<CExpr> {
        let prop = self.resolve_prop(&key.name, owner, key.pos)?;
        let v = self.expr(value)?;
        Ok(CExpr::Cmp(
            Box::new(CExpr::Postfix(
                Box::new(CExpr::Slot(slot)),
                vec![(CPost::Prop(prop, prop_label(prop)), key.pos)],
            )),
            vec![(CmpOp::Eq, v)],
        ))
    }

    fn node_slot(&mut self, np: &NodePattern) -> R<PNode> {
        let Some(id) = &np.var else {
            return Ok(PNode {
                slot: self.alloc(),
                untyped: false,
            });
        };
        if let Some(v) = self.lookup(&id.name) {
            return match v.ty {
                VarType::Node => Ok(PNode {
                    slot: v.slot,
                    untyped: false,
                }),
                VarType::Any => Ok(PNode {
                    slot: v.slot,
                    untyped: true,
                }),
                other => Err(CypherError::type_error(
                    id.pos,
                    format!("`{}` is {}, not a node", id.name, other.describe()),
                )),
            };
        }
        Ok(PNode {
            slot: self.declare_new(id, VarType::Node)?,
            untyped: false,
        })
    }

    fn rel_slot(&mut self, rp: &RelPattern, var_len: bool) -> R<Slot> {
        let Some(id) = &rp.var else {
            return Ok(self.alloc());
        };
        if let Some(v) = self.lookup(&id.name) {
            if var_len {
                return Err(CypherError::unsupported(
                    id.pos,
                    format!(
                        "re-using `{}` in a variable-length pattern is not supported; a variable-length relationship needs a new variable",
                        id.name
                    ),
                ));
            }
            return match v.ty {
                VarType::Rel | VarType::Any => Ok(v.slot),
                other => Err(CypherError::type_error(
                    id.pos,
                    format!("`{}` is {}, not a relationship", id.name, other.describe()),
                )),
            };
        }
        let ty = if var_len {
            VarType::RelList
        } else {
            VarType::Rel
        };
        self.declare_new(id, ty)
    }

    fn var_length(&mut self, rp: &RelPattern) -> Option<(u32, u32)> {
        let (lo, hi) = rp.length?;
        let cap = self.opts.max_hops.min(MAX_HOPS_CAP);
        let min = lo.unwrap_or(1);
        let max = match hi {
            None => {
                self.warnings.push(format!(
                    "variable-length pattern at offset {} has no upper bound; capped at {cap} hops",
                    rp.pos
                ));
                cap
            }
            Some(h) if h > cap => {
                self.warnings.push(format!(
                    "variable-length pattern at offset {}: upper bound {h} capped at {cap} hops",
                    rp.pos
                ));
                cap
            }
            Some(h) => h,
        };
        Some((min, max))
    }

    /// Declares the patterns' variables, compiles their property maps and `where_` into
    /// conjuncts and plans the steps. Returns the steps, the slots below the first new one
    /// that are read, and (with `want_path`) the slot of the first pattern's path.
    fn patterns_to_steps(
        &mut self,
        patterns: &[Pattern],
        where_: Option<&Expr>,
        want_path: bool,
    ) -> R<(Vec<Step>, Vec<Slot>, Option<Slot>)> {
        let first_new = self.width;
        let mut chains = Vec::new();
        let mut masks: Vec<(Slot, KindMask)> = Vec::new();
        let mut pending_props: Vec<(Slot, Owner, &Ident, &Expr)> = Vec::new();
        let mut var_len_props: Vec<(usize, usize, &RelPattern)> = Vec::new();
        for (pi, p) in patterns.iter().enumerate() {
            let path = match &p.path_var {
                Some(id) => Some(self.declare_new(id, VarType::Path)?),
                None if want_path && pi == 0 => Some(self.alloc()),
                None => None,
            };
            let mut nodes = Vec::new();
            let mut rels = Vec::new();
            let node_list = std::iter::once(&p.start).chain(p.chain.iter().map(|(_, n)| n));
            for (i, np) in node_list.enumerate() {
                let pn = self.node_slot(np)?;
                let mask = self.label_mask(&np.labels)?;
                masks.push((pn.slot, mask));
                for (k, v) in &np.props {
                    pending_props.push((pn.slot, Owner::Node, k, v));
                }
                nodes.push(pn);
                if let Some((rp, _)) = p.chain.get(i) {
                    let var_len = self.var_length(rp);
                    let slot = self.rel_slot(rp, var_len.is_some())?;
                    let kinds = self.rel_kinds(&rp.types)?;
                    if var_len.is_some() {
                        if !rp.props.is_empty() {
                            var_len_props.push((pi, i, rp));
                        }
                    } else {
                        for (k, v) in &rp.props {
                            pending_props.push((slot, Owner::Rel, k, v));
                        }
                    }
                    rels.push(PRel {
                        slot,
                        kinds,
                        dir: rp.dir,
                        var_len,
                        need_list: rp.var.is_some() || path.is_some(),
                        edge_pred: None,
                    });
                }
            }
            chains.push(PChain { nodes, rels, path });
        }
        // Conjuncts: property maps, then WHERE split at its top-level ANDs.
        let mut conjs = Vec::new();
        for (slot, owner, k, v) in pending_props {
            let expr = self.prop_eq(slot, owner, k, v)?;
            conjs.push(expr);
        }
        for (pi, ri, rp) in var_len_props {
            let edge_slot = self.alloc();
            let mut preds = Vec::new();
            for (k, v) in &rp.props {
                let e = self.prop_eq(edge_slot, Owner::Rel, k, v)?;
                let mut refs = Vec::new();
                collect_slots(&e, &mut refs);
                if refs.iter().any(|&s| s != edge_slot) {
                    return Err(CypherError::unsupported(
                        v.pos,
                        "property maps of variable-length relationships must be constants or parameters",
                    ));
                }
                preds.push(e);
            }
            let pred = if preds.len() == 1 {
                preds.pop().unwrap_or(CExpr::Const(Value::Bool(true)))
            } else {
                CExpr::And(preds)
            };
            if let Some(rel) = chains.get_mut(pi).and_then(|c| c.rels.get_mut(ri)) {
                rel.edge_pred = Some((edge_slot, pred));
            }
        }
        if let Some(w) = where_ {
            match &w.kind {
                ExprKind::And(list) => {
                    for e in list {
                        conjs.push(self.cond(e)?);
                    }
                }
                _ => conjs.push(self.cond(w)?),
            }
        }
        let mut conjs: Vec<Conj> = conjs
            .into_iter()
            .map(|expr| {
                let mut refs = Vec::new();
                collect_slots(&expr, &mut refs);
                refs.sort_unstable();
                refs.dedup();
                Conj {
                    expr,
                    refs,
                    placed: false,
                }
            })
            .collect();

        // Outer slots read (for subqueries).
        let mut outer: Vec<Slot> = conjs.iter().flat_map(|c| c.refs.iter().copied()).collect();
        for ch in &chains {
            outer.extend(ch.nodes.iter().map(|n| n.slot));
            outer.extend(ch.rels.iter().map(|r| r.slot));
        }
        outer.retain(|&s| s < first_new);
        outer.sort_unstable();
        outer.dedup();

        // Combined label mask per slot.
        let mut mask_of = vec![ALL_KINDS; self.width];
        for (s, m) in masks {
            if let Some(x) = mask_of.get_mut(s) {
                *x &= m;
            }
        }
        let path_slot = if want_path {
            chains.first().and_then(|c| c.path)
        } else {
            None
        };
        let steps = self.plan(chains, &mut conjs, first_new, &mask_of);
        Ok((steps, outer, path_slot))
    }

    /// What anchoring a pattern at `slot` costs (about how many candidate nodes), and the index
    /// lookup to use. `hinted` are the conjuncts with an index hint on `slot`.
    fn anchor_cost(
        &self,
        slot: Slot,
        mask: KindMask,
        bound: &[bool],
        conjs: &[Conj],
        hinted: &[usize],
    ) -> (u64, Option<Hint>) {
        if bound.get(slot).copied().unwrap_or(true) {
            return (0, None);
        }
        let n = self.g.len() as u64;
        let mut best: (u64, Option<Hint>) = if mask == ALL_KINDS {
            (n + 1, None)
        } else {
            (
                kinds_in(mask)
                    .map(|k| self.g.nodes_of_kind(k).len() as u64)
                    .sum(),
                None,
            )
        };
        for c in hinted
            .iter()
            .filter_map(|&i| conjs.get(i))
            .filter(|c| !c.placed)
        {
            let Some((s, key, value)) = index_hint(&c.expr) else {
                continue;
            };
            if s != slot {
                continue;
            }
            let mut refs = Vec::new();
            collect_slots(value, &mut refs);
            if refs
                .iter()
                .any(|&r| r == slot || !bound.get(r).copied().unwrap_or(true))
            {
                continue;
            }
            let Some(value) = clone_simple(value) else {
                continue;
            };
            let cost = match &value {
                CExpr::Const(v) => self.lookup_count(key, v),
                _ => 3,
            };
            if cost < best.0 || (cost == best.0 && best.1.is_none()) {
                best = (cost, Some((key, value)));
            }
        }
        best
    }

    fn lookup_count(&self, key: LookupKey, v: &Value) -> u64 {
        match (key, v) {
            (_, Value::List(items)) => items.iter().map(|i| self.lookup_count(key, i)).sum(),
            (LookupKey::Name, Value::Str(s)) => self.g.nodes_named(s).len() as u64,
            (LookupKey::QName, Value::Str(s)) => self.g.nodes_with_qname(s).len() as u64,
            (LookupKey::Id, Value::Int(_) | Value::Float(_)) => 1,
            _ => 0,
        }
    }

    fn plan(
        &self,
        mut chains: Vec<PChain>,
        conjs: &mut [Conj],
        first_new: Slot,
        mask_of: &[KindMask],
    ) -> Vec<Step> {
        let mask = |s: Slot| mask_of.get(s).copied().unwrap_or(ALL_KINDS);
        let mut bound = vec![false; self.width];
        for b in bound.iter_mut().take(first_new) {
            *b = true;
        }
        let mut hinted: Vec<Vec<usize>> = vec![Vec::new(); self.width];
        for (i, c) in conjs.iter().enumerate() {
            if let Some((s, _, _)) = index_hint(&c.expr)
                && let Some(list) = hinted.get_mut(s)
            {
                list.push(i);
            }
        }
        let mut steps = Vec::new();
        place(&mut steps, conjs, &bound);
        let mut done = vec![false; chains.len()];
        loop {
            let mut best: Option<(u64, usize, usize, Option<Hint>)> = None;
            for (ci, ch) in chains.iter().enumerate() {
                if done[ci] {
                    continue;
                }
                for (ni, n) in ch.nodes.iter().enumerate() {
                    let list = hinted.get(n.slot).map_or(&[][..], Vec::as_slice);
                    let (cost, hint) = self.anchor_cost(n.slot, mask(n.slot), &bound, conjs, list);
                    if best.as_ref().is_none_or(|b| cost < b.0) {
                        best = Some((cost, ci, ni, hint));
                    }
                }
            }
            let Some((_, ci, ni, hint)) = best else {
                break;
            };
            done[ci] = true;
            let ch = &mut chains[ci];
            let anchor = &ch.nodes[ni];
            let s = anchor.slot;
            if bound[s] {
                if mask(s) != ALL_KINDS || anchor.untyped {
                    steps.push(Step::Check {
                        slot: s,
                        mask: mask(s),
                    });
                }
            } else if let Some((key, value)) = hint {
                steps.push(Step::Lookup {
                    slot: s,
                    key,
                    value,
                    mask: mask(s),
                });
            } else {
                let m = mask(s);
                let merged = (m != ALL_KINDS && kinds_in(m).count() > 1).then(|| {
                    let mut list: Vec<crate::Ix> = kinds_in(m)
                        .flat_map(|k| self.g.nodes_of_kind(k).iter().copied())
                        .collect();
                    list.sort_unstable();
                    list
                });
                steps.push(Step::Scan {
                    slot: s,
                    mask: m,
                    merged,
                });
            }
            bound[s] = true;
            place(&mut steps, conjs, &bound);
            for r in ni..ch.rels.len() {
                let (from, to) = (ch.nodes[r].slot, ch.nodes[r + 1].slot);
                expand(
                    &mut steps,
                    &mut ch.rels[r],
                    from,
                    to,
                    false,
                    &mut bound,
                    mask(to),
                );
                place(&mut steps, conjs, &bound);
            }
            for r in (0..ni).rev() {
                let (from, to) = (ch.nodes[r + 1].slot, ch.nodes[r].slot);
                expand(
                    &mut steps,
                    &mut ch.rels[r],
                    from,
                    to,
                    true,
                    &mut bound,
                    mask(to),
                );
                place(&mut steps, conjs, &bound);
            }
            if let Some(p) = ch.path {
                let parts = ch
                    .rels
                    .iter()
                    .zip(&ch.nodes[1..])
                    .map(|(r, n)| PathPart {
                        rel: r.slot,
                        var_len: r.var_len.is_some(),
                        node: n.slot,
                    })
                    .collect();
                steps.push(Step::Path {
                    slot: p,
                    start: ch.nodes[0].slot,
                    parts,
                });
                if let Some(b) = bound.get_mut(p) {
                    *b = true;
                }
                place(&mut steps, conjs, &bound);
            }
        }
        // Anything left (cannot happen: every slot is bound by now) still runs.
        let all = vec![true; self.width];
        place(&mut steps, conjs, &all);
        steps
    }

    // ---- projections ----

    fn const_count(&self, e: &Expr, what: &str) -> R<u64> {
        let v = match &e.kind {
            ExprKind::Int(v) => Value::Int(*v),
            ExprKind::Param(name) => self.param(name, e.pos)?.clone(),
            _ => {
                return Err(CypherError::unsupported(
                    e.pos,
                    format!(
                        "{what} must be an integer literal or a parameter (expressions are not supported)"
                    ),
                ));
            }
        };
        match v {
            Value::Int(i) if i >= 0 => Ok(i as u64),
            _ => Err(CypherError::type_error(
                e.pos,
                format!("{what} must be a non-negative integer"),
            )),
        }
    }

    fn projection(&mut self, p: &Projection, is_return: bool) -> R<(Proj, Vec<String>)> {
        let kw = if is_return { "RETURN" } else { "WITH" };
        let mut entries: Vec<(Expr, String, VarType)> = Vec::new();
        if p.star {
            let mut names: Vec<&Var> = self.vars.iter().collect();
            names.sort_by(|a, b| a.name.cmp(&b.name));
            names.dedup_by(|a, b| a.name == b.name);
            if names.is_empty() && p.items.is_empty() {
                return Err(CypherError::syntax(
                    p.pos,
                    format!("{kw} * needs at least one variable in scope"),
                ));
            }
            for v in names {
                entries.push((
                    Expr {
                        kind: ExprKind::Var(v.name.clone()),
                        pos: p.pos,
                    },
                    v.name.clone(),
                    v.ty,
                ));
            }
        }
        for item in &p.items {
            let var_ty = match &item.expr.kind {
                ExprKind::Var(n) => self.lookup(n).map(|v| (n.clone(), v.ty)),
                _ => None,
            };
            let name = match (&item.alias, &var_ty) {
                (Some(a), _) => a.name.clone(),
                (None, Some((n, _))) => n.clone(),
                (None, None) if is_return => item.text.clone(),
                (None, None) => {
                    return Err(CypherError::syntax(
                        item.expr.pos,
                        "WITH items other than variables need an alias: WITH expression AS name",
                    ));
                }
            };
            let ty = var_ty.map_or(VarType::Any, |(_, t)| t);
            entries.push((item.expr.clone(), name, ty));
        }
        for (i, (e, name, _)) in entries.iter().enumerate() {
            if entries[..i].iter().any(|(_, n, _)| n == name) {
                return Err(CypherError::syntax(
                    e.pos,
                    format!("column `{name}` appears twice in {kw}; add an alias with AS"),
                ));
            }
        }
        self.aggs = Some(Vec::new());
        let mut items = Vec::new();
        let mut item_has_agg = Vec::new();
        for (e, _, _) in &entries {
            let before = self.aggs.as_ref().map_or(0, Vec::len);
            items.push(self.expr(e)?);
            item_has_agg.push(self.aggs.as_ref().map_or(0, Vec::len) > before);
        }
        let aggregating = item_has_agg.iter().any(|a| *a);
        let alias_slots: Vec<Slot> = entries.iter().map(|_| self.alloc()).collect();
        let saved = self.vars.len();
        for ((_, name, ty), slot) in entries.iter().zip(&alias_slots) {
            self.vars.push(Var {
                name: name.clone(),
                slot: *slot,
                ty: *ty,
            });
        }
        let mut order = Vec::new();
        for s in &p.order {
            let before = self.aggs.as_ref().map_or(0, Vec::len);
            let e = self.expr(&s.expr)?;
            if !aggregating && self.aggs.as_ref().map_or(0, Vec::len) > before {
                return Err(CypherError::syntax(
                    s.expr.pos,
                    format!(
                        "an aggregate in ORDER BY needs an aggregating {kw} (e.g. {kw} x, count(*) AS c ORDER BY c)"
                    ),
                ));
            }
            order.push((e, s.descending));
        }
        self.vars.truncate(saved);
        let mut order_refs = Vec::new();
        for (e, _) in &order {
            collect_slots(e, &mut order_refs);
        }
        let order_uses_aliases = order_refs.iter().any(|s| alias_slots.contains(s));
        let aggs = self.aggs.take().unwrap_or_default();
        let skip = match &p.skip {
            Some(e) => self.const_count(e, "SKIP")?,
            None => 0,
        };
        let limit = match &p.limit {
            Some(e) => Some(self.const_count(e, "LIMIT")?),
            None => None,
        };
        let in_width = self.width;
        let names: Vec<String> = entries.iter().map(|(_, n, _)| n.clone()).collect();
        self.vars = entries
            .iter()
            .enumerate()
            .map(|(i, (_, name, ty))| Var {
                name: name.clone(),
                slot: i,
                ty: *ty,
            })
            .collect();
        self.width = entries.len();
        let where_ = match &p.where_ {
            Some(w) => Some(self.cond(w)?),
            None => None,
        };
        Ok((
            Proj {
                is_return,
                items,
                item_has_agg,
                alias_slots,
                aggs,
                aggregating,
                distinct: p.distinct,
                order,
                order_uses_aliases,
                skip,
                limit,
                where_,
                in_width,
                out_width: 0,
                pos: p.pos,
            },
            names,
        ))
    }

    // ---- expressions ----

    /// An expression in a boolean position: a bare pattern is an existence test.
    fn cond(&mut self, e: &Expr) -> R<CExpr> {
        match &e.kind {
            ExprKind::Pattern(p) => self.sub(std::slice::from_ref(&**p), None, SubMode::Exists),
            _ => self.expr(e),
        }
    }

    fn sub(&mut self, patterns: &[Pattern], where_: Option<&Expr>, mode: SubMode) -> R<CExpr> {
        let saved_vars = self.vars.len();
        let saved_aggs = self.aggs.take();
        let saved_in_agg = std::mem::replace(&mut self.in_agg, false);
        let result = self.patterns_to_steps(patterns, where_, mode == SubMode::Paths);
        self.vars.truncate(saved_vars);
        self.aggs = saved_aggs;
        self.in_agg = saved_in_agg;
        let (steps, outer_refs, path_slot) = result?;
        Ok(CExpr::Sub(
            Box::new(SubMatch {
                steps,
                outer_refs,
                path_slot,
            }),
            mode,
        ))
    }

    fn exprs(&mut self, list: &[Expr]) -> R<Vec<CExpr>> {
        list.iter().map(|e| self.expr(e)).collect()
    }

    fn conds(&mut self, list: &[Expr]) -> R<Vec<CExpr>> {
        list.iter().map(|e| self.cond(e)).collect()
    }

    fn expr(&mut self, e: &Expr) -> R<CExpr> {
        Ok(match &e.kind {
            ExprKind::Null => CExpr::Const(Value::Null),
            ExprKind::Bool(b) => CExpr::Const(Value::Bool(*b)),
            ExprKind::Int(i) => CExpr::Const(Value::Int(*i)),
            ExprKind::Float(f) => CExpr::Const(Value::Float(*f)),
            ExprKind::Str(s) => CExpr::Const(Value::Str(s.clone())),
            ExprKind::Param(name) => CExpr::Const(self.param(name, e.pos)?.clone()),
            ExprKind::Var(name) => match self.lookup(name) {
                Some(v) => CExpr::Slot(v.slot),
                None => {
                    let mut names: Vec<&str> = self.vars.iter().map(|v| v.name.as_str()).collect();
                    names.sort_unstable();
                    names.dedup();
                    let shown: String = name.chars().take(60).collect();
                    return Err(CypherError::unknown(
                        e.pos,
                        format!(
                            "unknown variable `{shown}`; variables in scope: {}",
                            if names.is_empty() {
                                "none".to_string()
                            } else {
                                names.join(", ")
                            }
                        ),
                    ));
                }
            },
            ExprKind::List(items) => {
                let items = self.exprs(items)?;
                if items.iter().all(|i| matches!(i, CExpr::Const(_))) {
                    CExpr::Const(Value::List(
                        items
                            .into_iter()
                            .map(|i| match i {
                                CExpr::Const(v) => v,
                                _ => Value::Null,
                            })
                            .collect(),
                    ))
                } else {
                    CExpr::List(items)
                }
            }
            ExprKind::Or(list) => CExpr::Or(self.conds(list)?),
            ExprKind::Xor(list) => CExpr::Xor(self.conds(list)?),
            ExprKind::And(list) => CExpr::And(self.conds(list)?),
            ExprKind::Not(inner) => CExpr::Not(Box::new(self.cond(inner)?), e.pos),
            ExprKind::Compare(first, rest) => {
                let first = self.expr(first)?;
                let mut out = Vec::new();
                for (op, x) in rest {
                    out.push((*op, self.expr(x)?));
                }
                CExpr::Cmp(Box::new(first), out)
            }
            ExprKind::Predicate(base, ops) => {
                let base = self.expr(base)?;
                let mut out = Vec::new();
                for (op, pos) in ops {
                    let c =
                        match op {
                            PredOp::StartsWith(x) => CPred::StartsWith(self.expr(x)?),
                            PredOp::EndsWith(x) => CPred::EndsWith(self.expr(x)?),
                            PredOp::Contains(x) => CPred::Contains(self.expr(x)?),
                            PredOp::In(x) => CPred::In(self.expr(x)?),
                            PredOp::Regex(x) => match self.expr(x)? {
                                CExpr::Const(Value::Str(pat)) => CPred::Regex(RegexArg::Fixed(
                                    Box::new(build_regex(&pat).map_err(|m| {
                                        CypherError::new(ErrorKind::Syntax, x.pos, m)
                                    })?),
                                )),
                                other => CPred::Regex(RegexArg::Dynamic(other)),
                            },
                            PredOp::IsNull => CPred::IsNull,
                            PredOp::IsNotNull => CPred::IsNotNull,
                        };
                    out.push((c, *pos));
                }
                CExpr::Pred(Box::new(base), out)
            }
            ExprKind::Arith(first, rest) => {
                let first = self.expr(first)?;
                let mut out = Vec::new();
                for (op, x) in rest {
                    out.push((*op, self.expr(x)?, x.pos));
                }
                CExpr::Arith(Box::new(first), out)
            }
            ExprKind::Neg(inner) => CExpr::Neg(Box::new(self.expr(inner)?), e.pos),
            ExprKind::Postfix(base, ops) => self.postfix(base, ops)?,
            ExprKind::Call {
                name,
                distinct,
                star,
                args,
            } => self.call(name, *distinct, *star, args, e.pos)?,
            ExprKind::Case {
                subject,
                whens,
                otherwise,
            } => {
                let subject = match subject {
                    Some(s) => Some(Box::new(self.expr(s)?)),
                    None => None,
                };
                let mut out = Vec::new();
                for (w, t) in whens {
                    let w = if subject.is_some() {
                        self.expr(w)?
                    } else {
                        self.cond(w)?
                    };
                    out.push((w, self.expr(t)?));
                }
                let otherwise = match otherwise {
                    Some(o) => Some(Box::new(self.expr(o)?)),
                    None => None,
                };
                CExpr::Case {
                    subject,
                    whens: out,
                    otherwise,
                }
            }
            ExprKind::Pattern(p) => self.sub(std::slice::from_ref(&**p), None, SubMode::Paths)?,
            ExprKind::Subquery {
                count,
                patterns,
                where_,
            } => {
                let mode = if *count {
                    SubMode::Count
                } else {
                    SubMode::Exists
                };
                self.sub(patterns, where_.as_deref(), mode)?
            }
        })
    }

    fn postfix(&mut self, base: &Expr, ops: &[(PostOp, usize)]) -> R<CExpr> {
        let base_ty = match &base.kind {
            ExprKind::Var(n) => self.lookup(n).map(|v| (n.clone(), v.ty)),
            _ => None,
        };
        let b = self.expr(base)?;
        let mut out = Vec::new();
        for (i, (op, pos)) in ops.iter().enumerate() {
            let c = match op {
                PostOp::Prop(id) => {
                    let owner = match (&base_ty, i) {
                        (Some((_, VarType::Node)), 0) => Owner::Node,
                        (Some((_, VarType::Rel)), 0) => Owner::Rel,
                        (Some((n, VarType::RelList)), 0) => {
                            return Err(CypherError::type_error(
                                *pos,
                                format!(
                                    "`{n}` is a list of relationships (variable-length pattern); use e.g. {n}[0].{}, size({n}) or last({n})",
                                    id.name
                                ),
                            ));
                        }
                        (Some((n, VarType::Path)), 0) => {
                            return Err(CypherError::type_error(
                                *pos,
                                format!(
                                    "`{n}` is a path; use nodes({n}), relationships({n}) or length({n})"
                                ),
                            ));
                        }
                        _ => Owner::Any,
                    };
                    let prop = self.resolve_prop(&id.name, owner, id.pos)?;
                    CPost::Prop(prop, prop_label(prop))
                }
                PostOp::Index(x) => CPost::Index(self.expr(x)?),
                PostOp::Slice(a, b) => {
                    let a = match a {
                        Some(x) => Some(self.expr(x)?),
                        None => None,
                    };
                    let b = match b {
                        Some(x) => Some(self.expr(x)?),
                        None => None,
                    };
                    CPost::Slice(a, b)
                }
                PostOp::Labels(groups) => CPost::HasLabel(self.label_mask(groups)?),
            };
            out.push((c, *pos));
        }
        Ok(CExpr::Postfix(Box::new(b), out))
    }

    fn call(
        &mut self,
        name: &Ident,
        distinct: bool,
        star: bool,
        args: &[Expr],
        pos: usize,
    ) -> R<CExpr> {
        let lname = name.name.to_ascii_lowercase();
        if let Some((_, f)) = AGGREGATES.iter().find(|(n, _)| *n == lname) {
            return self.aggregate(*f, &lname, distinct, star, args, pos);
        }
        if distinct {
            return Err(CypherError::syntax(
                pos,
                format!("DISTINCT is only allowed in aggregate functions, not in {lname}()"),
            ));
        }
        let one_arg = |what: &str| -> R<&Expr> {
            match args {
                [a] => Ok(a),
                _ => Err(CypherError::syntax(
                    pos,
                    format!("{what}() takes exactly 1 argument, got {}", args.len()),
                )),
            }
        };
        if lname == "exists" {
            let a = one_arg("exists")?;
            return match &a.kind {
                ExprKind::Pattern(p) => self.sub(std::slice::from_ref(&**p), None, SubMode::Exists),
                _ => Ok(CExpr::Pred(
                    Box::new(self.expr(a)?),
                    vec![(CPred::IsNotNull, pos)],
                )),
            };
        }
        if lname == "size"
            && let [a] = args
            && let ExprKind::Pattern(p) = &a.kind
        {
            return self.sub(std::slice::from_ref(&**p), None, SubMode::Count);
        }
        let Some(&(_, f, min, max)) = FUNCTIONS.iter().find(|(n, ..)| *n == lname) else {
            return Err(CypherError::unknown(
                name.pos,
                unknown_message("function", &name.name, &function_names()),
            ));
        };
        if args.len() < min || args.len() > max {
            let expected = if min == max {
                format!("{min}")
            } else {
                format!("{min} to {max}")
            };
            return Err(CypherError::syntax(
                pos,
                format!("{lname}() takes {expected} argument(s), got {}", args.len()),
            ));
        }
        Ok(CExpr::Func(f, self.exprs(args)?, pos))
    }

    fn aggregate(
        &mut self,
        func: AggFunc,
        lname: &str,
        distinct: bool,
        star: bool,
        args: &[Expr],
        pos: usize,
    ) -> R<CExpr> {
        if self.in_agg {
            return Err(CypherError::syntax(
                pos,
                "aggregate functions cannot be nested",
            ));
        }
        if self.aggs.is_none() {
            return Err(CypherError::syntax(
                pos,
                format!(
                    "aggregate function {lname}() is only allowed in RETURN, WITH and their ORDER BY"
                ),
            ));
        }
        let arg = if star {
            None
        } else {
            match args {
                [a] => {
                    self.in_agg = true;
                    let r = self.expr(a);
                    self.in_agg = false;
                    Some(r?)
                }
                _ => {
                    return Err(CypherError::syntax(
                        pos,
                        format!("{lname}() takes exactly 1 argument, got {}", args.len()),
                    ));
                }
            }
        };
        let list = self.aggs.get_or_insert_with(Vec::new);
        list.push(AggSpec {
            func,
            distinct,
            arg,
            pos,
        });
        Ok(CExpr::Agg(list.len() - 1))
    }
}

fn place(steps: &mut Vec<Step>, conjs: &mut [Conj], bound: &[bool]) {
    let mut ready = Vec::new();
    for c in conjs.iter_mut() {
        if !c.placed
            && c.refs
                .iter()
                .all(|&s| bound.get(s).copied().unwrap_or(true))
        {
            c.placed = true;
            ready.push(std::mem::replace(&mut c.expr, CExpr::Const(Value::Null)));
        }
    }
    if !ready.is_empty() {
        steps.push(Step::Filter(ready));
    }
}

fn expand(
    steps: &mut Vec<Step>,
    rel: &mut PRel,
    from: Slot,
    to: Slot,
    reversed: bool,
    bound: &mut [bool],
    mask: KindMask,
) {
    let dir = if reversed { flip(rel.dir) } else { rel.dir };
    let is_bound = |s: Slot| bound.get(s).copied().unwrap_or(false);
    match rel.var_len {
        None => steps.push(Step::Expand {
            from,
            rel: rel.slot,
            to,
            to_bound: is_bound(to),
            rel_bound: is_bound(rel.slot),
            kinds: rel.kinds.clone(),
            dir,
            mask,
        }),
        Some((min, max)) => steps.push(Step::VarExpand {
            from,
            rel: rel.need_list.then_some(rel.slot),
            to,
            to_bound: is_bound(to),
            kinds: rel.kinds.clone(),
            dir,
            min,
            max,
            mask,
            reverse: reversed,
            edge_pred: rel.edge_pred.take(),
        }),
    }
    for s in [to, rel.slot] {
        if let Some(b) = bound.get_mut(s) {
            *b = true;
        }
    }
}
