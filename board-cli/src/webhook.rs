//! `board webhook add|list|remove|enable|disable|deliveries` (api.md §18):
//! the routes' operations, run as the operator.

use board_core::{Actor, Board, NewWebhook, WebhookId, WebhookPatch};
use clap::Subcommand;
use serde_json::json;

use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Subscribe a URL to a workspace's events; prints the secret, once.
    Add {
        /// The workspace, by id or unique name.
        #[arg(long)]
        workspace: String,
        /// The http or https URL events are POSTed to.
        url: String,
        /// Event types, comma-separated (default: all).
        #[arg(long, value_delimiter = ',')]
        events: Option<Vec<String>>,
        /// The signing secret, at least 16 characters (default: generated).
        #[arg(long)]
        secret: Option<String>,
        /// Accept a URL whose host is a loopback, private, link-local,
        /// unique-local or unspecified address (tests, trusted networks; the
        /// server delivers there only with its own --webhook-allow-private).
        #[arg(long = "webhook-allow-private", env = "BOARD_WEBHOOK_ALLOW_PRIVATE")]
        allow_private: bool,
    },
    /// List a workspace's webhooks and how their deliveries stand.
    List {
        /// The workspace, by id or unique name.
        #[arg(long)]
        workspace: String,
    },
    /// Delete a webhook; no delivery starts after it.
    Remove {
        /// The webhook's id.
        id: String,
    },
    /// Turn deliveries on; resumes after the last delivered event.
    Enable {
        /// The webhook's id.
        id: String,
    },
    /// Turn deliveries off.
    Disable {
        /// The webhook's id.
        id: String,
    },
    /// The last 100 delivery attempts of a webhook, newest first.
    Deliveries {
        /// The webhook's id.
        id: String,
    },
}

fn webhook_id(id: &str) -> anyhow::Result<WebhookId> {
    WebhookId::parse(id).ok_or_else(|| {
        anyhow::anyhow!(
            "{id:?} is not a webhook id (`board webhook list --workspace W` shows them)"
        )
    })
}

fn or_dash<T: std::fmt::Display>(v: &Option<T>) -> String {
    crate::output::cell(v.as_ref())
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    let op = &Actor::Operator;
    match cmd {
        Cmd::Add {
            workspace,
            url,
            events,
            secret,
            ..
        } => {
            let ws = board.admin().find_workspace(&workspace).await?;
            let mut body = json!({"tenantId": ws.id, "url": url});
            if let Some(events) = events {
                body["events"] = json!(events);
            }
            if let Some(secret) = secret {
                body["secret"] = json!(secret);
            }
            let hook = board
                .create_webhook(op, board_core::Input::<NewWebhook>::from_value(&body))
                .await?;
            if !out.json {
                eprintln!(
                    "The secret is shown once. Keep it now: receivers check signatures with it."
                );
            }
            out.value(&hook, || {
                format!(
                    "{}\nwebhook {} · {} · {} event types",
                    hook.secret,
                    hook.fields.id,
                    hook.fields.url,
                    hook.fields.events.len()
                )
            });
        }
        Cmd::List { workspace } => {
            let ws = board.admin().find_workspace(&workspace).await?;
            let hooks = board.webhooks(op, &ws.id).await?;
            let rows = hooks
                .iter()
                .map(|h| {
                    let f = &h.fields;
                    vec![
                        f.id.to_string(),
                        f.url.clone(),
                        if f.active { "on" } else { "off" }.into(),
                        if f.events.len() == board_core::WEBHOOK_EVENTS.len() {
                            "all".into()
                        } else {
                            f.events.join(", ")
                        },
                        h.last_delivered_seq.to_string(),
                        or_dash(&h.last_status),
                        or_dash(&h.failing_since),
                        or_dash(&h.last_error),
                    ]
                })
                .collect();
            out.table(
                &hooks,
                &[
                    "id",
                    "url",
                    "active",
                    "events",
                    "delivered",
                    "status",
                    "failing since",
                    "last error",
                ],
                rows,
            );
        }
        Cmd::Remove { id } => {
            let id = webhook_id(&id)?;
            board.delete_webhook(op, &id).await?;
            out.value(&json!({"deleted": true}), || {
                format!("webhook {id} deleted")
            });
        }
        Cmd::Enable { id } => set_active(board, out, &id, true).await?,
        Cmd::Disable { id } => set_active(board, out, &id, false).await?,
        Cmd::Deliveries { id } => {
            let log = board.webhook_deliveries(op, &webhook_id(&id)?).await?;
            let rows = log
                .iter()
                .map(|d| {
                    vec![
                        d.at.to_string(),
                        d.seq.to_string(),
                        d.kind.clone(),
                        d.attempt.to_string(),
                        or_dash(&d.status),
                        format!("{} ms", d.duration_ms),
                        or_dash(&d.error),
                    ]
                })
                .collect();
            out.table(
                &log,
                &["at", "seq", "type", "attempt", "status", "took", "error"],
                rows,
            );
        }
    }
    Ok(())
}

async fn set_active(board: &Board, out: &Out, id: &str, on: bool) -> anyhow::Result<()> {
    let id = webhook_id(id)?;
    let patch = WebhookPatch {
        active: Some(on),
        ..WebhookPatch::default()
    };
    let hook = board.update_webhook(&Actor::Operator, &id, patch).await?;
    out.value(&hook, || {
        let skipped = match hook.skipped {
            0 => String::new(),
            n => format!(" ({n} events no longer retained were skipped)"),
        };
        format!(
            "webhook {id} {}{skipped}; resumes after seq {}",
            if on { "enabled" } else { "disabled" },
            hook.webhook.last_delivered_seq
        )
    });
    Ok(())
}
