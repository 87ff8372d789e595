//! What e-mail leaves behind, removed by the server's hourly sweep: codes
//! that can no longer serve (verification links and password resets a day
//! after they expired) and finished batches after a year, so that a
//! message's unsubscribe link serves that long (`docs/decisions.md`, "What
//! e-mail keeps").

use serde::Serialize;

use crate::board::Admin;
use crate::error::Result;
use crate::time::now_plus;

/// How long a finished batch (`sent`, `skipped`, `failed`) is kept: its
/// unsubscribe link works that long, and `board mail log` shows it.
pub const BATCHES_KEPT_FOR: std::time::Duration = std::time::Duration::from_secs(365 * 24 * 3600);

/// How long after it expired a code's row stays (a margin: an expired
/// code serves nothing).
const CODES_KEPT_AFTER_EXPIRY_S: i64 = 24 * 3600;

/// What a pruning removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MailPruned {
    /// Finished batches older than [`BATCHES_KEPT_FOR`].
    pub batches: u64,
    /// Address verification codes expired for a day.
    pub verifications: u64,
    /// Password reset codes expired for a day.
    pub resets: u64,
}

impl Admin<'_> {
    /// Removes finished batches older than [`BATCHES_KEPT_FOR`] and the
    /// verification and reset codes expired for a day, in one transaction.
    pub async fn prune_mail(&self) -> Result<MailPruned> {
        let kept = i64::try_from(BATCHES_KEPT_FOR.as_secs()).unwrap_or(i64::MAX);
        let codes = now_plus(-CODES_KEPT_AFTER_EXPIRY_S);
        let mut tx = self.board.write_unlocked().await?;
        let batches = sqlx::query(
            "DELETE FROM mail_batches WHERE state IN ('sent', 'skipped', 'failed') \
             AND finished_at < $1",
        )
        .bind(now_plus(-kept))
        .execute(&mut *tx)
        .await?
        .rows_affected();
        let verifications = sqlx::query("DELETE FROM email_verifications WHERE expires_at < $1")
            .bind(&codes)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        let resets = sqlx::query("DELETE FROM password_resets WHERE expires_at < $1")
            .bind(&codes)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(MailPruned {
            batches,
            verifications,
            resets,
        })
    }
}
