//! `GET /api/settings?tenant=ID` (Viewer) and `PATCH /api/settings` (Admin).

use board_core::{Input, WorkspaceId};
use warp::http::StatusCode;

use super::{json, Answer, Request, SetParams};

#[utoipa::path(
    get, path = "/api/settings", operation_id = "getSettings", tag = "settings",
    params(("tenant" = board_core::WorkspaceId, Query, description = "The workspace")),
    responses(
        (status = 200, description = "The workspace's settings", body = board_core::Settings),
        (status = 422, description = "A required query parameter is missing, or a rule was broken", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn get(req: Request) -> Answer {
    let actor = req.actor().await?;
    let q: SetParams = req.query();
    let tenant = WorkspaceId::from_query(q.tenant.as_deref())?;
    let settings = req.board().settings(&actor, &tenant).await?;
    Ok(json(StatusCode::OK, &settings))
}

#[utoipa::path(
    patch, path = "/api/settings", operation_id = "updateSettings", tag = "settings",
    request_body = board_core::SettingsPatch,
    responses(
        (status = 200, description = "The settings after the change (Admin)", body = board_core::Settings),
        (status = 403, description = "The account does not reach the workspace, or is not its Admin", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema (VALIDATION_FAILED, with details), or a rule was broken", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn patch(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let settings = req
        .board()
        .update_settings(&actor, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::OK, &settings))
}
