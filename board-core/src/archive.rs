//! Archive (api.md §19): a card leaves the board without losing its story,
//! and comes back at the end of its column.
//!
//! Archiving sets `archived_at` and opens a stay in `card_archives`;
//! restoring clears it and closes the stay. Both lock the card's column sets,
//! as a move does: a restore adds a card to a column, so its WIP check
//! (`Room::admit`) reads the count under that lock. Neither writes history,
//! except a restore whose column is no longer in the card's set in effect (the
//! workspace's column scope changed while it was archived): it goes to the first
//! column of the set in effect, and that move is recorded like any other.
//! A stay is what the flow's cumulative diagram subtracts (`flow/sql.rs`).
//!
//! Storage (migration 0012): `cards.archived_at` (NULL on the board), the partial index
//! `cards_archived (workspace_id, archived_at, id) WHERE archived_at IS NOT NULL`, and
//! `card_archives (card_id, archived_at, restored_at)`, one row per stay. An archived card
//! keeps its column and position (the unique position index still holds it, so a restore or
//! a placement never collides), its comments, attachments, links and history. A column
//! delete moves or deletes archived cards with the others, so the card's column always
//! exists; only its set in effect can change while it is archived.
//!
//! Archive and restore open like a move (`place_card`, then `write_card`: both sets locked,
//! the card re-read under the lock), so a repeated archive or restore sees the state it would
//! change, returns the card unchanged and emits nothing. A restore goes to the end of its
//! column (`MAX(position)` of the column's other cards, archived ones included, plus the
//! spacing) and advances `history_seq` only when the column changes.
//!
//! The archived list (`GET /api/cards?archived=true`) is a keyset on
//! `(archived_at DESC, id DESC)`. A card archived while a client pages is newer than any
//! cursor and not seen by later pages; a restored one leaves; a card archived before the
//! first page and left archived is listed exactly once.

use serde::Serialize;
use sqlx::Row;

use crate::access::{Actor, Role};
use crate::board::Board;
use crate::cards::{Card, CARD_COLUMNS, RETURNED};
use crate::change::Change;
use crate::error::{Error, Result, Rule};
use crate::history;
use crate::ids::{CardId, ColumnId};
use crate::order::SPACING;
use crate::paging;
use crate::query::SetQuery;
use crate::store::{Deferred, Value};
use crate::time::now;
use crate::wip::{self, Room};

/// The default page size of the archived list.
const DEFAULT_LIMIT: u16 = 50;

/// The query of `GET /api/cards?tenant=T[&project=P]&archived=true`: which
/// workspace (and project), and which page. Parameters are kept as given and
/// checked after the access check.
///
/// ```
/// use board_core::{ArchivedQuery, SetQuery};
/// # let ws = board_core::WorkspaceId::parse("ckv7q2x0a0000abcdefghijk").unwrap();
/// let first = ArchivedQuery::new(SetQuery::workspace(ws)).limit(20);
/// # let _ = first.after(None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedQuery {
    set: SetQuery,
    archived: Option<String>,
    limit: Option<String>,
    cursor: Option<String>,
}

impl ArchivedQuery {
    /// The first page (50 cards) of the archived cards of `set`'s workspace,
    /// or of its project.
    pub fn new(set: SetQuery) -> ArchivedQuery {
        ArchivedQuery {
            set,
            archived: Some("true".into()),
            limit: None,
            cursor: None,
        }
    }

    /// The query parameters `tenant`, `project`, `archived`, `limit` and
    /// `cursor` (each `None` when absent); `archived` must be `true`.
    pub fn from_query(
        tenant: Option<&str>,
        project: Option<&str>,
        archived: Option<&str>,
        limit: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<ArchivedQuery> {
        Ok(ArchivedQuery {
            set: SetQuery::from_query(tenant, project)?,
            archived: archived.map(str::to_string),
            limit: limit.map(str::to_string),
            cursor: cursor.map(str::to_string),
        })
    }

    /// Pages of `n` cards (1..=200).
    pub fn limit(mut self, n: u16) -> ArchivedQuery {
        self.limit = Some(n.to_string());
        self
    }

    /// The page after the one whose `nextCursor` is `cursor` (`None`: the first).
    pub fn after(mut self, cursor: Option<String>) -> ArchivedQuery {
        self.cursor = cursor;
        self
    }
}

/// A page of cards: of the archived list (most recently archived first), or
/// of "my cards" (`Board::cards_page`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ArchivedPage {
    /// The cards of this page.
    pub cards: Vec<Card>,
    /// The `cursor` of the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// Archive and restore (api.md §19): the operations of `archive.rs`.
impl Board {
    /// Archives a card (Member): it leaves the board, the WIP counts and the
    /// flow's wip, aging and cumulative flow, and keeps everything else.
    /// Archiving an archived card returns it unchanged and emits nothing.
    pub async fn archive_card(&self, actor: &Actor, id: &CardId) -> Result<Card> {
        let place = self.place_card(actor, id, Role::Member).await?;
        let (mut tx, card, _, _) = self.write_card(place, None).await?;
        if card.archived_at.is_some() {
            return Ok(card);
        }
        let at = now();
        let sql = format!(
            "UPDATE cards SET archived_at = $2, updated_at = $2 WHERE id = $1 RETURNING {RETURNED}"
        );
        let card: Card = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(&at)
            .fetch_one(&mut *tx)
            .await?;
        // Nothing reads the stay back: it opens with the commit.
        tx.defer(Deferred::new(
            "INSERT INTO card_archives (card_id, archived_at) VALUES ($1, $2)",
            vec![Value::text(id), Value::text(at)],
        ));
        tx.emit(Change::new(
            "card.archived",
            &card.workspace_id,
            actor,
            &card,
            &[],
        ));
        tx.commit().await?;
        Ok(card)
    }

