//! Card routes: `POST /api/cards`, `GET|PATCH|DELETE /api/cards/[id]`,
//! `GET /api/cards/[id]/history`, and the board payload `GET /api/board`.

use std::collections::HashMap;

use board_core::{CardId, Input, SetQuery};
use warp::http::StatusCode;
use warp::reply::Response;
use warp::Filter;

use super::{body, json, query, read_body, respond, with_app, BodyStream, Shared};
use crate::auth::{credentials, Credentials};

/// The card routes.
pub fn routes(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    let app = with_app(app);
    let create = warp::path!("api" / "cards")
        .and(warp::post())
        .and(app.clone())
        .and(credentials())
        .and(body())
        .then(create);
    let one = warp::path!("api" / "cards" / String)
        .and(app.clone())
        .and(credentials());
    let get = one.clone().and(warp::get()).then(get);
    let patch = one.clone().and(warp::patch()).and(body()).then(patch);
    let delete = one.and(warp::delete()).then(delete);
    let history = warp::path!("api" / "cards" / String / "history")
        .and(warp::get())
        .and(app.clone())
        .and(credentials())
        .then(history);
    let board = warp::path!("api" / "board")
        .and(warp::get())
        .and(app)
        .and(credentials())
        .and(query())
        .then(board);
    create
        .or(get)
        .unify()
        .or(patch)
        .unify()
        .or(delete)
        .unify()
        .or(history)
        .unify()
        .or(board)
        .unify()
        .boxed()
}

#[utoipa::path(
    post, path = "/api/cards", operation_id = "createCard", tag = "cards",
    request_body = board_core::NewCard,
    responses(
        (status = 201, description = "The new card (one history entry written)", body = board_core::Card),
        (status = 422, description = "The body failed the schema, or INVALID_TARGET_COLUMN", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn create(app: Shared, creds: Credentials, body: BodyStream) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let bytes = read_body(body).await?;
        let card = app
            .board
            .create_card(&actor, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::CREATED, &card))
    })
    .await
}

#[utoipa::path(
    get, path = "/api/cards/{id}", operation_id = "getCard", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card")),
    responses(
        (status = 200, description = "The card", body = board_core::Card),
    ),
)]
pub(crate) async fn get(id: String, app: Shared, creds: Credentials) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let card = app.board.card(&actor, &CardId::from_path(&id)?).await?;
        Ok(json(StatusCode::OK, &card))
    })
    .await
}

#[utoipa::path(
    patch, path = "/api/cards/{id}", operation_id = "updateCard", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card")),
    request_body = board_core::CardPatch,
    responses(
        (status = 200, description = "The card (a move writes one history entry)", body = board_core::Card),
        (status = 422, description = "The body failed the schema, or INVALID_TARGET_COLUMN", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn patch(
    id: String,
    app: Shared,
    creds: Credentials,
    body: BodyStream,
) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let id = CardId::from_path(&id)?;
        let bytes = read_body(body).await?;
        let card = app
            .board
            .update_card(&actor, &id, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::OK, &card))
    })
    .await
}

#[utoipa::path(
    delete, path = "/api/cards/{id}", operation_id = "deleteCard", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card")),
    responses(
        (status = 200, description = "The card is deleted with its comments, attachments, relations and history", body = super::Deleted),
    ),
)]
pub(crate) async fn delete(id: String, app: Shared, creds: Credentials) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        app.board
            .delete_card(&actor, &CardId::from_path(&id)?)
            .await?;
        Ok(super::deleted())
    })
    .await
}

#[utoipa::path(
    get, path = "/api/cards/{id}/history", operation_id = "cardHistory", tag = "cards",
    params(("id" = board_core::CardId, Path, description = "The card")),
    responses(
        (status = 200, description = "The card's column changes, oldest first", body = Vec<board_core::HistoryEntry>),
    ),
)]
pub(crate) async fn history(id: String, app: Shared, creds: Credentials) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let entries = app
            .board
            .card_history(&actor, &CardId::from_path(&id)?)
            .await?;
        Ok(json(StatusCode::OK, &entries))
    })
    .await
}

#[utoipa::path(
    get, path = "/api/board", operation_id = "getBoard", tag = "cards",
    params(("tenant" = board_core::WorkspaceId, Query, description = "The workspace"), ("project" = Option<String>, Query, description = "A project id: the set in effect for its cards")),
    responses(
        (status = 200, description = "The set in effect, each column with its cards", body = board_core::BoardView),
        (status = 422, description = "A required query parameter is missing, or a rule was broken", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn board(app: Shared, creds: Credentials, q: HashMap<String, String>) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let query = SetQuery::from_query(
            q.get("tenant").map(String::as_str),
            q.get("project").map(String::as_str),
        )?;
        let view = app.board.board(&actor, &query).await?;
        Ok(json(StatusCode::OK, &view))
    })
    .await
}
