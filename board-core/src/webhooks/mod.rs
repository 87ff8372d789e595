//! Webhooks (api.md §18): an ADMIN of a workspace subscribes a URL to the
//! workspace's events; every server delivers them ([`deliver`]), at least
//! once and in order, signed with the webhook's secret.
//!
//! This file holds the resource: its wire types and the five operations of
//! the routes (Admin only; the CLI calls them as the operator). `target.rs`
//! decides where a webhook may deliver; `deliver.rs` is the delivery worker.
//!
//! A change of a webhook's state or position is made under its row's lock (`Lock::Webhook`);
//! the worker's own writes carry its lease condition instead. Secrets are stored as given
//! (they must be, to sign), shown only in the answer of the creation, never listed; `board
//! copy`, export and import carry them. What is signed is `<X-Board-Timestamp>.<body>`,
//! HMAC-SHA256 in hex, sent as `sha256=…`; the body is the event's `data` line exactly as sent.
//!
//! Retention (`Admin::prune_events`) keeps every event above the lowest position of the
//! active webhooks (positions pass other workspaces' events too, so one minimum holds all).
//! An inactive webhook holds nothing back, and one that fails for the give-up time turns
//! inactive, so what is kept for webhooks is bounded. A reactivation (`PATCH active: true`)
//! moves the position up to `event_log.pruned_through` when retention removed events after
//! it, and reports `skipped`: the seqs passed over, of every workspace (an upper bound).

pub(crate) mod deliver;
pub(crate) mod target;

use serde::Serialize;
use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::access::{Actor, Role};
use crate::board::Board;
use crate::error::{Error, Result, ValidationErrors};
use crate::ids::{WebhookId, WorkspaceId};
use crate::store::{flag, Lock};
use crate::time::Timestamp;
use crate::validate::{self, Fields, FromJson, Input};

pub use deliver::{WebhookSettings, WebhookWorker};

/// Every event type a webhook may take (api.md §11, and §16 and §19's
/// additions): the list an absent `events` stands for.
pub const WEBHOOK_EVENTS: &[&str] = &[
    "column.created",
    "column.updated",
    "columns.reordered",
    "column.deleted",
    "card.created",
    "card.updated",
    "card.moved",
    "card.deleted",
    "comment.created",
    "comment.updated",
    "comment.deleted",
    "attachment.created",
    "attachment.deleted",
    "relation.created",
    "relation.deleted",
    "settings.updated",
    "cards.repositioned",
    "card.archived",
    "card.restored",
    "label.created",
    "label.updated",
    "label.deleted",
    "checklist.created",
    "checklist.updated",
    "checklist.deleted",
    "member.added",
    "member.updated",
    "member.removed",
    "project.created",
    "project.updated",
    "import.completed",
];

/// The shortest secret accepted (api.md §18).
pub const MIN_SECRET: usize = 16;
/// The longest secret accepted.
pub const MAX_SECRET: usize = 500;
/// How many attempts the deliveries log keeps per webhook.
pub const DELIVERIES_KEPT: i64 = 100;

/// What a webhook is: the fields every answer about it carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookFields {
    /// The webhook.
    pub id: WebhookId,
    /// Its workspace (`tenantId` on the wire).
    #[serde(rename = "tenantId")]
    pub workspace_id: WorkspaceId,
    /// Where events are POSTed.
    pub url: String,
    /// The event types it takes.
    pub events: Vec<String>,
    /// Whether it is delivered to.
    pub active: bool,
    /// When it was created.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub created_at: Timestamp,
}

/// A webhook as its workspace's admins see it (never with its secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    /// Id, workspace, URL, event types, `active`, creation time.
    #[serde(flatten)]
    pub fields: WebhookFields,
    /// Its position: the last seq delivered (answered 2xx) or passed over by
    /// its filter.
    pub last_delivered_seq: i64,
    /// When the last attempt was made (or null).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub last_attempt_at: Option<Timestamp>,
    /// The HTTP status of the last attempt (null: none yet, or no answer).
    pub last_status: Option<i64>,
    /// What went wrong last (null after a success), or why it turned inactive.
    pub last_error: Option<String>,
    /// Since when deliveries fail (null while they succeed).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub failing_since: Option<Timestamp>,
}

/// A webhook just created: the only time its secret is shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CreatedWebhook {
    /// Id, workspace, URL, event types, `active` (true), creation time.
    #[serde(flatten)]
    pub fields: WebhookFields,
    /// The HMAC-SHA256 key of `X-Board-Signature`.
    pub secret: String,
}

