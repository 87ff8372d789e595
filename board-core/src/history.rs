//! A card's column history. Exactly three operations append to it, inside their
//! own transaction: card creation, a move to another column, and column deletion
//! with `MOVE`. Names are copied, so renaming or deleting a column later changes
//! nothing. There is no other write.
//!
//! Each entry is numbered by its card's `history_seq` (advanced in the same transaction;
//! `history_card (card_id, seq)` is unique) and records the column it enters with its done
//! flag, and the visit it ends: the previous entry's column and time (`from_column_id`,
//! `from_at`), read by the same `INSERT … SELECT` that writes it, which the flow's statement
//! reads instead of pairing rows. The acting account (`actor_id`, api.md §17) is bound in
//! that statement too: a column delete with `MOVE` writes its deleter on every entry. A card's
//! entry is deferred to its write's commit (`WriteTx::defer`); a column delete's are one
//! set-based statement whose ids come from SQL (`WriteTx::new_id_sql`).

use serde::Serialize;

use crate::access::{Actor, Caller, Role};
use crate::board::Board;
use crate::cards::CardList;
use crate::error::Result;
use crate::etag::{Conditional, IfNoneMatch};
use crate::ids::{AccountId, CardId, ColumnId, HistoryId};
use crate::store::{self, Deferred, Value, WriteTx};
use crate::time::{now, Timestamp};

/// One entry of a card's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryEntry {
    /// Its id.
    pub id: HistoryId,
    /// The column's name before the move; `None` for the first placement.
    pub from_name: Option<String>,
    /// The column's name after the move.
    pub to_name: String,
    /// When it happened.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub moved_at: Timestamp,
    /// The account that made the change (api.md §17); null when the CLI
    /// made it, and for entries written before this field existed.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub actor_id: Option<AccountId>,
}

/// Records one entry for `card`, numbered by the card's `history_seq`
/// counter, which the caller's statement that created or moved the card has
/// just set or advanced, with the id and done flag of the column the card is
/// now in, and the visit it ends (the column and time of the card's previous
/// entry; none for the first), and the account of `actor` (none for the
/// operator). The caller's transaction holds the card's set.
///
/// The entry is deferred to the commit of `tx` ([`WriteTx::defer`]): no write
/// reads it back.
pub(crate) fn record(tx: &mut WriteTx, actor: &Actor, card: &CardId, from: Option<&str>, to: &str) {
    tx.defer(entry(actor, card, from, to));
}

/// The statement of an entry ([`record`]).
fn entry(actor: &Actor, card: &CardId, from: Option<&str>, to: &str) -> Deferred {
    Deferred::new(
        ENTRY_SQL,
        vec![
            Value::text(HistoryId::new()),
            Value::text(card),
            Value::opt(from),
            Value::text(to),
            Value::text(now()),
            Value::opt(actor.account()),
        ],
    )
}

/// The text of an entry's statement ([`record`]).
pub(crate) const ENTRY_SQL: &str =
    "INSERT INTO history (id, card_id, seq, from_name, to_name, moved_at, to_column_id, to_done, \
                          from_column_id, from_at, actor_id) \
     SELECT $1, k.id, k.history_seq, $3, $4, $5, k.column_id, c.done, p.to_column_id, p.moved_at, \
            $6 \
     FROM cards k JOIN columns c ON c.id = k.column_id \
     LEFT JOIN history p ON p.card_id = k.id AND p.seq = k.history_seq - 1 WHERE k.id = $2";

/// Appends one entry (`from_name` → `to_name`, the column `to`) to every card
/// now in `column`, in one statement, numbered `history_seq + 1`, each ending
/// the card's visit to `column` that its entry numbered `history_seq` began.
/// Their `from_column_id` is null from the start: `column` is deleted in the
/// same transaction, and its foreign key would null it then, one more write
/// for each entry. Called by column deletion with `MOVE` right before the
/// statement that moves the cards and advances their `history_seq`. Every
/// entry records `actor`'s account, the deleter (none for the operator).
pub(crate) async fn append_column_move(
    tx: &mut WriteTx,
    actor: &Actor,
    column: &ColumnId,
    to: &ColumnId,
    from_name: &str,
    to_name: &str,
) -> Result<()> {
    let sql = format!(
        "INSERT INTO history (id, card_id, seq, from_name, to_name, moved_at, to_column_id, to_done, \
                              from_column_id, from_at, actor_id) \
         SELECT {}, c.id, c.history_seq + 1, $2, $3, $4, $5, \
                (SELECT done FROM columns WHERE id = $5), NULL, p.moved_at, $6 \
         FROM cards c LEFT JOIN history p ON p.card_id = c.id AND p.seq = c.history_seq \
         WHERE c.column_id = $1",
        tx.new_id_sql()
    );
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(column)
        .bind(from_name)
        .bind(to_name)
        .bind(now())
        .bind(to)
        .bind(actor.account())
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// A card's column history: the operations of `history.rs`.
impl Board {
    /// A card's history, oldest first (Viewer).
    pub async fn card_history(&self, actor: &Actor, card: &CardId) -> Result<Vec<HistoryEntry>> {
        self.reach_card(actor, card, Role::Viewer).await?;
        self.history_of(card).await
    }

    /// A card's history with its tag (api.md §22), or only the tag when
    /// `cond` names it (Viewer): a 304 costs one statement.
    /// A [`Caller::Bearer`]'s token is checked by that statement.
    pub async fn card_history_if<'c>(
        &self,
        caller: impl Into<Caller<'c>>,
        card: &CardId,
        cond: &IfNoneMatch,
    ) -> Result<Conditional<Vec<HistoryEntry>>> {
        let tag = self
            .card_list_tag(caller.into(), card, CardList::History)
            .await?;
        Conditional::answer(tag, cond, self.history_of(card)).await
    }

    /// The entries of a card, oldest first (a big read: `store::big_read`).
    async fn history_of(&self, card: &CardId) -> Result<Vec<HistoryEntry>> {
        let rows: Vec<EntryRow> = store::big_read(
            &self.pool,
            self.backend,
            "id, from_name, to_name, moved_at, actor_id",
            "FROM history WHERE card_id = $1",
            "seq",
            card,
        )
        .await?;
        Ok(rows.into_iter().map(entry_of).collect())
    }
}

/// An entry's row: `id, from_name, to_name, moved_at, actor_id`.
type EntryRow = (String, Option<String>, String, String, Option<String>);

/// An entry from its row.
fn entry_of((id, from_name, to_name, moved_at, actor_id): EntryRow) -> HistoryEntry {
    HistoryEntry {
        id: HistoryId::from_db(id),
        from_name,
        to_name,
        moved_at: Timestamp::from_db(moved_at),
        actor_id: actor_id.map(AccountId::from_db),
    }
}
