//! `GET /api/settings?tenant=ID` (Viewer) and `PATCH /api/settings` (Admin).

use std::collections::HashMap;

use board_core::{Input, WorkspaceId};
use warp::http::StatusCode;
use warp::reply::Response;
use warp::Filter;

use super::{body, json, query, read_body, respond, with_app, BodyStream, Shared};
use crate::auth::{credentials, Credentials};

/// The settings routes.
pub fn routes(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    let base = warp::path!("api" / "settings")
        .and(with_app(app))
        .and(credentials());
    let get = base.clone().and(warp::get()).and(query()).then(get);
    let patch = base.and(warp::patch()).and(body()).then(patch);
    get.or(patch).unify().boxed()
}

#[utoipa::path(
    get, path = "/api/settings", operation_id = "getSettings", tag = "settings",
    params(("tenant" = board_core::WorkspaceId, Query, description = "The workspace")),
    responses(
        (status = 200, description = "The workspace's settings", body = board_core::Settings),
        (status = 422, description = "A required query parameter is missing, or a rule was broken", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn get(app: Shared, creds: Credentials, q: HashMap<String, String>) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let tenant = WorkspaceId::from_query(q.get("tenant").map(String::as_str))?;
        let settings = app.board.settings(&actor, &tenant).await?;
        Ok(json(StatusCode::OK, &settings))
    })
    .await
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
pub(crate) async fn patch(app: Shared, creds: Credentials, body: BodyStream) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let bytes = read_body(body).await?;
        let settings = app
            .board
            .update_settings(&actor, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::OK, &settings))
    })
    .await
}
