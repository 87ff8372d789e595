//! The counts a card shows (`commentCount`, `attachmentCount`, `checklist`)
//! are kept as the changes happen, never counted on a read: migration 0020's
//! triggers update `card_counts` in the statement that inserts, deletes or
//! changes a comment, an attachment or a checklist item, whichever path it
//! comes from (docs/decisions.md, "Counts kept"). A card's counts are the sum
//! of its lanes (one on SQLite; on PostgreSQL one until writers race on the
//! card, at most 17, so that racing writers share no row).
//!
//! [`Admin::check_counts`] compares the kept counts with a recount of the
//! rows: `board gc --check` prints what differs, and the race tests
//! (`tests/e2e/counts.rs`) require that nothing does.

use serde::Serialize;
use sqlx::Row;

use crate::board::Admin;
use crate::error::Result;
use crate::ids::CardId;

/// A card's counts: comments, attachments (its own and its comments'
/// images), checklist items done and in all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CardCounts {
    /// Its comments.
    pub comments: i64,
    /// Its own attachments and its comments' images.
    pub attachments: i64,
    /// Its checklist items.
    pub items: i64,
    /// Its checklist items done.
    pub items_done: i64,
}

/// A card whose kept counts differ from a recount of its rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CountMismatch {
    /// The card.
    pub card_id: CardId,
    /// What `card_counts` holds for it.
    pub kept: CardCounts,
    /// What its rows count.
    pub counted: CardCounts,
}

/// Every card's kept counts beside a recount, only the cards where they differ.
const CHECK_SQL: &str = "SELECT * FROM (SELECT k.id, \
     (SELECT CAST(COALESCE(SUM(n.comments), 0) AS BIGINT) FROM card_counts n \
      WHERE n.card_id = k.id) AS kept_comments, \
     (SELECT CAST(COALESCE(SUM(n.attachments), 0) AS BIGINT) FROM card_counts n \
      WHERE n.card_id = k.id) AS kept_attachments, \
     (SELECT CAST(COALESCE(SUM(n.items), 0) AS BIGINT) FROM card_counts n \
      WHERE n.card_id = k.id) AS kept_items, \
     (SELECT CAST(COALESCE(SUM(n.items_done), 0) AS BIGINT) FROM card_counts n \
      WHERE n.card_id = k.id) AS kept_done, \
     (SELECT COUNT(*) FROM comments c WHERE c.card_id = k.id) AS comments, \
     (SELECT COUNT(*) FROM attachments f WHERE f.card_id = k.id \
      AND (f.scope = 'CARD' OR f.comment_id IS NOT NULL)) AS attachments, \
     (SELECT COUNT(*) FROM checklist_items i WHERE i.card_id = k.id) AS items, \
     (SELECT CAST(COALESCE(SUM(i.done), 0) AS BIGINT) FROM checklist_items i \
      WHERE i.card_id = k.id) AS done \
     FROM cards k) x \
     WHERE kept_comments <> comments OR kept_attachments <> attachments \
        OR kept_items <> items OR kept_done <> done \
     ORDER BY id";

/// A card's counts (the operator's side): the operations of `counts.rs`.
impl Admin<'_> {
    /// The cards whose kept counts differ from a recount of their comments,
    /// attachments and checklist items (none, unless the schema's triggers
    /// were changed or bypassed), in id order. One read, of every card.
    pub async fn check_counts(&self) -> Result<Vec<CountMismatch>> {
        let rows = sqlx::query(CHECK_SQL).fetch_all(&self.board.pool).await?;
        rows.iter()
            .map(|r| {
                Ok(CountMismatch {
                    card_id: r.try_get("id")?,
                    kept: CardCounts {
                        comments: r.try_get("kept_comments")?,
                        attachments: r.try_get("kept_attachments")?,
                        items: r.try_get("kept_items")?,
                        items_done: r.try_get("kept_done")?,
                    },
                    counted: CardCounts {
                        comments: r.try_get("comments")?,
                        attachments: r.try_get("attachments")?,
                        items: r.try_get("items")?,
                        items_done: r.try_get("done")?,
                    },
                })
            })
            .collect()
    }
}
