//! Due reminders (api.md §26): `due_soon`, once per value of a card's
//! `dueAt`, when it comes within the reminder window and the card is neither
//! archived nor in its done column. The server runs [`Admin::remind_due`]
//! every [`REMIND_EVERY`].
//!
//! A reminder is claimed by writing the card's `due_reminders` row for its
//! current `dueAt` with `INSERT … ON CONFLICT DO UPDATE … WHERE` the row
//! names another value: of two sweeps at once (two servers), the second
//! waits for the first's row and finds it claimed, so each value reminds
//! once. A change of `dueAt` deletes the row ([`rearm`]): any new value,
//! an earlier one too, reminds again.

use std::time::Duration;

use super::make::WATCHERS_SQL;
use crate::board::Admin;
use crate::error::Result;
use crate::ids::{CardId, NotificationId};
use crate::store::{Deferred, Value};
use crate::time::{tick, Timestamp};

/// How often the server looks for cards entering the window: well within
/// the 60 s api.md §26 allows.
pub const REMIND_EVERY: Duration = Duration::from_secs(20);

/// The default window (`--due-reminder-hours`): 24 hours.
pub const DEFAULT_REMINDER_HOURS: u32 = 24;

/// The statement that arms `card`'s reminder again, deferred by a write that
/// changes its `dueAt`.
pub(crate) fn rearm(card: &CardId) -> Deferred {
    Deferred::new(
        "DELETE FROM due_reminders WHERE card_id = $1",
        vec![Value::text(card)],
    )
}

impl Admin<'_> {
    /// Reminds the assignees (the watchers of a card without any) of every
    /// card whose `dueAt` lies within `window` from now (and not longer than
    /// `window` ago), not reminded yet for that value, neither archived nor
    /// in its done column. Returns how many cards reminded.
    pub async fn remind_due(&self, window: Duration) -> Result<u64> {
        let board = self.board;
        let span = i64::try_from(window.as_millis()).unwrap_or(i64::MAX / 4);
        let now = tick();
        let until = Timestamp::from_millis(now.saturating_add(span));
        let since = Timestamp::from_millis(now.saturating_sub(span));
        let key = NotificationId::new().to_string();
        let mut tx = board.write_unlocked().await?;
        let claimed = Deferred::new(
            "INSERT INTO due_reminders (card_id, due_at, sent_key) \
             SELECT k.id, k.due_at, $1 FROM cards k \
             WHERE k.due_at IS NOT NULL AND k.due_at <= $2 AND k.due_at > $3 \
               AND k.archived_at IS NULL \
               AND NOT EXISTS (SELECT 1 FROM columns c WHERE c.id = k.column_id AND c.done = 1) \
               AND NOT EXISTS (SELECT 1 FROM due_reminders r \
                   WHERE r.card_id = k.id AND r.due_at = k.due_at) \
             ON CONFLICT (card_id) DO UPDATE SET due_at = excluded.due_at, \
                 sent_key = excluded.sent_key WHERE due_reminders.due_at <> excluded.due_at",
            vec![Value::text(&key), Value::text(&until), Value::text(&since)],
        )
        .run(&mut tx)
        .await?;
        if claimed == 0 {
            return Ok(0);
        }
        let watchers = WATCHERS_SQL.replace("{card}", "k.id");
        let sql = format!(
            "INSERT INTO notifications (id, account_id, workspace_id, card_id, kind, change_key, \
                 actor_id, excerpt, created_at) \
             SELECT {id}, m.account_id, k.workspace_id, k.id, 'due_soon', \
                 'due:' || r.sent_key || ':' || k.id, NULL, k.due_at, $2 \
             FROM due_reminders r JOIN cards k ON k.id = r.card_id \
             JOIN memberships m ON m.workspace_id = k.workspace_id \
             WHERE r.sent_key = $1 AND ( \
                 EXISTS (SELECT 1 FROM card_assignees a \
                     WHERE a.card_id = k.id AND a.account_id = m.account_id) \
                 OR (NOT EXISTS (SELECT 1 FROM card_assignees a WHERE a.card_id = k.id) \
                     AND m.account_id IN ({watchers})))",
            id = board.backend.new_id_sql(),
        );
        let at = Timestamp::from_millis(now);
        tx.defer(Deferred::new(
            sql,
            vec![Value::text(&key), Value::text(&at)],
        ));
        let events = board.backend.notification_events_sql().replace(
            "n.change_key = $1",
            "n.change_key IN (SELECT 'due:' || r.sent_key || ':' || r.card_id \
             FROM due_reminders r WHERE r.sent_key = $1)",
        );
        tx.defer(Deferred::new(events, vec![Value::text(&key)]));
        tx.commit().await?;
        // No event of a workspace went with the commit: wake the streams.
        board.on_commit.committed();
        Ok(claimed)
    }

    /// Removes the notifications older than [`super::KEPT_FOR`]. Returns how
    /// many.
    pub async fn prune_notifications(&self) -> Result<u64> {
        let span = i64::try_from(super::KEPT_FOR.as_millis()).unwrap_or(i64::MAX);
        let cutoff = Timestamp::from_millis(tick().saturating_sub(span));
        let mut tx = self.board.write_unlocked().await?;
        let gone = Deferred::new(
            "DELETE FROM notifications WHERE created_at < $1",
            vec![Value::text(&cutoff)],
        )
        .run(&mut tx)
        .await?;
        tx.commit().await?;
        Ok(gone)
    }
}
