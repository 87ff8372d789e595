//! The reads fused with the credential check: a card list's reach and tag (`card_list_tag`:
//! the card's comments, history, relations or attachments), or a card write's reach
//! (`reach_card_as`, for the comment `POST`), read in the statement that checks a bearer token.
//!
//! The server hands these a `Caller`: an `&Actor`, or a `&Bearer` (`Bearer::parse`: well
//! formed, not yet checked; malformed or missing is 401 at once). The statement is driven from
//! the token's row (`access::token_from`) and selects `access::TOKEN_COLUMNS` with the card, its
//! workspace's membership of the token's account, and the list's versions. `Bearer::verify`
//! then applies the one rule in the contract's order: 401 (no such token, a wrong secret,
//! revoked, expired) before anything the row says, then 404 (no card), then 403 (no
//! membership, or a role too low). The payload is reachable only through that row, so the
//! check cannot be skipped. A comment `POST` so checked is then written as the token's
//! account (`Actor::Account`). Tests: `tests/e2e/fused.rs`.

use std::borrow::Cow;

use sqlx::any::AnyRow;
use sqlx::Row;

use super::CardList;
use crate::access::{check_role_of, token_from, Actor, Bearer, Caller, Role, TOKEN_COLUMNS};
use crate::board::Board;
use crate::error::{Error, Result};
use crate::etag::ETag;
use crate::ids::{AccountId, CardId, WorkspaceId};
use crate::notifications::OTHERS_WATCH_SQL;

/// A caller's reach of a card for a write ([`Board::reach_card_as`]).
pub(crate) struct WriteReach<'c> {
    /// The actor the write is made as.
    pub(crate) actor: Cow<'c, Actor>,
    /// The card's workspace.
    pub(crate) workspace: WorkspaceId,
    /// The versions of the card's comments ([`CardList::Comments`]).
    pub(crate) versions: (i64, i64),
    /// Whether anyone but the actor may watch the card
    /// (`notifications::OTHERS_WATCH_SQL`).
    pub(crate) others_watch: bool,
}

impl Board {
    /// The caller's reach of a card (404 when there is no such card, then 403
    /// below Viewer) and the tag of one of its lists (api.md §22). For a
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
    /// token's account. Also the versions of the card's comments
    /// ([`CardList::Comments`]), which tag the thread the write adds to, and
    /// whether anyone but the actor may watch the card (an actor's reach
    /// says yes without reading it).
    pub(crate) async fn reach_card_as<'c>(
        &self,
        caller: Caller<'c>,
        id: &CardId,
        min: Role,
    ) -> Result<WriteReach<'c>> {
        let list = CardList::Comments;
        let bearer = match caller {
            Caller::Actor(actor) => {
                let (card, v1, v2) = self.reach_card_versions_for(actor, id, list, min).await?;
                return Ok(WriteReach {
                    actor: Cow::Borrowed(actor),
                    workspace: card.workspace_id,
                    versions: (v1, v2),
                    others_watch: true,
                });
            }
            Caller::Bearer(bearer) => bearer,
        };
        let others = OTHERS_WATCH_SQL.replace("{account}", "t.account_id");
        let columns = format!("{}, {others} AS others_watch", list.sql().1);
        let row = self.card_row_for(bearer, id, min, &columns).await?;
        let workspace: String = row.try_get("card_workspace")?;
        let account = AccountId::from_db(row.try_get("account_id")?);
        Ok(WriteReach {
            actor: Cow::Owned(Actor::Account(account)),
            workspace: WorkspaceId::from_db(workspace),
            versions: (row.try_get("v1")?, row.try_get("v2")?),
            others_watch: row.try_get::<i64, _>("others_watch")? != 0,
        })
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
        self.note_use(bearer.id());
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
