//! Card routes: `POST /api/cards`, `GET|PATCH|DELETE /api/cards/[id]`,
//! `GET /api/cards/[id]/history`, and the board payload `GET /api/board`.

use board_core::{CardId, Input, SetQuery};
use warp::http::StatusCode;

use super::{json, Answer, Request, SetParams};

#[utoipa::path(
    post, path = "/api/cards", operation_id = "createCard", tag = "cards",
    request_body = board_core::NewCard,
    responses(
        (status = 201, description = "The new card (one history entry written), at the end of its column or beside its anchor", body = board_core::Card),
        (status = 409, description = "CONFLICT: another change took the place at the same moment (retry)", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema (beforeId and afterId both given: formErrors), INVALID_TARGET_COLUMN, INVALID_ANCHOR (the anchor is not another card of the target column), or WIP_LIMIT (the target column is at its hard WIP limit)", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn create(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let card = req
        .board()
        .create_card(&actor, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::CREATED, &card))
}

#[utoipa::path(
    get, path = "/api/cards/{id}", operation_id = "getCard", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card"), ("If-None-Match" = Option<String>, Header, description = "Entity tags (or *) the client holds: when one names the current tag (weak comparison), 304 without a body (contract §22)")),
    responses(
        (status = 200, description = "The card", body = board_core::Card, headers(("ETag" = String, description = "The strong entity tag of the payload (contract §22)"))),
        (status = 304, description = "Not modified: If-None-Match names the current tag (no body)", headers(("ETag" = String, description = "The current tag"))),
    ),
)]
pub(super) async fn get(req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<CardId>()?;
    let read = req
        .board()
        .card_if(&actor, &id, &req.if_none_match())
        .await?;
    Ok(super::tagged(read))
}

#[utoipa::path(
    patch, path = "/api/cards/{id}", operation_id = "updateCard", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card"), ("If-Match" = Option<String>, Header, description = "The tag of GET /api/cards/{id} the change is based on (strong comparison, or *): when the card changed since, 412 PRECONDITION_FAILED and nothing changes (contract §22)")),
    request_body = board_core::CardPatch,
    responses(
        (status = 200, description = "The card (a move to another column writes one history entry; a placement within the column writes none)", body = board_core::Card),
        (status = 412, description = "PRECONDITION_FAILED: If-Match names no current tag; nothing changed", body = crate::error::ErrorBody),
        (status = 409, description = "CONFLICT: another change took the place at the same moment (retry)", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema (beforeId and afterId both given: formErrors), INVALID_TARGET_COLUMN, INVALID_ANCHOR (the anchor is not another card of the target column), or WIP_LIMIT (the target column is at its hard WIP limit)", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn patch(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<CardId>()?;
    let bytes = req.json_body().await?;
    let cond = req.if_match();
    let card = req
        .board()
        .update_card_if(&actor, &id, Input::from_body(&bytes), &cond)
        .await?;
    Ok(json(StatusCode::OK, &card))
}

#[utoipa::path(
    delete, path = "/api/cards/{id}", operation_id = "deleteCard", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card")),
    responses(
        (status = 200, description = "The card is deleted with its comments, attachments, relations and history", body = super::Deleted),
    ),
)]
pub(super) async fn delete(req: Request) -> Answer {
    let actor = req.actor().await?;
    req.board()
        .delete_card(&actor, &req.path_id::<CardId>()?)
        .await?;
    Ok(super::deleted())
}

#[utoipa::path(
    get, path = "/api/cards/{id}/history", operation_id = "cardHistory", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card"), ("If-None-Match" = Option<String>, Header, description = "Entity tags (or *) the client holds: when one names the current tag (weak comparison), 304 without a body (contract §22)")),
    responses(
        (status = 200, description = "The card's column changes, oldest first", body = Vec<board_core::HistoryEntry>, headers(("ETag" = String, description = "The strong entity tag of the payload (contract §22)"))),
        (status = 304, description = "Not modified: If-None-Match names the current tag (no body)", headers(("ETag" = String, description = "The current tag"))),
    ),
)]
pub(super) async fn history(req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<CardId>()?;
    let read = req
        .board()
        .card_history_if(&actor, &id, &req.if_none_match())
        .await?;
    Ok(super::tagged(read))
}

#[utoipa::path(
    get, path = "/api/board", operation_id = "getBoard", tag = "cards",
    params(("tenant" = board_core::WorkspaceId, Query, description = "The workspace"), ("project" = Option<String>, Query, description = "A project id: the set in effect for its cards"), ("If-None-Match" = Option<String>, Header, description = "Entity tags (or *) the client holds: when one names the current tag (weak comparison), 304 without a body (contract §22)")),
    responses(
        (status = 200, description = "The set in effect, each column with its cards", body = board_core::BoardView, headers(("ETag" = String, description = "The strong entity tag of the payload (contract §22)"))),
        (status = 304, description = "Not modified: If-None-Match names the current tag (no body)", headers(("ETag" = String, description = "The current tag"))),
        (status = 422, description = "A required query parameter is missing, or a rule was broken", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn board(req: Request) -> Answer {
    let actor = req.actor().await?;
    let q: SetParams = req.query();
    let query = SetQuery::from_query(q.tenant.as_deref(), q.project.as_deref())?;
    let read = req
        .board()
        .board_if(&actor, &query, &req.if_none_match())
        .await?;
    Ok(super::tagged(read))
}
