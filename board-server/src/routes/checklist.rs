//! Checklist routes (api.md §24): `GET|POST /api/cards/[id]/checklist`,
//! `PATCH|DELETE /api/checklist/[id]`.

use board_core::{CardId, ChecklistItemId, Input};
use warp::http::StatusCode;

use super::{json, Answer, Request};

#[utoipa::path(
    get, path = "/api/cards/{id}/checklist", operation_id = "listChecklist", tag = "checklist",
    params(("id" = board_core::CardId, Path, description = "The card"), ("If-None-Match" = Option<String>, Header, description = "Entity tags (or *) the client holds: when one names the current tag (weak comparison), 304 without a body (api.md §22)")),
    responses(
        (status = 200, description = "The card's checklist, in order", body = Vec<board_core::ChecklistItem>, headers(("ETag" = String, description = "The strong entity tag of the checklist (api.md §22)"))),
        (status = 304, description = "Not modified: If-None-Match names the current tag (no body)", headers(("ETag" = String, description = "The current tag"))),
    ),
)]
pub(super) async fn list(req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<CardId>()?;
    let read = req
        .board()
        .checklist_if(&actor, &id, &req.if_none_match())
        .await?;
    Ok(super::tagged(read))
}

#[utoipa::path(
    post, path = "/api/cards/{id}/checklist", operation_id = "createChecklistItem", tag = "checklist",
    params(("id" = board_core::CardId, Path, description = "The card")),
    request_body = board_core::NewItem,
    responses(
        (status = 201, description = "The new item, at the end or beside its anchor", body = board_core::ChecklistItem),
        (status = 422, description = "The body failed the schema (or the anchor is not another item of the card), or TOO_MANY_ITEMS (500 already)", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn create(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<CardId>()?;
    let bytes = req.json_body().await?;
    let item = req
        .board()
        .create_checklist_item(&actor, &id, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::CREATED, &item))
}

#[utoipa::path(
    patch, path = "/api/checklist/{id}", operation_id = "updateChecklistItem", tag = "checklist",
    params(("id" = board_core::ChecklistItemId, Path, description = "The item"), ("If-Match" = Option<String>, Header, description = "The tag of GET /api/cards/{id}/checklist the change is based on: when the checklist changed since, 412 PRECONDITION_FAILED and nothing changes (api.md §22)")),
    request_body = board_core::ItemPatch,
    responses(
        (status = 200, description = "The item (checking it records who and when; unchecking clears both)", body = board_core::ChecklistItem),
        (status = 412, description = "PRECONDITION_FAILED: If-Match names no current tag; nothing changed", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, or the anchor is not another item of the card", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn patch(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<ChecklistItemId>()?;
    let bytes = req.json_body().await?;
    let item = req
        .board()
        .update_checklist_item(&actor, &id, Input::from_body(&bytes), &req.if_match())
        .await?;
    Ok(json(StatusCode::OK, &item))
}

#[utoipa::path(
    delete, path = "/api/checklist/{id}", operation_id = "deleteChecklistItem", tag = "checklist",
    params(("id" = board_core::ChecklistItemId, Path, description = "The item")),
    responses(
        (status = 200, description = "The item is gone", body = super::Deleted),
    ),
)]
pub(super) async fn delete(req: Request) -> Answer {
    let actor = req.actor().await?;
    req.board()
        .delete_checklist_item(&actor, &req.path_id::<ChecklistItemId>()?)
        .await?;
    Ok(super::deleted())
}
