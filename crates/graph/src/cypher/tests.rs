//! Query table, errors, hostile inputs and a deterministic fuzz test.

use super::*;
use crate::testing::{edge, node};
use crate::{EdgeKind, Graph, NodeKind};

/// a.py: class Base { get }, class Child(Base) { get -> Base.get }, helper (recursive,
/// calls Child.get), main (calls helper, run twice; instantiates Child).
/// b.py (imported by a.py): run (calls helper, reads LIMIT), unused, LIMIT.
fn graph() -> Graph {
    use NodeKind::*;
    let nodes = vec![
        node(1, File, "a.py", "a.py", None),
        node(10, Class, "a.Base", "a.py", Some(1)),
        node(11, Class, "a.Child", "a.py", Some(1)),
        node(12, Method, "a.Base.get", "a.py", Some(10)),
        node(13, Method, "a.Child.get", "a.py", Some(11)),
        node(14, Function, "a.helper", "a.py", Some(1)),
        node(15, Function, "a.main", "a.py", Some(1)),
        node(2, File, "b.py", "b.py", None),
        node(20, Function, "b.run", "b.py", Some(2)),
        node(21, Function, "b.unused", "b.py", Some(2)),
        node(22, Constant, "b.LIMIT", "b.py", Some(2)),
    ];
    let edges = vec![
        edge(15, 14, EdgeKind::Calls),
        edge(15, 20, EdgeKind::Calls),
        edge(15, 20, EdgeKind::Calls),
        edge(20, 14, EdgeKind::Calls),
        edge(14, 13, EdgeKind::Calls),
        edge(14, 14, EdgeKind::Calls),
        edge(13, 12, EdgeKind::Calls),
        edge(15, 11, EdgeKind::Instantiates),
        edge(11, 10, EdgeKind::Inherits),
        edge(13, 12, EdgeKind::Overrides),
        edge(20, 22, EdgeKind::Reads),
        edge(1, 2, EdgeKind::Imports),
    ];
    Graph::new(nodes, &edges)
}

fn render_rows(g: &Graph, r: &QueryResult) -> Vec<String> {
    r.rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|v| v.render(g))
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect()
}

fn q_with(g: &Graph, text: &str, opts: &QueryOptions) -> Vec<String> {
    match run(g, text, opts) {
        Ok(r) => render_rows(g, &r),
        Err(e) => panic!("query failed: {text}\n{e}"),
    }
}

fn q(g: &Graph, text: &str) -> Vec<String> {
    q_with(g, text, &QueryOptions::default())
}

fn err(g: &Graph, text: &str) -> CypherError {
    match run(g, text, &QueryOptions::default()) {
        Ok(r) => panic!("expected an error for {text}, got {:?}", render_rows(g, &r)),
        Err(e) => e,
    }
}

