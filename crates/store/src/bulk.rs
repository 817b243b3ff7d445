//! Multi-row `INSERT`s whose text values are bound in place. rusqlite binds every non-empty
//! string as `SQLITE_TRANSIENT`: SQLite copies it into a block of its own, and rusqlite's
//! generic `ToSql` dispatch runs per value; binding cost 29 % of the writer's time on effect
//! (2.7 % of the whole index's CPU). Here a statement binds `SQLITE_STATIC` values borrowed for
//! the lifetime `'v` of the rows being written, and clears its bindings before they go.
//!
//! Statements are prepared once per [`Statements`] (a generation builder's) and finalized with
//! it, before its connection closes.

#![allow(unsafe_code)]

use std::cell::RefCell;
use std::ffi::{CStr, c_char, c_int};
use std::marker::PhantomData;
use std::ptr::{self, NonNull};

use rusqlite::{Connection, ffi};

/// Prepared raw statements by SQL text.
#[derive(Default)]
pub(crate) struct Statements {
    list: RefCell<Vec<(String, Raw)>>,
}

impl std::fmt::Debug for Statements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Statements({})", self.list.borrow().len())
    }
}

impl Statements {
    /// Runs `f` with the statement for `sql` on `c` (prepared on first use).
    fn with<R>(
        &self,
        c: &Connection,
        sql: &str,
        f: impl FnOnce(&mut Raw) -> rusqlite::Result<R>,
    ) -> rusqlite::Result<R> {
        let mut list = self.list.borrow_mut();
        // SAFETY: the handle is only compared, and used by `prepare` while `c` is borrowed.
        let db = unsafe { c.handle() };
        let at = match list.iter().position(|(s, r)| s == sql && r.db == db) {
            Some(at) => at,
            None => {
                list.push((sql.to_string(), Raw::prepare(c, sql)?));
                list.len() - 1
            }
        };
        f(&mut list[at].1)
    }
}

/// One prepared statement of ours (finalized on drop).
pub(crate) struct Raw {
    stmt: NonNull<ffi::sqlite3_stmt>,
    db: *mut ffi::sqlite3,
}

fn error(db: *mut ffi::sqlite3, rc: c_int) -> rusqlite::Error {
    // SAFETY: `db` is an open connection; its message is a C string it owns until the next call.
    let message = unsafe { CStr::from_ptr(ffi::sqlite3_errmsg(db)) }
        .to_string_lossy()
        .into_owned();
    rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some(message))
}

impl Raw {
    fn prepare(c: &Connection, sql: &str) -> rusqlite::Result<Raw> {
        // SAFETY: the connection is open while borrowed; SQLite reads `sql.len()` bytes.
        unsafe {
            let db = c.handle();
            let mut stmt = ptr::null_mut();
            let rc = ffi::sqlite3_prepare_v3(
                db,
                sql.as_ptr().cast::<c_char>(),
                c_int::try_from(sql.len()).map_err(|_| rusqlite::Error::InvalidQuery)?,
                ffi::SQLITE_PREPARE_PERSISTENT,
                &mut stmt,
                ptr::null_mut(),
            );
            if rc != ffi::SQLITE_OK {
                return Err(error(db, rc));
            }
            let stmt = NonNull::new(stmt).ok_or(rusqlite::Error::InvalidQuery)?;
            Ok(Raw { stmt, db })
        }
    }

    fn check(&self, rc: c_int) -> rusqlite::Result<()> {
        if rc == ffi::SQLITE_OK {
            Ok(())
        } else {
            Err(error(self.db, rc))
        }
    }

    /// Steps the statement once (an insert) and resets it.
    fn run(&mut self) -> rusqlite::Result<()> {
        // SAFETY: a live statement of ours.
        unsafe {
            let rc = ffi::sqlite3_step(self.stmt.as_ptr());
            let reset = ffi::sqlite3_reset(self.stmt.as_ptr());
            if rc != ffi::SQLITE_DONE {
                return Err(error(
                    self.db,
                    if reset != ffi::SQLITE_OK { reset } else { rc },
                ));
            }
        }
        Ok(())
    }

