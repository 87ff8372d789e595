//! Watching a card (api.md §26): its creator, its assignees and everyone who
//! commented on it watch it, as does whoever chose to; whoever chose not to
//! does not. `PUT` and `DELETE /api/cards/[id]/watch` record the caller's
//! choice (`card_watches`), idempotently: a Viewer may follow a card. The
//! choice is the caller's alone, so it emits no event, and the card's
//! `watching` is part of `GET /api/cards/[id]` only, whose tag it changes.

use sqlx::{FromRow, Row};

use super::{check_role, check_role_of, Card, CardView};
use crate::access::{Actor, Role};
use crate::board::Board;
use crate::error::{Error, Result};
use crate::ids::CardId;
use crate::notifications::WATCHING_SQL;
use crate::store::{Deferred, Value};
use crate::time::now;

impl Board {
    /// The card and whether the actor watches it, with the actor's reach
    /// (404, then 403 below `min`), in one statement.
    pub(crate) async fn reach_card_watching(
        &self,
        actor: &Actor,
        id: &CardId,
        min: Role,
    ) -> Result<(Card, bool)> {
        let Some(account) = actor.account() else {
            return Ok((self.find_card(&self.pool, id).await?, false));
        };
        let watching = WATCHING_SQL
            .replace("{card}", "k.id")
            .replace("{account}", "$2");
        let extra = format!(", ({watching}) AS watching");
        let row = self.card_row(id, Some(account), &extra).await?;
        let card = Card::from_row(&row)?;
        match actor {
            Actor::Session(s) => check_role_of(s.role_in(&card.workspace_id), min)?,
            _ => check_role(row.try_get::<Option<String>, _>("role")?.as_deref(), min)?,
        }
        let watching: i64 = row.try_get("watching")?;
        Ok((card, watching > 0))
    }

    /// Makes the caller watch card `id` (`true`) or stop watching it
    /// (Viewer), whatever made it a watcher; returns the card as
    /// `GET /api/cards/[id]` shows it. The operator has no account: 403.
    pub async fn watch_card(&self, actor: &Actor, id: &CardId, watching: bool) -> Result<CardView> {
        let account = actor.account().ok_or_else(|| {
            Error::Forbidden("only an account can watch a card; the operator has none".into())
        })?;
        let (card, _) = self.reach_card_watching(actor, id, Role::Viewer).await?;
        let flag = i64::from(watching);
        // The card's key keeps the card until the commit; the row is the
        // caller's alone, so no read decides anything and no lock is taken.
        let mut tx = self.write_unlocked().await?;
        Deferred::new(
            format!(
                "INSERT INTO card_watches (card_id, account_id, watching, chosen_at) \
                 VALUES ($1, $2, {flag}, $3) ON CONFLICT (card_id, account_id) \
                 DO UPDATE SET watching = {flag}, chosen_at = $3"
            ),
            vec![Value::text(id), Value::text(account), Value::text(now())],
        )
        .run(&mut tx)
        .await
        .map_err(|e| match crate::error::is_foreign_key_violation(&e) {
            true => Error::NotFound("card"),
            false => e,
        })?;
        tx.commit().await?;
        Ok(CardView {
            card,
            description_html: None,
            watching: Some(watching),
        })
    }
}
