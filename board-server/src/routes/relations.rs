//! Relation routes: `GET|POST /api/cards/[id]/relations` and
//! `DELETE /api/relations/[id]`.

use board_core::{CardId, Input, RelationId};
use warp::http::StatusCode;
use warp::reply::Response;
use warp::Filter;

use super::{body, json, read_body, respond, with_app, BodyStream, Shared};
use crate::auth::{credentials, Credentials};

/// The relation routes.
pub fn routes(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    let app = with_app(app);
    let of_card = warp::path!("api" / "cards" / String / "relations")
        .and(app.clone())
        .and(credentials());
    let list = of_card.clone().and(warp::get()).then(list);
    let create = of_card.and(warp::post()).and(body()).then(create);
    let delete = warp::path!("api" / "relations" / String)
        .and(warp::delete())
        .and(app)
        .and(credentials())
        .then(delete);
    list.or(create).unify().or(delete).unify().boxed()
}

#[utoipa::path(
    get, path = "/api/cards/{id}/relations", operation_id = "listRelations", tag = "relations",
    params(("id" = board_core::CardId, Path, description = "The card")),
    responses(
        (status = 200, description = "Every link of the card, as source or target, oldest first", body = Vec<board_core::Relation>),
    ),
)]
pub(crate) async fn list(id: String, app: Shared, creds: Credentials) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let links = app
            .board
            .card_relations(&actor, &CardId::from_path(&id)?)
            .await?;
        Ok(json(StatusCode::OK, &links))
    })
    .await
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
pub(crate) async fn create(
    id: String,
    app: Shared,
    creds: Credentials,
    body: BodyStream,
) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let id = CardId::from_path(&id)?;
        let bytes = read_body(body).await?;
        let link = app
            .board
            .create_relation(&actor, &id, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::CREATED, &link))
    })
    .await
}

#[utoipa::path(
    delete, path = "/api/relations/{id}", operation_id = "deleteRelation", tag = "relations",
    params(("id" = board_core::RelationId, Path, description = "The relation")),
    responses(
        (status = 200, description = "The link is gone from both cards", body = super::Deleted),
    ),
)]
pub(crate) async fn delete(id: String, app: Shared, creds: Credentials) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        app.board
            .delete_relation(&actor, &RelationId::from_path(&id)?)
            .await?;
        Ok(super::deleted())
    })
    .await
}