    fn clear(&mut self) {
        // SAFETY: a live statement of ours.
        unsafe { ffi::sqlite3_clear_bindings(self.stmt.as_ptr()) };
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: finalized once; its connection is still open (see `Statements`).
        unsafe { ffi::sqlite3_finalize(self.stmt.as_ptr()) };
    }
}

/// A value bound without a copy: integers, and text borrowed for `'v`.
pub(crate) trait Value<'v> {
    fn bind(self, to: &mut Bind<'_, 'v>, index: c_int) -> rusqlite::Result<()>;
}

/// The statement being filled, for rows that live for `'v`.
pub(crate) struct Bind<'r, 'v> {
    raw: &'r mut Raw,
    at: usize,
    values: PhantomData<&'v str>,
}

impl<'v> Bind<'_, 'v> {
    /// Binds the `k`-th value (1-based) of the current row.
    pub fn set(&mut self, k: usize, value: impl Value<'v>) -> rusqlite::Result<()> {
        let index = c_int::try_from(self.at + k).map_err(|_| rusqlite::Error::InvalidQuery)?;
        value.bind(self, index)
    }
}

impl<'v> Value<'v> for i64 {
    fn bind(self, to: &mut Bind<'_, 'v>, index: c_int) -> rusqlite::Result<()> {
        // SAFETY: a live statement of ours.
        let rc = unsafe { ffi::sqlite3_bind_int64(to.raw.stmt.as_ptr(), index, self) };
        to.raw.check(rc)
    }
}

impl<'v> Value<'v> for u32 {
    fn bind(self, to: &mut Bind<'_, 'v>, index: c_int) -> rusqlite::Result<()> {
        i64::from(self).bind(to, index)
    }
}

impl<'v> Value<'v> for bool {
    fn bind(self, to: &mut Bind<'_, 'v>, index: c_int) -> rusqlite::Result<()> {
        i64::from(self).bind(to, index)
    }
}

impl<'v> Value<'v> for &'v str {
    fn bind(self, to: &mut Bind<'_, 'v>, index: c_int) -> rusqlite::Result<()> {
        // SAFETY: SQLITE_STATIC: the text lives for 'v, beyond the statement's use of it (every
        // binding is cleared before `insert_rows` returns, and 'v outlives that call).
        let rc = unsafe {
            ffi::sqlite3_bind_text64(
                to.raw.stmt.as_ptr(),
                index,
                self.as_ptr().cast::<c_char>(),
                self.len() as ffi::sqlite3_uint64,
                ffi::SQLITE_STATIC(),
                ffi::SQLITE_UTF8 as u8,
            )
        };
        to.raw.check(rc)
    }
}

impl<'v> Value<'v> for &'v String {
    fn bind(self, to: &mut Bind<'_, 'v>, index: c_int) -> rusqlite::Result<()> {
        self.as_str().bind(to, index)
    }
}

impl<'v> Value<'v> for &'v Option<String> {
    fn bind(self, to: &mut Bind<'_, 'v>, index: c_int) -> rusqlite::Result<()> {
        self.as_deref().bind(to, index)
    }
}

impl<'v, T: Value<'v>> Value<'v> for Option<T> {
    fn bind(self, to: &mut Bind<'_, 'v>, index: c_int) -> rusqlite::Result<()> {
        match self {
            Some(v) => v.bind(to, index),
            None => {
                // SAFETY: a live statement of ours.
                let rc = unsafe { ffi::sqlite3_bind_null(to.raw.stmt.as_ptr(), index) };
                to.raw.check(rc)
            }
        }
    }
}

