//! An account's identities at the OpenID provider (api.md §27): listed on
//! "who am I" and the CLI, and unlinked, unless that would leave the account
//! no way to sign in (`LAST_SIGN_IN_METHOD`).

use serde::Serialize;
use sqlx::Row;

use crate::access::Actor;
use crate::board::{Admin, Board};
use crate::error::{Error, Result, Rule};
use crate::ids::AccountId;
use crate::time::Timestamp;

/// One identity linked to an account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Identity {
    /// Its id.
    pub id: String,
    /// The provider's issuer.
    pub issuer: String,
    /// The subject the provider names the person by.
    pub subject: String,
    /// The e-mail address the provider gave when it was linked.
    pub email: Option<String>,
    /// When it was linked.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub linked_at: Timestamp,
}

/// The identities of `account`, oldest first.
pub(crate) async fn identities_of(
    conn: impl sqlx::Executor<'_, Database = sqlx::Any>,
    account: &AccountId,
) -> Result<Vec<Identity>> {
    let rows = sqlx::query(
        "SELECT id, issuer, subject, email, linked_at FROM identities WHERE account_id = $1 \
         ORDER BY linked_at, id",
    )
    .bind(account)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(Identity {
                id: r.try_get("id")?,
                issuer: r.try_get("issuer")?,
                subject: r.try_get("subject")?,
                email: r.try_get("email")?,
                linked_at: r.try_get("linked_at")?,
            })
        })
        .collect()
}

/// Single sign-on's identities (api.md §27): the operations of `sso/identities.rs`.
impl Board {
    /// The calling account's identities (the operator has none: 404).
    pub async fn identities(&self, actor: &Actor) -> Result<Vec<Identity>> {
        let account = actor.account().ok_or(Error::NotFound("account"))?;
        identities_of(&self.pool, account).await
    }

    /// Unlinks one of the calling account's identities (another account's
    /// or an unknown id: 404); 422 `LAST_SIGN_IN_METHOD` when the account
    /// has no password and no other identity. The account's row is locked
    /// before the count that decides, so two unlinks racing cannot leave it
    /// without any way in.
    pub async fn unlink_identity(&self, actor: &Actor, id: &str) -> Result<()> {
        let account = actor.account().ok_or(Error::NotFound("account"))?;
        unlink(self, account, id).await
    }
}

/// Single sign-on's identities (api.md §27) (the operator's side): the operations of `sso/identities.rs`.
impl Admin<'_> {
    /// The identities of `account`.
    pub async fn identities(&self, account: &AccountId) -> Result<Vec<Identity>> {
        identities_of(&self.board.pool, account).await
    }

    /// Unlinks the identity `id` (its id, or its subject) of `account`, as
    /// [`Board::unlink_identity`] does.
    pub async fn unlink_identity(&self, account: &AccountId, id: &str) -> Result<()> {
        unlink(self.board, account, id).await
    }
}

async fn unlink(board: &Board, account: &AccountId, id: &str) -> Result<()> {
    let mut tx = board.write_unlocked().await?;
    // A write to the account's row locks it (PostgreSQL; SQLite's write
    // transaction holds the one lock already).
    let locked = sqlx::query("UPDATE accounts SET name = name WHERE id = $1")
        .bind(account)
        .execute(&mut *tx)
        .await?;
    if locked.rows_affected() == 0 {
        return Err(Error::NotFound("account"));
    }
    let row = sqlx::query(
        "SELECT i.id, (SELECT COUNT(*) FROM identities o WHERE o.account_id = $1) AS n, \
                CASE WHEN a.password_hash IS NULL THEN 0 ELSE 1 END AS has_password \
         FROM identities i JOIN accounts a ON a.id = i.account_id \
         WHERE i.account_id = $1 AND (i.id = $2 OR i.subject = $2) ORDER BY i.id LIMIT 1",
    )
    .bind(account)
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or(Error::NotFound("identity"))?;
    let (n, has_password): (i64, i64) = (row.try_get("n")?, row.try_get("has_password")?);
    if n <= 1 && has_password == 0 {
        return Err(Error::rule(
            Rule::LastSignInMethod,
            "this is the account's last way to sign in (it has no password and no other \
             identity): set a password or link another identity first",
        ));
    }
    let found: String = row.try_get("id")?;
    sqlx::query("DELETE FROM identities WHERE id = $1")
        .bind(found)
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}
