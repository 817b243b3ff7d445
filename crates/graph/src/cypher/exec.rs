//! Runs a [`Plan`]: a push-based pipeline of stages over rows (one mutable row per segment,
//! cloned only at barriers and in the output). A `MATCH` stage backtracks through its steps;
//! projections stream (with `SKIP` / `LIMIT` / `DISTINCT`) unless they aggregate or sort, in
//! which case they buffer and emit when their input is exhausted. `Flow::Stop` travels upstream
//! once a `LIMIT` (or the output row cap) is reached, so nothing more is matched.

use std::cmp::Ordering;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::{Edge, EdgeKind, Graph, Ix};

use super::ast::Direction;
use super::error::CypherError;
use super::plan::*;
use super::value::{Key, Value, order_cmp, rel_key};
use super::{QueryOptions, QueryResult, QueryStats};

pub(super) type R<T> = Result<T, CypherError>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Continue,
    Stop,
}

pub(super) type RelId = (Ix, Ix, EdgeKind);

/// What happens when every step of a match succeeded.
pub(super) enum Cont<'a> {
    Stage {
        pipe: &'a Pipeline,
        next: usize,
        found: bool,
    },
    Exists {
        hit: bool,
    },
    Count {
        n: i64,
    },
    Paths {
        slot: Option<Slot>,
        out: Vec<Value>,
    },
}

pub(super) enum Acc {
    Count(i64),
    Collect(Vec<Value>),
    SumInt(i64),
    SumFloat(f64),
    Avg(f64, u64),
    Min(Option<Value>),
    Max(Option<Value>),
}

pub(super) struct AccState {
    pub acc: Acc,
    pub seen: Option<FxHashSet<Key>>,
}

impl AccState {
    fn new(spec: &AggSpec) -> AccState {
        AccState {
            acc: match spec.func {
                AggFunc::Count => Acc::Count(0),
                AggFunc::Collect => Acc::Collect(Vec::new()),
                AggFunc::Sum => Acc::SumInt(0),
                AggFunc::Avg => Acc::Avg(0.0, 0),
                AggFunc::Min => Acc::Min(None),
                AggFunc::Max => Acc::Max(None),
            },
            seen: spec.distinct.then(FxHashSet::default),
        }
    }
}

struct Group {
    rep: Vec<Value>,
    keys: Vec<Value>,
    accs: Vec<AccState>,
}

#[derive(Default)]
struct StageState {
    stopped: bool,
    skipped: u64,
    emitted: u64,
    seen: FxHashSet<Key>,
    /// Groups by the hash of their keys (collisions resolved by comparing the stored keys).
    groups: FxHashMap<u64, Vec<usize>>,
    group_list: Vec<Group>,
    /// Rows of a sorting projection.
    buffer: Vec<Entry>,
    /// Once the buffer was cut to the rows a `LIMIT` can need: the sort keys of the last one
    /// kept (later rows that do not sort before it cannot make it).
    cutoff: Option<Vec<Value>>,
    seq: u64,
}

/// A row waiting to be sorted: sort keys, arrival number (the tie-break, so the order is
/// total and deterministic) and the values.
struct Entry {
    keys: Vec<Value>,
    seq: u64,
    vals: Vec<Value>,
}

pub(super) struct Exec<'a> {
    pub g: &'a Graph,
    pub opts: &'a QueryOptions,
    pub work: u64,
    pub expansions: u64,
    pub rows_scanned: u64,
    countdown: u32,
    /// Relationships bound by the current `MATCH` (from `used_base`) and the enclosing ones.
    pub used: Vec<RelId>,
    pub used_base: usize,
    states: Vec<StageState>,
    out: Vec<Vec<Value>>,
    row_cap: usize,
    /// Position of the clause being run, for errors raised without a better one.
    pub pos_hint: usize,
    pub regex_cache: FxHashMap<String, regex::Regex>,
    /// The last `=~` evaluated: (pattern, subject, result). Nodes come in path order, so
    /// consecutive rows often test the same file path: the match is not run again.
    pub regex_memo: Option<(String, String, bool)>,
}

const CHECK_EVERY: u32 = 1024;

/// Writes a slot, growing the row if needed (rows are sized by the compiler; this is a guard).
pub(super) fn put(row: &mut Vec<Value>, slot: Slot, v: Value) {
    if slot >= row.len() {
        row.resize(slot + 1, Value::Null);
    }
    row[slot] = v;
}

fn rel_value(key: RelId, e: &Edge) -> Value {
    Value::Rel {
        src: key.0,
        dst: key.1,
        kind: key.2,
        provenance: e.provenance,
        count: e.count,
    }
}

