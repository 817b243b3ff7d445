//! Graph queries on real indexed fixture repositories (files on disk, a real SQLite database):
//! hierarchy (classes, interfaces, overrides), impact (upstream by distance, risk labels, tests to
//! run), shortest dependency paths (found and not found), and the overview. Each answer is
//! rendered as compact text and compared with the expected text.

use std::path::Path;

use sextant_engine::*;

const PYTHON: &str = r#"
//- /shop/__init__.py
//- /shop/models.py
class Base:
    def save(self):
        return 1


class User(Base):
    def save(self):
        return super().save()


class Admin(User):
    def save(self):
        return 2
//- /shop/service.py
from shop.models import User


def load_user(uid):
    return User()


def handle(uid):
    user = load_user(uid)
    return user


def unused():
    return 0
//- /shop/cli.py
from shop.service import handle


def main():
    handle(1)


if __name__ == "__main__":
    main()
//- /tests/test_service.py
from shop.service import handle


def test_handle():
    assert handle(1)
"#;

const TYPESCRIPT: &str = r#"
//- /src/shapes.ts
export interface Shape {
  area(): number;
}

export class Square implements Shape {
  constructor(private side: number) {}
  area(): number {
    return this.side * this.side;
  }
}

export class Cube extends Square {
  area(): number {
    return 6 * super.area();
  }
}
//- /src/report.ts
import { Square } from "./shapes";

export function total(n: number): number {
  const s: Square = new Square(n);
  return s.area();
}
//- /src/index.ts
import { total } from "./report";

export function main(): void {
  console.log(total(2));
}
//- /src/report.test.ts
import { total } from "./report";

function checkTotal(): void {
  if (total(2) !== 4) throw new Error("total");
}
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

fn indexed(fixture: &str) -> Indexed {
    let tmp = tempfile::tempdir().unwrap();
    let repo_dir = tmp.path().join("repo");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&repo_dir).unwrap();
    materialize(fixture, &repo_dir);
    let options = IndexOptions {
        home: Some(home.clone()),
        threads: 1,
        ..IndexOptions::default()
    };
    sextant_engine::index(&repo_dir, &options, &|_| {}).unwrap();
    let repo = Repo::open_in(&home, &repo_dir).unwrap();
    Indexed { _tmp: tmp, repo }
}

impl Indexed {
    fn sym(&self, name: &str) -> Symbol {
        self.repo.resolve_symbol(name).unwrap()
    }
}

/// Compares with the expected text, showing the whole answer on a mismatch.
fn check(actual: &str, expected: &str) {
    let expected = expected.trim_start_matches('\n');
    assert!(
        actual == expected,
        "expected:\n{expected}\nactual:\n{actual}"
    );
}

fn hierarchy_text(h: &Hierarchy) -> String {
    let mut out = format!("{} {}\n", h.root.kind, h.root.qualified_name);
    for (title, list) in [
        ("bases", &h.bases),
        ("derived", &h.derived),
        ("overrides", &h.overrides),
        ("overridden_by", &h.overridden_by),
    ] {
        for e in list {
            out.push_str(&format!(
                "  {title} {} {} {} {}\n",
                e.depth,
                e.neighbor.edge_kind,
                e.neighbor.symbol.qualified_name,
                e.neighbor.provenance
            ));
        }
    }
    for u in &h.unresolved_bases {
        out.push_str(&format!("  unresolved base {} [{}]\n", u.name, u.reason));
    }
    out.push_str(&format!("  completeness {}\n", h.completeness.label()));
    out
}

fn impact_text(i: &Impact) -> String {
    let mut out = String::new();
    for e in &i.affected {
        out.push_str(&format!(
            "{} {} {:<12} {} <- {}{}\n",
            e.depth,
            e.risk(),
            e.neighbor.edge_kind,
            e.neighbor.symbol.qualified_name,
            e.from_name,
            if e.labels.is_empty() {
                String::new()
            } else {
                format!(" [{}]", e.labels.join(" "))
            }
        ));
    }
    out.push_str(&format!("by_depth {:?}\n", i.by_depth));
    out.push_str(&format!("by_label {:?}\n", i.by_label));
    out.push_str(&format!("files {:?}\n", i.files));
    let tests: Vec<&str> = i.tests.iter().map(|t| t.qualified_name.as_str()).collect();
    out.push_str(&format!("tests {tests:?} in {:?}\n", i.test_files));
    out.push_str(&format!(
        "truncated {} completeness {}\n",
        i.truncated,
        i.completeness.label()
    ));
    out
}

