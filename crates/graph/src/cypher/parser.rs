//! Recursive descent over the tokens. Recursion only happens for nested expressions and
//! patterns, bounded by [`MAX_DEPTH`]; operator chains are loops building n-ary nodes. The only
//! lookahead is [`Parser::looks_like_pattern`] (a pattern or a parenthesised expression?), which
//! scans at most to the matching `)` of a node pattern.

use super::ast::*;
use super::error::CypherError;
use super::lexer::{Tok, Token, lex};

/// Maximum nesting of expressions (parentheses, lists, calls, unary operators, patterns).
pub const MAX_DEPTH: u32 = 64;
/// Maximum number of clauses in one single query (and of UNION parts).
pub const MAX_CLAUSES: usize = 64;
/// Maximum number of node and relationship patterns in the whole query.
pub const MAX_ELEMENTS: usize = 200;
/// Maximum query text length.
pub const MAX_QUERY_BYTES: usize = 64 * 1024;

/// Words that cannot be variable names unless backtick-quoted.
const RESERVED: &[&str] = &[
    "MATCH",
    "OPTIONAL",
    "WHERE",
    "RETURN",
    "WITH",
    "UNWIND",
    "ORDER",
    "BY",
    "SKIP",
    "LIMIT",
    "AS",
    "AND",
    "OR",
    "XOR",
    "NOT",
    "IN",
    "STARTS",
    "ENDS",
    "CONTAINS",
    "IS",
    "NULL",
    "TRUE",
    "FALSE",
    "DISTINCT",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "UNION",
    "ALL",
    "ASC",
    "DESC",
    "ASCENDING",
    "DESCENDING",
    "CREATE",
    "MERGE",
    "SET",
    "DELETE",
    "DETACH",
    "REMOVE",
    "CALL",
    "FOREACH",
    "LOAD",
    "DROP",
];

/// Clause keywords that write or leave the read-only subset.
const REFUSED: &[&str] = &[
    "CREATE",
    "MERGE",
    "SET",
    "DELETE",
    "DETACH",
    "REMOVE",
    "CALL",
    "LOAD",
    "FOREACH",
    "DROP",
    "USE",
    "ALTER",
    "GRANT",
    "DENY",
    "REVOKE",
    "SHOW",
    "START",
    "TERMINATE",
    "FINISH",
    "INSERT",
];

fn is_reserved(word: &str) -> bool {
    RESERVED.iter().any(|k| k.eq_ignore_ascii_case(word))
}

/// Parses a query.
pub fn parse_query(text: &str) -> Result<Query, CypherError> {
    if text.len() > MAX_QUERY_BYTES {
        return Err(CypherError::limit(
            MAX_QUERY_BYTES,
            format!(
                "query text too long ({} bytes; the limit is {} bytes)",
                text.len(),
                MAX_QUERY_BYTES
            ),
        ));
    }
    let toks = lex(text)?;
    let mut p = Parser {
        text,
        toks,
        pos: 0,
        depth: 0,
        elements: 0,
    };
    p.query()
}

struct Parser<'t> {
    text: &'t str,
    toks: Vec<Token>,
    pos: usize,
    depth: u32,
    elements: usize,
}