/// The adjacency slice number `combo` of `node` for a direction and kind list: directions
/// outer, kinds inner (all kinds when the list is empty).
fn slice_of<'g>(
    g: &'g Graph,
    node: Ix,
    dirs: &[bool],
    kinds: &[EdgeKind],
    combo: usize,
) -> Option<(&'g [Edge], bool)> {
    let nk = kinds.len().max(1);
    let outgoing = *dirs.get(combo / nk)?;
    let slice = match (outgoing, kinds.get(combo % nk)) {
        (true, Some(k)) => g.out_of_kind(node, *k),
        (true, None) => g.out_edges(node),
        (false, Some(k)) => g.in_of_kind(node, *k),
        (false, None) => g.in_edges(node),
    };
    Some((slice, outgoing))
}

fn dirs_of(dir: Direction) -> &'static [bool] {
    match dir {
        Direction::Out => &[true],
        Direction::In => &[false],
        Direction::Both => &[true, false],
    }
}

pub(super) fn execute(g: &Graph, plan: &Plan, opts: &QueryOptions) -> R<QueryResult> {
    let mut ex = Exec {
        g,
        opts,
        work: 0,
        expansions: 0,
        rows_scanned: 0,
        countdown: CHECK_EVERY,
        used: Vec::new(),
        used_base: 0,
        states: Vec::new(),
        out: Vec::new(),
        row_cap: opts.max_rows.saturating_add(1),
        pos_hint: 0,
        regex_cache: FxHashMap::default(),
        regex_memo: None,
    };
    ex.check_deadline()?;
    let mut rows: Vec<Vec<Value>> = Vec::new();
    let mut seen: FxHashSet<Key> = FxHashSet::default();
    for part in &plan.parts {
        for row in ex.run_pipeline(part)? {
            if plan.distinct_union && !seen.insert(Key(Value::List(row.clone()))) {
                continue;
            }
            rows.push(row);
        }
        if rows.len() > opts.max_rows {
            break;
        }
    }
    let truncated = rows.len() > opts.max_rows;
    rows.truncate(opts.max_rows);
    Ok(QueryResult {
        columns: plan
            .parts
            .first()
            .map(|p| p.columns.clone())
            .unwrap_or_default(),
        rows,
        truncated,
        stats: QueryStats {
            expansions: ex.expansions,
            rows_scanned: ex.rows_scanned,
        },
        warnings: plan.warnings.clone(),
    })
}

impl<'a> Exec<'a> {
    fn check_deadline(&self) -> R<()> {
        if let Some(d) = self.opts.deadline
            && std::time::Instant::now() >= d
        {
            return Err(CypherError::limit(
                self.pos_hint,
                format!(
                    "query stopped: deadline reached (after {} expansions, {} nodes scanned); add LIMIT, anchor the pattern on a name ({{name: '...'}}), or use narrower labels, relationship types or hop bounds",
                    self.expansions, self.rows_scanned
                ),
            ));
        }
        Ok(())
    }

    /// Counts `n` units of work; fails past `max_work`, checks the deadline now and then.
    pub(super) fn tick(&mut self, n: u64) -> R<()> {
        self.work = self.work.saturating_add(n);
        if self.work > self.opts.max_work {
            return Err(CypherError::limit(
                self.pos_hint,
                format!(
                    "query stopped: work limit reached (max_work = {}; {} expansions, {} nodes scanned); add LIMIT, anchor the pattern on a name ({{name: '...'}}), or use narrower labels, relationship types or hop bounds",
                    self.opts.max_work, self.expansions, self.rows_scanned
                ),
            ));
        }
        self.countdown -= 1;
        if self.countdown == 0 {
            self.countdown = CHECK_EVERY;
            self.check_deadline()?;
        }
        Ok(())
    }

    fn expand_tick(&mut self) -> R<()> {
        self.expansions += 1;
        self.tick(1)
    }

    fn scan_tick(&mut self) -> R<()> {
        self.rows_scanned += 1;
        self.tick(1)
    }

    fn run_pipeline(&mut self, pipe: &'a Pipeline) -> R<Vec<Vec<Value>>> {
        self.states = pipe.stages.iter().map(|_| StageState::default()).collect();
        self.out = Vec::new();
        let mut row = vec![Value::Null; pipe.width];
        self.push(pipe, 0, &mut row)?;
        for (si, stage) in pipe.stages.iter().enumerate() {
            if let Stage::Project(p) = stage
                && p.is_barrier()
            {
                self.finish(pipe, si, p)?;
            }
        }
        Ok(std::mem::take(&mut self.out))
    }

