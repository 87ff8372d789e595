//! The outbox rows a write transaction commits with its change (api.md §11), as plain data
//! ([`OutboxRow`]): what an event is belongs to `change` and `events`, and who is told of a
//! commit is an [`OnCommit`].
//!
//! [`commit`] sends the deferred statements, the outbox `INSERT` and `COMMIT` in one round
//! trip, so an event commits with its change or not at all (a refused request never reaches
//! the commit). The statement differs by backend (`Backend::commit_statement`). SQLite: one
//! multi-row `INSERT … VALUES ($1, …)` with bound values; its text depends only on the number
//! of rows (at most [`ROWS_PER_STATEMENT`] a statement), so sqlx keeps it prepared and an
//! event costs no parse inside the write lock. PostgreSQL: several statements go in one
//! message only through the simple-query protocol, which takes no parameters, so the rows go
//! as escaped literals, after `SELECT pg_current_xact_id() IS NOT NULL` (a write takes its
//! xid before its seq: `events/horizon.rs`). One event, the common case, runs those
//! statements prepared, by name (`Backend::one_event_statements`).
//!
//! A move to a column's end under `Lock::ColumnGate` learns its position only in the commit's
//! round trip: its event's `data` holds [`PENDING_POSITION`] for the card
//! (`OutboxRow::position_of`) until the outbox statement of the same round trip writes the
//! position the card took, by a `replace` in SQL.

use sqlx::any::AnyRow;
use sqlx::AnyConnection;

use super::batch::{Batch, Deferred};
use super::prepared::Prepared;
use super::value::Value;
use super::Backend;
use crate::error::Result;
use crate::ids::{CardId, WorkspaceId};
use crate::time::Timestamp;

/// One row of the `events` table, before its seq is taken.
#[derive(Debug)]
pub(crate) struct OutboxRow {
    /// The workspace of the change.
    pub(crate) workspace: WorkspaceId,
    /// The event type (`card.moved`).
    pub(crate) kind: &'static str,
    /// `data` without `seq`, as JSON text.
    pub(crate) data: String,
    /// When the change happened.
    pub(crate) at: Timestamp,
    /// A card whose position is taken in the commit's round trip (a move to
    /// a column's end under [`Lock::ColumnGate`](super::Lock::ColumnGate)):
    /// `data` holds [`PENDING_POSITION`] for it, replaced by the card's
    /// position as the commit writes it (PostgreSQL only).
    pub(crate) position_of: Option<CardId>,
    /// The card the event concerns, if any (api.md §29: its activity); a
    /// link's event concerns its two cards, the second in `other_card`.
    pub(crate) card: Option<CardId>,
    /// A link's other card.
    pub(crate) other_card: Option<CardId>,
}

/// The position a card has in an event's `data` until its commit writes the
/// one it took ([`OutboxRow::position_of`]).
pub(crate) const PENDING_POSITION: i64 = i64::MIN;

/// The text of [`PENDING_POSITION`] in `data`, where it is replaced.
pub(crate) const PENDING_POSITION_JSON: &str = "\"position\":-9223372036854775808";

impl OutboxRow {
    /// The row's values in column order: workspace, type, time, data, card,
    /// other card (the last two may be `NULL`).
    pub(crate) fn values(&self) -> [Option<&str>; 6] {
        [
            Some(self.workspace.as_ref()),
            Some(self.kind),
            Some(self.at.as_ref()),
            Some(&self.data),
            self.card.as_ref().map(AsRef::as_ref),
            self.other_card.as_ref().map(AsRef::as_ref),
        ]
    }
}

/// Told once a transaction that wrote outbox rows has committed.
pub(crate) trait OnCommit: std::fmt::Debug + Send + Sync {
    /// A commit with events is durable.
    fn committed(&self);
}

/// The most rows one outbox statement binds (six values each): far below
/// SQLite's limit of 32,766 bound values, which an upload of 8,192 files
/// reached in one statement (api.md §21). A bigger change sends its rows
/// in statements of this many, then the last ones with `COMMIT`, so a
/// statement's text still depends only on its number of rows.
pub(crate) const ROWS_PER_STATEMENT: usize = 1_000;

/// Runs the `deferred` statements in order, appends `rows` to the outbox and
/// commits, in one round trip ([`Backend::commit_statement`]), or one more
/// per [`ROWS_PER_STATEMENT`] rows beyond the first where values are bound
/// (then the deferred statements go first, on their own). Returns the rows
/// the statements of its last round trip answered.
pub(crate) async fn commit(
    backend: Backend,
    deferred: &[Deferred],
    rows: &[OutboxRow],
    prepared: &Prepared,
    conn: &mut AnyConnection,
) -> Result<Vec<AnyRow>> {
    let binds = backend.binds_batch_values();
    let mut batch = Batch::new(binds, Some(prepared));
    for d in deferred {
        batch.push(&d.sql, &d.values)?;
    }
    let mut last = rows;
    if binds && rows.len() > ROWS_PER_STATEMENT {
        if !batch.is_empty() {
            std::mem::replace(&mut batch, Batch::new(binds, Some(prepared)))
                .fetch_all(&mut *conn)
                .await?;
        }
        let mut chunks = rows.chunks(ROWS_PER_STATEMENT).peekable();
        while let Some(chunk) = chunks.next() {
            if chunks.peek().is_none() {
                last = chunk;
                break;
            }
            let sql = backend.insert_statement(chunk.len());
            bind_rows(sqlx::query(sqlx::AssertSqlSafe(sql)), chunk)
                .execute(&mut *conn)
                .await?;
        }
    }
    if let (Some([xid, insert, pending]), [row]) = (backend.one_event_statements(), last) {
        // PostgreSQL, one event: its prepared statements, by name.
        let mut values: Vec<Value> = row.values().map(Value::opt).into();
        batch.push(xid, &[])?;
        match &row.position_of {
            Some(card) => {
                values.push(Value::text(card));
                batch.push(pending, &values)?;
            }
            None => batch.push(insert, &values)?,
        }
        batch.push("COMMIT", &[])?;
        return batch.fetch_all(conn).await;
    }
    let values: Vec<Value> = match binds {
        true => last
            .iter()
            .flat_map(|r| r.values().map(Value::opt))
            .collect(),
        false => Vec::new(),
    };
    batch.push(&backend.commit_statement(last), &values)?;
    batch.fetch_all(conn).await
}

type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, <sqlx::Any as sqlx::Database>::Arguments>;

/// Binds the values of `rows`, row by row, in column order.
fn bind_rows<'q>(mut query: AnyQuery<'q>, rows: &'q [OutboxRow]) -> AnyQuery<'q> {
    for row in rows {
        for value in row.values() {
            query = query.bind(value);
        }
    }
    query
}
