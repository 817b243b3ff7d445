//! RELIABILITY T18 against the Cypher tool: SQL-shaped injections, writes, unbounded patterns, a
//! cross join, deep nesting and huge literals either fail with a clear error or stop at a cap,
//! quickly, and the database file is byte-for-byte unchanged afterwards (queries run over the
//! in-memory graph; no query text ever reaches SQL).

use std::path::Path;
use std::time::{Duration, Instant};

use sextant_engine::{IndexOptions, Repo};

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn hostile_queries_fail_or_stop_at_a_cap_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = dir.path();
    // A call graph dense enough for unbounded patterns to explode: 60 functions calling 6 others.
    let mut text = String::new();
    for i in 0..60 {
        text.push_str(&format!("def f{i}():\n"));
        for k in 1..=6 {
            text.push_str(&format!("    f{}()\n", (i * 7 + k * 13) % 60));
        }
    }
    write(root, "app/calls.py", &text);
    write(
        root,
        "app/b.py",
        "from app.calls import f1\n\ndef g():\n    f1()\n",
    );
    let options = IndexOptions {
        home: Some(home.path().to_path_buf()),
        ..IndexOptions::default()
    };
    sextant_engine::index(root, &options, &|_| {}).unwrap();
    let db = std::fs::read_dir(home.path().join("repos"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("index.db");
    let snapshot = || {
        let mut bytes = std::fs::read(&db).unwrap();
        bytes.extend(std::fs::read(db.with_extension("db-wal")).unwrap_or_default());
        bytes
    };
    let before = snapshot();
    let repo = Repo::open_in(home.path(), root).unwrap();

    let refused = [
        "1; DROP TABLE symbols",
        "ATTACH DATABASE 'other.db' AS x",
        "PRAGMA writable_schema=1",
        "SELECT load_extension('x')",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT * FROM r",
        "MATCH (n) DETACH DELETE n",
        "CREATE (n:Function {name: 'x'})",
        "MATCH (n) SET n.name = 'x' RETURN n",
        "CALL db.labels()",
        "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
        &format!("RETURN {}1{}", "(".repeat(10_000), ")".repeat(10_000)),
        &format!("RETURN '{}'", "x".repeat(100_000)),
    ];
    for q in refused {
        let started = Instant::now();
        let result = repo.query(q, 100, 32 << 10, Some(Duration::from_secs(5)));
        assert!(result.is_err(), "{:.60}: should be refused", q);
        assert!(started.elapsed() < Duration::from_secs(2), "{:.60}", q);
    }

    // Expensive shapes stop at a cap (work, hops, rows or the deadline) well within the deadline.
    let capped = [
        "MATCH (a) OPTIONAL MATCH (a)-[*]->(b) RETURN count(*)",
        "MATCH (a),(b),(c),(d),(e),(f) RETURN count(*)",
        "MATCH p = (a:Function)-[:CALLS*1..10]->(b) RETURN count(p)",
        "UNWIND range(1, 100000000) AS x RETURN count(x)",
    ];
    for q in capped {
        let started = Instant::now();
        let result = repo.query(q, 100, 32 << 10, Some(Duration::from_secs(3)));
        let elapsed = started.elapsed();
        assert!(elapsed < Duration::from_secs(5), "{q}: took {elapsed:?}");
        match result {
            Err(e) => {
                let text = e.to_string();
                assert!(
                    text.contains("limit")
                        || text.contains("cap")
                        || text.contains("deadline")
                        || text.contains("work"),
                    "{q}: {text}"
                );
            }
            Ok(out) => assert!(
                !out.warnings.is_empty() || out.truncated,
                "{q}: an unbounded pattern ran uncapped: {:?}",
                out.rows
            ),
        }
    }
    drop(repo);
    let after = snapshot();
    assert!(before == after, "a query changed the database");
}
