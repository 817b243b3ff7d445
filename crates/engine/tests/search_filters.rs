//! Search with structural filters on a real indexed fixture repository: regular expressions on
//! names, qualified names and paths; caller, callee and reference bounds; searches without
//! text (every match by qualified name, with a total); paging in a total order; summaries over
//! the filtered set; argument errors that name the argument.

use std::path::Path;

use sextant_engine::*;

const PYTHON: &str = r#"
//- /app/__init__.py
//- /app/core.py
class Store:
    def get(self, key):
        return self.load(key)

    def load(self, key):
        return key


def helper():
    return 1


def used_once():
    return helper()


def used_twice():
    return helper() + used_once()


def orphan():
    return used_twice()
//- /app/api.py
from app.core import Store, helper, used_twice


def handle(key):
    s = Store()
    helper()
    return s.get(key)


def route():
    handle(1)
    used_twice()
    helper()
    return helper()
//- /lib/__init__.py
//- /lib/util.py
def helper():
    return 2


def test_thing():
    return helper()


def lonely():
    return 3


def lonely():
    return 4
"#;

/// Writes a `//- /path` fixture into `dir`.
fn materialize(fixture: &str, dir: &Path) {
    let mut current: Option<(std::path::PathBuf, String)> = None;
    let flush = |current: &mut Option<(std::path::PathBuf, String)>| {
        if let Some((path, text)) = current.take() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    };
    for line in fixture.lines() {
        if let Some(path) = line.strip_prefix("//- /") {
            flush(&mut current);
            current = Some((dir.join(path.trim()), String::new()));
        } else if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    flush(&mut current);
}

struct Indexed {
    _tmp: tempfile::TempDir,
    repo: Repo,
}

fn indexed() -> Indexed {
    let tmp = tempfile::tempdir().unwrap();
    let repo_dir = tmp.path().join("repo");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&repo_dir).unwrap();
    materialize(PYTHON, &repo_dir);
    let options = IndexOptions {
        home: Some(home.clone()),
        threads: 1,
        ..IndexOptions::default()
    };
    sextant_engine::index(&repo_dir, &options, &|_| {}).unwrap();
    let repo = Repo::open_in(&home, &repo_dir).unwrap();
    Indexed { _tmp: tmp, repo }
}

fn opts() -> SearchOptions {
    SearchOptions {
        limit: 100,
        ..SearchOptions::default()
    }
}

fn functions() -> SearchOptions {
    SearchOptions {
        kinds: vec!["function".into()],
        ..opts()
    }
}