#[test]
fn query_table() {
    let g = graph();
    let table: &[(&str, &[&str])] = &[
        // labels, alternatives, case tolerance
        (
            "MATCH (n:Function) RETURN n.name",
            &["helper", "main", "run", "unused"],
        ),
        (
            "MATCH (n:Function|Method) RETURN n.qname",
            &[
                "a.Base.get",
                "a.Child.get",
                "a.helper",
                "a.main",
                "b.run",
                "b.unused",
            ],
        ),
        (
            "MATCH (n:function)-[:calls]->(m:METHOD) RETURN n.name, m.qname",
            &["helper | a.Child.get"],
        ),
        ("MATCH (n:Class:Function) RETURN n", &[]),
        // property maps (index lookups)
        (
            "MATCH (n {name: 'get'}) RETURN n.qname",
            &["a.Base.get", "a.Child.get"],
        ),
        (
            "MATCH (n {qualified_name: 'b.run'}) RETURN n.name",
            &["run"],
        ),
        ("MATCH (n {id: 20}) RETURN n.name", &["run"]),
        ("MATCH (n) WHERE id(n) = 20 RETURN n.name", &["run"]),
        ("MATCH (n) WHERE n.id = 20.0 RETURN n.name", &["run"]),
        (
            "MATCH (n {name: 'get', kind: 'method'}) RETURN count(*)",
            &["2"],
        ),
        (
            "MATCH (:Class)<-[:CONTAINS]-(f:File) RETURN DISTINCT f.path",
            &["a.py"],
        ),
        // relationships
        (
            "MATCH (a:Function)-[r:CALLS]->(b) RETURN a.name, b.name, type(r)",
            &[
                "helper | get | CALLS",
                "helper | helper | CALLS",
                "main | helper | CALLS",
                "main | run | CALLS",
                "run | helper | CALLS",
            ],
        ),
        (
            "MATCH (a)-[:CALLS|INSTANTIATES]->(b) WHERE a.name = 'main' RETURN b.name",
            &["helper", "run", "Child"],
        ),
        (
            "MATCH (a)-[:CALLS|:INSTANTIATES]->(b) WHERE a.name = 'main' RETURN count(b)",
            &["3"],
        ),
        (
            "MATCH (a {name: 'run'})-[:CALLS]-(b) RETURN b.name",
            &["helper", "main"],
        ),
        (
            "MATCH (a {name: 'run'})-->(b) RETURN b.name",
            &["helper", "LIMIT"],
        ),
        (
            "MATCH (a {name: 'run'})<--(b) RETURN b.qname",
            &["b.py", "a.main"],
        ),
        (
            "MATCH (a {name: 'run'})--(b) RETURN b.qname",
            &["a.helper", "b.LIMIT", "b.py", "a.main"],
        ),
        (
            "MATCH (a {name: 'helper'})-[:CALLS]-(b) RETURN b.name",
            &["get", "helper", "main", "run"],
        ),
        (
            "MATCH (a {name: 'Base'})<-[:INHERITS]-(c) RETURN c.name",
            &["Child"],
        ),
        ("MATCH (a)-[:CALLS]->(a) RETURN a.name", &["helper"]),
        (
            "MATCH (x)-[:INHERITS]->(y) RETURN x.name, y.name",
            &["Child | Base"],
        ),
        (
            "MATCH (a {name: 'main'})-[r:CALLS]->(b {name: 'run'}) RETURN r.type, r.provenance, r.count, type(r), r.kind",
            &["CALLS | inferred | 2 | CALLS | calls"],
        ),
        ("MATCH ()-[r:CALLS {count: 2}]->(b) RETURN b.name", &["run"]),
        (
            "MATCH (a)-[r]->(b) WHERE r.type = 'OVERRIDES' RETURN a.qname, b.qname",
            &["a.Child.get | a.Base.get"],
        ),
        // relationship uniqueness within a MATCH
        (
            "MATCH (a)-[r1:CALLS]->(b), (c)-[r2:CALLS]->(d) WHERE a.name = 'main' AND c.name = 'main' RETURN b.name, d.name",
            &["helper | run", "run | helper"],
        ),
        (
            "MATCH (a {name: 'main'})-[:CALLS]->(b) MATCH (c {name: 'main'})-[:CALLS]->(d) RETURN count(*)",
            &["4"],
        ),
        // variable length
        (
            "MATCH (a {name: 'main'})-[:CALLS*1..2]->(b) RETURN b.name",
            &["helper", "get", "helper", "run", "helper"],
        ),
        (
            "MATCH p = (a {name: 'main'})-[:CALLS*2]->(b) RETURN p",
            &[
                "(a.main)-[CALLS]->(a.helper)-[CALLS]->(a.Child.get)",
                "(a.main)-[CALLS]->(a.helper)-[CALLS]->(a.helper)",
                "(a.main)-[CALLS]->(b.run)-[CALLS]->(a.helper)",
            ],
        ),
        (
            "MATCH (a {name: 'main'})-[:CALLS*..1]->(b) RETURN b.name",
            &["helper", "run"],
        ),
        (
            "MATCH (a {name: 'run'})-[:CALLS*0..1]->(b) RETURN b.name",
            &["run", "helper"],
        ),
        (
            "MATCH (a {name: 'main'})-[:CALLS*]->(b) RETURN DISTINCT b.name",
            &["helper", "get", "run"],
        ),
        (
            "MATCH (a {name: 'main'})-[rs:CALLS*2]->(b {name: 'get'}) RETURN size(rs), type(rs[0]), rs[1].count, b.qname",
            &["2 | CALLS | 1 | a.Child.get"],
        ),
        (
            "MATCH p = (a)-[:CALLS*2]->(b {qname: 'a.Child.get'}) RETURN p",
            &[
                "(a.helper)-[CALLS]->(a.helper)-[CALLS]->(a.Child.get)",
                "(a.main)-[CALLS]->(a.helper)-[CALLS]->(a.Child.get)",
                "(b.run)-[CALLS]->(a.helper)-[CALLS]->(a.Child.get)",
            ],
        ),
        (
            "MATCH p = (a {name: 'main'})-[:CALLS*1..3]->(b) RETURN max(length(p))",
            &["3"],
        ),
        (
            "MATCH (a {name: 'main'})-[:CALLS*1..2 {provenance: 'inferred'}]->(b) RETURN count(*)",
            &["5"],
        ),
        (
            "MATCH (a {name: 'main'})-[:CALLS*1..2 {provenance: 'asserted'}]->(b) RETURN count(*)",
            &["0"],
        ),
        (
            "MATCH (a {name: 'unused'})-[*1..1]-(b) RETURN b.qname",
            &["b.py"],
        ),
        (
            "MATCH (a {name: 'LIMIT'})<-[*2]-(b) RETURN b.qname",
            &["a.py", "b.py", "a.main"],
        ),
        (
            "MATCH p = (a {name: 'main'})-[:CALLS]->(b)-[:CALLS*1..2]->(c {name: 'get'}) RETURN p",
            &[
                "(a.main)-[CALLS]->(a.helper)-[CALLS]->(a.Child.get)",
                "(a.main)-[CALLS]->(a.helper)-[CALLS]->(a.Child.get)-[CALLS]->(a.Base.get)",
                "(a.main)-[CALLS]->(a.helper)-[CALLS]->(a.helper)-[CALLS]->(a.Child.get)",
                "(a.main)-[CALLS]->(b.run)-[CALLS]->(a.helper)-[CALLS]->(a.Child.get)",
            ],
        ),
        (
            "MATCH p = (c:Class)-[:INHERITS]->(b) RETURN p, length(p), nodes(p), relationships(p)",
            &[
                "(a.Child)-[INHERITS]->(a.Base) | 1 | [(a.Child), (a.Base)] | [[a.Child-INHERITS->a.Base]]",
            ],
        ),
        (
            "MATCH p = (b:Class)<-[:INHERITS]-(c) RETURN p",
            &["(a.Base)<-[INHERITS]-(a.Child)"],
        ),
        // pattern predicates
        (
            "MATCH (f:Function) WHERE NOT (f)<-[:CALLS]-() RETURN f.name",
            &["main", "unused"],
        ),
        (
            "MATCH (f:Function) WHERE NOT exists((f)<-[:CALLS]-()) RETURN f.name",
            &["main", "unused"],
        ),
        (
            "MATCH (f:Function) WHERE NOT EXISTS { (f)<-[:CALLS]-(:Function) } RETURN f.name",
            &["main", "unused"],
        ),
        (
            "MATCH (f:Function) WHERE EXISTS { MATCH (f)-[:CALLS]->(g) WHERE g.name = 'run' } RETURN f.name",
            &["main"],
        ),
        (
            "MATCH (f:Function) WHERE (f)-[:READS]->(:Constant) RETURN f.name",
            &["run"],
        ),
        (
            "MATCH (f:Function) RETURN f.name, size((f)<-[:CALLS]-()) AS callers, COUNT { (f)-[:CALLS]->() } AS callees",
            &[
                "helper | 3 | 2",
                "main | 0 | 2",
                "run | 1 | 1",
                "unused | 0 | 0",
            ],
        ),
        (
            "MATCH (f {name: 'run'}) RETURN (f)-[:READS]->()",
            &["[(b.run)-[READS]->(b.LIMIT)]"],
        ),
        // WHERE operators
        (
            "MATCH (n:Function) WHERE n.name STARTS WITH 'h' OR n.name ENDS WITH 'un' RETURN n.name",
            &["helper", "run"],
        ),
        (
            "MATCH (n:Function) WHERE n.name CONTAINS 'ai' RETURN n.name",
            &["main"],
        ),
        (
            "MATCH (n:Function) WHERE n.name =~ 'ma.*' RETURN n.name",
            &["main"],
        ),
        ("MATCH (n:Function) WHERE n.name =~ 'ma' RETURN n.name", &[]),
        (
            "MATCH (n:Function) WHERE n.name =~ '(?i)MAIN' RETURN n.name",
            &["main"],
        ),
        (
            "MATCH (n) WHERE n.file =~ '.*\\.py' AND n:File RETURN n.qname",
            &["a.py", "b.py"],
        ),
        (
            "MATCH (n) WHERE n.file =~ '.*\\.py' AND n:File RETURN n.qname",
            &["a.py", "b.py"],
        ),
        (
            "MATCH (n:Function) WHERE n.name IN ['run', 'main', 'nope'] RETURN n.name",
            &["main", "run"],
        ),
        (
            "MATCH (n:Function) WHERE n.start_line >= 15 AND n.start_line < 21 RETURN n.name",
            &["main", "run"],
        ),
        (
            "MATCH (n:Function) WHERE 14 < n.line <= 20 RETURN n.name",
            &["main", "run"],
        ),
        (
            "MATCH (n:Function) WHERE n.name <> 'main' XOR n.start_line > 19 RETURN n.name",
            &["helper"],
        ),
        (
            "MATCH (n:Function) WHERE (n.name = 'main' OR n.name = 'run') AND NOT n.name = 'run' RETURN n.name",
            &["main"],
        ),
        (
            "MATCH (n:Function) WHERE n.signature IS NULL RETURN count(*)",
            &["4"],
        ),
        (
            "MATCH (n:Function) WHERE n.signature IS NOT NULL RETURN count(*)",
            &["0"],
        ),
        (
            "MATCH (n) WHERE n:Class OR n:Constant RETURN n.qname",
            &["a.Base", "a.Child", "b.LIMIT"],
        ),
        ("MATCH (n) WHERE n:Class|Constant RETURN count(*)", &["3"]),
        ("MATCH (n {name: '; DROP TABLE nodes; --'}) RETURN n", &[]),
        ("MATCH (n) WHERE n.name = 'x\\' OR 1=1 --' RETURN n", &[]),
        (
            "MATCH (n) WHERE n.name = \"') OR true RETURN n //\" RETURN n",
            &[],
        ),
        // properties
        (
            "MATCH (n {qname: 'b.run'}) RETURN n.id, n.name, n.qualified_name, n.kind, n.label, n.file, n.path, n.language, n.start_line, n.line, n.end_line, n.lines, n.visibility, n.modifiers, n.complexity, n.signature, n.in_degree, n.out_degree",
            &[
                "20 | run | b.run | function | Function | b.py | b.py | python | 20 | 20 | 21 | 2 | public | [] | 1 | null | 1 | 2",
            ],
        ),
        (
            "MATCH (n:Constant) RETURN n.complexity, n.startLine",
            &["null | 22"],
        ),
        // projections
        ("MATCH (n:Class) RETURN *", &["(a.Base)", "(a.Child)"]),
        (
            "MATCH (a:Class)-[:INHERITS]->(b) RETURN a.name AS child, b.name AS parent",
            &["Child | Base"],
        ),
        (
            "MATCH (a:Function)-[:CALLS]->(b) RETURN DISTINCT b.name",
            &["get", "helper", "run"],
        ),
        (
            "MATCH (n:Function) RETURN n.name ORDER BY n.name DESC SKIP 1 LIMIT 2",
            &["run", "main"],
        ),
        (
            "MATCH (n:Function) RETURN n.name SKIP 1 LIMIT 2",
            &["main", "run"],
        ),
        ("MATCH (n:Function) RETURN n.name LIMIT 0", &[]),
        (
            "MATCH (n:Function) RETURN n.name ORDER BY n.start_line DESC LIMIT 1",
            &["unused"],
        ),
        (
            "MATCH (n:Function) RETURN n.name AS x ORDER BY x ASC LIMIT 2",
            &["helper", "main"],
        ),
        (
            "MATCH (n:Function) RETURN n.complexity AS c, n.name ORDER BY c, n.name DESC LIMIT 2",
            &["1 | unused", "1 | run"],
        ),
        // aggregation
        (
            "MATCH (n) RETURN n.kind AS kind, count(*) AS c ORDER BY c DESC, kind",
            &[
                "function | 4",
                "class | 2",
                "file | 2",
                "method | 2",
                "constant | 1",
            ],
        ),
        (
            "MATCH (f:Function) RETURN count(f), collect(f.name), min(f.start_line), max(f.start_line), sum(f.start_line), avg(f.start_line)",
            &["4 | ['helper', 'main', 'run', 'unused'] | 14 | 21 | 70 | 17.5"],
        ),
        (
            "MATCH (a:Function)-[:CALLS]->(b) RETURN a.name, count(DISTINCT b) AS n ORDER BY n DESC, a.name",
            &["helper | 2", "main | 2", "run | 1"],
        ),
        (
            "MATCH (a:Function)-[:CALLS]->(b) RETURN count(DISTINCT b.name), count(b)",
            &["3 | 5"],
        ),
        (
            "MATCH (n:Enum) RETURN count(*), collect(n), sum(n.line), avg(n.line), max(n.line)",
            &["0 | [] | 0 | null | null"],
        ),
        ("MATCH (n:Enum) RETURN n.name, count(*)", &[]),
        (
            "MATCH (n) RETURN n.file AS file, count(*) ORDER BY count(*) DESC",
            &["a.py | 7", "b.py | 4"],
        ),
        (
            "MATCH (n) RETURN count(*) * 2 + 1 AS x, size(collect(DISTINCT n.file)) AS files",
            &["23 | 2"],
        ),
        (
            "MATCH (n:Function) RETURN sum(n.line * 1.0) / count(*)",
            &["17.5"],
        ),
        // WITH
        (
            "MATCH (a:Function)-[:CALLS]->(b) WITH a, count(*) AS calls WHERE calls > 1 RETURN a.name, calls",
            &["helper | 2", "main | 2"],
        ),
        (
            "MATCH (n:Function) WITH n.name AS name ORDER BY name DESC LIMIT 2 RETURN name",
            &["unused", "run"],
        ),
        (
            "MATCH (n:Function) WITH n WHERE n.name STARTS WITH 'm' MATCH (n)-[:CALLS]->(m) RETURN m.name",
            &["helper", "run"],
        ),
        (
            "MATCH (n) WITH n.file AS file, count(*) AS c RETURN file, c ORDER BY file",
            &["a.py | 7", "b.py | 4"],
        ),
        ("MATCH (n:Class) WITH * RETURN n.name", &["Base", "Child"]),
        (
            "MATCH (n:Function) WITH DISTINCT n.file AS f RETURN f",
            &["a.py", "b.py"],
        ),
        (
            "MATCH (n:Function) WITH n AS m MATCH (m)-[:READS]->(c) RETURN m.name, c.name",
            &["run | LIMIT"],
        ),
        (
            "MATCH (n:Function) WITH collect(n) AS fs UNWIND fs AS f RETURN count(f)",
            &["4"],
        ),
        (
            "MATCH (c:Class) WITH c OPTIONAL MATCH (c)<-[:INSTANTIATES]-(f) RETURN c.name, f.name",
            &["Base | null", "Child | main"],
        ),
        // OPTIONAL MATCH
        (
            "MATCH (f:Function) OPTIONAL MATCH (f)<-[:CALLS]-(c) RETURN f.name, c.name",
            &[
                "helper | helper",
                "helper | main",
                "helper | run",
                "main | null",
                "run | main",
                "unused | null",
            ],
        ),
        (
            "MATCH (f:Function) OPTIONAL MATCH (f)-[:CALLS]->(c) WHERE c.name = 'run' RETURN f.name, c.name",
            &["helper | null", "main | run", "run | null", "unused | null"],
        ),
        ("OPTIONAL MATCH (n:Enum) RETURN n", &["null"]),
        (
            "MATCH (f:Function) OPTIONAL MATCH p = (f)-[:READS]->(c) RETURN f.name, p",
            &[
                "helper | null",
                "main | null",
                "run | (b.run)-[READS]->(b.LIMIT)",
                "unused | null",
            ],
        ),
        // UNWIND
        (
            "UNWIND [3, 1, 2] AS x RETURN x ORDER BY x",
            &["1", "2", "3"],
        ),
        (
            "UNWIND ['main', 'run'] AS nm MATCH (f {name: nm}) RETURN f.qname",
            &["a.main", "b.run"],
        ),
        ("UNWIND null AS x RETURN x", &[]),
        (
            "UNWIND range(1, 5, 2) AS x RETURN collect(x)",
            &["[1, 3, 5]"],
        ),
        // multiple patterns and clauses
        (
            "MATCH (a {name: 'main'}), (b {name: 'unused'}) RETURN a.qname, b.qname",
            &["a.main | b.unused"],
        ),
        (
            "MATCH (a {name: 'main'}) MATCH (a)-[:CALLS]->(b) RETURN b.name",
            &["helper", "run"],
        ),
        (
            "MATCH (a {name: 'main'}) MATCH (b {name: a.name}) RETURN b.qname",
            &["a.main"],
        ),
        (
            "MATCH (c:Constant), (f:File) RETURN c.name, f.qname",
            &["LIMIT | a.py", "LIMIT | b.py"],
        ),
        // literals, operators, functions
        (
            "RETURN 'a\\'b', \"q\\\"x\", 1, 1.5, true, false, null, [1, 'x', null], -3, 0x10, 1e2",
            &["a'b | q\"x | 1 | 1.5 | true | false | null | [1, 'x', null] | -3 | 16 | 100.0"],
        ),
        (
            "RETURN 1 + 2 * 3, 7 / 2, 7 % 3, 2 ^ 3, 'a' + 'b', 7.0 / 2, -(1 + 1), 'n' + 1",
            &["7 | 3 | 1 | 8.0 | ab | 3.5 | -2 | n1"],
        ),
        (
            "RETURN [1, 2, 3][0], [1, 2, 3][-1], [1, 2, 3, 4][1..3], [1, 2, 3][..2], [1][5]",
            &["1 | 3 | [2, 3] | [1, 2] | null"],
        ),
        (
            "RETURN [1, 2] + [3], [1] + 2, size('héllo'), reverse('abc'), reverse([1, 2])",
            &["[1, 2, 3] | [1, 2] | 5 | cba | [2, 1]"],
        ),
        (
            "RETURN null AND false, null OR true, NOT null, null = null, 1 IN [null, 1], 2 IN [null, 1], 2 IN []",
            &["false | true | null | null | true | null | false"],
        ),
        (
            "RETURN 1 = 1.0, 'a' < 'b', 2 > 1 > 0, 1 < 'a', [1, 2] = [1, 2]",
            &["true | true | true | null | true"],
        ),
        (
            "RETURN toLower('AbC'), toUpper('x'), coalesce(null, null, 'c'), toString(12), toInteger('42'), toFloat('1.5'), toInteger(3.9)",
            &["abc | X | c | 12 | 42 | 1.5 | 3"],
        ),
        (
            "RETURN trim('  x '), replace('aXbX', 'X', '-'), substring('hello', 1, 3), split('a,b', ','), left('abc', 2), right('abc', 2)",
            &["x | a-b- | ell | ['a', 'b'] | ab | bc"],
        ),
        (
            "RETURN head([1, 2]), last([1, 2]), tail([1, 2, 3]), abs(-2), round(2.5), floor(1.5), sign(-3)",
            &["1 | 2 | [2, 3] | 2 | 3.0 | 1.0 | -1"],
        ),
        (
            "MATCH (n {qname: 'b.run'}) RETURN labels(n), id(n), toUpper(n.name), coalesce(n.signature, 'none'), size(n.qname)",
            &["['Function'] | 20 | RUN | none | 5"],
        ),
        (
            "MATCH (a {name: 'main'})-[r:CALLS]->(b {name: 'run'}) RETURN startNode(r).name, endNode(r).name",
            &["main | run"],
        ),
        (
            "MATCH (f:Function) RETURN f.name, CASE WHEN f.name = 'main' THEN 'entry' WHEN f.name = 'run' THEN 'task' ELSE 'other' END",
            &[
                "helper | other",
                "main | entry",
                "run | task",
                "unused | other",
            ],
        ),
        (
            "RETURN CASE 2 WHEN 1 THEN 'one' WHEN 2 THEN 'two' END, CASE 3 WHEN 1 THEN 'one' END",
            &["two | null"],
        ),
        // comments, semicolon, quoted names
        (
            "// leading comment\nMATCH (n:Constant) /* inline */ RETURN n.name;",
            &["LIMIT"],
        ),
        ("MATCH (`my var`:Constant) RETURN `my var`.name", &["LIMIT"]),
        // UNION
        (
            "MATCH (n:Class) RETURN n.name AS x UNION MATCH (n:Constant) RETURN n.name AS x",
            &["Base", "Child", "LIMIT"],
        ),
        ("RETURN 1 AS x UNION RETURN 1 AS x", &["1"]),
        ("RETURN 1 AS x UNION ALL RETURN 1 AS x", &["1", "1"]),
    ];
    let mut failures = Vec::new();
    for (text, expected) in table {
        let got = match run(&g, text, &QueryOptions::default()) {
            Ok(r) => render_rows(&g, &r),
            Err(e) => vec![format!("ERROR {e}")],
        };
        if got != *expected {
            failures.push(format!(
                "{text}\n  expected {expected:?}\n  got      {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn empty_graph() {
    let g = Graph::new(Vec::new(), &[]);
    assert_eq!(q(&g, "MATCH (n) RETURN count(*)"), vec!["0"]);
    assert_eq!(
        q(&g, "MATCH (n:Function {name: 'x'})-[:CALLS*]->(m) RETURN m"),
        Vec::<String>::new()
    );
    assert_eq!(q(&g, "OPTIONAL MATCH (n) RETURN n"), vec!["null"]);
}

#[test]
fn columns_warnings_truncation_and_stats() {
    let g = graph();
    let r = run(
        &g,
        "MATCH (n:Function) RETURN n.name, count(*) AS c, n.line + 1",
        &QueryOptions::default(),
    )
    .unwrap();
    assert_eq!(r.columns, vec!["n.name", "c", "n.line + 1"]);
    assert!(r.warnings.is_empty());

    let r = run(
        &g,
        "MATCH (a {name: 'main'})-[:CALLS*]->(b) RETURN b",
        &QueryOptions::default(),
    )
    .unwrap();
    assert_eq!(r.warnings.len(), 1);
    assert!(
        r.warnings[0].contains("capped at 10 hops"),
        "{:?}",
        r.warnings
    );
    let r = run(
        &g,
        "MATCH (a {name: 'main'})-[:CALLS*1..50]->(b) RETURN b",
        &QueryOptions::default(),
    )
    .unwrap();
    assert!(
        r.warnings[0].contains("upper bound 50 capped at 10"),
        "{:?}",
        r.warnings
    );
    assert!(r.stats.expansions > 0);
    assert!(r.stats.rows_scanned > 0);

    let opts = QueryOptions {
        max_rows: 2,
        ..QueryOptions::default()
    };
    let r = run(&g, "MATCH (n) RETURN n.name", &opts).unwrap();
    assert_eq!(r.rows.len(), 2);
    assert!(r.truncated);
    // streaming stops right after the row cap: 3 nodes scanned for 2 rows + 1
    assert_eq!(r.stats.rows_scanned, 3);
    let r = run(&g, "MATCH (n:Class) RETURN n.name", &opts).unwrap();
    assert_eq!(r.rows.len(), 2);
    assert!(!r.truncated);
    let r = run(&g, "MATCH (n) RETURN n.name ORDER BY n.name", &opts).unwrap();
    assert!(r.truncated);
    assert_eq!(render_rows(&g, &r), vec!["Base", "Child"]);
    let r = run(&g, "MATCH (n) RETURN n.name LIMIT 2", &opts).unwrap();
    assert!(!r.truncated);

    // LIMIT stops matching early
    let r = run(
        &g,
        "MATCH (a), (b) RETURN a, b LIMIT 1",
        &QueryOptions::default(),
    )
    .unwrap();
    assert_eq!(r.rows.len(), 1);
    assert_eq!(r.stats.rows_scanned, 2);

    // values are typed
    let r = run(
        &g,
        "MATCH (a {name: 'main'})-[r:CALLS]->(b {name: 'run'}) RETURN a, r, 1, 2.5, 'x'",
        &QueryOptions::default(),
    )
    .unwrap();
    let main = g.index_of(15).unwrap();
    let run_ix = g.index_of(20).unwrap();
    assert_eq!(
        r.rows[0],
        vec![
            Value::Node(main),
            Value::Rel {
                src: main,
                dst: run_ix,
                kind: EdgeKind::Calls,
                provenance: crate::Provenance::Inferred,
                count: 2
            },
            Value::Int(1),
            Value::Float(2.5),
            Value::Str("x".into())
        ]
    );
}

#[test]
fn parameters() {
    let g = graph();
    let opts = QueryOptions {
        params: vec![
            ("name".into(), Value::Str("run".into())),
            ("n".into(), Value::Int(1)),
            (
                "names".into(),
                Value::List(vec![Value::Str("main".into()), Value::Str("unused".into())]),
            ),
            ("node".into(), Value::Node(g.index_of(14).unwrap())),
            ("evil".into(), Value::Str("') RETURN n //".into())),
            ("re".into(), Value::Str("h.*".into())),
        ],
        ..QueryOptions::default()
    };
    assert_eq!(
        q_with(&g, "MATCH (n) WHERE n.name = $name RETURN n.qname", &opts),
        vec!["b.run"]
    );
    assert_eq!(
        q_with(&g, "MATCH (n {name: $name}) RETURN n.qname", &opts),
        vec!["b.run"]
    );
    assert_eq!(
        q_with(
            &g,
            "MATCH (n:Function) RETURN n.name ORDER BY n.name LIMIT $n",
            &opts
        ),
        vec!["helper"]
    );
    assert_eq!(
        q_with(
            &g,
            "MATCH (n) WHERE n.name IN $names RETURN n.name SKIP $n",
            &opts
        ),
        vec!["unused"]
    );
    assert_eq!(
        q_with(&g, "MATCH (n) WHERE n = $node RETURN n.name", &opts),
        vec!["helper"]
    );
    assert_eq!(
        q_with(&g, "MATCH (n {name: $evil}) RETURN n", &opts),
        Vec::<String>::new()
    );
    assert_eq!(
        q_with(
            &g,
            "MATCH (n:Function) WHERE n.name =~ $re RETURN n.name",
            &opts
        ),
        vec!["helper"]
    );
    let e = run(&g, "RETURN $missing", &opts).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unknown);
    assert!(e.message.contains("$missing"), "{e}");
    let bad = QueryOptions {
        params: vec![("x".into(), Value::Node(9999))],
        ..QueryOptions::default()
    };
    assert_eq!(
        run(&g, "RETURN $x", &bad).unwrap_err().kind,
        ErrorKind::Type
    );
}

#[test]
fn errors_name_the_problem_and_its_position() {
    let g = graph();
    let e = err(&g, "MATCH (n:Func) RETURN n");
    assert_eq!(e.kind, ErrorKind::Unknown);
    assert_eq!((e.offset, e.line, e.column), (9, 1, 10));
    assert!(e.message.contains("did you mean `Function`?"), "{e}");
    assert!(e.message.contains("TypeAlias"), "{e}");
    let shown = e.to_string();
    assert!(
        shown.starts_with("line 1, column 10: unknown label `Func`"),
        "{shown}"
    );
    assert!(
        shown.contains("\n  MATCH (n:Func) RETURN n\n           ^"),
        "{shown}"
    );

    let e = err(&g, "MATCH (n)-[:CALL]->(m) RETURN n");
    assert_eq!(e.kind, ErrorKind::Unknown);
    assert!(
        e.message.contains("did you mean `CALLS`?") && e.message.contains("USES_TYPE"),
        "{e}"
    );
    assert_eq!(e.offset, 12);

    let e = err(&g, "MATCH (n) RETURN n.nme");
    assert_eq!(e.kind, ErrorKind::Unknown);
    assert!(
        e.message.contains("did you mean `name`?") && e.message.contains("qualified_name"),
        "{e}"
    );
    assert_eq!(e.offset, 19);
    let e = err(&g, "MATCH (n)-[r]->() RETURN r.name");
    assert!(
        e.message
            .contains("valid relationship propertys: type, kind, provenance, count"),
        "{e}"
    );
    let e = err(&g, "MATCH (n) RETURN n.type");
    assert_eq!(e.kind, ErrorKind::Unknown);

    let e = err(&g, "MATCH (n) RETURN m");
    assert_eq!(e.kind, ErrorKind::Unknown);
    assert!(
        e.message
            .contains("unknown variable `m`; variables in scope: n"),
        "{e}"
    );
    let e = err(&g, "RETURN nope(1)");
    assert_eq!(e.kind, ErrorKind::Unknown);
    assert!(e.message.contains("unknown function"), "{e}");

    let writes = [
        ("CREATE (n) RETURN n", "CREATE", 0),
        ("MATCH (n) DELETE n", "DELETE", 10),
        ("MATCH (n) DETACH DELETE n", "DETACH", 10),
        ("MATCH (n) SET n.x = 1 RETURN n", "SET", 10),
        ("MERGE (n {name: 'x'}) RETURN n", "MERGE", 0),
        ("MATCH (n) REMOVE n.name RETURN n", "REMOVE", 10),
        ("CALL db.labels()", "CALL", 0),
        (
            "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l",
            "LOAD",
            0,
        ),
        ("MATCH (n) FOREACH (x IN [1] | SET n.a = x)", "FOREACH", 10),
        ("match (n) create (m)", "CREATE", 10),
    ];
    for (text, word, offset) in writes {
        let e = err(&g, text);
        assert_eq!(e.kind, ErrorKind::Unsupported, "{text}");
        assert!(
            e.message
                .starts_with(&format!("read-only: {word} is not supported")),
            "{e}"
        );
        assert_eq!(e.offset, offset, "{text}");
    }

    let syntax = [
        ("MATCH (n RETURN n", 9),
        ("MATCH (n) RETURN", 16),
        ("MATCH (n)", 9),
        ("MATCH (n) WHERE RETURN n", 16),
        ("MATCH (n)-[:CALLS->(m) RETURN n", 17),
        ("RETURN 'abc", 7),
        ("RETURN 1 /* never closed", 9),
        ("MATCH (n) RETURN n.name AS", 26),
        ("RETURN 1 RETURN 2", 9),
        ("MATCH (n) RETURN n LIMIT 1 MATCH (m) RETURN m", 27),
        ("", 0),
        ("RETURN 1 +", 10),
        ("RETURN [1, 2", 12),
        ("MATCH (n) WHERE n.name =~ '(' RETURN n", 26),
        ("RETURN count(count(*))", 13),
        ("MATCH (n) WHERE count(*) > 1 RETURN n", 16),
        ("RETURN 1 AS x, 2 AS x", 15),
        ("MATCH (n) WITH n.name RETURN 1", 15),
        ("MATCH (n), (n)-[n]->() RETURN n", 16),
        ("RETURN 1 ~ 2", 9),
        ("MATCH (match) RETURN 1", 7),
        ("RETURN 99999999999999999999", 7),
    ];
    for (text, offset) in syntax {
        let e = err(&g, text);
        assert!(
            matches!(e.kind, ErrorKind::Syntax | ErrorKind::Type),
            "{text}: {e:?}"
        );
        assert_eq!(e.offset, offset, "{text}: {e}");
    }

    let unsupported = [
        "RETURN {a: 1}",
        "RETURN [x IN [1, 2] | x]",
        "MATCH p = shortestPath((a)-[*]-(b)) RETURN p",
        "MATCH (n) RETURN n LIMIT n.line",
        "MATCH (n) RETURN apoc.text.join(['a'], ',')",
        "RETURN 1; RETURN 2",
        "RETURN 1 AS x UNION RETURN 1 AS x UNION ALL RETURN 1 AS x",
        "MATCH (n $props) RETURN n",
        "MATCH (a)-[r*1..2]->(b) MATCH (c)-[r*1..2]->(d) RETURN a",
        "MATCH (n) RETURN n {.name, .line}",
        "MATCH (n) WHERE any(x IN n.modifiers WHERE x = 'async') RETURN n",
        "RETURN reduce(s = 0, x IN [1, 2] | s + x)",
        "MATCH (n) CALL { WITH n RETURN n.name AS x } RETURN x",
    ];
    for text in unsupported {
        let e = err(&g, text);
        assert_eq!(e.kind, ErrorKind::Unsupported, "{text}: {e}");
        assert!(e.message.contains("not supported"), "{text}: {e}");
    }

    // runtime type errors carry a position
    let e = err(&g, "RETURN 'a' * 2");
    assert_eq!(e.kind, ErrorKind::Type);
    assert_eq!(e.offset, 13);
    let e = err(&g, "MATCH (n) WHERE n.name RETURN n");
    assert_eq!(e.kind, ErrorKind::Type);
    let e = err(&g, "RETURN 1 / 0");
    assert_eq!(e.kind, ErrorKind::Type);
    let e = err(&g, "RETURN 9223372036854775807 + 1");
    assert_eq!(e.kind, ErrorKind::Type);
    let e = err(&g, "MATCH p = (a)-->(b) RETURN p.name");
    assert_eq!(e.kind, ErrorKind::Type);
    let e = err(&g, "UNWIND [1] AS x MATCH (x)-->(y) RETURN y");
    assert_eq!(e.kind, ErrorKind::Type);

    // multi-line positions
    let e = err(&g, "MATCH (n)\nWHERE n.kind = 'x'\nRETURN n.bogus");
    assert_eq!((e.line, e.column), (3, 10));
    assert!(
        e.to_string().contains("\n  RETURN n.bogus\n           ^"),
        "{e}"
    );
}

#[test]
fn limits_stop_runaway_queries() {
    let g = graph();
    let small = QueryOptions {
        max_work: 50,
        ..QueryOptions::default()
    };
    let e = run(&g, "MATCH (a), (b), (c) RETURN count(*)", &small).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Limit);
    assert!(
        e.message.contains("max_work = 50") && e.message.contains("LIMIT"),
        "{e}"
    );
    let e = run(&g, "MATCH (a)-[*]-(b) RETURN count(*)", &small).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Limit);
    let e = run(
        &g,
        "UNWIND range(1, 1000000000) AS x RETURN count(*)",
        &small,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Limit);
    let past = QueryOptions {
        deadline: Some(std::time::Instant::now()),
        ..QueryOptions::default()
    };
    let e = run(&g, "MATCH (n) RETURN n", &past).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Limit);
    assert!(e.message.contains("deadline"), "{e}");
    // value growth is bounded
    let e = err(
        &g,
        "WITH 'aaaaaaaaaaaaaaaa' AS s WITH s + s + s + s + s + s + s + s AS s WITH s + s + s + s + s + s + s + s AS s \
         WITH s + s + s + s + s + s + s + s AS s WITH s + s + s + s + s + s + s + s AS s WITH s + s + s + s + s + s + s + s AS s \
         WITH s + s + s + s + s + s + s + s AS s RETURN size(s)",
    );
    assert_eq!(e.kind, ErrorKind::Limit);
    let mut text = String::from("WITH [1] AS l ");
    for _ in 0..40 {
        text.push_str("WITH [l, l, l, l] AS l ");
    }
    text.push_str("RETURN size(l)");
    assert_eq!(err(&g, &text).kind, ErrorKind::Limit);
    let mut text = String::from("WITH 1 AS l ");
    for _ in 0..30 {
        text.push_str("WITH [[[l]]] AS l ");
    }
    text.push_str("RETURN size(l)");
    assert_eq!(err(&g, &text).kind, ErrorKind::Limit);
}

