//! Notifications (api.md §26): what the board tells one account about a card,
//! made in the transaction of the change that causes it (`make.rs`), and the
//! account's inbox: the list, the unread count, marking read. An account's
//! inbox leaves out the workspaces it no longer reaches. E-mail (`mail/`):
//! a notification row names its batch (`mail_batch_id`) and when it was
//! mailed (`mailed_at`).

pub(crate) mod due;
pub(crate) mod make;
pub(crate) mod mentions;

use serde::Serialize;
use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::access::Actor;
use crate::board::Board;
use crate::error::{Error, Result, ValidationErrors};
use crate::ids::{AccountId, CardId, ColumnId, NotificationId, WorkspaceId};
use crate::paging;
use crate::store::{placeholders, Value as SqlValue};
use crate::time::{now, Timestamp};
use crate::validate::{self, Fields, FromJson, Input};

pub(crate) use make::{Notice, OTHERS_WATCH_SQL, WATCHING_SQL};

/// How long a notification is kept (api.md §26: 90 days), then swept.
pub const KEPT_FOR: std::time::Duration = std::time::Duration::from_secs(90 * 24 * 3600);

/// The most ids one `POST /api/notifications/read` takes.
pub const MAX_READ_IDS: usize = 500;

/// The page size of the inbox when `limit` is not given.
const DEFAULT_LIMIT: u16 = 50;

/// A notification: what happened to which card, for one account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Notification {
    /// Its id.
    pub id: NotificationId,
    /// `assigned`, `mentioned`, `commented`, `moved` or `due_soon`.
    pub kind: String,
    /// The card's workspace.
    #[serde(rename = "tenantId")]
    pub workspace_id: WorkspaceId,
    /// The card, as it is now.
    pub card: NotificationCard,
    /// Who made the change; null for `due_soon` (time caused it), for the
    /// CLI, and when the account was removed.
    pub actor: Option<NotificationActor>,
    /// When it was made.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub at: Timestamp,
    /// When it was marked read; null while unread.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub read_at: Option<Timestamp>,
    /// A few words of it: the comment or description (its first 200
    /// characters), both columns of a move, the due time; null for `assigned`.
    pub excerpt: Option<String>,
}

/// The card a notification is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NotificationCard {
    /// Its id.
    pub id: CardId,
    /// Its title.
    pub title: String,
    /// Its column.
    pub column_id: ColumnId,
}

/// Who caused a notification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NotificationActor {
    /// The account's id.
    pub id: AccountId,
    /// Its name.
    pub name: String,
}

/// A page of the inbox, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NotificationPage {
    /// The notifications of this page.
    pub items: Vec<Notification>,
    /// The `cursor` of the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// The query of `GET /api/notifications`: `unread`, `limit`, `cursor`.
#[derive(Debug, Clone, Default)]
pub struct NotificationQuery {
    unread: Option<String>,
    limit: Option<String>,
    cursor: Option<String>,
}

impl NotificationQuery {
    /// The query parameters as given (each `None` when absent).
    pub fn from_params(unread: Option<&str>, limit: Option<&str>, cursor: Option<&str>) -> Self {
        NotificationQuery {
            unread: unread.map(str::to_string),
            limit: limit.map(str::to_string),
            cursor: cursor.map(str::to_string),
        }
    }

    /// Only the unread ones.
    pub fn unread(mut self) -> Self {
        self.unread = Some("true".into());
        self
    }

    /// The page after the one whose `nextCursor` is `cursor`.
    pub fn after(mut self, cursor: Option<String>) -> Self {
        self.cursor = cursor;
        self
    }

    /// At most `n` a page.
    pub fn limit(mut self, n: u16) -> Self {
        self.limit = Some(n.to_string());
        self
    }
}

/// The unread count (`GET /api/notifications/count`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UnreadCount {
    /// How many notifications are unread.
    pub unread: i64,
}

/// What `POST /api/notifications/read` marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReadCount {
    /// How many were unread and are now read.
    pub read: u64,
}

/// The body of `POST /api/notifications/read`: `{ids}` (at most 500) or
/// `{all: true}`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    schema(rename_all = "camelCase")
)]
pub struct ReadInput {
    /// The notifications to mark read (ids of others' are ignored).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<String>>, max_items = 500))]
    pub ids: Option<Vec<NotificationId>>,
    /// `true`: every unread notification.
    pub all: Option<bool>,
}

impl FromJson for ReadInput {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let ids = f.optional("ids", validate::ids(NotificationId::parse, MAX_READ_IDS));
        let all = f.optional("all", validate::boolean);
        match (&ids, all) {
            (Some(_), Some(_)) => f.form_error("Give either ids or all, not both"),
            (None, None) => f.form_error("Expected ids (an array of at most 500) or all: true"),
            (None, Some(false)) => f.field_error("all", "Expected true"),
            _ => {}
        }
        f.finish()?;
        Ok(ReadInput { ids, all })
    }
}

impl ReadInput {
    /// Marks the notifications `ids` read.
    pub fn ids(ids: Vec<NotificationId>) -> ReadInput {
        ReadInput {
            ids: Some(ids),
            all: None,
        }
    }

    /// Marks every unread notification read.
    pub fn all() -> ReadInput {
        ReadInput {
            ids: None,
            all: Some(true),
        }
    }
}

/// The inbox's condition that leaves out the workspaces the account lost
/// (`n` the notification, `$1` the account).
const REACHED: &str = "EXISTS (SELECT 1 FROM memberships m \
     WHERE m.workspace_id = n.workspace_id AND m.account_id = $1)";

