//! E-mail addresses (api.md §26): an account's address, set by
//! `PATCH /api/me` or by the operator, verified by the code of the link sent
//! to it (`<public URL>/verify#<code>`, 24 hours, once). Only a verified
//! address gets notifications.

use std::time::Duration;

use lettre::message::{header::ContentType, Mailbox, Message};
use serde::Serialize;
use serde_json::Value;
use sqlx::Row;

use crate::board::{Admin, Board};
use crate::error::{Error, Result, Rule, ValidationErrors};
use crate::ids::AccountId;
use crate::store::WriteTx;
use crate::time::{now, now_plus};
use crate::validate::{self, Fields, FromJson, Input};

/// How long a verification link serves (api.md §26: 24 hours).
pub const VERIFY_LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// The longest address accepted, in bytes (RFC 5321's path limit).
pub const MAX_EMAIL_BYTES: usize = 254;

/// A checked e-mail address: `local@domain`, as SMTP carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    /// `text` as an address, or a message saying what is accepted.
    pub fn parse(text: &str) -> std::result::Result<Email, String> {
        let t = text.trim();
        if t.len() > MAX_EMAIL_BYTES {
            return Err(format!(
                "Expected an e-mail address of at most {MAX_EMAIL_BYTES} bytes"
            ));
        }
        match t.parse::<lettre::Address>() {
            Ok(a) if !t.contains(['<', '>', ' ']) => Ok(Email(a.to_string())),
            _ => Err(format!(
                "Expected an e-mail address such as ann@example.org, received {t:?}"
            )),
        }
    }

    /// The address.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key a reset by address finds it by: lower-cased.
    pub(crate) fn key(&self) -> String {
        self.0.to_lowercase()
    }

    /// The address as a recipient.
    pub(crate) fn mailbox(&self) -> Result<Mailbox> {
        self.0
            .parse()
            .map_err(|e| Error::Internal(format!("a checked address did not parse: {e}")))
    }
}

/// The body of `POST /api/email/verify`: the code of the link.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VerifyInput {
    /// The code after `#` in the link.
    pub code: String,
}

impl FromJson for VerifyInput {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let code = f.required("code", validate::string);
        f.finish()?;
        Ok(VerifyInput {
            code: code.unwrap_or_default(),
        })
    }
}

/// What a verification did: the address now verified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Verified {
    /// The address.
    pub email: String,
    /// Always true.
    pub email_verified: bool,
}