type R<T> = Result<T, CypherError>;

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        self.peek_n(0)
    }

    fn peek_n(&self, n: usize) -> &Tok {
        self.toks.get(self.pos + n).map_or(&Tok::Eof, |t| &t.tok)
    }

    /// Start offset of the current token.
    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.text.len(), |t| t.start)
    }

    /// End offset of the previous token.
    fn prev_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.toks.get(i))
            .map_or(0, |t| t.end)
    }

    fn bump(&mut self) {
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
    }

    fn is_kw(&self, kw: &str) -> bool {
        self.is_kw_n(0, kw)
    }

    fn is_kw_n(&self, n: usize, kw: &str) -> bool {
        matches!(self.peek_n(n), Tok::Ident(s) if s.eq_ignore_ascii_case(kw))
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect_kw(&mut self, kw: &str) -> R<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.expected(kw))
        }
    }

    fn is(&self, t: &Tok) -> bool {
        std::mem::discriminant(self.peek()) == std::mem::discriminant(t)
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.is(t) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: &Tok, what: &str) -> R<usize> {
        let at = self.at();
        if self.eat(t) {
            Ok(at)
        } else {
            Err(self.expected(what))
        }
    }

    fn expected(&self, what: &str) -> CypherError {
        CypherError::syntax(
            self.at(),
            format!("expected {what}, found {}", self.peek().describe()),
        )
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(CypherError::limit(
                self.at(),
                format!("expression nested too deeply (more than {MAX_DEPTH} levels)"),
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn element(&mut self) -> R<()> {
        self.elements += 1;
        if self.elements > MAX_ELEMENTS {
            return Err(CypherError::limit(
                self.at(),
                format!(
                    "query too large (more than {MAX_ELEMENTS} node and relationship patterns)"
                ),
            ));
        }
        Ok(())
    }

    // ---- clauses ----

    fn query(&mut self) -> R<Query> {
        let mut parts = vec![self.single()?];
        let mut union_all = Vec::new();
        while self.eat_kw("UNION") {
            union_all.push(self.eat_kw("ALL"));
            if parts.len() >= MAX_CLAUSES {
                return Err(CypherError::limit(self.at(), "too many UNION parts"));
            }
            parts.push(self.single()?);
        }
        let semicolon = self.eat(&Tok::Semicolon);
        if !self.is(&Tok::Eof) {
            if semicolon || self.is(&Tok::Semicolon) {
                return Err(CypherError::unsupported(
                    self.at(),
                    "several statements are not supported (one query per call)",
                ));
            }
            return Err(self.expected("the end of the query after RETURN (or UNION)"));
        }
        Ok(Query { parts, union_all })
    }

    fn single(&mut self) -> R<SingleQuery> {
        let mut clauses = Vec::new();
        loop {
            if clauses.len() >= MAX_CLAUSES {
                return Err(CypherError::limit(
                    self.at(),
                    format!("too many clauses (more than {MAX_CLAUSES})"),
                ));
            }
            let pos = self.at();
            if self.is_kw("OPTIONAL") {
                self.bump();
                if !self.is_kw("MATCH") {
                    return Err(self.expected("MATCH after OPTIONAL"));
                }
                self.bump();
                clauses.push(Clause::Match(self.match_body(true, pos)?));
            } else if self.eat_kw("MATCH") {
                clauses.push(Clause::Match(self.match_body(false, pos)?));
            } else if self.is_kw("WITH") {
                clauses.push(Clause::With(self.projection(true)?));
            } else if self.eat_kw("UNWIND") {
                let expr = self.expr()?;
                self.expect_kw("AS")?;
                let alias = self.var_name()?;
                clauses.push(Clause::Unwind(Unwind { expr, alias, pos }));
            } else if self.is_kw("RETURN") {
                clauses.push(Clause::Return(self.projection(false)?));
                return Ok(SingleQuery { clauses });
            } else if let Tok::Ident(word) = self.peek() {
                let upper = word.to_ascii_uppercase();
                if REFUSED.contains(&upper.as_str()) {
                    return Err(CypherError::unsupported(
                        pos,
                        format!(
                            "read-only: {upper} is not supported (the subset has MATCH, OPTIONAL MATCH, WHERE, WITH, UNWIND, RETURN and UNION)"
                        ),
                    ));
                }
                if upper == "WHERE" {
                    return Err(CypherError::syntax(
                        pos,
                        "WHERE must follow MATCH, OPTIONAL MATCH or WITH",
                    ));
                }
                if upper == "UNION" {
                    return Err(CypherError::syntax(
                        pos,
                        "each part of a UNION must end with RETURN",
                    ));
                }
                return Err(self.expected("MATCH, OPTIONAL MATCH, WITH, UNWIND or RETURN"));
            } else if self.is(&Tok::Eof) && !clauses.is_empty() {
                return Err(CypherError::syntax(pos, "the query must end with RETURN"));
            } else {
                return Err(self.expected("MATCH, OPTIONAL MATCH, WITH, UNWIND or RETURN"));
            }
        }
    }

    fn match_body(&mut self, optional: bool, pos: usize) -> R<Match> {
        let patterns = self.pattern_list()?;
        let where_ = if self.eat_kw("WHERE") {
            Some(self.expr()?)
        } else {
            None
        };
        Ok(Match {
            optional,
            patterns,
            where_,
            pos,
        })
    }

    fn pattern_list(&mut self) -> R<Vec<Pattern>> {
        let mut patterns = vec![self.pattern()?];
        while self.eat(&Tok::Comma) {
            patterns.push(self.pattern()?);
        }
        Ok(patterns)
    }

    fn projection(&mut self, is_with: bool) -> R<Projection> {
        let pos = self.at();
        self.bump(); // WITH / RETURN
        let distinct = self.eat_kw("DISTINCT");
        let mut star = false;
        let mut items = Vec::new();
        if self.eat(&Tok::Star) {
            star = true;
            if self.eat(&Tok::Comma) {
                items = self.items()?;
            }
        } else {
            items = self.items()?;
        }
        let mut order = Vec::new();
        if self.eat_kw("ORDER") {
            self.expect_kw("BY")?;
            loop {
                let expr = self.expr()?;
                let descending = if self.eat_kw("DESC") || self.eat_kw("DESCENDING") {
                    true
                } else {
                    if !self.eat_kw("ASC") {
                        self.eat_kw("ASCENDING");
                    }
                    false
                };
                order.push(SortItem { expr, descending });
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        let skip = if self.eat_kw("SKIP") {
            Some(self.expr()?)
        } else {
            None
        };
        let limit = if self.eat_kw("LIMIT") {
            Some(self.expr()?)
        } else {
            None
        };
        let where_ = if is_with && self.eat_kw("WHERE") {
            Some(self.expr()?)
        } else {
            None
        };
        Ok(Projection {
            distinct,
            star,
            items,
            order,
            skip,
            limit,
            where_,
            pos,
        })
    }

    fn items(&mut self) -> R<Vec<ProjItem>> {
        let mut items = Vec::new();
        loop {
            let start = self.at();
            let expr = self.expr()?;
            let end = self.prev_end().max(start);
            let text = self.text.get(start..end).unwrap_or("").trim().to_string();
            let alias = if self.eat_kw("AS") {
                Some(self.var_name()?)
            } else {
                None
            };
            items.push(ProjItem { expr, alias, text });
            if !self.eat(&Tok::Comma) {
                return Ok(items);
            }
        }
    }

    // ---- names ----

    /// A label, type, property or function name: any identifier, keywords included.
    fn name(&mut self, what: &str) -> R<Ident> {
        let pos = self.at();
        match self.peek().clone() {
            Tok::Ident(name) | Tok::Quoted(name) => {
                self.bump();
                Ok(Ident { name, pos })
            }
            _ => Err(self.expected(what)),
        }
    }

    /// A variable name: an identifier that is not a keyword, or a quoted one.
    fn var_name(&mut self) -> R<Ident> {
        let pos = self.at();
        match self.peek().clone() {
            Tok::Quoted(name) => {
                self.bump();
                Ok(Ident { name, pos })
            }
            Tok::Ident(name) if !is_reserved(&name) => {
                self.bump();
                Ok(Ident { name, pos })
            }
            Tok::Ident(name) => Err(CypherError::syntax(
                pos,
                format!(
                    "expected a variable name, found the keyword {} (quote it with backticks to use it as a name)",
                    name.to_ascii_uppercase()
                ),
            )),
            _ => Err(self.expected("a variable name")),
        }
    }

    fn optional_var(&mut self) -> R<Option<Ident>> {
        match self.peek() {
            Tok::Quoted(_) => self.var_name().map(Some),
            Tok::Ident(name) if !is_reserved(name) => self.var_name().map(Some),
            _ => Ok(None),
        }
    }

    // ---- patterns ----

    fn pattern(&mut self) -> R<Pattern> {
        let pos = self.at();
        let mut path_var = None;
        if matches!(self.peek(), Tok::Ident(_) | Tok::Quoted(_)) && self.peek_n(1) == &Tok::Eq {
            path_var = Some(self.var_name()?);
            self.bump();
        }
        if let Tok::Ident(word) = self.peek()
            && self.peek_n(1) == &Tok::LParen
        {
            let word = word.clone();
            let lower = word.to_ascii_lowercase();
            if lower == "shortestpath" || lower == "allshortestpaths" {
                return Err(CypherError::unsupported(
                    self.at(),
                    format!(
                        "{word}() is not supported; use a variable-length pattern such as (a)-[:CALLS*1..5]->(b) with ORDER BY length(p) LIMIT 1"
                    ),
                ));
            }
        }
        self.enter()?;
        let result = self.pattern_element(path_var, pos);
        self.leave();
        result
    }

    fn pattern_element(&mut self, path_var: Option<Ident>, pos: usize) -> R<Pattern> {
        let start = self.node_pattern()?;
        let mut chain = Vec::new();
        while self.is(&Tok::Minus) || (self.is(&Tok::Lt) && self.peek_n(1) == &Tok::Minus) {
            let rel = self.rel_pattern()?;
            let node = self.node_pattern()?;
            chain.push((rel, node));
        }
        Ok(Pattern {
            path_var,
            start,
            chain,
            pos,
        })
    }

    fn node_pattern(&mut self) -> R<NodePattern> {
        self.element()?;
        let pos = self.expect(&Tok::LParen, "`(` to start a node pattern")?;
        let var = self.optional_var()?;
        let labels = self.label_expr()?;
        let props = self.pattern_props()?;
        if !self.is(&Tok::RParen) {
            return Err(self.expected("`)` to close the node pattern"));
        }
        self.bump();
        Ok(NodePattern {
            var,
            labels,
            props,
            pos,
        })
    }

    fn label_expr(&mut self) -> R<Vec<Vec<Ident>>> {
        let mut groups = Vec::new();
        while self.eat(&Tok::Colon) {
            let mut group = vec![self.name("a label")?];
            while self.eat(&Tok::Pipe) {
                self.eat(&Tok::Colon);
                group.push(self.name("a label")?);
            }
            groups.push(group);
        }
        Ok(groups)
    }

    fn pattern_props(&mut self) -> R<Vec<(Ident, Expr)>> {
        if let Tok::Param(_) = self.peek() {
            return Err(CypherError::unsupported(
                self.at(),
                "a parameter as a property map is not supported; write {name: $name}",
            ));
        }
        if !self.eat(&Tok::LBrace) {
            return Ok(Vec::new());
        }
        let mut props = Vec::new();
        if self.eat(&Tok::RBrace) {
            return Ok(props);
        }
        loop {
            let key = self.name("a property name")?;
            self.expect(&Tok::Colon, "`:` after the property name")?;
            let value = self.expr()?;
            props.push((key, value));
            if self.eat(&Tok::Comma) {
                continue;
            }
            self.expect(&Tok::RBrace, "`,` or `}` in the property map")?;
            return Ok(props);
        }
    }

    fn rel_pattern(&mut self) -> R<RelPattern> {
        self.element()?;
        let pos = self.at();
        let left = self.eat(&Tok::Lt);
        self.expect(&Tok::Minus, "`-` in a relationship pattern")?;
        let mut var = None;
        let mut types = Vec::new();
        let mut length = None;
        let mut props = Vec::new();
        if self.eat(&Tok::LBracket) {
            var = self.optional_var()?;
            if self.eat(&Tok::Colon) {
                types.push(self.name("a relationship type")?);
                while self.eat(&Tok::Pipe) {
                    self.eat(&Tok::Colon);
                    types.push(self.name("a relationship type")?);
                }
            }
            if self.eat(&Tok::Star) {
                length = Some(self.range()?);
            }
            props = self.pattern_props()?;
            self.expect(&Tok::RBracket, "`]` to close the relationship pattern")?;
        }
        self.expect(&Tok::Minus, "`-` to close the relationship pattern")?;
        let right = self.eat(&Tok::Gt);
        let dir = match (left, right) {
            (true, false) => Direction::In,
            (false, true) => Direction::Out,
            _ => Direction::Both,
        };
        Ok(RelPattern {
            var,
            types,
            dir,
            length,
            props,
            pos,
        })
    }

    fn range_bound(&mut self) -> R<Option<u32>> {
        let pos = self.at();
        if let Tok::Int(v) = *self.peek() {
            self.bump();
            return u32::try_from(v).map(Some).map_err(|_| {
                CypherError::syntax(pos, "a path length must be between 0 and 4294967295")
            });
        }
        Ok(None)
    }

    fn range(&mut self) -> R<(Option<u32>, Option<u32>)> {
        let lo = self.range_bound()?;
        if self.eat(&Tok::DotDot) {
            let hi = self.range_bound()?;
            return Ok((lo, hi));
        }
        Ok((lo, lo))
    }

    /// At `(`: is this a relationship pattern (`(a)-[..]-`, `(a)--`, `(a)<-`) rather than a
    /// parenthesised expression?
    fn looks_like_pattern(&self) -> bool {
        let tok = |i: usize| self.toks.get(i).map_or(&Tok::Eof, |t| &t.tok);
        let is_name = |t: &Tok| matches!(t, Tok::Ident(_) | Tok::Quoted(_));
        let mut i = self.pos + 1;
        if is_name(tok(i)) {
            i += 1;
        }
        while tok(i) == &Tok::Colon {
            i += 1;
            if !is_name(tok(i)) {
                return false;
            }
            i += 1;
            while tok(i) == &Tok::Pipe {
                i += 1;
                if tok(i) == &Tok::Colon {
                    i += 1;
                }
                if !is_name(tok(i)) {
                    return false;
                }
                i += 1;
            }
        }
        if tok(i) == &Tok::LBrace {
            let mut depth = 0usize;
            loop {
                match tok(i) {
                    Tok::LBrace => depth += 1,
                    Tok::RBrace => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    Tok::Eof => return false,
                    _ => {}
                }
                i += 1;
            }
        }
        if tok(i) != &Tok::RParen {
            return false;
        }
        matches!(
            (tok(i + 1), tok(i + 2)),
            (Tok::Minus, Tok::LBracket | Tok::Minus) | (Tok::Lt, Tok::Minus)
        )
    }

    // ---- expressions ----

    pub fn expr(&mut self) -> R<Expr> {
        self.enter()?;
        let saved = self.depth;
        let result = self.operators();
        self.depth = saved;
        self.leave();
        result
    }

    /// The binary operator at the current token, with its precedence level.
    fn binary_op(&self) -> Option<(u8, BinOp)> {
        let cmp = |op| Some((LEVEL_CMP, BinOp::Cmp(op)));
        let arith = |level, op| Some((level, BinOp::Arith(op)));
        match self.peek() {
            Tok::Ident(w) => {
                let w = w.to_ascii_uppercase();
                match w.as_str() {
                    "OR" => Some((LEVEL_OR, BinOp::Or)),
                    "XOR" => Some((LEVEL_XOR, BinOp::Xor)),
                    "AND" => Some((LEVEL_AND, BinOp::And)),
                    "STARTS" => Some((LEVEL_PRED, BinOp::StartsWith)),
                    "ENDS" => Some((LEVEL_PRED, BinOp::EndsWith)),
                    "CONTAINS" => Some((LEVEL_PRED, BinOp::Contains)),
                    "IN" => Some((LEVEL_PRED, BinOp::In)),
                    _ => None,
                }
            }
            Tok::RegexMatch => Some((LEVEL_PRED, BinOp::Regex)),
            Tok::Eq => cmp(CmpOp::Eq),
            Tok::Neq => cmp(CmpOp::Neq),
            Tok::Lt => cmp(CmpOp::Lt),
            Tok::Le => cmp(CmpOp::Le),
            Tok::Gt => cmp(CmpOp::Gt),
            Tok::Ge => cmp(CmpOp::Ge),
            Tok::Plus => arith(LEVEL_ADD, ArithOp::Add),
            Tok::Minus => arith(LEVEL_ADD, ArithOp::Sub),
            Tok::Star => arith(LEVEL_MUL, ArithOp::Mul),
            Tok::Slash => arith(LEVEL_MUL, ArithOp::Div),
            Tok::Percent => arith(LEVEL_MUL, ArithOp::Mod),
            Tok::Caret => arith(LEVEL_POW, ArithOp::Pow),
            _ => None,
        }
    }

    /// Operator precedence without one function per level: operands (prefix operators,
    /// then a postfix expression) and operators go on two stacks; an operator reduces the
    /// pending ones of the same or higher level first (all binary operators are
    /// left-associative). Same-level chains become one n-ary node, so the tree depth is bounded
    /// by the number of levels, not by the length of the text.
    fn operators(&mut self) -> R<Expr> {
        let mut operands: Vec<Operand> = Vec::new();
        let mut ops: Vec<Pending> = Vec::new();
        loop {
            // prefix operators
            loop {
                let pos = self.at();
                if self.is_kw("NOT") {
                    self.bump();
                    self.enter()?;
                    ops.push(Pending::Prefix {
                        level: LEVEL_NOT,
                        negate: false,
                        pos,
                    });
                } else if self.is(&Tok::Minus) {
                    self.bump();
                    self.enter()?;
                    ops.push(Pending::Prefix {
                        level: LEVEL_NEG,
                        negate: true,
                        pos,
                    });
                } else if self.is(&Tok::Plus) {
                    self.bump();
                } else {
                    break;
                }
            }
            let operand = self.postfix()?;
            operands.push(Operand {
                expr: operand,
                chain: None,
            });
            // IS [NOT] NULL: a postfix operator of the predicate level
            while self.is_kw("IS") {
                let pos = self.at();
                self.bump();
                let op = if self.eat_kw("NOT") {
                    PredOp::IsNotNull
                } else {
                    PredOp::IsNull
                };
                self.expect_kw("NULL")?;
                reduce_while(&mut operands, &mut ops, LEVEL_PRED)?;
                let Some(top) = operands.pop() else {
                    return Err(CypherError::syntax(pos, "IS NULL needs an operand"));
                };
                operands.push(add_pred(top, op, pos));
            }
            let Some((level, op)) = self.binary_op() else {
                break;
            };
            let pos = self.at();
            self.bump();
            if matches!(op, BinOp::StartsWith | BinOp::EndsWith) {
                self.expect_kw("WITH")?;
            }
            reduce_while(&mut operands, &mut ops, level)?;
            ops.push(Pending::Binary { level, op, pos });
        }
        reduce_while(&mut operands, &mut ops, 0)?;
        match (operands.pop(), operands.is_empty()) {
            (Some(top), true) => Ok(top.expr),
            _ => Err(CypherError::syntax(self.at(), "malformed expression")),
        }
    }

    fn postfix(&mut self) -> R<Expr> {
        let base = self.atom()?;
        let is_var = matches!(base.kind, ExprKind::Var(_));
        let mut ops = Vec::new();
        loop {
            let at = self.at();
            if self.eat(&Tok::Dot) {
                ops.push((PostOp::Prop(self.name("a property name")?), at));
            } else if self.eat(&Tok::LBracket) {
                if self.eat(&Tok::DotDot) {
                    let hi = self.slice_bound()?;
                    ops.push((PostOp::Slice(None, hi), at));
                } else {
                    let e = self.expr()?;
                    if self.eat(&Tok::DotDot) {
                        let hi = self.slice_bound()?;
                        ops.push((PostOp::Slice(Some(e), hi), at));
                    } else {
                        self.expect(&Tok::RBracket, "`]`")?;
                        ops.push((PostOp::Index(e), at));
                    }
                }
            } else if is_var && ops.is_empty() && self.is(&Tok::LBrace) {
                return Err(CypherError::unsupported(
                    at,
                    "map projections (n {.name, ...}) are not supported; return the properties as columns",
                ));
            } else if is_var && ops.is_empty() && self.is(&Tok::Colon) {
                ops.push((PostOp::Labels(self.label_expr()?), at));
            } else {
                break;
            }
        }
        if ops.is_empty() {
            return Ok(base);
        }
        let pos = base.pos;
        Ok(Expr {
            kind: ExprKind::Postfix(Box::new(base), ops),
            pos,
        })
    }

    fn slice_bound(&mut self) -> R<Option<Expr>> {
        if self.eat(&Tok::RBracket) {
            return Ok(None);
        }
        let e = self.expr()?;
        self.expect(&Tok::RBracket, "`]` to close the slice")?;
        Ok(Some(e))
    }

    fn atom(&mut self) -> R<Expr> {
        let pos = self.at();
        let lit = |kind| Ok(Expr { kind, pos });
        match self.peek().clone() {
            Tok::Int(v) => {
                self.bump();
                lit(ExprKind::Int(v))
            }
            Tok::Float(v) => {
                self.bump();
                lit(ExprKind::Float(v))
            }
            Tok::Str(s) => {
                self.bump();
                lit(ExprKind::Str(s))
            }
            Tok::Param(p) => {
                self.bump();
                lit(ExprKind::Param(p))
            }
            Tok::LBracket => self.list(),
            Tok::LBrace => Err(CypherError::unsupported(
                pos,
                "map literals are not supported",
            )),
            Tok::LParen => {
                if self.looks_like_pattern() {
                    let pattern = self.pattern()?;
                    return lit(ExprKind::Pattern(Box::new(pattern)));
                }
                self.bump();
                let e = self.expr()?;
                self.expect(&Tok::RParen, "`)`")?;
                Ok(e)
            }
            Tok::Quoted(name) => {
                self.bump();
                lit(ExprKind::Var(name))
            }
            Tok::Ident(word) => {
                let upper = word.to_ascii_uppercase();
                match upper.as_str() {
                    "TRUE" => {
                        self.bump();
                        return lit(ExprKind::Bool(true));
                    }
                    "FALSE" => {
                        self.bump();
                        return lit(ExprKind::Bool(false));
                    }
                    "NULL" => {
                        self.bump();
                        return lit(ExprKind::Null);
                    }
                    "CASE" => return self.case(),
                    "EXISTS" | "COUNT" if self.peek_n(1) == &Tok::LBrace => {
                        return self.subquery(upper == "COUNT");
                    }
                    "COLLECT" if self.peek_n(1) == &Tok::LBrace => {
                        return Err(CypherError::unsupported(
                            pos,
                            "COLLECT { } subqueries are not supported",
                        ));
                    }
                    _ => {}
                }
                if self.peek_n(1) == &Tok::LParen {
                    return self.call();
                }
                let mut n = 1;
                while self.peek_n(n) == &Tok::Dot && matches!(self.peek_n(n + 1), Tok::Ident(_)) {
                    n += 2;
                }
                if n > 1 && self.peek_n(n) == &Tok::LParen {
                    return Err(CypherError::unsupported(
                        pos,
                        "namespaced functions and procedures are not supported",
                    ));
                }
                if is_reserved(&word) {
                    return Err(CypherError::syntax(
                        pos,
                        format!("expected an expression, found the keyword {upper}"),
                    ));
                }
                self.bump();
                lit(ExprKind::Var(word))
            }
            _ => Err(self.expected("an expression")),
        }
    }

    fn list(&mut self) -> R<Expr> {
        let pos = self.at();
        self.bump(); // [
        if matches!(self.peek(), Tok::Ident(_) | Tok::Quoted(_)) && self.is_kw_n(1, "IN") {
            return Err(CypherError::unsupported(
                pos,
                "list comprehensions are not supported",
            ));
        }
        if self.is(&Tok::LParen) && self.looks_like_pattern() {
            return Err(CypherError::unsupported(
                pos,
                "pattern comprehensions are not supported; use OPTIONAL MATCH and collect()",
            ));
        }
        let mut items = Vec::new();
        if !self.eat(&Tok::RBracket) {
            loop {
                items.push(self.expr()?);
                if self.eat(&Tok::Comma) {
                    continue;
                }
                self.expect(&Tok::RBracket, "`,` or `]` in the list")?;
                break;
            }
        }
        Ok(Expr {
            kind: ExprKind::List(items),
            pos,
        })
    }

    fn call(&mut self) -> R<Expr> {
        let pos = self.at();
        let name = self.name("a function name")?;
        let lower = name.name.to_ascii_lowercase();
        if matches!(
            lower.as_str(),
            "any" | "all" | "none" | "single" | "reduce" | "filter" | "extract"
        ) {
            return Err(CypherError::unsupported(
                pos,
                format!("{lower}() (list predicates and folds) is not supported"),
            ));
        }
        self.bump(); // (
        if self.is(&Tok::Star) && name.name.eq_ignore_ascii_case("count") {
            self.bump();
            self.expect(&Tok::RParen, "`)` after count(*")?;
            return Ok(Expr {
                kind: ExprKind::Call {
                    name,
                    distinct: false,
                    star: true,
                    args: Vec::new(),
                },
                pos,
            });
        }
        let distinct = self.eat_kw("DISTINCT");
        let mut args = Vec::new();
        if !self.eat(&Tok::RParen) {
            loop {
                args.push(self.expr()?);
                if self.eat(&Tok::Comma) {
                    continue;
                }
                self.expect(&Tok::RParen, "`,` or `)` after the function argument")?;
                break;
            }
        }
        Ok(Expr {
            kind: ExprKind::Call {
                name,
                distinct,
                star: false,
                args,
            },
            pos,
        })
    }

    fn case(&mut self) -> R<Expr> {
        let pos = self.at();
        self.bump(); // CASE
        let subject = if self.is_kw("WHEN") {
            None
        } else {
            Some(Box::new(self.expr()?))
        };
        let mut whens = Vec::new();
        while self.eat_kw("WHEN") {
            let cond = self.expr()?;
            self.expect_kw("THEN")?;
            let value = self.expr()?;
            whens.push((cond, value));
        }
        if whens.is_empty() {
            return Err(self.expected("WHEN"));
        }
        let otherwise = if self.eat_kw("ELSE") {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        self.expect_kw("END")?;
        Ok(Expr {
            kind: ExprKind::Case {
                subject,
                whens,
                otherwise,
            },
            pos,
        })
    }

    fn subquery(&mut self, count: bool) -> R<Expr> {
        let pos = self.at();
        self.bump(); // EXISTS / COUNT
        self.bump(); // {
        self.enter()?;
        let result = self.subquery_body();
        self.leave();
        let (patterns, where_) = result?;
        Ok(Expr {
            kind: ExprKind::Subquery {
                count,
                patterns,
                where_,
            },
            pos,
        })
    }

    fn subquery_body(&mut self) -> R<(Vec<Pattern>, Option<Box<Expr>>)> {
        self.eat_kw("MATCH");
        let patterns = self.pattern_list()?;
        let where_ = if self.eat_kw("WHERE") {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        if self.is_kw("RETURN") || self.is_kw("WITH") || self.is_kw("MATCH") {
            return Err(CypherError::unsupported(
                self.at(),
                "only a pattern and WHERE are supported inside EXISTS { } and COUNT { }",
            ));
        }
        self.expect(&Tok::RBrace, "`}` to close the subquery")?;
        Ok((patterns, where_))
    }
}

const LEVEL_OR: u8 = 1;
const LEVEL_XOR: u8 = 2;
const LEVEL_AND: u8 = 3;
const LEVEL_NOT: u8 = 4;
const LEVEL_CMP: u8 = 5;
const LEVEL_PRED: u8 = 6;
const LEVEL_ADD: u8 = 7;
const LEVEL_MUL: u8 = 8;
const LEVEL_POW: u8 = 9;
const LEVEL_NEG: u8 = 10;

#[derive(Debug, Clone, Copy)]
enum BinOp {
    Or,
    Xor,
    And,
    Cmp(CmpOp),
    StartsWith,
    EndsWith,
    Contains,
    In,
    Regex,
    Arith(ArithOp),
}

enum Pending {
    Binary { level: u8, op: BinOp, pos: usize },
    Prefix { level: u8, negate: bool, pos: usize },
}

impl Pending {
    fn level(&self) -> u8 {
        match self {
            Pending::Binary { level, .. } | Pending::Prefix { level, .. } => *level,
        }
    }
}

/// An operand; `chain` is the level of the n-ary node it is, when it was built by this
/// operator run (not parenthesised), so a following operator of that level extends it.
struct Operand {
    expr: Expr,
    chain: Option<u8>,
}

fn add_pred(base: Operand, op: PredOp, pos: usize) -> Operand {
    let expr = match base {
        Operand {
            expr:
                Expr {
                    kind: ExprKind::Predicate(b, mut list),
                    pos: p,
                },
            chain: Some(LEVEL_PRED),
        } => {
            list.push((op, pos));
            Expr {
                kind: ExprKind::Predicate(b, list),
                pos: p,
            }
        }
        Operand { expr, .. } => {
            let p = expr.pos;
            Expr {
                kind: ExprKind::Predicate(Box::new(expr), vec![(op, pos)]),
                pos: p,
            }
        }
    };
    Operand {
        expr,
        chain: Some(LEVEL_PRED),
    }
}

/// Reduces pending operators whose level is at least `level`.
fn reduce_while(operands: &mut Vec<Operand>, ops: &mut Vec<Pending>, level: u8) -> R<()> {
    while ops.last().is_some_and(|p| p.level() >= level) {
        let Some(op) = ops.pop() else {
            break;
        };
        reduce(operands, op)?;
    }
    Ok(())
}

fn reduce(operands: &mut Vec<Operand>, op: Pending) -> R<()> {
    let malformed = |pos| CypherError::syntax(pos, "malformed expression");
    match op {
        Pending::Prefix { negate, pos, .. } => {
            let inner = operands.pop().ok_or_else(|| malformed(pos))?.expr;
            let kind = if !negate {
                ExprKind::Not(Box::new(inner))
            } else {
                match inner.kind {
                    ExprKind::Int(v) => ExprKind::Int(v.wrapping_neg()),
                    ExprKind::Float(v) => ExprKind::Float(-v),
                    other => ExprKind::Neg(Box::new(Expr {
                        kind: other,
                        pos: inner.pos,
                    })),
                }
            };
            operands.push(Operand {
                expr: Expr { kind, pos },
                chain: None,
            });
        }
        Pending::Binary { level, op, pos } => {
            let right = operands.pop().ok_or_else(|| malformed(pos))?.expr;
            let left = operands.pop().ok_or_else(|| malformed(pos))?;
            let extend = left.chain == Some(level);
            let lpos = left.expr.pos;
            let mut l = left.expr;
            let kind = match op {
                BinOp::Or | BinOp::Xor | BinOp::And => {
                    let wrap = match op {
                        BinOp::Or => ExprKind::Or,
                        BinOp::Xor => ExprKind::Xor,
                        _ => ExprKind::And,
                    };
                    match (extend, l.kind) {
                        (true, ExprKind::Or(mut v))
                        | (true, ExprKind::Xor(mut v))
                        | (true, ExprKind::And(mut v)) => {
                            v.push(right);
                            wrap(v)
                        }
                        (_, kind) => {
                            l.kind = kind;
                            wrap(vec![l, right])
                        }
                    }
                }
                BinOp::Cmp(c) => match (extend, l.kind) {
                    (true, ExprKind::Compare(first, mut rest)) => {
                        rest.push((c, right));
                        ExprKind::Compare(first, rest)
                    }
                    (_, kind) => {
                        l.kind = kind;
                        ExprKind::Compare(Box::new(l), vec![(c, right)])
                    }
                },
                BinOp::Arith(a) => match (extend, l.kind) {
                    (true, ExprKind::Arith(first, mut rest)) => {
                        rest.push((a, right));
                        ExprKind::Arith(first, rest)
                    }
                    (_, kind) => {
                        l.kind = kind;
                        ExprKind::Arith(Box::new(l), vec![(a, right)])
                    }
                },
                BinOp::StartsWith
                | BinOp::EndsWith
                | BinOp::Contains
                | BinOp::In
                | BinOp::Regex => {
                    let pred = match op {
                        BinOp::StartsWith => PredOp::StartsWith(right),
                        BinOp::EndsWith => PredOp::EndsWith(right),
                        BinOp::Contains => PredOp::Contains(right),
                        BinOp::In => PredOp::In(right),
                        _ => PredOp::Regex(right),
                    };
                    operands.push(add_pred(
                        Operand {
                            expr: l,
                            chain: left.chain,
                        },
                        pred,
                        pos,
                    ));
                    return Ok(());
                }
            };
            operands.push(Operand {
                expr: Expr { kind, pos: lpos },
                chain: Some(level),
            });
        }
    }
    Ok(())
}
