//! Column routes: `GET|POST /api/columns`, `PATCH /api/columns/order`, and
//! `PATCH|DELETE /api/columns/[id]`. The order route is tried before `[id]`.

use std::collections::HashMap;

use board_core::{ColumnId, Input, SetQuery};
use serde::Serialize;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::Filter;

use super::{body, json, query, read_body, respond, with_app, BodyStream, Shared};
use crate::auth::{credentials, Credentials};

/// The reply of `PATCH /api/columns/order`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Reordered {
    /// The number of ids given.
    pub updated: usize,
}

/// The column routes.
pub fn routes(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    let app = with_app(app);
    let base = warp::path!("api" / "columns")
        .and(app.clone())
        .and(credentials());
    let list = base.clone().and(warp::get()).and(query()).then(list);
    let create = base.and(warp::post()).and(body()).then(create);
    let order = warp::path!("api" / "columns" / "order")
        .and(warp::patch())
        .and(app.clone())
        .and(credentials())
        .and(body())
        .then(reorder);
    // `order` is the reorder route's, whatever the method: DELETE on it is a
    // 405, not a column named "order" that is not found.
    let one = warp::path!("api" / "columns" / String)
        .and_then(|id: String| async move {
            if id == "order" {
                Err(warp::reject::not_found())
            } else {
                Ok(id)
            }
        })
        .and(app)
        .and(credentials());
    let update = one.clone().and(warp::patch()).and(body()).then(update);
    let delete = one.and(warp::delete()).and(body()).then(delete);
    list.or(create)
        .unify()
        .or(order)
        .unify()
        .or(update)
        .unify()
        .or(delete)
        .unify()
        .boxed()
}

#[utoipa::path(
    get, path = "/api/columns", operation_id = "listColumns", tag = "columns",
    params(("tenant" = Option<board_core::WorkspaceId>, Query, description = "The workspace; without it, the columns of every workspace the account reaches"), ("project" = Option<String>, Query, description = "A project id: only the set in effect for its cards (ignored without tenant)")),
    responses(
        (status = 200, description = "The columns: the tenant set, then each project set, by position", body = Vec<board_core::Column>),
        (status = 422, description = "A required query parameter is missing, or a rule was broken", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn list(app: Shared, creds: Credentials, q: HashMap<String, String>) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let query = SetQuery::from_optional_query(
            q.get("tenant").map(String::as_str),
            q.get("project").map(String::as_str),
        )?;
        let columns = app.board.list_columns(&actor, query.as_ref()).await?;
        Ok(json(StatusCode::OK, &columns))
    })
    .await
}

#[utoipa::path(
    post, path = "/api/columns", operation_id = "createColumn", tag = "columns",
    request_body = board_core::NewColumn,
    responses(
        (status = 201, description = "The new column, at the end of its set", body = board_core::Column),
        (status = 403, description = "The account does not reach the workspace, its role is too low, or column management is off (COLUMN_MANAGEMENT_DISABLED)", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema (VALIDATION_FAILED, with details), or a rule was broken", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn create(app: Shared, creds: Credentials, body: BodyStream) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let bytes = read_body(body).await?;
        let column = app
            .board
            .create_column(&actor, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::CREATED, &column))
    })
    .await
}

#[utoipa::path(
    patch, path = "/api/columns/order", operation_id = "reorderColumns", tag = "columns",
    request_body = board_core::ColumnOrder,
    responses(
        (status = 200, description = "The columns took, in the given order, the positions they held together", body = Reordered),
        (status = 403, description = "The account does not reach the workspace, its role is too low, or column management is off (COLUMN_MANAGEMENT_DISABLED)", body = crate::error::ErrorBody),
        (status = 404, description = "A column id that does not exist", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, or the ids are not all of one set (MIXED_SETS)", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn reorder(app: Shared, creds: Credentials, body: BodyStream) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let bytes = read_body(body).await?;
        let updated = app
            .board
            .reorder_columns(&actor, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::OK, &Reordered { updated }))
    })
    .await
}

#[utoipa::path(
    patch, path = "/api/columns/{id}", operation_id = "updateColumn", tag = "columns",
    params(("id" = board_core::ColumnId, Path, description = "The column")),
    request_body = board_core::ColumnPatch,
    responses(
        (status = 200, description = "The column", body = board_core::Column),
        (status = 403, description = "The account does not reach the workspace, its role is too low, or column management is off (COLUMN_MANAGEMENT_DISABLED)", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, or done:false on the done column (DONE_MARK_REQUIRED)", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn update(
    id: String,
    app: Shared,
    creds: Credentials,
    body: BodyStream,
) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let id = ColumnId::from_path(&id)?;
        let bytes = read_body(body).await?;
        let column = app
            .board
            .update_column(&actor, &id, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::OK, &column))
    })
    .await
}

#[utoipa::path(
    delete, path = "/api/columns/{id}", operation_id = "deleteColumn", tag = "columns",
    params(("id" = board_core::ColumnId, Path, description = "The column")),
    request_body = board_core::DeleteColumn,
    responses(
        (status = 200, description = "The column is deleted; its cards were moved or deleted", body = board_core::ColumnDeleted),
        (status = 403, description = "The account does not reach the workspace, its role is too low, or column management is off (COLUMN_MANAGEMENT_DISABLED)", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, or LAST_COLUMN, DONE_COLUMN, INVALID_TARGET_COLUMN", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn delete(
    id: String,
    app: Shared,
    creds: Credentials,
    body: BodyStream,
) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let id = ColumnId::from_path(&id)?;
        let bytes = read_body(body).await?;
        let outcome = app
            .board
            .delete_column(&actor, &id, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::OK, &outcome))
    })
    .await
}
