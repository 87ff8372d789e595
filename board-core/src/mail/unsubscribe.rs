//! Unsubscribing (api.md §26, RFC 8058): every batch message carries
//! `List-Unsubscribe: <…/api/mail/unsubscribe?token=T>` and
//! `List-Unsubscribe-Post: List-Unsubscribe=One-Click`. The token names the
//! batch, so the account and the kinds that message told of; its hash is
//! kept with the batch. A `POST` (no credential: the token is one) turns
//! those kinds off for e-mail; a `GET` only shows what a `POST` would do
//! (mail scanners follow links).

use serde::Serialize;
use sqlx::Row;

use super::prefs::KINDS;
use crate::board::{Admin, Board};
use crate::error::{Error, Result};
use crate::mail::log::MailLogEntry;

/// What an unsubscribe token stands for, or did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Unsubscribe {
    /// The kinds of notification it turns off for e-mail.
    pub kinds: Vec<String>,
    /// Whether they are off now (after a `POST`).
    pub done: bool,
}

/// The account and kinds of `token`'s batch; 404 when no batch has it.
async fn find(board: &Board, token: &str) -> Result<(String, Vec<String>)> {
    let hash = crate::access::code_hash(token);
    let row = sqlx::query("SELECT account_id, kinds FROM mail_batches WHERE unsubscribe_hash = $1")
        .bind(hash)
        .fetch_optional(&board.pool)
        .await?
        .ok_or(Error::NotFound("unsubscribe link"))?;
    let kinds: Option<String> = row.try_get("kinds")?;
    let kinds = kinds
        .unwrap_or_default()
        .split(',')
        .filter(|k| KINDS.contains(k))
        .map(str::to_string)
        .collect();
    Ok((row.try_get("account_id")?, kinds))
}

/// Unsubscribing (api.md §26): the operations of `mail/unsubscribe.rs`.
impl Board {
    /// What `token` would turn off (`GET`): changes nothing.
    pub async fn unsubscribe_preview(&self, token: &str) -> Result<Unsubscribe> {
        let (_, kinds) = find(self, token).await?;
        Ok(Unsubscribe { kinds, done: false })
    }

    /// Turns off, for e-mail, the kinds of `token`'s message (`POST`).
    pub async fn unsubscribe(&self, token: &str) -> Result<Unsubscribe> {
        let (account, kinds) = find(self, token).await?;
        if !kinds.is_empty() {
            let sets: Vec<String> = kinds.iter().map(|k| format!("{k} = 0")).collect();
            let values: Vec<String> = KINDS
                .iter()
                .map(|k| {
                    let on = !kinds.iter().any(|x| x == k)
                        && matches!(*k, "assigned" | "mentioned" | "due_soon");
                    if on { "1" } else { "0" }.to_string()
                })
                .collect();
            let sql = format!(
                "INSERT INTO mail_preferences (account_id, {}) VALUES ($1, {}) \
                 ON CONFLICT (account_id) DO UPDATE SET {}",
                KINDS.join(", "),
                values.join(", "),
                sets.join(", ")
            );
            let mut tx = self.write_unlocked().await?;
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(&account)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            tracing::info!(account = %account, kinds = %kinds.join(","), "unsubscribed from e-mail");
        }
        Ok(Unsubscribe { kinds, done: true })
    }
}

/// The recent batches, for `board mail log` (re-exported here for the CLI).
impl Admin<'_> {
    /// The most recent `limit` batches (newest first); with `failed`, only
    /// those given up after 24 hours.
    pub async fn mail_log(&self, failed: bool, limit: u32) -> Result<Vec<MailLogEntry>> {
        crate::mail::log::read(self.board, failed, limit).await
    }
}
