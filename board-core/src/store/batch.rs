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

use super::dialect::literal;
use super::prepared::Prepared;

/// One value of a deferred statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    /// Text (ids, times, words, JSON).
    Text(String),
    /// SQL `NULL`.
    Null,
}

impl Value {
    /// The text `v` (an id, a time, a word).
    pub(crate) fn text(v: impl AsRef<str>) -> Value {
        Value::Text(v.as_ref().to_string())
    }

    /// The text `v`, or `NULL` when there is none.
    pub(crate) fn opt(v: Option<impl AsRef<str>>) -> Value {
        v.map_or(Value::Null, Value::text)
    }

    /// The value as a PostgreSQL literal.
    pub(super) fn literal(&self) -> String {
        match self {
            Value::Text(t) => literal(t),
            Value::Null => "NULL".to_string(),
        }
    }
}

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
    pub(crate) async fn run(&self, conn: &mut AnyConnection) -> sqlx::Result<u64> {
        Ok(self.query().execute(conn).await?.rows_affected())
    }

    /// Runs the statement now, on its own, and returns its rows.
    pub(crate) async fn fetch_all(&self, conn: &mut AnyConnection) -> sqlx::Result<Vec<AnyRow>> {
        self.query().fetch_all(conn).await
    }

    fn query(&self) -> sqlx::query::Query<'_, sqlx::Any, <sqlx::Any as sqlx::Database>::Arguments> {
        let mut q = sqlx::query(sqlx::AssertSqlSafe(self.sql.as_str()));
        for v in &self.values {
            q = match v {
                Value::Text(t) => q.bind(t.as_str()),
                Value::Null => q.bind(None::<&str>),
            };
        }
        q
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

    /// Appends one statement with the values of its `$1`, `$2`, ….
    pub(crate) fn push(&mut self, sql: &str, values: &[Value]) {
        if !self.sql.is_empty() {
            self.sql.push_str("; ");
        }
        let by_name = match self.binds {
            true => None,
            false => self.prepared.and_then(|p| p.execute(sql, values)),
        };
        if let Some(execute) = by_name {
            self.sql.push_str(&execute);
        } else if values.is_empty() {
            self.sql.push_str(sql);
        } else if self.binds {
            let offset = self.values.len();
            self.sql
                .push_str(&renumber(sql, |n| format!("${}", n + offset)));
            self.values.extend_from_slice(values);
        } else {
            let text = renumber(sql, |n| {
                values
                    .get(n - 1)
                    .map_or_else(|| "NULL".to_string(), Value::literal)
            });
            self.sql.push_str(&text);
        }
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
    pub(crate) async fn fetch_all(self, conn: &mut AnyConnection) -> sqlx::Result<Vec<AnyRow>> {
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

/// `sql` with every parameter `$N` outside quoted strings and identifiers
/// replaced by `to(N)`.
pub(crate) fn renumber(sql: &str, to: impl Fn(usize) -> String) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut quote: Option<char> = None;
    let mut chars = sql.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == q {
                    quote = None;
                }
            }
            None if c == '\'' || c == '"' => {
                out.push(c);
                quote = Some(c);
            }
            None if c == '$' => {
                let start = i + 1;
                let mut end = start;
                while let Some(&(j, d)) = chars.peek() {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    end = j + 1;
                    chars.next();
                }
                match sql[start..end].parse::<usize>() {
                    Ok(n) if n > 0 => out.push_str(&to(n)),
                    _ => out.push_str(&sql[i..end]),
                }
            }
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renumbering_skips_quotes_and_reads_whole_numbers() {
        let sql = "SELECT $1, '$2', \"a$3\", $10, $1 || 'it''s $4', $";
        assert_eq!(
            renumber(sql, |n| format!("${}", n + 5)),
            "SELECT $6, '$2', \"a$3\", $15, $6 || 'it''s $4', $"
        );
    }

    #[test]
    fn bound_batches_number_every_statement_after_the_ones_before() {
        let mut b = Batch::new(true, None);
        b.push("BEGIN IMMEDIATE", &[]);
        b.push(
            "INSERT INTO t VALUES ($1, $2)",
            &[Value::text("a"), Value::text("1")],
        );
        b.push(
            "UPDATE t SET b = $2 WHERE a = $1",
            &[Value::text("b"), Value::Null],
        );
        b.push("COMMIT", &[]);
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
            "INSERT INTO t VALUES ($1, $2, $3, $10)",
            &[Value::text("it's $2"), Value::text("a\\b"), Value::Null],
        );
        b.push("COMMIT", &[]);
        assert_eq!(
            b.sql(),
            "INSERT INTO t VALUES (E'it''s $2', E'a\\\\b', NULL, NULL); COMMIT"
        );
    }
}