    fn push(&mut self, pipe: &'a Pipeline, si: usize, row: &mut Vec<Value>) -> R<Flow> {
        match self.states.get(si) {
            Some(st) if !st.stopped => {}
            _ => return Ok(Flow::Stop),
        }
        let Some(stage) = pipe.stages.get(si) else {
            return Ok(Flow::Stop);
        };
        let flow = match stage {
            Stage::Match {
                steps,
                optional,
                new_slots,
                pos,
            } => {
                self.pos_hint = *pos;
                let saved = self.used_base;
                self.used_base = self.used.len();
                let mut cont = Cont::Stage {
                    pipe,
                    next: si + 1,
                    found: false,
                };
                let r = self.steps(steps, 0, row, &mut cont);
                self.used.truncate(self.used_base);
                self.used_base = saved;
                let flow = r?;
                let found = matches!(cont, Cont::Stage { found: true, .. });
                if flow == Flow::Continue && *optional && !found {
                    for &s in new_slots {
                        put(row, s, Value::Null);
                    }
                    self.push(pipe, si + 1, row)?
                } else {
                    flow
                }
            }
            Stage::Unwind { expr, slot, pos } => {
                self.pos_hint = *pos;
                match self.eval(expr, row, &[])? {
                    Value::List(items) => {
                        let mut flow = Flow::Continue;
                        for item in items {
                            self.tick(1)?;
                            put(row, *slot, item);
                            if self.push(pipe, si + 1, row)? == Flow::Stop {
                                flow = Flow::Stop;
                                break;
                            }
                        }
                        flow
                    }
                    Value::Null => Flow::Continue,
                    other => {
                        put(row, *slot, other);
                        self.push(pipe, si + 1, row)?
                    }
                }
            }
            Stage::Project(p) => self.project(pipe, si, p, row)?,
        };
        if flow == Flow::Stop
            && let Some(st) = self.states.get_mut(si)
        {
            st.stopped = true;
        }
        Ok(flow)
    }

    fn complete(&mut self, cont: &mut Cont<'a>, row: &mut Vec<Value>) -> R<Flow> {
        match cont {
            Cont::Stage { pipe, next, found } => {
                *found = true;
                let (pipe, next) = (*pipe, *next);
                let pos = self.pos_hint;
                let flow = self.push(pipe, next, row);
                self.pos_hint = pos;
                flow
            }
            Cont::Exists { hit } => {
                *hit = true;
                Ok(Flow::Stop)
            }
            Cont::Count { n } => {
                *n += 1;
                Ok(Flow::Continue)
            }
            Cont::Paths { slot, out } => {
                let v = slot
                    .and_then(|s| row.get(s).cloned())
                    .unwrap_or(Value::Null);
                out.push(v);
                self.tick(1)?;
                Ok(Flow::Continue)
            }
        }
    }

