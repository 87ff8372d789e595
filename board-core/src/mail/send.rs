//! Sending the notification batches (api.md §26). A notification to an
//! account with a verified address opens a batch of its workspace in the
//! change's own transaction (migration 0024's trigger: no statement more),
//! due `batchMinutes` later. Each server's worker ([`Board::send_mail`])
//! claims due batches: one conditional `UPDATE` per pass, over a sub-select
//! that PostgreSQL takes `FOR UPDATE SKIP LOCKED` (SQLite's one write lock
//! serialises the claims), so each batch has one holder, until
//! `claimed_until`: a server killed mid-send lets it go to another, which
//! may send it twice, never zero times. Every later write of the holder
//! carries the holder's condition.
//!
//! What to send is decided at send time: a verified address, the kinds the
//! account wants now, the notifications still unread of a workspace it still
//! reaches; nothing left, nothing sent (`skipped`). A refusal or a server
//! out of reach is tried again 15 s later, then twice as long each time (at
//! most 30 minutes apart), for 24 hours; then the batch is `failed`.

use std::time::Duration;

use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::MultiPart;
use sqlx::Row;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::address::Email;
use super::prefs::{self, MailPreferences};
use crate::board::{Admin, Board};
use crate::error::{Error, Result};
use crate::time::{now, now_plus};

/// The first retry's delay; each next one doubles, up to [`MAX_RETRY_DELAY`].
pub const FIRST_RETRY: Duration = Duration::from_secs(15);
/// The longest wait between two tries.
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(30 * 60);
/// How many batches one claim takes: a server sends them side by side,
/// then claims again at once while the claims come back full.
const CLAIM_AT_ONCE: usize = 16;
/// How long a batch is tried before it is marked failed.
pub const GIVE_UP_AFTER: Duration = Duration::from_secs(24 * 3600);

/// How a server's mail worker runs.
#[derive(Debug, Clone, Copy)]
pub struct MailSettings {
    /// How often it looks for due batches (a batch of `batchMinutes` 0 goes
    /// out within this, and the 10 s of api.md §26).
    pub scan: Duration,
    /// How long a claim holds a batch: a server gone longer lets it go.
    pub lease: Duration,
}

impl Default for MailSettings {
    fn default() -> Self {
        MailSettings {
            scan: Duration::from_secs(2),
            lease: Duration::from_secs(120),
        }
    }
}

/// A server's mail worker; [`MailWorker::stop`] ends it.
pub struct MailWorker {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl MailWorker {
    /// Stops sending (a send in flight is dropped: its batch's claim lapses
    /// and it is sent again).
    pub async fn stop(self) {
        self.stop.send(true).ok();
        self.task.await.ok();
    }
}

/// A batch this server holds.
#[derive(Debug)]
struct Claimed {
    id: String,
    account: String,
    workspace: String,
    attempts: i64,
    first_tried_at: Option<String>,
    claimed_until: String,
}

/// One item of a message.
#[derive(Debug)]
struct Item {
    id: String,
    kind: String,
    card: String,
    title: String,
    actor: Option<String>,
    excerpt: Option<String>,
}

/// What became of one batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The SMTP server took it; its reply.
    Sent(String),
    /// Nothing was left to tell (read meanwhile, unwanted, no verified address).
    Skipped,
    /// Not sent; tried again later.
    Retry(String),
    /// Not sent for 24 hours: given up.
    Failed(String),
}

/// E-mail batches (api.md §26): the operations of `mail/send.rs`.
impl Board {
    /// Starts this server's mail worker (none without mail: `None`).
    pub fn send_mail(&self, settings: MailSettings) -> Option<MailWorker> {
        if !self.mail_on() {
            return None;
        }
        let (stop, mut stopped) = watch::channel(false);
        let board = self.clone();
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(settings.scan);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut passes: u64 = 0;
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = stopped.changed() => return,
                }
                // Notifications whose batch was claimed while they were
                // being written get one of their own (PostgreSQL: a claim
                // does not see rows not yet committed); every 15 passes.
                if passes.is_multiple_of(15) {
                    if let Err(e) = board.admin().open_missed_batches().await {
                        tracing::warn!(error = %e, "opening mail batches failed");
                    }
                }
                passes += 1;
                // A full claim may leave more due: claim again at once.
                loop {
                    match board.admin().send_due_mail(settings.lease).await {
                        Ok(done) if done.len() == CLAIM_AT_ONCE => {}
                        Ok(_) => break,
                        Err(e) => {
                            tracing::warn!(error = %e, "sending mail failed");
                            break;
                        }
                    }
                    if *stopped.borrow() {
                        return;
                    }
                }
            }
        });
        Some(MailWorker { stop, task })
    }
}