fn path_text(s: &PathSearch) -> String {
    match &s.path {
        Some(p) => {
            let mut out = p.from.qualified_name.clone();
            for h in &p.hops {
                let site = h
                    .neighbor
                    .site
                    .as_ref()
                    .map(|s| format!(" @{}:{}", s.path, s.line))
                    .unwrap_or_default();
                out.push_str(&format!(
                    " -{}{site}-> {}",
                    h.neighbor.edge_kind, h.neighbor.symbol.qualified_name
                ));
            }
            out
        }
        None => format!(
            "none (searched {} of {} hops, exhausted {})",
            s.searched_depth, s.max_depth, s.exhausted
        ),
    }
}

#[test]
fn python_class_hierarchy_and_overrides() {
    let f = indexed(PYTHON);
    let h = f.repo.hierarchy(&f.sym("shop.models.User"), 5).unwrap();
    check(
        &hierarchy_text(&h),
        "
class shop.models.User
  bases 1 inherits shop.models.Base inferred
  derived 1 inherits shop.models.Admin inferred
  completeness exact
",
    );
    let h = f.repo.hierarchy(&f.sym("shop.models.Base"), 5).unwrap();
    check(
        &hierarchy_text(&h),
        "
class shop.models.Base
  derived 1 inherits shop.models.User inferred
  derived 2 inherits shop.models.Admin inferred
  completeness exact
",
    );
    // A method: what it overrides, and what overrides it, transitively.
    let h = f
        .repo
        .hierarchy(&f.sym("shop.models.User.save"), 5)
        .unwrap();
    check(
        &hierarchy_text(&h),
        "
method shop.models.User.save
  overrides 1 overrides shop.models.Base.save inferred
  overridden_by 1 overrides shop.models.Admin.save inferred
  completeness exact
",
    );
    let h = f
        .repo
        .hierarchy(&f.sym("shop.models.Base.save"), 1)
        .unwrap();
    check(
        &hierarchy_text(&h),
        "
method shop.models.Base.save
  overridden_by 1 overrides shop.models.User.save inferred
  completeness exact
",
    );
}

#[test]
fn typescript_hierarchy_with_interface() {
    let f = indexed(TYPESCRIPT);
    let h = f.repo.hierarchy(&f.sym("Cube"), 5).unwrap();
    check(
        &hierarchy_text(&h),
        "
class src/shapes.Cube
  bases 1 inherits src/shapes.Square inferred
  bases 2 implements src/shapes.Shape inferred
  completeness exact
",
    );
    let h = f
        .repo
        .hierarchy(&f.sym("src/shapes.Shape.area"), 5)
        .unwrap();
    check(
        &hierarchy_text(&h),
        "
method src/shapes.Shape.area
  overridden_by 1 overrides src/shapes.Square.area inferred
  overridden_by 2 overrides src/shapes.Cube.area inferred
  completeness exact
",
    );
}