    /// Runs `steps[i..]` for the current row, calling `cont` for every complete match.
    pub(super) fn steps(
        &mut self,
        steps: &'a [Step],
        i: usize,
        row: &mut Vec<Value>,
        cont: &mut Cont<'a>,
    ) -> R<Flow> {
        let Some(step) = steps.get(i) else {
            return self.complete(cont, row);
        };
        let g = self.g;
        match step {
            Step::Scan {
                slot,
                merged: Some(list),
                ..
            } => {
                for &ix in list {
                    self.scan_tick()?;
                    put(row, *slot, Value::Node(ix));
                    if self.steps(steps, i + 1, row, cont)? == Flow::Stop {
                        return Ok(Flow::Stop);
                    }
                }
                Ok(Flow::Continue)
            }
            Step::Scan {
                slot,
                mask,
                merged: None,
            } => {
                if *mask == ALL_KINDS {
                    for ix in 0..g.len() as Ix {
                        self.scan_tick()?;
                        put(row, *slot, Value::Node(ix));
                        if self.steps(steps, i + 1, row, cont)? == Flow::Stop {
                            return Ok(Flow::Stop);
                        }
                    }
                } else {
                    for k in kinds_in(*mask) {
                        for &ix in g.nodes_of_kind(k) {
                            self.scan_tick()?;
                            put(row, *slot, Value::Node(ix));
                            if self.steps(steps, i + 1, row, cont)? == Flow::Stop {
                                return Ok(Flow::Stop);
                            }
                        }
                    }
                }
                Ok(Flow::Continue)
            }
            Step::Lookup {
                slot,
                key,
                value,
                mask,
            } => {
                let v = self.eval(value, row, &[])?;
                let mut cands = Vec::new();
                self.lookup_into(*key, &v, &mut cands);
                if matches!(v, Value::List(_)) {
                    cands.sort_unstable();
                    cands.dedup();
                }
                for ix in cands {
                    self.scan_tick()?;
                    if !mask_has(*mask, g.node(ix).kind) {
                        continue;
                    }
                    put(row, *slot, Value::Node(ix));
                    if self.steps(steps, i + 1, row, cont)? == Flow::Stop {
                        return Ok(Flow::Stop);
                    }
                }
                Ok(Flow::Continue)
            }
            Step::Check { slot, mask } => match row.get(*slot) {
                Some(Value::Node(ix)) if mask_has(*mask, g.node(*ix).kind) => {
                    self.steps(steps, i + 1, row, cont)
                }
                Some(Value::Node(_) | Value::Null) | None => Ok(Flow::Continue),
                Some(other) => Err(CypherError::type_error(
                    self.pos_hint,
                    format!("a pattern expected a node, got {}", other.type_name()),
                )),
            },
            Step::Expand {
                from,
                rel,
                to,
                to_bound,
                rel_bound,
                kinds,
                dir,
                mask,
            } => {
                let Some(a) = self.node_at(row, *from)? else {
                    return Ok(Flow::Continue);
                };
                let target = if *to_bound {
                    match self.node_at(row, *to)? {
                        Some(t) => Some(t),
                        None => return Ok(Flow::Continue),
                    }
                } else {
                    None
                };
                let bound_rel = if *rel_bound {
                    match row.get(*rel).and_then(rel_key) {
                        Some(k) => Some(k),
                        None => return Ok(Flow::Continue),
                    }
                } else {
                    None
                };
                let dirs = dirs_of(*dir);
                let combos = dirs.len() * kinds.len().max(1);
                for combo in 0..combos {
                    let Some((slice, outgoing)) = slice_of(g, a, dirs, kinds, combo) else {
                        break;
                    };
                    for e in slice {
                        self.expand_tick()?;
                        if !outgoing && *dir == Direction::Both && e.other == a {
                            continue; // a self-loop, already matched as outgoing
                        }
                        if target.is_some_and(|t| t != e.other) {
                            continue;
                        }
                        if !mask_has(*mask, g.node(e.other).kind) {
                            continue;
                        }
                        let key = if outgoing {
                            (a, e.other, e.kind)
                        } else {
                            (e.other, a, e.kind)
                        };
                        if bound_rel.is_some_and(|b| b != key) {
                            continue;
                        }
                        if self.used[self.used_base..].contains(&key) {
                            continue;
                        }
                        self.used.push(key);
                        put(row, *rel, rel_value(key, e));
                        if !*to_bound {
                            put(row, *to, Value::Node(e.other));
                        }
                        let flow = self.steps(steps, i + 1, row, cont);
                        self.used.pop();
                        if flow? == Flow::Stop {
                            return Ok(Flow::Stop);
                        }
                    }
                }
                Ok(Flow::Continue)
            }
            Step::VarExpand { .. } => self.var_expand(steps, i, row, cont),
            Step::Filter(conjuncts) => {
                for e in conjuncts {
                    let v = self.eval(e, row, &[])?;
                    if !self.truthy(&v)? {
                        return Ok(Flow::Continue);
                    }
                }
                self.steps(steps, i + 1, row, cont)
            }
            Step::Path { slot, start, parts } => {
                let p = build_path(row, *start, parts);
                put(row, *slot, p);
                self.steps(steps, i + 1, row, cont)
            }
        }
    }

    /// `WHERE` semantics: true passes, false and null do not, anything else is an error.
    pub(super) fn truthy(&self, v: &Value) -> R<bool> {
        match v {
            Value::Bool(b) => Ok(*b),
            Value::Null => Ok(false),
            other => Err(CypherError::type_error(
                self.pos_hint,
                format!("WHERE needs a boolean, got {}", other.type_name()),
            )),
        }
    }

    fn node_at(&self, row: &[Value], slot: Slot) -> R<Option<Ix>> {
        match row.get(slot) {
            Some(Value::Node(ix)) => Ok(Some(*ix)),
            Some(Value::Null) | None => Ok(None),
            Some(other) => Err(CypherError::type_error(
                self.pos_hint,
                format!("a pattern expected a node, got {}", other.type_name()),
            )),
        }
    }

