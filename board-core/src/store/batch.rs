//! Statements sent together in one round trip: a [`Batch`] of pieces, each an
//! SQL text whose `$N` name its own values, joined into one multi-statement
//! text. With bound values (SQLite), each piece's `$N` is renumbered by the
//! values of the pieces before it, so the text depends only on the pieces'
//! shapes and stays in sqlx's statement cache; with literals (PostgreSQL's
//! simple query, which takes no parameters), each `$N` becomes its value's
//! literal, or the statement runs by name when every connection prepared it
//! ([`Prepared`]).

use sqlx::any::AnyRow;
use sqlx::AnyConnection;

use super::prepared::Prepared;
use super::value::{enough, parameters, renumber, Value};
use crate::error::Result;

/// A statement whose answer nobody reads, sent later with others: its SQL
/// (whose `$1`, `$2`, … are its own values) and its values.
#[derive(Debug, Clone)]
pub(crate) struct Deferred {
    /// The SQL text, constant per shape.
    pub(crate) sql: String,
    /// The values of its `$1`, `$2`, ….
    pub(crate) values: Vec<Value>,
}

impl Deferred {
    /// The statement `sql` with the values of its `$1`, `$2`, ….
    pub(crate) fn new(sql: impl Into<String>, values: Vec<Value>) -> Deferred {
        Deferred {
            sql: sql.into(),
            values,
        }
    }

    /// Runs the statement now, on its own.
    pub(crate) async fn run(&self, conn: &mut AnyConnection) -> Result<u64> {
        Ok(self.query()?.execute(conn).await?.rows_affected())
    }

    /// Runs the statement now, on its own, and returns its rows.
    pub(crate) async fn fetch_all(&self, conn: &mut AnyConnection) -> Result<Vec<AnyRow>> {
        Ok(self.query()?.fetch_all(conn).await?)
    }

    fn query(
        &self,
    ) -> Result<sqlx::query::Query<'_, sqlx::Any, <sqlx::Any as sqlx::Database>::Arguments>> {
        enough(&self.sql, self.values.len(), parameters(&self.sql))?;
        let mut q = sqlx::query(sqlx::AssertSqlSafe(self.sql.as_str()));
        for v in &self.values {
            q = match v {
                Value::Text(t) => q.bind(t.as_str()),
                Value::Null => q.bind(None::<&str>),
            };
        }
        Ok(q)
    }
}

/// Several statements for one round trip.
#[derive(Debug)]
pub(crate) struct Batch<'p> {
    /// Bound values (`true`) or literals in the text (`false`).
    binds: bool,
    /// With literals: the statements every connection prepared.
    prepared: Option<&'p Prepared>,
    sql: String,
    values: Vec<Value>,
}