/// E-mail batches (api.md §26), the operator's side.
impl Admin<'_> {
    /// Claims the batches due now (and those whose holder's claim lapsed)
    /// and sends each; returns what became of them.
    pub async fn send_due_mail(&self, lease: Duration) -> Result<Vec<Outcome>> {
        let board = self.board;
        let mailer = board.mailer()?.clone();
        // The batches of one claim go out side by side: each waits mostly
        // on the SMTP server, and one slow conversation holds up no other.
        let claimed = self.claim(lease).await?;
        let sends = claimed.iter().map(|batch| self.send_batch(&mailer, batch));
        futures_util::future::join_all(sends)
            .await
            .into_iter()
            .collect()
    }

    /// Claims up to [`CLAIM_AT_ONCE`] due batches for `lease`, binding a batch's
    /// notifications when it is first claimed, in one transaction.
    async fn claim(&self, lease: Duration) -> Result<Vec<Claimed>> {
        let at = now();
        let until = now_plus(lease.as_secs() as i64);
        let due = "((state IN ('open', 'retry') AND due_at <= $1) \
                   OR (state = 'sending' AND claimed_until <= $1))";
        let sql = format!(
            "UPDATE mail_batches SET state = 'sending', claimed_until = $2, \
                 attempts = attempts + 1, first_tried_at = COALESCE(first_tried_at, $1) \
             WHERE id IN (SELECT id FROM mail_batches WHERE {due} ORDER BY due_at LIMIT {CLAIM_AT_ONCE}{skip}) \
                 AND {due} \
             RETURNING id, account_id, workspace_id, opened_at, attempts, first_tried_at",
            skip = self.board.backend.skip_locked_sql(),
        );
        let mut tx = self.board.write_unlocked().await?;
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(&at)
            .bind(&until)
            .fetch_all(&mut *tx)
            .await?;
        let mut claimed = Vec::with_capacity(rows.len());
        for row in &rows {
            let batch = Claimed {
                id: row.try_get("id")?,
                account: row.try_get("account_id")?,
                workspace: row.try_get("workspace_id")?,
                attempts: row.try_get("attempts")?,
                first_tried_at: row.try_get("first_tried_at")?,
                claimed_until: until.to_string(),
            };
            if batch.attempts == 1 {
                let opened: String = row.try_get("opened_at")?;
                sqlx::query(
                    "UPDATE notifications SET mail_batch_id = $1 WHERE account_id = $2 \
                     AND workspace_id = $3 AND mail_batch_id IS NULL AND created_at >= $4",
                )
                .bind(&batch.id)
                .bind(&batch.account)
                .bind(&batch.workspace)
                .bind(&opened)
                .execute(&mut *tx)
                .await?;
            }
            claimed.push(batch);
        }
        tx.commit().await?;
        Ok(claimed)
    }

    /// Opens a batch for the notifications of the last hour that have none,
    /// of accounts with a verified address and no open batch there.
    pub async fn open_missed_batches(&self) -> Result<u64> {
        let backend = self.board.backend;
        let sql = format!(
            "INSERT INTO mail_batches (id, account_id, workspace_id, state, opened_at, due_at) \
             SELECT {id}, n.account_id, n.workspace_id, 'open', MIN(n.created_at), $2 \
             FROM notifications n JOIN accounts a ON a.id = n.account_id \
             WHERE n.mail_batch_id IS NULL AND n.created_at > $1 AND n.created_at < $2 \
                 AND a.email_verified_at IS NOT NULL \
                 AND NOT EXISTS (SELECT 1 FROM mail_batches b WHERE b.account_id = n.account_id \
                     AND b.workspace_id = n.workspace_id AND b.state = 'open') \
             GROUP BY n.account_id, n.workspace_id \
             ON CONFLICT DO NOTHING",
            id = backend.new_id_sql(),
        );
        let mut tx = self.board.write_unlocked().await?;
        let done = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(now_plus(-3600))
            .bind(now_plus(-30))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }

    /// Decides and sends one claimed batch, then records the outcome under
    /// the claim.
    async fn send_batch(&self, mailer: &super::Mailer, batch: &Claimed) -> Result<Outcome> {
        let board = self.board;
        let head = sqlx::query(
            "SELECT a.email, a.email_verified_at, w.name AS workspace, \
                 p.assigned, p.mentioned, p.commented, p.moved, p.due_soon, p.batch_minutes \
             FROM accounts a JOIN workspaces w ON w.id = $2 \
             LEFT JOIN mail_preferences p ON p.account_id = a.id WHERE a.id = $1",
        )
        .bind(&batch.account)
        .bind(&batch.workspace)
        .fetch_optional(&board.pool)
        .await?;
        let Some(head) = head else {
            return self.finish(batch, "skipped", None, None, None).await;
        };
        let email: Option<String> = head.try_get("email")?;
        let verified: Option<String> = head.try_get("email_verified_at")?;
        let workspace: String = head.try_get("workspace")?;
        let wants = match head.try_get::<Option<i64>, _>("batch_minutes")? {
            Some(_) => prefs::from_row(&head)?,
            None => MailPreferences::default(),
        };
        let (Some(email), Some(_)) = (email, verified) else {
            return self.finish(batch, "skipped", None, None, None).await;
        };
        let rows = sqlx::query(
            "SELECT n.id, n.kind, n.excerpt, k.id AS card_id, k.title, x.name AS actor \
             FROM notifications n JOIN cards k ON k.id = n.card_id \
             LEFT JOIN accounts x ON x.id = n.actor_id \
             WHERE n.mail_batch_id = $1 AND n.read_at IS NULL AND EXISTS (SELECT 1 FROM memberships m \
                 WHERE m.workspace_id = n.workspace_id AND m.account_id = n.account_id) \
             ORDER BY n.created_at, n.id",
        )
        .bind(&batch.id)
        .fetch_all(&board.pool)
        .await?;
        let mut items = Vec::new();
        for row in &rows {
            let kind: String = row.try_get("kind")?;
            if !wants.email.wants(&kind) {
                continue;
            }
            items.push(Item {
                id: row.try_get("id")?,
                kind,
                card: row.try_get("card_id")?,
                title: row.try_get("title")?,
                actor: row.try_get("actor")?,
                excerpt: row.try_get("excerpt")?,
            });
        }
        if items.is_empty() {
            return self
                .finish(batch, "skipped", Some(&email), None, None)
                .await;
        }
        let mut kinds: Vec<&str> = prefs::KINDS
            .into_iter()
            .filter(|k| items.iter().any(|i| i.kind == *k))
            .collect();
        kinds.dedup();
        let kinds = kinds.join(",");
        let (token, token_hash) = crate::access::new_code()?;
        // The token is stored before the message goes: an unsubscribe from
        // it always finds its batch.
        let held = sqlx::query(
            "UPDATE mail_batches SET unsubscribe_hash = COALESCE(unsubscribe_hash, $3), \
                 kinds = $4, recipient = $5 \
             WHERE id = $1 AND state = 'sending' AND claimed_until = $2 RETURNING unsubscribe_hash",
        )
        .bind(&batch.id)
        .bind(&batch.claimed_until)
        .bind(&token_hash)
        .bind(&kinds)
        .bind(&email)
        .fetch_optional(&board.pool)
        .await?;
        let Some(held) = held else {
            return Ok(Outcome::Skipped); // the claim lapsed: another server has it
        };
        let stored: String = held.try_get("unsubscribe_hash")?;
        if stored != token_hash {
            // A retry: the first try's token was sent; a new one replaces it.
            sqlx::query("UPDATE mail_batches SET unsubscribe_hash = $2 WHERE id = $1")
                .bind(&batch.id)
                .bind(&token_hash)
                .execute(&board.pool)
                .await?;
        }
        let to = Email::parse(&email).map_err(Error::Internal)?;
        let message = self.compose(mailer, batch, &to, &workspace, &items, &token)?;
        let result = mailer.send(message).await;
        match result {
            Ok(reply) => {
                tracing::info!(recipient = %email, kinds = %kinds, result = "sent", reply = %reply.0, batch = %batch.id, "mail");
                let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
                let mut tx = board.write_unlocked().await?;
                let list = crate::store::placeholders(2, ids.len());
                let sql = format!("UPDATE notifications SET mailed_at = $1 WHERE id IN ({list})");
                let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(now());
                for id in &ids {
                    q = q.bind(*id);
                }
                q.execute(&mut *tx).await?;
                tx.commit().await?;
                self.finish(batch, "sent", Some(&email), Some(&kinds), Some(&reply.0))
                    .await?;
                Ok(Outcome::Sent(reply.0))
            }
            Err(e) => {
                let first = batch
                    .first_tried_at
                    .clone()
                    .unwrap_or_else(|| now().to_string());
                let given_up =
                    first.as_str() <= now_plus(-(GIVE_UP_AFTER.as_secs() as i64)).as_str();
                let result = if given_up { "failed" } else { "retry" };
                tracing::info!(recipient = %email, kinds = %kinds, result, reply = %e.reason, batch = %batch.id, attempts = batch.attempts, "mail");
                if given_up {
                    self.finish(batch, "failed", Some(&email), Some(&kinds), Some(&e.reason))
                        .await?;
                    Ok(Outcome::Failed(e.reason))
                } else {
                    let shift = (batch.attempts - 1).clamp(0, 16) as u32;
                    let delay = (FIRST_RETRY * 2u32.pow(shift)).min(MAX_RETRY_DELAY);
                    sqlx::query(
                        "UPDATE mail_batches SET state = 'retry', due_at = $3, claimed_until = NULL, \
                             reply = $4 WHERE id = $1 AND state = 'sending' AND claimed_until = $2",
                    )
                    .bind(&batch.id)
                    .bind(&batch.claimed_until)
                    .bind(now_plus(delay.as_secs() as i64))
                    .bind(&e.reason)
                    .execute(&board.pool)
                    .await?;
                    Ok(Outcome::Retry(e.reason))
                }
            }
        }
    }

    /// Records a batch's end (`sent`, `skipped`, `failed`) under its claim.
    async fn finish(
        &self,
        batch: &Claimed,
        state: &str,
        recipient: Option<&str>,
        kinds: Option<&str>,
        reply: Option<&str>,
    ) -> Result<Outcome> {
        sqlx::query(
            "UPDATE mail_batches SET state = $3, finished_at = $4, claimed_until = NULL, \
                 recipient = COALESCE($5, recipient), kinds = COALESCE($6, kinds), reply = $7 \
             WHERE id = $1 AND state = 'sending' AND claimed_until = $2",
        )
        .bind(&batch.id)
        .bind(&batch.claimed_until)
        .bind(state)
        .bind(now())
        .bind(recipient)
        .bind(kinds)
        .bind(reply)
        .execute(&self.board.pool)
        .await?;
        if state == "skipped" {
            tracing::info!(batch = %batch.id, recipient = recipient.unwrap_or(""), result = "skipped", "mail");
        }
        Ok(match state {
            "skipped" => Outcome::Skipped,
            "failed" => Outcome::Failed(reply.unwrap_or_default().to_string()),
            _ => Outcome::Sent(reply.unwrap_or_default().to_string()),
        })
    }

    /// The message of a batch: `text/plain` and an HTML alternative in which
    /// every user text is escaped; its `Message-ID` fixed by the batch; the
    /// one-click unsubscribe headers (RFC 8058).
    fn compose(
        &self,
        mailer: &super::Mailer,
        batch: &Claimed,
        to: &Email,
        workspace: &str,
        items: &[Item],
        token: &str,
    ) -> Result<lettre::Message> {
        let base = self.board.public_url()?;
        let subject = match items {
            [one] => format!("[{}] {}", one_line(workspace), one_line(&one.title)),
            _ if items.iter().all(|i| i.card == items[0].card) => format!(
                "[{}] {} ({} notifications)",
                one_line(workspace),
                one_line(&items[0].title),
                items.len()
            ),
            _ => format!("[{}] {} notifications", one_line(workspace), items.len()),
        };
        let unsubscribe = format!("{base}/api/mail/unsubscribe?token={token}");
        let mut text = String::new();
        let mut html = String::from("<!doctype html><html><body><ul>");
        for item in items {
            let link = format!("{base}/w/{}/c/{}", batch.workspace, item.card);
            let line = describe(item);
            text.push_str(&format!("- {line}\n"));
            html.push_str(&format!(
                "<li><p>{} <a href=\"{}\">{}</a></p>",
                escape(&line_before_title(item)),
                escape(&link),
                escape(&item.title)
            ));
            if let Some(excerpt) = &item.excerpt {
                text.push_str(&format!("  {}\n", excerpt.replace('\n', "\n  ")));
                html.push_str(&format!("<blockquote>{}</blockquote>", escape(excerpt)));
            }
            text.push_str(&format!("  {link}\n\n"));
            html.push_str("</li>");
        }
        let footer = format!(
            "You get this e-mail from board because your account wants these notifications. \
             To stop getting them by e-mail: {unsubscribe}"
        );
        text.push_str(&format!("--\n{footer}\n"));
        html.push_str(&format!(
            "</ul><hr><p>You get this e-mail from board because your account wants these \
             notifications. <a href=\"{}\">Stop getting them by e-mail</a>.</p></body></html>",
            escape(&unsubscribe)
        ));
        let domain = mailer.from().email.domain().to_string();
        let name = |n: &'static str| HeaderName::new_from_ascii_str(n);
        self.board
            .message_to(to)?
            .subject(subject)
            .message_id(Some(format!("<{}@{domain}>", batch.id)))
            .date_now()
            .raw_header(HeaderValue::new(
                name("List-Unsubscribe"),
                format!("<{unsubscribe}>"),
            ))
            .raw_header(HeaderValue::new(
                name("List-Unsubscribe-Post"),
                "List-Unsubscribe=One-Click".to_string(),
            ))
            .multipart(MultiPart::alternative_plain_html(text, html))
            .map_err(|e| Error::Internal(format!("building a message: {e}")))
    }
}