    /// Restores an archived card (Member) to the end of its column; when that
    /// column is no longer in the card's set in effect, to the end of the first
    /// column of that set, with a history entry. `WIP_LIMIT` when the column is
    /// full under a hard limit. Restoring a card on the board returns it
    /// unchanged and emits nothing.
    pub async fn restore_card(&self, actor: &Actor, id: &CardId) -> Result<Card> {
        let place = self.place_card(actor, id, Role::Member).await?;
        let (mut tx, card, effect, _) = self.write_card(place, None).await?;
        if card.archived_at.is_none() {
            return Ok(card);
        }
        // The card's own column when it is in the set in effect, else the
        // set's first column; with the WIP room, in one statement.
        let sql = format!(
            "SELECT c.id, c.name, CASE WHEN c.id = $1 THEN 0 ELSE 1 END AS moves, \
                    (SELECT f.name FROM columns f WHERE f.id = $1) AS from_name, {} \
             FROM columns c WHERE c.set_id = $2 \
             ORDER BY CASE WHEN c.id = $1 THEN 0 ELSE 1 END, c.position LIMIT 1",
            wip::room_sql("c.id")
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(&card.column_id)
            .bind(&effect)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| {
                Error::rule(Rule::InvalidTargetColumn, "the set in effect has no column")
            })?;
        let column: ColumnId = row.try_get("id")?;
        let name: String = row.try_get("name")?;
        let moves = row.try_get::<i64, _>("moves")? == 1;
        Room::from_row(&row)?.admit(&name, 1)?;
        let at = now();
        let sql = format!(
            "UPDATE cards SET archived_at = NULL, updated_at = $3, column_id = $2, \
             history_seq = history_seq + $4, \
             position = (SELECT COALESCE(MAX(position), 0) + {SPACING} FROM cards \
                         WHERE column_id = $2 AND id <> $1) \
             WHERE id = $1 RETURNING {RETURNED}"
        );
        let restored: Card = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(&column)
            .bind(&at)
            .bind(i64::from(moves))
            .fetch_one(&mut *tx)
            .await?;
        // The stay's close and the history entry go with the commit.
        tx.defer(Deferred::new(
            "UPDATE card_archives SET restored_at = $2 WHERE card_id = $1 AND restored_at IS NULL",
            vec![Value::text(id), Value::text(at)],
        ));
        let mut extra = Vec::new();
        if moves {
            let from: String = row.try_get("from_name")?;
            history::record(&mut tx, actor, id, Some(&from), &name);
            extra.push(("fromColumnId", serde_json::json!(card.column_id)));
        }
        tx.emit(Change::new(
            "card.restored",
            &restored.workspace_id,
            actor,
            &restored,
            &extra,
        ));
        tx.commit().await?;
        Ok(restored)
    }

    /// A page of the archived cards of a workspace, or of one of its projects
    /// (Viewer), most recently archived first (then by id, descending): a
    /// keyset on `(archived_at, id)`, so a card archived or restored while a
    /// client pages neither repeats nor hides another.
    pub async fn archived_cards(
        &self,
        actor: &Actor,
        query: &ArchivedQuery,
    ) -> Result<ArchivedPage> {
        let ws = query.set.workspace_id();
        self.require(&self.pool, actor, ws, Role::Viewer).await?;
        if query.archived.as_deref() != Some("true") {
            return Err(crate::error::ValidationErrors::one(
                "archived",
                "Expected true: this route lists archived cards (the board's cards are in \
                 GET /api/board)",
            ));
        }
        if query.set.project_key().is_some() {
            // A project outside the workspace is a 422 on `project`.
            self.set_in_effect(&self.pool, ws, query.set.project_key(), "project")
                .await?;
        }
        let limit = paging::limit(query.limit.as_deref(), DEFAULT_LIMIT)?;
        let after = match &query.cursor {
            Some(c) => Some(paging::decode(c, 2)?),
            None => None,
        };
        // Every parameter is always bound (PostgreSQL refuses unused ones); a
        // NULL one turns its condition off.
        let sql = format!(
            "SELECT {CARD_COLUMNS} FROM cards k \
             WHERE k.workspace_id = $1 AND k.archived_at IS NOT NULL \
               AND ($2 IS NULL OR k.project_id = $2) \
               AND ($3 IS NULL OR k.archived_at < $3 OR (k.archived_at = $3 AND k.id < $4)) \
             ORDER BY k.archived_at DESC, k.id DESC LIMIT $5"
        );
        let (at, card) = match &after {
            Some(keys) => (Some(keys[0].as_str()), Some(keys[1].as_str())),
            None => (None, None),
        };
        let mut cards: Vec<Card> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(ws)
            .bind(query.set.project_id())
            .bind(at)
            .bind(card)
            .bind(i64::from(limit) + 1)
            .fetch_all(&self.pool)
            .await?;
        let next_cursor = if cards.len() > usize::from(limit) {
            cards.truncate(usize::from(limit));
            cards.last().map(|last| {
                let at = last.archived_at.as_ref().map_or("", |t| t.as_str());
                paging::encode(&[at, last.id.as_str()])
            })
        } else {
            None
        };
        Ok(ArchivedPage { cards, next_cursor })
    }
}
