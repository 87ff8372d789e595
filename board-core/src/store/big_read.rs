//! Big reads: a card's history, a thread's comments, a board's cards, with
//! thousands of rows each. Each is one statement with one bound key, on a
//! connection of its own that goes straight to the next operation
//! ([`Conns`]).
//!
//! sqlx hands each SQLite row from the connection's thread to the task that
//! reads it, about 3 µs a row (30–34 ms for 10,000 history entries). So on
//! SQLite a big read gathers its rows into one JSON array of arrays
//! ([`Backend::big_read_json_sql`]), one row that crosses once and is parsed here
//! (5 ms for the same entries; BENCHMARKS). A read whose JSON would pass
//! SQLite's longest string (10⁹ bytes: thousands of comments of 50,000
//! characters each) is refused by SQLite and read again row by row.
//! PostgreSQL sends its rows in one stream anyway, and its `json_agg` costs
//! what it saves, so there the rows come as they are.

use serde::de::DeserializeOwned;
use sqlx::any::AnyRow;
use sqlx::FromRow;

use super::{Backend, Conns};
use crate::error::Result;

/// The rows of `SELECT {columns} {from} ORDER BY {order}`, with `key` (a
/// typed id, bound as its text) bound as `$1`, each as a `T`: read from the
/// JSON array of the columns in their order (SQLite), or from the row by
/// name. `columns` are plain names (the JSON array on SQLite names them again).
pub(crate) async fn big_read<T, K>(
    conns: &Conns,
    backend: Backend,
    columns: &str,
    from: &str,
    order: &str,
    key: &K,
) -> Result<Vec<T>>
where
    T: DeserializeOwned + for<'r> FromRow<'r, AnyRow> + Send + Unpin,
    K: for<'q> sqlx::Encode<'q, sqlx::Any> + sqlx::Type<sqlx::Any> + Sync,
{
    if let Some(sql) = backend.big_read_json_sql(columns, from, order) {
        let mut conn = conns.acquire().await?;
        let json = sqlx::query_scalar::<_, String>(sqlx::AssertSqlSafe(sql))
            .bind(key)
            .fetch_one(&mut *conn)
            .await;
        match json {
            Ok(json) => {
                conn.give_back();
                return serde_json::from_str(&json)
                    .map_err(|e| sqlx::Error::Decode(Box::new(e)).into());
            }
            Err(e) if !backend.is_too_big(&e) => return Err(e.into()),
            // Too long for one JSON text: row by row, below.
            Err(_) => drop(conn),
        }
    }
    let sql = format!("SELECT {columns} {from} ORDER BY {order}");
    let mut conn = conns.acquire().await?;
    let rows = sqlx::query_as::<_, T>(sqlx::AssertSqlSafe(sql))
        .bind(key)
        .fetch_all(&mut *conn)
        .await?;
    conn.give_back();
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use sqlx::any::AnyPoolOptions;

    use super::*;

    /// One in-memory database: one connection.
    async fn conns() -> Conns {
        sqlx::any::install_default_drivers();
        let pool = AnyPoolOptions::new()
            .max_connections(1)
            .connect("sqlite::memory:")
            .await
            .unwrap();
        Conns::new(pool, Duration::from_secs(5))
    }

    type Columns = (String, i64, Option<String>);

    /// SQLite's one JSON text answers what its rows answer (read here as
    /// PostgreSQL would: row by row, on the same table), text, integers and
    /// nulls alike, in order, and `[]` for no row.
    #[tokio::test]
    async fn a_json_read_answers_what_the_rows_answer() {
        let conns = conns().await;
        let mut conn = conns.acquire().await.unwrap();
        sqlx::query("CREATE TABLE t (k TEXT, s TEXT, n INTEGER, o TEXT)")
            .execute(&mut *conn)
            .await
            .unwrap();
        let texts = ["\"q\" \\ \\u0041", "é 😀\r\n\t\u{1}", "", "null", "[1]"];
        for (i, s) in texts.iter().enumerate() {
            let n = [i64::MAX, i64::MIN, -1, 0, 1 << 53][i];
            let o = (i % 2 == 0).then(|| format!("o{i}"));
            sqlx::query("INSERT INTO t VALUES ('k', $1, $2, $3)")
                .bind(*s)
                .bind(n)
                .bind(o)
                .execute(&mut *conn)
                .await
                .unwrap();
        }
        conn.give_back();
        let (k, x) = ("k".to_string(), "x".to_string());
        let read = |backend| {
            big_read::<Columns, _>(&conns, backend, "s, n, o", "FROM t WHERE k = $1", "n", &k)
        };
        let json = read(Backend::Sqlite).await.unwrap();
        let rows = read(Backend::Postgres).await.unwrap();
        assert_eq!(json, rows);
        assert_eq!(json.len(), texts.len());
        assert_eq!(json[0], (texts[1].to_string(), i64::MIN, None));
        assert_eq!(json[4], (texts[0].to_string(), i64::MAX, Some("o0".into())));
        let none = big_read::<Columns, _>(
            &conns,
            Backend::Sqlite,
            "s, n, o",
            "FROM t WHERE k = $1",
            "n",
            &x,
        );
        assert!(none.await.unwrap().is_empty());
    }

    /// A string past SQLite's limit is told from other errors: the read that
    /// meets one goes row by row.
    #[tokio::test]
    async fn a_text_too_long_for_sqlite_is_known() {
        let conns = conns().await;
        let mut conn = conns.acquire().await.unwrap();
        let e = sqlx::query("SELECT zeroblob(2000000000)")
            .execute(&mut *conn)
            .await
            .unwrap_err();
        assert!(Backend::Sqlite.is_too_big(&e), "{e}");
        assert!(!Backend::Postgres.is_too_big(&e));
        let e = sqlx::query("SELECT nothing FROM nowhere")
            .execute(&mut *conn)
            .await
            .unwrap_err();
        assert!(!Backend::Sqlite.is_too_big(&e), "{e}");
    }
}