    fn lookup_into(&self, key: LookupKey, v: &Value, out: &mut Vec<Ix>) {
        let g = self.g;
        match (key, v) {
            (_, Value::List(items)) => {
                for item in items {
                    if !matches!(item, Value::List(_)) {
                        self.lookup_into(key, item, out);
                    }
                }
            }
            (LookupKey::Name, Value::Str(s)) => out.extend_from_slice(g.nodes_named(s)),
            (LookupKey::QName, Value::Str(s)) => out.extend_from_slice(g.nodes_with_qname(s)),
            (LookupKey::Id, Value::Int(id)) => out.extend(g.index_of(*id)),
            (LookupKey::Id, Value::Float(f)) if f.fract() == 0.0 && f.abs() < 9.0e18 => {
                out.extend(g.index_of(*f as i64))
            }
            _ => {}
        }
    }

    fn var_expand(
        &mut self,
        steps: &'a [Step],
        i: usize,
        row: &mut Vec<Value>,
        cont: &mut Cont<'a>,
    ) -> R<Flow> {
        let Some(Step::VarExpand {
            from,
            rel,
            to,
            to_bound,
            kinds,
            dir,
            min,
            max,
            mask,
            reverse,
            edge_pred,
        }) = steps.get(i)
        else {
            return Ok(Flow::Continue);
        };
        let g = self.g;
        let Some(a) = self.node_at(row, *from)? else {
            return Ok(Flow::Continue);
        };
        let target = if *to_bound {
            match self.node_at(row, *to)? {
                Some(t) => Some(t),
                None => return Ok(Flow::Continue),
            }
        } else {
            None
        };
        let mut path: Vec<(RelId, Edge)> = Vec::new();
        // Emits the current path ending at `end`.
        macro_rules! emit {
            ($end:expr) => {{
                if let Some(rs) = rel {
                    let mut list: Vec<Value> = path.iter().map(|(k, e)| rel_value(*k, e)).collect();
                    if *reverse {
                        list.reverse();
                    }
                    put(row, *rs, Value::List(list));
                }
                if !*to_bound {
                    put(row, *to, Value::Node($end));
                }
                let base = self.used.len();
                self.used.extend(path.iter().map(|(k, _)| *k));
                let flow = self.steps(steps, i + 1, row, cont);
                self.used.truncate(base);
                if flow? == Flow::Stop {
                    return Ok(Flow::Stop);
                }
            }};
        }
        if *min == 0 && target.is_none_or(|t| t == a) && mask_has(*mask, g.node(a).kind) {
            emit!(a);
        }
        if *max == 0 {
            return Ok(Flow::Continue);
        }
        let dirs = dirs_of(*dir);
        let combos = dirs.len() * kinds.len().max(1);
        // (node, combo, position in that combo's slice)
        let mut frames: Vec<(Ix, usize, usize)> = vec![(a, 0, 0)];
        while let Some(top) = frames.last_mut() {
            let node = top.0;
            let mut next: Option<(Edge, bool)> = None;
            while top.1 < combos {
                match slice_of(g, node, dirs, kinds, top.1) {
                    Some((slice, outgoing)) if top.2 < slice.len() => {
                        next = Some((slice[top.2], outgoing));
                        top.2 += 1;
                        break;
                    }
                    _ => {
                        top.1 += 1;
                        top.2 = 0;
                    }
                }
            }
            let Some((e, outgoing)) = next else {
                frames.pop();
                if !frames.is_empty() {
                    path.pop();
                }
                continue;
            };
            self.expand_tick()?;
            if !outgoing && *dir == Direction::Both && e.other == node {
                continue;
            }
            let key = if outgoing {
                (node, e.other, e.kind)
            } else {
                (e.other, node, e.kind)
            };
            if path.iter().any(|(k, _)| *k == key) || self.used[self.used_base..].contains(&key) {
                continue;
            }
            if let Some((eslot, pred)) = edge_pred {
                put(row, *eslot, rel_value(key, &e));
                let v = self.eval(pred, row, &[])?;
                if !self.truthy(&v)? {
                    continue;
                }
            }
            path.push((key, e));
            let depth = path.len() as u32;
            if depth >= *min
                && target.is_none_or(|t| t == e.other)
                && mask_has(*mask, g.node(e.other).kind)
            {
                emit!(e.other);
            }
            if depth < *max {
                frames.push((e.other, 0, 0));
            } else {
                path.pop();
            }
        }
        Ok(Flow::Continue)
    }

    // ---- projections ----

