//! `board mail log`: the recent batches and their outcome (api.md §26).

use serde::Serialize;
use sqlx::Row;

use crate::board::Board;
use crate::error::Result;

/// One batch as the log shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MailLogEntry {
    /// The batch (its message's `Message-ID` is `<id@domain of --mail-from>`).
    pub id: String,
    /// The account's name.
    pub account: String,
    /// The workspace's name.
    pub workspace: String,
    /// `open`, `sending`, `retry`, `sent`, `skipped` or `failed`.
    pub state: String,
    /// The address it went to (once decided).
    pub recipient: Option<String>,
    /// The kinds it told of, comma-separated.
    pub kinds: Option<String>,
    /// How many tries.
    pub attempts: i64,
    /// The SMTP server's last reply, or the last error.
    pub reply: Option<String>,
    /// When it was opened.
    pub opened_at: String,
    /// When it ended (sent, skipped, failed).
    pub finished_at: Option<String>,
}

/// The most recent `limit` batches, newest first (`failed`: the failed ones).
pub(crate) async fn read(board: &Board, failed: bool, limit: u32) -> Result<Vec<MailLogEntry>> {
    let filter = if failed {
        "WHERE b.state = 'failed'"
    } else {
        ""
    };
    let sql = format!(
        "SELECT b.id, a.name AS account, w.name AS workspace, b.state, b.recipient, b.kinds, \
             b.attempts, b.reply, b.opened_at, b.finished_at \
         FROM mail_batches b JOIN accounts a ON a.id = b.account_id \
         JOIN workspaces w ON w.id = b.workspace_id {filter} \
         ORDER BY b.opened_at DESC, b.id DESC LIMIT $1"
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(i64::from(limit))
        .fetch_all(&board.pool)
        .await?;
    rows.iter()
        .map(|r| {
            Ok(MailLogEntry {
                id: r.try_get("id")?,
                account: r.try_get("account")?,
                workspace: r.try_get("workspace")?,
                state: r.try_get("state")?,
                recipient: r.try_get("recipient")?,
                kinds: r.try_get("kinds")?,
                attempts: r.try_get("attempts")?,
                reply: r.try_get("reply")?,
                opened_at: r.try_get("opened_at")?,
                finished_at: r.try_get("finished_at")?,
            })
        })
        .collect()
}
