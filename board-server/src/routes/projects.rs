//! Project routes (api.md §23, ADMIN): `POST /api/projects`, `PATCH
//! /api/projects/[id]`.

use board_core::{Input, ProjectId};
use warp::http::StatusCode;

use super::{json, Answer, Request};

#[utoipa::path(
    post, path = "/api/projects", operation_id = "createProject", tag = "projects",
    request_body(content = inline(NewProjectBody), description = "The workspace and the project's name"),
    responses(
        (status = 201, description = "The new project, with its own column set (empty until its first column)", body = board_core::Project),
        (status = 403, description = "FORBIDDEN: only an ADMIN of the workspace creates projects", body = crate::error::ErrorBody),
        (status = 409, description = "A project of the workspace has that name", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn create(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let project = req
        .board()
        .create_project(&actor, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::CREATED, &project))
}

/// The body of `POST /api/projects` (a schema only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct NewProjectBody {
    /// The workspace.
    #[schema(rename = "tenantId")]
    tenant_id: String,
    /// The project's name (1 to 100 characters), unique in the workspace.
    name: String,
}

/// The body of `PATCH /api/projects/{id}` (a schema only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct ProjectPatchBody {
    /// The new name (1 to 100 characters), unique in the workspace.
    name: String,
}

#[utoipa::path(
    patch, path = "/api/projects/{id}", operation_id = "updateProject", tag = "projects",
    params(("id" = board_core::ProjectId, Path, description = "The project")),
    request_body(content = inline(ProjectPatchBody), description = "The new name"),
    responses(
        (status = 200, description = "The project, renamed", body = board_core::Project),
        (status = 403, description = "FORBIDDEN: only an ADMIN of the workspace renames projects", body = crate::error::ErrorBody),
        (status = 409, description = "A project of the workspace has that name", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn patch(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<ProjectId>()?;
    let bytes = req.json_body().await?;
    let project = req
        .board()
        .rename_project(&actor, &id, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::OK, &project))
}
