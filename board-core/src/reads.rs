//! The reads fused with the credential check: a card list's reach and tag,
//! or a card write's reach, read in the statement that checks a bearer token
//! (401, then 404, then 403), and the board payload built from its rows by
//! position.

use std::borrow::Cow;

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::access::{check_role_of, token_from, Actor, Bearer, Caller, Role, TOKEN_COLUMNS};
use crate::cards::{BoardColumn, Card, CardList};
use crate::columns::Column;
use crate::error::{Error, Result};
use crate::etag::ETag;
use crate::ids::{AccountId, CardId, ColumnId, ProjectId, WorkspaceId};
use crate::time::Timestamp;
use crate::Board;

impl Board {
    /// The caller's reach of a card (404 when there is no such card, then 403
    /// below Viewer) and the tag of one of its lists (contract §22). For a
    /// bearer, one statement that checks the token first (401).
    pub(crate) async fn card_list_tag(
        &self,
        caller: Caller<'_>,
        id: &CardId,
        list: CardList,
    ) -> Result<ETag> {
        let (v1, v2) = self.card_list_versions(caller, id, list).await?;
        Ok(list.tag(id, v1, v2))
    }

    /// [`Board::card_list_tag`]'s reach, with the two versions the tag is
    /// made of (see [`CardList`]) instead of the tag.
    pub(crate) async fn card_list_versions(
        &self,
        caller: Caller<'_>,
        id: &CardId,
        list: CardList,
    ) -> Result<(i64, i64)> {
        let bearer = match caller {
            Caller::Actor(actor) => {
                let (_, v1, v2) = self.reach_card_versions(actor, id, list).await?;
                return Ok((v1, v2));
            }
            Caller::Bearer(bearer) => bearer,
        };
        let (_, versions) = list.sql();
        let row = self
            .card_row_for(bearer, id, Role::Viewer, versions)
            .await?;
        Ok((row.try_get("v1")?, row.try_get("v2")?))
    }

    /// The caller's reach of a card for a write that needs `min` (404 when
    /// there is no such card, then 403), with the card's workspace and the
    /// actor the write is made as. For a bearer, one statement that checks
    /// the token first (401) and finds the card; the actor is then the
    /// token's account.
    pub(crate) async fn reach_card_as<'c>(
        &self,
        caller: Caller<'c>,
        id: &CardId,
        min: Role,
    ) -> Result<(Cow<'c, Actor>, WorkspaceId)> {
        let bearer = match caller {
            Caller::Actor(actor) => {
                let card = self.reach_card(actor, id, min).await?;
                return Ok((Cow::Borrowed(actor), card.workspace_id));
            }
            Caller::Bearer(bearer) => bearer,
        };
        let row = self.card_row_for(bearer, id, min, "").await?;
        let workspace: String = row.try_get("card_workspace")?;
        let account = AccountId::from_db(row.try_get("account_id")?);
        Ok((
            Cow::Owned(Actor::Account(account)),
            WorkspaceId::from_db(workspace),
        ))
    }

    /// The row of card `id` for `bearer`, with the token's account
    /// (`account_id`), the card's workspace (`card_workspace`) and `columns`
    /// over `cards k` (if any), in one statement that checks the token: 401 (see
    /// [`Bearer::verify`]), then 404 when there is no such card, then 403
    /// below `min`.
    async fn card_row_for(
        &self,
        bearer: &Bearer,
        id: &CardId,
        min: Role,
        columns: &str,
    ) -> Result<AnyRow> {
        let extra = match columns.is_empty() {
            true => String::new(),
            false => format!(", {columns}"),
        };
        let sql = format!(
            "SELECT {TOKEN_COLUMNS}, t.account_id, k.workspace_id AS card_workspace{extra} {}",
            token_from("$2", "LEFT JOIN cards k ON k.id = $1", "k.workspace_id", "")
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(bearer.id())
            .fetch_optional(&self.pool)
            .await?;
        let role = bearer.verified_role(row.as_ref())?;
        let row = row.ok_or(Error::Unauthenticated)?;
        if row
            .try_get::<Option<String>, _>("card_workspace")?
            .is_none()
        {
            return Err(Error::NotFound("card"));
        }
        check_role_of(role, min)?;
        Ok(row)
    }
}

/// A card's columns as they come: `card_columns!()`, in order.
pub(crate) type CardColumns = (
    String,
    String,
    Option<String>,
    String,
    String,
    i64,
    String,
    String,
    Option<String>,
    Option<String>,
);

/// A card from its columns.
pub(crate) fn card_of(
    (id, ws, project, column, title, position, created, updated, by, archived): CardColumns,
) -> Card {
    Card {
        id: CardId::from_db(id),
        workspace_id: WorkspaceId::from_db(ws),
        project_id: project.map(ProjectId::from_db),
        column_id: ColumnId::from_db(column),
        title,
        position,
        created_at: Timestamp::from_db(created),
        updated_at: Timestamp::from_db(updated),
        created_by: by.map(AccountId::from_db),
        archived_at: archived.map(Timestamp::from_db),
    }
}

/// The columns of a card on the board: `card_columns!()` but the workspace,
/// which the board's reader names, and `archived_at`, null on the board (two
/// texts less to convert in each of a board's rows).
pub(crate) const BOARD_CARD_COLUMNS: &str =
    "id, project_id, column_id, title, position, created_at, updated_at, created_by";

/// A board card's columns as they come: [`BOARD_CARD_COLUMNS`], in order.
pub(crate) type BoardCardColumns = (
    String,
    Option<String>,
    String,
    String,
    i64,
    String,
    String,
    Option<String>,
);

/// A card of workspace `ws`'s board from its columns.
pub(crate) fn board_card_of(
    ws: &WorkspaceId,
    (id, project, column, title, position, created, updated, by): BoardCardColumns,
) -> Card {
    let ws = ws.as_str().to_owned();
    card_of((
        id, ws, project, column, title, position, created, updated, by, None,
    ))
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