    fn project(
        &mut self,
        pipe: &'a Pipeline,
        si: usize,
        p: &'a Proj,
        row: &mut Vec<Value>,
    ) -> R<Flow> {
        self.pos_hint = p.pos;
        self.tick(1)?;
        if p.aggregating {
            // Grouping keys are borrowed (node strings, slots) and hashed; only a new group
            // copies them.
            let row_ref: &[Value] = row;
            let mut keys = Vec::new();
            let mut hasher = rustc_hash::FxHasher::default();
            for (e, has) in p.items.iter().zip(&p.item_has_agg) {
                if !*has {
                    let k = self.operand(e, row_ref, &[])?;
                    k.hash_key(&mut hasher);
                    keys.push(k);
                }
            }
            let hash = std::hash::Hasher::finish(&hasher);
            let st = &self.states[si];
            let found = st.groups.get(&hash).and_then(|list| {
                list.iter().copied().find(|&gi| {
                    st.group_list.get(gi).is_some_and(|g| {
                        g.keys.len() == keys.len()
                            && keys.iter().zip(&g.keys).all(|(k, v)| k.equivalent_to(v))
                    })
                })
            });
            let gi = match found {
                Some(gi) => gi,
                None => {
                    let keys: Vec<Value> = keys.into_iter().map(|k| k.into_value()).collect();
                    self.tick(row_ref.len() as u64 + 1)?;
                    let st = &mut self.states[si];
                    let gi = st.group_list.len();
                    st.group_list.push(Group {
                        rep: row_ref.to_vec(),
                        keys,
                        accs: p.aggs.iter().map(AccState::new).collect(),
                    });
                    st.groups.entry(hash).or_default().push(gi);
                    gi
                }
            };
            for (ai, spec) in p.aggs.iter().enumerate() {
                let v = match &spec.arg {
                    Some(e) => Some(self.eval(e, row, &[])?),
                    None => None,
                };
                let st = &mut self.states[si].group_list[gi].accs[ai];
                let cost = accumulate(st, v, spec.pos)?;
                self.tick(cost)?;
            }
            return Ok(Flow::Continue);
        }
        if !p.order.is_empty() && !p.distinct && !p.order_uses_aliases {
            // Sort keys first: rows that cannot make a LIMIT are never built.
            let keys = self.sort_keys(p, row)?;
            if !self.may_keep(si, p, &keys) {
                return Ok(Flow::Continue);
            }
            let vals = self.items(p, row)?;
            self.buffer_row(si, p, keys, vals)?;
            return Ok(Flow::Continue);
        }
        let vals = self.items(p, row)?;
        if p.distinct {
            if !self.states[si].seen.insert(Key(Value::List(vals.clone()))) {
                return Ok(Flow::Continue);
            }
            self.tick(vals.len() as u64)?;
        }
        if !p.order.is_empty() {
            for (v, s) in vals.iter().zip(&p.alias_slots) {
                put(row, *s, v.clone());
            }
            let keys = self.sort_keys(p, row)?;
            if self.may_keep(si, p, &keys) {
                self.buffer_row(si, p, keys, vals)?;
            }
            return Ok(Flow::Continue);
        }
        let st = &mut self.states[si];
        if st.skipped < p.skip {
            st.skipped += 1;
            return Ok(Flow::Continue);
        }
        if p.limit.is_some_and(|l| st.emitted >= l) {
            return Ok(Flow::Stop);
        }
        st.emitted += 1;
        let reached = p.limit.is_some_and(|l| st.emitted >= l);
        let flow = self.emit(pipe, si, p, vals)?;
        Ok(if reached { Flow::Stop } else { flow })
    }

    fn items(&mut self, p: &'a Proj, row: &[Value]) -> R<Vec<Value>> {
        let mut vals = Vec::with_capacity(p.items.len());
        for e in &p.items {
            vals.push(self.eval(e, row, &[])?);
        }
        Ok(vals)
    }

    fn sort_keys(&mut self, p: &'a Proj, row: &[Value]) -> R<Vec<Value>> {
        let mut keys = Vec::with_capacity(p.order.len());
        for (e, _) in &p.order {
            keys.push(self.eval(e, row, &[])?);
        }
        Ok(keys)
    }

    /// Whether a row with these sort keys can still be among the rows a LIMIT keeps.
    fn may_keep(&self, si: usize, p: &Proj, keys: &[Value]) -> bool {
        if self.keep_count(p) == Some(0) {
            return false;
        }
        match &self.states[si].cutoff {
            // an equal key arrives later than the cut-off row, so it sorts after it
            Some(cut) => cmp_keys(keys, cut, &p.order) == Ordering::Less,
            None => true,
        }
    }

