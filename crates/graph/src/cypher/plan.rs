//! The compiled form of a query: variables resolved to row slots, names to kinds and
//! properties, constant regexes compiled, `MATCH` clauses ordered into steps.

use regex::Regex;

use crate::{EdgeKind, NodeKind};

use super::ast::{ArithOp, CmpOp, Direction};
use super::schema::Prop;
use super::value::Value;

/// An index into the row of the current segment (the clauses between two projections).
pub type Slot = usize;

/// A set of node kinds as bits (`1 << kind as u64`).
pub type KindMask = u64;

pub const ALL_KINDS: KindMask = u64::MAX;

pub fn kind_bit(k: NodeKind) -> KindMask {
    1u64 << (k as u32 & 63)
}

pub fn mask_has(mask: KindMask, k: NodeKind) -> bool {
    mask & kind_bit(k) != 0
}

pub fn kinds_in(mask: KindMask) -> impl Iterator<Item = NodeKind> {
    NodeKind::ALL
        .iter()
        .copied()
        .filter(move |k| mask_has(mask, *k))
}

#[derive(Debug)]
pub enum CExpr {
    Const(Value),
    Slot(Slot),
    List(Vec<CExpr>),
    Postfix(Box<CExpr>, Vec<(CPost, usize)>),
    And(Vec<CExpr>),
    Or(Vec<CExpr>),
    Xor(Vec<CExpr>),
    Not(Box<CExpr>, usize),
    Cmp(Box<CExpr>, Vec<(CmpOp, CExpr)>),
    Pred(Box<CExpr>, Vec<(CPred, usize)>),
    Arith(Box<CExpr>, Vec<(ArithOp, CExpr, usize)>),
    Neg(Box<CExpr>, usize),
    Func(Func, Vec<CExpr>, usize),
    /// The value of aggregate `i` of the enclosing projection.
    Agg(usize),
    Case {
        subject: Option<Box<CExpr>>,
        whens: Vec<(CExpr, CExpr)>,
        otherwise: Option<Box<CExpr>>,
    },
    Sub(Box<SubMatch>, SubMode),
}