/// Sets `account`'s address to `email` in `tx` (none: removes it). An
/// address it has already is left as it is; a new one is unverified unless
/// `verified`. Returns the verification code to send, for a new unverified
/// address.
pub(crate) async fn set_address(
    tx: &mut WriteTx,
    account: &AccountId,
    email: Option<&Email>,
    verified: bool,
) -> Result<Option<String>> {
    let at = now();
    let Some(email) = email else {
        sqlx::query(
            "UPDATE accounts SET email = NULL, email_key = NULL, email_verified_at = NULL \
             WHERE id = $1",
        )
        .bind(account)
        .execute(&mut **tx)
        .await?;
        sqlx::query("DELETE FROM email_verifications WHERE account_id = $1")
            .bind(account)
            .execute(&mut **tx)
            .await?;
        return Ok(None);
    };
    // The same address again changes nothing (and sends nothing) unless it
    // is now set verified.
    let verified_at = verified.then(|| at.clone());
    let changed = sqlx::query(
        "UPDATE accounts SET email = $2, email_key = $3, \
             email_verified_at = COALESCE($4, CASE WHEN email = $2 THEN email_verified_at END) \
         WHERE id = $1 AND (email IS NULL OR email <> $2 OR ($4 IS NOT NULL AND email_verified_at IS NULL))",
    )
    .bind(account)
    .bind(email.as_str())
    .bind(email.key())
    .bind(verified_at.as_ref())
    .execute(&mut **tx)
    .await?;
    if changed.rows_affected() == 0 || verified {
        return Ok(None);
    }
    let (code, hash) = crate::access::new_code()?;
    sqlx::query(
        "INSERT INTO email_verifications (id, account_id, email, code_hash, created_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(cuid2::create_id())
    .bind(account)
    .bind(email.as_str())
    .bind(hash)
    .bind(&at)
    .bind(now_plus(VERIFY_LIFETIME.as_secs() as i64))
    .execute(&mut **tx)
    .await?;
    Ok(Some(code))
}

/// E-mail addresses (api.md §26): the operations of `mail/address.rs`.
impl Board {
    /// Verifies the address a code was sent to (`POST /api/email/verify`, no
    /// credential: the code is one). An unknown, used or expired code, or one
    /// for an address the account no longer has, is 404 `NOT_FOUND`.
    pub async fn verify_email(&self, input: impl Into<Input<VerifyInput>>) -> Result<Verified> {
        let input = input.into().open()?;
        let hash = crate::access::code_hash(&input.code);
        let at = now();
        let mut tx = self.write_unlocked().await?;
        let row = sqlx::query(
            "UPDATE email_verifications SET used_at = $2 \
             WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2 \
             RETURNING account_id, email",
        )
        .bind(&hash)
        .bind(&at)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(Error::NotFound("verification code"))?;
        let account: String = row.try_get("account_id")?;
        let email: String = row.try_get("email")?;
        let done = sqlx::query(
            "UPDATE accounts SET email_verified_at = COALESCE(email_verified_at, $3) \
             WHERE id = $1 AND email = $2",
        )
        .bind(&account)
        .bind(&email)
        .bind(&at)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Err(Error::NotFound("verification code"));
        }
        tx.commit().await?;
        tracing::info!(account = %account, "e-mail address verified");
        Ok(Verified {
            email,
            email_verified: true,
        })
    }

    /// Sends the verification link of `code` to `email` (after the commit
    /// that stored it), in the background; the outcome is logged.
    pub(crate) fn send_verification(&self, email: &Email, code: &str) -> Result<()> {
        let link = format!("{}/verify#{code}", self.public_url()?);
        let text = format!(
            "Someone (we hope you) gave this address to board.\n\n\
             To receive board's e-mail here, open this link within 24 hours:\n\n{link}\n\n\
             If it was not you, ignore this message: nothing will be sent.\n"
        );
        self.send_link(
            email,
            "board: verify your e-mail address",
            &text,
            "verification",
        )
    }

    /// Sends a plain-text message of the board (a link: verification,
    /// invitation, reset) to `email` in the background; `what` names it in
    /// the log.
    pub(crate) fn send_link(
        &self,
        email: &Email,
        subject: &str,
        text: &str,
        what: &'static str,
    ) -> Result<()> {
        let message = self
            .message_to(email)?
            .subject(subject)
            .header(ContentType::TEXT_PLAIN)
            .body(text.to_string())
            .map_err(|e| Error::Internal(format!("building a message: {e}")))?;
        self.send_in_background(email.as_str().to_string(), what, message);
        Ok(())
    }

    /// A message from the board to `email`, to be given its subject and body.
    pub(crate) fn message_to(&self, email: &Email) -> Result<lettre::message::MessageBuilder> {
        Ok(Message::builder()
            .from(self.mailer()?.from().clone())
            .to(email.mailbox()?))
    }

    /// The start of the links the board sends: `--public-url`.
    pub(crate) fn public_url(&self) -> Result<&str> {
        self.public_url
            .as_deref()
            .map(|u| u.trim_end_matches('/'))
            .ok_or_else(|| {
                Error::Config(
                    "links sent by e-mail need --public-url (BOARD_PUBLIC_URL), the URL \
                     people reach the board at"
                        .into(),
                )
            })
    }

    /// Sends `message` to `to` in a task of its own and logs the outcome at
    /// info (recipient, what it was, result, the SMTP reply; never the body).
    pub(crate) fn send_in_background(&self, to: String, what: &'static str, message: Message) {
        let Ok(mailer) = self.mailer() else { return };
        let mailer = mailer.clone();
        let shown = to.clone();
        let task = async move {
            match mailer.send(message).await {
                Ok(reply) => {
                    tracing::info!(recipient = %to, kind = what, result = "sent", reply = %reply.0, "mail")
                }
                Err(e) => {
                    tracing::warn!(recipient = %to, kind = what, result = "not sent", reply = %e.reason, "mail")
                }
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn(task);
            }
            Err(_) => tracing::warn!(recipient = %shown, kind = what, "mail not sent: no runtime"),
        }
    }
}

/// E-mail addresses (api.md §26), the operator's side.
impl Admin<'_> {
    /// Gives `account` the address `email` (`board account email`): a new
    /// address is sent its verification link, unless `verified` says it is
    /// verified already. Without mail, only `verified` is accepted (422
    /// `MAIL_DISABLED`).
    pub async fn set_email(&self, account: &AccountId, email: &str, verified: bool) -> Result<()> {
        let email = Email::parse(email).map_err(|m| ValidationErrors::one("email", m))?;
        if !verified {
            self.board.mailer()?;
            self.board.public_url()?;
        }
        let mut tx = self.board.write_unlocked().await?;
        let exists: Option<String> = sqlx::query_scalar("SELECT id FROM accounts WHERE id = $1")
            .bind(account)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Err(Error::NotFound("account"));
        }
        let code = set_address(&mut tx, account, Some(&email), verified).await?;
        tx.commit().await?;
        if let Some(code) = code {
            self.board.send_verification(&email, &code)?;
        }
        Ok(())
    }
}

/// 422 `MAIL_DISABLED`, for an address given while the board sends no mail.
pub(crate) fn mail_disabled() -> Error {
    Error::rule(
        Rule::MailDisabled,
        "this server sends no e-mail (it has no SMTP server set up), so it keeps no \
         address: leave email out",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_checked() {
        assert_eq!(
            Email::parse(" ann@example.org ").unwrap().as_str(),
            "ann@example.org"
        );
        assert_eq!(
            Email::parse("Ann@Example.org").unwrap().key(),
            "ann@example.org"
        );
        for bad in [
            "",
            "ann",
            "ann@",
            "@example.org",
            "Ann <ann@example.org>",
            "a b@c.org",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad}");
        }
        assert!(Email::parse(&format!("{}@example.org", "a".repeat(250))).is_err());
    }
}