/// Inserts `rows` with `per` rows per statement (`head VALUES (?, ...), ...`), then the rest one
/// per statement; `bind` sets a row's `columns` values with [`Bind::set`] (1-based). One
/// statement per row spent as much in stepping and resetting the statement as in inserting; the
/// rows and their order are the same either way. Not for FTS5 tables (`per` 1 there): a
/// statement that may fail after its first row opens a savepoint, and FTS5 writes its pending
/// terms out as a new segment at every savepoint (Django's FTS work more than doubled).
pub(crate) fn insert_rows<'v, T: 'v>(
    statements: &Statements,
    c: &Connection,
    head: &str,
    columns: usize,
    per: usize,
    rows: impl IntoIterator<Item = T>,
    bind: impl Fn(&mut Bind<'_, 'v>, T) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    let values = |n: usize| {
        let one = format!("({})", vec!["?"; columns].join(","));
        format!("{head} VALUES {}", vec![one; n].join(","))
    };
    let mut rows = rows.into_iter();
    let mut pending: Vec<T> = Vec::with_capacity(per);
    statements.with(c, &values(per), |many| {
        loop {
            pending.extend(rows.by_ref().take(per));
            if pending.len() < per {
                return Ok(());
            }
            fill_and_run(many, columns, pending.drain(..), &bind)?;
        }
    })?;
    if pending.is_empty() {
        return Ok(());
    }
    statements.with(c, &values(1), |one| {
        for row in pending {
            fill_and_run(one, columns, std::iter::once(row), &bind)?;
        }
        Ok(())
    })
}

/// Binds `rows` one after the other, steps the statement, and clears its bindings whatever
/// happened (the rows may go before the statement does).
fn fill_and_run<'v, T: 'v>(
    raw: &mut Raw,
    columns: usize,
    rows: impl Iterator<Item = T>,
    bind: &impl Fn(&mut Bind<'_, 'v>, T) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    let mut result = Ok(());
    for (i, row) in rows.enumerate() {
        result = bind(
            &mut Bind {
                raw: &mut *raw,
                at: i * columns,
                values: PhantomData,
            },
            row,
        );
        if result.is_err() {
            break;
        }
    }
    let result = result.and_then(|()| raw.run());
    raw.clear();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(c: &Connection) -> Vec<(i64, Option<String>, bool)> {
        let mut stmt = c
            .prepare("SELECT id, name, flag FROM t ORDER BY rowid")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    #[test]
    fn rows_go_in_whole_statements_then_one_by_one_and_errors_say_why() {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, flag INTEGER)")
            .unwrap();
        let statements = Statements::default();
        let insert = |data: &[(i64, Option<String>, bool)]| {
            insert_rows(
                &statements,
                &c,
                "INSERT INTO t(id, name, flag)",
                3,
                3,
                data,
                |q, (id, name, flag)| {
                    q.set(1, *id)?;
                    q.set(2, name)?;
                    q.set(3, *flag)
                },
            )
        };
        // Seven rows: two statements of three, then one alone; the texts go before the next use.
        let data: Vec<_> = (1..=7)
            .map(|i| (i, (i % 3 != 0).then(|| format!("name {i}")), i % 2 == 0))
            .collect();
        insert(&data).unwrap();
        drop(data);
        let stored = rows(&c);
        assert_eq!(stored.len(), 7);
        assert_eq!(stored[0], (1, Some("name 1".into()), false));
        assert_eq!(stored[2], (3, None, false));
        assert_eq!(stored[6], (7, Some("name 7".into()), false));

        // A duplicate key fails the statement with SQLite's message; the statements stay usable.
        let again = vec![(8, Some("eight".to_string()), true), (1, None, false)];
        let err = insert(&again).unwrap_err().to_string();
        assert!(err.contains("UNIQUE constraint failed: t.id"), "{err}");
        insert(&[(9, Some("nine".to_string()), true)]).unwrap();
        assert_eq!(rows(&c).last().unwrap(), &(9, Some("nine".into()), true));
        assert_eq!(statements.list.borrow().len(), 2);
    }
}