#[derive(Debug)]
pub enum CPost {
    Prop(Prop, &'static str),
    Index(CExpr),
    Slice(Option<CExpr>, Option<CExpr>),
    HasLabel(KindMask),
}

#[derive(Debug)]
pub enum CPred {
    StartsWith(CExpr),
    EndsWith(CExpr),
    Contains(CExpr),
    In(CExpr),
    Regex(RegexArg),
    IsNull,
    IsNotNull,
}

#[derive(Debug)]
pub enum RegexArg {
    /// Compiled at plan time (the pattern was a literal or a parameter).
    Fixed(Box<Regex>),
    Dynamic(CExpr),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Labels,
    Type,
    Id,
    Size,
    Length,
    Nodes,
    Relationships,
    ToLower,
    ToUpper,
    Coalesce,
    ToString,
    ToInteger,
    ToFloat,
    ToBoolean,
    StartNode,
    EndNode,
    Head,
    Last,
    Tail,
    Abs,
    Round,
    Floor,
    Ceil,
    Sign,
    Sqrt,
    Trim,
    LTrim,
    RTrim,
    Replace,
    Substring,
    Split,
    Left,
    Right,
    Reverse,
    Range,
    IsEmpty,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggFunc {
    Count,
    Collect,
    Sum,
    Avg,
    Min,
    Max,
}

#[derive(Debug)]
pub struct AggSpec {
    pub func: AggFunc,
    pub distinct: bool,
    /// `None` for `count(*)`.
    pub arg: Option<CExpr>,
    pub pos: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubMode {
    /// `true` at the first match.
    Exists,
    /// The number of matches.
    Count,
    /// The matched paths (a pattern used as a value); the path is in `SubMatch::path_slot`.
    Paths,
}

/// A pattern evaluated inside an expression, sharing the row layout of its segment (its own
/// variables get slots of their own; the row is copied before matching).
#[derive(Debug)]
pub struct SubMatch {
    pub steps: Vec<Step>,
    /// Slots of the enclosing scope the pattern reads (for placing the predicate).
    pub outer_refs: Vec<Slot>,
    pub path_slot: Option<Slot>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookupKey {
    Name,
    QName,
    Id,
}

#[derive(Debug)]
pub struct PathPart {
    pub rel: Slot,
    pub var_len: bool,
    pub node: Slot,
}

#[derive(Debug)]
pub enum Step {
    /// Bind `slot` to every node (of the kinds in `mask`), in index order. For several kinds
    /// the merged candidate list is computed when planning.
    Scan {
        slot: Slot,
        mask: KindMask,
        merged: Option<Vec<crate::Ix>>,
    },
    /// Bind `slot` to the nodes whose `key` equals `value` (or is in it, for a list).
    Lookup {
        slot: Slot,
        key: LookupKey,
        value: CExpr,
        mask: KindMask,
    },
    /// `slot` is already bound: it must be a node of the kinds in `mask`.
    Check { slot: Slot, mask: KindMask },
    Expand {
        from: Slot,
        rel: Slot,
        to: Slot,
        to_bound: bool,
        rel_bound: bool,
        /// Sorted; empty means every kind.
        kinds: Vec<EdgeKind>,
        dir: Direction,
        mask: KindMask,
    },
    VarExpand {
        from: Slot,
        /// The list of relationships, in pattern order.
        rel: Option<Slot>,
        to: Slot,
        to_bound: bool,
        kinds: Vec<EdgeKind>,
        dir: Direction,
        min: u32,
        max: u32,
        mask: KindMask,
        /// The expansion runs against the pattern's direction (anchored on its right end):
        /// the collected list is reversed before binding.
        reverse: bool,
        /// A per-relationship predicate (from a property map), evaluated with the
        /// relationship in the slot.
        edge_pred: Option<(Slot, CExpr)>,
    },
    /// All must be true (conjuncts that became evaluable at this point).
    Filter(Vec<CExpr>),
    Path {
        slot: Slot,
        start: Slot,
        parts: Vec<PathPart>,
    },
}

#[derive(Debug)]
pub struct Proj {
    pub is_return: bool,
    pub items: Vec<CExpr>,
    pub item_has_agg: Vec<bool>,
    /// Slots of the input segment holding the item values while `order` is evaluated.
    pub alias_slots: Vec<Slot>,
    pub aggs: Vec<AggSpec>,
    pub aggregating: bool,
    pub distinct: bool,
    pub order: Vec<(CExpr, bool)>,
    /// Some `ORDER BY` expression reads a projected alias (so items are evaluated first).
    pub order_uses_aliases: bool,
    pub skip: u64,
    pub limit: Option<u64>,
    /// Evaluated on the output row (`WITH ... WHERE`).
    pub where_: Option<CExpr>,
    /// Width of the input segment's rows.
    pub in_width: usize,
    /// Width of the next segment's rows (`WITH`).
    pub out_width: usize,
    pub pos: usize,
}

impl Proj {
    /// Needs all its input before emitting anything.
    pub fn is_barrier(&self) -> bool {
        self.aggregating || !self.order.is_empty()
    }
}

#[derive(Debug)]
pub enum Stage {
    Match {
        steps: Vec<Step>,
        optional: bool,
        new_slots: Vec<Slot>,
        pos: usize,
    },
    Unwind {
        expr: CExpr,
        slot: Slot,
        pos: usize,
    },
    Project(Box<Proj>),
}

#[derive(Debug)]
pub struct Pipeline {
    pub stages: Vec<Stage>,
    /// Row width of the first segment.
    pub width: usize,
    pub columns: Vec<String>,
}

#[derive(Debug)]
pub struct Plan {
    pub parts: Vec<Pipeline>,
    /// `UNION` (deduplicated) rather than `UNION ALL` or a single query.
    pub distinct_union: bool,
    pub warnings: Vec<String>,
}