#[test]
fn hostile_inputs_never_panic() {
    let g = graph();
    let deep_parens = format!("RETURN {}1{}", "(".repeat(10_000), ")".repeat(10_000));
    let deep_lists = format!("RETURN {}1{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_not = format!("MATCH (n) WHERE {} true RETURN n", "NOT ".repeat(10_000));
    let deep_neg = format!("RETURN {}1", "- ".repeat(10_000));
    let deep_calls = format!("RETURN {}1{}", "abs(".repeat(5_000), ")".repeat(5_000));
    let deep_patterns = format!(
        "MATCH (n) WHERE {}n{} RETURN n",
        "((".repeat(3_000),
        "))".repeat(3_000)
    );
    let deep_maps = format!(
        "MATCH (n {{name: {}'x'{}}}) RETURN n",
        "({name: ".repeat(2_000),
        "})".repeat(2_000)
    );
    let long_string = format!("MATCH (n {{name: '{}'}}) RETURN n", "x".repeat(60_000));
    let too_long = format!("RETURN '{}'", "x".repeat(70_000));
    let long_and = format!(
        "MATCH (n) WHERE {} RETURN count(*)",
        vec!["n.line > 0"; 4_000].join(" AND ")
    );
    let long_sum = format!("RETURN {}", vec!["1"; 20_000].join("+"));
    let long_index = format!("RETURN [1]{}", "[0]".repeat(15_000));
    let long_props = format!("MATCH (n) RETURN n{}", ".name".repeat(10_000));
    let many_patterns = format!("MATCH {} RETURN 1", vec!["(a)-->(b)"; 500].join(", "));
    let many_clauses = format!("{} RETURN 1", "MATCH (a) ".repeat(500));
    let many_unions = vec!["RETURN 1 AS x"; 200].join(" UNION ");
    let chain = format!("MATCH (a){} RETURN count(*)", "-->()".repeat(90));
    let wide = format!(
        "MATCH {} WHERE {} RETURN count(*)",
        (0..190)
            .map(|i| format!("(a{i})"))
            .collect::<Vec<_>>()
            .join(", "),
        (0..3000)
            .map(|i| format!("a{}.name = 'n{}'", i % 190, i % 7))
            .collect::<Vec<_>>()
            .join(" AND ")
    );
    let inputs: Vec<String> = vec![
        deep_parens,
        deep_lists,
        deep_not,
        deep_neg,
        deep_calls,
        deep_patterns,
        deep_maps,
        long_string,
        too_long,
        long_and,
        long_sum,
        long_index,
        long_props,
        many_patterns,
        many_clauses,
        many_unions,
        chain,
        wide,
        "MATCH (n) WHERE n.name = \"\\u0000\" RETURN n".into(),
        "MATCH (n) WHERE n.name = \"\0\" RETURN n".into(),
        "MATCH (n)\0 RETURN n".into(),
        "RETURN '\\".into(),
        "RETURN '\\u'".into(),
        "RETURN '\\uD800'".into(),
        "RETURN '".into(),
        "RETURN \"".into(),
        "RETURN `".into(),
        "/*".into(),
        "//".into(),
        "RETURN 1 //".into(),
        "MATCH (é:Function {name: 'ü'}) RETURN é".into(),
        "MATCH (n) RETURN n.名前".into(),
        "RETURN '日本' + 語".into(),
        "MATCH (n)-[*999999999999]->(m) RETURN m".into(),
        "MATCH (n)-[*4294967295]->(m) RETURN m".into(),
        "MATCH (n)-[*5..2]->(m) RETURN m".into(),
        "RETURN range(0, 9223372036854775807, 9223372036854775807)".into(),
        "RETURN range(-9223372036854775807, 9223372036854775807)".into(),
        "RETURN -9223372036854775807 - 2".into(),
        "RETURN abs(-9223372036854775807 - 1)".into(),
        "RETURN 0x7FFFFFFFFFFFFFFF * 2".into(),
        "RETURN 1e308 * 10, 0.0 / 0.0, toInteger(1e300)".into(),
        "RETURN substring('abc', 99999999999), left('a', 9223372036854775807)".into(),
        "RETURN replace('aaaa', '', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb')".into(),
        "RETURN [1,2,3][9223372036854775807], [1,2,3][-9223372036854775807 - 1]".into(),
        "RETURN [1,2,3][-9223372036854775807 - 1..9223372036854775807]".into(),
        "MATCH (n) WHERE n.name =~ '(a+)+$' RETURN n".into(),
        "MATCH (n) WHERE n.name =~ 'a{1000}{1000}{1000}' RETURN n".into(),
        "MATCH (n) WHERE n.name =~ ')|(' RETURN n".into(),
        "MATCH (n) WITH n.name AS re MATCH (m) WHERE m.name =~ re + '(' RETURN m".into(),
        "MATCH (a)-[r]-(a) RETURN r".into(),
        "MATCH (a)-[r]->(b)-[r]->(c) RETURN r".into(),
        "MATCH (a)-[r]->(b) MATCH (c)-[r]->(d) RETURN c, d".into(),
        "MATCH p = (a)-[*0..0]->(b) RETURN p LIMIT 3".into(),
        "MATCH (n) RETURN n ORDER BY n SKIP 9223372036854775807 LIMIT 9223372036854775807".into(),
        "MATCH (n) RETURN DISTINCT n, n.name ORDER BY n.name DESC".into(),
        "UNWIND [[1, [2]], null, 'x'] AS x RETURN x, x[0], size(x)".into(),
        "RETURN labels(null), type(null), nodes(null), startNode(null)".into(),
        "MATCH (n) RETURN n.name.length".into(),
        "RETURN 1 IN 1".into(),
        ";".into(),
        "   ".into(),
        "RETURN".into(),
        "MATCH".into(),
        "MATCH (".into(),
        "MATCH (n".into(),
        "MATCH (n)-".into(),
        "MATCH (n)-[".into(),
        "MATCH (n)<-[:".into(),
        "MATCH (n)-[*".into(),
        "MATCH (n)-[*..".into(),
        "MATCH (n) WHERE n.name IN [".into(),
        "RETURN CASE".into(),
        "RETURN EXISTS {".into(),
        "RETURN COUNT { (n)".into(),
        "RETURN count(".into(),
        "RETURN count(DISTINCT".into(),
        "MATCH (n) RETURN n ORDER".into(),
        "MATCH (n) RETURN n ORDER BY".into(),
        "MATCH (n) RETURN n SKIP".into(),
        "MATCH (n) RETURN n LIMIT -1".into(),
        "RETURN $".into(),
        "RETURN 1..2".into(),
        "RETURN .5".into(),
        "RETURN 1.".into(),
        "RETURN 1abc".into(),
        "RETURN 0x".into(),
        "RETURN ``".into(),
    ];
    let started = std::time::Instant::now();
    for text in &inputs {
        match run(&g, text, &QueryOptions::default()) {
            Ok(_) => {}
            Err(e) => {
                assert!(e.offset <= text.len(), "offset past the end for {text:.80}");
                assert!(text.is_char_boundary(e.offset));
                let _ = e.to_string();
            }
        }
    }
    assert!(
        started.elapsed().as_secs() < 20,
        "hostile inputs took {:?}",
        started.elapsed()
    );
    // the nesting limit is an error, not a crash
    let e = err(
        &g,
        &format!("RETURN {}1{}", "(".repeat(100), ")".repeat(100)),
    );
    assert_eq!(e.kind, ErrorKind::Limit);
    assert!(e.message.contains("nested too deeply"), "{e}");
    // a query at the nesting limit still works
    let ok = format!("RETURN {}1{}", "(".repeat(60), ")".repeat(60));
    assert_eq!(q(&g, &ok), vec!["1"]);
    let e = err(&g, &format!("RETURN '{}'", "x".repeat(70_000)));
    assert_eq!(e.kind, ErrorKind::Limit);
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const TOKENS: &[&str] = &[
    "MATCH",
    "OPTIONAL",
    "WHERE",
    "RETURN",
    "WITH",
    "UNWIND",
    "AS",
    "ORDER",
    "BY",
    "DESC",
    "SKIP",
    "LIMIT",
    "DISTINCT",
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
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "UNION",
    "ALL",
    "EXISTS",
    "COUNT",
    "CREATE",
    "DELETE",
    "n",
    "m",
    "r",
    "p",
    "x",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ".",
    "..",
    ":",
    "|",
    ";",
    "=",
    "<>",
    "<",
    "<=",
    ">",
    ">=",
    "=~",
    "+",
    "-",
    "*",
    "/",
    "%",
    "^",
    "->",
    "<-",
    "--",
    "-->",
    "<--",
    "'get'",
    "\"x\"",
    "'.*'",
    "0",
    "1",
    "2",
    "3.5",
    "-1",
    "$name",
    "Function",
    "Class",
    "CALLS",
    "INHERITS",
    "name",
    "qname",
    "line",
    "count(*)",
    "collect",
    "size",
    "labels",
    "type",
    "id",
    "length",
    "nodes",
    "toLower",
    "coalesce",
    "(n)",
    "(m:Function)",
    "-[r:CALLS]->",
    "-[:CALLS*1..3]->",
    "<-[:CONTAINS]-",
    "n.name",
    "m.line",
    "`q`",
    "/*",
    "*/",
    "//",
    "\n",
    "'",
    "\\",
    "é",
    "\0",
];

const SEEDS: &[&str] = &[
    "MATCH (n:Function) WHERE n.name STARTS WITH 'h' RETURN n.name, n.line ORDER BY n.line DESC LIMIT 3",
    "MATCH (a)-[r:CALLS|INSTANTIATES]->(b) WHERE a.name = 'main' RETURN b.name, type(r)",
    "MATCH p = (a {name: 'main'})-[:CALLS*1..3]->(b) RETURN p, length(p), nodes(p)",
    "MATCH (f:Function) WHERE NOT (f)<-[:CALLS]-() RETURN f.qname",
    "MATCH (a:Function)-[:CALLS]->(b) WITH a, count(DISTINCT b) AS c WHERE c > 1 RETURN a.name, c",
    "MATCH (f:Function) OPTIONAL MATCH (f)<-[:CALLS]-(c) RETURN f.name, collect(c.name) AS callers",
    "UNWIND [1, 2, 3] AS x RETURN x * 2 AS y ORDER BY y DESC SKIP 1",
    "MATCH (n) WHERE n:Class OR n.name IN ['run', 'x'] RETURN DISTINCT n.kind, count(*)",
    "RETURN CASE WHEN 1 < 2 THEN 'a' ELSE 'b' END, [1, 2][0..1], toUpper('x'), coalesce(null, 1)",
    "MATCH (n:Class) RETURN n.name AS x UNION MATCH (n:Constant) RETURN n.name AS x",
    "MATCH (f:Function) WHERE EXISTS { (f)-[:CALLS]->(g) WHERE g.name =~ 'h.*' } RETURN f.name",
    "MATCH (a {name: 'helper'})-[:CALLS]-(b) RETURN b.name, size((b)-->()) AS out",
];

/// A random query from a small grammar (mostly valid, so the executor is exercised).
fn gen_query(rng: &mut Rng) -> String {
    const LABELS: &[&str] = &[
        "",
        ":Function",
        ":Class",
        ":Method|Function",
        ":File",
        ":Constant",
        ":Enum",
    ];
    const TYPES: &[&str] = &[
        "",
        ":CALLS",
        ":CALLS|INSTANTIATES",
        ":CONTAINS",
        ":INHERITS",
        ":READS",
        ":IMPORTS",
    ];
    const RANGES: &[&str] = &["", "", "", "*", "*1..2", "*0..1", "*2", "*..3"];
    const PROPS: &[&str] = &[
        "",
        "",
        "",
        " {name: 'main'}",
        " {name: 'get'}",
        " {qname: 'b.run'}",
        " {id: 14}",
    ];
    const WHERES: &[&str] = &[
        "a.name = 'main'",
        "a.line > 12",
        "NOT (a)-->()",
        "b.name STARTS WITH 'h'",
        "a.name IN ['run', 'get']",
        "a:Function",
        "exists((b)<--())",
        "a.name =~ '.*e.*'",
        "a.complexity IS NULL",
        "size((a)--()) > 2",
        "a <> b",
        "EXISTS { (a)-[:CALLS]->(x) WHERE x.name = 'helper' }",
        "b.name = $name",
        "a.file ENDS WITH 'b.py'",
    ];
    const RETURNS: &[&str] = &[
        "a",
        "a.name, b.name",
        "count(*)",
        "a.name, count(*) AS c ORDER BY c DESC",
        "DISTINCT b.kind",
        "collect(a.line)",
        "*",
        "b.qname ORDER BY b.qname",
        "a.name, collect(DISTINCT b.name)",
        "min(b.line), max(a.line)",
        "labels(a), id(b)",
        "a.name AS n SKIP 1",
        "a, b LIMIT 2",
    ];
    let mut s = String::new();
    if rng.below(5) == 0 {
        s.push_str("OPTIONAL ");
    }
    s.push_str("MATCH ");
    let path = rng.below(4) == 0;
    if path {
        s.push_str("p = ");
    }
    s.push_str(&format!("(a{}{})", rng.pick(LABELS), rng.pick(PROPS)));
    let hops = rng.below(3);
    for h in 0..hops {
        let (l, r) = rng.pick(&[("-", "->"), ("<-", "-"), ("-", "-")]);
        let inner = format!("{}{}", rng.pick(TYPES), rng.pick(RANGES));
        let rel = if inner.is_empty() && rng.below(2) == 0 {
            format!("{l}{r}")
        } else {
            format!("{l}[{inner}]{r}")
        };
        let node = if h + 1 == hops {
            format!("(b{})", rng.pick(LABELS))
        } else {
            format!("({})", rng.pick(LABELS))
        };
        s.push_str(&rel);
        s.push_str(&node);
    }
    if hops == 0 {
        s.push_str(&format!(", (b{})", rng.pick(LABELS)));
    }
    if rng.below(2) == 0 {
        s.push_str(" WHERE ");
        s.push_str(rng.pick(WHERES));
        if rng.below(3) == 0 {
            s.push_str(rng.pick(&[" AND ", " OR ", " XOR "]));
            s.push_str(rng.pick(WHERES));
        }
    }
    if rng.below(4) == 0 {
        s.push_str(" WITH a, b");
        if path {
            s.push_str(", p");
        }
        if rng.below(2) == 0 {
            s.push_str(" MATCH (a)-[:CONTAINS*0..1]-(c)");
        }
    }
    s.push_str(" RETURN ");
    s.push_str(rng.pick(RETURNS));
    if path && rng.below(2) == 0 {
        s.push_str(", length(p), nodes(p)");
    }
    if rng.below(3) == 0 {
        s.push_str(&format!(" LIMIT {}", rng.below(5)));
    }
    s
}

#[test]
fn fuzz_never_panics() {
    let g = graph();
    let opts = QueryOptions {
        max_rows: 20,
        max_work: 20_000,
        params: vec![("name".into(), Value::Str("get".into()))],
        ..QueryOptions::default()
    };
    let mut rng = Rng(0x5EED_CAFE_F00D_1234);
    let mut ok = 0;
    let mut errors = 0;
    for i in 0..20_000 {
        let text = if i % 3 == 2 {
            gen_query(&mut rng)
        } else if i % 3 == 0 {
            // random token soup
            let n = 1 + rng.below(24);
            let mut s = String::new();
            for _ in 0..n {
                s.push_str(rng.pick(TOKENS));
                if rng.below(4) != 0 {
                    s.push(' ');
                }
            }
            s
        } else {
            // a mutated valid query
            let mut chars: Vec<char> = rng.pick(SEEDS).chars().collect();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(chars.len() + 1);
                match rng.below(5) {
                    0 if at < chars.len() => {
                        let len = 1 + rng.below(8);
                        chars.drain(at..(at + len).min(chars.len()));
                    }
                    1 => {
                        let tok: Vec<char> = rng.pick(TOKENS).chars().collect();
                        chars.splice(at..at, tok);
                    }
                    2 if at < chars.len() => {
                        chars[at] = rng.pick(&[
                            '(', ')', '[', ']', '\'', '"', '-', '>', '<', '*', '.', ':', '{', '}',
                            ' ',
                        ]);
                    }
                    3 => {
                        let start = rng.below(chars.len() + 1);
                        let end = (start + rng.below(12)).min(chars.len());
                        let piece: Vec<char> = chars[start..end].to_vec();
                        chars.splice(at..at, piece);
                    }
                    _ => {
                        let c = char::from_u32(rng.below(0x3000) as u32).unwrap_or('x');
                        chars.insert(at.min(chars.len()), c);
                    }
                }
            }
            chars.into_iter().collect()
        };
        match run(&g, &text, &opts) {
            Ok(r) => {
                assert!(r.rows.len() <= opts.max_rows);
                ok += 1;
            }
            Err(e) => {
                assert!(
                    e.offset <= text.len(),
                    "offset {} past the end of {text:?}",
                    e.offset
                );
                assert!(text.is_char_boundary(e.offset));
                assert!(e.line >= 1 && e.column >= 1);
                let _ = e.to_string();
                errors += 1;
            }
        }
    }
    // the generated third keeps a fair share of queries valid, so execution is exercised too
    assert!(ok > 3_000, "only {ok} queries ran ({errors} errors)");
}

#[test]
fn parse_exposes_the_ast() {
    let q = parse("MATCH (a:Function)-[:CALLS*1..3]->(b) WHERE a.name = 'x' RETURN b.name AS n")
        .unwrap();
    assert_eq!(q.parts.len(), 1);
    let ast::Clause::Match(m) = &q.parts[0].clauses[0] else {
        panic!("expected MATCH");
    };
    assert_eq!(m.patterns[0].chain[0].0.length, Some((Some(1), Some(3))));
    assert_eq!(m.patterns[0].chain[0].0.dir, ast::Direction::Out);
    // operator chains are n-ary, parenthesised groups are kept
    let q = parse("RETURN a AND b AND c, (a AND b) AND c, 1 + 2 - 3 * 4").unwrap();
    let ast::Clause::Return(p) = &q.parts[0].clauses[0] else {
        panic!("expected RETURN");
    };
    assert!(matches!(&p.items[0].expr.kind, ast::ExprKind::And(v) if v.len() == 3));
    assert!(matches!(&p.items[1].expr.kind, ast::ExprKind::And(v) if v.len() == 2));
    assert!(matches!(&p.items[2].expr.kind, ast::ExprKind::Arith(_, rest) if rest.len() == 2));
    let e = parse("MATCH (a) RETURN a.").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert_eq!(e.offset, 19);
}

/// A code-shaped graph of about 60k nodes and 400k edges (Django-sized): files, classes,
/// methods and functions with a skewed name distribution, calls mostly within a file.
fn synthetic(seed: u64) -> Graph {
    use crate::{EdgeInput, NodeData, Provenance, Visibility};
    let mut rng = Rng(seed);
    let common = [
        "__init__", "get", "save", "__str__", "clean", "run", "setUp", "test_it", "as_sql",
        "render",
    ];
    let mut nodes: Vec<NodeData> = Vec::new();
    let mut edges: Vec<EdgeInput> = Vec::new();
    let mut callables: Vec<(i64, usize)> = Vec::new(); // (id, file number)
    let mut classes: Vec<i64> = Vec::new();
    let mut file_ids: Vec<i64> = Vec::new();
    let mut id = 0i64;
    let mut mk = |nodes: &mut Vec<NodeData>,
                  kind: NodeKind,
                  qname: String,
                  path: &str,
                  parent: Option<i64>,
                  line: u32,
                  cx: Option<u32>| {
        id += 1;
        nodes.push(NodeData {
            id,
            kind,
            name: qname.rsplit('.').next().unwrap_or("").to_string(),
            qname,
            path: path.to_string(),
            language: "python".into(),
            start_line: line,
            end_line: line + 10,
            visibility: Visibility::Public,
            modifiers: String::new(),
            complexity: cx,
            parent_id: parent,
            signature: String::new(),
        });
        id
    };
    for f in 0..2_500usize {
        let dir = [
            "db/models",
            "http",
            "forms",
            "contrib/admin",
            "utils",
            "core",
            "template",
            "test",
        ][f % 8];
        let path = format!("django/{dir}/m{f}.py");
        let module = format!("django.{}.m{f}", dir.replace('/', "."));
        let file = mk(
            &mut nodes,
            NodeKind::File,
            path.clone(),
            &path,
            None,
            1,
            None,
        );
        file_ids.push(file);
        let mut line = 1;
        for c in 0..2 {
            let cname = format!("{module}.C{f}x{c}");
            let class = mk(
                &mut nodes,
                NodeKind::Class,
                cname.clone(),
                &path,
                Some(file),
                line,
                None,
            );
            classes.push(class);
            line += 1;
            for _ in 0..9 {
                let name = if rng.below(3) == 0 {
                    common[rng.below(common.len())].to_string()
                } else {
                    format!("m{}", rng.below(4000))
                };
                let cx = 1 + rng.below(15) as u32;
                let m = mk(
                    &mut nodes,
                    NodeKind::Method,
                    format!("{cname}.{name}"),
                    &path,
                    Some(class),
                    line,
                    Some(cx),
                );
                callables.push((m, f));
                line += 12;
            }
            for _ in 0..2 {
                mk(
                    &mut nodes,
                    NodeKind::Field,
                    format!("{cname}.f{}", rng.below(500)),
                    &path,
                    Some(class),
                    line,
                    None,
                );
                line += 1;
            }
        }
        for _ in 0..3 {
            let name = format!("fn{}", rng.below(3000));
            let func = mk(
                &mut nodes,
                NodeKind::Function,
                format!("{module}.{name}"),
                &path,
                Some(file),
                line,
                Some(1 + rng.below(8) as u32),
            );
            callables.push((func, f));
            line += 12;
        }
    }
    let edge = |src, dst, kind| EdgeInput {
        src,
        dst,
        kind,
        provenance: Provenance::Inferred,
    };
    let n_callables = callables.len();
    // calls: ~6 per callable, 60 % within the same neighbourhood of files
    for i in 0..n_callables {
        let (src, f) = callables[i];
        for _ in 0..6 {
            let j = if rng.below(10) < 6 {
                let base = (f * n_callables / 2_500).min(n_callables - 1);
                (base + rng.below(60)).min(n_callables - 1)
            } else {
                rng.below(n_callables)
            };
            edges.push(edge(src, callables[j].0, EdgeKind::Calls));
        }
        if rng.below(2) == 0 {
            edges.push(edge(
                src,
                classes[rng.below(classes.len())],
                EdgeKind::UsesType,
            ));
        }
        if rng.below(4) == 0 {
            edges.push(edge(
                src,
                classes[rng.below(classes.len())],
                EdgeKind::Instantiates,
            ));
        }
    }
    for (i, &c) in classes.iter().enumerate() {
        if i > 0 && rng.below(2) == 0 {
            edges.push(edge(c, classes[rng.below(i)], EdgeKind::Inherits));
        }
    }
    for &f in &file_ids {
        for _ in 0..8 {
            edges.push(edge(
                f,
                file_ids[rng.below(file_ids.len())],
                EdgeKind::Imports,
            ));
        }
        for _ in 0..40 {
            edges.push(edge(
                f,
                callables[rng.below(n_callables)].0,
                EdgeKind::References,
            ));
        }
    }
    Graph::new(nodes, &edges)
}

#[test]
#[ignore = "timing; run with --release -- --ignored --nocapture"]
#[allow(clippy::print_stderr)]
fn bench_django_sized() {
    use std::time::Instant;
    let t = Instant::now();
    let g = synthetic(42);
    let _ = g.nodes_named("get");
    eprintln!(
        "graph: {} nodes, {} edges, built in {:?}",
        g.len(),
        g.edge_count(),
        t.elapsed()
    );
    let pick = |k: NodeKind, i: usize| g.node(g.nodes_of_kind(k)[i]).qname.clone();
    let queries: Vec<(&str, Vec<(String, Value)>)> = vec![
        (
            "MATCH (f:Method {name: 'save'})<-[:CALLS]-(c) RETURN c.qname LIMIT 200",
            vec![],
        ),
        (
            "MATCH (c:Class {qname: $q})-[:CONTAINS]->(m:Method) RETURN m.name",
            vec![("q".into(), Value::Str(pick(NodeKind::Class, 100)))],
        ),
        (
            "MATCH (a {qname: $q})-[:CALLS]->(b)-[:CALLS]->(c) RETURN DISTINCT c.qname LIMIT 100",
            vec![("q".into(), Value::Str(pick(NodeKind::Method, 500)))],
        ),
        (
            "MATCH (a {qname: $q})-[:CALLS*1..3]->(b) RETURN count(DISTINCT b)",
            vec![("q".into(), Value::Str(pick(NodeKind::Method, 700)))],
        ),
        (
            "MATCH (a {qname: $q})-[:CALLS*1..5]->(b) RETURN b.qname LIMIT 1000",
            vec![("q".into(), Value::Str(pick(NodeKind::Method, 900)))],
        ),
        (
            "MATCH (f:Function) WHERE NOT (f)<-[:CALLS]-() RETURN f.qname LIMIT 100",
            vec![],
        ),
        (
            "MATCH (f:Function) WHERE f.name STARTS WITH 'fn12' RETURN f.qname LIMIT 50",
            vec![],
        ),
        (
            "MATCH (c:Class)-[:INHERITS]->(b:Class {qname: $q}) RETURN c.qname",
            vec![("q".into(), Value::Str(pick(NodeKind::Class, 10)))],
        ),
        (
            "MATCH (m:Method) RETURN m.name, count(*) AS c ORDER BY c DESC LIMIT 10",
            vec![],
        ),
        (
            "MATCH (m:Method) WHERE m.complexity > 12 RETURN m.qname ORDER BY m.complexity DESC LIMIT 20",
            vec![],
        ),
        (
            "MATCH (f:File)-[:IMPORTS]->(g:File) WHERE f.path STARTS WITH 'django/db' RETURN g.path, count(*) AS c ORDER BY c DESC LIMIT 10",
            vec![],
        ),
        (
            "MATCH (m:Method {name: 'get'})-[:CALLS]->(x:Method {name: 'save'}) RETURN m.qname, x.qname",
            vec![],
        ),
        (
            "MATCH (c:Class)-[:CONTAINS]->(m:Method) WHERE m.name = '__str__' AND c.name ENDS WITH 'x1' RETURN c.qname LIMIT 50",
            vec![],
        ),
        (
            "MATCH (f:Function) WHERE NOT EXISTS { (f)<-[:CALLS]-() } AND NOT (f)<-[:REFERENCES]-() RETURN count(f)",
            vec![],
        ),
        (
            "MATCH (n) WHERE n.qname =~ 'django\\\\.http\\\\..*\\\\.get' RETURN count(*)",
            vec![],
        ),
        (
            "MATCH (a {qname: $q})-[:CALLS*1..5]->(b) RETURN count(*), count(DISTINCT b)",
            vec![("q".into(), Value::Str(pick(NodeKind::Method, 900)))],
        ),
        (
            "MATCH (a {qname: $q})-[:CALLS*1..3]-(b) RETURN count(*), count(DISTINCT b)",
            vec![("q".into(), Value::Str(pick(NodeKind::Method, 900)))],
        ),
        (
            "MATCH p = (a {qname: $q})-[:CALLS*1..5]->(b:Function) RETURN p ORDER BY length(p) LIMIT 5",
            vec![("q".into(), Value::Str(pick(NodeKind::Method, 900)))],
        ),
    ];
    for (text, params) in &queries {
        let opts = QueryOptions {
            params: params.clone(),
            ..QueryOptions::default()
        };
        let mut times = Vec::new();
        let mut result = None;
        for _ in 0..30 {
            let t = Instant::now();
            let r = run(&g, text, &opts);
            times.push(t.elapsed());
            result = Some(r);
        }
        times.sort();
        let summary = match result {
            Some(Ok(r)) => format!(
                "{} rows{}, {} expansions, {} scanned",
                r.rows.len(),
                if r.truncated { " (truncated)" } else { "" },
                r.stats.expansions,
                r.stats.rows_scanned
            ),
            Some(Err(e)) => format!("ERROR {}", e.message),
            None => String::new(),
        };
        eprintln!(
            "p50 {:>9.3?} p95 {:>9.3?}  {summary}\n    {text}",
            times[15], times[28]
        );
    }
}

#[test]
#[ignore = "profiling helper"]
#[allow(clippy::print_stderr)]
fn profile_scan() {
    let g = synthetic(42);
    let _ = g.nodes_named("x");
    let text = std::env::var("CYPHER_PROFILE_QUERY").unwrap_or_else(|_| "MATCH (m:Method) WHERE m.complexity > 12 RETURN m.qname ORDER BY m.complexity DESC LIMIT 20".into());
    for q in text.split(";;") {
        let t = std::time::Instant::now();
        for _ in 0..50 {
            let _ = run(&g, q, &QueryOptions::default());
        }
        eprintln!("{:?} {q}", t.elapsed() / 50);
    }
}

/// The deepest queries the limits allow, on a graph where they really recurse that deep, run
/// on a thread with a 1.5 MiB stack (measured: about 1 MiB needed in a debug build, 128 KiB in
/// release; tokio's blocking threads have 2 MiB).
#[test]
fn deepest_allowed_queries_fit_in_a_small_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(1536 << 10)
        .spawn(|| {
            // a path of 300 functions: f0 -> f1 -> ... -> f299
            let mut nodes = vec![node(1, NodeKind::File, "p.py", "p.py", None)];
            let mut edges = Vec::new();
            for i in 0..300 {
                nodes.push(node(100 + i, NodeKind::Function, &format!("p.f{i}"), "p.py", Some(1)));
                if i > 0 {
                    edges.push(edge(99 + i, 100 + i, EdgeKind::Calls));
                }
            }
            let g = Graph::new(nodes, &edges);
            let opts = QueryOptions {
                max_hops: 100,
                ..QueryOptions::default()
            };
            // 99 single hops: 100 nested expansion steps
            let chain = format!("MATCH (a {{name: 'f0'}}){} RETURN count(*)", "-[:CALLS]->()".repeat(99));
            assert_eq!(q_with(&g, &chain, &opts), vec!["1"]);
            // a 100-hop variable-length pattern feeding another expansion
            let var = "MATCH p = (a {name: 'f0'})-[:CALLS*100]->(b)-[:CALLS]->(c) RETURN length(p), c.name";
            assert_eq!(q_with(&g, var, &opts), vec!["101 | f101"]);
            // pattern predicates nested in property maps as deep as the parser allows
            let mut inner = String::from("true");
            for i in 0..30 {
                inner = format!("exists((x{i})-[:CALLS]->({{name: 'f1'}})) = {inner}");
            }
            let nested = format!("MATCH (a {{name: 'f0'}}) WHERE {inner} RETURN a.name");
            match run(&g, &nested, &opts) {
                Ok(r) => assert!(r.rows.len() <= 1),
                Err(e) => assert!(matches!(e.kind, ErrorKind::Limit | ErrorKind::Unknown), "{e}"),
            }
            let mut sub = String::from("(a)-[:CALLS]->(b {name: 'f1'})");
            for _ in 0..25 {
                sub = format!("(a)-[:CALLS]->(b {{name: CASE WHEN exists({sub}) THEN 'f1' END}})");
            }
            let nested = format!("MATCH (a {{name: 'f0'}}) WHERE exists({sub}) RETURN a.name");
            match run(&g, &nested, &opts) {
                Ok(r) => assert_eq!(render_rows(&g, &r), vec!["f0"]),
                Err(e) => assert_eq!(e.kind, ErrorKind::Limit, "{e}"),
            }
            // deepest expression
            let deep = format!("RETURN {}1{}", "(".repeat(62), ")".repeat(62));
            assert_eq!(q_with(&g, &deep, &opts), vec!["1"]);
            let deep = format!("RETURN {}1{}", "[".repeat(62), "]".repeat(62));
            assert_eq!(q_with(&g, &deep, &opts).len(), 1);
        })
        .expect("thread");
    handle
        .join()
        .expect("deep queries ran within a 1.5 MiB stack");
}
