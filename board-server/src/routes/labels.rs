//! Label routes (api.md §24): `GET|POST /api/labels`,
//! `PATCH|DELETE /api/labels/[id]`.

use board_core::{Input, LabelId, WorkspaceId};
use warp::http::StatusCode;

use super::{json, Answer, Request, SetParams};

#[utoipa::path(
    get, path = "/api/labels", operation_id = "listLabels", tag = "labels",
    params(("tenant" = board_core::WorkspaceId, Query, description = "The workspace")),
    responses(
        (status = 200, description = "The workspace's labels, in order", body = Vec<board_core::Label>),
        (status = 422, description = "The query parameter `tenant` is missing", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn list(req: Request) -> Answer {
    let actor = req.actor().await?;
    let q: SetParams = req.query();
    let tenant = WorkspaceId::from_query(q.tenant.as_deref())?;
    let labels = req.board().labels(&actor, &tenant).await?;
    Ok(json(StatusCode::OK, &labels))
}

#[utoipa::path(
    post, path = "/api/labels", operation_id = "createLabel", tag = "labels",
    request_body = board_core::NewLabel,
    responses(
        (status = 201, description = "The new label, after the workspace's others", body = board_core::Label),
        (status = 409, description = "NAME_TAKEN: a label of the workspace has that name, ignoring case", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn create(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let label = req
        .board()
        .create_label(&actor, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::CREATED, &label))
}

#[utoipa::path(
    patch, path = "/api/labels/{id}", operation_id = "updateLabel", tag = "labels",
    params(("id" = board_core::LabelId, Path, description = "The label")),
    request_body = board_core::LabelPatch,
    responses(
        (status = 200, description = "The label", body = board_core::Label),
        (status = 409, description = "NAME_TAKEN: another label of the workspace has that name, ignoring case", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, or beforeId / afterId is not another label of the workspace", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn patch(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<LabelId>()?;
    let bytes = req.json_body().await?;
    let label = req
        .board()
        .update_label(&actor, &id, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::OK, &label))
}

#[utoipa::path(
    delete, path = "/api/labels/{id}", operation_id = "deleteLabel", tag = "labels",
    params(("id" = board_core::LabelId, Path, description = "The label")),
    responses(
        (status = 200, description = "The label is gone, and off every card", body = super::Deleted),
    ),
)]
pub(super) async fn delete(req: Request) -> Answer {
    let actor = req.actor().await?;
    req.board()
        .delete_label(&actor, &req.path_id::<LabelId>()?)
        .await?;
    Ok(super::deleted())
}
