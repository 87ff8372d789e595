//! An account's own tokens over HTTP (api.md §23): `GET|POST /api/tokens`,
//! `DELETE /api/tokens/[id]`, and `lastUsedAt`, moved at most once a minute.
//!
//! Sessions and personal tokens share the one hashed store (`tokens`,
//! `kind`). A token is written to at most once a minute however often it is
//! used: this process remembers when it last touched each token
//! ([`Touched`]), and the `UPDATE` itself only moves a `last_used_at` older
//! than a minute, so several servers together stay within that too.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;
use sqlx::Row;

use crate::access::{issue_token, Actor, TokenKind};
use crate::board::Board;
use crate::error::{Error, Result};
use crate::ids::{AccountId, TokenId};
use crate::text::Name;
use crate::time::{now, now_millis, Timestamp};
use crate::validate::{self, Fields, FromJson, Input};

/// How often a token's `lastUsedAt` moves at most.
pub const LAST_USED_STEP: Duration = Duration::from_secs(60);

/// A token of the calling account, as `GET /api/tokens` lists it: never
/// its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OwnToken {
    /// Its id (what `DELETE /api/tokens/[id]` takes).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub id: TokenId,
    /// `personal` or `session`.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub kind: TokenKind,
    /// What its owner called it (sessions have none).
    pub label: Option<String>,
    /// When it was issued.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub created_at: Timestamp,
    /// When it stops being accepted, if ever.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub expires_at: Option<Timestamp>,
    /// When it was last used, to the minute; null before its first use.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub last_used_at: Option<Timestamp>,
    /// Whether the request that lists it was made with it (the browser's own
    /// session, so that a person can tell it from the others).
    pub current: bool,
}

/// A personal token just created: [`OwnToken`] and the token itself, shown
/// this once. Its `Debug` hides the secret.
#[derive(Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatedToken {
    /// The token's fields.
    #[serde(flatten)]
    pub info: OwnToken,
    /// The bearer token (`brd_…`), shown only here.
    pub token: String,
}

impl std::fmt::Debug for CreatedToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CreatedToken")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

/// The body of `POST /api/tokens`: `{label, expiresInDays?}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewToken {
    /// What the token is for (a name: 1 to 100 characters).
    pub label: Name,
    /// Days until it expires, 1 to 3650; never without it.
    pub expires_in_days: Option<u32>,
}

impl FromJson for NewToken {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let label = f.required("label", validate::name);
        let days = f.optional("expiresInDays", |v| match v.as_u64() {
            Some(n @ 1..=3650) => Ok(n as u32),
            _ => Err(format!(
                "Expected a whole number of days from 1 to 3650, received {v}"
            )),
        });
        f.finish()?;
        Ok(NewToken {
            label: label.expect("checked"),
            expires_in_days: days,
        })
    }
}

/// When this process last moved each token's `lastUsedAt`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Touched(Arc<Mutex<HashMap<TokenId, Instant>>>);

impl Touched {
    /// True when `token` is due a touch (not touched here for a minute);
    /// marks it touched.
    fn due(&self, token: &TokenId) -> bool {
        let mut seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let fresh = Instant::now();
        if seen.len() > 10_000 {
            seen.retain(|_, at| fresh.duration_since(*at) < LAST_USED_STEP);
        }
        match seen.get(token) {
            Some(at) if fresh.duration_since(*at) < LAST_USED_STEP => false,
            _ => {
                seen.insert(token.clone(), fresh);
                true
            }
        }
    }
}

const OWN_COLUMNS: &str = "id, kind, label, created_at, expires_at, last_used_at";

fn own_token(row: &sqlx::any::AnyRow) -> Result<OwnToken> {
    Ok(OwnToken {
        id: row.try_get("id")?,
        kind: TokenKind::from_db(&row.try_get::<String, _>("kind")?),
        label: row.try_get("label")?,
        created_at: row.try_get("created_at")?,
        expires_at: row.try_get("expires_at")?,
        last_used_at: row.try_get("last_used_at")?,
        current: false,
    })
}

