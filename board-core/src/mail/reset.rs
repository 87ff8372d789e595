//! A forgotten password (api.md §26, with §23's reset): `POST
//! /api/password-reset/request {name}` (the account's name or its verified
//! address) always answers `{requested: true}`, the same body after the same
//! time whether or not such an account exists; an account with a verified
//! address is sent a reset link that serves once within an hour. Every
//! request counts against the client address's sign-in budget (§23: 50 in
//! 15 minutes).

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use sqlx::Row;

use super::address::Email;
use crate::board::Board;
use crate::error::Result;
use crate::names::name_key;
use crate::time::{now, now_plus};
use crate::validate::{self, Fields, FromJson, Input};

/// How long a reset link sent by e-mail serves (1 hour).
pub const MAILED_RESET_LIFETIME: Duration = Duration::from_secs(3600);

/// The least time a request takes, found or not: the answer's time tells
/// nothing of the account.
const EVEN_TIME: Duration = Duration::from_millis(400);

/// The body of `POST /api/password-reset/request`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ResetRequest {
    /// The account's name, or its verified e-mail address.
    pub name: String,
}

impl FromJson for ResetRequest {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let name = f.required("name", validate::string);
        f.finish()?;
        Ok(ResetRequest {
            name: name.unwrap_or_default(),
        })
    }
}

/// The one answer of a reset request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ResetRequested {
    /// Always true.
    pub requested: bool,
}

/// Forgotten passwords (api.md §26): the operations of `mail/reset.rs`.
impl Board {
    /// Sends a reset link to the verified address of the account `name`
    /// names (by name or address), if there is one; counts against the
    /// sign-in budget of `address`. Without mail: 422 `MAIL_DISABLED`.
    pub async fn request_password_reset(
        &self,
        input: impl Into<Input<ResetRequest>>,
        address: &str,
    ) -> Result<ResetRequested> {
        let started = tokio::time::Instant::now();
        let input = input.into().open()?;
        if !self.mail_on() {
            return Err(super::address::mail_disabled());
        }
        let reserved = self.reserve_attempt(address, "").await?;
        self.settle_attempt(&reserved, true).await?;
        let given = input.name.trim();
        let (code, hash) = crate::access::new_code()?;
        let mut tx = self.write_unlocked().await?;
        let row = sqlx::query(
            "INSERT INTO password_resets (id, account_id, code_hash, created_at, expires_at) \
             SELECT $1, id, $4, $5, $6 FROM accounts \
             WHERE (name_key = $2 OR email_key = $3) AND email_verified_at IS NOT NULL \
             RETURNING account_id",
        )
        .bind(cuid2::create_id())
        .bind(name_key(given))
        .bind(given.to_lowercase())
        .bind(&hash)
        .bind(now())
        .bind(now_plus(MAILED_RESET_LIFETIME.as_secs() as i64))
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        if let Some(row) = row {
            let account: String = row.try_get("account_id")?;
            let email: Option<String> =
                sqlx::query_scalar("SELECT email FROM accounts WHERE id = $1")
                    .bind(&account)
                    .fetch_one(&self.pool)
                    .await?;
            if let Some(Ok(email)) = email.as_deref().map(Email::parse) {
                let link = format!("{}/reset#{code}", self.public_url()?);
                let text = format!(
                    "Someone (we hope you) asked to set a new password for your board \
                     account.\n\nTo choose one, open this link within an hour:\n\n{link}\n\n\
                     If it was not you, ignore this message: your password stays as it is.\n"
                );
                self.send_link(&email, "board: set a new password", &text, "password reset")?;
            }
        }
        tokio::time::sleep_until(started + EVEN_TIME).await;
        Ok(ResetRequested { requested: true })
    }
}