/// A webhook after a change, with how many events a reactivation skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PatchedWebhook {
    /// The webhook after the change.
    #[serde(flatten)]
    pub webhook: Webhook,
    /// Events no longer retained that a reactivation passed over (0 when
    /// none): counted as the seqs between the position and the last seq
    /// retention removed, so an upper bound of the workspace's own.
    pub skipped: i64,
}

/// One delivery attempt (`GET /api/webhooks/[id]/deliveries`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    /// The event's seq (`X-Board-Delivery`).
    pub seq: i64,
    /// The event's type.
    #[serde(rename = "type")]
    pub kind: String,
    /// 1 for the first attempt of this event, then 2, 3, …
    pub attempt: i64,
    /// The HTTP status (null: no answer).
    pub status: Option<i64>,
    /// What went wrong (null for a 2xx).
    pub error: Option<String>,
    /// How long the attempt took.
    pub duration_ms: i64,
    /// When it started.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub at: Timestamp,
}

/// `POST /api/webhooks`: `{tenantId, url, events?, secret?}`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    schema(rename_all = "camelCase")
)]
pub struct NewWebhook {
    /// The workspace (`tenantId`).
    #[cfg_attr(feature = "openapi", schema(rename = "tenantId"))]
    pub workspace_id: WorkspaceId,
    /// `http` or `https` URL.
    #[cfg_attr(feature = "openapi", schema(max_length = 2000))]
    pub url: String,
    /// The event types (absent: all).
    #[cfg_attr(feature = "openapi", schema(nullable = false, min_items = 1))]
    pub events: Option<Vec<String>>,
    /// At least 16 characters (absent: generated).
    #[cfg_attr(
        feature = "openapi",
        schema(nullable = false, min_length = 16, max_length = 500)
    )]
    pub secret: Option<String>,
}

/// `PATCH /api/webhooks/[id]`: any of `url`, `events`, `active`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    schema(rename_all = "camelCase")
)]
pub struct WebhookPatch {
    /// A new URL (checked as at creation).
    #[cfg_attr(feature = "openapi", schema(nullable = false, max_length = 2000))]
    pub url: Option<String>,
    /// New event types.
    #[cfg_attr(feature = "openapi", schema(nullable = false, min_items = 1))]
    pub events: Option<Vec<String>>,
    /// Turn deliveries on or off; on resumes after `lastDeliveredSeq`.
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub active: Option<bool>,
}

fn url_field(v: &Value) -> std::result::Result<String, String> {
    let s = validate::string(v)?;
    target::parse_url(&s).map(|u| u.to_string())
}

fn events_field(v: &Value) -> std::result::Result<Vec<String>, String> {
    let items = v
        .as_array()
        .ok_or_else(|| "Expected an array of event types".to_string())?;
    if items.is_empty() {
        return Err(format!(
            "At least one event type (or leave events out for all): {}",
            WEBHOOK_EVENTS.join(", ")
        ));
    }
    let mut chosen = Vec::new();
    for item in items {
        chosen.push(validate::one_of(item, WEBHOOK_EVENTS)?);
    }
    Ok(WEBHOOK_EVENTS
        .iter()
        .filter(|t| chosen.contains(t))
        .map(|t| t.to_string())
        .collect())
}

fn secret_field(v: &Value) -> std::result::Result<String, String> {
    let s = validate::string(v)?;
    let n = s.chars().count();
    if !(MIN_SECRET..=MAX_SECRET).contains(&n) || s.chars().any(char::is_control) {
        return Err(format!(
            "A secret is {MIN_SECRET} to {MAX_SECRET} characters, without control characters"
        ));
    }
    Ok(s)
}

impl FromJson for NewWebhook {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let tenant = f.required("tenantId", validate::id(WorkspaceId::parse));
        let url = f.required_naming("url", "an http or https URL", url_field);
        let events = f.optional("events", events_field);
        let secret = f.optional("secret", secret_field);
        f.finish()?;
        Ok(NewWebhook {
            workspace_id: tenant.expect("checked by finish"),
            url: url.expect("checked by finish"),
            events,
            secret,
        })
    }
}

impl FromJson for WebhookPatch {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let url = f.optional("url", url_field);
        let events = f.optional("events", events_field);
        let active = f.optional("active", validate::boolean);
        f.finish()?;
        Ok(WebhookPatch {
            url,
            events,
            active,
        })
    }
}

