//! Relation routes: `GET|POST /api/cards/[id]/relations` and
//! `DELETE /api/relations/[id]`.

use board_core::{CardId, Input, RelationId};
use warp::http::StatusCode;

use super::{json, Answer, Request};

#[utoipa::path(
    get, path = "/api/cards/{id}/relations", operation_id = "listRelations", tag = "relations",
    params(("id" = board_core::CardId, Path, description = "The card"), ("If-None-Match" = Option<String>, Header, description = "Entity tags (or *) the client holds: when one names the current tag (weak comparison), 304 without a body (api.md §22)")),
    responses(
        (status = 200, description = "Every link of the card, as source or target, oldest first", body = Vec<board_core::Relation>, headers(("ETag" = String, description = "The strong entity tag of the payload (api.md §22)"))),
        (status = 304, description = "Not modified: If-None-Match names the current tag (no body)", headers(("ETag" = String, description = "The current tag"))),
    ),
)]
pub(super) async fn list(req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<CardId>()?;
    let read = req
        .board()
        .card_relations_if(&actor, &id, &req.if_none_match())
        .await?;
    Ok(super::tagged(read))
}

#[utoipa::path(
    post, path = "/api/cards/{id}/relations", operation_id = "createRelation", tag = "relations",
    params(("id" = board_core::CardId, Path, description = "The card")),
    request_body = board_core::NewRelation,
    responses(
        (status = 201, description = "The link, read from the route's card to the target", body = board_core::Relation),
        (status = 404, description = "No such card or target card, or a malformed id", body = crate::error::ErrorBody),
        (status = 409, description = "A link between the two cards exists, in either direction (LINK_EXISTS)", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, or SELF_LINK, CROSS_WORKSPACE_LINK, CROSS_PROJECT_LINK, LINK_CYCLE", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn create(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<CardId>()?;
    let bytes = req.json_body().await?;
    let link = req
        .board()
        .create_relation(&actor, &id, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::CREATED, &link))
}

#[utoipa::path(
    delete, path = "/api/relations/{id}", operation_id = "deleteRelation", tag = "relations",
    params(("id" = board_core::RelationId, Path, description = "The relation")),
    responses(
        (status = 200, description = "The link is gone from both cards", body = super::Deleted),
    ),
)]
pub(super) async fn delete(req: Request) -> Answer {
    let actor = req.actor().await?;
    req.board()
        .delete_relation(&actor, &req.path_id::<RelationId>()?)
        .await?;
    Ok(super::deleted())
}