    /// Buffers a row for sorting (charged to the work budget: buffers are what memory grows
    /// with).
    fn buffer_row(&mut self, si: usize, p: &Proj, keys: Vec<Value>, vals: Vec<Value>) -> R<()> {
        self.tick((keys.len() + vals.len()) as u64)?;
        let keep = self
            .keep_count(p)
            .map(|k| usize::try_from(k).unwrap_or(usize::MAX));
        let st = &mut self.states[si];
        st.seq += 1;
        st.buffer.push(Entry {
            keys,
            seq: st.seq,
            vals,
        });
        if let Some(keep) = keep
            && keep > 0
            && st.buffer.len() >= keep.saturating_mul(2).saturating_add(256)
        {
            st.buffer
                .select_nth_unstable_by(keep - 1, |a, b| cmp_entries(a, b, &p.order));
            st.buffer.truncate(keep);
            st.cutoff = st.buffer.get(keep - 1).map(|e| e.keys.clone());
        }
        Ok(())
    }

    /// How many sorted rows a projection can need at most (skip + limit, the row cap for RETURN).
    fn keep_count(&self, p: &Proj) -> Option<u64> {
        let cap = self.row_cap as u64;
        let limit = match (p.limit, p.is_return) {
            (Some(l), true) => Some(l.min(cap)),
            (Some(l), false) => Some(l),
            (None, true) => Some(cap),
            (None, false) => None,
        };
        limit.map(|l| l.saturating_add(p.skip))
    }

    fn emit(&mut self, pipe: &'a Pipeline, si: usize, p: &'a Proj, vals: Vec<Value>) -> R<Flow> {
        if p.is_return {
            self.out.push(vals);
            return Ok(if self.out.len() >= self.row_cap {
                Flow::Stop
            } else {
                Flow::Continue
            });
        }
        let mut next = vals;
        if next.len() < p.out_width {
            next.resize(p.out_width, Value::Null);
        }
        if let Some(w) = &p.where_ {
            let v = self.eval(w, &next, &[])?;
            if !self.truthy(&v)? {
                return Ok(Flow::Continue);
            }
        }
        self.push(pipe, si + 1, &mut next)
    }

    fn finish(&mut self, pipe: &'a Pipeline, si: usize, p: &'a Proj) -> R<()> {
        self.pos_hint = p.pos;
        let st = match self.states.get_mut(si) {
            Some(st) => std::mem::take(st),
            None => return Ok(()),
        };
        let mut entries: Vec<Entry> = Vec::new();
        if p.aggregating {
            let mut groups = st.group_list;
            if groups.is_empty() && p.item_has_agg.iter().all(|h| *h) {
                groups.push(Group {
                    rep: vec![Value::Null; p.in_width],
                    keys: Vec::new(),
                    accs: p.aggs.iter().map(AccState::new).collect(),
                });
            }
            let mut seen: FxHashSet<Key> = FxHashSet::default();
            for mut grp in groups {
                let mut agg_vals = Vec::with_capacity(grp.accs.len());
                for a in grp.accs {
                    let v = finish_acc(a.acc);
                    if matches!(v, Value::List(_)) {
                        self.check_list(&v)?;
                    }
                    agg_vals.push(v);
                }
                let mut vals = Vec::with_capacity(p.items.len());
                let mut keys = grp.keys.into_iter();
                for (e, has) in p.items.iter().zip(&p.item_has_agg) {
                    if *has {
                        vals.push(self.eval(e, &grp.rep, &agg_vals)?);
                    } else {
                        vals.push(keys.next().unwrap_or(Value::Null));
                    }
                }
                if p.distinct && !seen.insert(Key(Value::List(vals.clone()))) {
                    continue;
                }
                let mut sort_keys = Vec::new();
                if !p.order.is_empty() {
                    for (v, s) in vals.iter().zip(&p.alias_slots) {
                        put(&mut grp.rep, *s, v.clone());
                    }
                    for (e, _) in &p.order {
                        sort_keys.push(self.eval(e, &grp.rep, &agg_vals)?);
                    }
                }
                entries.push(Entry {
                    keys: sort_keys,
                    seq: entries.len() as u64,
                    vals,
                });
            }
        } else {
            entries = st.buffer;
        }
        if !p.order.is_empty() {
            entries.sort_unstable_by(|a, b| cmp_entries(a, b, &p.order));
        }
        let skip = usize::try_from(p.skip).unwrap_or(usize::MAX);
        for (emitted, Entry { vals, .. }) in entries.into_iter().skip(skip).enumerate() {
            if p.limit.is_some_and(|l| emitted as u64 >= l) {
                break;
            }
            if self.emit(pipe, si, p, vals)? == Flow::Stop {
                break;
            }
        }
        Ok(())
    }
}

