//! Column routes: `GET|POST /api/columns`, `PATCH /api/columns/order`, and
//! `PATCH|DELETE /api/columns/[id]`. The order route is tried before `[id]`.

use board_core::{ColumnId, Input, SetQuery};
use serde::Serialize;
use warp::http::StatusCode;

use super::{json, Answer, Request, SetParams};

/// The reply of `PATCH /api/columns/order`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Reordered {
    /// The number of ids given.
    pub updated: usize,
}

#[utoipa::path(
    get, path = "/api/columns", operation_id = "listColumns", tag = "columns",
    params(("tenant" = Option<board_core::WorkspaceId>, Query, description = "The workspace; without it, the columns of every workspace the account reaches"), ("project" = Option<String>, Query, description = "A project id: only the set in effect for its cards (ignored without tenant)"), ("If-None-Match" = Option<String>, Header, description = "Entity tags (or *) the client holds: when one names the current tag (weak comparison), 304 without a body (api.md §22)")),
    responses(
        (status = 200, description = "The columns: the tenant set, then each project set, by position", body = Vec<board_core::Column>, headers(("ETag" = String, description = "The strong entity tag of the payload (api.md §22)"))),
        (status = 304, description = "Not modified: If-None-Match names the current tag (no body)", headers(("ETag" = String, description = "The current tag"))),
        (status = 422, description = "A required query parameter is missing, or a rule was broken", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn list(req: Request) -> Answer {
    // The token is checked by the read (a workspace's columns: its statement).
    let bearer = req.bearer()?;
    let q: SetParams = req.query();
    let query = SetQuery::from_optional_query(q.tenant.as_deref(), q.project.as_deref());
    let query = req.after_credential(query.map_err(Into::into)).await?;
    let read = req
        .board()
        .list_columns_if(&bearer, query.as_ref(), &req.if_none_match())
        .await?;
    Ok(super::tagged(read))
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
pub(super) async fn create(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let column = req
        .board()
        .create_column(&actor, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::CREATED, &column))
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
pub(super) async fn reorder(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let updated = req
        .board()
        .reorder_columns(&actor, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::OK, &Reordered { updated }))
}

#[utoipa::path(
    patch, path = "/api/columns/{id}", operation_id = "updateColumn", tag = "columns",
    params(("id" = board_core::ColumnId, Path, description = "The column")),
    request_body = board_core::ColumnPatch,
    responses(
        (status = 200, description = "The column", body = board_core::Column),
        (status = 403, description = "The account does not reach the workspace, its role is too low, or column management is off (COLUMN_MANAGEMENT_DISABLED)", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema (wipLimit outside 1..=10000 included), or done:false on the done column (DONE_MARK_REQUIRED)", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn update(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<ColumnId>()?;
    let bytes = req.json_body().await?;
    let column = req
        .board()
        .update_column(&actor, &id, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::OK, &column))
}

#[utoipa::path(
    delete, path = "/api/columns/{id}", operation_id = "deleteColumn", tag = "columns",
    params(("id" = board_core::ColumnId, Path, description = "The column")),
    request_body = board_core::DeleteColumn,
    responses(
        (status = 200, description = "The column is deleted; its cards were moved or deleted", body = board_core::ColumnDeleted),
        (status = 403, description = "The account does not reach the workspace, its role is too low, or column management is off (COLUMN_MANAGEMENT_DISABLED)", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, or LAST_COLUMN, DONE_COLUMN, INVALID_TARGET_COLUMN, WIP_LIMIT (the moved cards would put the target over its hard WIP limit)", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn delete(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<ColumnId>()?;
    let bytes = req.json_body().await?;
    let outcome = req
        .board()
        .delete_column(&actor, &id, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::OK, &outcome))
}
