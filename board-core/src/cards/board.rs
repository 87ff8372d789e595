//! The board payload (`GET /api/board`): the set in effect with each column's cards in order,
//! and whether each column is over its WIP limit, tagged by the versions of the rows whose
//! locks guard every change to it (api.md §22).
//!
//! The tag is read in the statement that finds the set in effect (`set_in_effect_versioned`),
//! before the payload, so a 304 costs that one statement: the set's id, `column_sets.version`
//! (every write of its columns and placed cards advances it under the set's lock),
//! `settings.version` (`wipLimits` decides `overLimit`, `columnScope` the set) and the sum of
//! its columns' versions in `column_versions` (a move to a column's end advances only its
//! column's). The sum only grows while the set's version stays, since a column, and its
//! version's row, is deleted only under the set's lock. Since its cards carry their labels,
//! assignees, checklist and counts (api.md §24), the tag adds the workspace's version, the
//! sum of the set's cards' versions and the number of their comments (`sets.rs`).
//!
//! The payload is two statements sent at once, each on its own connection
//! (`tokio::try_join!`): the set's columns, and its cards as one big read
//! (`store::big_read`), each row read by position rather than by name. Archived cards are
//! left out.

use serde::Serialize;

use super::{BoardRow, Card, BOARD_COLUMNS};
use crate::access::{Actor, Caller, Role};
use crate::board::Board;
use crate::columns::Column;
use crate::error::{Error, Result};
use crate::etag::{Conditional, ETag, IfNoneMatch};
use crate::ids::{ColumnSetId, WorkspaceId};
use crate::query::SetQuery;
use crate::store;

/// A column of the board payload, with its cards in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BoardColumn {
    /// The column.
    #[serde(flatten)]
    pub column: Column,
    /// Whether it holds more cards than its WIP limit (`overLimit`; api.md
    /// §20); `false` without a limit.
    #[serde(rename = "overLimit")]
    pub over_limit: bool,
    /// Its cards, by position.
    pub cards: Vec<Card>,
}

/// The board payload: the set in effect with its cards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BoardView {
    /// The columns of the set, by position.
    pub columns: Vec<BoardColumn>,
}

/// The board payload: the operations of `cards/board.rs`.
impl Board {
    /// The board payload: the set in effect for the query's project (or the
    /// tenant set) with each column's cards in order (Viewer). A project
    /// outside the workspace is a 422 on `project`.
    pub async fn board(&self, actor: &Actor, query: &SetQuery) -> Result<BoardView> {
        let read = self.board_if(actor, query, &IfNoneMatch::none()).await?;
        read.into_payload()
            .ok_or_else(|| Error::Internal("a board read without a condition".into()))
    }

    /// The board with its tag (api.md §22), or only the tag when `cond`
    /// names it (Viewer). The tag is read in the statement that finds the set
    /// in effect, before the payload: the set's version (every write of its
    /// columns and cards advances it under the set's lock) and the settings'
    /// version (`wipLimits` decides `overLimit`). A 304 costs that one statement.
    pub async fn board_if<'c>(
        &self,
        caller: impl Into<Caller<'c>>,
        query: &SetQuery,
        cond: &IfNoneMatch,
    ) -> Result<Conditional<BoardView>> {
        let ws = query.workspace_id();
        let (project, min) = (query.project_key(), Role::Viewer);
        let (set, versions) = match caller.into() {
            // The token is checked by the statement that finds the set.
            Caller::Bearer(bearer) => {
                self.set_in_effect_checked(bearer, ws, project, "project", min, true)
                    .await?
            }
            Caller::Actor(actor) => {
                self.require(&self.pool, actor, ws, min).await?;
                self.set_in_effect_versioned(&self.pool, ws, project, "project", true)
                    .await?
            }
        };
        let tag = ETag::of_versions("board", set.as_ref(), &versions);
        Conditional::answer(tag, cond, self.board_of_set(ws, set)).await
    }

    /// The board payload of workspace `ws`'s set: its columns and its cards,
    /// read at once on two connections (each read is its own statement, as it
    /// was one after the other; the tag was read before both).
    async fn board_of_set(&self, ws: &WorkspaceId, set: ColumnSetId) -> Result<BoardView> {
        // A big read (`store::big_read`).
        let cards = async {
            let rows: Vec<BoardRow> = store::big_read(
                &self.pool,
                self.backend,
                BOARD_COLUMNS.text(),
                "FROM cards WHERE column_id IN (SELECT id FROM columns WHERE set_id = $1) \
                 AND archived_at IS NULL",
                "position, created_at",
                &set,
            )
            .await?;
            let card = |r: BoardRow| r.in_workspace(ws);
            Ok(rows.into_iter().map(card).collect::<Vec<_>>())
        };
        let (columns, cards) = tokio::try_join!(self.set_columns(&self.pool, &set), cards)?;
        Ok(BoardView {
            columns: board_columns(columns, cards),
        })
    }
}

/// The board's columns, each with its cards (`cards` in board order, each
/// moved into its column: no copy), and whether it is over its WIP limit.
pub(crate) fn board_columns(columns: Vec<Column>, cards: Vec<Card>) -> Vec<BoardColumn> {
    let mut out: Vec<BoardColumn> = columns
        .into_iter()
        .map(|column| BoardColumn {
            column,
            over_limit: false,
            cards: Vec::new(),
        })
        .collect();
    for card in cards {
        if let Some(c) = out.iter_mut().find(|c| c.column.id == card.column_id) {
            c.cards.push(card);
        }
    }
    for c in &mut out {
        c.over_limit = c
            .column
            .wip_limit
            .is_some_and(|l| c.cards.len() > usize::from(l.get()));
    }
    out
}
