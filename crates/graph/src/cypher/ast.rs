//! The parsed query. Positions are byte offsets into the query text.
//!
//! Operator chains are n-ary (`a AND b AND c` is one node), so the depth of an expression tree
//! is bounded by the parser's nesting limit, never by the length of the text.

/// A whole query: one or more single queries joined by `UNION` / `UNION ALL`.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    pub parts: Vec<SingleQuery>,
    /// `union_all[i]` joins `parts[i]` and `parts[i + 1]`: `true` for `UNION ALL`.
    pub union_all: Vec<bool>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SingleQuery {
    /// Reading clauses and `WITH`s, ending with a [`Clause::Return`].
    pub clauses: Vec<Clause>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Clause {
    Match(Match),
    Unwind(Unwind),
    With(Projection),
    Return(Projection),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    pub optional: bool,
    pub patterns: Vec<Pattern>,
    pub where_: Option<Expr>,
    pub pos: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Unwind {
    pub expr: Expr,
    pub alias: Ident,
    pub pos: usize,
}

/// A name with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub pos: usize,
}

/// `p = (a)-[r]->(b)...`
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern {
    pub path_var: Option<Ident>,
    pub start: NodePattern,
    pub chain: Vec<(RelPattern, NodePattern)>,
    pub pos: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NodePattern {
    pub var: Option<Ident>,
    /// Conjunction of disjunctions: `:A|B:C` is `[[A, B], [C]]`.
    pub labels: Vec<Vec<Ident>>,
    pub props: Vec<(Ident, Expr)>,
    pub pos: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// `-->`
    Out,
    /// `<--`
    In,
    /// `--` (or `<-->`): either direction.
    Both,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RelPattern {
    pub var: Option<Ident>,
    /// Alternatives: `:A|B`.
    pub types: Vec<Ident>,
    pub dir: Direction,
    /// `*min..max` (either bound may be absent); `None` for a single relationship.
    pub length: Option<(Option<u32>, Option<u32>)>,
    pub props: Vec<(Ident, Expr)>,
    pub pos: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    pub distinct: bool,
    /// `*` (all variables in scope), followed by `items` if any.
    pub star: bool,
    pub items: Vec<ProjItem>,
    pub order: Vec<SortItem>,
    pub skip: Option<Expr>,
    pub limit: Option<Expr>,
    /// Only for `WITH`.
    pub where_: Option<Expr>,
    pub pos: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProjItem {
    pub expr: Expr,
    pub alias: Option<Ident>,
    /// The expression as written (the column name when there is no alias).
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SortItem {
    pub expr: Expr,
    pub descending: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub pos: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PredOp {
    StartsWith(Expr),
    EndsWith(Expr),
    Contains(Expr),
    In(Expr),
    Regex(Expr),
    IsNull,
    IsNotNull,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PostOp {
    /// `.name`
    Prop(Ident),
    /// `[i]`
    Index(Expr),
    /// `[a..b]`
    Slice(Option<Expr>, Option<Expr>),
    /// `:Label|Other` (a label predicate, only directly after a variable).
    Labels(Vec<Vec<Ident>>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Param(String),
    Var(String),
    List(Vec<Expr>),
    Or(Vec<Expr>),
    Xor(Vec<Expr>),
    And(Vec<Expr>),
    Not(Box<Expr>),
    /// `a < b <= c` means `a < b AND b <= c`.
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    /// String, list and null predicates applied left to right.
    Predicate(Box<Expr>, Vec<(PredOp, usize)>),
    /// A left-associative chain of one precedence level.
    Arith(Box<Expr>, Vec<(ArithOp, Expr)>),
    Neg(Box<Expr>),
    Postfix(Box<Expr>, Vec<(PostOp, usize)>),
    /// `f(args)`, `count(*)`, `count(DISTINCT x)`.
    Call {
        name: Ident,
        distinct: bool,
        star: bool,
        args: Vec<Expr>,
    },
    Case {
        subject: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    /// A relationship pattern used as an expression (a predicate in `WHERE`).
    Pattern(Box<Pattern>),
    /// `EXISTS { [MATCH] pattern, ... [WHERE ...] }` or `COUNT { ... }`.
    Subquery {
        count: bool,
        patterns: Vec<Pattern>,
        where_: Option<Box<Expr>>,
    },
}
