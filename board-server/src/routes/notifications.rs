//! Notifications (api.md §26): the caller's inbox, `GET /api/notifications`,
//! its unread count and `POST /api/notifications/read`, and watching a card,
//! `PUT|DELETE /api/cards/[id]/watch`.

use board_core::{CardId, Input, NotificationQuery};
use serde::Deserialize;
use warp::http::StatusCode;

use super::{json, Answer, Request};

/// The query of `GET /api/notifications`, as text.
#[derive(Debug, Default, Deserialize)]
struct InboxParams {
    unread: Option<String>,
    limit: Option<String>,
    cursor: Option<String>,
}

#[utoipa::path(
    get, path = "/api/notifications", operation_id = "listNotifications", tag = "notifications",
    params(
        ("unread" = Option<bool>, Query, description = "true: only the unread ones"),
        ("limit" = Option<u16>, Query, description = "Items per page, 1 to 200 (default 50)"),
        ("cursor" = Option<String>, Query, description = "The nextCursor of the previous page"),
    ),
    responses(
        (status = 200, description = "The caller's notifications, newest first, of the workspaces it still reaches", body = board_core::NotificationPage),
        (status = 403, description = "The operator has no notifications", body = crate::error::ErrorBody),
        (status = 422, description = "unread, limit or cursor is not one this route takes", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn list(req: Request) -> Answer {
    let actor = req.actor().await?;
    let p: InboxParams = req.query();
    let query = NotificationQuery::from_params(
        p.unread.as_deref(),
        p.limit.as_deref(),
        p.cursor.as_deref(),
    );
    let page = req.board().notifications(&actor, &query).await?;
    Ok(json(StatusCode::OK, &page))
}

#[utoipa::path(
    get, path = "/api/notifications/count", operation_id = "countNotifications", tag = "notifications",
    responses(
        (status = 200, description = "How many of the caller's notifications are unread", body = board_core::UnreadCount),
        (status = 403, description = "The operator has no notifications", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn count(req: Request) -> Answer {
    let actor = req.actor().await?;
    let count = req.board().unread_notifications(&actor).await?;
    Ok(json(StatusCode::OK, &count))
}

#[utoipa::path(
    post, path = "/api/notifications/read", operation_id = "readNotifications", tag = "notifications",
    request_body = board_core::ReadInput,
    responses(
        (status = 200, description = "How many were unread and are now read (ids of others' notifications are ignored)", body = board_core::ReadCount),
        (status = 403, description = "The operator has no notifications", body = crate::error::ErrorBody),
        (status = 422, description = "Neither ids (at most 500) nor all: true, or both", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn read(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let read = req
        .board()
        .read_notifications(&actor, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::OK, &read))
}

#[utoipa::path(
    put, path = "/api/cards/{id}/watch", operation_id = "watchCard", tag = "notifications",
    params(("id" = board_core::CardId, Path, description = "The card")),
    responses(
        (status = 200, description = "The card as GET /api/cards/{id} shows it, watching: true", body = board_core::CardView),
        (status = 403, description = "The operator cannot watch a card", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn put_watch(req: Request) -> Answer {
    watch(req, true).await
}

#[utoipa::path(
    delete, path = "/api/cards/{id}/watch", operation_id = "unwatchCard", tag = "notifications",
    params(("id" = board_core::CardId, Path, description = "The card")),
    responses(
        (status = 200, description = "The card as GET /api/cards/{id} shows it, watching: false (even for its creator, assignees and commenters)", body = board_core::CardView),
        (status = 403, description = "The operator cannot watch a card", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn delete_watch(req: Request) -> Answer {
    watch(req, false).await
}

/// Records the caller's choice to watch a card or not.
async fn watch(req: Request, watching: bool) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<CardId>()?;
    let card = req.board().watch_card(&actor, &id, watching).await?;
    Ok(json(StatusCode::OK, &card))
}