impl<'p> Batch<'p> {
    /// An empty batch, binding its values or writing them as literals (then
    /// running a statement of `prepared` by name).
    pub(crate) fn new(binds: bool, prepared: Option<&'p Prepared>) -> Batch<'p> {
        Batch {
            binds,
            prepared,
            sql: String::new(),
            values: Vec::new(),
        }
    }

    /// Appends one statement with the values of its `$1`, `$2`, …. A
    /// statement given fewer values than its highest `$N` is an
    /// `Error::Internal`, and the batch is left as it was.
    pub(crate) fn push(&mut self, sql: &str, values: &[Value]) -> Result<()> {
        let by_name = match self.binds {
            true => None,
            false => self
                .prepared
                .map(|p| p.execute(sql, values))
                .transpose()?
                .flatten(),
        };
        let highest = std::cell::Cell::new(0);
        let text = if let Some(execute) = by_name {
            execute
        } else if values.is_empty() {
            // A `$` may still be a parameter nobody gave a value for.
            if sql.contains('$') {
                enough(sql, 0, parameters(sql))?;
            }
            sql.to_string()
        } else if self.binds {
            let offset = self.values.len();
            renumber(sql, |n| {
                highest.set(highest.get().max(n));
                format!("${}", n + offset)
            })
        } else {
            renumber(sql, |n| {
                highest.set(highest.get().max(n));
                values.get(n - 1).map(Value::literal).unwrap_or_default()
            })
        };
        enough(sql, values.len(), highest.get())?;
        if self.binds {
            self.values.extend_from_slice(values);
        }
        if !self.sql.is_empty() {
            self.sql.push_str("; ");
        }
        self.sql.push_str(&text);
        Ok(())
    }

    /// Whether nothing was pushed.
    pub(crate) fn is_empty(&self) -> bool {
        self.sql.is_empty()
    }

    /// The text sent (tests).
    #[cfg(test)]
    pub(crate) fn sql(&self) -> &str {
        &self.sql
    }

    /// Sends every statement in one round trip and returns the rows they
    /// answered, in order.
    pub(crate) async fn fetch_all(self, conn: &mut AnyConnection) -> Result<Vec<AnyRow>> {
        Ok(self.send(conn).await?)
    }

    async fn send(self, conn: &mut AnyConnection) -> sqlx::Result<Vec<AnyRow>> {
        if self.binds {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(self.sql));
            for v in self.values {
                q = match v {
                    Value::Text(t) => q.bind(t),
                    Value::Null => q.bind(None::<String>),
                };
            }
            q.fetch_all(conn).await
        } else {
            sqlx::raw_sql(sqlx::AssertSqlSafe(self.sql))
                .fetch_all(conn)
                .await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_batches_number_every_statement_after_the_ones_before() {
        let mut b = Batch::new(true, None);
        b.push("BEGIN IMMEDIATE", &[]).unwrap();
        b.push(
            "INSERT INTO t VALUES ($1, $2)",
            &[Value::text("a"), Value::text("1")],
        )
        .unwrap();
        b.push(
            "UPDATE t SET b = $2 WHERE a = $1",
            &[Value::text("b"), Value::Null],
        )
        .unwrap();
        b.push("COMMIT", &[]).unwrap();
        assert_eq!(
            b.sql(),
            "BEGIN IMMEDIATE; INSERT INTO t VALUES ($1, $2); \
             UPDATE t SET b = $4 WHERE a = $3; COMMIT"
        );
        assert_eq!(b.values.len(), 4);
    }

    #[test]
    fn literal_batches_carry_their_values_in_the_text() {
        let mut b = Batch::new(false, None);
        b.push(
            "INSERT INTO t VALUES ($1, $2, $3, $1)",
            &[Value::text("it's $2"), Value::text("a\\b"), Value::Null],
        )
        .unwrap();
        b.push("COMMIT", &[]).unwrap();
        assert_eq!(
            b.sql(),
            "INSERT INTO t VALUES (E'it''s $2', E'a\\\\b', NULL, E'it''s $2'); COMMIT"
        );
    }

    /// A value missing from a statement is the caller's bug: an error, never
    /// a `NULL`, with bound values, with literals, by name or on its own.
    #[test]
    fn a_missing_value_is_an_internal_error() {
        use crate::error::Error;
        let prepared = Prepared::new(["INSERT INTO p VALUES ($1, $2)".to_string()]);
        for (binds, prepared) in [(true, None), (false, None), (false, Some(&prepared))] {
            let mut b = Batch::new(binds, prepared);
            b.push("BEGIN", &[]).unwrap();
            for (sql, values) in [
                (
                    "INSERT INTO t VALUES ($1, $2, $3)",
                    vec![Value::text("a"), Value::Null],
                ),
                ("INSERT INTO p VALUES ($1, $2)", vec![Value::text("a")]),
                ("DELETE FROM t WHERE a = $1", vec![]),
            ] {
                match b.push(sql, &values) {
                    Err(Error::Internal(m)) => assert!(m.contains(sql), "{m}"),
                    other => panic!("{binds} {sql}: {other:?}"),
                }
            }
            assert_eq!(
                b.sql(),
                "BEGIN",
                "a refused statement leaves the batch as it was"
            );
            assert!(b.values.is_empty());
        }
        let lone = Deferred::new("DELETE FROM t WHERE a = $1 AND b = $2", vec![Value::Null]);
        assert!(matches!(lone.query(), Err(Error::Internal(_))));
    }
}
