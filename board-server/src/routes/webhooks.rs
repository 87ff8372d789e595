//! Webhook routes (api.md §18), all Admin: `GET|POST /api/webhooks`,
//! `PATCH|DELETE /api/webhooks/[id]`, `GET /api/webhooks/[id]/deliveries`.

use board_core::{Input, WebhookId, WorkspaceId};
use warp::http::StatusCode;

use super::{json, Answer, Request, SetParams};

#[utoipa::path(
    get, path = "/api/webhooks", operation_id = "listWebhooks", tag = "webhooks",
    params(("tenant" = board_core::WorkspaceId, Query, description = "The workspace")),
    responses(
        (status = 200, description = "The workspace's webhooks, oldest first, without their secrets (Admin)", body = Vec<board_core::Webhook>),
        (status = 403, description = "The account does not reach the workspace, or is not its Admin", body = crate::error::ErrorBody),
        (status = 422, description = "The query parameter `tenant` is missing", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn list(req: Request) -> Answer {
    let actor = req.actor().await?;
    let q: SetParams = req.query();
    let tenant = WorkspaceId::from_query(q.tenant.as_deref())?;
    let hooks = req.board().webhooks(&actor, &tenant).await?;
    Ok(json(StatusCode::OK, &hooks))
}

#[utoipa::path(
    post, path = "/api/webhooks", operation_id = "createWebhook", tag = "webhooks",
    request_body = board_core::NewWebhook,
    responses(
        (status = 201, description = "The webhook, with its secret: the only time it is shown", body = board_core::CreatedWebhook),
        (status = 403, description = "The account does not reach the workspace, or is not its Admin", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema (VALIDATION_FAILED, with details), or WEBHOOK_TARGET (the host resolves to a loopback, private, link-local, unique-local or unspecified address, or to none)", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn create(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let hook = req
        .board()
        .create_webhook(&actor, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::CREATED, &hook))
}

#[utoipa::path(
    patch, path = "/api/webhooks/{id}", operation_id = "updateWebhook", tag = "webhooks",
    params(("id" = board_core::WebhookId, Path, description = "The webhook")),
    request_body = board_core::WebhookPatch,
    responses(
        (status = 200, description = "The webhook after the change, with `skipped`: the events no longer retained that a reactivation passed over (0 when none)", body = board_core::PatchedWebhook),
        (status = 403, description = "The account is not an Admin of the webhook's workspace", body = crate::error::ErrorBody),
        (status = 404, description = "No such webhook, or a malformed id", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, or WEBHOOK_TARGET for a new url", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn patch(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<WebhookId>()?;
    let bytes = req.json_body().await?;
    let hook = req
        .board()
        .update_webhook(&actor, &id, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::OK, &hook))
}

#[utoipa::path(
    delete, path = "/api/webhooks/{id}", operation_id = "deleteWebhook", tag = "webhooks",
    params(("id" = board_core::WebhookId, Path, description = "The webhook")),
    responses(
        (status = 200, description = "The webhook is gone; no delivery starts after it", body = super::Deleted),
        (status = 403, description = "The account is not an Admin of the webhook's workspace", body = crate::error::ErrorBody),
        (status = 404, description = "No such webhook, or a malformed id", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn delete(req: Request) -> Answer {
    let actor = req.actor().await?;
    req.board()
        .delete_webhook(&actor, &req.path_id::<WebhookId>()?)
        .await?;
    Ok(super::deleted())
}

#[utoipa::path(
    get, path = "/api/webhooks/{id}/deliveries", operation_id = "listWebhookDeliveries", tag = "webhooks",
    params(("id" = board_core::WebhookId, Path, description = "The webhook")),
    responses(
        (status = 200, description = "The last 100 delivery attempts, newest first", body = Vec<board_core::Delivery>),
        (status = 403, description = "The account is not an Admin of the webhook's workspace", body = crate::error::ErrorBody),
        (status = 404, description = "No such webhook, or a malformed id", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn deliveries(req: Request) -> Answer {
    let actor = req.actor().await?;
    let log = req
        .board()
        .webhook_deliveries(&actor, &req.path_id::<WebhookId>()?)
        .await?;
    Ok(json(StatusCode::OK, &log))
}