fn cmp_keys(a: &[Value], b: &[Value], order: &[(CExpr, bool)]) -> Ordering {
    for ((x, y), (_, desc)) in a.iter().zip(b).zip(order) {
        let o = order_cmp(x, y);
        let o = if *desc { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

fn cmp_entries(a: &Entry, b: &Entry, order: &[(CExpr, bool)]) -> Ordering {
    cmp_keys(&a.keys, &b.keys, order).then(a.seq.cmp(&b.seq))
}

/// Adds one value to an aggregate; returns the work it cost.
fn accumulate(st: &mut AccState, v: Option<Value>, pos: usize) -> R<u64> {
    let Some(v) = v else {
        if let Acc::Count(n) = &mut st.acc {
            *n += 1;
        }
        return Ok(0);
    };
    if v.is_null() {
        return Ok(0);
    }
    if let Some(seen) = &mut st.seen
        && !seen.insert(Key(v.clone()))
    {
        return Ok(0);
    }
    let not_number = |v: &Value| {
        CypherError::type_error(
            pos,
            format!("sum() and avg() need numbers, got {}", v.type_name()),
        )
    };
    match &mut st.acc {
        Acc::Count(n) => *n += 1,
        Acc::Collect(list) => {
            if list.len() >= super::eval::MAX_LIST_LEN {
                return Err(CypherError::limit(
                    pos,
                    format!(
                        "collect() of more than {} values; add LIMIT or aggregate differently",
                        super::eval::MAX_LIST_LEN
                    ),
                ));
            }
            list.push(v);
            return Ok(1);
        }
        Acc::SumInt(s) => match v {
            Value::Int(i) => {
                *s = s
                    .checked_add(i)
                    .ok_or_else(|| CypherError::type_error(pos, "integer overflow in sum()"))?;
            }
            Value::Float(f) => st.acc = Acc::SumFloat(*s as f64 + f),
            other => return Err(not_number(&other)),
        },
        Acc::SumFloat(s) => match v {
            Value::Int(i) => *s += i as f64,
            Value::Float(f) => *s += f,
            other => return Err(not_number(&other)),
        },
        Acc::Avg(sum, n) => {
            match v {
                Value::Int(i) => *sum += i as f64,
                Value::Float(f) => *sum += f,
                other => return Err(not_number(&other)),
            }
            *n += 1;
        }
        Acc::Min(cur) => {
            if cur
                .as_ref()
                .is_none_or(|c| order_cmp(&v, c) == Ordering::Less)
            {
                *cur = Some(v);
            }
        }
        Acc::Max(cur) => {
            if cur
                .as_ref()
                .is_none_or(|c| order_cmp(&v, c) == Ordering::Greater)
            {
                *cur = Some(v);
            }
        }
    }
    Ok(0)
}

fn finish_acc(acc: Acc) -> Value {
    match acc {
        Acc::Count(n) => Value::Int(n),
        Acc::Collect(list) => Value::List(list),
        Acc::SumInt(s) => Value::Int(s),
        Acc::SumFloat(s) => Value::Float(s),
        Acc::Avg(_, 0) => Value::Null,
        Acc::Avg(sum, n) => Value::Float(sum / n as f64),
        Acc::Min(v) | Acc::Max(v) => v.unwrap_or(Value::Null),
    }
}

/// The path value of a pattern from its bound slots (null when a part is unbound, e.g. after
/// an `OPTIONAL MATCH` that found nothing).
fn build_path(row: &[Value], start: Slot, parts: &[PathPart]) -> Value {
    let Some(Value::Node(s)) = row.get(start) else {
        return Value::Null;
    };
    let mut nodes = vec![*s];
    let mut rels = Vec::new();
    let mut cur = *s;
    for part in parts {
        if part.var_len {
            let Some(Value::List(list)) = row.get(part.rel) else {
                return Value::Null;
            };
            for r in list {
                if let Value::Rel { src, dst, .. } = r {
                    cur = if *src == cur { *dst } else { *src };
                    nodes.push(cur);
                    rels.push(r.clone());
                }
            }
        } else {
            match (row.get(part.rel), row.get(part.node)) {
                (Some(r @ Value::Rel { .. }), Some(Value::Node(n))) => {
                    rels.push(r.clone());
                    cur = *n;
                    nodes.push(*n);
                }
                _ => return Value::Null,
            }
        }
    }
    Value::Path { nodes, rels }
}