/// Qualified names of the hits, one per line.
fn names(repo: &Repo, query: &str, options: &SearchOptions) -> String {
    repo.search(query, options)
        .unwrap()
        .iter()
        .map(|h| h.symbol.qualified_name.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Compares with the expected text, showing the whole answer on a mismatch.
#[track_caller]
fn check(actual: &str, expected: &str) {
    let expected = expected.trim();
    assert!(
        actual == expected,
        "\n--- expected\n{expected}\n--- actual\n{actual}\n"
    );
}

fn err(repo: &Repo, query: &str, options: &SearchOptions) -> String {
    match repo.search(query, options) {
        Err(e @ Error::InvalidArgument(_)) => e.to_string(),
        Err(e) => panic!("not an argument error: {e}"),
        Ok(hits) => panic!("no error: {} hits", hits.len()),
    }
}

#[test]
fn degree_bounds_without_text() {
    let ix = indexed();
    let repo = &ix.repo;
    // Functions nobody calls.
    let never_called = SearchOptions {
        max_callers: Some(0),
        ..functions()
    };
    check(
        &names(repo, "", &never_called),
        "
app.api.route
app.core.orphan
lib.util.lonely
lib.util.lonely
lib.util.test_thing",
    );
    check(
        &names(
            repo,
            "",
            &SearchOptions {
                min_callers: Some(2),
                ..functions()
            },
        ),
        "
app.core.helper
app.core.used_twice",
    );
    // Callers are distinct: `route` calls `helper` twice (5 call edges, 4 callers).
    let four = SearchOptions {
        min_callers: Some(4),
        max_callers: Some(4),
        ..opts()
    };
    check(&names(repo, "", &four), "app.core.helper");
    let five = SearchOptions {
        min_callers: Some(5),
        ..opts()
    };
    check(&names(repo, "", &five), "");
    // Instantiations count as calls (as for `calls` / `callers`).
    check(
        &names(
            repo,
            "",
            &SearchOptions {
                kinds: vec!["class".into()],
                min_callers: Some(1),
                ..opts()
            },
        ),
        "app.core.Store",
    );
    // Callees: distinct targets of calls and instantiations.
    check(
        &names(
            repo,
            "",
            &SearchOptions {
                min_callees: Some(3),
                ..opts()
            },
        ),
        "
app.api.handle
app.api.route",
    );
    check(
        &names(
            repo,
            "",
            &SearchOptions {
                max_callees: Some(0),
                ..functions()
            },
        ),
        "
app.core.helper
lib.util.helper
lib.util.lonely
lib.util.lonely",
    );
    check(
        &names(
            repo,
            "",
            &SearchOptions {
                min_callees: Some(1),
                max_callees: Some(1),
                kinds: vec!["method".into()],
                ..opts()
            },
        ),
        "app.core.Store.get",
    );
    // References: incoming edges of any kind (5 calls and 1 import of `helper`).
    check(
        &names(
            repo,
            "",
            &SearchOptions {
                min_references: Some(6),
                ..opts()
            },
        ),
        "app.core.helper",
    );
    check(
        &names(
            repo,
            "",
            &SearchOptions {
                min_references: Some(2),
                max_references: Some(3),
                ..opts()
            },
        ),
        "
app.core.Store
app.core.used_twice",
    );
    check(
        &names(
            repo,
            "",
            &SearchOptions {
                max_references: Some(0),
                ..functions()
            },
        ),
        &names(repo, "", &never_called),
    );
}

#[test]
fn regular_expressions_and_kinds() {
    let ix = indexed();
    let repo = &ix.repo;
    let name = SearchOptions {
        name_regex: Some("^used_".into()),
        ..opts()
    };
    check(
        &names(repo, "", &name),
        "
app.core.used_once
app.core.used_twice",
    );
    let qname = SearchOptions {
        qname_regex: Some(r"\.Store\.".into()),
        ..opts()
    };
    check(
        &names(repo, "", &qname),
        "
app.core.Store.get
app.core.Store.load",
    );
    let file = SearchOptions {
        file_regex: Some("^lib/".into()),
        ..functions()
    };
    check(
        &names(repo, "", &file),
        "
lib.util.helper
lib.util.lonely
lib.util.lonely
lib.util.test_thing",
    );
    // Unanchored; case-sensitive unless asked.
    let inner = SearchOptions {
        name_regex: Some("LONE".into()),
        ..opts()
    };
    check(&names(repo, "", &inner), "");
    let insensitive = SearchOptions {
        name_regex: Some("(?i)LONE".into()),
        ..opts()
    };
    check(
        &names(repo, "", &insensitive),
        "
lib.util.lonely
lib.util.lonely",
    );
    // A Cypher label is a kind.
    let label = SearchOptions {
        kinds: vec!["Function".into()],
        file_regex: Some("^lib/".into()),
        ..opts()
    };
    check(&names(repo, "", &label), &names(repo, "", &file));
    let methods = SearchOptions {
        kinds: vec!["Method".into()],
        ..opts()
    };
    check(
        &names(repo, "", &methods),
        "
app.core.Store.get
app.core.Store.load",
    );
    // Kind, path prefix and language alone also list without text.
    let under = SearchOptions {
        path_prefix: Some("app/api.py".into()),
        ..opts()
    };
    check(
        &names(repo, "", &under),
        "
app.api.handle
app.api.route",
    );
}

#[test]
fn combinations() {
    let ix = indexed();
    let repo = &ix.repo;
    let combo = SearchOptions {
        file_regex: Some("^app/".into()),
        max_callers: Some(1),
        min_callees: Some(1),
        ..functions()
    };
    check(
        &names(repo, "", &combo),
        "
app.api.handle
app.api.route
app.core.orphan
app.core.used_once",
    );
    let combo2 = SearchOptions {
        name_regex: Some("e$".into()),
        qname_regex: Some("^app".into()),
        min_references: Some(1),
        ..functions()
    };
    check(
        &names(repo, "", &combo2),
        "
app.api.handle
app.core.used_once
app.core.used_twice",
    );
}

#[test]
fn text_queries_keep_their_ranking_with_filters() {
    let ix = indexed();
    let repo = &ix.repo;
    check(
        &names(repo, "helper", &opts()),
        "
app.core.helper
lib.util.helper",
    );
    let lib = SearchOptions {
        file_regex: Some("^lib/".into()),
        ..opts()
    };
    check(&names(repo, "helper", &lib), "lib.util.helper");
    let called = SearchOptions {
        min_callers: Some(2),
        ..opts()
    };
    check(&names(repo, "helper", &called), "app.core.helper");
    let none = SearchOptions {
        name_regex: Some("^x".into()),
        ..opts()
    };
    check(&names(repo, "helper", &none), "");
    // Prefix matches, filtered.
    let hits = repo.search("used", &opts()).unwrap();
    assert!(hits.iter().all(|h| h.matched == "prefix"), "{hits:?}");
    let once = SearchOptions {
        max_callers: Some(1),
        ..opts()
    };
    check(&names(repo, "used", &once), "app.core.used_once");
    // With text there is no total; without, there is, and every hit says `filter`.
    let page = repo.search_page("helper", &called).unwrap();
    assert_eq!(page.total, None);
    assert_eq!(page.hits[0].matched, "exact");
    let page = repo.search_page("", &called).unwrap();
    assert_eq!(page.total, Some(2));
    assert!(page.hits.iter().all(|h| h.matched == "filter"));
}

#[test]
fn pages_follow_a_total_order() {
    let ix = indexed();
    let repo = &ix.repo;
    let all_options = SearchOptions {
        kinds: vec!["function".into(), "method".into(), "class".into()],
        ..opts()
    };
    let all = repo.search_page("", &all_options).unwrap();
    assert_eq!(all.total, Some(all.hits.len() as u64));
    assert_eq!(all.hits.len(), 13);
    // By qualified name, then id (the two `lonely` share a qualified name).
    for w in all.hits.windows(2) {
        let (a, b) = (&w[0].symbol, &w[1].symbol);
        assert!(
            (a.qualified_name.as_str(), a.id) < (b.qualified_name.as_str(), b.id),
            "{} {} / {} {}",
            a.qualified_name,
            a.id,
            b.qualified_name,
            b.id
        );
    }
    let ids = |hits: &[SearchHit]| hits.iter().map(|h| h.symbol.id).collect::<Vec<_>>();
    for size in [1, 3, 5] {
        let mut paged = Vec::new();
        let mut offset = 0;
        loop {
            let page = repo
                .search_page(
                    "",
                    &SearchOptions {
                        limit: size,
                        offset,
                        ..all_options.clone()
                    },
                )
                .unwrap();
            assert_eq!(page.total, all.total);
            if page.hits.is_empty() {
                break;
            }
            paged.extend(ids(&page.hits));
            offset += size;
        }
        assert_eq!(paged, ids(&all.hits), "pages of {size}");
    }
    // The same call answers the same list.
    assert_eq!(
        ids(&repo.search_page("", &all_options).unwrap().hits),
        ids(&all.hits)
    );
    // Ranked answers page the same way.
    let ranked = repo.search("lo", &opts()).unwrap();
    assert!(ranked.len() >= 3, "{ranked:?}");
    let mut paged = Vec::new();
    for offset in 0..ranked.len() as u32 + 1 {
        let page = repo
            .search(
                "lo",
                &SearchOptions {
                    limit: 1,
                    offset,
                    ..opts()
                },
            )
            .unwrap();
        paged.extend(ids(&page));
    }
    assert_eq!(paged, ids(&ranked));
}

#[test]
fn summaries_count_the_filtered_set() {
    let ix = indexed();
    let repo = &ix.repo;
    let never_called = SearchOptions {
        max_callers: Some(0),
        ..functions()
    };
    let s = repo.search_summary("", &never_called).unwrap();
    assert_eq!(s.matches, 5);
    assert!(s.complete);
    assert_eq!(s.by_kind, vec![("function".to_string(), 5)]);
    assert_eq!(
        s.by_file,
        vec![
            ("lib/util.py".to_string(), 3),
            ("app/api.py".to_string(), 1),
            ("app/core.py".to_string(), 1)
        ]
    );
    assert_eq!(
        s.by_directory,
        vec![("lib".to_string(), 3), ("app".to_string(), 2)]
    );
    assert_eq!(s.by_match, vec![("filter".to_string(), 5)]);
    // A summary covers every match, not a page of them.
    let small = SearchOptions {
        limit: 1,
        ..never_called
    };
    assert_eq!(repo.search_summary("", &small).unwrap().matches, 5);
    let s = repo.search_summary("helper", &opts()).unwrap();
    assert_eq!(s.matches, 2);
    assert_eq!(s.by_match, vec![("exact".to_string(), 2)]);
}

#[test]
fn probes_and_scans_agree() {
    let ix = indexed();
    let repo = &ix.repo;
    let cases: Vec<SearchOptions> = vec![
        SearchOptions {
            max_callers: Some(0),
            ..opts()
        },
        SearchOptions {
            min_callers: Some(1),
            ..opts()
        },
        SearchOptions {
            min_callers: Some(2),
            max_callers: Some(4),
            ..opts()
        },
        SearchOptions {
            min_callees: Some(2),
            ..opts()
        },
        SearchOptions {
            max_callees: Some(1),
            ..functions()
        },
        SearchOptions {
            min_references: Some(1),
            max_references: Some(2),
            ..opts()
        },
        SearchOptions {
            max_references: Some(0),
            max_callees: Some(0),
            ..opts()
        },
    ];
    // Probes first: once a generation's table is built it is used for every later search.
    set_degree_scan_threshold_for_tests(usize::MAX);
    let probed: Vec<String> = cases.iter().map(|o| names(repo, "", o)).collect();
    set_degree_scan_threshold_for_tests(0);
    let scanned: Vec<String> = cases.iter().map(|o| names(repo, "", o)).collect();
    set_degree_scan_threshold_for_tests(5000);
    assert_eq!(probed, scanned);
    assert!(probed.iter().all(|p| !p.is_empty()), "{probed:#?}");
}

#[test]
fn argument_errors_name_the_argument() {
    let ix = indexed();
    let repo = &ix.repo;
    for (argument, options) in [
        (
            "name_regex",
            SearchOptions {
                name_regex: Some("(".into()),
                ..opts()
            },
        ),
        (
            "qname_regex",
            SearchOptions {
                qname_regex: Some("[a-".into()),
                ..opts()
            },
        ),
        (
            "file_regex",
            SearchOptions {
                file_regex: Some("*.py".into()),
                ..opts()
            },
        ),
        (
            "file_regex",
            SearchOptions {
                file_regex: Some("x".repeat(5000)),
                ..opts()
            },
        ),
        (
            "name_regex",
            SearchOptions {
                name_regex: Some(r"\w{1000}{1000}".into()),
                ..opts()
            },
        ),
        (
            "min_callers",
            SearchOptions {
                min_callers: Some(3),
                max_callers: Some(1),
                ..opts()
            },
        ),
        (
            "min_references",
            SearchOptions {
                min_references: Some(3),
                max_references: Some(1),
                ..opts()
            },
        ),
    ] {
        // With and without text.
        for query in ["", "helper"] {
            let e = err(repo, query, &options);
            assert!(e.contains(&format!("`{argument}`")), "{e}");
        }
        let e = repo.search_summary("", &options).err().unwrap().to_string();
        assert!(e.contains(&format!("`{argument}`")), "{e}");
    }
    // Neither text nor a filter.
    let e = err(repo, "  ", &opts());
    assert!(e.contains("query") && e.contains("filter"), "{e}");
    assert!(repo.search_summary("", &opts()).is_err());
}