#[test]
fn python_impact_upstream_labels_tests() {
    let f = indexed(PYTHON);
    let i = f
        .repo
        .impact(&[f.sym("load_user")], ImpactDirection::Upstream, 2, 100)
        .unwrap();
    check(
        &impact_text(&i),
        "
1 will_break calls        shop.service.handle <- shop.service.load_user [public_api]
2 likely_affected imports      shop/cli.py <- shop.service.handle [entry_point]
2 likely_affected calls        shop.cli.main <- shop.service.handle [public_api entry_point]
2 likely_affected imports      tests/test_service.py <- shop.service.handle [test]
2 likely_affected calls        test_service.test_handle <- shop.service.handle [test]
by_depth [(1, 1), (2, 4)]
by_label [(\"entry_point\", 2), (\"public_api\", 2), (\"test\", 2)]
files [(\"shop/cli.py\", 2), (\"tests/test_service.py\", 2), (\"shop/service.py\", 1)]
tests [\"tests/test_service.py\", \"test_service.test_handle\"] in [\"tests/test_service.py\"]
truncated false completeness exact
",
    );
    // The per-level limit holds, and says so.
    let cut = f
        .repo
        .impact(&[f.sym("handle")], ImpactDirection::Upstream, 3, 1)
        .unwrap();
    assert!(cut.truncated);
    assert!(cut.by_depth.iter().all(|(_, n)| *n <= 1), "{cut:?}");
    // Downstream: what `handle` depends on.
    let down = f
        .repo
        .impact(&[f.sym("handle")], ImpactDirection::Downstream, 3, 100)
        .unwrap();
    check(
        &impact_text(&down),
        "
1 will_break calls        shop.service.load_user <- shop.service.handle [public_api]
2 likely_affected instantiates shop.models.User <- shop.service.load_user [public_api]
3 may_need_testing inherits     shop.models.Base <- shop.models.User [public_api]
by_depth [(1, 1), (2, 1), (3, 1)]
by_label [(\"public_api\", 3)]
files [(\"shop/models.py\", 2), (\"shop/service.py\", 1)]
tests [] in []
truncated false completeness exact
",
    );
    // Nothing uses `unused`: exact and empty.
    let none = f
        .repo
        .impact(&[f.sym("unused")], ImpactDirection::Upstream, 3, 100)
        .unwrap();
    assert!(none.affected.is_empty());
    assert_eq!(none.completeness.label(), "exact");
}

#[test]
fn impact_of_a_class_counts_users_of_its_members() {
    let f = indexed(TYPESCRIPT);
    let i = f
        .repo
        .impact(&[f.sym("Square")], ImpactDirection::Upstream, 2, 100)
        .unwrap();
    // `total` uses the type (and calls `Square.area`: one entry); `Cube.area` overrides a
    // member; the test file and its function are reached through `total`.
    check(
        &impact_text(&i),
        "
1 will_break imports      src/report.ts <- src/shapes.Square
1 will_break uses_type    src/report.total <- src/shapes.Square [public_api]
1 will_break inherits     src/shapes.Cube <- src/shapes.Square [public_api]
1 will_break overrides    src/shapes.Cube.area <- src/shapes.Square.area [public_api]
2 likely_affected imports      src/index.ts <- src/report.total
2 likely_affected calls        src.main <- src/report.total [public_api entry_point]
2 likely_affected imports      src/report.test.ts <- src/report.total [test]
2 likely_affected calls        src/report.test.checkTotal <- src/report.total [test]
by_depth [(1, 4), (2, 4)]
by_label [(\"public_api\", 4), (\"test\", 2), (\"entry_point\", 1)]
files [(\"src/index.ts\", 2), (\"src/report.test.ts\", 2), (\"src/report.ts\", 2), (\"src/shapes.ts\", 2)]
tests [\"src/report.test.ts\", \"src/report.test.checkTotal\"] in [\"src/report.test.ts\"]
truncated false completeness exact
",
    );
}

#[test]
fn paths_found_and_not_found() {
    let f = indexed(PYTHON);
    let s = f
        .repo
        .path_search(&f.sym("shop.cli.main"), &f.sym("shop.models.User"), 8, &[])
        .unwrap();
    check(
        &path_text(&s),
        "shop.cli.main -calls @shop/cli.py:5-> shop.service.handle -calls @shop/service.py:9-> shop.service.load_user -instantiates @shop/service.py:5-> shop.models.User",
    );
    // Too short a search: not found, and says how far it looked.
    let s = f
        .repo
        .path_search(&f.sym("shop.cli.main"), &f.sym("shop.models.User"), 2, &[])
        .unwrap();
    check(
        &path_text(&s),
        "none (searched 2 of 2 hops, exhausted false)",
    );
    // Against the direction of dependency: no path at any depth.
    let s = f
        .repo
        .path_search(&f.sym("shop.models.User"), &f.sym("shop.cli.main"), 8, &[])
        .unwrap();
    assert!(s.path.is_none());
    assert!(s.exhausted, "{s:?}");
    assert!(
        f.repo
            .path(&f.sym("shop.models.User"), &f.sym("shop.cli.main"), 8, &[])
            .unwrap()
            .is_none()
    );
    // Only some kinds: `calls` alone cannot reach a class.
    let s = f
        .repo
        .path_search(
            &f.sym("shop.cli.main"),
            &f.sym("shop.models.User"),
            8,
            &["calls".to_string()],
        )
        .unwrap();
    assert!(s.path.is_none(), "{s:?}");
    // A file stands for its members (here the file's own import is the first hop).
    let s = f
        .repo
        .path_search(
            &f.sym("tests/test_service.py"),
            &f.sym("shop.service.load_user"),
            8,
            &[],
        )
        .unwrap();
    check(
        &path_text(&s),
        "tests/test_service.py -imports @tests/test_service.py:1-> shop.service.handle -calls @shop/service.py:9-> shop.service.load_user",
    );
    // Through inheritance.
    let s = f
        .repo
        .path_search(&f.sym("shop.cli.main"), &f.sym("shop.models.Base"), 8, &[])
        .unwrap();
    assert_eq!(s.path.as_ref().map(|p| p.hops.len()), Some(4), "{s:?}");
    assert_eq!(
        s.path.unwrap().hops.last().unwrap().neighbor.edge_kind,
        "inherits"
    );
}

#[test]
fn path_into_a_type_ends_with_member_of() {
    let f = indexed(TYPESCRIPT);
    let s = f
        .repo
        .path_search(
            &f.sym("src/report.test.checkTotal"),
            &f.sym("src/shapes.Square"),
            8,
            &["calls".to_string()],
        )
        .unwrap();
    check(
        &path_text(&s),
        "src/report.test.checkTotal -calls @src/report.test.ts:4-> src/report.total -calls @src/report.ts:5-> src/shapes.Square.area -member_of-> src/shapes.Square",
    );
}

#[test]
fn overview_counts() {
    let f = indexed(&format!("{PYTHON}{TYPESCRIPT}"));
    let o = f.repo.overview(5).unwrap();
    let mut out = format!(
        "files {} symbols {} edges {} stale {}\n",
        o.files, o.symbols, o.edges, o.stale
    );
    for l in &o.languages {
        out.push_str(&format!(
            "language {} {} files {} symbols\n",
            l.language, l.files, l.symbols
        ));
    }
    for a in &o.areas {
        out.push_str(&format!(
            "area {} {} files {} symbols {:?}\n",
            a.path, a.files, a.symbols, a.languages
        ));
    }
    for e in &o.entry_points {
        out.push_str(&format!(
            "entry {} {} {}\n",
            e.kind,
            e.path,
            e.symbol
                .as_ref()
                .map(|s| s.qualified_name.as_str())
                .unwrap_or("-")
        ));
    }
    for c in &o.central {
        out.push_str(&format!(
            "central {} {} from {}\n",
            c.symbol.qualified_name, c.incoming, c.sources
        ));
    }
    for l in &o.largest_files {
        out.push_str(&format!("largest {} {} symbols\n", l.path, l.symbols));
    }
    check(
        &out,
        "
files 9 symbols 21 edges 47 stale false
language python 5 files 11 symbols
language typescript 4 files 10 symbols
area shop 4 files 10 symbols [(\"python\", 4)]
area src 4 files 10 symbols [(\"typescript\", 4)]
area tests 1 files 1 symbols [(\"python\", 1)]
entry main shop/cli.py shop.cli.main
entry main src/index.ts src.main
entry script shop/cli.py shop/cli.py
central shop.service.handle 2 from 2
central src/report.total 2 from 2
central src/shapes.Square.area 2 from 2
central src/shapes.Square 2 from 1
central shop.cli.main 1 from 1
largest src/shapes.ts 7 symbols
largest shop/models.py 6 symbols
largest shop/service.py 3 symbols
largest src/report.ts 1 symbols
largest src/report.test.ts 1 symbols
",
    );
    assert_eq!(o.generation, f.repo.generation());
    assert!(o.indexed_at.is_some());
    assert_eq!(o.commit, None);
}
