//! The outbox rows a write transaction commits with its change (contract §11),
//! as plain data: what an event is, and who is told of a commit, belong to
//! `events`.

use sqlx::AnyConnection;

use super::Backend;
use crate::ids::WorkspaceId;
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
}

impl OutboxRow {
    /// The row's values in column order: workspace, type, time, data.
    pub(crate) fn values(&self) -> [&str; 4] {
        [
            self.workspace.as_ref(),
            self.kind,
            self.at.as_ref(),
            &self.data,
        ]
    }
}

/// Told once a transaction that wrote outbox rows has committed.
pub(crate) trait OnCommit: std::fmt::Debug + Send + Sync {
    /// A commit with events is durable.
    fn committed(&self);
}

/// Appends `rows` to the outbox and commits, in one round trip
/// ([`Backend::commit_statement`]).
pub(crate) async fn commit(
    backend: Backend,
    rows: &[OutboxRow],
    conn: &mut AnyConnection,
) -> std::result::Result<(), sqlx::Error> {
    let sql = backend.commit_statement(rows);
    if backend.binds_outbox_values() {
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        for row in rows {
            for value in row.values() {
                query = query.bind(value);
            }
        }
        query.execute(conn).await?;
    } else {
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(conn)
            .await?;
    }
    Ok(())
}