/// The account an inbox belongs to: 403 for the operator, who has none.
fn owner(actor: &Actor) -> Result<&AccountId> {
    actor.account().ok_or_else(|| {
        Error::Forbidden("only an account has notifications; the operator has none".into())
    })
}

impl Board {
    /// The caller's notifications, newest first, paged by `limit` (1..=200,
    /// default 50) and `cursor`; with `unread=true` only the unread ones.
    pub async fn notifications(
        &self,
        actor: &Actor,
        query: &NotificationQuery,
    ) -> Result<NotificationPage> {
        let account = owner(actor)?;
        let unread = match query.unread.as_deref() {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                return Err(ValidationErrors::one(
                    "unread",
                    format!("Expected true or false, received {other:?}"),
                ))
            }
        };
        let limit = paging::limit(query.limit.as_deref(), DEFAULT_LIMIT)?;
        let after = match &query.cursor {
            Some(c) => Some(paging::decode(c, 2)?),
            None => None,
        };
        let mut sql = format!(
            "SELECT n.id, n.kind, n.workspace_id, k.id AS card_id, k.title, k.column_id, \
                 a.id AS actor_id, a.name AS actor_name, n.created_at, n.read_at, n.excerpt \
             FROM notifications n JOIN cards k ON k.id = n.card_id \
             LEFT JOIN accounts a ON a.id = n.actor_id \
             WHERE n.account_id = $1 AND {REACHED}"
        );
        if unread {
            sql.push_str(" AND n.read_at IS NULL");
        }
        if after.is_some() {
            sql.push_str(" AND (n.created_at < $3 OR (n.created_at = $3 AND n.id < $4))");
        }
        sql.push_str(" ORDER BY n.created_at DESC, n.id DESC LIMIT $2");
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(account)
            .bind(i64::from(limit) + 1);
        if let Some(keys) = &after {
            q = q.bind(&keys[0]).bind(&keys[1]);
        }
        let rows = q.fetch_all(&self.pool).await?;
        let mut items = rows.iter().map(notification).collect::<Result<Vec<_>>>()?;
        let next_cursor = if items.len() > usize::from(limit) {
            items.truncate(usize::from(limit));
            items
                .last()
                .map(|n| paging::encode(&[n.at.as_str(), n.id.as_str()]))
        } else {
            None
        };
        Ok(NotificationPage { items, next_cursor })
    }

    /// How many of the caller's notifications are unread.
    pub async fn unread_notifications(&self, actor: &Actor) -> Result<UnreadCount> {
        let account = owner(actor)?;
        let sql = format!(
            "SELECT COUNT(*) FROM notifications n \
             WHERE n.account_id = $1 AND n.read_at IS NULL AND {REACHED}"
        );
        let unread: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind(account)
            .fetch_one(&self.pool)
            .await?;
        Ok(UnreadCount { unread })
    }

    /// Marks the caller's notifications read: those of `ids` (others' are
    /// ignored, never revealed), or all. Returns how many were unread.
    pub async fn read_notifications(
        &self,
        actor: &Actor,
        input: impl Into<Input<ReadInput>>,
    ) -> Result<ReadCount> {
        let account = owner(actor)?;
        let input = input.into().open()?;
        let mut values = vec![SqlValue::text(account), SqlValue::text(now())];
        let mut sql = String::from(
            "UPDATE notifications SET read_at = $2 WHERE account_id = $1 AND read_at IS NULL \
             AND workspace_id IN (SELECT m.workspace_id FROM memberships m WHERE m.account_id = $1)"
        );
        if let Some(ids) = &input.ids {
            if ids.is_empty() {
                return Ok(ReadCount { read: 0 });
            }
            sql.push_str(&format!(" AND id IN ({})", placeholders(3, ids.len())));
            values.extend(ids.iter().map(SqlValue::text));
        }
        // One statement: no read decides it, so no lock.
        let mut tx = self.write_unlocked().await?;
        let read = crate::store::Deferred::new(sql, values)
            .run(&mut tx)
            .await?;
        tx.commit().await?;
        Ok(ReadCount { read })
    }
}

/// A notification from the inbox's row.
fn notification(row: &AnyRow) -> Result<Notification> {
    let actor_id: Option<String> = row.try_get("actor_id")?;
    let actor = match actor_id {
        Some(id) => Some(NotificationActor {
            id: AccountId::from_db(id),
            name: row.try_get("actor_name")?,
        }),
        None => None,
    };
    Ok(Notification {
        id: NotificationId::from_db(row.try_get("id")?),
        kind: row.try_get("kind")?,
        workspace_id: WorkspaceId::from_db(row.try_get("workspace_id")?),
        card: NotificationCard {
            id: CardId::from_db(row.try_get("card_id")?),
            title: row.try_get("title")?,
            column_id: ColumnId::from_db(row.try_get("column_id")?),
        },
        actor,
        at: Timestamp::from_db(row.try_get("created_at")?),
        read_at: row
            .try_get::<Option<String>, _>("read_at")?
            .map(Timestamp::from_db),
        excerpt: row.try_get("excerpt")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_read_takes_ids_or_all() {
        assert!(ReadInput::from_json(&json!({"all": true})).is_ok());
        assert!(ReadInput::from_json(&json!({"ids": []})).is_ok());
        assert!(ReadInput::from_json(&json!({})).is_err());
        assert!(ReadInput::from_json(&json!({"all": false})).is_err());
        assert!(ReadInput::from_json(&json!({"all": true, "ids": []})).is_err());
        let many: Vec<String> = (0..501)
            .map(|_| NotificationId::new().to_string())
            .collect();
        assert!(ReadInput::from_json(&json!({ "ids": many })).is_err());
    }
}