/// What an item says, before its card's title.
fn line_before_title(item: &Item) -> String {
    let who = item.actor.as_deref().unwrap_or("Someone");
    match item.kind.as_str() {
        "assigned" => format!("{who} assigned you to"),
        "mentioned" => format!("{who} mentioned you on"),
        "commented" => format!("{who} commented on"),
        "moved" => format!("{who} moved"),
        _ => "Due soon:".to_string(),
    }
}

/// An item as one line of text.
fn describe(item: &Item) -> String {
    format!("{} “{}”", line_before_title(item), one_line(&item.title))
}

/// `text` on one line (a subject or a list item).
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// `text` safe in HTML text and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escapes_every_markup_character() {
        assert_eq!(
            escape("<script>\"a\" & 'b'</script>"),
            "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;"
        );
        assert_eq!(one_line("a\r\nb"), "a  b");
    }

    #[test]
    fn retries_double_from_15_seconds_up_to_30_minutes() {
        let delays: Vec<u64> = (1..=10)
            .map(|attempts: i64| {
                let shift = (attempts - 1).clamp(0, 16) as u32;
                (FIRST_RETRY * 2u32.pow(shift))
                    .min(MAX_RETRY_DELAY)
                    .as_secs()
            })
            .collect();
        assert_eq!(delays, [15, 30, 60, 120, 240, 480, 960, 1800, 1800, 1800]);
    }
}