const COLUMNS: &str = "id, workspace_id, url, events, active, created_at, position, \
    last_attempt_at, last_status, last_error, failing_since";

fn from_row(row: &AnyRow) -> Result<Webhook> {
    let events: String = row.try_get("events")?;
    Ok(Webhook {
        fields: WebhookFields {
            id: row.try_get("id")?,
            workspace_id: row.try_get("workspace_id")?,
            url: row.try_get("url")?,
            events: serde_json::from_str(&events)
                .map_err(|e| Error::Internal(format!("stored webhook events: {e}")))?,
            active: flag(row.try_get("active")?),
            created_at: row.try_get("created_at")?,
        },
        last_delivered_seq: row.try_get("position")?,
        last_attempt_at: row.try_get("last_attempt_at")?,
        last_status: row.try_get("last_status")?,
        last_error: row.try_get("last_error")?,
        failing_since: row.try_get("failing_since")?,
    })
}

/// The webhook `id` (404 when there is none).
async fn read<'e, E>(exec: E, id: &WebhookId) -> Result<Webhook>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let sql = format!("SELECT {COLUMNS} FROM webhooks WHERE id = $1");
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(exec)
        .await?
        .ok_or(Error::NotFound("webhook"))?;
    from_row(&row)
}

/// A new secret: 32 random bytes as hex.
fn generate_secret() -> Result<String> {
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw).map_err(|e| Error::Config(format!("no randomness: {e}")))?;
    Ok(crate::access::to_hex(&raw))
}

/// Webhooks (api.md §18): the operations of `webhooks/mod.rs`.
impl Board {
    /// Checks that `url` may be delivered to (422 `WEBHOOK_TARGET`).
    async fn check_target(&self, url: &str) -> Result<()> {
        let url = target::parse_url(url).map_err(|m| ValidationErrors::one("url", m))?;
        target::check(&url, self.webhook_allow_private).await?;
        Ok(())
    }

    /// Subscribes a URL to a workspace's events (Admin of `tenantId`; the
    /// body is checked first, as its workspace comes from it). Its position
    /// starts at the last seq taken: it gets the events committed after it.
    pub async fn create_webhook(
        &self,
        actor: &Actor,
        input: impl Into<Input<NewWebhook>>,
    ) -> Result<CreatedWebhook> {
        let new = input.into().open()?;
        let ws = &new.workspace_id;
        self.require(&self.pool, actor, ws, Role::Admin).await?;
        self.check_target(&new.url).await?;
        let secret = match new.secret {
            Some(s) => s,
            None => generate_secret()?,
        };
        let events = new
            .events
            .unwrap_or_else(|| WEBHOOK_EVENTS.iter().map(|t| t.to_string()).collect());
        let id = WebhookId::new();
        let at = crate::time::now();
        let position = crate::events::horizon::last_seq(&self.pool, self.backend).await?;
        let mut tx = self.write_unlocked().await?;
        sqlx::query(
            "INSERT INTO webhooks (id, workspace_id, url, events, secret, active, created_at, \
             position) VALUES ($1, $2, $3, $4, $5, 1, $6, $7)",
        )
        .bind(&id)
        .bind(ws)
        .bind(&new.url)
        .bind(serde_json::to_string(&events).expect("strings serialize"))
        .bind(&secret)
        .bind(&at)
        .bind(position)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(CreatedWebhook {
            fields: WebhookFields {
                id,
                workspace_id: ws.clone(),
                url: new.url,
                events,
                active: true,
                created_at: at,
            },
            secret,
        })
    }