/// An account's own tokens (api.md §23): the operations of `tokens.rs`.
impl Board {
    /// Notes that `token` authenticated a request: at most once a minute per
    /// process, a statement in the background moves its `lastUsedAt` when
    /// that is older than a minute.
    pub(crate) fn note_use(&self, token: &TokenId) {
        if !self.local::<Touched>().due(token) {
            return;
        }
        let (board, token) = (self.clone(), token.clone());
        let at = now();
        let before = Timestamp::from_millis(now_millis() - LAST_USED_STEP.as_millis() as i64);
        tokio::spawn(async move {
            let touch = async {
                // Through the write queue, as every write (SQLite: in turn).
                let mut tx = board.write_unlocked().await?;
                sqlx::query(
                    "UPDATE tokens SET last_used_at = $2 \
                     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3)",
                )
                .bind(&token)
                .bind(at)
                .bind(before)
                .execute(&mut *tx)
                .await?;
                tx.commit().await
            };
            if let Err(e) = touch.await {
                tracing::debug!(error = %e, "lastUsedAt not moved");
            }
        });
    }

    /// The calling account's tokens and sessions that still work (neither
    /// revoked nor expired), newest first.
    pub async fn own_tokens(&self, actor: &Actor) -> Result<Vec<OwnToken>> {
        let account = own_account(actor)?;
        let sql = format!(
            "SELECT {OWN_COLUMNS} FROM tokens WHERE account_id = $1 AND revoked_at IS NULL \
             AND (expires_at IS NULL OR expires_at > $2) ORDER BY created_at DESC, id"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(account)
            .bind(now())
            .fetch_all(&self.pool)
            .await?;
        let used = match actor {
            Actor::Session(session) => Some(session.token()),
            _ => None,
        };
        rows.iter()
            .map(|row| {
                let token = own_token(row)?;
                Ok(OwnToken {
                    current: used == Some(&token.id),
                    ..token
                })
            })
            .collect()
    }

    /// Issues a personal token to the calling account.
    pub async fn create_own_token(
        &self,
        actor: &Actor,
        input: impl Into<Input<NewToken>>,
    ) -> Result<CreatedToken> {
        let account = own_account(actor)?;
        let new = input.into().open()?;
        let lifetime = new
            .expires_in_days
            .map(|d| Duration::from_secs(u64::from(d) * 86_400));
        let mut tx = self.write_unlocked().await?;
        let label = Some(new.label.as_str());
        let issued = issue_token(&mut tx, account, lifetime, TokenKind::Personal, label).await?;
        let sql = format!("SELECT {OWN_COLUMNS} FROM tokens WHERE id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(&issued.id)
            .fetch_one(&mut *tx)
            .await?;
        let info = own_token(&row)?;
        tx.commit().await?;
        Ok(CreatedToken {
            info,
            token: issued.token,
        })
    }

    /// Revokes one of the calling account's tokens or sessions; another
    /// account's, or none, is 404 (the same answer).
    pub async fn revoke_own_token(&self, actor: &Actor, id: &TokenId) -> Result<()> {
        let account = own_account(actor)?;
        let mut tx = self.write_unlocked().await?;
        let done = sqlx::query(
            "UPDATE tokens SET revoked_at = COALESCE(revoked_at, $3) \
             WHERE id = $1 AND account_id = $2",
        )
        .bind(id)
        .bind(account)
        .bind(now())
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Err(Error::NotFound("token"));
        }
        tx.commit().await
    }
}

/// The account behind `actor`; the operator has none (404).
fn own_account(actor: &Actor) -> Result<&AccountId> {
    actor.account().ok_or(Error::NotFound("account"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_touched_once_a_minute_per_process() {
        let touched = Touched::default();
        let id = TokenId::new();
        assert!(touched.due(&id));
        assert!(!touched.due(&id));
        assert!(touched.due(&TokenId::new()));
    }
}
