//! What a copy reads from a database's catalog: its tables and their columns,
//! the migrations applied, the sequences, and a consistent snapshot to read from.

use sqlx::AnyConnection;

use crate::error::{Error, Result};
use crate::store::Backend;

/// The kind of value a column holds, read from its declared type: the schema
/// keeps ids, names and times as TEXT and counters and flags as INTEGER/BIGINT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ColumnKind {
    /// INTEGER, BIGINT, SMALLINT: read and bound as `i64`.
    Integer,
    /// TEXT, VARCHAR: read and bound as a string.
    Text,
}

/// One column of a table, as the database's catalog describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableColumn {
    /// The column's name.
    pub(crate) name: String,
    /// Its kind of value.
    pub(crate) kind: ColumnKind,
}

/// The tables of the schema (without sqlx's `_sqlx_migrations`), by name.
pub(crate) async fn schema_tables(
    conn: &mut AnyConnection,
    backend: Backend,
) -> Result<Vec<String>> {
    let sql = backend.schema_tables_sql();
    let rows = sqlx::query(sql).fetch_all(&mut *conn).await?;
    rows.iter()
        .map(|r| Ok(sqlx::Row::try_get::<String, _>(r, "name")?))
        .collect()
}

/// The columns of `table` in their declared order, each with its kind; a
/// column of a type the schema does not use (REAL, BLOB, BOOLEAN, …) is an
/// error, so that no value is carried in a shape it would not survive.
pub(crate) async fn table_columns(
    conn: &mut AnyConnection,
    backend: Backend,
    table: &str,
) -> Result<Vec<TableColumn>> {
    let sql = backend.table_columns_sql();
    let rows = sqlx::query(sql).bind(table).fetch_all(&mut *conn).await?;
    rows.iter()
        .map(|r| {
            let name: String = sqlx::Row::try_get(r, "name")?;
            let declared: String = sqlx::Row::try_get(r, "data_type")?;
            let upper = declared.to_ascii_uppercase();
            let kind = if upper.contains("INT") {
                ColumnKind::Integer
            } else if upper == "TEXT" || upper.contains("CHAR") {
                ColumnKind::Text
            } else {
                return Err(Error::Transfer(format!(
                    "column {table}.{name} has type {declared}, which a copy does not carry"
                )));
            };
            Ok(TableColumn { name, kind })
        })
        .collect()
}

/// The migration versions applied to the database, in order.
pub(crate) async fn migration_versions(conn: &mut AnyConnection) -> Result<Vec<i64>> {
    let rows = sqlx::query("SELECT version FROM _sqlx_migrations WHERE success ORDER BY version")
        .fetch_all(&mut *conn)
        .await?;
    rows.iter()
        .map(|r| Ok(sqlx::Row::try_get::<i64, _>(r, "version")?))
        .collect()
}

/// How many sequences the schema keeps besides `events_seq` and
/// `comments_seq` (PostgreSQL; SQLite has none): a copy continues those
/// ([`WriteTx::continue_event_seqs`](crate::store::WriteTx::continue_event_seqs))
/// and no other, so it refuses a schema that grew one.
pub(crate) async fn sequence_count(conn: &mut AnyConnection, backend: Backend) -> Result<i64> {
    let Some(sql) = backend.other_sequences_sql() else {
        return Ok(0);
    };
    let row = sqlx::query(sql).fetch_one(&mut *conn).await?;
    Ok(sqlx::Row::try_get(&row, "n")?)
}

/// Starts a read-only transaction that sees one snapshot of the database for
/// every statement that follows on `conn` (SQLite: `BEGIN`, whose first read
/// fixes the snapshot; PostgreSQL: `REPEATABLE READ READ ONLY`).
pub(crate) async fn begin_snapshot(conn: &mut AnyConnection, backend: Backend) -> Result<()> {
    let sql = backend.begin_snapshot();
    sqlx::raw_sql(sql).execute(&mut *conn).await?;
    Ok(())
}