    /// The webhooks of `workspace`, oldest first, without secrets (Admin).
    pub async fn webhooks(&self, actor: &Actor, workspace: &WorkspaceId) -> Result<Vec<Webhook>> {
        self.require(&self.pool, actor, workspace, Role::Admin)
            .await?;
        let sql = format!(
            "SELECT {COLUMNS} FROM webhooks WHERE workspace_id = $1 ORDER BY created_at, id"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(workspace)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(from_row).collect()
    }

    /// The webhook `id` when `actor` is an Admin of its workspace: 404 for
    /// an unknown one, 403 below Admin.
    async fn reach_webhook(&self, actor: &Actor, id: &WebhookId) -> Result<Webhook> {
        let hook = read(&self.pool, id).await?;
        self.require(&self.pool, actor, &hook.fields.workspace_id, Role::Admin)
            .await?;
        Ok(hook)
    }

    /// Changes a webhook's `url`, `events` or `active` (Admin). A new URL is
    /// checked as at creation. Reactivating resumes after its position; the
    /// events retention removed meanwhile are passed over and counted in
    /// `skipped`.
    pub async fn update_webhook(
        &self,
        actor: &Actor,
        id: &WebhookId,
        input: impl Into<Input<WebhookPatch>>,
    ) -> Result<PatchedWebhook> {
        self.reach_webhook(actor, id).await?;
        let patch = input.into().open()?;
        if let Some(url) = &patch.url {
            self.check_target(url).await?;
        }
        let mut tx = self.write(Lock::Webhook(id)).await?;
        let current = read(&mut *tx, id).await?;
        let pruned: i64 = sqlx::query_scalar("SELECT pruned_through FROM event_log WHERE id = 1")
            .fetch_one(&mut *tx)
            .await?;
        let reactivated = patch.active == Some(true) && !current.fields.active;
        let mut next = current.clone();
        let mut skipped = 0;
        if reactivated && pruned > current.last_delivered_seq {
            skipped = pruned - current.last_delivered_seq;
            next.last_delivered_seq = pruned;
        }
        if reactivated {
            next.failing_since = None;
        }
        let f = &mut next.fields;
        f.url = patch.url.unwrap_or(f.url.clone());
        f.events = patch.events.unwrap_or(f.events.clone());
        f.active = patch.active.unwrap_or(f.active);
        sqlx::query(
            "UPDATE webhooks SET url = $2, events = $3, active = $4, position = $5, \
             failing_since = $6 WHERE id = $1",
        )
        .bind(id)
        .bind(&next.fields.url)
        .bind(serde_json::to_string(&next.fields.events).expect("strings serialize"))
        .bind(i64::from(next.fields.active))
        .bind(next.last_delivered_seq)
        .bind(&next.failing_since)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(PatchedWebhook {
            webhook: next,
            skipped,
        })
    }

    /// Deletes a webhook and its deliveries log (Admin): no delivery starts
    /// after it (the worker reads the webhook again before every attempt).
    pub async fn delete_webhook(&self, actor: &Actor, id: &WebhookId) -> Result<()> {
        self.reach_webhook(actor, id).await?;
        let mut tx = self.write(Lock::Webhook(id)).await?;
        sqlx::query("DELETE FROM webhook_deliveries WHERE webhook_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM webhooks WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The last [`DELIVERIES_KEPT`] attempts of a webhook, newest first (Admin).
    pub async fn webhook_deliveries(&self, actor: &Actor, id: &WebhookId) -> Result<Vec<Delivery>> {
        self.reach_webhook(actor, id).await?;
        let rows = sqlx::query(
            "SELECT seq, type, attempt, status, error, duration_ms, at FROM webhook_deliveries \
             WHERE webhook_id = $1 ORDER BY at DESC LIMIT $2",
        )
        .bind(id)
        .bind(DELIVERIES_KEPT)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(Delivery {
                    seq: r.try_get("seq")?,
                    kind: r.try_get("type")?,
                    attempt: r.try_get("attempt")?,
                    status: r.try_get("status")?,
                    error: r.try_get("error")?,
                    duration_ms: r.try_get("duration_ms")?,
                    at: r.try_get("at")?,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn absent_events_and_secret_are_none_and_bad_ones_are_refused() {
        let ws = "ckv7q2x0a0000abcdefghijk";
        let ok = NewWebhook::from_json(&json!({"tenantId": ws, "url": "https://e.com/h"})).unwrap();
        assert_eq!((ok.events, ok.secret), (None, None));
        for body in [
            json!({"tenantId": ws, "url": "ftp://e.com"}),
            json!({"tenantId": ws, "url": "https://e.com", "events": []}),
            json!({"tenantId": ws, "url": "https://e.com", "events": ["card.nope"]}),
            json!({"tenantId": ws, "url": "https://e.com", "secret": "short"}),
            json!({"tenantId": ws, "url": "https://e.com", "extra": 1}),
            json!({"tenantId": ws}),
        ] {
            assert!(
                matches!(NewWebhook::from_json(&body), Err(Error::Validation(_))),
                "{body}"
            );
        }
    }

    #[test]
    fn events_come_back_in_the_list_order_without_duplicates() {
        let got = events_field(&json!(["card.moved", "card.archived", "card.moved"])).unwrap();
        assert_eq!(got, vec!["card.moved", "card.archived"]);
        assert!(WEBHOOK_EVENTS.contains(&"card.restored"));
    }
}
